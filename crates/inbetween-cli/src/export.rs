//! `inbetween export`: a document's tracks as a glTF 2.0 animation (.gltf or .glb).

use std::fmt::Write as _;
use std::path::Path;

use inbetween::gltf_export::{export_gltf, ExportedAs};

use crate::error::{refused, CliError};
use crate::input::load_document;
use crate::output::{print_report, write_atomic};

/// `.glb` (true) or `.gltf` (false), case-insensitive; `.gltf` JSON for `-` and for a name
/// without an extension. Any other extension (`.fbx`) is a usage error, as `plot` refuses a
/// picture format it cannot tell.
fn is_glb(output: &Path) -> Result<bool, CliError> {
    if crate::output::is_stdout(output) {
        return Ok(false);
    }
    match output.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("glb") => Ok(true),
        None => Ok(false),
        Some(e) if e.eq_ignore_ascii_case("gltf") => Ok(false),
        _ => Err(CliError::Usage(format!(
            "cannot tell the glTF container of {}: the output must end in .gltf or .glb",
            output.display()
        ))),
    }
}

/// Runs `inbetween export`; `.glb` output selects the binary container, and without `-o` the
/// output is the input's name with `.glb`.
pub fn run(input: &Path, output: Option<&Path>, quiet: bool) -> Result<(), CliError> {
    let output = &crate::output::default_output(input, output, "glb");
    let glb = is_glb(output)?;
    crate::output::check_output(Some(output))?;
    let doc = load_document(input)?;
    let (bytes, report) = export_gltf(&doc, glb).map_err(refused(input))?;
    write_atomic(output, &bytes)?;
    if !quiet {
        let mut text = String::new();
        for (track, node, path, how) in &report.channels {
            let how = match how {
                ExportedAs::Exact(kind) => format!("{kind} (exact)"),
                ExportedAs::Baked(why) => format!("LINEAR, baked at every frame ({why})"),
            };
            let _ = writeln!(text, "{track:<28} → node \"{node}\" {path:<12} {how}");
        }
        for (track, why) in &report.skipped {
            let _ = writeln!(text, "{track:<28} skipped: {why}");
        }
        if report.time_shift > 0.0 {
            let _ = writeln!(
                text,
                "times shifted by {} s so that none is negative",
                report.time_shift
            );
        }
        let _ = writeln!(
            text,
            "{} bytes → {}",
            bytes.len(),
            crate::output::display_name(output)
        );
        print_report(output, &text);
    }
    Ok(())
}
