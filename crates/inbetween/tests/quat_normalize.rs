//! Quaternion tracks compiled for normalized playback: the stream flag, lower degrees than fitting the components, the player's and the bank's normalized values against exact evaluation at every frame, rates and fractional seeks.

mod stream_support;

use std::path::Path;

use inbetween::batch::Bank;
use inbetween::compile::{compile_tracks, CompileOptions, CompiledStream, CurveSource, TrackInput};
use inbetween::player::TrackPlayer;
use inbetween::stream::{
    fix_checksum, reencode, Precision, Stream, StreamError, StreamValueType, StreamWrap,
    TableLayout,
};
use inbetween::{Document, Interp, Track};
use stream_support::*;

const TOLERANCE: f64 = 1e-6;

/// Compiles one quat track of `source` with `normalize` (tolerance: the default, 1e-6).
fn compile_quat(source: &dyn CurveSource, precision: Precision, normalize: bool) -> CompiledStream {
    compile_quat_at(source, precision, normalize, None)
}

/// [`compile_quat`] with a tolerance.
fn compile_quat_at(
    source: &dyn CurveSource,
    precision: Precision,
    normalize: bool,
    tolerance: Option<f64>,
) -> CompiledStream {
    let options = CompileOptions {
        precision,
        normalize,
        tolerance,
        ..CompileOptions::default()
    };
    compile_quat_with(source, &options)
}

/// One quat track of `source` compiled with `options`.
fn compile_quat_with(source: &dyn CurveSource, options: &CompileOptions) -> CompiledStream {
    let input = TrackInput {
        name: "q",
        value_type: StreamValueType::Quat,
        wrap: StreamWrap::Clamp,
        source,
    };
    compile_tracks(&[input], 60.0, options).unwrap_or_else(|e| panic!("compile: {e}"))
}

/// Largest `max_c |played_c − exact_c|` of `player` against `source` over `frames`, seeking
/// to each (`seek`) or stepping through them from the first (else), and the largest
/// `| |q| − 1 |` of the f32 output.
fn errors(
    player: &mut TrackPlayer<'_>,
    source: &dyn CurveSource,
    frames: &[f64],
    seek: bool,
) -> (f64, f64) {
    let (mut worst, mut norm32, mut exact) = (0.0f64, 0.0f64, [0.0; 4]);
    player.seek(frames[0]).unwrap();
    for (i, &f) in frames.iter().enumerate() {
        if seek {
            player.seek(f).unwrap();
        } else if i > 0 {
            player.advance();
        }
        source.eval(f, &mut exact).unwrap();
        let q = player.value();
        for c in 0..4 {
            worst = worst.max((q[c] - exact[c]).abs());
        }
        let mut q32 = [0.0f32; 4];
        player.write_f32(&mut q32);
        let n = q32
            .iter()
            .map(|x| f64::from(*x).powi(2))
            .sum::<f64>()
            .sqrt();
        norm32 = norm32.max((n - 1.0).abs());
    }
    (worst, norm32)
}

/// Numbers stored (pieces × (degree + 1) × 4) and the highest degree of track 0.
fn size(compiled: &CompiledStream) -> (usize, u8) {
    let s = &compiled.reports[0].summary;
    let numbers = (0..s.degree_histogram.len())
        .map(|d| s.degree_histogram[d] * (d + 1) * 4)
        .sum();
    (numbers, s.max_degree)
}

