//! Playback at scale: the batch player against the single-track player, exact evaluation, the peers (splines, keyframe, enterpolation, bevy_math) and hand-written baselines, on one workload in one run.
//!
//! Run: `cargo bench -p inbetween-bench --features peers --bench playback` (1 000 and 100 000 scalar channels, then
//! 1 000 and 10 000 rotations). `INBETWEEN_BENCH_MILLION=1` adds 1 000 000 scalar channels
//! (compiled in f32 only); with `INBETWEEN_BENCH_ONLY_MILLION=1` as well, only that size runs.
//! The workload, our methods, the hand-written baselines and the checks are
//! `crates/inbetween-bench/src` (what `inbetween bench` runs), shared so both time the
//! same code. Every method is checked against exact evaluation before it is timed, within
//! `CHECK_TOLERANCE` (2e-4 on values of ±100: compile tolerance plus f32 output); peers that
//! play another kind of curve are checked against exact evaluation of the same keys with their
//! kind (see `peer_reference` and `bevy_reference`). On this workload splines' Catmull-Rom
//! (non-uniform, tangents from the neighbouring keys and their frames) agrees with ours within
//! 6e-5 on the frames played (it has no end segments: `clamped_sample` is `None` in the first
//! and last two segments, which the played window avoids). `INBETWEEN_BENCH_DEGREES=1` prints
//! the compiled pieces by degree. One criterion iteration is one frame of every channel, so ns
//! per channel-frame = time / channels.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use inbetween::stream::{Precision, Stream};
use inbetween::Document;

use inbetween_bench::{
    compile, max_error, workload_document, workload_keys, BatchMethod, ExactMethod,
    HermiteSoaScript, Method, PlainKey, PlayerMethod, StreamingCeiling, CHECK_TOLERANCE,
    START_FRAME, UNCHECKED,
};

/// splines 5: one `Spline` per channel, `clamped_sample` per channel per frame.
struct SplinesMethod {
    label: &'static str,
    splines: Vec<splines::Spline<f32, f32>>,
    frame: f32,
}

impl SplinesMethod {
    fn new(
        keys: &[Vec<PlainKey>],
        interpolation: splines::Interpolation<f32, f32>,
        label: &'static str,
    ) -> Self {
        let splines = keys
            .iter()
            .map(|list| {
                splines::Spline::from_vec(
                    list.iter()
                        .map(|k| splines::Key::new(k.frame as f32, k.value as f32, interpolation))
                        .collect(),
                )
            })
            .collect();
        Self {
            label,
            splines,
            frame: 0.0,
        }
    }
}

impl Method for SplinesMethod {
    fn name(&self) -> String {
        self.label.into()
    }
    fn reset(&mut self) {
        self.frame = START_FRAME as f32 - 1.0;
    }
    fn frame(&mut self, out: &mut [f32]) {
        self.frame += 1.0;
        let f = self.frame;
        for (s, o) in self.splines.iter().zip(out.iter_mut()) {
            *o = s.clamped_sample(f).unwrap_or(f32::NAN);
        }
    }
}

/// keyframe 1: one `AnimationSequence` per channel with `EaseInOutCubic` between keys, moved with
/// `advance_to` and read with `now`.
struct KeyframeMethod {
    sequences: Vec<keyframe::AnimationSequence<f32>>,
    frame: f64,
}

impl KeyframeMethod {
    fn new(keys: &[Vec<PlainKey>]) -> Self {
        let sequences = keys
            .iter()
            .map(|list| {
                let frames: Vec<keyframe::Keyframe<f32>> = list
                    .iter()
                    .map(|k| {
                        keyframe::Keyframe::new(
                            k.value as f32,
                            k.frame,
                            keyframe::functions::EaseInOutCubic,
                        )
                    })
                    .collect();
                keyframe::AnimationSequence::from(frames)
            })
            .collect();
        Self {
            sequences,
            frame: 0.0,
        }
    }
}

impl Method for KeyframeMethod {
    fn name(&self) -> String {
        "random-access-keyframe-in-out-cubic".into()
    }
    fn reset(&mut self) {
        self.frame = START_FRAME - 1.0;
    }
    fn frame(&mut self, out: &mut [f32]) {
        self.frame += 1.0;
        let f = self.frame;
        for (s, o) in self.sequences.iter_mut().zip(out.iter_mut()) {
            s.advance_to(f);
            *o = s.now();
        }
    }
}

/// enterpolation 0.3: one `Linear` per channel (knots = key frames), `eval` per frame.
struct EnterpolationMethod {
    curves: Vec<
        enterpolation::linear::Linear<
            enterpolation::Sorted<Vec<f32>>,
            Vec<f32>,
            enterpolation::Identity,
        >,
    >,
    frame: f32,
}

