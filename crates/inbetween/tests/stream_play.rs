//! Player tests: seek equals play, backward equals forward reversed, rates and wraps match exact evaluation.

mod stream_support;

use inbetween::compile::CurveSource;
use inbetween::player::{Player, PlayerError, TrackPlayer};
use inbetween::stream::{Precision, Stream, StreamValueType, StreamWrap};
use stream_support::*;

/// Values at frames `from, from + 1, …` (`count` of them), played from `from`.
fn play(
    track: inbetween::stream::StreamTrack<'_>,
    from: f64,
    step: f64,
    count: usize,
) -> Vec<[f64; 4]> {
    let mut player = TrackPlayer::new(track);
    player.seek(from).unwrap();
    player.set_step(step).unwrap();
    (0..count)
        .map(|_| {
            let v = player.value();
            player.advance();
            v
        })
        .collect()
}

fn max_diff(a: &[[f64; 4]], b: &[[f64; 4]]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()))
        .fold(0.0, f64::max)
}

#[test]
fn seek_then_play_equals_play_from_start() {
    let source = smooth_vec2();
    for precision in PRECISIONS {
        let compiled = compile_one(
            &source,
            StreamValueType::Vec2,
            StreamWrap::Clamp,
            precision,
            None,
        );
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let track = stream.track(0).unwrap();
        let all = play(track, 0.0, 1.0, 161);
        for from in [0usize, 1, 19, 20, 21, 57, 95, 96, 140, 160] {
            let part = play(track, from as f64, 1.0, 161 - from);
            let diff = max_diff(&part, &all[from..]);
            if precision == Precision::Fixed {
                assert_eq!(diff, 0.0, "fixed is bit-exact from {from}");
            } else {
                assert!(diff <= 1e-12, "{precision} from {from}: {diff:e}");
            }
        }
    }
}

#[test]
fn backward_play_equals_forward_play_reversed() {
    let source = smooth_vec2();
    for precision in PRECISIONS {
        let compiled = compile_one(
            &source,
            StreamValueType::Vec2,
            StreamWrap::Clamp,
            precision,
            None,
        );
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let track = stream.track(0).unwrap();
        let forward = play(track, 0.0, 1.0, 161);
        let mut backward = play(track, 160.0, -1.0, 161);
        backward.reverse();
        let diff = max_diff(&forward, &backward);
        if precision == Precision::Fixed {
            assert_eq!(diff, 0.0, "fixed backward play is bit-exact");
        } else {
            assert!(diff <= 1e-12, "{precision}: {diff:e}");
        }
    }
}

/// The compiler measures backward play at step −1 too (from a seek to the last measured frame,
/// entering every piece from its end): playing so stays within the stored maximum error against
/// exact evaluation at every integer frame, holds included (clamp: one frame each side).
#[test]
fn backward_play_stays_within_the_stored_max_error() {
    let smooth = smooth_vec2();
    let mixed = mixed_polynomials(1.0);
    let sources: [(&dyn CurveSource, StreamValueType); 2] = [
        (&smooth, StreamValueType::Vec2),
        (&mixed, StreamValueType::Scalar),
    ];
    for (source, value_type) in sources {
        for precision in PRECISIONS {
            let compiled = compile_one(source, value_type, StreamWrap::Clamp, precision, None);
            let stream = Stream::from_bytes(&compiled.bytes).unwrap();
            let track = stream.track(0).unwrap();
            let (first, last) = (source.first_frame(), source.last_frame());
            let count = (last - first) as usize + 3;
            let played = play(track, last + 1.0, -1.0, count);
            let mut worst = 0.0f64;
            for (m, value) in played.iter().enumerate() {
                let frame = (last + 1.0 - m as f64).clamp(first, last);
                let mut exact = [0.0; 4];
                source.eval(frame, &mut exact).unwrap();
                for (v, e) in value.iter().zip(&exact).take(source.components()) {
                    worst = worst.max((v - e).abs());
                }
            }
            assert!(
                worst <= track.max_error() * (1.0 + 1e-9),
                "{precision} {value_type:?}: backward {worst:e} > stored {:e}",
                track.max_error()
            );
        }
    }
}

