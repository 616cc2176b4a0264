//! `inbetween demo`: the main job on the bundled showcase document.

use std::path::Path;

use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream};
use inbetween::Document;

use crate::compile::compile_document;
use crate::error::CliError;
use crate::output::write_atomic;
use crate::sample::{frame_range, render};
use crate::Format;

/// The bundled example: every segment kind and several eases in one document.
pub const SHOWCASE: &str = include_str!("../../../examples/showcase.json");

/// How errors name the bundled showcase.
const SHOWCASE_NAME: &str = "examples/showcase.json";

/// How errors name the bundled walk cycle.
const WALK_NAME: &str = "examples/gltf/character_walk.gltf";

/// A real glTF walk cycle (23 joints, ozz-animation's sample, MIT): see examples/gltf/README.md.
pub const CHARACTER_WALK: &[u8] = include_bytes!("../../../examples/gltf/character_walk.gltf");

/// Largest |played − exact| over the track's integer frames, and where, playing `stream`'s
/// track `index` frame by frame from its first integer frame.
pub fn measure_playback(doc: &Document, stream: &Stream<'_>, index: usize) -> (f64, i64) {
    let (Some(track), Some(compiled)) = (doc.tracks().get(index), stream.track(index)) else {
        return (f64::NAN, 0);
    };
    let (from, to) = (
        track.first_frame().ceil() as i64,
        track.last_frame().floor() as i64,
    );
    let mut player = TrackPlayer::new(compiled);
    let mut worst = (0.0_f64, from);
    if player.seek(from as f64).is_err() {
        return (f64::NAN, from);
    }
    let mut played = [0.0; 4];
    for frame in from..=to {
        if frame > from {
            player.advance();
        }
        player.write(&mut played);
        let exact = track.eval(frame as f64);
        for (p, e) in played.iter().zip(exact.iter()) {
            let err = (p - e).abs();
            if err > worst.0 || err.is_nan() {
                worst = (err, frame);
            }
        }
    }
    worst
}

/// Spread (largest / smallest) of the distance moved per frame, for the tracks that move in
/// space: key timing against arc-length timing.
fn print_spacing(doc: &Document) {
    println!("\nspacing along the path (distance travelled per frame):");
    println!(
        "{:<12} {:<22} {:>10} {:>10} {:>10}",
        "track", "timing", "min", "max", "max/min"
    );
    for t in doc
        .tracks()
        .iter()
        .filter(|t| t.name().starts_with("glide"))
    {
        let (from, to) = (t.first_frame().ceil() as i64, t.last_frame().floor() as i64);
        // Distance along the path from frame f to f + 1: chords over 64 substeps.
        let steps: Vec<f64> = (from..to)
            .map(|f| {
                (0..64)
                    .map(|k| {
                        let (a, b) = (
                            t.eval(f as f64 + f64::from(k) / 64.0),
                            t.eval(f as f64 + f64::from(k + 1) / 64.0),
                        );
                        a.iter()
                            .zip(b.iter())
                            .map(|(x, y)| (x - y) * (x - y))
                            .sum::<f64>()
                            .sqrt()
                    })
                    .sum()
            })
            .collect();
        let min = steps.iter().copied().fold(f64::INFINITY, f64::min);
        let max = steps.iter().copied().fold(0.0, f64::max);
        let timing = match t.path() {
            inbetween::PathMode::Keys => "keys".to_string(),
            inbetween::PathMode::Arclength { ease } => format!("arclength, {}", ease.name()),
            inbetween::PathMode::SegmentArclength => "segment_arclength".to_string(),
        };
        println!(
            "{:<12} {:<22} {:>10.4} {:>10.4} {:>10.3}",
            t.name(),
            timing,
            min,
            max,
            max / min
        );
    }
}

/// The widths of the track-name and segment-kinds columns: their longest entries (in
/// characters), at least the headers'.
fn column_widths(doc: &Document) -> (usize, usize) {
    let widest = |f: &dyn Fn(&inbetween::Track) -> String, header: &str| {
        doc.tracks()
            .iter()
            .map(|t| f(t).chars().count())
            .chain(std::iter::once(header.len()))
            .max()
            .unwrap_or(0)
    };
    (
        widest(&|t| t.name().to_string(), "track"),
        widest(&|t| t.kinds_used().join(", "), "kinds"),
    )
}

