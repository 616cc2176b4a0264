//! Numeric edges: non-finite numbers anywhere, frames near 1e9, pieces of 1 and 10^6 frames, degenerate quaternions, tcb at ±1, degenerate Beziers and cubic-bezier eases, zero-length arclength paths — each against closed forms or references computed here.

#[macro_use]
mod common;

use inbetween::compile::{CompileError, CompileOptions};
use inbetween::ease::{CubicBezierEase, EaseError};
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream};
use inbetween::{Document, Ease, ErrorKind, Interp, Track, TrackBuilder, Wrap};

const PRECISIONS: [Precision; 3] = [Precision::F64, Precision::F32, Precision::Fixed];

fn doc(json: &str) -> Document {
    match Document::from_json_str(json, "edges.json") {
        Ok(d) => d,
        Err(e) => panic!("document refused: {e}"),
    }
}

fn single(track: TrackBuilder) -> Document {
    match Document::builder().track(track).build() {
        Ok(d) => d,
        Err(e) => panic!("document refused: {e}"),
    }
}

fn compile(d: &Document, precision: Precision) -> Vec<u8> {
    let options = CompileOptions {
        precision,
        ..CompileOptions::default()
    };
    match d.compile(&options) {
        Ok(c) => c.bytes,
        Err(e) => panic!("{precision}: compile failed: {e}"),
    }
}

/// The played value of track `index` at `frame`, reached by a seek.
fn played_at(stream: &Stream<'_>, index: usize, frame: f64) -> [f64; 4] {
    let mut p = TrackPlayer::new(stream.track(index).expect("track exists"));
    p.seek(frame).expect("finite frame");
    p.value()
}

/// Largest |played − reference| over every integer frame `from..=to`, played forward from
/// `from` by `advance`; returns the error and its frame.
fn max_forward_error(
    stream: &Stream<'_>,
    index: usize,
    from: f64,
    to: f64,
    reference: impl Fn(f64) -> Vec<f64>,
) -> (f64, f64) {
    let mut p = TrackPlayer::new(stream.track(index).expect("track exists"));
    p.seek(from).expect("finite frame");
    let (mut worst, mut at) = (0.0_f64, from);
    let mut f = from;
    while f <= to {
        let want = reference(f);
        let got = p.value();
        for (c, w) in want.iter().enumerate() {
            let e = (got[c] - w).abs();
            assert!(e.is_finite(), "frame {f}: played {got:?}, want {want:?}");
            if e > worst {
                worst = e;
                at = f;
            }
        }
        p.advance();
        f += 1.0;
    }
    (worst, at)
}

// ---------------------------------------------------------------------------------------------
// Non-finite numbers
// ---------------------------------------------------------------------------------------------

/// A document with a placeholder in every numeric field of every kind; each test run puts a
/// non-finite spelling in one place and `1`-like harmless numbers elsewhere.
const TEMPLATE: &str = r#"{
  "inbetween": 1,
  "fps": @fps,
  "tracks": [
    { "name": "t", "type": "vec2", "keys": [
      { "frame": @frame, "value": [@value, 0],
        "interp": { "hermite": { "out": [@hermite_out, 0], "in": [0, @hermite_in] } },
        "tcb": [0, @tcb, 0] },
      { "frame": 10, "value": [1, 1],
        "interp": { "bezier": { "out": [@bezier_out, 0], "in": [0, @bezier_in] } },
        "ease": { "cubic_bezier": [0.25, @ease_y1, 0.75, 1] } },
      { "frame": 20, "value": [2, 2], "interp": "tcb", "tcb": [@next_tcb, 0, 0] },
      { "frame": 30, "value": [3, 3] }
    ] },
    { "name": "e", "type": "scalar", "keys": [
      { "frame": 0, "value": 0, "ease": { "steps": [@steps, "jump_end"] } },
      { "frame": 10, "value": 1 }
    ] }
  ]
}"#;

const PLACEHOLDERS: [(&str, &str); 11] = [
    ("@fps", "60"),
    ("@frame", "0"),
    ("@value", "0"),
    ("@hermite_out", "1"),
    ("@hermite_in", "1"),
    ("@tcb", "0.5"),
    ("@bezier_out", "1.5"),
    ("@bezier_in", "1.5"),
    ("@ease_y1", "0.1"),
    ("@next_tcb", "-0.5"),
    ("@steps", "4"),
];

/// The template with `target` replaced by `spelling` and every other placeholder by its default,
/// and the 1-based (line, column) where `spelling` starts.
fn fill(target: &str, spelling: &str) -> (String, (usize, usize)) {
    let mut text = TEMPLATE.to_string();
    for (name, default) in PLACEHOLDERS {
        if name != target {
            text = text.replace(name, default);
        }
    }
    let start = text.find(target).expect("placeholder present");
    let line = text[..start].matches('\n').count() + 1;
    let column = start - text[..start].rfind('\n').map_or(0, |i| i + 1) + 1;
    (text.replace(target, spelling), (line, column))
}

#[test]
fn the_template_with_defaults_loads() {
    // Guards the refusal test below: every refusal there is caused by the one bad number.
    let (text, _) = fill("@fps", "60");
    let d = doc(&text);
    assert_eq!(d.tracks().len(), 2);
    assert!(d.tracks()[0].try_eval(5.0).is_ok());
}

#[test]
fn json_non_finite_numbers_are_refused_where_they_stand() {
    // JSON has no NaN or infinity: an overflowing literal (serde_json refuses "number out of
    // range") and the usual non-JSON spellings are syntax errors at the number's position.
    for (target, _) in PLACEHOLDERS {
        for spelling in [
            "1e999",
            "-1e999",
            "1e400",
            "NaN",
            "Infinity",
            "-Infinity",
            "nan",
        ] {
            let (text, (line, column)) = fill(target, spelling);
            let err = match Document::from_json_str(&text, "bad.json") {
                Ok(_) => panic!("{target} = {spelling} was accepted"),
                Err(e) => e,
            };
            assert_eq!(err.file, "bad.json");
            match &err.error.kind {
                ErrorKind::Syntax {
                    line: l, column: c, ..
                } => {
                    assert_eq!(*l, line, "{target} = {spelling}: {err}");
                    assert!(
                        // serde_json points at the number's first or last character.
                        (column..=column + spelling.len()).contains(c),
                        "{target} = {spelling}: column {c}, the number spans {column}..{}: {err}",
                        column + spelling.len()
                    );
                }
                other => panic!("{target} = {spelling}: expected a syntax error, got {other:?}"),
            }
        }
    }
}

