//! The batch player against `TrackPlayer`: every channel at every frame, over random documents of mixed kinds, precisions and degrees, with seeks, wraps and steps.

use proptest::prelude::*;
use serde_json::{json, Value as Json};

use inbetween::batch::{Bank, BatchError};
use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream};
use inbetween::{Document, Interp, Track};

mod common;
use common::random_documents::document_strategy;

/// What the test does to the bank and to the reference cursors.
#[derive(Debug, Clone, Copy)]
enum Op {
    Seek(f64),
    Advance(usize),
    Step(f64),
}

/// Compiles `doc`, or `None` when the compiler refuses it (an expression leaving its domain,
/// a tolerance a low maximum degree cannot reach): a refusal is not the batch player's concern.
fn compile(doc: &Json, precision: Precision, max_degree: u8) -> Option<(Document, Vec<u8>)> {
    let d = Document::from_json_str(&doc.to_string(), "batch.json").ok()?;
    let options = CompileOptions {
        precision,
        max_degree,
        ..CompileOptions::default()
    };
    let bytes = d.compile(&options).ok()?.bytes;
    Some((d, bytes))
}

/// What the bank promises for one channel.
#[derive(Debug, Clone, Copy)]
struct Promise {
    fixed: bool,
    /// On Horner lanes in forward play.
    horner: bool,
    tolerance: f64,
    max_error: f64,
    /// Index of its track (in bank order) and component.
    track: usize,
    component: usize,
}

/// Half the distance from `v` to the next f32 away from zero.
fn half_ulp(v: f32) -> f64 {
    let a = v.abs();
    0.5 * (f64::from(f32::from_bits(a.to_bits() + 1)) - f64::from(a))
}

/// Whether the bank plays forward at step 1 from an integer frame (Horner lanes in use).
fn forward(bank: &Bank<'_>) -> bool {
    bank.step() == 1.0 && bank.frame().fract() == 0.0
}

/// Plays `ops` on a bank over `streams` and on one `TrackPlayer` per track, comparing every
/// channel after every operation and every advance. In forward play at step 1 from an integer
/// frame, a channel on Horner lanes (inside its keys; outside them it is played exactly) must be,
/// from `write_f64`, within `tolerance − max_error` of `TrackPlayer` (1e-12 relative slack: a
/// player seeked into a piece holds a differently rounded state) and within the tolerance of the
/// document's exact value (`exact`, the tracks in bank order); from `write_f32`, the same plus
/// half an ulp of the f32 written. Every other channel: fixed bit-exact, float within
/// 1e-12 relative, and the f32 output the player's value rounded. Returns the number of
/// channel-frames compared.
fn check(streams: &[Stream<'_>], exact: &[&inbetween::Track], ops: &[Op]) -> Result<usize, String> {
    let mut bank = Bank::new(streams).map_err(|e| e.to_string())?;
    let mut players: Vec<TrackPlayer<'_>> = streams
        .iter()
        .flat_map(|s| s.tracks())
        .map(TrackPlayer::new)
        .collect();
    let mut promise = Vec::new();
    for (t, p) in players.iter_mut().enumerate() {
        p.seek(0.0).map_err(|e| e.to_string())?;
        let track = p.track();
        for component in 0..track.components() {
            promise.push(Promise {
                fixed: track.precision() == Precision::Fixed,
                horner: bank.is_horner_channel(promise.len()),
                tolerance: track.tolerance(),
                max_error: track.max_error(),
                track: t,
                component,
            });
        }
    }
    let width = bank.channels();
    if width != promise.len() || exact.len() != players.len() {
        return Err(format!("channels {width} != {}", promise.len()));
    }
    let mut got = vec![0.0; width];
    let mut got32 = vec![0.0f32; width];
    let mut want = vec![0.0; width];
    let mut value = [0.0; 4];
    let mut compared = 0;
    let mut compare = |bank: &Bank<'_>, players: &[TrackPlayer<'_>], when: &str| {
        bank.write_f64(&mut got).map_err(|e| e.to_string())?;
        bank.write_f32(&mut got32).map_err(|e| e.to_string())?;
        let mut at = 0;
        for p in players {
            at += p.write(&mut want[at..]);
        }
        let forward = forward(bank);
        for (c, ((g, w), g32)) in got.iter().zip(&want).zip(&got32).enumerate() {
            let p = promise[c];
            // Exact lanes: `TrackPlayer`'s value, bit for bit, in both outputs.
            let same = g.to_bits() == w.to_bits() && g32.to_bits() == (*w as f32).to_bits();
            let ok = same
                || (p.horner && forward && {
                    exact[p.track].eval_into(bank.frame(), &mut value);
                    let e = value[p.component];
                    // Float tracks: the bank checked its lanes against `TrackPlayer` entering
                    // each piece at its first integer frame; a reference player seeked into the
                    // piece holds a state rounded differently (1e-12 relative). Fixed tracks:
                    // integer states, the same whatever the seek.
                    let slack = if p.fixed {
                        0.0
                    } else {
                        1e-12 * w.abs().max(1.0)
                    };
                    let budget = p.tolerance - p.max_error + slack;
                    let g32 = f64::from(*g32);
                    let rounding = half_ulp(g32 as f32);
                    (g - w).abs() <= budget
                        && (g - e).abs() <= p.tolerance
                        && (g32 - w).abs() <= budget + rounding
                        && (g32 - e).abs() <= p.tolerance + rounding
                });
            if !ok {
                return Err(format!(
                    "channel {c} ({p:?}) at frame {} ({when}): batch {g:?} (f32 {g32:?}), player {w:?}",
                    bank.frame()
                ));
            }
        }
        compared += width;
        Ok::<(), String>(())
    };
    compare(&bank, &players, "start")?;
    for op in ops {
        match *op {
            Op::Seek(f) => {
                bank.seek(f).map_err(|e| e.to_string())?;
                for p in &mut players {
                    p.seek(f).map_err(|e| e.to_string())?;
                }
                compare(&bank, &players, &format!("{op:?}"))?;
            }
            Op::Step(h) => {
                bank.set_step(h).map_err(|e| e.to_string())?;
                for p in &mut players {
                    p.set_step(h).map_err(|e| e.to_string())?;
                }
                compare(&bank, &players, &format!("{op:?}"))?;
            }
            Op::Advance(n) => {
                for i in 0..n {
                    bank.advance();
                    players.iter_mut().for_each(TrackPlayer::advance);
                    compare(&bank, &players, &format!("{op:?}, advance {i}"))?;
                }
            }
        }
    }
    Ok(compared)
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1usize..80).prop_map(Op::Advance),
        2 => (-60i32..90).prop_map(|f| Op::Seek(f64::from(f))),
        1 => (-600i32..900).prop_map(|f| Op::Seek(f64::from(f) / 10.0)),
        1 => prop_oneof![Just(1.0), Just(-1.0), Just(0.4), Just(2.5), Just(-60.0 / 144.0)].prop_map(Op::Step),
    ]
}

