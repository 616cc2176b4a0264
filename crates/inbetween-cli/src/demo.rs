//! `inbetween demo`: the main job on the bundled showcase document.

use std::path::Path;

use inbetween::Document;

use crate::error::CliError;
use crate::output::write_atomic;
use crate::sample::{frame_range, render};
use crate::Format;

/// The bundled example: every segment kind and several eases in one document.
pub const SHOWCASE: &str = include_str!("../../../examples/showcase.json");

/// Runs the demo, writing into `out_dir`.
pub fn run(out_dir: &Path) -> Result<(), CliError> {
    let doc = Document::from_json_str(SHOWCASE, "examples/showcase.json")?;
    println!(
        "inbetween demo: examples/showcase.json, {} tracks at {} fps\n",
        doc.tracks().len(),
        doc.fps()
    );
    println!(
        "{:<10} {:<7} {:<5} {:<10} {:<44} eases",
        "track", "type", "keys", "frames", "kinds"
    );
    for t in doc.tracks() {
        println!(
            "{:<10} {:<7} {:<5} {:<10} {:<44} {}",
            t.name(),
            t.value_type().name(),
            t.keys().len(),
            format!("{}..{}", t.first_frame(), t.last_frame()),
            t.kinds_used().join(", "),
            t.eases_used().join(", ")
        );
    }
    let range = frame_range(&doc, None, None)?;
    let csv = render(&doc, range, Format::Csv)?;
    std::fs::create_dir_all(out_dir).map_err(|source| CliError::Write {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let csv_path = out_dir.join("showcase.csv");
    write_atomic(&csv_path, csv.as_bytes())?;
    let rows = csv.lines().count().saturating_sub(1);
    println!(
        "\nsampled {rows} frames × {} columns exactly → {}",
        doc.columns(),
        csv_path.display()
    );
    Ok(())
}