/// A slerp of 1° to 179° over 12, 60 and 240 frames, in every precision: flagged, played
/// normalized within the tolerance of exact evaluation at every integer frame, |q| = 1 within
/// f32 rounding in the f32 output. Compiled up to the same degree as the raw fit (8, the
/// default `rotation_max_degree`, stated here so that a lower default cannot change the test), against the components fitted to the same acceptance
/// limit (normalized pieces are accepted at half the tolerance, so: raw at half the tolerance)
/// it never stores more numbers nor needs a higher degree, and it needs a lower one where the
/// raw fit's leading error is radial (an odd-degree interpolant of a rotation: 1° with degree
/// 1 against 2, 30° with 3 against 4, 120° with 5 against 6).
#[test]
fn slerp_segments_compile_at_lower_degree_and_play_normalized_within_tolerance() {
    for degrees in [1.0, 5.0, 30.0, 60.0, 90.0, 120.0, 150.0, 179.0f64] {
        for frames in [12.0, 60.0, 240.0] {
            let source = slerp_source(frames, degrees.to_radians());
            let integer: Vec<f64> = (0..=frames as usize).map(|f| f as f64).collect();
            for precision in PRECISIONS {
                let at = format!("{degrees}° over {frames} frames, {precision}");
                let normalized = compile_quat(&source, precision, true);
                let stream = Stream::from_bytes(&normalized.bytes).unwrap();
                assert!(stream.track(0).unwrap().normalizes(), "{at}");
                let mut player = TrackPlayer::new(stream.track(0).unwrap());
                let (error, norm32) = errors(&mut player, &source, &integer, false);
                assert!(error <= TOLERANCE, "{at}: {error:e}");
                assert!(
                    norm32 <= 2.0 * f64::from(f32::EPSILON),
                    "{at}: |q| off by {norm32:e}"
                );
                let raw = compile_quat_at(&source, precision, false, Some(TOLERANCE / 2.0));
                let uncapped = compile_quat_with(
                    &source,
                    &CompileOptions {
                        precision,
                        rotation_max_degree: 8,
                        ..CompileOptions::default()
                    },
                );
                let ((numbers, degree), (raw_numbers, raw_degree)) = (size(&uncapped), size(&raw));
                let sizes =
                    format!("{numbers} numbers, degree {degree}; raw {raw_numbers}, {raw_degree}");
                assert!(
                    numbers <= raw_numbers && degree <= raw_degree,
                    "{at}: {sizes}"
                );
                if [1.0, 30.0, 120.0].contains(&degrees) {
                    assert!(degree < raw_degree, "{at}: {sizes}");
                }
            }
        }
    }
}

/// `rotation_max_degree` (default 8: no cap) caps the pieces of normalized quat tracks only: a
/// 150° slerp over 60 frames that the compiler fits at degree 6 or more by default gets pieces
/// of degree at most 5 with the cap at 5 (more of them), each stream played within the tolerance of
/// the exact slerp at every integer frame, in every precision; a Vec4 track and the same
/// rotation compiled raw (`normalize: false`) give the same bytes under any
/// `rotation_max_degree` (0 and 8); 9 is refused.
#[test]
fn rotation_max_degree_caps_normalized_rotations_only() {
    let source = slerp_source(60.0, 150f64.to_radians());
    let integer: Vec<f64> = (0..=60).map(f64::from).collect();
    for precision in PRECISIONS {
        let at = format!("{precision}");
        let with = |rotation_max_degree| CompileOptions {
            precision,
            rotation_max_degree,
            ..CompileOptions::default()
        };
        let five = compile_quat_with(&source, &with(5));
        let uncapped = compile_quat_with(
            &source,
            &CompileOptions {
                precision,
                ..CompileOptions::default()
            },
        );
        let (capped, wide) = (&five.reports[0].summary, &uncapped.reports[0].summary);
        assert_eq!(CompileOptions::default().rotation_max_degree, 8);
        assert!(
            capped.max_degree <= 5 && wide.max_degree > 5,
            "{at}: {capped:?} {wide:?}"
        );
        assert!(capped.pieces > wide.pieces, "{at}: {capped:?} {wide:?}");
        for compiled in [&five, &uncapped] {
            let stream = Stream::from_bytes(&compiled.bytes).unwrap();
            let mut player = TrackPlayer::new(stream.track(0).unwrap());
            let (error, _) = errors(&mut player, &source, &integer, false);
            assert!(error <= TOLERANCE, "{at}: {error:e}");
        }
        let raw = |rotation_max_degree| CompileOptions {
            normalize: false,
            ..with(rotation_max_degree)
        };
        assert!(
            compile_quat_with(&source, &raw(0)).bytes == compile_quat_with(&source, &raw(8)).bytes,
            "{at}: raw rotation"
        );
        let vec4 = |options: &CompileOptions| {
            let input = TrackInput {
                name: "v",
                value_type: StreamValueType::Vec4,
                wrap: StreamWrap::Clamp,
                source: &source,
            };
            compile_tracks(&[input], 60.0, options).unwrap().bytes
        };
        assert!(vec4(&with(0)) == vec4(&with(8)), "{at}: Vec4 track");
    }
    let refused = compile_tracks(
        &[TrackInput {
            name: "q",
            value_type: StreamValueType::Quat,
            wrap: StreamWrap::Clamp,
            source: &source,
        }],
        60.0,
        &CompileOptions {
            rotation_max_degree: 9,
            ..CompileOptions::default()
        },
    );
    assert!(
        matches!(
            refused,
            Err(inbetween::compile::CompileError::InvalidOption {
                option: "rotation_max_degree",
                ..
            })
        ),
        "{refused:?}"
    );
}