/// Runs the demo, writing into `out_dir`.
pub fn run(out_dir: &Path) -> Result<(), CliError> {
    let doc = Document::from_json_str(SHOWCASE, SHOWCASE_NAME).map_err(|error| CliError::Load {
        snippet: crate::error::snippet(SHOWCASE.as_bytes(), &error),
        error: Box::new(error),
    })?;
    println!(
        "inbetween demo: examples/showcase.json, {} tracks at {} fps\n",
        doc.tracks().len(),
        doc.fps()
    );
    // Columns as wide as their longest entry, so long track names keep the table aligned.
    let widths = column_widths(&doc);
    print_tracks(&doc, widths);
    std::fs::create_dir_all(out_dir).map_err(|source| CliError::Write {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let range = frame_range(Path::new(SHOWCASE_NAME), &doc, None, None)?;
    let csv = render(Path::new(SHOWCASE_NAME), &doc, range, Format::Csv)?;
    let csv_path = out_dir.join("showcase.csv");
    write_atomic(&csv_path, csv.as_bytes())?;
    let rows = csv.lines().count().saturating_sub(1);
    println!(
        "\nsampled {rows} frames × {} columns exactly → {}",
        doc.columns(),
        csv_path.display()
    );

    print_spacing(&doc);

    for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
        compile_showcase(&doc, precision, widths, out_dir)?;
    }
    write_pictures(&doc, out_dir)?;
    walk_cycle(out_dir)?;
    crate::demo_lottie::run(out_dir)
}

/// One row per track of the showcase: name, type, keys, frames, kinds and eases, in columns
/// `(name_w, kinds_w)` wide.
fn print_tracks(doc: &Document, (name_w, kinds_w): (usize, usize)) {
    println!(
        "{:<name_w$} {:<7} {:<5} {:<10} {:<kinds_w$} eases",
        "track", "type", "keys", "frames", "kinds"
    );
    for t in doc.tracks() {
        println!(
            "{:<name_w$} {:<7} {:<5} {:<10} {:<kinds_w$} {}",
            t.name(),
            t.value_type().name(),
            t.keys().len(),
            format!("{}..{}", t.first_frame(), t.last_frame()),
            t.kinds_used().join(", "),
            t.eases_used().join(", ")
        );
    }
}

/// Compiles the showcase in `precision`, prints one row per track (pieces, degree, bytes,
/// tolerance and the played error measured against exact evaluation) and writes the stream.
fn compile_showcase(
    doc: &Document,
    precision: Precision,
    (name_w, kinds_w): (usize, usize),
    out_dir: &Path,
) -> Result<(), CliError> {
    let options = CompileOptions {
        precision,
        ..CompileOptions::default()
    };
    let compiled = compile_document(Path::new(SHOWCASE_NAME), doc, &options)?;
    let stream = Stream::from_bytes(&compiled.bytes).map_err(|error| CliError::Stream {
        path: "<showcase>".into(),
        error,
    })?;
    println!(
        "\ncompiled to {precision} forward differences (tolerance 1e-6 × scale): {} bytes",
        compiled.bytes.len()
    );
    println!(
        "{:<name_w$} {:<kinds_w$} {:>6} {:>4} {:>7} {:>10} {:>11} {:>7} {:>8}",
        "track", "kinds", "pieces", "deg", "bytes", "tolerance", "played err", "@frame", "adds/fr"
    );
    for (i, (track, report)) in doc.tracks().iter().zip(&compiled.reports).enumerate() {
        let s = &report.summary;
        let (error, at) = measure_playback(doc, &stream, i);
        println!(
            "{:<name_w$} {:<kinds_w$} {:>6} {:>4} {:>7} {:>10.1e} {:>11.2e} {:>7} {:>8.2}",
            track.name(),
            track.kinds_used().join(", "),
            s.pieces,
            s.max_degree,
            s.bytes,
            s.tolerance,
            error,
            at,
            s.additions_per_frame
        );
    }
    let path = out_dir.join(format!("showcase-{}.ibs", precision.name()));
    write_atomic(&path, &compiled.bytes)?;
    println!("→ {}", path.display());
    Ok(())
}

/// Writes the showcase's SVG plot and HTML preview.
fn write_pictures(doc: &Document, out_dir: &Path) -> Result<(), CliError> {
    let svg = out_dir.join("showcase.svg");
    write_atomic(
        &svg,
        crate::plot::render_svg(
            Path::new(SHOWCASE_NAME),
            doc,
            &crate::plot::PlotOptions::default(),
        )?
        .as_bytes(),
    )?;
    let html = out_dir.join("showcase.html");
    write_atomic(
        &html,
        crate::preview::render_html(Path::new(SHOWCASE_NAME), doc)?.as_bytes(),
    )?;
    println!(
        "\ncurves and paths → {}\ninteractive preview (open in a browser) → {}",
        svg.display(),
        html.display()
    );
    Ok(())
}

/// Imports the bundled glTF walk cycle, compiles it and prints one row per channel kind.
fn walk_cycle(out_dir: &Path) -> Result<(), CliError> {
    use inbetween::gltf_import::{import_gltf_slice, ImportOptions};
    let doc =
        import_gltf_slice(CHARACTER_WALK, None, &ImportOptions::default()).map_err(|error| {
            CliError::Gltf {
                path: WALK_NAME.into(),
                error: Box::new(error),
            }
        })?;
    let keys: usize = doc.tracks().iter().map(|t| t.keys().len()).sum();
    println!(
        "\nimported examples/gltf/character_walk.gltf: {} channels, {keys} keys at {} fps",
        doc.tracks().len(),
        doc.fps()
    );
    let json_path = out_dir.join("character_walk.json");
    write_atomic(&json_path, doc.to_json_string().as_bytes())?;
    println!(
        "{:<12} {:<7} {:>8} {:>6} {:>7} {:>4} {:>8} {:>11} {:>8}",
        "channels", "prec", "tracks", "keys", "pieces", "deg", "bytes", "max error", "adds/fr"
    );
    for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
        let options = CompileOptions {
            precision,
            ..CompileOptions::default()
        };
        let compiled = compile_document(Path::new(WALK_NAME), &doc, &options)?;
        for path in ["translation", "rotation", "scale"] {
            let rows: Vec<_> = doc
                .tracks()
                .iter()
                .zip(&compiled.reports)
                .filter(|(t, _)| t.name().ends_with(&format!("/{path}")))
                .collect();
            let keys: usize = rows.iter().map(|(t, _)| t.keys().len()).sum();
            let pieces: usize = rows.iter().map(|(_, r)| r.summary.pieces).sum();
            let bytes: usize = rows.iter().map(|(_, r)| r.summary.bytes).sum();
            let degree = rows
                .iter()
                .map(|(_, r)| r.summary.max_degree)
                .max()
                .unwrap_or(0);
            let error = rows
                .iter()
                .map(|(_, r)| r.summary.max_error)
                .fold(0.0, f64::max);
            let frames: u64 = rows.iter().map(|(_, r)| r.summary.frames).sum();
            let adds: f64 = rows
                .iter()
                .map(|(_, r)| r.summary.additions_per_frame * r.summary.frames as f64)
                .sum::<f64>()
                / (frames.max(1) as f64);
            println!(
                "{:<12} {:<7} {:>8} {:>6} {:>7} {:>4} {:>8} {:>11.2e} {:>8.2}",
                path,
                precision.name(),
                rows.len(),
                keys,
                pieces,
                degree,
                bytes,
                error,
                adds
            );
        }
        let path = out_dir.join(format!("character_walk-{}.ibs", precision.name()));
        write_atomic(&path, &compiled.bytes)?;
    }
    println!("→ {} and character_walk-*.ibs", json_path.display());
    Ok(())
}
