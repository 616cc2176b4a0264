//! `inbetween export`: a document's tracks as a glTF 2.0 animation (.gltf or .glb).

use std::fmt::Write as _;
use std::path::Path;

use inbetween::gltf_export::{export_gltf_with, ExportOptions, ExportReport, ExportedAs};
use inbetween::gltf_import::{load_gltf_model, GltfModel};
use inbetween::gltf_scene::GltfScene;
use inbetween::Document;

use crate::error::{refused, CliError, Refusal};
use crate::input::{
    document_from_bytes, gltf_options, import_gltf_with_scene, is_gltf, read_input, GltfChoice,
};
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

/// The document and, unless `flat`, its `"x-gltf"` record of the glTF it came from: a glTF
/// input is imported with its record, a JSON document carries it as a top-level field.
fn load_with_record(input: &Path, flat: bool) -> Result<(Document, Option<GltfScene>), CliError> {
    if is_gltf(input) {
        let import = import_gltf_with_scene(input, &GltfChoice::default())?;
        return Ok((import.document, (!flat).then_some(import.scene)));
    }
    let bytes = read_input(input)?;
    let doc = document_from_bytes(input, &bytes)?;
    if flat {
        return Ok((doc, None));
    }
    // The document loaded, so the bytes are JSON (or Lottie, which has no record).
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    let scene = GltfScene::from_document_json(&json).map_err(|e| {
        refused(input)(Refusal::Cannot(format!(
            "{e}; fix the record, or export with --flat to ignore it"
        )))
    })?;
    Ok((doc, scene))
}

/// The model of `--onto`, whole (buffers read under the import's folder rules).
fn load_model(path: &Path) -> Result<GltfModel, CliError> {
    load_gltf_model(path, &gltf_options(&GltfChoice::default())).map_err(|error| CliError::Gltf {
        path: path.to_path_buf(),
        error: Box::new(error),
    })
}

/// Runs `inbetween export`; `.glb` output selects the binary container, and without `-o` the
/// output is the input's name with `.glb`. A document imported from glTF is written onto the
/// source's nodes and animations (its `"x-gltf"` record) unless `flat`; with `onto`, into that
/// whole model (its animations replaced).
pub fn run(
    input: &Path,
    output: Option<&Path>,
    onto: Option<&Path>,
    flat: bool,
    quiet: bool,
) -> Result<(), CliError> {
    let output = &crate::output::default_output(input, output, "glb");
    let glb = is_glb(output)?;
    crate::output::check_output(Some(output))?;
    let (doc, scene) = load_with_record(input, flat)?;
    let model = onto.map(load_model).transpose()?;
    let options = ExportOptions {
        glb,
        scene: scene.as_ref(),
        onto: model.as_ref(),
    };
    let (bytes, report) = export_gltf_with(&doc, &options).map_err(refused(input))?;
    write_atomic(output, &bytes)?;
    if !quiet {
        print_export_report(output, &bytes, &report);
    }
    Ok(())
}

/// What `export` prints: each track's target and how it was written, the skipped tracks, the
/// animations, the time shift and the output.
fn print_export_report(output: &Path, bytes: &[u8], report: &ExportReport) {
    let mut text = String::new();
    for (track, node, path, how) in &report.channels {
        let how = match how {
            ExportedAs::Exact(kind) => format!("{kind} (exact)"),
            ExportedAs::Baked(why) => format!("LINEAR, baked at every frame ({why})"),
        };
        if *path == "pointer" {
            let _ = writeln!(text, "{track:<28} → pointer {node} {how}");
        } else {
            let _ = writeln!(text, "{track:<28} → node \"{node}\" {path:<12} {how}");
        }
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
    if !report.animations.is_empty() {
        let names: Vec<String> = report
            .animations
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect();
        let _ = writeln!(text, "animations: {}", names.join(", "));
    }
    let _ = writeln!(
        text,
        "{} bytes → {}",
        bytes.len(),
        crate::output::display_name(output)
    );
    print_report(output, &text);
}