fn precision_strategy() -> impl Strategy<Value = Precision> {
    prop_oneof![
        Just(Precision::F32),
        Just(Precision::F64),
        Just(Precision::Fixed)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Up to three documents, each in its own precision and maximum degree, in one bank.
    #[test]
    fn bank_equals_track_players(
        docs in prop::collection::vec((document_strategy(), precision_strategy(), 0u8..=8), 1..4),
        ops in prop::collection::vec(op_strategy(), 1..10),
    ) {
        let compiled: Vec<(Document, Vec<u8>)> = docs.iter().filter_map(|(d, p, n)| compile(d, *p, *n)).collect();
        let streams: Vec<Stream<'_>> = compiled.iter().filter_map(|(_, b)| Stream::from_bytes(b).ok()).collect();
        prop_assert_eq!(streams.len(), compiled.len());
        let exact: Vec<&inbetween::Track> = compiled.iter().flat_map(|(d, _)| d.tracks()).collect();
        check(&streams, &exact, &ops).map_err(TestCaseError::fail)?;
    }
}

/// A deterministic generator (64-bit LCG, top bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        ((self.next() * n as f64) as usize).min(n - 1)
    }
}

/// `tracks` tracks of scalars and vectors, keys 1..20 frames apart (some on half frames), kinds
/// catmull_rom, tcb, bezier, linear, step and eased linear (only steps on integer frames when
/// `steps_only`, for degree 0), every wrap.
fn big_document(tracks: usize, seed: u64, steps_only: bool) -> Json {
    let mut rng = Lcg(seed);
    let list: Vec<Json> = (0..tracks)
        .map(|i| {
            let (ty, dims) = [("scalar", 1), ("vec2", 2), ("vec3", 3), ("vec4", 4)][rng.below(4)];
            let wrap = ["clamp", "loop", "ping_pong"][rng.below(3)];
            let mut frame = rng.below(10) as f64 - 5.0;
            let keys: Vec<Json> = (0..2 + rng.below(10))
                .map(|_| {
                    frame += 1.0
                        + rng.below(20) as f64
                        + if rng.below(6) == 0 && !steps_only {
                            0.5
                        } else {
                            0.0
                        };
                    let v: Vec<f64> = (0..dims).map(|_| rng.next() * 200.0 - 100.0).collect();
                    let value = if dims == 1 { json!(v[0]) } else { json!(v) };
                    let h: Vec<f64> = (0..dims).map(|_| rng.next() * 40.0 - 20.0).collect();
                    let handle = if dims == 1 { json!(h[0]) } else { json!(h) };
                    let interp = match if steps_only { 4 } else { rng.below(6) } {
                        0 => json!("catmull_rom"),
                        1 => json!("tcb"),
                        2 => json!({"bezier": {"out": handle, "in": handle}}),
                        3 => json!("linear"),
                        4 => json!("step"),
                        _ => json!("linear"),
                    };
                    let ease = ["linear", "smoothstep", "in_out_sine", "out_quad"][rng.below(4)];
                    json!({"frame": frame, "value": value, "interp": interp, "ease": ease})
                })
                .collect();
            json!({"name": format!("c{i}"), "type": ty, "wrap": wrap, "keys": keys})
        })
        .collect();
    json!({"inbetween": 1, "fps": 30, "tracks": list})
}

