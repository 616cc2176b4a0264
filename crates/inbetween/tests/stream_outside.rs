//! Outside records (stream format version 2): every side kind played by `TrackPlayer` (seek, forward, backward, rate) and `Bank` against exact evaluation, closed forms at far frames, finite values at extreme frames, and crafted records refused.

use inbetween::batch::Bank;
use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::layout::*;
use inbetween::stream::outside::{Beyond, MAX_LINE_VALUE, MAX_OUTSIDE_RATE};
use inbetween::stream::{fix_checksum, reencode, Precision, Stream, StreamError, TableLayout};
use inbetween::Document;

/// A one-track F-curve document: `keys` as JSON, `fcurve` options as JSON.
fn curve_doc(keys: &str, fcurve: &str) -> Document {
    let json = format!(
        r#"{{"inbetween":1,"fps":24,"tracks":[{{"name":"c","type":"scalar","fcurve":{fcurve},"keys":[{keys}]}}]}}"#
    );
    Document::from_json_str(&json, "outside.json").unwrap_or_else(|e| panic!("{e}"))
}

/// The compiled stream in the version-1/2 layout that this file's offsets and versions
/// address; the compiler's version-3 bytes must be its exact re-encoding (same record, pieces
/// and numbers; `stream_compact.rs` plays both).
fn compile(doc: &Document, precision: Precision) -> Vec<u8> {
    let options = CompileOptions {
        precision,
        ..CompileOptions::default()
    };
    let compact = doc
        .compile(&options)
        .unwrap_or_else(|e| panic!("{e}"))
        .bytes;
    assert_eq!(read_u16(&compact, H_VERSION), FORMAT_VERSION_COMPACT);
    let legacy = reencode(&Stream::from_bytes(&compact).unwrap(), TableLayout::Legacy).unwrap();
    let again = reencode(&Stream::from_bytes(&legacy).unwrap(), TableLayout::Compact).unwrap();
    assert!(again == compact, "re-encoding changed the stream");
    legacy
}

const SMOOTH_KEYS: &str = r#"{"frame":0,"value":0},{"frame":4,"value":6},{"frame":10,"value":4}"#;
const FRACTIONAL_KEYS: &str = r#"{"frame":0.5,"value":1,"handles":"auto"},{"frame":3.25,"value":-2,"interp":{"easing":"elastic","mode":"out"}},{"frame":7.75,"value":3,"interp":"linear"},{"frame":9.5,"value":2}"#;

/// The curves: every side kind, and mixes of them.
fn curves() -> Vec<(&'static str, Document)> {
    vec![
        (
            "line before, repeat_offset after",
            curve_doc(
                SMOOTH_KEYS,
                r#"{"extrapolation":"linear","cycles":{"after":"repeat_offset"}}"#,
            ),
        ),
        (
            "mirror before, line after",
            curve_doc(
                SMOOTH_KEYS,
                r#"{"extrapolation":["constant","linear"],"cycles":{"before":"mirror"}}"#,
            ),
        ),
        (
            "repeat_offset before, mirror after, fractional keys",
            curve_doc(
                FRACTIONAL_KEYS,
                r#"{"cycles":{"before":"repeat_offset","after":"mirror"}}"#,
            ),
        ),
        (
            "two counted repeat_offset cycles, then a line; hold before",
            curve_doc(
                FRACTIONAL_KEYS,
                r#"{"extrapolation":["constant","linear"],"cycles":{"after":"repeat_offset","after_count":2}}"#,
            ),
        ),
        (
            "repeat_offset both sides forever",
            curve_doc(
                SMOOTH_KEYS,
                r#"{"cycles":{"before":"repeat_offset","after":"repeat_offset"}}"#,
            ),
        ),
    ]
}

/// Played within the compile tolerance of the curve's own value (Blender's semantics, exact),
/// plus rounding of the far values. At a `repeat_offset` cycle boundary both agree (the curve is
/// continuous there).
fn assert_plays(doc: &Document, played: f64, frame: f64, what: &str) {
    let track = &doc.tracks()[0];
    let exact = track.eval(frame)[0];
    let bound = 1e-6 * track.scale() * 1.001 + 1e-13 * exact.abs();
    assert!(
        (played - exact).abs() <= bound,
        "{what}: frame {frame}: played {played}, exact {exact}"
    );
}

fn frames() -> Vec<f64> {
    let mut out: Vec<f64> = (-240..=260).map(|q| f64::from(q) * 0.25).collect();
    for far in [1e3, 1e4 + 0.25, 123_456.5, 1e7] {
        out.extend([far, -far]);
    }
    out
}

#[test]
fn every_side_kind_plays_the_curve_when_seeking() {
    for (what, doc) in curves() {
        for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
            let bytes = compile(&doc, precision);
            let stream = Stream::from_bytes(&bytes).unwrap();
            let track = stream.track(0).unwrap();
            assert!(track.outside().is_some(), "{what}: an outside record");
            assert_eq!(read_u16(&bytes, H_VERSION), FORMAT_VERSION_OUTSIDE);
            let mut player = TrackPlayer::new(track);
            for frame in frames() {
                player.seek(frame).unwrap();
                assert_plays(
                    &doc,
                    player.value()[0],
                    frame,
                    &format!("{what} {precision}"),
                );
            }
        }
    }
}