impl EnterpolationMethod {
    fn new(keys: &[Vec<PlainKey>]) -> Option<Self> {
        let curves = keys
            .iter()
            .map(|list| {
                enterpolation::linear::Linear::builder()
                    .elements(list.iter().map(|k| k.value as f32).collect::<Vec<_>>())
                    .knots(list.iter().map(|k| k.frame as f32).collect::<Vec<_>>())
                    .build()
                    .ok()
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Self { curves, frame: 0.0 })
    }
}

impl Method for EnterpolationMethod {
    fn name(&self) -> String {
        "random-access-enterpolation-linear".into()
    }
    fn reset(&mut self) {
        self.frame = START_FRAME as f32 - 1.0;
    }
    fn frame(&mut self, out: &mut [f32]) {
        use enterpolation::Signal;
        self.frame += 1.0;
        let f = self.frame;
        for (c, o) in self.curves.iter().zip(out.iter_mut()) {
            *o = c.eval(f);
        }
    }
}

/// bevy_math 0.19: one uniform Catmull-Rom `CubicCurve<f32>` per channel (bevy's cardinal spline
/// with tension ½ through every key; its parameter counts segments), sampled with `position(t)`
/// at `t = segment + (frame − k_i) / (k_{i+1} − k_i)`, the segment from a cursor per channel (so
/// bevy is spared any key search).
struct BevyMethod {
    curves: Vec<bevy_math::cubic_splines::CubicCurve<f32>>,
    frames: Vec<Vec<f32>>,
    cursor: Vec<usize>,
    frame: f32,
}

impl BevyMethod {
    fn new(keys: &[Vec<PlainKey>]) -> Option<Self> {
        use bevy_math::cubic_splines::{CubicCardinalSpline, CubicGenerator};
        let curves = keys
            .iter()
            .map(|list| {
                CubicCardinalSpline::new_catmull_rom(list.iter().map(|k| k.value as f32))
                    .to_curve()
                    .ok()
            })
            .collect::<Option<Vec<_>>>()?;
        let frames = keys
            .iter()
            .map(|list| list.iter().map(|k| k.frame as f32).collect())
            .collect();
        Some(Self {
            curves,
            frames,
            cursor: vec![0; keys.len()],
            frame: 0.0,
        })
    }
}

impl Method for BevyMethod {
    fn name(&self) -> String {
        "random-access-bevy-uniform-catmull-rom".into()
    }
    fn reset(&mut self) {
        self.frame = START_FRAME as f32 - 1.0;
        self.cursor.iter_mut().for_each(|c| *c = 0);
    }
    fn frame(&mut self, out: &mut [f32]) {
        self.frame += 1.0;
        let f = self.frame;
        for (((curve, frames), c), o) in self
            .curves
            .iter()
            .zip(&self.frames)
            .zip(&mut self.cursor)
            .zip(out.iter_mut())
        {
            while *c + 2 < frames.len() && frames[*c + 1] <= f {
                *c += 1;
            }
            let t = *c as f32 + (f - frames[*c]) / (frames[*c + 1] - frames[*c]);
            *o = curve.position(t);
        }
    }
}

/// The uniform Catmull-Rom bevy plays, as `hermite` segments of ours: on segment i, slopes
/// `m_i = (p_{i+1} − p_{i−1}) / 2` per segment at interior keys (one-sided `p_1 − p_0` and
/// `p_{n−1} − p_{n−2}` at the ends), divided by the segment's length in frames.
fn bevy_reference(keys: &[Vec<PlainKey>]) -> Option<Document> {
    let mut builder = Document::builder().fps(60.0);
    for (i, list) in keys.iter().enumerate() {
        let n = list.len();
        let slope = |k: usize| -> f64 {
            let p = |j: usize| list[j].value;
            if k == 0 {
                p(1) - p(0)
            } else if k + 1 == n {
                p(n - 1) - p(n - 2)
            } else {
                (p(k + 1) - p(k - 1)) / 2.0
            }
        };
        let mut track = inbetween::Track::scalar(format!("c{i}"));
        for (k, key) in list.iter().enumerate() {
            track = track.key(key.frame, key.value);
            if k + 1 < n {
                let len = list[k + 1].frame - key.frame;
                track = track.hermite(slope(k) / len, slope(k + 1) / len);
            }
        }
        builder = builder.track(track);
    }
    builder.build().ok()
}

/// Exact evaluation of the same keys with the kind a peer plays (catmull_rom for splines'
/// Catmull-Rom, linear for splines/enterpolation linear, linear with an `in_out_cubic` ease for
/// keyframe), the reference its output is checked against.
fn peer_reference(keys: &[Vec<PlainKey>], kind: &str) -> Option<Document> {
    match kind {
        "catmull_rom" => workload_document(keys, Some(0)).ok(),
        "linear" => workload_document(keys, Some(3)).ok(),
        _ => {
            let in_out_cubic = inbetween::Ease::from_name("in_out_cubic")?;
            let mut builder = Document::builder().fps(60.0);
            for (i, list) in keys.iter().enumerate() {
                let mut track = inbetween::Track::scalar(format!("c{i}"));
                for k in list {
                    track = track.key(k.frame, k.value).ease(in_out_cubic);
                }
                builder = builder.track(track);
            }
            builder.build().ok()
        }
    }
}

fn sizes() -> Vec<usize> {
    let mut sizes = vec![1_000, 100_000];
    if std::env::var_os("INBETWEEN_BENCH_ONLY_MILLION").is_some() {
        sizes.clear();
    }
    if std::env::var_os("INBETWEEN_BENCH_MILLION").is_some() {
        sizes.push(1_000_000);
    }
    sizes
}

/// A method to time, with the document it is checked against (`None`: the workload's).
type Checked<'a> = (Box<dyn Method + 'a>, Option<Document>);