/// About 10 000 channels in nine streams (every maximum degree 0..=8, all three precisions),
/// played forward through the script, past every track's end into its wrap, and after
/// backward, fractional and far seeks, backward play and a rate change.
#[test]
fn ten_thousand_channels_of_mixed_degrees() {
    let mut bytes = Vec::new();
    let mut docs = Vec::new();
    for degree in 0..=8u8 {
        let precision = [Precision::F32, Precision::F64, Precision::Fixed][usize::from(degree) % 3];
        let doc = big_document(460, 17 + u64::from(degree), degree == 0);
        let d =
            Document::from_json_str(&doc.to_string(), "big.json").unwrap_or_else(|e| panic!("{e}"));
        let options = CompileOptions {
            precision,
            max_degree: degree,
            ..CompileOptions::default()
        };
        match d.compile(&options) {
            Ok(c) => bytes.push(c.bytes),
            Err(e) => panic!("degree {degree}: {e}"),
        }
        docs.push(d);
    }
    let exact: Vec<&inbetween::Track> = docs.iter().flat_map(|d| d.tracks()).collect();
    let streams: Vec<Stream<'_>> = bytes
        .iter()
        .map(|b| Stream::from_bytes(b).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let ops = [
        Op::Seek(-7.0),
        Op::Advance(150),
        Op::Seek(37.0),
        Op::Advance(40),
        Op::Seek(12.5),
        Op::Advance(10),
        Op::Step(-1.0),
        Op::Advance(20),
        Op::Step(1.0),
        Op::Seek(300.0),
        Op::Advance(10),
        Op::Step(0.4),
        Op::Advance(10),
    ];
    let compared = check(&streams, &exact, &ops).unwrap_or_else(|e| panic!("{e}"));
    let channels: usize = streams.iter().map(Stream::total_components).sum();
    assert!(channels >= 10_000, "only {channels} channels");
    // Two thirds of the streams are float: most of their channels play on Horner lanes.
    let lanes = Bank::new(&streams).map_or(0, |b| b.horner_channels());
    assert!(
        lanes > channels / 3,
        "{lanes} of {channels} channels on Horner lanes"
    );
    // A third are fixed, a third of those `clamp`: most of these play on i32 Horner lanes.
    let int32 = Bank::new(&streams).map_or(0, |b| b.int32_channels());
    assert!(
        int32 > channels / 30,
        "{int32} of {channels} channels on i32 lanes"
    );
    let exact = Bank::exact(&streams).map_or(1, |b| b.horner_channels());
    assert_eq!(exact, 0);
    assert!(compared >= channels * 240, "compared {compared}");
}

#[test]
fn refusals_name_the_problem() {
    let doc = big_document(3, 5, false);
    let bytes = compile(&doc, Precision::F64, 3)
        .map(|c| c.1)
        .unwrap_or_default();
    let stream = Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let mut bank = Bank::new(&[stream]).unwrap_or_else(|e| panic!("{e}"));
    let mut short = vec![0.0; bank.channels() - 1];
    assert_eq!(
        bank.write_f64(&mut short),
        Err(BatchError::BufferTooSmall {
            needed: bank.channels(),
            found: bank.channels() - 1
        })
    );
    assert!(bank.seek(f64::NAN).is_err());
    assert!(bank.set_step(0.0).is_err());
    assert_eq!(bank.frame(), 0.0);
    let empty = Bank::new(&[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(empty.channels(), 0);
    assert_eq!(empty.write_f32(&mut []), Ok(()));
}

/// `advance_parallel` (feature `rayon`) equals `advance` bit for bit on banks big enough to be
/// split between threads (every group past `PARALLEL_CHUNK` lanes), float and fixed, through
/// piece changes, wraps, a seek and backward play.
#[cfg(feature = "rayon")]
#[test]
fn parallel_advance_equals_serial_advance() {
    let mut bytes = Vec::new();
    for (seed, precision) in [(3, Precision::F64), (4, Precision::Fixed)] {
        let doc = big_document(2_500, seed, false);
        bytes.push(
            compile(&doc, precision, 3)
                .unwrap_or_else(|| panic!("seed {seed} refused"))
                .1,
        );
    }
    let streams: Vec<Stream<'_>> = bytes
        .iter()
        .map(|b| Stream::from_bytes(b).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let mut serial = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    let mut parallel = serial.clone();
    assert!(serial.channels() > 10_000, "{} channels", serial.channels());
    let (mut a, mut b) = (vec![0.0; serial.channels()], vec![0.0; serial.channels()]);
    for round in 0..3 {
        if round == 1 {
            for bank in [&mut serial, &mut parallel] {
                bank.seek(40.0).unwrap_or_else(|e| panic!("{e}"));
            }
        }
        if round == 2 {
            for bank in [&mut serial, &mut parallel] {
                bank.set_step(-1.0).unwrap_or_else(|e| panic!("{e}"));
            }
        }
        for frame in 0..120 {
            serial.advance();
            parallel.advance_parallel();
            serial.write_f64(&mut a).unwrap_or_else(|e| panic!("{e}"));
            parallel.write_f64(&mut b).unwrap_or_else(|e| panic!("{e}"));
            let same = a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "round {round} frame {frame}: parallel differs");
        }
    }
}

/// Two tracks `gap` frames apart, as a document.
fn far_apart(gap: f64) -> Json {
    let keys = |start: f64| {
        (0..6)
            .map(|i| json!({"frame": start + 13.0 * f64::from(i), "value": f64::from(i * i) * 3.5 - 20.0, "interp": "catmull_rom"}))
            .collect::<Vec<_>>()
    };
    json!({"inbetween": 1, "fps": 30, "tracks": [
        {"name": "early", "type": "scalar", "keys": keys(0.0)},
        {"name": "late", "type": "scalar", "keys": keys(gap)},
    ]})
}

/// Two tracks 100 000 frames apart (epoch blocks mostly empty but still small), and 2^23
/// frames apart (blocks too big for what the tracks cover: the bank plays them exactly), both
/// played within the promise of `check`, after seeks to each track.
#[test]
fn tracks_far_apart_in_time_play_within_the_promise() {
    for (gap, lanes) in [(100_000.0, 2), (8_388_608.0, 0)] {
        let (d, bytes) =
            compile(&far_apart(gap), Precision::F32, 8).unwrap_or_else(|| panic!("refused"));
        let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
        let exact: Vec<&inbetween::Track> = d.tracks().iter().collect();
        assert_eq!(
            Bank::new(&streams).map_or(9, |b| b.horner_channels()),
            lanes,
            "gap {gap}"
        );
        let ops = [Op::Advance(70), Op::Seek(gap - 10.0), Op::Advance(90)];
        let compared = check(&streams, &exact, &ops).unwrap_or_else(|e| panic!("{e}"));
        assert!(compared >= 2 * 160, "compared {compared}");
    }
}

/// A piece longer than the bank checks frame by frame (2^20 frames) keeps its track on the
/// exact lanes, and building the bank does not visit its frames.
#[test]
fn a_piece_too_long_to_check_plays_exactly() {
    let doc = json!({"inbetween": 1, "fps": 30, "tracks": [
        {"name": "long", "type": "scalar", "keys": [
            {"frame": 0, "value": 0.0, "interp": "linear"},
            {"frame": 1_100_000, "value": 1.0}
        ]},
    ]});
    let (_, bytes) = compile(&doc, Precision::F64, 1).unwrap_or_else(|| panic!("refused"));
    let stream = Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let bank = Bank::new(&[stream]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bank.horner_channels(), 0);
    assert!(!bank.is_horner_channel(0));
}

/// Tracks `picked` (increasing) of the scalar benchmark's workload at `channels` channels, as
/// `inbetween_bench::workload_keys(channels, 5)` and `workload_document` make them (repeated
/// here): 32 keys 8..64 frames apart, values in ±100, each key catmull_rom, tcb (0.3, −0.2,
/// 0.1), bezier (handles 0.6 and 0.9 of the way to the next key) or linear, at 60 fps.
fn benchmark_tracks(channels: usize, picked: &[usize]) -> Document {
    let mut rng = Lcg(5);
    let mut builder = Document::builder().fps(60.0);
    for i in 0..channels {
        let mut keys = Vec::with_capacity(32);
        let mut frame = 0.0;
        for k in 0..32 {
            if k > 0 {
                frame += 8.0 + ((rng.next() * 57.0) as u64).min(56) as f64;
            }
            let value = rng.next() * 200.0 - 100.0;
            keys.push((frame, value, ((rng.next() * 4.0) as u64).min(3)));
        }
        if !picked.contains(&i) {
            continue;
        }
        let mut track = Track::scalar(format!("c{i}"));
        for (k, &(frame, value, kind)) in keys.iter().enumerate() {
            track = track.key(frame, value);
            let next = keys.get(k + 1).map_or(value, |n| n.1);
            track = match kind {
                0 => track.interp(Interp::CatmullRom),
                1 => track.interp(Interp::Tcb).tcb(0.3, -0.2, 0.1),
                2 => track.bezier(value + (next - value) * 0.6, next - (next - value) * 0.1),
                _ => track.interp(Interp::Linear),
            };
        }
        builder = builder.track(track);
    }
    builder.build().unwrap_or_else(|e| panic!("{e}"))
}

/// The four tracks of the 1 000-channel scalar benchmark whose f32 Horner lanes missed their
/// budget until session 11 (a cubic piece 8 frames long playing one or three frames of an
/// epoch, whose Taylor shift about that epoch's centre, 11..15 frames outside it, summed
/// terms of hundreds: `horner::epoch_coefficients`) now play on f32 lanes, within the promise
/// of `check` at every frame of forward play and after seeks, and forward play gives the bits
/// of a seek at every frame.
#[test]
fn the_benchmarks_edge_of_epoch_pieces_play_on_f32_lanes() {
    let d = benchmark_tracks(1000, &[435, 445, 685, 761]);
    let options = CompileOptions {
        precision: Precision::F32,
        ..CompileOptions::default()
    };
    let bytes = d.compile(&options).unwrap_or_else(|e| panic!("{e}")).bytes;
    let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
    let mut bank = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bank.horner_channels(), 4);
    let exact: Vec<&inbetween::Track> = d.tracks().iter().collect();
    let ops = [
        Op::Advance(1250),
        Op::Seek(1030.0),
        Op::Advance(20),
        Op::Seek(70.0),
        Op::Advance(20),
    ];
    let compared = check(&streams, &exact, &ops).unwrap_or_else(|e| panic!("{e}"));
    assert!(compared >= 4 * 1290, "compared {compared}");
    let played = play_bits(&mut bank, 0, 1200);
    assert_seeks_play(&streams, &played, &[0, 1, 2, 3]);
}

/// `count` clamp scalar tracks shaped like the benchmark's workload: 32 keys 8..64 frames
/// apart, values `amplitude × [−1, 1)`, catmull_rom, tcb, bezier (handles 0.6 and 0.9 of the way
/// to the next key) and linear keys.
fn clamped_scalars(count: usize, amplitude: f64, seed: u64) -> Json {
    let mut rng = Lcg(seed);
    let tracks: Vec<Json> = (0..count)
        .map(|i| {
            let mut frame = 0.0;
            let values: Vec<f64> = (0..32)
                .map(|_| (rng.next() * 2.0 - 1.0) * amplitude)
                .collect();
            let keys: Vec<Json> = values
                .iter()
                .enumerate()
                .map(|(k, &value)| {
                    if k > 0 {
                        frame += 8.0 + rng.below(57) as f64;
                    }
                    let next = values.get(k + 1).copied().unwrap_or(value);
                    let interp = match rng.below(4) {
                        0 => json!("catmull_rom"),
                        1 => json!("tcb"),
                        2 => json!({"bezier": {
                            "out": value + (next - value) * 0.6,
                            "in": next - (next - value) * 0.1
                        }}),
                        _ => json!("linear"),
                    };
                    json!({"frame": frame, "value": value, "interp": interp})
                })
                .collect();
            json!({"name": format!("s{i}"), "type": "scalar", "wrap": "clamp", "keys": keys})
        })
        .collect();
    json!({"inbetween": 1, "fps": 60, "tracks": tracks})
}

/// Fixed tracks like the benchmark's (values to ±100 and their overshoot, tolerance
/// `1e-6 × scale`): every channel plays on i32 lanes (the finer units of the orders ≥ 2 hold
/// the tolerance where one unit `2^-E` for every order did not for a few percent of them), and
/// within the promise of `check` at every frame of forward play and after seeks.
#[test]
fn fixed_tracks_like_the_benchmarks_all_play_on_i32_lanes() {
    let (d, bytes) = compile(&clamped_scalars(120, 100.0, 11), Precision::Fixed, 3)
        .unwrap_or_else(|| panic!("refused"));
    let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
    let bank = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bank.int32_channels(), bank.channels());
    let exact: Vec<&inbetween::Track> = d.tracks().iter().collect();
    let ops = [
        Op::Advance(400),
        Op::Seek(517.0),
        Op::Advance(300),
        Op::Seek(-3.0),
        Op::Advance(40),
    ];
    let compared = check(&streams, &exact, &ops).unwrap_or_else(|e| panic!("{e}"));
    assert!(compared >= 120 * 740, "compared {compared}");
}

/// Fixed values too large for i32 lanes at any exponent whose f32 output scales exactly
/// (`|v| ~ 1e30`: `2^-E` would pass `2^64`) keep their track on the exact i64 lanes, which
/// equal `TrackPlayer` bit for bit; a small track beside them still takes i32 lanes.
#[test]
fn fixed_values_beyond_the_i32_lanes_play_exactly() {
    let keys = |scale: f64| {
        (0..6)
            .map(|i| json!({"frame": 11 * i, "value": scale * f64::from(i * i % 7) - scale, "interp": "catmull_rom"}))
            .collect::<Vec<_>>()
    };
    let doc = json!({"inbetween": 1, "fps": 30, "tracks": [
        {"name": "huge", "type": "scalar", "wrap": "clamp", "keys": keys(1e30)},
        {"name": "small", "type": "scalar", "wrap": "clamp", "keys": keys(3.0)},
    ]});
    let (d, bytes) = compile(&doc, Precision::Fixed, 3).unwrap_or_else(|| panic!("refused"));
    let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
    let bank = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    assert!(!bank.is_horner_channel(0));
    assert!(bank.is_horner_channel(1));
    assert_eq!(bank.int32_channels(), 1);
    let exact: Vec<&inbetween::Track> = d.tracks().iter().collect();
    let ops = [Op::Advance(70), Op::Seek(23.0), Op::Advance(40)];
    let compared = check(&streams, &exact, &ops).unwrap_or_else(|e| panic!("{e}"));
    assert!(compared >= 2 * 110, "compared {compared}");
}

/// One frame's `write_f32` and `write_f64` rows, as bits.
type Bits = (Vec<u32>, Vec<u64>);

/// Records `write_f32` and `write_f64` of frames `from..to` (the bank at `from`, advanced
/// after each), as bits.
fn play_bits(bank: &mut Bank<'_>, from: usize, to: usize) -> Vec<Bits> {
    let (mut a, mut b) = (vec![0.0f32; bank.channels()], vec![0.0; bank.channels()]);
    (from..to)
        .map(|_| {
            bank.write_f32(&mut a).unwrap_or_else(|e| panic!("{e}"));
            bank.write_f64(&mut b).unwrap_or_else(|e| panic!("{e}"));
            bank.advance();
            (
                a.iter().map(|x| x.to_bits()).collect(),
                b.iter().map(|x| x.to_bits()).collect(),
            )
        })
        .collect()
}

/// Forward play patches the epoch blocks it plays in place; after seeks back (to an epoch's
/// first frame, into the middle of an epoch, after a seek forward, after a step change) and in
/// a fresh bank seeked there, every frame plays the same bits as the first time through.
#[test]
fn replays_after_seeks_play_the_same_bits() {
    let tracks: Vec<Json> = (0..150)
        .map(|t| {
            let keys: Vec<Json> = (0..45)
                .map(|i| {
                    let frame = 9 * i + (t * i) % 5;
                    let value = f64::from((i * 7 + t) % 23) * 0.75 - 8.0;
                    let interp =
                        ["tcb", "catmull_rom", "linear", "catmull_rom"][(i + t) as usize % 4];
                    let ease = ["linear", "smoothstep"][(i * t) as usize % 2];
                    json!({"frame": frame, "value": value, "interp": interp, "ease": ease})
                })
                .collect();
            json!({"name": format!("t{t}"), "type": "scalar", "keys": keys})
        })
        .collect();
    let bytes = f32_stream_of(tracks);
    let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
    let mut bank = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    let lanes = horner_lanes(&bank);
    let first = play_bits(&mut bank, 0, 380);
    let seeks = [(32, 200), (0, 380), (37, 100), (301, 380), (5, 60)];
    replay_after_seeks(&mut bank, (&first, &lanes), &seeks);
    let mut fresh = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    fresh.seek(77.0).unwrap_or_else(|e| panic!("{e}"));
    let played = play_bits(&mut fresh, 77, 380);
    assert_same_bits((&first, &lanes), &played, 77, "fresh bank");
}

/// Asserts that `played` (frames from `from`) has the bits of `first` (frames from 0) on the
/// channels `lanes`, naming the first channel and frame that differs.
fn assert_same_bits((first, lanes): (&[Bits], &[usize]), played: &[Bits], from: usize, when: &str) {
    for (i, (f32s, f64s)) in played.iter().enumerate() {
        let (a, b) = &first[from + i];
        for &c in lanes {
            let ok = f32s[c] == a[c] && f64s[c] == b[c];
            assert!(ok, "{when}: channel {c} at frame {} differs", from + i);
        }
    }
}

/// Seeks `bank` to each `(from, to)` of `seeks` and plays to `to`, then changes the step to
/// 0.5 and back and plays 90..200: every frame must have the bits of `first` on `lanes`.
fn replay_after_seeks(bank: &mut Bank<'_>, first: (&[Bits], &[usize]), seeks: &[(usize, usize)]) {
    for &(from, to) in seeks {
        bank.seek(from as f64).unwrap_or_else(|e| panic!("{e}"));
        let played = play_bits(bank, from, to);
        assert_same_bits(first, &played, from, &format!("seek {from}"));
    }
    bank.set_step(0.5).unwrap_or_else(|e| panic!("{e}"));
    bank.advance();
    bank.set_step(1.0).unwrap_or_else(|e| panic!("{e}"));
    bank.seek(90.0).unwrap_or_else(|e| panic!("{e}"));
    let played = play_bits(bank, 90, 200);
    assert_same_bits(first, &played, 90, "after a step change");
}

/// Asserts that a fresh seek to each frame of `played` (frames from 0) plays its bits on
/// `lanes`.
fn assert_seeks_play(streams: &[Stream<'_>], played: &[Bits], lanes: &[usize]) {
    let mut seeked = Bank::new(streams).unwrap_or_else(|e| panic!("{e}"));
    for frame in 0..played.len() {
        seeked.seek(frame as f64).unwrap_or_else(|e| panic!("{e}"));
        let one = play_bits(&mut seeked, frame, frame + 1);
        let when = "forward play against a seek";
        assert_same_bits((played, lanes), &one, frame, when);
    }
}

/// 120 scalar tracks named `PREFIX0..`, track `t` starting at frame `(7 t) mod 61` with
/// `keys` keys spaced `5 + t mod spread` frames apart (plus 0..2), values
/// `((5 i + t) mod 17) · scale + offset`, interpolations cycling catmull_rom, linear, tcb;
/// `fields` (e.g. a wrap) added to every track.
fn staggered_tracks(
    (keys, spread): (i32, i32),
    (scale, offset): (f64, f64),
    (prefix, fields): (&str, Json),
) -> Vec<Json> {
    (0..120)
        .map(|t| {
            let start = (t * 7) % 61;
            let keys: Vec<Json> = (0..keys)
                .map(|i| {
                    let frame = start + i * (5 + t % spread) + (t * i) % 3;
                    let value = f64::from((i * 5 + t) % 17) * scale + offset;
                    let interp = ["catmull_rom", "linear", "tcb"][(i + t) as usize % 3];
                    json!({"frame": frame, "value": value, "interp": interp})
                })
                .collect();
            let mut track = json!({"name": format!("{prefix}{t}"), "type": "scalar", "keys": keys});
            if let (Some(track), Some(fields)) = (track.as_object_mut(), fields.as_object()) {
                track.extend(fields.clone());
            }
            track
        })
        .collect()
}

/// Forward play's straight frames (the script's due frames played inline, the epoch switches,
/// the side list and heap of tracks that start late or end early) give, at every frame, the
/// bits a fresh seek to that frame gives (a seek rebuilds everything from the script and the
/// epoch blocks, outside the straight path's bookkeeping), on the Horner channels (the others
/// play `TrackPlayer`'s additions, whose state after a seek may be rounded differently).
#[test]
fn straight_forward_play_equals_a_seek_at_every_frame() {
    // Tracks start at 0..60 and end at 150..390: some on the side list first, some handed to
    // the heap at their end, while the others play straight.
    let tracks = staggered_tracks((30, 4), (0.5, -4.0), ("t", json!({})));
    let bytes = f32_stream_of(tracks);
    let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
    let mut bank = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    let lanes = horner_lanes(&bank);
    let played = play_bits(&mut bank, 0, 420);
    // A small bank plays its blocks in place (`epoch_switches_re_centre_a_large_bank...`).
    let (recentred, read) = bank.epoch_switches();
    assert!(
        recentred == 0 && read >= 15,
        "{recentred} re-centred, {read} read"
    );
    assert_seeks_play(&streams, &played, &lanes);
}

/// The i32 lanes (fixed tracks) play their epoch blocks in place like the f32 lanes: after
/// seeks back and forth (to an epoch's first frame, into an epoch, past the tracks' ends),
/// after a step change and in a fresh bank seeked there, every frame plays the bits of the
/// first time through, and forward play gives at every frame the bits of a seek to it. The
/// tracks start at 0..60 and end at 110..310 (some on the side list first, some handed to the
/// heap at their end); `TrackPlayer` checks the same operations (`check`: within the
/// promise at every frame).
#[test]
fn fixed_replays_after_seeks_and_step_changes_play_the_same_bits() {
    let tracks = staggered_tracks((20, 7), (3.5, -20.0), ("f", json!({"wrap": "clamp"})));
    let doc = json!({"inbetween": 1, "fps": 30, "tracks": tracks});
    let (d, bytes) = compile(&doc, Precision::Fixed, 3).unwrap_or_else(|| panic!("refused"));
    let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
    let mut bank = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    let lanes = horner_lanes(&bank);
    assert_eq!(bank.int32_channels(), lanes.len());
    let first = play_bits(&mut bank, 0, 340);
    let seeks = [
        (32, 200),
        (0, 340),
        (37, 100),
        (301, 340),
        (5, 60),
        (250, 320),
    ];
    replay_after_seeks(&mut bank, (&first, &lanes), &seeks);
    assert_seeks_play(&streams, &first, &lanes);
    let exact: Vec<&inbetween::Track> = d.tracks().iter().collect();
    let ops = [
        Op::Advance(200),
        Op::Seek(37.0),
        Op::Advance(80),
        Op::Step(0.5),
        Op::Advance(3),
        Op::Step(1.0),
        Op::Seek(16.0),
        Op::Advance(300),
    ];
    let compared = check(&streams, &exact, &ops).unwrap_or_else(|e| panic!("{e}"));
    assert!(compared >= 120 * 580, "compared {compared}");
}

/// `tracks` as a document at 30 fps compiled in f32 at degree ≤ 3.
fn f32_stream_of(tracks: Vec<Json>) -> Vec<u8> {
    let doc = json!({"inbetween": 1, "fps": 30, "tracks": tracks});
    compile(&doc, Precision::F32, 3)
        .unwrap_or_else(|| panic!("refused"))
        .1
}

/// The channels on Horner lanes (the others play `TrackPlayer`'s additions, whose state after a
/// seek may be rounded differently); more than 60 of them.
fn horner_lanes(bank: &Bank<'_>) -> Vec<usize> {
    let lanes: Vec<usize> = (0..bank.channels())
        .filter(|&c| bank.is_horner_channel(c))
        .collect();
    assert!(lanes.len() > 60, "{} on Horner lanes", lanes.len());
    lanes
}

/// `tracks` clamp scalar tracks (`clamped_scalars`) whose amplitudes are `amplitudes` in turn,
/// compiled in fixed point at the default tolerance (`1e-6 ×` each track's scale).
fn fixed_of_amplitudes(amplitudes: &[f64]) -> (Document, Vec<u8>) {
    let tracks: Vec<Json> = amplitudes
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let mut t = clamped_scalars(1, a, 5 + i as u64)["tracks"][0].clone();
            t["name"] = json!(format!("a{i}"));
            t
        })
        .collect();
    let doc = json!({"inbetween": 1, "fps": 30, "tracks": tracks});
    compile(&doc, Precision::Fixed, 3).unwrap_or_else(|| panic!("refused"))
}

