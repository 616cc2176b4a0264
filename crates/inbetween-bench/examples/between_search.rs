//! A search for played values between integer frames beyond the tolerance: random one-track documents under oscillating eases (elastic, bounce, back), compiled and played at other rates and fractional seeks against exact evaluation.
//!
//! ```sh
//! cargo build --release -p inbetween-bench --example between_search
//! target/release/examples/between_search 10000 2          # DOCUMENTS [SEED]
//! FOCUS=1 GRID=1 target/release/examples/between_search 2000 9
//! target/release/examples/between_search analyze DOC.json f64     # each piece, seeked densely
//! target/release/examples/between_search profile DOC.json f64 FROM TO   # signed errors
//! target/release/examples/between_search dense DOC.json STREAM.ibs      # a stream of DOC
//! target/release/examples/between_search pieces STREAM.ibs...           # pieces (short ones), bytes
//! ```
//!
//! Each document has one track (scalar, vec3 or quat; 2–5 keys 0.25–30 frames apart on quarter
//! frames; linear, slerp, Hermite, Bezier or Catmull-Rom segments) whose eases are drawn from
//! `in_`/`out_`/`in_out_` × `elastic`, `bounce`, `back` (one in four from every named ease), in
//! f32, f64 or fixed, at the default tolerance (1e-6 × scale). `FOCUS=1`: keys 0.5–4 frames
//! apart, elastic eases only, f64. The compiled stream is played from its first integer frame
//! at rates 0.3, 0.5, 60/144, 2 and 2.5 and seeked to every 1/16 frame (`GRID=1`: also every
//! 1/256 frame more than 1/64 frame from a key, where an elastic ease jumps), each value
//! compared with `Track::eval` where the exact curve is continuous (as
//! `tests/stream_documents.rs` compares; `SOURCE=1`: with `CurveSource::eval`, the value the
//! compiler checks against, which for a Blender F-curve can differ from `Track::eval` next to a
//! key). Prints each document whose worst |played − exact| is
//! above 1 × tolerance (its JSON, the frame, the ratio, the length and degree of the piece
//! played there), then how many documents and values
//! went over and a histogram of the worst ratios. Figures: docs/stream-format.md (What the
//! compiler guarantees).

use std::process::ExitCode;

use inbetween::compile::{CompileOptions, CurveSource};
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream};
use inbetween::{Document, Track};
use serde_json::{json, Value as Json};

/// xorshift64*: a small deterministic generator.
struct Random(u64);

impl Random {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        ((self.unit() * n as f64) as usize).min(n - 1)
    }
    fn symmetric(&mut self, x: f64) -> f64 {
        (2.0 * self.unit() - 1.0) * x
    }
}

/// The named eases that oscillate or overshoot, family by family: `elastic`, `bounce`, `back`
/// (each `in_`, `out_`, `in_out_`, in the library's order).
fn oscillating() -> Vec<&'static str> {
    ["elastic", "bounce", "back"]
        .iter()
        .flat_map(|family| {
            inbetween::Ease::names()
                .iter()
                .copied()
                .filter(move |n| n.ends_with(family))
        })
        .collect()
}

fn value_json(dims: usize, v: &[f64]) -> Json {
    if dims == 1 {
        json!(v[0])
    } else {
        json!(v[..dims].to_vec())
    }
}

/// One random document (as `tests/common/random_documents.rs` makes them, eases oscillating).
fn document(random: &mut Random) -> Json {
    let ty = ["scalar", "vec3", "quat"][random.below(3)];
    let dims = match ty {
        "scalar" => 1,
        "vec3" => 3,
        _ => 4,
    };
    let quat = ty == "quat";
    let focus = std::env::var("FOCUS").is_ok();
    let keys = 2 + random.below(4);
    let mut frame = -7.5;
    let list: Vec<Json> = (0..keys)
        .map(|_| {
            frame += if focus { 0.5 + random.unit() * 3.5 } else { 0.25 + random.unit() * 29.75 };
            let mut value: Vec<f64> = (0..4).map(|_| random.symmetric(100.0)).collect();
            if quat && value.iter().all(|c| c.abs() < 1e-3) {
                value[3] = 1.0;
            }
            let extra: Vec<f64> = (0..8).map(|_| random.symmetric(5.0)).collect();
            let interp = match random.below(5) {
                0 => json!("linear"),
                1 if quat => json!("slerp"),
                1 => json!("catmull_rom"),
                2 => json!({"hermite": {"out": value_json(dims, &extra[..4]), "in": value_json(dims, &extra[4..])}}),
                3 => {
                    let scaled: Vec<f64> = extra.iter().map(|x| x * 20.0).collect();
                    json!({"bezier": {"out": value_json(dims, &scaled[..4]), "in": value_json(dims, &scaled[4..])}})
                }
                _ => json!("catmull_rom"),
            };
            let ease = if focus {
                ["in_elastic", "out_elastic", "in_out_elastic"][random.below(3)]
            } else if random.unit() < 0.25 {
                let names = inbetween::Ease::names();
                names[random.below(names.len())]
            } else {
                let names = oscillating();
                names[random.below(names.len())]
            };
            json!({"frame": (frame * 4.0_f64).round() / 4.0, "value": value_json(dims, &value), "interp": interp, "ease": ease})
        })
        .collect();
    let fps = [24.0, 60.0, 29.97][random.below(3)];
    json!({"inbetween": 1, "fps": fps, "tracks": [{"name": "t", "type": ty, "wrap": "clamp", "keys": list}]})
}