#[test]
fn forward_backward_and_rate_play_equal_the_curve() {
    for (what, doc) in curves() {
        for precision in [Precision::F64, Precision::Fixed] {
            let bytes = compile(&doc, precision);
            let stream = Stream::from_bytes(&bytes).unwrap();
            let mut player = TrackPlayer::new(stream.track(0).unwrap());
            for (from, step, count) in [
                (-70.0, 1.0, 160),
                (75.0, -1.0, 160),
                (-40.3, 60.0 / 144.0, 300),
                (10_000.0, -1.0, 40),
                (-5_000.5, 1.0, 40),
            ] {
                player.seek(from).unwrap();
                player.set_step(step).unwrap();
                for k in 0..count {
                    let frame = from + f64::from(k) * step;
                    let how = format!("{what} {precision} from {from} step {step}");
                    assert_plays(&doc, player.value()[0], frame, &how);
                    player.advance();
                }
            }
        }
    }
}

#[test]
fn a_bank_plays_outside_records_as_track_players_do() {
    for (what, doc) in curves() {
        for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
            let bytes = compile(&doc, precision);
            let stream = Stream::from_bytes(&bytes).unwrap();
            let streams = [stream];
            let mut bank = Bank::new(&streams).unwrap();
            let mut row = [0.0; 1];
            for (from, step) in [(-60.0, 1.0), (-3.0, 1.0), (70.0, -1.0), (-20.25, 0.4)] {
                bank.seek(from).unwrap();
                bank.set_step(step).unwrap();
                for k in 0..150 {
                    let frame = from + f64::from(k) * step;
                    bank.write_f64(&mut row).unwrap();
                    let how = format!("bank, {what} {precision} from {from} step {step}");
                    assert_plays(&doc, row[0], frame, &how);
                    bank.advance();
                }
            }
        }
    }
}

/// Linear keys 0 → 4 over 10 frames, linear extrapolation before, `repeat_offset` forever
/// after: the value is 0.4 · frame everywhere, a closed form far from the keys.
#[test]
fn a_repeat_offset_line_is_a_straight_line_at_far_frames() {
    let doc = curve_doc(
        r#"{"frame":0,"value":0,"interp":"linear"},{"frame":10,"value":4,"interp":"linear"}"#,
        r#"{"extrapolation":"linear","cycles":{"after":"repeat_offset"}}"#,
    );
    for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
        let bytes = compile(&doc, precision);
        let stream = Stream::from_bytes(&bytes).unwrap();
        let mut player = TrackPlayer::new(stream.track(0).unwrap());
        for frame in [
            -1e9,
            -12.5,
            0.0,
            3.0,
            10.0,
            17.25,
            1e6 + 3.0,
            1e9 + 0.5,
            1e12,
        ] {
            player.seek(frame).unwrap();
            let want = 0.4 * frame;
            let got = player.value()[0];
            assert!(
                (got - want).abs() <= 1e-6 * 4.0 + 1e-15 * want.abs(),
                "{precision} frame {frame}: {got} vs {want}"
            );
        }
    }
}

/// Offset of the outside record of track 0 and of its side `after`.
fn record(bytes: &[u8], after: bool) -> usize {
    let entry = HEADER_SIZE;
    let end = read_u32(bytes, entry + T_DATA_OFFSET) + read_u32(bytes, entry + T_DATA_LENGTH);
    end as usize + if after { 80 } else { 0 }
}

fn patched(bytes: &[u8], at: usize, patch: &[u8]) -> Vec<u8> {
    let mut copy = bytes.to_vec();
    copy[at..at + patch.len()].copy_from_slice(patch);
    fix_checksum(&mut copy);
    copy
}

#[test]
fn lines_and_offsets_at_the_limits_stay_finite_at_extreme_frames() {
    let doc = &curves()[0].1; // line before, loop with an offset after
    let bytes = compile(doc, Precision::F64);
    let before = record(&bytes, false);
    let after = record(&bytes, true);
    let mut limit = patched(&bytes, before + 16, &MAX_LINE_VALUE.to_le_bytes());
    limit = patched(&limit, before + 48, &(-MAX_OUTSIDE_RATE).to_le_bytes());
    limit = patched(&limit, after + 16, &MAX_OUTSIDE_RATE.to_le_bytes());
    let stream = Stream::from_bytes(&limit).unwrap_or_else(|e| panic!("{e}"));
    let track = stream.track(0).unwrap();
    assert!(matches!(
        track.outside().map(|o| o.after),
        Some(Beyond::Loop { .. })
    ));
    let mut player = TrackPlayer::new(track);
    let extremes = [f64::MAX, -f64::MAX, 1e300, -1e300, 1e16, -1e16, 2e15 + 0.5];
    for frame in extremes {
        player.seek(frame).unwrap();
        assert!(player.value()[0].is_finite(), "frame {frame}");
        for step in [1.0, -1.0, 1e300, -1e300, 0.37] {
            player.set_step(step).unwrap();
            for _ in 0..3 {
                player.advance();
                assert!(player.value()[0].is_finite(), "frame {frame} step {step}");
            }
            player.seek(frame).unwrap();
        }
    }
    // Beyond the limits: refused.
    let over = patched(&bytes, after + 16, &(MAX_OUTSIDE_RATE * 2.0).to_le_bytes());
    assert!(matches!(
        Stream::from_bytes(&over),
        Err(StreamError::BadNumber {
            field: "outside after: value / offset",
            ..
        })
    ));
}

