//! `inbetween demo`, Lottie part: imports the bundled After Effects export and writes its document and preview page.

use std::path::Path;

use crate::error::CliError;
use crate::output::write_atomic;

/// How errors name the bundled Lottie file.
const LOTTIE_NAME: &str = "examples/lottie/auto_orient.json";

/// lottie-docs' auto-orient example (CC BY 4.0): see examples/lottie/README.md.
const AUTO_ORIENT: &[u8] = include_bytes!("../../../examples/lottie/auto_orient.json");

/// Imports the bundled Lottie file, prints its tracks, and writes `auto_orient.json` (the
/// document) and `auto_orient.html` (the preview page of its compiled streams) in `out_dir`.
pub fn run(out_dir: &Path) -> Result<(), CliError> {
    let doc = crate::input::import_lottie(AUTO_ORIENT, Path::new(LOTTIE_NAME))?;
    let keys: usize = doc.tracks().iter().map(|t| t.keys().len()).sum();
    println!(
        "\nimported {LOTTIE_NAME} (Lottie): {} tracks, {keys} keys at {} fps",
        doc.tracks().len(),
        doc.fps()
    );
    for track in doc.tracks() {
        let length = track.arclength_table().map_or(0.0, |t| t.total_length());
        println!(
            "  {:<20} {:<6} {} keys, path length {length:.3} px, each segment timed by its own arc length",
            track.name(),
            track.value_type().name(),
            track.keys().len()
        );
    }
    let json_path = out_dir.join("auto_orient.json");
    write_atomic(&json_path, doc.to_json_string().as_bytes())?;
    let html = out_dir.join("auto_orient.html");
    write_atomic(
        &html,
        crate::preview::render_html(Path::new(LOTTIE_NAME), &doc)?.as_bytes(),
    )?;
    println!(
        "→ {}\ninteractive preview → {}",
        json_path.display(),
        html.display()
    );
    Ok(())
}