/// The field a builder error names, with its key.
fn location(err: &inbetween::DocumentError) -> (Option<usize>, Option<&str>) {
    (err.location.key, err.location.field.as_deref())
}

fn assert_not_finite_kind(err: &inbetween::DocumentError, found: f64) {
    match &err.kind {
        ErrorKind::Invalid {
            expected,
            found: what,
        } => {
            assert_eq!(expected, "a finite number", "{err}");
            assert_eq!(what, &format!("{found}"), "{err}");
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
}

#[test]
fn builder_non_finite_key_numbers_are_refused_naming_the_field() {
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let base = || Track::vec2("v").key(0.0, [0.0, 0.0]);

        let e = base().key(x, [1.0, 1.0]).build().unwrap_err();
        assert_eq!(location(&e), (Some(1), Some("frame")), "{e}");
        assert_not_finite_kind(&e, x);

        let e = base().key(5.0, [1.0, x]).build().unwrap_err();
        assert_eq!(location(&e), (Some(1), Some("value[1]")), "{e}");
        assert_not_finite_kind(&e, x);

        let e = base()
            .hermite([x, 0.0], [0.0, 0.0])
            .key(5.0, [1.0, 1.0])
            .build()
            .unwrap_err();
        assert_eq!(
            location(&e),
            (Some(0), Some("interp.hermite.out[0]")),
            "{e}"
        );
        let e = base()
            .hermite([0.0, 0.0], [0.0, x])
            .key(5.0, [1.0, 1.0])
            .build()
            .unwrap_err();
        assert_eq!(location(&e), (Some(0), Some("interp.hermite.in[1]")), "{e}");

        let e = base()
            .bezier([x, 0.0], [0.0, 0.0])
            .key(5.0, [1.0, 1.0])
            .build()
            .unwrap_err();
        assert_eq!(location(&e), (Some(0), Some("interp.bezier.out[0]")), "{e}");
        let e = base()
            .bezier([0.0, 0.0], [0.0, x])
            .key(5.0, [1.0, 1.0])
            .build()
            .unwrap_err();
        assert_eq!(location(&e), (Some(0), Some("interp.bezier.in[1]")), "{e}");
        assert_not_finite_kind(&e, x);

        for c in 0..3 {
            let mut tcb = [0.0; 3];
            tcb[c] = x;
            let e = base()
                .interp(Interp::Tcb)
                .key(5.0, [1.0, 1.0])
                .tcb(tcb[0], tcb[1], tcb[2])
                .build()
                .unwrap_err();
            let field = format!("tcb[{c}]");
            assert_eq!(location(&e), (Some(1), Some(field.as_str())), "{e}");
            assert_not_finite_kind(&e, x);
        }

        // Quaternion keys are checked before normalization (NaN must not become "zero").
        let e = Track::quat("q")
            .key(0.0, [0.0, 0.0, x, 1.0])
            .build()
            .unwrap_err();
        assert_eq!(location(&e), (Some(0), Some("value[2]")), "{e}");
    }
}

#[test]
fn builder_non_finite_fps_and_ease_controls_are_refused_naming_them() {
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let base = || Track::vec2("v").key(0.0, [0.0, 0.0]);
        let e = base().fps(x).build().unwrap_err();
        assert_eq!(e.location.field.as_deref(), Some("fps"), "{e}");
        let e = Document::builder()
            .fps(x)
            .track(base())
            .build()
            .unwrap_err();
        assert_eq!(e.location.field.as_deref(), Some("fps"), "{e}");
        assert!(e.to_string().contains("positive number"), "{e}");

        for (i, parameter) in ["x1", "y1", "x2", "y2"].into_iter().enumerate() {
            let mut p = [0.25, 0.1, 0.75, 1.0];
            p[i] = x;
            match CubicBezierEase::new(p[0], p[1], p[2], p[3]) {
                Err(EaseError::NonFiniteControl {
                    parameter: named, ..
                }) => assert_eq!(named, parameter),
                other => panic!("cubic_bezier with {parameter} = {x}: {other:?}"),
            }
        }
        assert_eq!(
            Ease::from_name(&format!("cubic_bezier(0.25, {x}, 0.75, 1)")),
            None
        );
    }
}

#[test]
fn non_finite_expression_values_are_typed_errors_at_sample_and_compile() {
    // (expression, frames where it is not finite, a frame where it is) on a 0..10 segment.
    let cases: [(&str, &[f64], Option<f64>); 6] = [
        ("0/0", &[0.0, 3.0, 10.0], None),
        ("sqrt(u - 2)", &[0.0, 5.0], None),
        ("exp(1000)", &[2.0], None),
        ("u * 10^(400*u)", &[9.0], Some(4.0)),
        ("ln(u)", &[0.0], Some(5.0)),
        ("1/(u - 0.5)", &[5.0], Some(4.0)),
    ];
    for (source, bad, good) in cases {
        let text = format!(
            r#"{{"inbetween": 1, "tracks": [
                {{"name": "ok", "type": "scalar", "keys": [{{"frame": 0, "value": 1}}]}},
                {{"name": "e", "type": "scalar", "keys": [
                    {{"frame": 0, "value": 0, "interp": {{"expr": "{source}"}}}},
                    {{"frame": 10, "value": 1}}]}}]}}"#
        );
        let d = doc(&text);
        let track = &d.tracks()[1];
        for &frame in bad {
            if frame == 10.0 {
                // The last key's frame has the last key's value (the spec), whatever the expression.
                assert_eq!(track.try_eval(frame).unwrap()[0], 1.0);
                continue;
            }
            let err = track.try_eval(frame).unwrap_err();
            assert_eq!((err.track.as_str(), err.key), ("e", 0), "{source}: {err}");
            assert_eq!(err.frame, frame, "{source}");
            assert!(err.to_string().contains("not finite"), "{err}");
        }
        if let Some(frame) = good {
            assert!(track.try_eval(frame).unwrap()[0].is_finite(), "{source}");
        }
        // The sampler reports it the same way.
        let mut csv = String::new();
        let sampled = inbetween::sample::write_csv(&d, 0, 10, &mut csv);
        assert!(sampled.is_err(), "{source}: sampling succeeded");
        for precision in PRECISIONS {
            let options = CompileOptions {
                precision,
                ..CompileOptions::default()
            };
            match d.compile(&options) {
                Err(CompileError::NonFinite { track, key, frame }) => {
                    assert_eq!((track.as_str(), key), ("e", 0), "{source}");
                    assert!((0.0..10.0).contains(&frame), "{source}: frame {frame}");
                }
                other => panic!("{source} ({precision}): expected NonFinite, got {other:?}"),
            }
        }
    }
}