#[test]
fn crafted_outside_records_are_refused_with_their_field() {
    let doc = &curves()[0].1;
    let bytes = compile(doc, Precision::F64);
    let before = record(&bytes, false);
    let after = record(&bytes, true);
    let error = |at: usize, patch: &[u8]| {
        Stream::from_bytes(&patched(&bytes, at, patch)).expect_err("crafted record accepted")
    };
    assert!(matches!(
        error(before, &[9]),
        StreamError::UnknownCode {
            field: "outside before: kind",
            found: 9,
            ..
        }
    ));
    assert!(matches!(
        error(after + 3, &[1]),
        StreamError::ReservedNotZero {
            field: "outside after: reserved bytes",
            ..
        }
    ));
    for period in [0.0, -1.0, 10.5, f64::NAN] {
        assert!(matches!(
            error(after + 8, &period.to_le_bytes()),
            StreamError::BadNumber {
                field: "outside after: period",
                ..
            }
        ));
    }
    // A line has no period; an unused component must be 0; numbers must be finite.
    assert!(matches!(
        error(before + 8, &1.0f64.to_le_bytes()),
        StreamError::BadNumber {
            field: "outside before: period",
            ..
        }
    ));
    assert!(matches!(
        error(before + 16 + 8, &1.0f64.to_le_bytes()),
        StreamError::BadNumber {
            field: "outside before: value / offset",
            ..
        }
    ));
    assert!(matches!(
        error(before + 48, &f64::INFINITY.to_le_bytes()),
        StreamError::BadNumber {
            field: "outside before: slope",
            ..
        }
    ));
    // A loop has no slope.
    assert!(matches!(
        error(after + 48, &1.0f64.to_le_bytes()),
        StreamError::BadNumber {
            field: "outside after: slope",
            ..
        }
    ));
    // The record replaces the wrap, which must be clamp.
    assert!(matches!(
        error(HEADER_SIZE + T_WRAP, &[1]),
        StreamError::UnknownCode {
            field: "wrap (with an outside record)",
            ..
        }
    ));
    // Version 1 has no records: the flag is a reserved byte there.
    assert!(matches!(
        error(H_VERSION, &1u16.to_le_bytes()),
        StreamError::ReservedNotZero {
            field: "track reserved bytes",
            ..
        }
    ));
    // Without the flag the record is bytes no region accounts for.
    assert!(matches!(
        error(HEADER_SIZE + T_OUTSIDE, &[0]),
        StreamError::LayoutMismatch { .. }
    ));
}

#[test]
fn every_truncation_and_byte_flip_of_a_record_is_refused_or_plays_finite_values() {
    let doc = &curves()[2].1;
    let bytes = compile(doc, Precision::F32);
    for len in 0..bytes.len() {
        assert!(Stream::from_bytes(&bytes[..len]).is_err(), "length {len}");
    }
    let start = record(&bytes, false);
    for at in start..start + 160 {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut copy = bytes.clone();
            copy[at] ^= flip;
            fix_checksum(&mut copy);
            let Ok(stream) = Stream::from_bytes(&copy) else {
                continue;
            };
            let mut player = TrackPlayer::new(stream.track(0).unwrap());
            for frame in [-1e12, -31.5, -3.0, 0.5, 9.5, 12.25, 40.0, 1e12] {
                player.seek(frame).unwrap();
                player.advance();
                assert!(player.value()[0].is_finite(), "byte {at} ^ {flip:#x}");
            }
        }
    }
}

#[test]
fn tracks_that_hold_or_wrap_alike_on_both_sides_stay_version_1() {
    for (fcurve, wrap) in [
        (r#"{"extrapolation":"constant"}"#, 0u8),
        (r#"{"cycles":{"before":"repeat","after":"repeat"}}"#, 1),
        (r#"{"cycles":{"before":"mirror","after":"mirror"}}"#, 2),
    ] {
        let bytes = compile(&curve_doc(SMOOTH_KEYS, fcurve), Precision::F64);
        assert_eq!(read_u16(&bytes, H_VERSION), FORMAT_VERSION, "{fcurve}");
        assert_eq!(read_u8(&bytes, HEADER_SIZE + T_WRAP), wrap, "{fcurve}");
        assert!(Stream::from_bytes(&bytes)
            .unwrap()
            .track(0)
            .unwrap()
            .outside()
            .is_none());
    }
}