/// The worst |played − exact| / tolerance of `player` at `frame` against `track`, if the
/// exact curve is continuous there (no jump within 1e-7 frame).
fn ratio_at(track: &Track, player: &TrackPlayer<'_>, frame: f64, tol: f64) -> Option<f64> {
    let h = 1e-7;
    let source = std::env::var("SOURCE").is_ok();
    let components = track.components();
    let eval = |f: f64| -> [f64; 4] {
        if !source {
            let value = track.eval(f);
            return std::array::from_fn(|c| if c < components { value[c] } else { 0.0 });
        }
        let mut out = [0.0; 4];
        CurveSource::eval(track, f, &mut out).map_or([f64::NAN; 4], |()| out)
    };
    let (lo, hi) = (eval(frame - h), eval(frame + h));
    if (0..components).any(|c| (lo[c] - hi[c]).abs() > tol) {
        return None;
    }
    let exact = eval(frame);
    let played = player.value();
    Some(
        (0..components)
            .map(|c| (played[c] - exact[c]).abs() / tol)
            .fold(0.0, f64::max),
    )
}

/// Worst ratio of one compiled document, its frame and how it was played; and how many
/// values were over 1.
fn play(track: &Track, stream: &Stream<'_>, tol: f64) -> ((f64, f64, String), usize) {
    let compiled = stream.track(0).expect("one track");
    let (first, last) = (track.first_frame(), track.last_frame());
    let mut worst = (0.0, first, String::new());
    let mut over = 0;
    let mut note = |r: Option<f64>, frame: f64, how: &dyn Fn() -> String| {
        let Some(r) = r else { return };
        if r > 1.0 {
            over += 1;
        }
        if r > worst.0 {
            // The piece played there: its length and degree (pieces under 1/16 frame are
            // where the compiler's margin once did not reach).
            let piece = compiled.piece_at(frame).map_or(String::new(), |p| {
                format!(
                    ", piece of {:.4} frames, degree {}",
                    p.end - p.start,
                    p.degree
                )
            });
            worst = (r, frame, how() + &piece);
        }
    };
    for rate in [0.3, 0.5, 60.0 / 144.0, 2.0, 2.5] {
        let mut p = TrackPlayer::new(compiled);
        let start = first.ceil();
        p.seek(start).expect("seek");
        p.set_step(rate).expect("rate");
        let mut k = 0.0;
        while start + k * rate <= last {
            let frame = start + k * rate;
            note(ratio_at(track, &p, frame, tol), frame, &|| {
                format!("rate {rate} from {start}")
            });
            p.advance();
            k += 1.0;
        }
    }
    let mut p = TrackPlayer::new(compiled);
    let mut frame = first.ceil();
    while frame <= last {
        p.seek(frame).expect("seek");
        note(ratio_at(track, &p, frame, tol), frame, &|| "seek".into());
        frame += 1.0 / 16.0;
    }
    if std::env::var("GRID").is_ok() {
        // Every 1/256 frame more than 1/64 frame from a key (an elastic ease jumps there).
        let keys: Vec<f64> = track.keys().iter().map(|k| k.frame).collect();
        let mut frame = first.ceil();
        while frame <= last {
            if keys.iter().all(|k| (frame - k).abs() > 1.0 / 64.0) {
                p.seek(frame).expect("seek");
                note(ratio_at(track, &p, frame, tol), frame, &|| {
                    "grid seek".into()
                });
            }
            frame += 1.0 / 256.0;
        }
    }
    (worst, over)
}

