//! Compiler tests: exact polynomials keep their degree, fitted curves hold the tolerance at every frame in every precision.

mod stream_support;

use inbetween::compile::{compile_tracks, CompileError, CompileOptions, CurveSource, TrackInput};
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream, StreamValueType, StreamWrap};
use stream_support::*;

/// [`independent_max_error_of`] track 0 of `bytes`.
fn independent_max_error(bytes: &[u8], source: &dyn CurveSource) -> f64 {
    let stream = Stream::from_bytes(bytes).unwrap();
    independent_max_error_of(stream.track(0).unwrap(), source)
}

/// Plays `track` from its first integer frame and returns the largest error against `source`
/// (checked by the test itself, not by the compiler).
fn independent_max_error_of(
    track: inbetween::stream::StreamTrack<'_>,
    source: &dyn CurveSource,
) -> f64 {
    let mut player = TrackPlayer::new(track);
    let first = track.first_frame().ceil();
    player.seek(first).unwrap();
    let (mut worst, mut frame, mut exact) = (0.0f64, first, [0.0; 4]);
    while frame <= track.last_frame() {
        source.eval(frame, &mut exact).unwrap();
        for (c, e) in exact.iter().enumerate().take(track.components()) {
            worst = worst.max((player.component(c) - e).abs());
        }
        player.advance();
        frame += 1.0;
    }
    worst
}

#[test]
fn exact_cubic_compiles_to_degree_three_with_no_error() {
    // 100 · smoothstep over 240 frames: 300 v² − 200 v³.
    let source = PolySource::scalar(0.0, 240.0, &[0.0, 0.0, 300.0, -200.0]);
    for precision in [Precision::F64, Precision::F32] {
        let compiled = compile_one(
            &source,
            StreamValueType::Scalar,
            StreamWrap::Clamp,
            precision,
            None,
        );
        let report = &compiled.reports[0];
        assert_eq!(report.summary.pieces, 1, "{precision}");
        assert_eq!(report.summary.max_degree, 3);
        assert_eq!(report.summary.degree_histogram[3], 1);
        let error = independent_max_error(&compiled.bytes, &source);
        let bound = if precision == Precision::F64 {
            1e-11
        } else {
            1e-4
        };
        assert!(error <= bound, "{precision}: {error:e}");
        assert_eq!(error, report.summary.max_error);
    }
}

#[test]
fn negligible_top_coefficients_are_dropped() {
    // A linear span written as a quartic whose top coefficients are rounding noise.
    let source = PolySource::scalar(0.0, 30.0, &[1.0, 2.0, 1e-17, -2e-18, 1e-19]);
    let compiled = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::Clamp,
        Precision::F64,
        None,
    );
    assert_eq!(compiled.reports[0].summary.max_degree, 1);
}

#[test]
fn steps_become_constant_pieces_and_jump_at_the_key() {
    let source = PolySource {
        components: 1,
        spans: vec![
            (0.0, 10.0, vec![[1.0, 0.0, 0.0, 0.0]]),
            (10.0, 20.0, vec![[5.0, 0.0, 0.0, 0.0]]),
        ],
        end_value: [7.0, 0.0, 0.0, 0.0],
    };
    let compiled = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::Clamp,
        Precision::F64,
        None,
    );
    assert_eq!(compiled.reports[0].summary.degree_histogram[0], 2);
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let mut player = TrackPlayer::new(stream.track(0).unwrap());
    let mut values = Vec::new();
    for _ in 0..=21 {
        values.push(player.component(0));
        player.advance();
    }
    assert_eq!(values[9], 1.0);
    assert_eq!(values[10], 5.0);
    assert_eq!(values[19], 5.0);
    assert_eq!(values[20], 7.0, "the last key's own value");
    assert_eq!(values[21], 7.0, "clamped");
    assert_eq!(compiled.reports[0].summary.additions_per_frame, 0.0);
}

#[test]
fn smooth_curves_hold_the_tolerance_at_every_frame_in_every_precision() {
    let source = FnSource {
        components: 2,
        breaks: vec![0.0, 37.5, 300.0],
        f: |f: f64| {
            [
                100.0 * (f / 23.0).sin(),
                50.0 * (f / 40.0).cos() + (f / 100.0).exp(),
                0.0,
                0.0,
            ]
        },
    };
    for precision in PRECISIONS {
        let compiled = compile_one(
            &source,
            StreamValueType::Vec2,
            StreamWrap::Clamp,
            precision,
            None,
        );
        let report = &compiled.reports[0].summary;
        let tolerance = 1e-6 * 100.0_f64.max(50.0 + 20.0);
        assert!(
            report.tolerance <= 1e-4 + 1e-12,
            "{precision}: tolerance {}",
            report.tolerance
        );
        let error = independent_max_error(&compiled.bytes, &source);
        assert!(
            error <= report.tolerance,
            "{precision}: {error:e} > {:e}",
            report.tolerance
        );
        assert!(
            report.max_degree <= 8 && report.max_degree >= 3,
            "{precision}: {report:?}"
        );
        let _ = tolerance;
    }
}

