//! The rotation piece shapes of `inbetween_bench::quat_shapes` (chord of degree 2..6, arc from the keys and from degree-8 component polynomials) beside `slerp-soa-script` and the f32 bank on the quaternion workload: f32 numbers read a rotation-frame, pieces a segment, the fit's error and every method's played error against exact evaluation, then ns per rotation-frame in alternating timed rounds (ratios to slerp per round), with the load average.
//!
//! ```sh
//! cargo run --release -p inbetween-bench --example quat_shapes [ROTATIONS] [ROUNDS]
//! ```
//! (default 1 000 rotations, 6 rounds of 5 × 300 frames each). With `count METHOD ROTATIONS
//! FRAMES` it only builds METHOD and plays FRAMES frames, for callgrind's subtraction (as
//! `tools/callgrind-playback.sh`):
//! ```sh
//! bin=$CARGO_TARGET_DIR/release/examples/quat_shapes
//! for m in slerp-soa-script inbetween-batch-f32 arc-soa-script chord-degree3-soa-script; do
//!   for f in 100 400; do
//!     valgrind --tool=callgrind --callgrind-out-file=/dev/null $bin count $m 300 $f 2>&1 | grep refs
//!   done
//! done    # (refs at 400 − refs at 100) / (300 × 300) = instructions per rotation-frame
//! ```

use std::hint::black_box;

use inbetween::compile::CompileOptions;
use inbetween::stream::{Precision, Stream};
use inbetween::Document;
use inbetween_bench::quat_shapes::{
    arc_piece_on_horner_lanes, chord_rounding_floor, segments, ArcShape, ChordNormalization,
    ChordShape, Segment, ShapeFigures,
};
use inbetween_bench::{
    compile_with_options, max_error, quat_workload_document, time, BatchMethod, Method,
    SlerpSoaScript, QUAT_TOLERANCE,
};

/// A method of the comparison and its fit's figures, where it has a fit.
type Entry<'a> = (Box<dyn Method + 'a>, Option<ShapeFigures>);

/// Every method of the comparison by name, with its fit's figures where it has a fit.
fn methods<'a>(
    doc: &Document,
    stream: Option<Stream<'a>>,
    only: Option<&str>,
) -> Result<Vec<Entry<'a>>, String> {
    let wanted = |name: &str| only.map_or(true, |o| o == name);
    let mut list: Vec<Entry<'a>> = Vec::new();
    if wanted("slerp-soa-script") {
        list.push((Box::new(SlerpSoaScript::new(doc)), None));
    }
    if let Some(stream) = stream.filter(|_| wanted("inbetween-batch-f32")) {
        list.push((
            Box::new(BatchMethod::new("inbetween-batch-f32", stream)?),
            None,
        ));
    }
    if wanted("arc-soa-script") {
        let arc = ArcShape::new(doc);
        let figures = arc.figures;
        list.push((Box::new(arc), Some(figures)));
    }
    if wanted("arc-from-degree8-soa-script") {
        let arc = ArcShape::from_coefficients(doc);
        let figures = arc.figures;
        list.push((Box::new(arc), Some(figures)));
    }
    macro_rules! chord {
        ($n:literal) => {
            if wanted(&format!("chord-degree{}-soa-script", $n - 10)) {
                let chord = ChordShape::<$n>::new(doc, QUAT_TOLERANCE);
                let figures = chord.figures;
                list.push((Box::new(chord), Some(figures)));
            }
        };
    }
    chord!(12);
    chord!(13);
    chord!(14);
    chord!(15);
    chord!(16);
    Ok(list)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |s: Option<&String>, default: usize| -> Result<usize, String> {
        s.map_or(Ok(default), |s| s.parse().map_err(|e| format!("{s}: {e}")))
    };
    let count = args.first().is_some_and(|a| a == "count");
    let (only, rotations, rounds) = if count {
        (
            args.get(1).cloned(),
            number(args.get(2), 300)?,
            number(args.get(3), 100)?,
        )
    } else {
        (None, number(args.first(), 1_000)?, number(args.get(1), 6)?)
    };
    let doc = quat_workload_document(rotations, 9)?;
    let options = CompileOptions {
        precision: Precision::F32,
        tolerance: Some(QUAT_TOLERANCE),
        ..CompileOptions::default()
    };
    let needs_bank = only.as_deref().map_or(true, |o| o == "inbetween-batch-f32");
    let bytes = if needs_bank {
        compile_with_options(&doc, &options)?
    } else {
        Vec::new()
    };
    let stream = if needs_bank {
        Some(Stream::from_bytes(&bytes).map_err(|e| e.to_string())?)
    } else {
        None
    };
    let mut list = methods(&doc, stream, only.as_deref())?;
    let width = inbetween_bench::width(&doc);
    if count {
        // `rounds` is the frame count here.
        let mut out = vec![0.0f32; width];
        for (m, _) in &mut list {
            m.reset();
            for _ in 0..rounds {
                m.frame(&mut out);
                black_box(&mut out);
            }
        }
        return Ok(());
    }
    report(&mut list, &doc);
    let all: Vec<_> = segments(&doc).into_iter().flatten().collect();
    let worst = |f: &dyn Fn(&Segment) -> f64| all.iter().map(f).fold(0.0, f64::max);
    let floor = |n| worst(&|s| chord_rounding_floor(s, n));
    println!(
        "chord rounding floor (s exact): p / sqrt(n) {:.2e}, p · (1 / sqrt(n)) {:.2e}, \
         f32 p normalized in f64 {:.2e}",
        floor(ChordNormalization::Divide),
        floor(ChordNormalization::Reciprocal),
        floor(ChordNormalization::Exact)
    );
    let horner = worst(&arc_piece_on_horner_lanes);
    println!(
        "the degree-8 arc pieces on the bank's fused Horner lanes (36 numbers): max error {horner:.2e}"
    );
    timed(&mut list, width, rotations, rounds);
    Ok(())
}