/// Rate 60/144 from frame 0, fractional seeks every 1/7 frame, and backward play: within the
/// tolerance of exact evaluation (the compiler checked half frames and fit nodes at half the
/// tolerance; these positions are not among them).
#[test]
fn normalized_slerps_hold_the_tolerance_at_rates_and_fractional_seeks() {
    for degrees in [10.0, 90.0, 179.0f64] {
        let frames = 120.0;
        let source = slerp_source(frames, degrees.to_radians());
        for precision in PRECISIONS {
            let compiled = compile_quat(&source, precision, true);
            let stream = Stream::from_bytes(&compiled.bytes).unwrap();
            let mut player = TrackPlayer::new(stream.track(0).unwrap());
            let sevenths: Vec<f64> = (0..=7 * 120).map(|k| k as f64 / 7.0).collect();
            let (seeked, _) = errors(&mut player, &source, &sevenths, true);
            player.seek(0.0).unwrap();
            player.set_step(60.0 / 144.0).unwrap();
            let rate: Vec<f64> = (0..288).map(|k| k as f64 * 60.0 / 144.0).collect();
            let (rated, _) = errors(&mut player, &source, &rate, false);
            player.seek(frames).unwrap();
            player.set_step(-1.0).unwrap();
            let back: Vec<f64> = (0..=120).rev().map(|k| k as f64).collect();
            let (backward, _) = errors(&mut player, &source, &back, false);
            let at = format!("{degrees}°, {precision}");
            assert!(seeked <= TOLERANCE, "{at}: seeks {seeked:e}");
            assert!(rated <= TOLERANCE, "{at}: rate 60/144 {rated:e}");
            assert!(backward <= TOLERANCE, "{at}: backward {backward:e}");
        }
    }
}

/// Compiles `doc` in every precision (with `tolerance`, else the default): every quat track
/// flagged and played within its tolerance of the document's exact evaluation at every integer
/// frame of its keys; returns the number of quat tracks.
fn check_rotations(doc: &Document, tolerance: Option<f64>, name: &str) -> usize {
    let mut rotations = 0;
    for precision in PRECISIONS {
        let options = CompileOptions {
            precision,
            tolerance,
            ..CompileOptions::default()
        };
        let compiled = doc.compile(&options).unwrap();
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        rotations = 0;
        for (track, doc_track) in stream.tracks().zip(doc.tracks()) {
            let is_quat = track.value_type() == StreamValueType::Quat;
            assert_eq!(track.normalizes(), is_quat, "{name} {}", track.name());
            if !is_quat {
                continue;
            }
            rotations += 1;
            let mut player = TrackPlayer::new(track);
            let first = track.first_frame().ceil();
            player.seek(first).unwrap();
            let (mut frame, mut exact) = (first, [0.0; 4]);
            while frame <= track.last_frame() {
                doc_track.eval_into(frame, &mut exact);
                let q = player.value();
                for c in 0..4 {
                    let e = (q[c] - exact[c]).abs();
                    let at = format!("{name} {} {precision} frame {frame}", track.name());
                    assert!(e <= track.tolerance(), "{at}: {e:e}");
                }
                player.advance();
                frame += 1.0;
            }
        }
    }
    rotations
}