fn bench_playback(c: &mut Criterion) {
    // `INBETWEEN_BENCH_CLI=smoke|quick|full`: run the CLI's `run_bench` instead (checks its code).
    if let Some(mode) = std::env::var_os("INBETWEEN_BENCH_CLI") {
        run_cli_bench(mode.to_str());
        return;
    }
    let mut group = c.benchmark_group("playback");
    for channels in sizes() {
        let keys = workload_keys(channels, 5);
        let Ok(doc) = workload_document(&keys, None) else {
            continue;
        };
        let bytes = compile_precisions(&doc, channels);
        let mut methods: Vec<Checked<'_>> = Vec::new();
        push_stream_methods(&bytes, &mut methods);
        methods.push((Box::new(ExactMethod::new(&doc)), None));
        push_peer_methods(&keys, &mut methods);
        methods.push((Box::new(HermiteSoaScript::new(&doc)), None));
        methods.push((Box::new(StreamingCeiling::new(channels)), None));
        time_methods(&mut group, &mut methods, &doc, channels);
    }
    group.finish();
    if std::env::var_os("INBETWEEN_BENCH_ONLY_MILLION").is_none() {
        bench_quaternions(c);
    }
}

/// Runs the CLI's `run_bench` at `mode` (`smoke`, `quick`, anything else full) and prints its
/// JSON.
fn run_cli_bench(mode: Option<&str>) {
    let size = match mode {
        Some("smoke") => inbetween_bench::BenchSize::Smoke,
        Some("quick") => inbetween_bench::BenchSize::Quick,
        _ => inbetween_bench::BenchSize::Full,
    };
    match inbetween_bench::run_bench_with_status(size, &mut |_| {}) {
        Ok(report) => println!("{}", inbetween_bench::to_json("bench harness", &report)),
        Err(e) => panic!("bench stopped: {e}"),
    }
}

/// The workload compiled in every precision (f32 only from a million channels, which take
/// ~10 minutes to compile per precision here); a precision that fails is reported and skipped.
fn compile_precisions(doc: &Document, channels: usize) -> Vec<(Precision, Vec<u8>)> {
    let precisions: &[Precision] = if channels >= 1_000_000 {
        &[Precision::F32]
    } else {
        &[Precision::F32, Precision::F64, Precision::Fixed]
    };
    precisions
        .iter()
        .filter_map(|&p| match compile(doc, p) {
            Ok(b) => Some((p, b)),
            Err(e) => {
                println!("{channels} channels do not compile in {p}: {e}");
                None
            }
        })
        .collect()
}

/// Our stream players: the batch in every precision, and in f32 the single-track player (and
/// the parallel batch with `rayon`).
fn push_stream_methods<'a>(bytes: &'a [(Precision, Vec<u8>)], methods: &mut Vec<Checked<'a>>) {
    for (precision, b) in bytes {
        let Ok(stream) = Stream::from_bytes(b) else {
            continue;
        };
        if std::env::var_os("INBETWEEN_BENCH_DEGREES").is_some() {
            print_degrees(*precision, &stream);
        }
        if let Ok(m) = BatchMethod::new(&format!("inbetween-batch-{}", precision.name()), stream) {
            methods.push((Box::new(m), None));
        }
        if *precision == Precision::F32 {
            methods.push((Box::new(PlayerMethod::new(stream)), None));
            #[cfg(feature = "rayon")]
            if let Ok(m) = BatchMethod::parallel("inbetween-batch-f32-parallel", stream) {
                methods.push((Box::new(m), None));
            }
        }
    }
}