#[test]
fn slerp_quaternions_play_within_tolerance_without_normalization() {
    for frames in [60.0, 240.0] {
        let source = slerp_source(frames, 170f64.to_radians());
        for precision in PRECISIONS {
            // `normalize: false`: the components fitted and played as they are.
            let options = CompileOptions {
                precision,
                normalize: false,
                ..CompileOptions::default()
            };
            let input = TrackInput {
                name: "t",
                value_type: StreamValueType::Quat,
                wrap: StreamWrap::Clamp,
                source: &source,
            };
            let compiled = compile_tracks(&[input], 60.0, &options).unwrap();
            let error = independent_max_error(&compiled.bytes, &source);
            assert!(error <= 1e-6, "{frames} frames {precision}: {error:e}");
            // One whole-span fit of degree ≤ 6 suffices in every precision (docs/stream-format.md).
            assert!(error <= 6e-7, "{frames} frames {precision}: {error:e}");
            assert!(compiled.reports[0].summary.max_degree <= 6);
            {
                assert_eq!(
                    compiled.reports[0].summary.pieces, 1,
                    "{:?}",
                    compiled.reports[0]
                );
            }
        }
    }
}

#[test]
fn fractional_key_frames_are_played_at_integer_frames() {
    let source = FnSource {
        components: 1,
        breaks: vec![0.5, 10.25, 30.7],
        f: |f: f64| [(f * 0.2).sin() * 3.0 + f * 0.1, 0.0, 0.0, 0.0],
    };
    for precision in PRECISIONS {
        let compiled = compile_one(
            &source,
            StreamValueType::Scalar,
            StreamWrap::Clamp,
            precision,
            None,
        );
        let error = independent_max_error(&compiled.bytes, &source);
        assert!(
            error <= compiled.reports[0].summary.tolerance,
            "{precision}: {error:e}"
        );
        assert_eq!(compiled.reports[0].summary.frames, 30, "frames 1..=30");
    }
}

#[test]
fn an_unreachable_tolerance_fails_with_track_frame_and_error() {
    let source = FnSource {
        components: 1,
        breaks: vec![0.0, 50.0],
        f: |f: f64| [(f / 7.0).sin() + 0.3, 0.0, 0.0, 0.0],
    };
    let options = CompileOptions {
        tolerance: Some(1e-18),
        precision: Precision::F64,
        max_degree: 8,
        ..CompileOptions::default()
    };
    let input = TrackInput {
        name: "wobble",
        value_type: StreamValueType::Scalar,
        wrap: StreamWrap::Clamp,
        source: &source,
    };
    match compile_tracks(&[input], 60.0, &options) {
        Err(CompileError::ToleranceExceeded {
            track,
            frame,
            error,
            tolerance,
            precision,
            ..
        }) => {
            assert_eq!(track, "wobble");
            assert!((0.0..50.0).contains(&frame));
            assert!(error > tolerance && tolerance == 1e-18);
            assert_eq!(precision, Precision::F64);
        }
        other => panic!("expected ToleranceExceeded, got {other:?}"),
    }
}

#[test]
fn max_degree_is_respected_and_lower_degrees_need_more_pieces() {
    let source = FnSource {
        components: 1,
        breaks: vec![0.0, 120.0],
        f: |f: f64| [(f / 15.0).sin(), 0.0, 0.0, 0.0],
    };
    let mut previous_pieces = 0;
    for max_degree in [8u8, 4, 2, 0] {
        let options = CompileOptions {
            tolerance: Some(1e-5),
            precision: Precision::F64,
            max_degree,
            ..CompileOptions::default()
        };
        let input = TrackInput {
            name: "s",
            value_type: StreamValueType::Scalar,
            wrap: StreamWrap::Clamp,
            source: &source,
        };
        let compiled = compile_tracks(&[input], 60.0, &options).unwrap();
        let summary = &compiled.reports[0].summary;
        assert!(summary.max_degree <= max_degree);
        assert!(
            summary.pieces >= previous_pieces,
            "{max_degree}: {summary:?}"
        );
        assert!(independent_max_error(&compiled.bytes, &source) <= 1e-5);
        previous_pieces = summary.pieces;
    }
}