/// The ozz corpus clip (`playback`: 67 joints, rotations played by ozz's nlerp, imported at 60
/// fps), at the default tolerance and at the benchmark's 2e-7.
#[test]
fn ozz_corpus_rotations_play_normalized_within_tolerance() {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/ozz/playback"
    ));
    let animation = std::fs::read(dir.join("animation.ozz")).unwrap();
    let skeleton = std::fs::read(dir.join("skeleton.ozz")).unwrap();
    let doc = inbetween::ozz_import::import_ozz(&animation, Some(&skeleton), 60.0).unwrap();
    for tolerance in [None, Some(2e-7)] {
        assert_eq!(check_rotations(&doc, tolerance, "ozz playback"), 67);
    }
}

/// glTF rotations — the cubic-spline file (normalized cubic Hermite, glTF's rule), the
/// interpolation test (STEP, LINEAR and CUBICSPLINE rotations) and the walk cycle.
#[cfg(feature = "gltf")]
#[test]
fn gltf_rotations_play_normalized_within_tolerance() {
    use inbetween::gltf_import::{import_gltf_path, ImportOptions};
    let corpus = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/gltf"
    ));
    for file in [
        "cubicspline.gltf",
        "interpolation_test.gltf",
        "character_walk.gltf",
    ] {
        let doc = import_gltf_path(&corpus.join(file), &ImportOptions::default()).unwrap();
        assert!(check_rotations(&doc, None, file) > 0, "{file}");
    }
}

/// Sets byte 14 of track 0's entry (the track flags) and the version, fixing the checksum.
fn with_flags(bytes: &[u8], version: u16, flags: u8) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[4..6].copy_from_slice(&version.to_le_bytes());
    b[40 + 14] = flags;
    fix_checksum(&mut b);
    b
}

/// The compiler's bytes in the 24-byte layout (versions 1 and 2).
fn legacy(bytes: &[u8]) -> Vec<u8> {
    reencode(&Stream::from_bytes(bytes).unwrap(), TableLayout::Legacy).unwrap()
}

/// The flag is allowed on quat tracks of version 2 and 3 streams only; other bits stay reserved.
#[test]
fn the_normalize_flag_is_refused_off_quat_tracks_and_in_version_1() {
    let source = slerp_source(30.0, 1.0);
    let raw = compile_quat(&source, Precision::F32, false);
    let flagged = compile_quat(&source, Precision::F32, true);
    // The compiler writes version 3 with the flag in byte 14 of the track entry.
    for (bytes, flag) in [(&raw.bytes, 0), (&flagged.bytes, 1)] {
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 3);
        assert_eq!(bytes[40 + 14], flag);
    }
    assert!(Stream::from_bytes(&with_flags(&raw.bytes, 3, 1))
        .unwrap()
        .track(0)
        .unwrap()
        .normalizes());
    // In the 24-byte layout: version 1 without the flag, version 2 with it.
    let (raw, flagged) = (legacy(&raw.bytes), legacy(&flagged.bytes));
    assert_eq!(
        u16::from_le_bytes([raw[4], raw[5]]),
        1,
        "no flag: version 1"
    );
    assert_eq!(u16::from_le_bytes([flagged[4], flagged[5]]), 2);
    assert_eq!(flagged[40 + 14], 1);
    // The raw stream with the flag set: accepted in version 2, refused in version 1.
    assert!(Stream::from_bytes(&with_flags(&raw, 2, 1))
        .unwrap()
        .track(0)
        .unwrap()
        .normalizes());
    assert!(matches!(
        Stream::from_bytes(&with_flags(&raw, 1, 1)),
        Err(StreamError::ReservedNotZero {
            track: Some(0),
            field: "track reserved bytes",
            found: 1,
            ..
        })
    ));
    for bits in [2u8, 3, 0x80] {
        assert!(
            matches!(
                Stream::from_bytes(&with_flags(&raw, 2, bits)),
                Err(StreamError::ReservedNotZero { track: Some(0), .. })
            ),
            "bits {bits:#x}"
        );
    }
    let scalar = PolySource::scalar(0.0, 30.0, &[1.0, 2.0, -0.5]);
    let options = CompileOptions::default();
    let input = TrackInput {
        name: "s",
        value_type: StreamValueType::Scalar,
        wrap: StreamWrap::Clamp,
        source: &scalar,
    };
    let bytes = legacy(&compile_tracks(&[input], 60.0, &options).unwrap().bytes);
    assert_eq!(
        Stream::from_bytes(&with_flags(&bytes, 2, 1)).unwrap_err(),
        StreamError::UnknownCode {
            track: 0,
            field: "value type (with the normalize flag)",
            found: 1,
            expected: "6 quat",
        }
    );
}

