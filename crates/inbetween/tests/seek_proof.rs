//! The compiler's proofs for seeks and frames between integer frames (`compile::seek`): what it claims holds at the proof's worst cases, and where the bound is too loose it plays every seek.

mod stream_support;

use inbetween::compile::{CurveSource, TrackProof, MAX_PROVEN_STEP, MIN_PROVEN_STEP};
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream, StreamTrack, StreamValueType, StreamWrap};
use stream_support::*;

/// The largest |played − exact| over the positions `from + k · step` inside `[first, last)`,
/// played by one cursor seeked to `from`.
fn worst_along(track: StreamTrack<'_>, source: &dyn CurveSource, from: f64, step: f64) -> f64 {
    let (first, last) = (track.first_frame(), track.last_frame());
    let mut player = TrackPlayer::new(track);
    player.seek(from).unwrap();
    player.set_step(step).unwrap();
    let mut exact = [0.0; 4];
    let mut worst = 0.0f64;
    let mut frame = from;
    let mut k = 0u64;
    while frame >= first && frame < last {
        source.eval(frame, &mut exact).unwrap();
        let value = player.value();
        for c in 0..track.components() {
            worst = worst.max((value[c] - exact[c]).abs());
        }
        player.advance();
        k += 1;
        frame = from + k as f64 * step;
    }
    worst
}

fn pieces(track: StreamTrack<'_>) -> usize {
    track.summary().pieces
}

#[test]
fn polynomial_pieces_are_proven_between_frames_and_hold_at_the_proofs_worst_steps() {
    let source = mixed_polynomials(1.0);
    for precision in PRECISIONS {
        let compiled = compile_one(
            &source,
            StreamValueType::Scalar,
            StreamWrap::Clamp,
            precision,
            None,
        );
        let proof = compiled.reports[0].proof;
        let tolerance = compiled.reports[0].summary.tolerance;
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let track = stream.track(0).unwrap();
        let n = pieces(track);
        assert_eq!(
            (proof.between_proven, proof.between_sampled),
            (n, 0),
            "{precision}: {proof:?}"
        );
        if precision != Precision::Fixed {
            assert_eq!(proof.seeks_by_bound, n, "{precision}: {proof:?}");
        }
        // The proof's worst cases: the slowest and fastest steps it covers (most additions,
        // largest step conversion), both directions, entered at fractional offsets near the
        // pieces' ends, and fractional seeks.
        for step in [
            MIN_PROVEN_STEP,
            -MIN_PROVEN_STEP,
            MAX_PROVEN_STEP,
            -MAX_PROVEN_STEP,
            0.37,
            -2.5,
        ] {
            for from in [0.0, 11.999, 12.0 + 1.0 / 3.0, 39.75, 40.0001, 79.9] {
                let worst = worst_along(track, &source, from, step);
                assert!(
                    worst <= tolerance,
                    "{precision} from {from} step {step}: {worst:e} > {tolerance:e}"
                );
            }
        }
    }
}

#[test]
fn smooth_spans_stay_sampled_between_frames() {
    let source = smooth_vec2();
    for precision in [Precision::F32, Precision::F64] {
        let compiled = compile_one(
            &source,
            StreamValueType::Vec2,
            StreamWrap::Clamp,
            precision,
            None,
        );
        let proof = compiled.reports[0].proof;
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let n = pieces(stream.track(0).unwrap());
        assert_eq!(
            (proof.between_proven, proof.between_sampled),
            (0, n),
            "{precision}"
        );
        assert_eq!(proof.seeks_by_bound + proof.seeks_played, n, "{precision}");
    }
}

/// Every integer seek inside the keys, then forward to the end and backward to the start:
/// within `tolerance` of `eval` (less the few ulps exact evaluation itself may differ by).
fn assert_every_integer_seek_holds(
    track: StreamTrack<'_>,
    eval: &dyn Fn(f64) -> [f64; 4],
    tolerance: f64,
) {
    let (first, last) = (track.first_frame().ceil(), track.last_frame());
    let mut k = first;
    while k < last {
        for step in [1.0, -1.0] {
            let mut player = TrackPlayer::new(track);
            player.seek(k).unwrap();
            player.set_step(step).unwrap();
            let mut frame = k;
            while frame >= first && frame < last {
                let (value, exact) = (player.value(), eval(frame));
                for c in 0..track.components() {
                    let error = (value[c] - exact[c]).abs() - 16.0 * f64::EPSILON * exact[c].abs();
                    assert!(
                        error <= tolerance,
                        "{}: seek {k} step {step} frame {frame}: {error:e} > {tolerance:e}",
                        track.name()
                    );
                }
                player.advance();
                frame += step;
            }
        }
        k += 1.0;
    }
}

#[test]
fn values_too_large_for_the_bound_have_every_seek_played_and_within_the_tolerance() {
    // Values of 1e12 with a tolerance of 1e-2: the rounding bound (u × 1e12 × the piece's
    // additions) exceeds the tolerance, so the compiler plays each seek instead.
    let source = mixed_polynomials(1e11);
    let precision = Precision::F64;
    let compiled = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::Clamp,
        precision,
        Some(1e-2),
    );
    let proof: TrackProof = compiled.reports[0].proof;
    assert!(proof.seeks_played > 0, "{precision}: {proof:?}");
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let track = stream.track(0).unwrap();
    assert!(track.max_error() <= 1e-2);
    let eval = |f: f64| {
        let mut out = [0.0; 4];
        source.eval(f, &mut out).unwrap();
        out
    };
    assert_every_integer_seek_holds(track, &eval, 1e-2);
}

#[test]
fn showcase_seeks_are_proven_or_played_and_hold() {
    for precision in [Precision::F32, Precision::F64] {
        let (doc, compiled) = compiled_showcase(precision);
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let mut proven_between = 0;
        for ((track, source), report) in stream.tracks().zip(doc.tracks()).zip(&compiled.reports) {
            let proof = report.proof;
            assert_eq!(
                proof.seeks_by_bound + proof.seeks_played,
                pieces(track),
                "{precision} {}",
                track.name()
            );
            assert_eq!(proof.between_proven + proof.between_sampled, pieces(track));
            proven_between += proof.between_proven;
            eprintln!("{precision} {} {proof:?}", track.name());
            if track.wrap() != StreamWrap::Clamp || track.outside().is_some() {
                continue;
            }
            let eval = |f: f64| {
                let v = source.eval(f);
                let mut out = [0.0; 4];
                for (o, x) in out.iter_mut().zip(v.iter()) {
                    *o = *x;
                }
                out
            };
            assert_every_integer_seek_holds(track, &eval, track.tolerance());
        }
        assert!(
            proven_between > 0,
            "{precision}: no piece proven between frames"
        );
    }
}