/// The i32 lanes of a chunk (32 lanes) share one exponent, the smallest its tracks expect: a
/// track of values ~1 (tolerance ~1e-6) beside one of values ~10^6 (whose exponent gives units
/// of ~2^-10) cannot hold its tolerance in that unit; it is checked alone and plays on i32
/// lanes in its own units (its chunk then reads a scale a lane), as it does alone or in the
/// next chunk (after 32 large tracks). Every channel within the promise of `check` (within
/// `tolerance − max_error` of `TrackPlayer` and the tolerance of exact evaluation) at every
/// frame of forward play and after a seek.
#[test]
fn a_fixed_lane_that_cannot_hold_its_tolerance_in_its_chunks_unit_plays_in_its_own() {
    let ops = [Op::Advance(300), Op::Seek(97.0), Op::Advance(120)];
    let cases = [
        vec![1e6, 1.0],
        vec![1.0],
        [vec![1e6; 32], vec![1.0]].concat(),
    ];
    for amplitudes in cases {
        let (d, bytes) = fixed_of_amplitudes(&amplitudes);
        let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
        let bank = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bank.int32_channels(), amplitudes.len());
        let exact: Vec<&inbetween::Track> = d.tracks().iter().collect();
        let compared = check(&streams, &exact, &ops).unwrap_or_else(|e| panic!("{e}"));
        assert!(compared >= amplitudes.len() * 420, "compared {compared}");
    }
}