#[test]
fn invalid_options_are_refused() {
    let source = PolySource::scalar(0.0, 10.0, &[0.0, 1.0]);
    let input = TrackInput {
        name: "x",
        value_type: StreamValueType::Scalar,
        wrap: StreamWrap::Clamp,
        source: &source,
    };
    let bad =
        |options: CompileOptions, fps: f64| compile_tracks(&[input], fps, &options).unwrap_err();
    assert!(matches!(
        bad(
            CompileOptions {
                max_degree: 9,
                ..Default::default()
            },
            60.0
        ),
        CompileError::InvalidOption {
            option: "max_degree",
            ..
        }
    ));
    assert!(matches!(
        bad(
            CompileOptions {
                tolerance: Some(0.0),
                ..Default::default()
            },
            60.0
        ),
        CompileError::InvalidOption {
            option: "tolerance",
            ..
        }
    ));
    assert!(matches!(
        bad(
            CompileOptions {
                tolerance: Some(f64::NAN),
                ..Default::default()
            },
            60.0
        ),
        CompileError::InvalidOption {
            option: "tolerance",
            ..
        }
    ));
    assert!(matches!(
        bad(CompileOptions::default(), 0.0),
        CompileError::InvalidOption { option: "fps", .. }
    ));
    let wrong_type = TrackInput {
        value_type: StreamValueType::Vec3,
        ..input
    };
    assert!(matches!(
        compile_tracks(&[wrong_type], 60.0, &CompileOptions::default()),
        Err(CompileError::InvalidSource { .. })
    ));
}

#[test]
fn default_tolerance_scales_with_the_key_values() {
    let source = PolySource::scalar(0.0, 10.0, &[0.0, 5000.0]);
    let compiled = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::Clamp,
        Precision::F64,
        None,
    );
    assert_eq!(compiled.reports[0].summary.tolerance, 5000.0 * 1e-6);
    let small = PolySource::scalar(0.0, 10.0, &[0.0, 0.25]);
    let compiled = compile_one(
        &small,
        StreamValueType::Scalar,
        StreamWrap::Clamp,
        Precision::F64,
        None,
    );
    assert_eq!(
        compiled.reports[0].summary.tolerance, 1e-6,
        "scale is at least 1"
    );
}

#[test]
fn fixed_point_splits_long_high_degree_pieces_and_stays_within_tolerance() {
    // A degree-7 polynomial over 2000 frames cannot be one i64 piece at 1e-6.
    let source = PolySource::scalar(0.0, 2000.0, &[0.0, 3.0, -5.0, 8.0, -2.0, 1.0, -4.0, 0.5]);
    let compiled = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::Clamp,
        Precision::Fixed,
        None,
    );
    let summary = &compiled.reports[0].summary;
    assert!(summary.pieces > 1, "{summary:?}");
    assert!(independent_max_error(&compiled.bytes, &source) <= summary.tolerance);
}

#[test]
fn constant_single_key_tracks_have_no_pieces() {
    let source = PolySource {
        components: 3,
        spans: vec![],
        end_value: [1.0, 2.0, 3.0, 0.0],
    };
    // PolySource with no spans: first = last = 0.
    let compiled = compile_one(
        &source,
        StreamValueType::Vec3,
        StreamWrap::Loop,
        Precision::Fixed,
        None,
    );
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let mut player = TrackPlayer::new(stream.track(0).unwrap());
    for frame in [-5.0, 0.0, 3.5, 100.0] {
        player.seek(frame).unwrap();
        assert_eq!(player.value(), [1.0, 2.0, 3.0, 0.0]);
    }
}

#[test]
fn f32_long_pieces_stay_flat() {
    // f32 numbers in an f64 state: one piece over 60 000 frames within 1e-7 of scale 100
    // (pure f32 additions drift to ~2.6e-4 here).
    let source = PolySource::scalar(0.0, 60000.0, &[0.0, 0.0, 300.0, -200.0]);
    let compiled = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::Clamp,
        Precision::F32,
        None,
    );
    assert_eq!(compiled.reports[0].summary.pieces, 1);
    let error = independent_max_error(&compiled.bytes, &source);
    assert!(error <= 1e-7 * 100.0, "{error:e}");
    let fixed = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::Clamp,
        Precision::Fixed,
        None,
    );
    assert!(independent_max_error(&fixed.bytes, &source) <= 1e-6 * 100.0);
}

