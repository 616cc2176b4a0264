//! `inbetween import`: glTF animations to an animation document (JSON).

use std::path::{Path, PathBuf};

use crate::error::CliError;
use crate::input::{import_gltf, GltfChoice};
use crate::output::write_output;
use crate::progress::Progress;

/// Runs `inbetween import`: writes the document to `output` (atomically) or standard output.
pub fn run(
    input: &Path,
    output: Option<&Path>,
    choice: &GltfChoice<'_>,
    quiet: bool,
) -> Result<(), CliError> {
    let fps = choice.fps;
    if !(fps.is_finite() && fps > 0.0) {
        return Err(CliError::Usage(format!(
            "--fps must be a positive finite number (frames per second), found {fps}"
        )));
    }
    let spinner = Progress::spinner(&format!("importing {}", input.display()), quiet);
    let doc = import_gltf(input, choice);
    spinner.finish();
    let doc = doc?;
    let text = doc.to_json_string();
    write_output(output, text.as_bytes())?;
    if let (Some(out), false) = (output.filter(|o| !crate::output::is_stdout(o)), quiet) {
        let keys: usize = doc.tracks().iter().map(|t| t.keys().len()).sum();
        println!(
            "{} tracks, {keys} keys at {fps} fps → {}",
            doc.tracks().len(),
            PathBuf::from(out).display()
        );
    }
    Ok(())
}