/// Tracks of magnitudes 0.01 to 1000 in one chunk, each at the default tolerance: the lanes
/// of a chunk play in the unit of its largest track, every value checked in `Bank::new` in
/// that unit; those on i32 lanes within `tolerance − max_error` of `TrackPlayer` and within the
/// tolerance of exact evaluation at every frame of forward play and after seeks, the others
/// bit for bit `TrackPlayer` (`check`).
#[test]
fn fixed_lanes_of_mixed_magnitudes_in_one_chunk_play_within_the_tolerance() {
    let amplitudes: Vec<f64> = (0..40).map(|i| 10f64.powi(i % 6 - 2) * 1.7).collect();
    let (d, bytes) = fixed_of_amplitudes(&amplitudes);
    let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
    let bank = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    // The largest tracks of each chunk set its unit and keep their lanes.
    for c in (0..40).filter(|c| c % 6 == 5) {
        assert!(bank.is_horner_channel(c), "channel {c}");
    }
    let exact: Vec<&inbetween::Track> = d.tracks().iter().collect();
    let ops = [Op::Advance(400), Op::Seek(333.0), Op::Advance(100)];
    let compared = check(&streams, &exact, &ops).unwrap_or_else(|e| panic!("{e}"));
    assert!(compared >= 40 * 500, "compared {compared}");
}

