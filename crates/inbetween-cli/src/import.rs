//! `inbetween import`: glTF animations or an ozz-animation clip (`.ozz`) to an animation document (JSON).

use std::path::{Path, PathBuf};

use crate::error::CliError;
use inbetween::gltf_scene::SCENE_FIELD;

use crate::input::{import_gltf_with_scene, GltfChoice};
use crate::output::write_output;
use crate::progress::Progress;

/// Runs `inbetween import`: writes the document to `output` (atomically) or standard output.
pub fn run(
    input: &Path,
    output: Option<&Path>,
    choice: &GltfChoice<'_>,
    skeleton: Option<&Path>,
    quiet: bool,
) -> Result<(), CliError> {
    let fps = choice.fps;
    if !(fps.is_finite() && fps > 0.0) {
        return Err(CliError::Usage(format!(
            "--fps must be a positive finite number (frames per second), found {fps}"
        )));
    }
    let spinner = Progress::spinner(&format!("importing {}", input.display()), quiet);
    let imported = if is_ozz(input) {
        import_ozz_file(input, skeleton, fps).map(|doc| (doc, None))
    } else if !crate::input::is_gltf(input) {
        // Not glTF by name: a Lottie file (its own fps), else refused as glTF would be.
        crate::input::read_input(input).and_then(|bytes| {
            if inbetween::lottie_import::is_lottie(&bytes) {
                crate::input::import_lottie(&bytes, input).map(|doc| (doc, None))
            } else {
                gltf_with_record(input, choice)
            }
        })
    } else {
        gltf_with_record(input, choice)
    };
    spinner.finish();
    let (doc, record) = imported?;
    let text = doc.to_json_string_with_fields(record.unwrap_or_default());
    write_output(output, text.as_bytes())?;
    if let (Some(out), false) = (output.filter(|o| !crate::output::is_stdout(o)), quiet) {
        let keys: usize = doc.tracks().iter().map(|t| t.keys().len()).sum();
        println!(
            "{} tracks, {keys} keys at {} fps → {}",
            doc.tracks().len(),
            doc.fps(),
            PathBuf::from(out).display()
        );
    }
    Ok(())
}

/// A glTF import and its `"x-gltf"` record of the source's nodes and animations, as the
/// document's extra top-level field (`export` writes the tracks back onto those nodes).
fn gltf_with_record(
    input: &Path,
    choice: &GltfChoice<'_>,
) -> Result<
    (
        inbetween::Document,
        Option<serde_json::Map<String, serde_json::Value>>,
    ),
    CliError,
> {
    let import = import_gltf_with_scene(input, choice)?;
    let mut fields = serde_json::Map::new();
    fields.insert(SCENE_FIELD.to_string(), import.scene.to_json());
    Ok((import.document, Some(fields)))
}

/// True for `.ozz` files (by extension, case-insensitive).
fn is_ozz(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("ozz"))
}

/// Imports an ozz animation archive at `fps`, joints named from `skeleton` when given.
fn import_ozz_file(
    path: &Path,
    skeleton: Option<&Path>,
    fps: f64,
) -> Result<inbetween::Document, CliError> {
    let read = |p: &Path| {
        std::fs::read(p).map_err(|source| CliError::Read {
            path: p.to_path_buf(),
            source,
        })
    };
    let animation = read(path)?;
    let skeleton_bytes = skeleton.map(read).transpose()?;
    inbetween::ozz_import::import_ozz(&animation, skeleton_bytes.as_deref(), fps).map_err(|error| {
        CliError::Ozz {
            // The message says which archive (animation or skeleton) it is about.
            path: path.to_path_buf(),
            error,
        }
    })
}