/// The compiled pieces by degree and the tracks by their highest degree.
fn print_degrees(precision: Precision, stream: &Stream) {
    let mut histogram = [0usize; 9];
    let mut tracks = [0usize; 9];
    for t in stream.tracks() {
        let summary = t.summary();
        for (h, x) in histogram.iter_mut().zip(summary.degree_histogram) {
            *h += x;
        }
        tracks[usize::from(summary.max_degree).min(8)] += 1;
    }
    println!("{precision}: pieces by degree {histogram:?}, tracks by max degree {tracks:?}");
}

/// The peers on the same keys, each with the exact reference of the curve kind it plays.
fn push_peer_methods(keys: &[Vec<PlainKey>], methods: &mut Vec<Checked<'_>>) {
    methods.push((
        Box::new(SplinesMethod::new(
            keys,
            splines::Interpolation::CatmullRom,
            "random-access-splines-catmull-rom",
        )),
        peer_reference(keys, "catmull_rom"),
    ));
    methods.push((
        Box::new(SplinesMethod::new(
            keys,
            splines::Interpolation::Linear,
            "random-access-splines-linear",
        )),
        peer_reference(keys, "linear"),
    ));
    methods.push((
        Box::new(KeyframeMethod::new(keys)),
        peer_reference(keys, "in_out_cubic"),
    ));
    if let Some(m) = EnterpolationMethod::new(keys) {
        methods.push((Box::new(m), peer_reference(keys, "linear")));
    }
    if let Some(m) = BevyMethod::new(keys) {
        methods.push((Box::new(m), bevy_reference(keys)));
    }
}

/// Checks each method against exact evaluation (its own reference, or `doc`), then times it;
/// one criterion iteration is one frame of every channel, the window restarting (a seek, not
/// timed) every 300 frames.
fn time_methods(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    methods: &mut [Checked<'_>],
    doc: &Document,
    channels: usize,
) {
    group.throughput(Throughput::Elements(channels as u64));
    let mut out = vec![0.0f32; inbetween_bench::width(doc)];
    for (method, reference) in methods {
        let name = method.name();
        if name != UNCHECKED {
            let error = max_error(method.as_mut(), reference.as_ref().unwrap_or(doc), 64);
            println!("check {name} at {channels} channels: max error {error:.3e}");
            if error.is_nan() || error > CHECK_TOLERANCE {
                panic!("{name} fails its check at {channels} channels: error {error:e}");
            }
        }
        group.bench_function(BenchmarkId::new(name, channels), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut left = iters;
                while left > 0 {
                    let n = left.min(300);
                    method.reset();
                    let start = Instant::now();
                    for _ in 0..n {
                        method.frame(&mut out);
                        black_box(&mut out);
                    }
                    total += start.elapsed();
                    left -= n;
                }
                total
            });
        });
    }
}

/// The quaternion workload (slerp keys; a channel is one rotation): our batch in every
/// precision and at maximum degree 4, the player, exact evaluation, a cached f32 slerp and the
/// bandwidth ceiling, at 1 000 and 10 000 rotations.
fn bench_quaternions(c: &mut Criterion) {
    let mut group = c.benchmark_group("playback-quaternion");
    for channels in [1_000, 10_000] {
        let Ok(doc) = inbetween_bench::quat_workload_document(channels, 9) else {
            continue;
        };
        let bytes: Vec<(String, Vec<u8>)> = [
            ("inbetween-batch-f32", Precision::F32, 8),
            ("inbetween-batch-f64", Precision::F64, 8),
            ("inbetween-batch-fixed", Precision::Fixed, 8),
            ("inbetween-batch-f32-degree4", Precision::F32, 4),
        ]
        .into_iter()
        .filter_map(|(name, p, d)| {
            inbetween_bench::compile_with_degree(&doc, p, d)
                .ok()
                .map(|b| (name.to_string(), b))
        })
        .collect();
        let mut methods: Vec<(Box<dyn Method + '_>, Option<Document>)> = Vec::new();
        for (name, b) in &bytes {
            let Ok(stream) = Stream::from_bytes(b) else {
                continue;
            };
            if let Ok(m) = BatchMethod::new(name, stream) {
                if name == "inbetween-batch-f32" {
                    methods.push((Box::new(PlayerMethod::new(stream)), None));
                }
                methods.push((Box::new(m), None));
            }
        }
        methods.push((Box::new(ExactMethod::new(&doc)), None));
        methods.push((Box::new(inbetween_bench::SlerpSoaScript::new(&doc)), None));
        methods.push((Box::new(StreamingCeiling::new(4 * channels)), None));
        time_methods(&mut group, &mut methods, &doc, channels);
    }
    group.finish();
}

criterion_group!(benches, bench_playback);
criterion_main!(benches);
