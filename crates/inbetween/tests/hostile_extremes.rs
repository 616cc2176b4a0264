//! Hostile input II: extreme frames, spans and values are evaluated exactly or refused with a typed error, and what compiles plays within its reported error.

use inbetween::arclength::{ArcLengthError, ArcLengthTable, ParamCurve, MAX_TABLE_WORK};
use inbetween::compile::{CompileError, CompileOptions, MAX_SPANS_PER_TRACK};
use inbetween::player::TrackPlayer;
use inbetween::sample::{SampleError, MAX_SAMPLE_FRAME};
use inbetween::stream::layout::*;
use inbetween::stream::{fix_checksum, reencode, Precision, Stream, StreamError, TableLayout};
use inbetween::track::MAX_KEY_SPAN;
use inbetween::{Document, ErrorKind, Track, Wrap};

/// A document from its tracks' JSON.
fn doc(tracks: &str) -> Document {
    Document::from_json_str(
        &format!(r#"{{"inbetween": 1, "tracks": [{tracks}]}}"#),
        "t.json",
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A linear scalar track from 0 at `first` to 1 at `last`.
fn ramp(wrap: Wrap, first: f64, last: f64) -> Track {
    Track::scalar("r")
        .key(first, 0.0)
        .key(last, 1.0)
        .wrap(wrap)
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `x` as an exact integer multiple of 2^-shift (panics if it is not one, or does not fit).
fn scaled(x: f64, shift: i32) -> i128 {
    let y = x * 2f64.powi(shift);
    assert!(
        y.fract() == 0.0 && y.abs() < 2f64.powi(120),
        "{x} at 2^-{shift}"
    );
    y as i128
}

/// The reference fold of the real number `frame − first` by the span, in exact integer
/// arithmetic on multiples of 2^-shift: the wrapped offset from `first` as a fraction of the span
/// (the ramp's value, as the span is `last − first` exactly).
fn reference_ramp(wrap: Wrap, frame: f64, first: f64, span: f64, shift: i32) -> f64 {
    let x = scaled(frame, shift) - scaled(first, shift);
    let s = scaled(span, shift);
    let w = match wrap {
        Wrap::Loop => x.rem_euclid(s),
        Wrap::PingPong => {
            let r = x.rem_euclid(2 * s);
            if r <= s {
                r
            } else {
                2 * s - r
            }
        }
        Wrap::Clamp => x.clamp(0, s),
    };
    w as f64 / s as f64
}

const FAR_FRAMES: [f64; 10] = [
    -1e15,
    1e15,
    -1e15 + 1.0,
    1e15 + 7.0,
    4_503_599_627_370_496.5, // 2^52 + 0.5
    -4_503_599_627_370_496.5,
    9_007_199_254_740_992.0, // 2^53
    -9_007_199_254_740_990.0,
    123_456_789.25,
    -987_654_321.75,
];

/// Ping-pong at frame −10^15 over keys 0 and 1.2 once printed 0.4167 where the exact fold gives
/// 0.6358 (the floored modulo's quotient x / 2S rounded away whole periods). Every far frame now
/// folds as exact rational arithmetic does, in exact evaluation and in the player.
#[test]
fn loop_and_ping_pong_fold_far_frames_exactly_in_evaluation_and_playback() {
    for (first, last) in [(0.0, 1.2), (-3.0, -1.8), (0.5, 0.8), (2.0, 7.0), (0.1, 1.3)] {
        // S is the f64 difference of the key frames (format.md); the fold of f − f₀ by it is
        // then exact.
        let span = last - first;
        for wrap in [Wrap::Loop, Wrap::PingPong] {
            let track = ramp(wrap, first, last);
            let document = Document::builder()
                .track(Track::scalar("r").key(first, 0.0).key(last, 1.0).wrap(wrap))
                .build()
                .unwrap();
            let compiled = document.compile(&CompileOptions::default()).unwrap();
            let stream = Stream::from_bytes(&compiled.bytes).unwrap();
            let mut player = TrackPlayer::new(stream.track(0).unwrap());
            for frame in FAR_FRAMES {
                let expected = reference_ramp(wrap, frame, first, span, 56);
                let got = track.eval(frame)[0];
                assert!(
                    (got - expected).abs() <= 4e-16,
                    "{wrap:?} keys {first}..{last} at {frame}: {got} vs exact {expected}"
                );
                // The player folds the same way, and steps of +1 across folds stay exact (where
                // whole frames are f64 numbers: below 2^53).
                player.seek(frame).unwrap();
                let steps = if frame.abs() + 8.0 < 2f64.powi(53) {
                    8
                } else {
                    1
                };
                for k in 0..steps {
                    let f = frame + f64::from(k);
                    let expected = reference_ramp(wrap, f, first, span, 56);
                    let played = player.component(0);
                    assert!(
                        (played - expected).abs() <= 1e-6,
                        "{wrap:?} keys {first}..{last}: played {played} at {f}, exact {expected}"
                    );
                    player.advance();
                }
            }
        }
    }
    // The brief's hand-worked value: ping-pong over [0, 1.2] at −10^15 (Python's Fraction:
    // (−10^15 mod 2S) = 0.76299…, which is ≤ S, over S = 0.6358271382048568).
    let track = ramp(Wrap::PingPong, 0.0, 1.2);
    assert!((track.eval(-1e15)[0] - 0.635_827_138_204_856_8).abs() < 1e-15);
}

/// A loop over a span of 10^-10 or 10^-300 frames folds by the exact remainder (it once printed
/// 0 everywhere: the quotient overflowed); a span of 10^-10 checked in exact integers, 10^-300
/// against values computed with Python's `fractions.Fraction`.
#[test]
fn loops_over_tiny_spans_fold_by_the_exact_remainder() {
    let track = ramp(Wrap::Loop, 0.0, 1e-10);
    for k in [1.0, 2.0, 3.0, 1000.0, -7.0, 65_536.5] {
        let expected = reference_ramp(Wrap::Loop, k, 0.0, 1e-10, 86);
        let got = track.eval(k)[0];
        assert!((got - expected).abs() <= 1e-15, "{k}: {got} vs {expected}");
    }
    let track = ramp(Wrap::Loop, 0.0, 1e-300);
    // float(Fraction(k) % Fraction(1e-300) / Fraction(1e-300)) for k = 1, 2, 3.
    for (k, expected) in [
        (1.0, 0.896_318_652_803_971_2),
        (2.0, 0.792_637_305_607_942_3),
        (3.0, 0.688_955_958_411_913_5),
    ] {
        let got = track.eval(k)[0];
        assert!((got - expected).abs() <= 1e-15, "{k}: {got} vs {expected}");
    }
}

/// Keys at ±1.7e308 span ∞ frames: refused at the last key's frame with the reason. Keys at
/// ±4e307 (a span of 8e307, under f64::MAX / 2) evaluate exactly: 0.5 midway.
#[test]
fn key_spans_beyond_half_of_f64_max_are_refused_and_below_it_evaluate_exactly() {
    let error = Track::scalar("wide")
        .key(-1.7e308, 0.0)
        .key(1.7e308, 1.0)
        .build()
        .unwrap_err();
    assert_eq!(error.location.key, Some(1));
    assert_eq!(error.location.field.as_deref(), Some("frame"));
    assert_eq!(
        error.kind,
        ErrorKind::SpanTooLarge {
            first: -1.7e308,
            last: 1.7e308,
            max: MAX_KEY_SPAN,
        }
    );
    assert!(error.to_string().contains("more than the limit"), "{error}");
    // Three keys whose gaps are finite but whose span is not: refused as well.
    assert!(Track::scalar("w")
        .key(-1e308, 0.0)
        .key(0.0, 1.0)
        .key(1e308, 0.0)
        .build()
        .is_err());
    for wrap in Wrap::ALL {
        let track = ramp(wrap, -4e307, 4e307);
        assert_eq!(track.eval(0.0)[0], 0.5);
        assert_eq!(track.eval(2e307)[0], 0.75);
    }
    // Ping-pong over S = 8e307 at the far end of f64 (frame − first = −1.3e308 is not even a
    // sum f64 could form without care): −1.3e308 mod 2S = 3e307 ≤ S, so the ramp reads
    // 3e307 / 8e307 = 0.375.
    let track = ramp(Wrap::PingPong, -4e307, 4e307);
    let got = track.eval(-1.7e308)[0];
    assert!((got - 0.375).abs() < 1e-12, "{got}");
}

/// Loops over tiny spans with huge values, ping-pong over half frames, far ranges: whatever
/// compiles plays, with the real `TrackPlayer` stepping +1 from one seek over the keys and 256
/// frames either side of a wrapping track (1 for clamp), within the reported max error — and the
/// reported max error is exactly the largest error that playback shows. (A loop over 10^-300
/// frames once compiled with "error 0" and then played 10^300.)
#[test]
fn whatever_compiles_plays_within_its_reported_error_at_every_frame() {
    let mut compiled_count = 0;
    let documents = [
        r#"{"name": "a", "type": "scalar", "wrap": "loop", "keys": [{"frame": 0, "value": 0}, {"frame": 1e-300, "value": 1}]}"#,
        r#"{"name": "a", "type": "scalar", "wrap": "loop", "keys": [{"frame": 0, "value": 0}, {"frame": 1e-300, "value": 1e300}]}"#,
        r#"{"name": "a", "type": "scalar", "wrap": "ping_pong", "keys": [{"frame": 0, "value": 0}, {"frame": 1e-10, "value": 1e6}]}"#,
        r#"{"name": "a", "type": "scalar", "wrap": "loop", "keys": [{"frame": 0, "value": 0, "interp": "catmull_rom"}, {"frame": 0.25, "value": 1e300}, {"frame": 0.5, "value": -1e300}]}"#,
        r#"{"name": "a", "type": "vec2", "wrap": "ping_pong", "keys": [{"frame": 0.5, "value": [1e150, -3], "interp": "catmull_rom"}, {"frame": 1.0, "value": [-1e150, 7]}, {"frame": 1.5, "value": [2e150, 0]}]}"#,
        r#"{"name": "a", "type": "scalar", "wrap": "loop", "keys": [{"frame": 0.3, "value": 5, "ease": "in_out_cubic"}, {"frame": 1.6, "value": -5}]}"#,
        r#"{"name": "a", "type": "scalar", "wrap": "ping_pong", "keys": [{"frame": 1000000000.25, "value": 0, "interp": "catmull_rom"}, {"frame": 1000000003.5, "value": 1e9}, {"frame": 1000000010, "value": 0}]}"#,
        r#"{"name": "a", "type": "scalar", "wrap": "loop", "keys": [{"frame": -2.5, "value": 1, "ease": {"steps": [3, "jump_end"]}}, {"frame": 0.7, "value": 4}]}"#,
        r#"{"name": "a", "type": "scalar", "keys": [{"frame": 0.2, "value": 1e300}, {"frame": 0.7, "value": -1e300}]}"#,
        r#"{"name": "a", "type": "scalar", "wrap": "loop", "keys": [{"frame": 0, "value": 0, "interp": {"expr": "sin(40 * u) * 1e200"}}, {"frame": 0.5, "value": 0}]}"#,
    ];
    for json in documents {
        let document = doc(json);
        for precision in [Precision::F64, Precision::F32, Precision::Fixed] {
            let options = CompileOptions {
                precision,
                ..CompileOptions::default()
            };
            let Ok(compiled) = document.compile(&options) else {
                continue;
            };
            compiled_count += 1;
            let stream = Stream::from_bytes(&compiled.bytes).unwrap();
            let track = &document.tracks()[0];
            let played = stream.track(0).unwrap();
            let report = &compiled.reports[0].summary;
            let margin = if track.wrap() == Wrap::Clamp {
                1.0
            } else {
                256.0
            };
            let from = track.first_frame().ceil() - margin;
            let to = track.last_frame().floor() + margin;
            let mut player = TrackPlayer::new(played);
            player.seek(from).unwrap();
            let mut worst = 0.0f64;
            let mut frame = from;
            while frame <= to {
                let exact = track.eval(frame);
                for (c, want) in exact.iter().enumerate() {
                    let e = (player.component(c) - want).abs();
                    assert!(
                        e <= report.max_error && e.is_finite(),
                        "{json} {precision:?} at {frame}: played {} exact {want}, reported {}",
                        player.component(c),
                        report.max_error
                    );
                    worst = worst.max(e);
                }
                player.advance();
                frame += 1.0;
            }
            assert_eq!(worst, report.max_error, "{json} {precision:?}");
            assert!(report.max_error <= report.tolerance);
        }
    }
    assert!(compiled_count >= 8, "only {compiled_count} compiled");
}

/// `steps(10^9)` in a 181-byte document made `compile` (through `compile_with_progress`, which
/// the CLI calls) allocate about 23 GiB; every count-driven construct is now capped before any
/// work: steps on a short segment, inside a loop, on an arclength track's ease, over tracks.
#[test]
fn steps_eases_are_capped_before_any_work_on_every_compile_path() {
    let cases = [
        r#"{"name": "s", "type": "scalar", "keys": [{"frame": 0, "value": 0, "ease": {"steps": [1000000000, "jump_end"]}}, {"frame": 1, "value": 1}]}"#,
        r#"{"name": "s", "type": "scalar", "wrap": "loop", "keys": [{"frame": 0, "value": 0, "ease": {"steps": [1000000000, "jump_both"]}}, {"frame": 0.001, "value": 1}]}"#,
        r#"{"name": "s", "type": "vec2", "path": "arclength", "ease": {"steps": [1000000000, "jump_end"]}, "keys": [{"frame": 0, "value": [0, 0]}, {"frame": 10, "value": [3, 4]}]}"#,
    ];
    for json in cases {
        let document = doc(json);
        let options = CompileOptions::default();
        for error in [
            document.compile(&options).unwrap_err(),
            document
                .compile_with_progress(&options, &mut |_, _| {})
                .unwrap_err(),
        ] {
            match error {
                CompileError::TooManySpans {
                    ref track,
                    spans,
                    max,
                    ..
                } => {
                    assert_eq!(track, "s");
                    assert!(spans > max && max == MAX_SPANS_PER_TRACK, "{error}");
                }
                other => panic!("{json}: {other}"),
            }
        }
    }
    // Many tracks each under the per-track cap are counted together (limits.rs crosses the
    // piece limit with 17 tracks); a few small `steps` still compile.
    let ok = doc(
        r#"{"name": "s", "type": "scalar", "wrap": "loop", "keys": [{"frame": 0, "value": 0, "ease": {"steps": [4, "jump_end"]}}, {"frame": 8, "value": 1}]}"#,
    );
    assert_eq!(
        ok.compile(&CompileOptions::default()).unwrap().reports[0]
            .summary
            .pieces,
        4
    );
}

/// A document whose default range runs to 10^300 frames made `sample` print only a header and
/// succeed: the library now refuses the range, naming the track and its frames.
#[test]
fn a_default_range_beyond_two_to_the_53_is_refused_naming_the_track() {
    let far = doc(
        r#"{"name": "near", "type": "scalar", "keys": [{"frame": 0, "value": 0}]},
           {"name": "far", "type": "scalar", "keys": [{"frame": 0, "value": 0}, {"frame": 1e300, "value": 1}]}"#,
    );
    assert_eq!(
        far.sample_range(),
        Err(SampleError::RangeTooLarge {
            track: "far".into(),
            first: 0.0,
            last: 1e300,
            max: MAX_SAMPLE_FRAME,
        })
    );
    let edge = doc(&format!(
        r#"{{"name": "e", "type": "scalar", "keys": [{{"frame": 0, "value": 0}}, {{"frame": {MAX_SAMPLE_FRAME}, "value": 1}}]}}"#
    ));
    assert_eq!(edge.sample_range(), Ok(Some((0, 9_007_199_254_740_992))));
    let empty = doc(
        r#"{"name": "e", "type": "scalar", "keys": [{"frame": 0.2, "value": 0}, {"frame": 0.7, "value": 1}]}"#,
    );
    assert_eq!(empty.sample_range(), Ok(None));
}

/// A compiled stream to corrupt, re-encoded in the version-1 layout `number_offset` addresses:
/// one cubic (catmull-rom) track of `precision`.
fn cubic_stream(precision: Precision) -> Vec<u8> {
    let document = doc(
        r#"{"name": "c", "type": "scalar", "wrap": "ping_pong", "keys": [{"frame": 0, "value": 0, "interp": "catmull_rom"}, {"frame": 10, "value": 5, "interp": "catmull_rom"}, {"frame": 20, "value": -2}]}"#,
    );
    let options = CompileOptions {
        precision,
        ..CompileOptions::default()
    };
    let bytes = document.compile(&options).unwrap().bytes;
    reencode(&Stream::from_bytes(&bytes).unwrap(), TableLayout::Legacy).unwrap()
}

/// Offset of piece `piece`'s number `index` (component-major) in track 0.
fn number_offset(bytes: &[u8], piece: usize, index: usize, size: usize) -> usize {
    let entry = HEADER_SIZE;
    let table = read_u32(bytes, entry + T_PIECE_TABLE_OFFSET) as usize;
    let data = read_u32(bytes, entry + T_DATA_OFFSET) as usize;
    let pe = table + piece * PIECE_ENTRY_SIZE;
    data + read_u32(bytes, pe + P_DATA_OFFSET) as usize + index * size
}

fn patched(bytes: &[u8], offset: usize, patch: &[u8]) -> Vec<u8> {
    let mut copy = bytes.to_vec();
    copy[offset..offset + patch.len()].copy_from_slice(patch);
    fix_checksum(&mut copy);
    copy
}

/// Plays every piece of track 0 at many positions, steps and wrapped frames; all finite.
fn plays_finite(bytes: &[u8]) {
    let stream = Stream::from_bytes(bytes).unwrap();
    let track = stream.track(0).unwrap();
    let (first, last) = (track.first_frame(), track.last_frame());
    for step in [1.0, -1.0, 0.37, 2.5, -0.5, 60.0 / 144.0] {
        for seek in [
            first,
            first + 0.5,
            (first + last) / 2.0,
            last - 0.25,
            last + 3.7,
            -1e9,
        ] {
            let mut player = TrackPlayer::new(track);
            player.seek(seek).unwrap();
            player.set_step(step).unwrap();
            for _ in 0..60 {
                assert!(
                    player.value().iter().all(|v| v.is_finite()),
                    "step {step} from {seek}"
                );
                player.advance();
            }
        }
    }
}

/// A stream with a recomputed checksum and a huge finite top difference once played ±∞: every
/// piece's values are now bounded at validation in every precision (Newton bound in f64, exact
/// i128 replay of fixed-point states), and whatever validates plays finite values.
#[test]
fn streams_whose_pieces_could_play_non_finite_values_are_refused_naming_track_and_piece() {
    // f64: the cubic's top difference set to 1e305 (its values over the 10-frame piece reach
    // about 1e305 · C(10, 3) = 1.2e307; a state at rate 11 frames a step, 1e305 · C(44, 3) ≈ 1.3e309).
    let bytes = cubic_stream(Precision::F64);
    let stream = Stream::from_bytes(&bytes).unwrap();
    let degree = usize::from(stream.track(0).unwrap().piece(0).unwrap().degree);
    let at = number_offset(&bytes, 0, degree, 8);
    let error = Stream::from_bytes(&patched(&bytes, at, &1e305f64.to_le_bytes())).unwrap_err();
    assert!(
        matches!(
            error,
            StreamError::PieceUnbounded {
                track: 0,
                piece: 0,
                ..
            }
        ),
        "{error}"
    );
    assert!(
        error.to_string().starts_with("track 0 piece 0: "),
        "{error}"
    );
    // Every power of ten up to the one refused: what validates plays finite values.
    for exponent in (0..300).step_by(7) {
        let big = 10f64.powi(exponent);
        let copy = patched(&bytes, at, &big.to_le_bytes());
        if Stream::from_bytes(&copy).is_ok() {
            plays_finite(&copy);
        }
    }
    // f32: numbers cannot exceed 3.4e38, but a piece stretched to 1e300 frames can.
    let bytes = cubic_stream(Precision::F32);
    let last = HEADER_SIZE + T_LAST_FRAME;
    let error = Stream::from_bytes(&patched(&bytes, last, &1e300f64.to_le_bytes())).unwrap_err();
    assert!(
        matches!(error, StreamError::PieceUnbounded { track: 0, .. }),
        "{error}"
    );
    let at = number_offset(&bytes, 0, degree, 4);
    let copy = patched(&bytes, at, &f32::MAX.to_le_bytes());
    if Stream::from_bytes(&copy).is_ok() {
        plays_finite(&copy);
    }
    // Fixed point: a top integer of 2^62 leaves i64 within the piece.
    let bytes = cubic_stream(Precision::Fixed);
    let stream = Stream::from_bytes(&bytes).unwrap();
    let degree = usize::from(stream.track(0).unwrap().piece(0).unwrap().degree);
    let at = number_offset(&bytes, 0, degree, 8);
    let error = Stream::from_bytes(&patched(&bytes, at, &(1i64 << 62).to_le_bytes())).unwrap_err();
    assert!(
        matches!(
            error,
            StreamError::FixedOverflow {
                track: 0,
                piece: 0,
                component: 0,
                ..
            }
        ),
        "{error}"
    );
    for exponent in 0..62 {
        let copy = patched(&bytes, at, &(1i64 << exponent).to_le_bytes());
        if Stream::from_bytes(&copy).is_ok() {
            plays_finite(&copy);
        }
    }
}

/// A curve whose evaluations are dear (a 64-key `polynomial` window reports K²/4 + 1) gets
/// proportionally fewer quadrature intervals: a cusp that would need thousands is refused with
/// `TooMuchWork` before the work, naming the segment and cost.
struct DearCusp;

impl ParamCurve for DearCusp {
    fn dims(&self) -> usize {
        2
    }
    fn eval(&self, u: f64, out: &mut [f64]) {
        let t = u - 1.0 / 3.0;
        out[0] = t * t;
        out[1] = t * t * t;
    }
    fn derivative(&self, u: f64, out: &mut [f64]) {
        let t = u - 1.0 / 3.0;
        out[0] = 2.0 * t;
        out[1] = 3.0 * t * t;
    }
    fn cost(&self) -> u64 {
        MAX_TABLE_WORK / 200
    }
}

#[test]
fn arc_length_work_is_budgeted_by_evaluation_cost() {
    let curves: [&dyn ParamCurve; 1] = [&DearCusp];
    let error = ArcLengthTable::build(&curves, 1e-10).unwrap_err();
    assert_eq!(
        error,
        ArcLengthError::TooMuchWork {
            segment: 0,
            cost: MAX_TABLE_WORK / 200,
            max: MAX_TABLE_WORK,
        }
    );
    // The 4.7 KB document of 64-key polynomial segments loads (it took 18 s to be refused);
    // its curve is a zigzag through 64 points.
    let keys: Vec<String> = (0..64)
        .map(|i| {
            format!(
                r#"{{"frame": {i}, "value": [{i}, {}], "interp": {{"polynomial": {{"keys": 64}}}}}}"#,
                i % 2
            )
        })
        .collect();
    let json = format!(
        r#"{{"name": "p", "type": "vec2", "path": "arclength", "keys": [{}]}}"#,
        keys.join(",")
    );
    let loaded = Document::from_json_str(
        &format!(r#"{{"inbetween": 1, "tracks": [{json}]}}"#),
        "arc.json",
    );
    match loaded {
        Ok(document) => {
            let track = &document.tracks()[0];
            assert_eq!(track.eval(0.0).as_slice(), &[0.0, 0.0]);
            assert_eq!(track.eval(63.0).as_slice(), &[63.0, 1.0]);
        }
        Err(error) => {
            // Refused only by the work budget, with a message that says so.
            let text = error.to_string();
            assert!(text.contains("evaluations"), "{text}");
        }
    }
}

/// The refusal's message is true: the interval it names is the one whose estimate stayed above
/// its share, and the limit it names is the one the interval reached.
#[test]
fn arc_length_accuracy_messages_name_the_limit_reached() {
    let message = ArcLengthError::AccuracyNotReached {
        segment: 2,
        u0: 0.5,
        u1: 0.5 + 2f64.powi(-48),
        achieved: 3e-12,
        requested: 1e-10,
    }
    .to_string();
    assert!(message.contains("48 bisections"), "{message}");
    assert!(
        message.contains("summed error estimate: 3e-12"),
        "{message}"
    );
    let message = ArcLengthError::AccuracyNotReached {
        segment: 0,
        u0: 0.25,
        u1: 0.5,
        achieved: 1e-3,
        requested: 1e-10,
    }
    .to_string();
    assert!(message.contains("16384 intervals"), "{message}");
}

/// Issue 16: with linear keys (0, −1200.5), (1, −1335.9744058463245), (2, −1400.25) `sample`
/// printed −1335.9744058463243 at frame 1. Evaluation at a key frame is the segment that starts
/// there at u = 0, which returns the key's value as stored, for every kind (quaternion kinds
/// included, where re-normalizing could move it); the ulp was lost earlier, in the JSON reader,
/// which now parses numbers correctly rounded (serde_json's `float_roundtrip`).
#[test]
fn key_frames_give_the_keys_values_exactly_for_every_segment_kind() {
    let values = [
        -1200.5,
        -1_335.974_405_846_324_5,
        -1400.25,
        0.1 + 0.2,
        1e-300,
        123_456.789_012_345_67,
    ];
    let kinds = [
        r#""linear""#,
        r#""step""#,
        r#""catmull_rom""#,
        r#""tcb""#,
        r#"{"polynomial": {"keys": 4}}"#,
        r#"{"hermite": {"out": 3.5, "in": -2}}"#,
        r#"{"bezier": {"out": 7, "in": -9}}"#,
    ];
    for kind in kinds {
        for ease in [
            r#""linear""#,
            r#""in_out_cubic""#,
            r#"{"cubic_bezier": [0.3, 0.1, 0.2, 1]}"#,
        ] {
            let keys: Vec<String> = values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    format!(r#"{{"frame": {i}, "value": {v:?}, "interp": {kind}, "ease": {ease}}}"#)
                })
                .collect();
            let document = doc(&format!(
                r#"{{"name": "k", "type": "scalar", "keys": [{}]}}"#,
                keys.join(",")
            ));
            let track = &document.tracks()[0];
            for (i, v) in values.iter().enumerate() {
                assert_eq!(track.keys()[i].value[0], *v, "{kind}: key {i} read back");
                assert_eq!(track.eval(i as f64)[0], *v, "{kind} {ease}: frame {i}");
            }
        }
    }
    // Quaternion kinds: the stored (normalized) key comes back bit for bit.
    for kind in [
        r#""linear""#,
        r#""slerp""#,
        r#""catmull_rom""#,
        r#"{"polynomial": {"keys": 3}}"#,
    ] {
        let document = doc(&format!(
            r#"{{"name": "q", "type": "quat", "keys": [
                {{"frame": 0, "value": [0.1, 0.3, -0.4, 0.7], "interp": {kind}}},
                {{"frame": 1, "value": [0.37, -0.2, 0.9, 0.11], "interp": {kind}}},
                {{"frame": 2, "value": [-0.5, 0.5, 0.5, 0.5]}}]}}"#
        ));
        let track = &document.tracks()[0];
        for i in 0..3 {
            assert_eq!(
                track.eval(f64::from(i)),
                track.keys()[i as usize].value,
                "{kind}: frame {i}"
            );
        }
    }
}