/// A bank that is one cubic group and nothing else (f32 or i32 lanes) plays its straight
/// frames by that group's sweep alone and its records without the walk over the lists
/// (`straight::Only`, session 15); beside a stream of the other precision (a linear track on
/// the other kind of lanes, so the general straight path) the same tracks play the same bits
/// at every frame, epoch switches and records included, and forward play equals a seek at
/// every frame.
#[test]
fn a_bank_of_one_group_plays_the_bits_of_the_general_straight_path() {
    let tracks: Vec<Json> = (0..120)
        .map(|t| {
            let keys: Vec<Json> = (0..24)
                .map(|i| {
                    let frame = i * (10 + t % 7) + (t * i) % 3;
                    let value = f64::from((i * 5 + t) % 17) * 0.25 + 10.0;
                    json!({"frame": frame, "value": value, "interp": "catmull_rom"})
                })
                .collect();
            json!({"name": format!("s{t}"), "type": "scalar", "keys": keys, "wrap": "clamp"})
        })
        .collect();
    let line = json!([{"name": "line", "type": "scalar", "wrap": "clamp", "keys": [
        {"frame": 0, "value": 1.0, "interp": "linear"},
        {"frame": 400, "value": 3.0, "interp": "linear"}
    ]}]);
    let doc = |tracks: &Json| json!({"inbetween": 1, "fps": 30, "tracks": tracks});
    let tracks = Json::Array(tracks);
    for (precision, beside) in [
        (Precision::F32, Precision::Fixed),
        (Precision::Fixed, Precision::F32),
    ] {
        let (_, bytes) = compile(&doc(&tracks), precision, 3).unwrap_or_else(|| panic!("refused"));
        let (_, other) = compile(&doc(&line), beside, 3).unwrap_or_else(|| panic!("refused"));
        let one = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
        let other = Stream::from_bytes(&other).unwrap_or_else(|e| panic!("{e}"));
        let mut alone = Bank::new(&one).unwrap_or_else(|e| panic!("{e}"));
        let lanes = horner_lanes(&alone);
        assert_eq!(
            lanes.len(),
            120,
            "{precision:?}: every track on Horner lanes"
        );
        let played = play_bits(&mut alone, 0, 220);
        let mut general = Bank::new(&[one[0], other]).unwrap_or_else(|e| panic!("{e}"));
        let general = play_bits(&mut general, 0, 220);
        for (frame, ((a32, a64), (g32, g64))) in played.iter().zip(&general).enumerate() {
            for &c in &lanes {
                let same = a32[c] == g32[c] && a64[c] == g64[c];
                assert!(same, "{precision:?}: channel {c} at frame {frame} differs");
            }
        }
        assert_seeks_play(&one, &played, &lanes);
    }
}