/// The document at `path` and its stream compiled in `precision` (`f32`, `f64`, `fixed`).
fn compile_file(path: &str, precision: &str) -> (Document, Vec<u8>) {
    let text = std::fs::read_to_string(path).expect("a document");
    let d = Document::from_json_str(&text, path).expect("a valid document");
    let precision = match precision {
        "f32" => Precision::F32,
        "fixed" => Precision::Fixed,
        _ => Precision::F64,
    };
    let options = CompileOptions {
        precision,
        ..CompileOptions::default()
    };
    let bytes = d.compile(&options).expect("compiles").bytes;
    (d, bytes)
}

/// Seeks every 1/1024 frame of each piece of document `path` compiled in `precision` and
/// prints each piece's worst ratio and where (and the piece's length and degree).
fn analyze(path: &str, precision: &str) -> ExitCode {
    let (d, bytes) = compile_file(path, precision);
    let stream = Stream::from_bytes(&bytes).expect("a valid stream");
    let track = &d.tracks()[0];
    let tol = 1e-6 * track.scale();
    let st = stream.track(0).expect("one track");
    let mut p = TrackPlayer::new(st);
    for piece in st.pieces() {
        let (mut worst, mut at) = (0.0f64, piece.start);
        let steps = ((piece.end - piece.start) * 1024.0).ceil() as usize;
        for k in 0..steps {
            let frame = piece.start + (piece.end - piece.start) * k as f64 / steps as f64;
            p.seek(frame).expect("seek");
            if let Some(r) = ratio_at(track, &p, frame, tol) {
                if r > worst {
                    (worst, at) = (r, frame);
                }
            }
        }
        println!(
            "piece {} [{}, {}) length {:.4} degree {}: worst {worst:.4} at {at}",
            piece.index,
            piece.start,
            piece.end,
            piece.end - piece.start,
            piece.degree
        );
        if worst > 0.9 {
            for c in 0..track.components() {
                let numbers: Vec<String> = (0..=usize::from(piece.degree))
                    .map(|k| format!("{:.3e}", st.number(&piece, c, k)))
                    .collect();
                println!("    c{c}: {}", numbers.join(" "));
            }
        }
    }
    for rate in [0.3, 0.5, 60.0 / 144.0, 2.0, 2.5] {
        let mut r = TrackPlayer::new(st);
        let start = track.first_frame().ceil();
        r.seek(start).expect("seek");
        r.set_step(rate).expect("rate");
        let mut k = 0.0;
        while start + k * rate <= track.last_frame() {
            let frame = start + k * rate;
            if let Some(ratio) = ratio_at(track, &r, frame, tol).filter(|r| *r > 0.97) {
                p.seek(frame).expect("seek");
                let seek = ratio_at(track, &p, frame, tol).unwrap_or(f64::NAN);
                println!("rate {rate} frame {frame}: {ratio:.4} (seek there {seek:.4})");
            }
            r.advance();
            k += 1.0;
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let ["profile", path, precision, from, to] =
        args.iter().map(String::as_str).collect::<Vec<_>>()[..]
    {
        let (d, bytes) = compile_file(path, precision);
        let stream = Stream::from_bytes(&bytes).expect("a valid stream");
        let track = &d.tracks()[0];
        let tol = 1e-6 * track.scale();
        let mut p = TrackPlayer::new(stream.track(0).expect("one track"));
        let (from, to): (f64, f64) = (from.parse().unwrap(), to.parse().unwrap());
        for k in 0..=40 {
            let frame = from + (to - from) * f64::from(k) / 40.0;
            p.seek(frame).expect("seek");
            let exact = track.eval(frame);
            let played = p.value();
            if std::env::var("EXACT").is_ok() {
                println!("{frame:.9}: exact {:?}", exact);
            }
            let signed: Vec<String> = (0..track.components())
                .map(|c| format!("{:+.4}", (played[c] - exact[c]) / tol))
                .collect();
            println!("{frame:.6}: {}", signed.join(" "));
        }
        return ExitCode::SUCCESS;
    }
    if let ["dense", path, stream_file] = args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        // The document's tracks against a stream of it (`compile_check streams`), seeked at
        // 64 points of every piece and every 1/64 frame.
        let text = std::fs::read_to_string(path).expect("a document");
        let d = Document::from_json_str(&text, path).expect("a valid document");
        let bytes = std::fs::read(stream_file).expect("a stream");
        let stream = Stream::from_bytes(&bytes).expect("a valid stream");
        let (mut worst, mut over) = (0.0f64, 0usize);
        for (i, track) in d.tracks().iter().enumerate() {
            let st = stream.track(i).expect("a track");
            let tol = st.tolerance();
            let mut p = TrackPlayer::new(st);
            let mut frames = Vec::new();
            let mut frame = track.first_frame().ceil();
            while frame <= track.last_frame() {
                frames.push(frame);
                frame += 1.0 / 64.0;
            }
            for piece in st.pieces() {
                frames.extend(
                    (0..64).map(|k| piece.start + (piece.end - piece.start) * f64::from(k) / 64.0),
                );
            }
            let (mut tw, mut track_over) = ((0.0f64, 0.0), 0);
            for frame in frames {
                p.seek(frame).expect("seek");
                if let Some(r) = ratio_at(track, &p, frame, tol) {
                    if r > tw.0 {
                        tw = (r, frame);
                    }
                    if r > 1.0 {
                        track_over += 1;
                    }
                }
            }
            over += track_over;
            if tw.0 > 0.97 {
                println!(
                    "  track {} ({}): worst {:.4} at {}, {track_over} seeks over",
                    i,
                    track.name(),
                    tw.0,
                    tw.1
                );
            }
            worst = worst.max(tw.0);
        }
        println!(
            "{stream_file}: {} pieces, worst {worst:.4}, {over} seeks over",
            stream.tracks().map(|t| t.piece_count()).sum::<usize>()
        );
        return ExitCode::SUCCESS;
    }
    if args.first().map(String::as_str) == Some("pieces") {
        let files = &args[1..];
        for file in files {
            let bytes = std::fs::read(file).expect("a stream");
            let stream = Stream::from_bytes(&bytes).expect("a valid stream");
            let tracks = (0..stream.track_count()).map(|i| stream.track(i).expect("a track"));
            let (mut pieces, mut short) = (0, 0);
            for track in tracks {
                pieces += track.piece_count();
                short += track
                    .pieces()
                    .filter(|p| p.end - p.start < inbetween::compile::MIN_FRAME_PIECE_FRAMES)
                    .count();
            }
            println!(
                "{file}: {pieces} pieces ({short} under 1/16 frame), {} bytes",
                bytes.len()
            );
        }
        return ExitCode::SUCCESS;
    }
    if let ["analyze", path, precision] = args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        return analyze(path, precision);
    }
    let count: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let seed: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut random = Random(0x9e37_79b9_7f4a_7c15 ^ seed.wrapping_mul(0x2545_f491_4f6c_dd1d));
    let mut histogram = [0usize; 6];
    let bounds = [0.5, 0.9, 0.97, 1.0, 1.1, f64::INFINITY];
    let (mut documents_over, mut values_over, mut refused) = (0, 0, 0);
    for i in 0..count {
        let doc = document(&mut random);
        let precision = [Precision::F32, Precision::F64, Precision::Fixed][random.below(3)];
        let precision = if std::env::var("FOCUS").is_ok() {
            Precision::F64
        } else {
            precision
        };
        let text = doc.to_string();
        let d = Document::from_json_str(&text, "search.json").expect("a valid document");
        let options = CompileOptions {
            precision,
            ..CompileOptions::default()
        };
        let compiled = match d.compile(&options) {
            Ok(c) => c,
            Err(e) => {
                refused += 1;
                println!("document {i}: refused: {e}");
                continue;
            }
        };
        let stream = Stream::from_bytes(&compiled.bytes).expect("a valid stream");
        let track = &d.tracks()[0];
        let tol = 1e-6 * track.scale();
        let ((ratio, frame, how), over) = play(track, &stream, tol);
        let bin = bounds.iter().position(|b| ratio <= *b).unwrap_or(5);
        histogram[bin] += 1;
        if ratio > 1.0 {
            documents_over += 1;
            values_over += over;
            println!(
                "document {i} {precision}: {ratio:.4} × tolerance at frame {frame} ({how}), {over} values over; {} pieces\n{text}",
                compiled.reports[0].summary.pieces
            );
        }
    }
    println!(
        "{count} documents ({refused} refused): {documents_over} over 1 × tolerance, {values_over} values over"
    );
    let labels = ["≤0.5", "≤0.9", "≤0.97", "≤1", "≤1.1", ">1.1"];
    for (label, n) in labels.iter().zip(histogram) {
        println!("  worst {label}: {n}");
    }
    ExitCode::SUCCESS
}