/// The same on the showcase's `clamp` tracks without outside records (every segment kind and
/// ease family), compiled by `Document::compile`, against `Track::eval`.
#[test]
fn showcase_backward_play_stays_within_the_stored_max_error() {
    for precision in [Precision::F32, Precision::F64] {
        let (doc, compiled) = compiled_showcase(precision);
        let bytes = compiled.bytes;
        let stream = Stream::from_bytes(&bytes).unwrap();
        let mut checked = 0;
        for (track, source) in stream.tracks().zip(doc.tracks()) {
            if track.wrap() != StreamWrap::Clamp || track.outside().is_some() {
                continue;
            }
            let (first, last) = (track.first_frame().ceil(), track.last_frame().floor());
            let count = (last - first) as usize + 3;
            let played = play(track, last + 1.0, -1.0, count);
            // Exact evaluation here and the compiler's exact values agree to a few ulps of
            // the value: the error is measured past that rounding.
            let mut worst = 0.0f64;
            for (m, value) in played.iter().enumerate() {
                let exact = source.eval(last + 1.0 - m as f64);
                for (v, e) in value.iter().zip(exact.iter()).take(track.components()) {
                    worst = worst.max((v - e).abs() - 16.0 * f64::EPSILON * e.abs());
                }
            }
            assert!(
                worst <= track.max_error(),
                "{precision} {}: backward {worst:e} > stored {:e}",
                track.name(),
                track.max_error()
            );
            checked += 1;
        }
        assert!(checked >= 8, "{checked} clamp tracks");
    }
}

#[test]
fn other_rates_match_exact_evaluation_at_fractional_frames() {
    let source = smooth_vec2();
    for precision in PRECISIONS {
        let compiled = compile_one(
            &source,
            StreamValueType::Vec2,
            StreamWrap::Clamp,
            precision,
            None,
        );
        let tolerance = compiled.reports[0].summary.tolerance;
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let track = stream.track(0).unwrap();
        for (from, step) in [
            (0.0, 60.0 / 144.0),
            (0.0, 0.5),
            (3.25, 2.5),
            (160.0, -60.0 / 144.0),
            (100.0, -0.3),
        ] {
            let count = (160.0_f64 / step).abs() as usize;
            let values = play(track, from, step, count);
            let mut exact = [0.0; 4];
            for (k, v) in values.iter().enumerate() {
                let frame = (from + k as f64 * step).clamp(0.0, 160.0);
                source.eval(frame, &mut exact).unwrap();
                for c in 0..2 {
                    assert!(
                        (v[c] - exact[c]).abs() <= tolerance,
                        "{precision} step {step} frame {frame}: {} vs {} ({:e} > {tolerance:e})",
                        v[c],
                        exact[c],
                        (v[c] - exact[c]).abs()
                    );
                }
            }
        }
    }
}

#[test]
fn exact_polynomials_play_exactly_at_any_rate() {
    let source = mixed_polynomials(1.0);
    let compiled = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::Clamp,
        Precision::F64,
        Some(1e-9),
    );
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let track = stream.track(0).unwrap();
    let step = 60.0 / 144.0;
    let values = play(track, 0.0, step, 193);
    let mut exact = [0.0; 4];
    for (k, v) in values.iter().enumerate() {
        let frame = k as f64 * step;
        source.eval(frame, &mut exact).unwrap();
        assert_close!(v[0], exact[0], 1e-11, "frame {frame}");
    }
}

#[test]
fn wrap_modes_follow_the_spec_at_every_frame() {
    // Fractional first and last keys: wrapped integer frames land between frames.
    let source = FnSource {
        components: 1,
        breaks: vec![0.5, 7.0, 20.25],
        f: |f: f64| [(f / 3.0).sin() * 5.0 + f, 0.0, 0.0, 0.0],
    };
    for wrap in [StreamWrap::Clamp, StreamWrap::Loop, StreamWrap::PingPong] {
        for precision in PRECISIONS {
            let compiled = compile_one(&source, StreamValueType::Scalar, wrap, precision, None);
            let tolerance = compiled.reports[0].summary.tolerance;
            let stream = Stream::from_bytes(&compiled.bytes).unwrap();
            let track = stream.track(0).unwrap();
            let mut exact = [0.0; 4];
            for step in [1.0, -1.0, 0.75] {
                let from = if step > 0.0 { -60.0 } else { 80.0 };
                let values = play(track, from, step, 180);
                for (k, v) in values.iter().enumerate() {
                    let frame = from + k as f64 * step;
                    let w = wrap_frame(wrap, 0.5, 20.25, frame);
                    source.eval(w, &mut exact).unwrap();
                    assert!(
                        (v[0] - exact[0]).abs() <= tolerance,
                        "{wrap:?} {precision} step {step} frame {frame} → {w}: {} vs {}",
                        v[0],
                        exact[0]
                    );
                    // Random access agrees with sequential play.
                    let mut probe = TrackPlayer::new(track);
                    probe.seek(frame).unwrap();
                    assert!(
                        (probe.component(0) - v[0]).abs()
                            <= 1e-9 * tolerance.max(1e-6)
                                + if precision == Precision::F32 {
                                    1e-9
                                } else {
                                    0.0
                                }
                            || (probe.component(0) - v[0]).abs() <= 1e-12,
                        "{wrap:?} {precision} seek {frame}: {} vs {}",
                        probe.component(0),
                        v[0]
                    );
                }
            }
        }
    }
}