#[test]
fn non_finite_expression_constants_are_refused_at_load() {
    for source in ["1e999", "u + 1e400", "-1e309 * u"] {
        let text = format!(
            r#"{{"inbetween": 1, "tracks": [{{"name": "e", "type": "scalar", "keys": [
                {{"frame": 0, "value": 0, "interp": {{"expr": "{source}"}}}},
                {{"frame": 10, "value": 1}}]}}]}}"#
        );
        let err = Document::from_json_str(&text, "x.json").unwrap_err();
        assert_eq!(err.error.location.key, Some(0), "{err}");
        assert_eq!(
            err.error.location.field.as_deref(),
            Some("interp.expr"),
            "{err}"
        );
        assert!(
            matches!(err.error.kind, ErrorKind::Expr { .. }),
            "{source}: {err}"
        );
    }
}

#[test]
fn finite_keys_whose_arithmetic_overflows_give_typed_errors_not_panics() {
    // Every number is finite, but p1 − p0, slope × length or 3 × handle overflows: whatever
    // the engine decides (refuse at load, report at sample, refuse at compile) must be a typed
    // answer, and whatever plays must be finite.
    let cases = [
        (
            "lerp",
            Track::scalar("huge").key(0.0, 1e308).key(10.0, -1e308),
        ),
        (
            "hermite",
            Track::scalar("huge")
                .key(0.0, 0.0)
                .hermite(1e308, 0.0)
                .key(10.0, 1.0),
        ),
        (
            "bezier",
            Track::scalar("huge")
                .key(0.0, 0.0)
                .bezier(1.7e308, -1.7e308)
                .key(10.0, 1.0),
        ),
    ];
    for (name, track) in cases {
        let d = match Document::builder().track(track).build() {
            Ok(d) => d,
            Err(e) => {
                println!("{name}: refused at load: {e}");
                continue;
            }
        };
        let t = &d.tracks()[0];
        for f in [0.0, 2.0, 5.0, 10.0] {
            match t.try_eval(f) {
                Ok(v) => assert!(v[0].is_finite(), "{name} {f}"),
                Err(e) => {
                    assert_eq!((e.track.as_str(), e.key), ("huge", 0), "{e}");
                    println!("{name}: sample at {f}: {e}");
                }
            }
        }
        for precision in PRECISIONS {
            let options = CompileOptions {
                precision,
                ..CompileOptions::default()
            };
            match d.compile(&options) {
                Ok(c) => {
                    let stream = Stream::from_bytes(&c.bytes).unwrap();
                    for f in [0.0, 5.0, 10.0] {
                        let v = played_at(&stream, 0, f);
                        assert!(v[0].is_finite(), "{name} {precision}: {v:?}");
                    }
                }
                Err(e) => println!("{name} {precision}: compile refused: {e}"),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Frames near 1e9
// ---------------------------------------------------------------------------------------------

/// 10·u·(1 − u) at frame `base + k` with u = k/10: the Hermite from 0 to 0 with slopes +1 and −1
/// per frame over 10 frames (m0 = 10, m1 = −10 per u): 10(u³ − 2u² + u) − 10(u³ − u²).
fn hump(k: f64) -> f64 {
    let u = k / 10.0;
    10.0 * u * (1.0 - u)
}

#[test]
fn frames_near_1e9_sample_exactly_and_play_within_tolerance() {
    let base = 1e9;
    let d = Document::builder()
        .track(Track::scalar("line").key(base, 0.0).key(base + 10.0, 10.0))
        .track(
            Track::scalar("hump")
                .key(base, 0.0)
                .hermite(1.0, -1.0)
                .key(base + 10.0, 0.0)
                .wrap(Wrap::Loop),
        )
        .build()
        .unwrap();
    let (line, hump_track) = (&d.tracks()[0], &d.tracks()[1]);
    // Integer and dyadic frames are exact in f64 at 1e9 (spacing 2^-23 ≈ 1.2e-7), so the
    // sample is exact to rounding: 1e-12 (spec: 1e-9 × scale 10).
    for k in [0.0, 1.0, 2.5, 3.0, 7.25, 9.0, 9.5, 10.0] {
        assert_close!(line.eval(base + k)[0], k, 1e-12, "line at base + {k}");
        assert_close!(
            hump_track.eval(base + k)[0],
            hump(k),
            1e-12,
            "hump at base + {k}"
        );
    }
    // A frame that f64 cannot hold exactly there (base + 0.1) is off by at most half a spacing,
    // 2^-24 frames; both curves have slopes ≤ 1 per frame.
    let half_spacing = 2f64.powi(-24);
    assert_close!(line.eval(base + 0.1)[0], 0.1, half_spacing + 1e-12);
    assert_close!(
        hump_track.eval(base + 0.1)[0],
        hump(0.1),
        half_spacing + 1e-12
    );
    // Loop wraps 25 frames past the start onto base + 5.
    assert_close!(hump_track.eval(base + 25.0)[0], hump(5.0), 1e-12);
    assert_close!(hump_track.eval(base - 3.0)[0], hump(7.0), 1e-12);

    for precision in PRECISIONS {
        let bytes = compile(&d, precision);
        let stream = Stream::from_bytes(&bytes).unwrap();
        let tolerance = 1e-6 * 10.0;
        for i in 0..2 {
            let t = stream.track(i).unwrap();
            assert_eq!(t.first_frame(), base);
            assert!(t.max_error() <= t.tolerance(), "{precision}");
        }
        let (e_line, f_line) = max_forward_error(&stream, 0, base - 2.0, base + 12.0, |f| {
            vec![(f - base).clamp(0.0, 10.0)]
        });
        let (e_hump, f_hump) = max_forward_error(&stream, 1, base - 30.0, base + 30.0, |f| {
            vec![hump((f - base).rem_euclid(10.0))]
        });
        println!(
            "{precision}: near 1e9, line error {e_line:e} at {f_line}, looping cubic {e_hump:e} at {f_hump}"
        );
        // Achieved: f64 and fixed store the cubic's exact differences, so only rounding
        // remains (measured ≤ 1e-15); f32 rounds the differences (measured ≈ 3e-7); all are
        // within the compile tolerance 1e-5.
        let achieved = if precision == Precision::F32 {
            tolerance
        } else {
            1e-12
        };
        assert!(e_line <= achieved, "{precision}: {e_line:e} at {f_line}");
        assert!(e_hump <= achieved, "{precision}: {e_hump:e} at {f_hump}");
        // Seeking to a fractional frame there lands within tolerance too.
        for k in [2.5, 7.25] {
            let v = played_at(&stream, 1, base + k);
            assert_close!(v[0], hump(k), tolerance, "{precision} seek to base + {k}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Pieces of 1 frame and of 10^6 frames
// ---------------------------------------------------------------------------------------------

/// The cubic Bezier in Bernstein form, evaluated here from its definition.
fn bernstein(p: [f64; 4], u: f64) -> f64 {
    let v = 1.0 - u;
    p[0] * v * v * v + 3.0 * p[1] * v * v * u + 3.0 * p[2] * v * u * u + p[3] * u * u * u
}

#[test]
fn pieces_of_a_million_frames_play_within_tolerance() {
    let n = 1e6;
    let bez = [0.0, 300.0, 1200.0, 1000.0];
    let d = Document::builder()
        .track(Track::scalar("line").key(0.0, 0.0).key(n, 1000.0))
        .track(
            Track::scalar("bezier")
                .key(0.0, bez[0])
                .bezier(bez[1], bez[2])
                .key(n, bez[3]),
        )
        .build()
        .unwrap();
    let line = |f: f64| 1000.0 * f / n;
    let cubic = |f: f64| bernstein(bez, f / n);
    // Exact evaluation first (spec: 1e-9 × scale 1000).
    for f in [0.0, 1.0, 123_456.0, 500_000.5, 999_999.0, n] {
        assert_close!(d.tracks()[0].eval(f)[0], line(f), 1e-9 * 1000.0, "line {f}");
        assert_close!(
            d.tracks()[1].eval(f)[0],
            cubic(f),
            1e-9 * 1000.0,
            "bezier {f}"
        );
    }
    for precision in [Precision::F64, Precision::Fixed] {
        let options = CompileOptions {
            precision,
            ..CompileOptions::default()
        };
        let compiled = d.compile(&options).unwrap();
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let tolerance = 1e-6 * 1000.0;
        let (e_line, f_line) = max_forward_error(&stream, 0, 0.0, n, |f| vec![line(f)]);
        let (e_cubic, f_cubic) = max_forward_error(&stream, 1, 0.0, n, |f| vec![cubic(f)]);
        println!(
            "{precision}: 1e6-frame pieces: line {} piece(s), error {e_line:e} at {f_line}; bezier {} piece(s), error {e_cubic:e} at {f_cubic}",
            compiled.reports[0].summary.pieces, compiled.reports[1].summary.pieces
        );
        assert!(e_line <= tolerance, "{precision}: {e_line:e} at {f_line}");
        assert!(
            e_cubic <= tolerance,
            "{precision}: {e_cubic:e} at {f_cubic}"
        );
        // The linear segment is one polynomial piece of a million frames.
        assert_eq!(compiled.reports[0].summary.pieces, 1, "{precision}");
        for f in [0.0, 1.0, 250_000.25, 999_999.0, 999_999.5, n, n + 10.0] {
            let v = played_at(&stream, 1, f);
            assert_close!(v[0], cubic(f.min(n)), tolerance, "{precision} seek {f}");
            let v = played_at(&stream, 0, f);
            assert_close!(v[0], line(f.min(n)), tolerance, "{precision} seek {f}");
        }
    }
}

#[test]
fn pieces_of_one_frame_play_within_tolerance() {
    // Alternating keys one frame apart, drawn by several kinds.
    let d = doc(
        r#"{"inbetween": 1, "tracks": [{"name": "zig", "type": "scalar", "keys": [
            {"frame": 0, "value": 0, "interp": "catmull_rom"},
            {"frame": 1, "value": 5, "interp": {"bezier": {"out": 9, "in": -4}}},
            {"frame": 2, "value": -5, "interp": "tcb", "tcb": [1, 0, 0]},
            {"frame": 3, "value": 5, "ease": "in_out_sine"},
            {"frame": 4, "value": 0, "interp": {"hermite": {"out": 20, "in": -20}}},
            {"frame": 5, "value": 0}]}]}"#,
    );
    let t = &d.tracks()[0];
    // Hand-worked values at the middle of each piece:
    // catmull_rom 0→5 with m0 = 5 (mirrored end), m1 = (−5 − 0)/2 = −2.5: h(0.5) = 2.5 + 5/8 + 2.5/8.
    assert_close!(t.eval(0.5)[0], 2.5 + 0.625 + 0.3125, 1e-12);
    // Bezier 5, 9, −4, −5 at u = 1/2: (5 + 27 − 12 − 5)/8.
    assert_close!(t.eval(1.5)[0], 15.0 / 8.0, 1e-12);
    // tcb with tension 1 at key 2 and 0 at key 3 (DS_3 = (−5 − 5)/2·(1 + 1)… no: key 3 is the
    // last but one; DS_3 = ½(5 − (−5)) + ½(0 − 5) = 2.5): h00·(−5) + h01·5 + h11·2.5 at ½.
    assert_close!(t.eval(2.5)[0], 0.0 - 2.5 / 8.0, 1e-12);
    // in_out_sine at ½ is ½: midpoint.
    assert_close!(t.eval(3.5)[0], 2.5, 1e-12);
    // Hermite 0→0 with slopes ±20 per frame: m0 = 20, m1 = −20 → 20/8 + 20/8.
    assert_close!(t.eval(4.5)[0], 5.0, 1e-12);
    for precision in PRECISIONS {
        let bytes = compile(&d, precision);
        let stream = Stream::from_bytes(&bytes).unwrap();
        let tolerance = 1e-6 * t.scale();
        let mut p = TrackPlayer::new(stream.track(0).unwrap());
        p.seek(-1.0).unwrap();
        p.set_step(0.25).unwrap();
        for k in 0..=28 {
            let f = -1.0 + 0.25 * f64::from(k);
            assert_close!(
                p.value()[0],
                t.eval(f)[0],
                tolerance,
                "{precision} frame {f}"
            );
            p.advance();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Quaternions
// ---------------------------------------------------------------------------------------------

/// [axis·sin(θ/2), cos(θ/2)] for a unit axis.
fn axis_angle(axis: [f64; 3], angle: f64) -> [f64; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

/// The rotation matrix of a unit quaternion [x, y, z, w] (the textbook form).
fn matrix(q: &[f64]) -> [[f64; 3]; 3] {
    let (x, y, z, w) = (q[0], q[1], q[2], q[3]);
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

fn same_rotation(a: &[f64], b: &[f64], tol: f64, context: &str) {
    let (ma, mb) = (matrix(a), matrix(b));
    for r in 0..3 {
        for c in 0..3 {
            assert_close!(ma[r][c], mb[r][c], tol, "{context}: {a:?} vs {b:?}");
        }
    }
}

fn unit(q: &[f64], context: &str) {
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    assert_close!(n, 1.0, 1e-14, "{context}: |{q:?}|");
}

#[test]
fn antipodal_keys_hold_the_rotation() {
    let q = axis_angle([0.0, 0.6, 0.8], 1.1);
    let minus: Vec<f64> = q.iter().map(|c| -c).collect();
    for interp in [
        Interp::Linear,
        Interp::Slerp,
        Interp::hermite([0.0; 4], [0.0; 4]),
        Interp::CatmullRom,
    ] {
        let name = interp.name();
        let d = single(
            Track::quat("q")
                .key(0.0, q)
                .interp(interp)
                .key(10.0, [minus[0], minus[1], minus[2], minus[3]]),
        );
        let t = &d.tracks()[0];
        for k in 0..=40 {
            let f = f64::from(k) * 0.25;
            let v = t.eval(f);
            unit(&v, name);
            same_rotation(&v, &q, 1e-14, &format!("{name} frame {f}"));
        }
        // Exactly where a component-wise blend passes through zero (u = ½ with zero tangents)
        // the start rotation is used (docs/format.md).
        if name == "hermite" {
            assert_eq!(t.eval(5.0).as_slice(), &q);
        }
        for precision in PRECISIONS {
            let bytes = compile(&d, precision);
            let stream = Stream::from_bytes(&bytes).unwrap();
            for k in 0..=10 {
                let f = f64::from(k);
                let v = played_at(&stream, 0, f);
                let exact = t.eval(f);
                for c in 0..4 {
                    assert_close!(v[c], exact[c], 1e-6, "{name} {precision} frame {f}");
                }
            }
        }
    }
}

/// A component-wise blend of antipodal keys that is exactly zero in real arithmetic comes out
/// as rounding noise (~7e-18 per component here); normalizing the noise gave an unrelated
/// rotation ([0, −0.707, −0.707, 0]) before `eval_segment_at` learned to treat a blend within
/// rounding of its terms as zero and hold the start rotation, as docs/format.md says.
#[test]
fn antipodal_bezier_keys_hold_the_rotation_through_the_cancellation() {
    let q = axis_angle([0.0, 0.6, 0.8], 1.1);
    let minus = q.map(|c| -c);
    // Control points q, q, −q, −q: every blend is a multiple of q, zero at u = 1/2.
    let d = single(
        Track::quat("q")
            .key(0.0, q)
            .interp(Interp::bezier(q, minus))
            .key(10.0, minus),
    );
    let t = &d.tracks()[0];
    for k in 0..=40 {
        let f = f64::from(k) * 0.25;
        let v = t.eval(f);
        unit(&v, "bezier");
        same_rotation(&v, &q, 1e-14, &format!("bezier frame {f}"));
    }
}

#[test]
fn slerp_takes_the_shorter_arc() {
    // From the identity to −(90° about z): the same rotation as +90°, so halfway is +45° about z,
    // not 135° the long way.
    let target = axis_angle([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_2);
    let negated = target.map(|c| -c);
    let d = single(
        Track::quat("q")
            .key(0.0, [0.0, 0.0, 0.0, 1.0])
            .interp(Interp::Slerp)
            .key(8.0, negated),
    );
    let t = &d.tracks()[0];
    for k in 0..8 {
        let angle = std::f64::consts::FRAC_PI_2 * f64::from(k) / 8.0;
        let want = axis_angle([0.0, 0.0, 1.0], angle);
        let got = t.eval(f64::from(k));
        // Shoemake's slerp with the second key negated: the sign follows the start key.
        assert_all_close!(got.as_slice(), want, 1e-15, "frame {k}");
    }
    // The last key's frame has the last key's value as stored: the same rotation.
    assert_eq!(t.eval(8.0).as_slice(), &negated);
    same_rotation(&t.eval(8.0), &target, 1e-15, "end");
}

#[test]
fn identical_and_nearly_identical_quaternions_interpolate_without_dividing_by_zero() {
    let axis = [0.48, 0.6, 0.64];
    let theta = 0.7;
    for gap in [0.0, 1e-9, 1e-12] {
        // The 4D angle between the keys is gap/2; slerp turns by u·gap about the same axis.
        let q0 = axis_angle(axis, theta);
        let q1 = axis_angle(axis, theta + gap);
        for interp in [Interp::Slerp, Interp::Linear, Interp::CatmullRom] {
            let name = interp.name();
            let d = single(Track::quat("q").key(0.0, q0).interp(interp).key(10.0, q1));
            let t = &d.tracks()[0];
            for k in 0..=10 {
                let u = f64::from(k) / 10.0;
                let want = axis_angle(axis, theta + u * gap);
                let got = t.eval(f64::from(k));
                unit(&got, name);
                assert_all_close!(got.as_slice(), want, 4e-16, "{name} gap {gap} u {u}");
            }
            let bytes = compile(&d, Precision::F64);
            let stream = Stream::from_bytes(&bytes).unwrap();
            let v = played_at(&stream, 0, 5.0);
            assert_all_close!(v, axis_angle(axis, theta + 0.5 * gap), 1e-6, "{name}");
        }
    }
}

#[test]
fn unnormalized_keys_are_normalized_on_load() {
    // docs/format.md and the spec: quaternion keys are normalized when the document is loaded;
    // component-wise kinds use Bezier handles and tangents as written and normalize the result.
    let d = doc(
        r#"{"inbetween": 1, "tracks": [{"name": "q", "type": "quat", "keys": [
            {"frame": 0, "value": [0, 0, 0, 2]},
            {"frame": 10, "value": [0, 0, 3, 3],
             "interp": {"bezier": {"out": [0, 2, 0, 2], "in": [1, 0, 0, 5]}}},
            {"frame": 20, "value": [1e-200, 0, 0, 1e-200]},
            {"frame": 30, "value": [0, 4e200, 0, 3e200]},
            {"frame": 40, "value": [0, 0, -4.9e-324, 0]}]}]}"#,
    );
    let t = &d.tracks()[0];
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let keys: Vec<&[f64]> = t.keys().iter().map(|k| k.value.as_slice()).collect();
    assert_all_close!(keys[0], [0.0, 0.0, 0.0, 1.0], 0.0);
    assert_all_close!(keys[1], [0.0, 0.0, h, h], 2.3e-16);
    assert_all_close!(keys[2], [h, 0.0, 0.0, h], 2.3e-16);
    assert_all_close!(keys[3], [0.0, 0.8, 0.0, 0.6], 2.3e-16);
    assert_all_close!(keys[4], [0.0, 0.0, -1.0, 0.0], 0.0);
    // Slerp between the first two normalized keys: 90° about z, halfway 45°.
    assert_all_close!(
        t.eval(5.0)[..],
        axis_angle([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_4),
        1e-15
    );
    // Bezier from normalized key 1 with the handles as written, normalized afterwards.
    for u in [0.25, 0.5, 0.9] {
        let p = [
            keys[1],
            &[0.0, 2.0, 0.0, 2.0],
            &[1.0, 0.0, 0.0, 5.0],
            keys[2],
        ];
        let blend: Vec<f64> = (0..4)
            .map(|c| bernstein([p[0][c], p[1][c], p[2][c], p[3][c]], u))
            .collect();
        let n = blend.iter().map(|c| c * c).sum::<f64>().sqrt();
        let want: Vec<f64> = blend.iter().map(|c| c / n).collect();
        assert_all_close!(t.eval(10.0 + 10.0 * u)[..], want, 1e-15, "u {u}");
    }
    // The builder does the same.
    let b = Track::quat("q")
        .key(0.0, [0.0, 0.0, 3.0, 3.0])
        .build()
        .unwrap();
    assert_all_close!(b.keys()[0].value.as_slice(), [0.0, 0.0, h, h], 2.3e-16);
}

#[test]
fn a_zero_quaternion_is_refused_naming_the_key() {
    let err = Document::from_json_str(
        r#"{"inbetween": 1, "tracks": [{"name": "spin", "type": "quat", "keys": [
            {"frame": 0, "value": [0, 0, 0, 1]},
            {"frame": 5, "value": [0, 0, 0, 1]},
            {"frame": 10, "value": [0, 0, -0.0, 0]}]}]}"#,
        "spin.json",
    )
    .unwrap_err();
    assert_eq!(err.error.kind, ErrorKind::ZeroQuaternion);
    assert_eq!(err.error.location.key, Some(2));
    assert_eq!(err.error.location.field.as_deref(), Some("value"));
    assert_eq!(err.error.location.track_name.as_deref(), Some("spin"));
    let message = err.to_string();
    assert!(
        message.contains("spin.json") && message.contains("key 2") && message.contains("zero"),
        "{message}"
    );
    let e = Track::quat("q")
        .key(0.0, [0.0, 0.0, 0.0, 1.0])
        .key(1.0, [0.0; 4])
        .build()
        .unwrap_err();
    assert_eq!(
        (e.kind, e.location.key),
        (ErrorKind::ZeroQuaternion, Some(1))
    );
}

// ---------------------------------------------------------------------------------------------
// Kochanek–Bartels at ±1
// ---------------------------------------------------------------------------------------------

/// The Kochanek–Bartels tangents of the spec, written out here: (DS_i, DD_i) at key i of
/// `points` at `frames` with parameters (t, c, b), with the mirrored neighbour at the ends.
fn kb(points: &[f64], frames: &[f64], tcb: [f64; 3], i: usize) -> (f64, f64) {
    let n = points.len();
    let (before, after, n_before, n_after) = if i == 0 {
        let d = points[1] - points[0];
        let l = frames[1] - frames[0];
        (d, d, l, l)
    } else if i == n - 1 {
        let d = points[i] - points[i - 1];
        let l = frames[i] - frames[i - 1];
        (d, d, l, l)
    } else {
        (
            points[i] - points[i - 1],
            points[i + 1] - points[i],
            frames[i] - frames[i - 1],
            frames[i + 1] - frames[i],
        )
    };
    let [t, c, b] = tcb;
    let ds = (1.0 - t) * (1.0 + b) * (1.0 - c) / 2.0 * before
        + (1.0 - t) * (1.0 - b) * (1.0 + c) / 2.0 * after;
    let dd = (1.0 - t) * (1.0 + b) * (1.0 + c) / 2.0 * before
        + (1.0 - t) * (1.0 - b) * (1.0 - c) / 2.0 * after;
    (
        ds * 2.0 * n_before / (n_before + n_after),
        dd * 2.0 * n_after / (n_before + n_after),
    )
}

fn hermite(p0: f64, m0: f64, p1: f64, m1: f64, u: f64) -> f64 {
    let (u2, u3) = (u * u, u * u * u);
    (2.0 * u3 - 3.0 * u2 + 1.0) * p0
        + (u3 - 2.0 * u2 + u) * m0
        + (-2.0 * u3 + 3.0 * u2) * p1
        + (u3 - u2) * m1
}

#[test]
fn tcb_parameters_at_plus_and_minus_one_follow_kochanek_bartels() {
    let frames = [0.0, 10.0, 14.0, 30.0, 33.0];
    let points = [0.0, 8.0, -3.0, 5.0, 20.0];
    let extremes = [-1.0, 0.0, 1.0];
    let mut cases = 0;
    for t in extremes {
        for c in extremes {
            for b in extremes {
                // Every key gets (t, c, b), but key 2 gets the opposite signs, so neighbours differ.
                let tcb_of = |i: usize| {
                    if i == 2 {
                        [-t, -c, -b]
                    } else {
                        [t, c, b]
                    }
                };
                let mut builder = Track::scalar("kb");
                for i in 0..5 {
                    let [tt, cc, bb] = tcb_of(i);
                    builder = builder
                        .key(frames[i], points[i])
                        .interp(Interp::Tcb)
                        .tcb(tt, cc, bb);
                }
                let track = builder.build().unwrap();
                for seg in 0..4 {
                    let m0 = kb(&points, &frames, tcb_of(seg), seg).1;
                    let m1 = kb(&points, &frames, tcb_of(seg + 1), seg + 1).0;
                    for u in [0.0, 0.2, 0.5, 0.75, 0.95] {
                        let f = frames[seg] + u * (frames[seg + 1] - frames[seg]);
                        let want = hermite(points[seg], m0, points[seg + 1], m1, u);
                        assert_close!(
                            track.eval(f)[0],
                            want,
                            1e-12,
                            "t {t} c {c} b {b} segment {seg} u {u}"
                        );
                    }
                }
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 27);
    // Hand-worked: tension 1 everywhere flattens every tangent, so the middle of each segment
    // is the mean of its keys.
    let mut flat = Track::scalar("flat");
    for i in 0..5 {
        flat = flat
            .key(frames[i], points[i])
            .interp(Interp::Tcb)
            .tcb(1.0, 0.3, -0.7);
    }
    let flat = flat.build().unwrap();
    for seg in 0..4 {
        let mid = (frames[seg] + frames[seg + 1]) / 2.0;
        assert_close!(
            flat.eval(mid)[0],
            (points[seg] + points[seg + 1]) / 2.0,
            1e-12
        );
    }
    // Hand-worked: continuity −1 and bias 0 at the interior keys of an even track gives
    // DD = (p_{i+1} − p_i) and DS = (p_i − p_{i−1}): each segment's tangents are its own chord,
    // so it is the straight line.
    let mut chords = Track::scalar("chords");
    for (i, p) in [0.0, 4.0, 1.0, 7.0].into_iter().enumerate() {
        chords = chords
            .key(10.0 * i as f64, p)
            .interp(Interp::Tcb)
            .tcb(0.0, -1.0, 0.0);
    }
    let chords = chords.build().unwrap();
    for f in [12.5, 15.0, 17.0] {
        assert_close!(chords.eval(f)[0], 4.0 - 3.0 * (f - 10.0) / 10.0, 1e-12);
    }
}

// ---------------------------------------------------------------------------------------------
// Beziers with coincident control points
// ---------------------------------------------------------------------------------------------

/// de Casteljau's construction, independent of the Bernstein sums in the engine.
fn de_casteljau(p: [[f64; 2]; 4], u: f64) -> [f64; 2] {
    let lerp = |a: [f64; 2], b: [f64; 2]| [a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u];
    let (a, b, c) = (lerp(p[0], p[1]), lerp(p[1], p[2]), lerp(p[2], p[3]));
    let (d, e) = (lerp(a, b), lerp(b, c));
    lerp(d, e)
}

#[test]
fn beziers_with_coincident_control_points() {
    let p0 = [1.0, 2.0];
    let p3 = [9.0, -4.0];
    let cases: [(&str, [[f64; 2]; 4]); 4] = [
        ("p0 = c1", [p0, p0, [6.0, 5.0], p3]),
        ("c2 = p3", [p0, [3.0, 7.0], p3, p3]),
        ("p0 = c1, c2 = p3", [p0, p0, p3, p3]),
        ("all four equal", [p0, p0, p0, p0]),
    ];
    for (name, p) in cases {
        let d = single(
            Track::vec2("b")
                .key(0.0, p[0])
                .bezier(p[1], p[2])
                .key(20.0, p[3]),
        );
        let t = &d.tracks()[0];
        for k in 0..=20 {
            let u = f64::from(k) / 20.0;
            let want = de_casteljau(p, u);
            assert_all_close!(t.eval(f64::from(k))[..], want, 1e-13, "{name} u {u}");
        }
        for precision in PRECISIONS {
            let bytes = compile(&d, precision);
            let stream = Stream::from_bytes(&bytes).unwrap();
            let tolerance = 1e-6 * t.scale();
            let (e, at) = max_forward_error(&stream, 0, -2.0, 22.0, |f| {
                de_casteljau(p, (f / 20.0).clamp(0.0, 1.0)).to_vec()
            });
            assert!(e <= tolerance, "{name} {precision}: {e:e} at {at}");
        }
    }
    // With p0 = c1 and c2 = p3 on a line the curve is the segment p0–p3 (speed 0 at both ends);
    // timed by arc length it moves at constant speed: the point at distance s is p0 + s·(p3 − p0)/L.
    let d = single(
        Track::vec2("glide")
            .key(0.0, p0)
            .bezier(p0, p3)
            .key(20.0, p3)
            .arclength(Ease::Linear),
    );
    let t = &d.tracks()[0];
    let length = ((p3[0] - p0[0]).powi(2) + (p3[1] - p0[1]).powi(2)).sqrt();
    assert_close!(t.arclength().unwrap(), length, 1e-10 * length);
    for k in 0..=20 {
        let s = f64::from(k) / 20.0;
        let want = [p0[0] + s * (p3[0] - p0[0]), p0[1] + s * (p3[1] - p0[1])];
        assert_all_close!(t.eval(f64::from(k))[..], want, 1e-9 * length, "frame {k}");
    }
}

// ---------------------------------------------------------------------------------------------
// cubic-bezier eases with x1 = x2 = 0 or 1
// ---------------------------------------------------------------------------------------------

/// x(t) or y(t) of the unit cubic Bezier with inner coordinates a, b.
fn unit_bezier(a: f64, b: f64, t: f64) -> f64 {
    bernstein([0.0, a, b, 1.0], t)
}

/// t in [0, 1] with x(t) = x by plain bisection to adjacent floats (x(t) is nondecreasing for
/// x1, x2 in [0, 1]).
fn bisect(x1: f64, x2: f64, x: f64) -> f64 {
    if x <= 0.0 || x >= 1.0 {
        return x.clamp(0.0, 1.0);
    }
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if unit_bezier(x1, x2, mid) < x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[test]
fn cubic_bezier_eases_with_x1_and_x2_at_0_or_1() {
    let controls = [(0.0, 0.0), (1.0, 1.0), (0.0, 1.0), (1.0, 0.0)];
    let ys = [(0.0, 1.0), (1.0, 0.0), (-0.5, 1.5), (0.3, 0.7)];
    for (x1, x2) in controls {
        for (y1, y2) in ys {
            let ease = CubicBezierEase::new(x1, y1, x2, y2).unwrap();
            let e = Ease::CubicBezier(ease);
            assert_eq!((e.at(0.0), e.at(1.0)), (0.0, 1.0));
            let mut previous_t = 0.0;
            for k in 0..=1000 {
                let x = f64::from(k) / 1000.0;
                let t = ease.t_at_x(x);
                // Monotone in x: a valid function of x (CSS Easing Level 1).
                assert!(t >= previous_t, "t_at_x not monotone at x {x}");
                previous_t = t;
                // The documented accuracy: |x(t) − x| ≤ 1e-12.
                assert!(
                    (unit_bezier(x1, x2, t) - x).abs() <= 1e-12,
                    "({x1}, {x2}) x {x}: x(t) = {}",
                    unit_bezier(x1, x2, t)
                );
                // Against the bisection solve: the two t's both solve x(t) = x to 1e-12, so y
                // differs by at most max|y'| (≤ 3·max(|y1|, |y2|, 1)·2) times the spread in t
                // that x ± 1e-12 allows.
                let reference = bisect(x1, x2, x);
                let spread =
                    bisect(x1, x2, (x + 1e-12).min(1.0)) - bisect(x1, x2, (x - 1e-12).max(0.0));
                let y_slope = 6.0 * y1.abs().max(y2.abs()).max(1.0);
                let want = unit_bezier(y1, y2, reference);
                assert_close!(
                    e.at(x),
                    want,
                    y_slope * spread + 1e-15,
                    "cubic_bezier({x1}, {y1}, {x2}, {y2}) at {x}"
                );
                // The slope may be infinite (dx/dt = 0 at an end, or inside for x1 = 1,
                // x2 = 0), never NaN.
                assert!(!e.derivative(x).is_nan(), "slope NaN at {x}");
            }
        }
    }
    // Hand-worked: x1 = x2 = 0 gives x(t) = t³, y1 = y2 = 1 gives y(t) = 1 − (1 − t)³, so
    // e(1/8) = 1 − (1/2)³ = 7/8; x1 = x2 = 1, y = (0, 0): x = 1 − (1 − t)³, y = t³:
    // e(7/8) = (1/2)³ = 1/8.
    let e = Ease::CubicBezier(CubicBezierEase::new(0.0, 1.0, 0.0, 1.0).unwrap());
    assert_close!(e.at(0.125), 0.875, 1e-12);
    let e = Ease::CubicBezier(CubicBezierEase::new(1.0, 0.0, 1.0, 0.0).unwrap());
    assert_close!(e.at(0.875), 0.125, 1e-12);
}

#[test]
fn a_segment_eased_by_a_vertical_start_compiles_and_plays_within_tolerance() {
    // cubic_bezier(0, 1, 0, 1): e(u) ≈ 3·u^(1/3) near 0, an infinite slope at the key.
    let d = doc(
        r#"{"inbetween": 1, "tracks": [{"name": "snap", "type": "scalar", "keys": [
            {"frame": 0, "value": 0, "ease": {"cubic_bezier": [0, 1, 0, 1]}},
            {"frame": 30, "value": 100, "ease": {"cubic_bezier": [1, 0, 1, 0]}},
            {"frame": 60, "value": 0}]}]}"#,
    );
    let t = &d.tracks()[0];
    let first = |x: f64| 100.0 * unit_bezier(1.0, 1.0, bisect(0.0, 0.0, x));
    let second = |x: f64| 100.0 - 100.0 * unit_bezier(0.0, 0.0, bisect(1.0, 1.0, x));
    for k in 0..=30 {
        let x = f64::from(k) / 30.0;
        assert_close!(t.eval(f64::from(k))[0], first(x), 1e-7, "frame {k}");
        assert_close!(
            t.eval(30.0 + f64::from(k))[0],
            second(x),
            1e-7,
            "frame {}",
            30 + k
        );
    }
    for precision in PRECISIONS {
        let bytes = compile(&d, precision);
        let stream = Stream::from_bytes(&bytes).unwrap();
        let (e, at) = max_forward_error(&stream, 0, 0.0, 60.0, |f| t.eval(f).to_vec());
        assert!(e <= 1e-6 * 100.0, "{precision}: {e:e} at {at}");
    }
}

// ---------------------------------------------------------------------------------------------
// Arc length on a zero-length path
// ---------------------------------------------------------------------------------------------

#[test]
fn a_zero_length_path_stays_at_the_start_in_sample_and_playback() {
    // All keys equal, and keys joined only by a step (a jump adds no length): L = 0, and the
    // spec's rule "L = 0 gives the start of the first segment" holds at every frame, the last
    // key's included.
    let still = Track::vec3("still")
        .key(0.0, [3.0, 4.0, 5.0])
        .interp(Interp::CatmullRom)
        .key(10.0, [3.0, 4.0, 5.0])
        .interp(Interp::bezier([3.0, 4.0, 5.0], [3.0, 4.0, 5.0]))
        .key(20.0, [3.0, 4.0, 5.0])
        .arclength(Ease::Penner(
            inbetween::ease::EaseDirection::InOut,
            inbetween::ease::PennerFamily::Back,
        ));
    let jump = Track::vec2("jump")
        .key(0.0, [1.0, 2.0])
        .interp(Interp::Step)
        .key(10.0, [5.0, 5.0])
        .arclength(Ease::Linear)
        .wrap(Wrap::PingPong);
    let d = Document::builder()
        .track(still)
        .track(jump)
        .build()
        .unwrap();
    let starts: [&[f64]; 2] = [&[3.0, 4.0, 5.0], &[1.0, 2.0]];
    for (i, start) in starts.iter().enumerate() {
        let t = &d.tracks()[i];
        assert_eq!(t.arclength(), Some(0.0), "{}", t.name());
        for f in [-5.0, 0.0, 0.5, 9.999, 10.0, 15.0, 20.0, 35.0] {
            assert_eq!(t.eval(f).as_slice(), *start, "{} frame {f}", t.name());
        }
        for s in [-1.0, 0.0, 1.0, f64::NAN] {
            assert_eq!(t.at_distance(s).unwrap().as_slice(), *start);
        }
    }
    for precision in PRECISIONS {
        let bytes = compile(&d, precision);
        let stream = Stream::from_bytes(&bytes).unwrap();
        for (i, start) in starts.iter().enumerate() {
            for f in [-3.0, 0.0, 5.0, 10.0, 20.0, 31.0] {
                let v = played_at(&stream, i, f);
                assert_all_close!(v[..start.len()], **start, 1e-6 * 5.0, "{precision} {i} {f}");
            }
        }
    }
}