/// `advance_write_f32` is `advance` then `write_f32`: the same bits at every frame of forward
/// play (epoch switches, piece changes) and after seeks back, forward and to an epoch's first
/// frame, for a fixed bank and an f32 bank of 3 200 cubic channels (large enough that their
/// records are stored in the write's pass, `FUSE_FROM`); a buffer too short is refused after
/// the bank has advanced, as `write_f32` refuses it.
#[test]
fn advance_write_f32_plays_what_advance_then_write_f32_play() {
    let doc = clamped_scalars(3200, 100.0, 23);
    for precision in [Precision::Fixed, Precision::F32] {
        let (_, bytes) = compile(&doc, precision, 3).unwrap_or_else(|| panic!("refused"));
        let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
        let mut apart = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
        let mut fused = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
        if precision == Precision::Fixed {
            assert_eq!(fused.int32_channels(), fused.channels());
        }
        let n = fused.channels();
        let (mut x, mut y) = (vec![0.0f32; n], vec![0.0f32; n]);
        let bits = |v: &[f32]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
        let mut compared = 0;
        for (seek, frames) in [(0.0, 420), (37.0, 90), (512.0, 60), (96.0, 200)] {
            apart.seek(seek).unwrap_or_else(|e| panic!("{e}"));
            fused.seek(seek).unwrap_or_else(|e| panic!("{e}"));
            apart.write_f32(&mut x).unwrap_or_else(|e| panic!("{e}"));
            fused.write_f32(&mut y).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(bits(&x), bits(&y), "{precision:?} at {seek}");
            for f in 1..frames {
                apart.advance();
                apart.write_f32(&mut x).unwrap_or_else(|e| panic!("{e}"));
                fused
                    .advance_write_f32(&mut y)
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(
                    bits(&x),
                    bits(&y),
                    "{precision:?} frame {}",
                    seek + f as f64
                );
                compared += n;
            }
        }
        assert!(compared >= 760 * n, "compared {compared}");
        let mut short = vec![0.0f32; n - 1];
        let refused = fused.advance_write_f32(&mut short);
        assert!(matches!(refused, Err(BatchError::BufferTooSmall { .. })));
        apart.advance();
        apart.write_f32(&mut x).unwrap_or_else(|e| panic!("{e}"));
        fused.write_f32(&mut y).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bits(&x), bits(&y), "{precision:?} after a refused buffer");
    }
}