#[test]
fn ping_pong_turns_at_the_ends_with_steps_in_the_curve() {
    let source = mixed_polynomials(1.0);
    let compiled = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::PingPong,
        Precision::Fixed,
        None,
    );
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let track = stream.track(0).unwrap();
    let values = play(track, 0.0, 1.0, 400);
    let mut exact = [0.0; 4];
    for (k, v) in values.iter().enumerate() {
        source
            .eval(
                wrap_frame(StreamWrap::PingPong, 0.0, 80.0, k as f64),
                &mut exact,
            )
            .unwrap();
        assert_close!(v[0], exact[0], 1e-6, "frame {k}");
    }
}

#[test]
fn player_over_all_tracks_writes_in_column_order() {
    use inbetween::compile::{compile_tracks, CompileOptions, TrackInput};
    let a = mixed_polynomials(1.0);
    let b = smooth_vec2();
    let inputs = [
        TrackInput {
            name: "a",
            value_type: StreamValueType::Scalar,
            wrap: StreamWrap::Loop,
            source: &a,
        },
        TrackInput {
            name: "b",
            value_type: StreamValueType::Vec2,
            wrap: StreamWrap::Clamp,
            source: &b,
        },
    ];
    let compiled = compile_tracks(&inputs, 30.0, &CompileOptions::default()).unwrap();
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    assert_eq!(stream.fps(), 30.0);
    assert_eq!(stream.total_components(), 3);
    let mut too_few = [TrackPlayer::default(); 1];
    assert_eq!(
        Player::new(&stream, &mut too_few).unwrap_err(),
        PlayerError::TooFewSlots {
            needed: 2,
            found: 1
        }
    );
    let mut slots = [TrackPlayer::default(); 4];
    let mut player = Player::new(&stream, &mut slots).unwrap();
    player.seek(10.0).unwrap();
    let mut row = [0.0; 3];
    assert_eq!(player.write(&mut row), 3);
    let (mut ea, mut eb) = ([0.0; 4], [0.0; 4]);
    a.eval(10.0, &mut ea).unwrap();
    b.eval(10.0, &mut eb).unwrap();
    assert_close!(row[0], ea[0], 1e-6);
    assert_close!(row[1], eb[0], 1e-5);
    assert_close!(row[2], eb[1], 1e-5);
    assert!(matches!(
        player.seek(f64::NAN),
        Err(PlayerError::NonFiniteFrame { .. })
    ));
    assert!(matches!(
        player.set_step(0.0),
        Err(PlayerError::InvalidStep { .. })
    ));
}

/// FNV-1a over the bits of every played value.
fn played_hash(bytes: &[u8], frames: usize) -> u64 {
    let stream = Stream::from_bytes(bytes).unwrap();
    let mut player = TrackPlayer::new(stream.track(0).unwrap());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for _ in 0..frames {
        for byte in player.component(0).to_bits().to_le_bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        player.advance();
    }
    hash
}

#[test]
fn fixed_point_playback_is_pinned_bit_for_bit() {
    // Exact polynomial spans compile with + − × ÷ only, so the integers (and the played values,
    // `I_0 · 2^-e`) are the same on every platform. If this hash changes, the stream changed.
    let source = mixed_polynomials(1.0);
    let compiled = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::PingPong,
        Precision::Fixed,
        None,
    );
    let hash = played_hash(&compiled.bytes, 400);
    assert_eq!(hash, played_hash(&compiled.bytes, 400));
    assert_eq!(
        hash, 0xb8e9_edb4_f74d_7f1f,
        "pinned hash of the fixed-point playback: {hash:#018x}"
    );
}