/// `normalize: false` keeps the old behaviour: no flag, the components played as stored, each
/// within the tolerance of the unit quaternion (so |q| within 2 × tolerance of 1, not exactly 1).
#[test]
fn raw_quaternions_stay_reachable() {
    let source = slerp_source(240.0, 175f64.to_radians());
    let compiled = compile_quat(&source, Precision::F64, false);
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let track = stream.track(0).unwrap();
    assert!(!track.normalizes());
    let mut player = TrackPlayer::new(track);
    let frames: Vec<f64> = (0..=240).map(f64::from).collect();
    let (error, _) = errors(&mut player, &source, &frames, false);
    assert!(error <= TOLERANCE, "{error:e}");
    let mut off_unit = 0.0f64;
    player.seek(0.0).unwrap();
    for _ in 0..=240 {
        let n = player.value().iter().map(|x| x * x).sum::<f64>().sqrt();
        off_unit = off_unit.max((n - 1.0).abs());
        player.advance();
    }
    assert!(
        off_unit > 1e-12 && off_unit <= 2.0 * TOLERANCE,
        "{off_unit:e}"
    );
}

/// A document of 40 slerp rotations (10°..120° a key, 8..40 frames apart).
fn rotations() -> Document {
    let mut builder = Document::builder().fps(60.0);
    for i in 0..40u32 {
        let mut track = Track::quat(format!("q{i}"));
        let mut q = inbetween::quat::IDENTITY;
        let mut frame = 0.0;
        for k in 0..6u32 {
            if k > 0 {
                let x = f64::from(i * 7 + k * 13);
                frame += 8.0 + (x * 3.7).rem_euclid(32.0).floor();
                let axis =
                    inbetween::quat::normalize([x.sin(), (1.7 * x).cos(), 0.5, 0.0]).unwrap();
                let angle = (10.0 + (x * 5.3).rem_euclid(110.0)).to_radians();
                let turn = inbetween::quat::from_axis_angle([axis[0], axis[1], axis[2]], angle);
                q = inbetween::quat::mul(turn, q);
            }
            track = track.key(frame, q).interp(Interp::Slerp);
        }
        builder = builder.track(track);
    }
    builder.build().unwrap()
}