/// A bank whose f32 blocks pass `RECENTRE_FROM` (20 000 cubic channels: 320 KB a block) enters
/// its epochs by re-centring its working block in place (`Bank::epoch_switches`), through the
/// write's pass (`advance_write_f32`) and through `advance` alike, and plays there the bits of
/// a seek (which copies the built block): at each epoch's first frame, the frame after it and
/// the one before, over 420 frames, and after seeks into an epoch and back.
#[test]
fn epoch_switches_re_centre_a_large_bank_to_the_bits_of_a_seek() {
    let doc = clamped_scalars(20_000, 100.0, 29);
    let (_, bytes) = compile(&doc, Precision::F32, 3).unwrap_or_else(|| panic!("refused"));
    let streams = [Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"))];
    let mut fused = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    let mut apart = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    let mut seeked = Bank::new(&streams).unwrap_or_else(|e| panic!("{e}"));
    let n = fused.channels();
    let (mut x, mut y, mut z) = (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]);
    let bits = |v: &[f32]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
    let mut compared = 0;
    for (start, frames) in [(0.0, 420), (37.0, 60), (5.0, 40)] {
        fused.seek(start).unwrap_or_else(|e| panic!("{e}"));
        apart.seek(start).unwrap_or_else(|e| panic!("{e}"));
        for f in 1..frames {
            let frame = start as i64 + f;
            fused
                .advance_write_f32(&mut y)
                .unwrap_or_else(|e| panic!("{e}"));
            apart.advance();
            apart.write_f32(&mut z).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(bits(&y), bits(&z), "the pass against advance at {frame}");
            if matches!(frame % 16, 0 | 1 | 15) {
                seeked.seek(frame as f64).unwrap_or_else(|e| panic!("{e}"));
                seeked.write_f32(&mut x).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(bits(&x), bits(&y), "forward play against a seek at {frame}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 80, "{compared}");
    for bank in [&fused, &apart] {
        let (recentred, read) = bank.epoch_switches();
        assert!(
            recentred >= 25 && read <= 4,
            "{recentred} re-centred, {read} read"
        );
    }
}