#[test]
fn sub_frame_spans_too_steep_for_f32_keep_their_track_in_f64() {
    // A degree-8 polynomial over 0.4 frames: its unit-step differences are ~1e5 × its values;
    // in f32 it was split (and stored wide); in f64 it is one piece, so the track stays f64.
    let coeffs = [0.0, 30.0, -20.0, 10.0, 40.0, -60.0, 35.0, -20.0, 9.0];
    let source = PolySource::scalar(3.3, 3.7, &coeffs);
    let compiled = compile_one(
        &source,
        StreamValueType::Scalar,
        StreamWrap::Clamp,
        Precision::F32,
        Some(1e-7),
    );
    assert!(compiled.reports[0].kept_in_f64.is_some_and(|e| e > 1e-7));
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let track = stream.track(0).unwrap();
    assert_eq!(track.precision(), Precision::F64);
    assert_eq!(track.piece_count(), 1);
    let mut player = TrackPlayer::new(track);
    let mut exact = [0.0; 4];
    for k in 0..=40 {
        let frame = 3.3 + k as f64 * 0.01;
        player.seek(frame).unwrap();
        source.eval(frame, &mut exact).unwrap();
        assert_close!(player.component(0), exact[0], 1e-7, "frame {frame}");
    }
}

#[test]
fn played_quaternions_stay_within_twice_the_tolerance_of_unit_length() {
    let source = slerp_source(240.0, 175f64.to_radians());
    for precision in PRECISIONS {
        let compiled = compile_one(
            &source,
            StreamValueType::Quat,
            StreamWrap::Clamp,
            precision,
            None,
        );
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let mut player = TrackPlayer::new(stream.track(0).unwrap());
        for _ in 0..=240 {
            let q = player.value();
            let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            assert!((norm - 1.0).abs() <= 2e-6, "{precision}: |q| = {norm}");
            player.advance();
        }
    }
}

#[test]
fn tolerance_sweep_holds_from_1e_1_to_1e_9() {
    let source = FnSource {
        components: 2,
        breaks: vec![0.0, 45.0, 120.0],
        f: |f: f64| {
            [
                3.0 * (f / 11.0).sin(),
                (f / 30.0).cos() + 0.5 * (f / 5.0).sin(),
                0.0,
                0.0,
            ]
        },
    };
    let mut previous_pieces = 0;
    for exponent in 1..=9 {
        let tolerance = 10f64.powi(-exponent);
        let options = CompileOptions {
            tolerance: Some(tolerance),
            precision: Precision::F64,
            max_degree: 8,
            ..CompileOptions::default()
        };
        let input = TrackInput {
            name: "sweep",
            value_type: StreamValueType::Vec2,
            wrap: StreamWrap::Clamp,
            source: &source,
        };
        let compiled = compile_tracks(&[input], 60.0, &options).unwrap();
        let summary = &compiled.reports[0].summary;
        let error = independent_max_error(&compiled.bytes, &source);
        assert!(error <= tolerance, "tolerance {tolerance:e}: {error:e}");
        assert!(
            summary.pieces >= previous_pieces,
            "tolerance {tolerance:e}: {summary:?}"
        );
        previous_pieces = summary.pieces;
    }
}

#[test]
fn errors_name_the_track_frame_and_field() {
    let source = FnSource {
        components: 1,
        breaks: vec![0.0, 20.0],
        f: |f: f64| [(f / 3.0).sin() + 0.3, 0.0, 0.0, 0.0],
    };
    let options = CompileOptions {
        tolerance: Some(1e-18),
        precision: Precision::F64,
        max_degree: 3,
        ..CompileOptions::default()
    };
    let input = TrackInput {
        name: "arm.rotation",
        value_type: StreamValueType::Scalar,
        wrap: StreamWrap::Clamp,
        source: &source,
    };
    let message = compile_tracks(&[input], 60.0, &options)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("\"arm.rotation\"")
            && message.contains("at frame")
            && message.contains("tolerance 1e-18"),
        "{message}"
    );
    let error = inbetween::stream::StreamError::LayoutMismatch {
        track: Some(2),
        piece: Some(5),
        field: "piece data offset",
        expected: 48,
        found: 0,
    };
    assert_eq!(
        error.to_string(),
        "track 2 piece 5: field `piece data offset` is 0, expected 48"
    );
}