/// Each method's figures and its played error over 300 frames against exact evaluation.
fn report(list: &mut [Entry<'_>], doc: &Document) {
    println!(
        "{:<26} {:>8} {:>12} {:>10} {:>7} {:>12}",
        "method", "numbers", "pieces/seg", "fit error", "failed", "played error"
    );
    for (m, figures) in list.iter_mut() {
        let played = max_error(m.as_mut(), doc, 300);
        let (numbers, pieces, fit, failed) =
            figures.map_or(("".into(), "".into(), "".into(), "".into()), |f| {
                (
                    f.numbers.to_string(),
                    format!("{:.2}", f.pieces_per_segment),
                    format!("{:.2e}", f.max_error),
                    f.failed.to_string(),
                )
            });
        println!(
            "{:<26} {numbers:>8} {pieces:>12} {fit:>10} {failed:>7} {played:>12.2e}",
            m.name()
        );
    }
}

/// Alternating rounds: every method once a round, its ns per rotation-frame and ratio to
/// `slerp-soa-script` (the first) that round; then the medians.
fn timed(list: &mut [Entry<'_>], width: usize, rotations: usize, rounds: usize) {
    println!("load average {}", load_average());
    let mut ratios = vec![Vec::new(); list.len()];
    let mut ns = vec![Vec::new(); list.len()];
    for _ in 0..rounds {
        let times: Vec<f64> = list
            .iter_mut()
            .map(|(m, _)| time(m.as_mut(), width, rotations, 300, 5))
            .collect();
        for (k, t) in times.iter().enumerate() {
            ratios[k].push(t / times[0]);
            ns[k].push(*t);
        }
    }
    println!(
        "{:<26} {:>9} {:>16} {:>14}",
        "method", "ns median", "× slerp median", "× slerp range"
    );
    for (k, (m, _)) in list.iter().enumerate() {
        for v in [&mut ratios[k], &mut ns[k]] {
            v.sort_by(f64::total_cmp);
        }
        let (r, t) = (&ratios[k], &ns[k]);
        println!(
            "{:<26} {:>9.3} {:>16.3} {:>8.3}-{:.3}",
            m.name(),
            t[t.len() / 2],
            r[r.len() / 2],
            r[0],
            r[r.len() - 1]
        );
    }
    println!("load average {}", load_average());
}

/// `/proc/loadavg`'s first three fields (or `?`).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