/// The bank on flagged rotations: on its exact lanes (`Bank::exact`, and every play but forward
/// at step 1: fractional seeks, rate 60/144, backward) `TrackPlayer::value` bit for bit in
/// `write_f64` and rounded in `write_f32`; on its Horner lanes (forward from integer seeks)
/// within `tolerance − max_error` of `TrackPlayer` (plus half an ulp in f32) and of exact
/// evaluation, every track on them and |q| = 1 within f32 rounding. Three banks: the default
/// tolerance (one pass per group: `quat_lanes`), the benchmark's 2e-7 (groups of three degrees,
/// runs starting inside a chunk, tracks on the exact lanes) and the rotations beside a raw
/// (unflagged) copy of themselves, so that groups they share play in two passes.
#[test]
fn bank_plays_flagged_rotations_as_the_player() {
    let doc = rotations();
    for (precision, (tolerance, mixed)) in PRECISIONS
        .into_iter()
        .flat_map(|p| [(None, false), (Some(2e-7), false), (None, true)].map(|c| (p, c)))
    {
        let options = CompileOptions {
            precision,
            tolerance,
            ..CompileOptions::default()
        };
        let bytes = doc.compile(&options).unwrap().bytes;
        let stream = Stream::from_bytes(&bytes).unwrap();
        let raw_options = CompileOptions {
            normalize: false,
            ..options
        };
        let raw = doc.compile(&raw_options).unwrap().bytes;
        let raw = Stream::from_bytes(&raw).unwrap();
        let streams: &[Stream<'_>] = if mixed { &[stream, raw] } else { &[stream] };
        if mixed {
            // Some flagged track shares its degree (its Horner group) with an unflagged one.
            let degrees = |s: &Stream<'_>| s.tracks().map(|t| t.max_degree()).collect::<Vec<_>>();
            let raw_degrees = degrees(&raw);
            assert!(degrees(&stream).iter().any(|d| raw_degrees.contains(d)));
        }
        for exact_bank in [false, true] {
            let mut bank = if exact_bank {
                Bank::exact(streams).unwrap()
            } else {
                Bank::new(streams).unwrap()
            };
            if !exact_bank && precision != Precision::Fixed && tolerance.is_none() {
                assert_eq!(bank.horner_channels(), bank.channels(), "{precision}");
            }
            let mut players: Vec<TrackPlayer<'_>> = stream.tracks().map(TrackPlayer::new).collect();
            let plays: [(f64, f64, usize); 4] = [
                (0.0, 1.0, 200),
                (37.0, 1.0, 60),
                (12.3, 60.0 / 144.0, 80),
                (150.0, -1.0, 90),
            ];
            for (seek, step, count) in plays {
                bank.seek(seek).unwrap();
                bank.set_step(step).unwrap();
                for p in &mut players {
                    p.seek(seek).unwrap();
                    p.set_step(step).unwrap();
                }
                for _ in 0..count {
                    let at = format!(
                        "{precision} {tolerance:?} mixed {mixed} exact {exact_bank} frame {}",
                        bank.frame()
                    );
                    compare_bank(&bank, &players, &doc, !exact_bank && step == 1.0, &at);
                    bank.advance();
                    players.iter_mut().for_each(TrackPlayer::advance);
                }
            }
        }
    }
}

/// One frame of [`bank_plays_flagged_rotations_as_the_player`].
fn compare_bank(
    bank: &Bank<'_>,
    players: &[TrackPlayer<'_>],
    doc: &Document,
    forward: bool,
    at: &str,
) {
    let mut got = vec![0.0; bank.channels()];
    let mut got32 = vec![0.0f32; bank.channels()];
    bank.write_f64(&mut got).unwrap();
    bank.write_f32(&mut got32).unwrap();
    let mut exact = [0.0; 4];
    for (t, p) in players.iter().enumerate() {
        let want = p.value();
        let track = p.track();
        doc.tracks()[t].eval_into(bank.frame(), &mut exact);
        let inside = bank.frame() >= track.first_frame() && bank.frame() < track.last_frame();
        let horner = forward && inside && bank.is_horner_channel(4 * t);
        let budget = track.tolerance() - track.max_error();
        for c in 0..4 {
            let (g, g32, w) = (got[4 * t + c], got32[4 * t + c], want[c]);
            if horner {
                let half_ulp = f64::from(f32::EPSILON) * f64::from(g32).abs();
                assert!(
                    (g - w).abs() <= budget + 1e-12,
                    "{at} track {t}: {g} vs {w}"
                );
                assert!(
                    (f64::from(g32) - w).abs() <= budget + half_ulp + 1e-12,
                    "{at} track {t}: {g32} vs {w}"
                );
                assert!(
                    (f64::from(g32) - exact[c]).abs() <= track.tolerance() + half_ulp,
                    "{at} track {t}"
                );
            } else {
                assert_eq!(g.to_bits(), w.to_bits(), "{at} track {t} component {c}");
                assert_eq!(
                    g32.to_bits(),
                    (w as f32).to_bits(),
                    "{at} track {t} component {c}"
                );
            }
        }
        let q = &got32[4 * t..4 * t + 4];
        let n = q.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        assert!(
            (n - 1.0).abs() <= 4.0 * f64::from(f32::EPSILON),
            "{at} track {t}: |q| = {n}"
        );
    }
}

/// A bank whose rotation group passes the size from which forward play walks it backwards on
/// every other frame (`quat_lanes::BACKWARD_FROM`, 512 KiB of coefficients, and below its
/// `BACKWARD_UNTIL`, 2 MiB: most of 7 000 rotations at degree 6, 4 (D + 1) f32 each) plays, at every frame of a forward run from frame 0 (odd
/// steps walked backwards, even ones forwards, across epoch switches and piece changes), the
/// bits a bank seeked to that frame plays (step 0 of its run: walked forwards), in f32 and f64.
#[test]
fn backward_walk_of_a_large_rotation_group_plays_the_forward_bits() {
    const ROTATIONS: u32 = 7_000;
    let mut builder = Document::builder().fps(60.0);
    for i in 0..ROTATIONS {
        let x = f64::from(i);
        let axis = inbetween::quat::normalize([x.sin(), (1.7 * x).cos(), 0.5, 0.0]).unwrap();
        let angle = (120.0 + (x * 5.3).rem_euclid(40.0)).to_radians();
        let turn = inbetween::quat::from_axis_angle([axis[0], axis[1], axis[2]], angle);
        let track = Track::quat(format!("q{i}"))
            .key(0.0, inbetween::quat::IDENTITY)
            .interp(Interp::Slerp)
            .key(30.0 + (x * 3.1).rem_euclid(40.0).floor(), turn)
            .interp(Interp::Slerp)
            .key(100.0, inbetween::quat::IDENTITY);
        builder = builder.track(track);
    }
    let doc = builder.build().unwrap();
    let bytes = doc
        .compile(&CompileOptions {
            precision: Precision::F32,
            ..CompileOptions::default()
        })
        .unwrap()
        .bytes;
    let stream = Stream::from_bytes(&bytes).unwrap();
    // The Horner group of the most common degree holds at least 512 KiB of coefficients (a
    // group only grows when `interleaved` merges tracks into it).
    let mut by_degree = [0usize; 9];
    for t in stream.tracks() {
        by_degree[usize::from(t.max_degree())] += 1;
    }
    let bytes: Vec<usize> = (0..9).map(|d| by_degree[d] * 16 * (d + 1)).collect();
    let largest = bytes.iter().copied().max().unwrap();
    let all: usize = bytes.iter().sum();
    assert!(largest >= 512 << 10 && all < 2 << 20, "{by_degree:?}");
    let streams = [stream];
    let mut played = Bank::new(&streams).unwrap();
    let mut seeked = Bank::new(&streams).unwrap();
    assert_eq!(played.horner_channels(), played.channels());
    played.seek(0.0).unwrap();
    let n = played.channels();
    for frame in 0..80 {
        seeked.seek(f64::from(frame)).unwrap();
        let (mut a, mut b) = (vec![f32::NAN; n], vec![f32::NAN; n]);
        played.write_f32(&mut a).unwrap();
        seeked.write_f32(&mut b).unwrap();
        let (mut a64, mut b64) = (vec![f64::NAN; n], vec![f64::NAN; n]);
        played.write_f64(&mut a64).unwrap();
        seeked.write_f64(&mut b64).unwrap();
        for c in 0..n {
            assert_eq!(a[c].to_bits(), b[c].to_bits(), "frame {frame} channel {c}");
            assert_eq!(
                a64[c].to_bits(),
                b64[c].to_bits(),
                "frame {frame} channel {c}"
            );
        }
        played.advance();
    }
}