/// The showcase's former `lissajous` (a 120-frame loop of `120 sin(6πu + π/2)` between keys of
/// value 0, so tolerance 1e-6): f32 numbers cannot hold the tolerance on its degree-8 pieces,
/// which once made an `F32` compile split it into 1 476 pieces, most shorter than a frame. Now
/// the track is kept in f64, reported with what f32 reaches, and the f32 stream is smaller than
/// the f64 one. (The showcase's own track now has keys at its curve's ends, scale 120.)
#[test]
fn f32_compile_keeps_a_track_in_f64_rather_than_split_below_a_frame() {
    let json = r#"{"inbetween": 1, "fps": 60, "tracks": [
        {"name": "glide", "type": "vec2", "keys": [
            {"frame": 0, "value": [0, 0], "interp": "catmull_rom"},
            {"frame": 40, "value": [30, 10], "interp": "catmull_rom"},
            {"frame": 80, "value": [60, -5], "interp": "catmull_rom"},
            {"frame": 120, "value": [90, 0]}]},
        {"name": "lissajous", "type": "vec2", "wrap": "loop", "keys": [
            {"frame": 0, "value": [0, 0],
             "interp": {"expr": ["120*sin(3*2*pi*u + pi/2)", "80*sin(2*2*pi*u)"]}},
            {"frame": 120, "value": [0, 0]}]}]}"#;
    let doc = inbetween::Document::from_json_str(json, "lissajous.json").unwrap();
    let compile = |precision| {
        doc.compile(&CompileOptions {
            precision,
            ..CompileOptions::default()
        })
        .unwrap()
    };
    let (narrow, wide) = (compile(Precision::F32), compile(Precision::F64));
    let stream = Stream::from_bytes(&narrow.bytes).unwrap();
    for (track, report) in stream.tracks().zip(&narrow.reports) {
        let pieces: Vec<_> = track.pieces().collect();
        if report.name != "lissajous" {
            assert_eq!(report.kept_in_f64, None, "{}", report.name);
            assert_eq!(track.precision(), Precision::F32, "{}", report.name);
            continue;
        }
        assert_eq!(track.precision(), Precision::F64);
        // f32 would miss the tolerance with these pieces: that is why the track is in f64.
        let reach = report.kept_in_f64.unwrap();
        assert!(
            reach > track.tolerance(),
            "{reach} vs {}",
            track.tolerance()
        );
        assert!(pieces.iter().all(|p| p.end - p.start >= 1.0), "{pieces:?}");
        let source = &doc.tracks()[1];
        assert!(independent_max_error_of(track, source) <= track.tolerance());
    }
    assert!(narrow.bytes.len() < wide.bytes.len());
}

/// Tracks are compiled independently (across threads, 256 at a time, with feature `rayon`):
/// each of 600 tracks compiled in one stream has the same pieces, numbers and measured error
/// as when compiled alone, in input order.
#[test]
fn each_track_compiles_as_it_does_alone() {
    let tracks: Vec<inbetween::Track> = (0..600)
        .map(|i| {
            let mut builder = inbetween::Track::scalar(format!("c{i}"));
            for k in 0..5 {
                let value = f64::from((i * 7 + k * 13) % 17) - 8.0;
                builder = builder
                    .key(f64::from(k * (8 + i % 9)), value)
                    .interp(inbetween::Interp::CatmullRom);
            }
            builder.build().unwrap()
        })
        .collect();
    fn input(t: &inbetween::Track) -> TrackInput<'_> {
        TrackInput {
            name: t.name(),
            value_type: StreamValueType::Scalar,
            wrap: StreamWrap::Clamp,
            source: t,
        }
    }
    let options = CompileOptions {
        precision: Precision::F32,
        ..CompileOptions::default()
    };
    let inputs: Vec<TrackInput<'_>> = tracks.iter().map(input).collect();
    let together = compile_tracks(&inputs, 60.0, &options).unwrap();
    let stream = Stream::from_bytes(&together.bytes).unwrap();
    for (track, source) in stream.tracks().zip(&tracks) {
        let alone = compile_tracks(&[input(source)], 60.0, &options).unwrap();
        let alone = Stream::from_bytes(&alone.bytes).unwrap();
        let alone = alone.track(0).unwrap();
        assert_eq!(track.name(), source.name());
        assert_eq!(track.summary(), alone.summary(), "{}", source.name());
        for (p, q) in track.pieces().zip(alone.pieces()) {
            assert_eq!((p.start, p.degree), (q.start, q.degree));
            for k in 0..=usize::from(p.degree) {
                assert_eq!(track.number(&p, 0, k), alone.number(&q, 0, k));
            }
        }
    }
}
