//! `inbetween bench`: playback speed of the batch player, the single-track player, exact evaluation and hand-written baselines on one workload, timed in one run (medians).
//!
//! Workload (issue 5): `channels` scalar tracks of 32 keys 8..64 frames apart (integer frames),
//! kinds drawn per key from catmull_rom, tcb, bezier and linear, values in ±100; frames
//! `START_FRAME..START_FRAME + frames` are played one by one (every track is past its first
//! segment and before its last two there, so peers without end handling play the same frames).
//! Every method's output is checked against exact evaluation (`Track::eval`) before it is
//! timed. A channel-frame is one channel's value produced into a caller-owned buffer.
//!
//! Quaternion workload: `channels` rotation tracks of 32 `slerp` keys 8..64 frames apart, each
//! key turned 10°..120° from the previous one about a random axis; there a channel is one
//! quaternion (four f32 values per channel-frame). The figures of the compiler (keys per
//! second, stream bytes per key against raw f32 keys and the JSON document) come from the same
//! runs.

use std::hint::black_box;
use std::time::Instant;

use inbetween::batch::Bank;
use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream};
use inbetween::{Document, Interp, Track};

/// One timed method at one size.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchResult {
    /// Method name (issue 5's names).
    pub method: String,
    /// `scalar` or `quaternion` (see the module docs).
    pub workload: &'static str,
    /// Channels played.
    pub channels: usize,
    /// Median time per channel-frame.
    pub ns_per_channel_frame: f64,
    /// `1e9 / ns_per_channel_frame`.
    pub channel_frames_per_s: f64,
}

/// Keys per channel.
pub const KEYS: usize = 32;
/// First frame played.
pub const START_FRAME: f64 = 64.0;

/// A deterministic generator (64-bit LCG, top 53 bits).
pub struct Lcg(pub u64);

impl Lcg {
    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform integer in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + ((self.next_f64() * (hi - lo + 1) as f64) as u64).min(hi - lo)
    }
}

/// One key of the workload, as the peers need it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlainKey {
    /// Key frame.
    pub frame: f64,
    /// Key value.
    pub value: f64,
    /// 0 catmull_rom, 1 tcb, 2 bezier, 3 linear.
    pub kind: u8,
}

/// The workload's keys: `channels` lists of `KEYS` keys.
#[must_use]
pub fn workload_keys(channels: usize, seed: u64) -> Vec<Vec<PlainKey>> {
    let mut rng = Lcg(seed);
    (0..channels)
        .map(|_| {
            let mut frame = 0.0;
            (0..KEYS)
                .map(|i| {
                    if i > 0 {
                        frame += rng.range(8, 64) as f64;
                    }
                    PlainKey {
                        frame,
                        value: rng.next_f64() * 200.0 - 100.0,
                        kind: rng.range(0, 3) as u8,
                    }
                })
                .collect()
        })
        .collect()
}

/// The workload as a document (`kind` overrides every key's kind when given).
///
/// # Errors
/// The document builder's message (not expected for this workload).
pub fn workload_document(keys: &[Vec<PlainKey>], kind: Option<u8>) -> Result<Document, String> {
    let mut builder = Document::builder().fps(60.0);
    for (i, list) in keys.iter().enumerate() {
        let mut track = Track::scalar(format!("c{i}"));
        for (k, key) in list.iter().enumerate() {
            track = track.key(key.frame, key.value);
            let next = list.get(k + 1).map_or(key.value, |n| n.value);
            track = match kind.unwrap_or(key.kind) {
                0 => track.interp(Interp::CatmullRom),
                1 => track.interp(Interp::Tcb).tcb(0.3, -0.2, 0.1),
                2 => track.bezier(
                    key.value + (next - key.value) * 0.6,
                    next - (next - key.value) * 0.1,
                ),
                _ => track.interp(Interp::Linear),
            };
        }
        builder = builder.track(track);
    }
    builder.build().map_err(|e| e.to_string())
}

/// The quaternion workload: `channels` rotation tracks of `KEYS` slerp keys 8..64 frames apart,
/// each key 10°..120° from the previous one about a random axis.
///
/// # Errors
/// The document builder's message (not expected for this workload).
pub fn quat_workload_document(channels: usize, seed: u64) -> Result<Document, String> {
    let mut rng = Lcg(seed);
    let mut builder = Document::builder().fps(60.0);
    for i in 0..channels {
        let mut track = Track::quat(format!("q{i}"));
        let mut q = inbetween::quat::IDENTITY;
        let mut frame = 0.0;
        for k in 0..KEYS {
            if k > 0 {
                frame += rng.range(8, 64) as f64;
                let (z, phi) = (
                    rng.next_f64() * 2.0 - 1.0,
                    rng.next_f64() * std::f64::consts::TAU,
                );
                let r = (1.0 - z * z).max(0.0).sqrt();
                let angle = (10.0 + rng.next_f64() * 110.0).to_radians();
                let turn =
                    inbetween::quat::from_axis_angle([r * phi.cos(), r * phi.sin(), z], angle);
                q = inbetween::quat::mul(turn, q);
            }
            track = track.key(frame, q).interp(Interp::Slerp);
        }
        builder = builder.track(track);
    }
    builder.build().map_err(|e| e.to_string())
}

/// Compiles the workload in `precision`.
///
/// # Errors
/// The compiler's message.
pub fn compile(doc: &Document, precision: Precision) -> Result<Vec<u8>, String> {
    compile_with_degree(doc, precision, CompileOptions::default().max_degree)
}

/// Compiles the workload in `precision` with pieces of degree at most `max_degree`.
///
/// # Errors
/// The compiler's message.
pub fn compile_with_degree(
    doc: &Document,
    precision: Precision,
    max_degree: u8,
) -> Result<Vec<u8>, String> {
    let options = CompileOptions {
        precision,
        max_degree,
        ..CompileOptions::default()
    };
    doc.compile(&options)
        .map(|c| c.bytes)
        .map_err(|e| e.to_string())
}

/// A method that plays `frames` frames of every channel into `out` (one row per frame,
/// overwritten), from `START_FRAME`; returns nothing, its output is checked separately.
pub trait Method {
    /// Name.
    fn name(&self) -> String;
    /// Moves to `START_FRAME`.
    fn reset(&mut self);
    /// Produces the next frame into `out` (the first call gives `START_FRAME`).
    fn frame(&mut self, out: &mut [f32]);
}

/// The batch player in one precision.
pub struct BatchMethod<'s> {
    /// Label (`inbetween-batch-f32` …).
    pub label: String,
    /// The bank.
    pub bank: Bank<'s>,
    started: bool,
    /// Play with `Bank::advance_parallel` (feature `rayon`).
    #[cfg(feature = "rayon")]
    parallel: bool,
}

impl<'s> BatchMethod<'s> {
    /// A bank over `stream`.
    ///
    /// # Errors
    /// The bank's message.
    pub fn new(label: &str, stream: Stream<'s>) -> Result<Self, String> {
        Ok(Self {
            label: label.to_string(),
            bank: Bank::new(&[stream]).map_err(|e| e.to_string())?,
            started: false,
            #[cfg(feature = "rayon")]
            parallel: false,
        })
    }

    /// A bank over `stream` that plays with `Bank::advance_parallel` (rayon's threads).
    ///
    /// # Errors
    /// The bank's message.
    #[cfg(feature = "rayon")]
    pub fn parallel(label: &str, stream: Stream<'s>) -> Result<Self, String> {
        let mut method = Self::new(label, stream)?;
        method.parallel = true;
        Ok(method)
    }
}

impl Method for BatchMethod<'_> {
    fn name(&self) -> String {
        self.label.clone()
    }
    fn reset(&mut self) {
        // START_FRAME is finite: seek cannot fail.
        let _ = self.bank.seek(START_FRAME);
        self.started = false;
    }
    fn frame(&mut self, out: &mut [f32]) {
        if self.started {
            #[cfg(feature = "rayon")]
            if self.parallel {
                self.bank.advance_parallel();
            } else {
                self.bank.advance();
            }
            #[cfg(not(feature = "rayon"))]
            self.bank.advance();
        }
        self.started = true;
        let _ = self.bank.write_f32(out);
    }
}

/// One `TrackPlayer` per channel.
pub struct PlayerMethod<'s> {
    players: Vec<TrackPlayer<'s>>,
    started: bool,
}

impl<'s> PlayerMethod<'s> {
    /// Cursors over every track of `stream`.
    #[must_use]
    pub fn new(stream: Stream<'s>) -> Self {
        Self {
            players: stream.tracks().map(TrackPlayer::new).collect(),
            started: false,
        }
    }
}

impl Method for PlayerMethod<'_> {
    fn name(&self) -> String {
        "inbetween-player-f32".into()
    }
    fn reset(&mut self) {
        for p in &mut self.players {
            let _ = p.seek(START_FRAME);
        }
        self.started = false;
    }
    fn frame(&mut self, out: &mut [f32]) {
        let started = self.started;
        let mut at = 0;
        for p in &mut self.players {
            if started {
                p.advance();
            }
            at += p.write_f32(out.get_mut(at..).unwrap_or_default());
        }
        self.started = true;
    }
}

/// Exact evaluation with a cursor (a segment index per channel).
pub struct ExactMethod<'d> {
    tracks: &'d [Track],
    cursor: Vec<usize>,
    frame: f64,
}

impl<'d> ExactMethod<'d> {
    /// Over the document's tracks.
    #[must_use]
    pub fn new(doc: &'d Document) -> Self {
        Self {
            tracks: doc.tracks(),
            cursor: vec![0; doc.tracks().len()],
            frame: START_FRAME,
        }
    }
}

impl Method for ExactMethod<'_> {
    fn name(&self) -> String {
        "inbetween-exact".into()
    }
    fn reset(&mut self) {
        self.frame = START_FRAME - 1.0;
        self.cursor.iter_mut().for_each(|c| *c = 0);
    }
    fn frame(&mut self, out: &mut [f32]) {
        self.frame += 1.0;
        let f = self.frame;
        let mut at = 0;
        for (t, c) in self.tracks.iter().zip(&mut self.cursor) {
            let keys = t.keys();
            while *c + 2 < keys.len() && keys[*c + 1].frame <= f {
                *c += 1;
            }
            for x in t.eval_segment(*c, f).as_slice() {
                if let Some(o) = out.get_mut(at) {
                    *o = *x as f32;
                }
                at += 1;
            }
        }
    }
}

/// Hand-written cubic Hermite with a cached segment per channel: each segment's endpoint values
/// and tangents (from the exact curve) are precomputed; on entering a segment its power-basis
/// coefficients are cached, then each frame is one Horner evaluation.
pub struct HermiteMethod {
    /// Per channel, `KEYS` key frames.
    frames: Vec<f32>,
    /// Per channel and segment: p0, m0, p1, m1 (tangents per unit of u).
    segments: Vec<[f32; 4]>,
    cache: Vec<HermiteCache>,
    frame: f32,
}

/// Where a channel is in its keys: the segment, its first frame and 1 / length, and the frame
/// at which the next segment starts (`f32::MAX` in the last one).
#[derive(Debug, Clone, Copy, Default)]
struct SegmentClock {
    segment: u32,
    next: f32,
    start: f32,
    inv_len: f32,
}

impl SegmentClock {
    /// Segment `segment` of a channel with key frames `f` (`KEYS` of them).
    fn at(f: &[f32], segment: usize) -> Self {
        Self {
            segment: segment as u32,
            start: f[segment],
            next: if segment + 2 < KEYS {
                f[segment + 1]
            } else {
                f32::MAX
            },
            inv_len: 1.0 / (f[segment + 1] - f[segment]),
        }
    }

    /// The segment holding `START_FRAME` among key frames `f`.
    fn first_segment(f: &[f32]) -> usize {
        f.partition_point(|&k| k <= START_FRAME as f32)
            .clamp(1, KEYS - 1)
            - 1
    }
}

/// A channel's cached Hermite segment.
#[derive(Debug, Clone, Copy, Default)]
struct HermiteCache {
    clock: SegmentClock,
    c: [f32; 4],
}

impl HermiteMethod {
    /// Tangents from the exact curve: the cubic through u = 0, 1/3, 2/3, 1 of each segment.
    #[must_use]
    pub fn new(doc: &Document) -> Self {
        let mut frames = Vec::new();
        let mut segments = Vec::new();
        for t in doc.tracks() {
            let keys = t.keys();
            for i in 0..KEYS {
                frames.push(keys.get(i).map_or(f32::MAX, |k| k.frame as f32));
            }
            for i in 0..KEYS - 1 {
                let p = |u: f64| {
                    if i + 1 < keys.len() {
                        t.eval_segment_at(i, u)
                            .as_slice()
                            .first()
                            .copied()
                            .unwrap_or(0.0)
                    } else {
                        0.0
                    }
                };
                let (y0, y1, y2, y3) = (p(0.0), p(1.0 / 3.0), p(2.0 / 3.0), p(1.0));
                // Derivatives at the ends of the interpolating cubic.
                let m0 = (-11.0 * y0 + 18.0 * y1 - 9.0 * y2 + 2.0 * y3) / 2.0;
                let m1 = (-2.0 * y0 + 9.0 * y1 - 18.0 * y2 + 11.0 * y3) / 2.0;
                segments.push([y0 as f32, m0 as f32, y3 as f32, m1 as f32]);
            }
        }
        let channels = doc.tracks().len();
        Self {
            frames,
            segments,
            cache: vec![HermiteCache::default(); channels],
            frame: START_FRAME as f32,
        }
    }

    fn enter(&mut self, channel: usize, segment: usize) {
        let f = &self.frames[channel * KEYS..(channel + 1) * KEYS];
        let [p0, m0, p1, m1] = self.segments[channel * (KEYS - 1) + segment];
        let c = &mut self.cache[channel];
        c.clock = SegmentClock::at(f, segment);
        // p(u) = p0 + m0 u + (3(p1 − p0) − 2 m0 − m1) u² + (2(p0 − p1) + m0 + m1) u³
        c.c = [
            p0,
            m0,
            3.0 * (p1 - p0) - 2.0 * m0 - m1,
            2.0 * (p0 - p1) + m0 + m1,
        ];
    }
}

impl Method for HermiteMethod {
    fn name(&self) -> String {
        "hermite-cached".into()
    }
    fn reset(&mut self) {
        self.frame = START_FRAME as f32 - 1.0;
        for ch in 0..self.cache.len() {
            let s = SegmentClock::first_segment(&self.frames[ch * KEYS..(ch + 1) * KEYS]);
            self.enter(ch, s);
        }
    }
    fn frame(&mut self, out: &mut [f32]) {
        self.frame += 1.0;
        let f = self.frame;
        for (ch, o) in out.iter_mut().enumerate().take(self.cache.len()) {
            if f >= self.cache[ch].clock.next {
                let s = self.cache[ch].clock.segment as usize + 1;
                self.enter(ch, s);
            }
            let c = &self.cache[ch];
            let u = (f - c.clock.start) * c.clock.inv_len;
            *o = ((c.c[3] * u + c.c[2]) * u + c.c[1]) * u + c.c[0];
        }
    }
}

/// Hand-written slerp with a cached segment per channel (the strongest simple alternative for
/// rotations): on entering a segment its end quaternions (the second negated for the shortest
/// arc), angle and 1 / sin(angle) are cached; each frame is then Shoemake's formula
/// `q(u) = (sin((1 − u)θ) q0 + sin(uθ) q1) / sin θ`, two sines and eight multiply-adds, in f32.
pub struct SlerpCachedMethod {
    /// Per channel, `KEYS` key frames.
    frames: Vec<f32>,
    /// Per channel, `KEYS` keys.
    keys: Vec<[f32; 4]>,
    cache: Vec<SlerpCache>,
    frame: f32,
}

/// A channel's cached slerp segment.
#[derive(Debug, Clone, Copy, Default)]
struct SlerpCache {
    clock: SegmentClock,
    theta: f32,
    inv_sin: f32,
    q0: [f32; 4],
    q1: [f32; 4],
}

impl SlerpCachedMethod {
    /// Over the quaternion workload's tracks (every track must have `KEYS` keys).
    #[must_use]
    pub fn new(doc: &Document) -> Self {
        let mut frames = Vec::new();
        let mut keys = Vec::new();
        for t in doc.tracks() {
            for i in 0..KEYS {
                let key = t.keys().get(i);
                frames.push(key.map_or(f32::MAX, |k| k.frame as f32));
                let v = key.map_or([0.0, 0.0, 0.0, 1.0], |k| {
                    let q = k.value.as_slice();
                    std::array::from_fn(|c| q.get(c).copied().unwrap_or(0.0) as f32)
                });
                keys.push(v);
            }
        }
        let channels = doc.tracks().len();
        Self {
            frames,
            keys,
            cache: vec![SlerpCache::default(); channels],
            frame: START_FRAME as f32,
        }
    }

    fn enter(&mut self, channel: usize, segment: usize) {
        let f = &self.frames[channel * KEYS..(channel + 1) * KEYS];
        let q0 = self.keys[channel * KEYS + segment];
        let mut q1 = self.keys[channel * KEYS + segment + 1];
        let mut dot: f32 = q0.iter().zip(&q1).map(|(a, b)| a * b).sum();
        if dot < 0.0 {
            q1 = q1.map(|x| -x);
            dot = -dot;
        }
        let theta = dot.min(1.0).acos();
        let c = &mut self.cache[channel];
        c.clock = SegmentClock::at(f, segment);
        c.theta = theta;
        c.inv_sin = if theta > 1e-4 { 1.0 / theta.sin() } else { 0.0 };
        c.q0 = q0;
        c.q1 = q1;
    }
}

impl Method for SlerpCachedMethod {
    fn name(&self) -> String {
        "slerp-cached".into()
    }
    fn reset(&mut self) {
        self.frame = START_FRAME as f32 - 1.0;
        for ch in 0..self.cache.len() {
            let s = SegmentClock::first_segment(&self.frames[ch * KEYS..(ch + 1) * KEYS]);
            self.enter(ch, s);
        }
    }
    fn frame(&mut self, out: &mut [f32]) {
        self.frame += 1.0;
        let f = self.frame;
        for (ch, o) in out.chunks_exact_mut(4).enumerate().take(self.cache.len()) {
            if f >= self.cache[ch].clock.next {
                let s = self.cache[ch].clock.segment as usize + 1;
                self.enter(ch, s);
            }
            let c = &self.cache[ch];
            let u = (f - c.clock.start) * c.clock.inv_len;
            let (w0, w1) = if c.inv_sin == 0.0 {
                (1.0 - u, u)
            } else {
                (
                    ((1.0 - u) * c.theta).sin() * c.inv_sin,
                    (u * c.theta).sin() * c.inv_sin,
                )
            };
            for ((o, a), b) in o.iter_mut().zip(&c.q0).zip(&c.q1) {
                *o = w0 * a + w1 * b;
            }
        }
    }
}

/// A streaming read-modify-write `a[i] += b[i]` over `bytes` bytes of f64 (half in `a`, half
/// in `b`), then a copy of `channels` values out: the memory traffic floor of the batch player.
pub struct BandwidthMethod {
    a: Vec<f64>,
    b: Vec<f64>,
}

impl BandwidthMethod {
    /// Over `bytes` bytes.
    #[must_use]
    pub fn new(bytes: usize) -> Self {
        let n = (bytes / 16).max(1);
        Self {
            a: vec![0.0; n],
            b: vec![1e-9; n],
        }
    }
}

impl Method for BandwidthMethod {
    fn name(&self) -> String {
        "bandwidth-ceiling".into()
    }
    fn reset(&mut self) {}
    fn frame(&mut self, out: &mut [f32]) {
        for (x, y) in self.a.iter_mut().zip(&self.b) {
            *x += *y;
        }
        for (o, x) in out.iter_mut().zip(&self.a) {
            *o = *x as f32;
        }
    }
}

/// Plays `frames` frames and returns the largest |output − exact| over all channels and frames.
pub fn max_error(method: &mut dyn Method, doc: &Document, frames: usize) -> f64 {
    let mut out = vec![0.0f32; width(doc)];
    let mut worst: f64 = 0.0;
    method.reset();
    for i in 0..frames {
        method.frame(&mut out);
        let f = START_FRAME + i as f64;
        let mut at = 0;
        for t in doc.tracks() {
            for exact in t.eval(f).as_slice() {
                let played = out.get(at).map_or(f64::NAN, |o| f64::from(*o));
                worst = worst.max((played - exact).abs());
                if played.is_nan() {
                    return f64::NAN;
                }
                at += 1;
            }
        }
    }
    worst
}

/// Values per frame of `doc`: the sum of its tracks' components.
#[must_use]
pub fn width(doc: &Document) -> usize {
    doc.tracks()
        .iter()
        .map(|t| t.value_type().components())
        .sum()
}

/// Median nanoseconds per channel-frame over `runs` runs of `frames` frames, writing rows of
/// `width` values.
pub fn time(
    method: &mut dyn Method,
    width: usize,
    channels: usize,
    frames: usize,
    runs: usize,
) -> f64 {
    let mut out = vec![0.0f32; width];
    let mut samples: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            method.reset();
            let start = Instant::now();
            for _ in 0..frames {
                method.frame(&mut out);
                black_box(&mut out);
            }
            start.elapsed().as_nanos() as f64 / (channels * frames).max(1) as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Largest error allowed before timing: the compile tolerance (1e-6 × scale 100, by default)
/// plus f32 output rounding (values ≤ ~150), with a margin.
pub const CHECK_TOLERANCE: f64 = 2e-4;

/// What one compile of a workload cost and made.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileFigure {
    /// `scalar` or `quaternion`.
    pub workload: &'static str,
    /// Stream precision.
    pub precision: Precision,
    /// Keys compiled (all tracks).
    pub keys: usize,
    /// Wall time of `Document::compile` (fitting and verification at every frame included).
    pub seconds: f64,
    /// Bytes of the `.ibs` stream.
    pub stream_bytes: usize,
    /// Bytes of the raw keys as f32 (a frame and the components of a value per key).
    pub raw_f32_bytes: usize,
    /// Bytes of the document as JSON (`Document::to_json_string`).
    pub json_bytes: usize,
}

/// Everything `inbetween bench` measured.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BenchReport {
    /// Playback timings.
    pub results: Vec<BenchResult>,
    /// Compile figures.
    pub compile: Vec<CompileFigure>,
}

/// Compiles `doc` in every precision, recording a [`CompileFigure`] for each.
fn compile_all(
    doc: &Document,
    workload: &'static str,
    figures: &mut Vec<CompileFigure>,
) -> Vec<(Precision, Vec<u8>)> {
    let keys: usize = doc.tracks().iter().map(|t| t.keys().len()).sum();
    let raw_f32_bytes: usize = doc
        .tracks()
        .iter()
        .map(|t| t.keys().len() * 4 * (1 + t.value_type().components()))
        .sum();
    let json_bytes = doc.to_json_string().len();
    let mut out = Vec::new();
    for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
        let start = Instant::now();
        let Ok(bytes) = compile(doc, precision) else {
            continue;
        };
        figures.push(CompileFigure {
            workload,
            precision,
            keys,
            seconds: start.elapsed().as_secs_f64(),
            stream_bytes: bytes.len(),
            raw_f32_bytes,
            json_bytes,
        });
        out.push((precision, bytes));
    }
    out
}

/// Checks each method against exact evaluation of `reference`, then times it; a method whose
/// check fails gets `NaN` times.
fn check_and_time(
    methods: &mut [Box<dyn Method + '_>],
    reference: &Document,
    (workload, channels): (&'static str, usize),
    (frames, runs): (usize, usize),
    results: &mut Vec<BenchResult>,
    status: &mut dyn FnMut(&str),
) {
    let width = width(reference);
    for m in methods {
        status(&format!("{workload} × {channels}: {}", m.name()));
        let checked = m.name() == "bandwidth-ceiling"
            || max_error(m.as_mut(), reference, frames.min(100)) <= CHECK_TOLERANCE;
        let ns = if checked {
            time(m.as_mut(), width, channels, frames, runs)
        } else {
            f64::NAN
        };
        results.push(BenchResult {
            method: m.name(),
            workload,
            channels,
            ns_per_channel_frame: ns,
            channel_frames_per_s: 1e9 / ns,
        });
    }
}

/// Our methods over compiled `bytes`: a bank per precision and, for f32, one player per track.
/// Returns them with the f32 bank's state bytes.
fn stream_methods(bytes: &[(Precision, Vec<u8>)]) -> (Vec<Box<dyn Method + '_>>, usize) {
    let mut methods: Vec<Box<dyn Method + '_>> = Vec::new();
    let mut state_bytes = 0;
    for (precision, b) in bytes {
        let Ok(stream) = Stream::from_bytes(b) else {
            continue;
        };
        if let Ok(m) = BatchMethod::new(&format!("inbetween-batch-{}", precision.name()), stream) {
            if *precision == Precision::F32 {
                state_bytes = m.bank.state_bytes();
            }
            methods.push(Box::new(m));
        }
        if *precision == Precision::F32 {
            methods.push(Box::new(PlayerMethod::new(stream)));
            #[cfg(feature = "rayon")]
            if let Ok(m) = BatchMethod::parallel("inbetween-batch-f32-parallel", stream) {
                methods.push(Box::new(m));
            }
        }
    }
    (methods, state_bytes)
}

/// Times every CLI method on the scalar workload at 1 000 and 100 000 channels and on the
/// quaternion workload at 1 000 and 10 000 rotations (`quick`: 1 000 and 10 000 scalars, 1 000
/// rotations → 300, fewer frames and runs), and records the compiler's figures.
///
/// `status` is called with what is being done (compiling a workload, checking or timing a
/// method) before each step.
pub fn run_bench_with_status(quick: bool, status: &mut dyn FnMut(&str)) -> BenchReport {
    let sizes: &[usize] = if quick {
        &[1_000, 10_000]
    } else {
        &[1_000, 100_000]
    };
    let quat_sizes: &[usize] = if quick { &[300] } else { &[1_000, 10_000] };
    let shape = if quick { (100, 3) } else { (300, 5) };
    let mut report = BenchReport::default();
    for &channels in sizes {
        let keys = workload_keys(channels, 5);
        let Ok(doc) = workload_document(&keys, None) else {
            continue;
        };
        status(&format!("compiling {channels} scalar channels"));
        let bytes = compile_all(&doc, "scalar", &mut report.compile);
        let (mut methods, state_bytes) = stream_methods(&bytes);
        methods.push(Box::new(ExactMethod::new(&doc)));
        methods.push(Box::new(HermiteMethod::new(&doc)));
        methods.push(Box::new(BandwidthMethod::new(state_bytes)));
        check_and_time(
            &mut methods,
            &doc,
            ("scalar", channels),
            shape,
            &mut report.results,
            status,
        );
    }
    for &channels in quat_sizes {
        let Ok(doc) = quat_workload_document(channels, 9) else {
            continue;
        };
        status(&format!("compiling {channels} rotations"));
        let bytes = compile_all(&doc, "quaternion", &mut report.compile);
        let low_degree = compile_with_degree(&doc, Precision::F32, 4).unwrap_or_default();
        let (mut methods, state_bytes) = stream_methods(&bytes);
        if let Some(m) = Stream::from_bytes(&low_degree)
            .ok()
            .and_then(|s| BatchMethod::new("inbetween-batch-f32-degree4", s).ok())
        {
            methods.push(Box::new(m));
        }
        methods.push(Box::new(ExactMethod::new(&doc)));
        methods.push(Box::new(SlerpCachedMethod::new(&doc)));
        methods.push(Box::new(BandwidthMethod::new(state_bytes)));
        check_and_time(
            &mut methods,
            &doc,
            ("quaternion", channels),
            shape,
            &mut report.results,
            status,
        );
    }
    report
}

/// Escapes a string for JSON.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A finite number, or `null`.
fn json_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".into()
    }
}

/// `{"machine": ..., "results": [{"method", "workload", "channels", "ns_per_channel_frame",
/// "channel_frames_per_s"}, ...], "compile": [{"workload", "precision", "keys", "seconds",
/// "keys_per_s", "stream_bytes", "stream_bytes_per_key", "raw_f32_bytes_per_key",
/// "json_bytes_per_key"}, ...]}` (times that could not be measured are `null`).
#[must_use]
pub fn to_json(machine: &str, report: &BenchReport) -> String {
    let rows: Vec<String> = report
        .results
        .iter()
        .map(|r| {
            format!(
                "{{\"method\": {}, \"workload\": {}, \"channels\": {}, \"ns_per_channel_frame\": {}, \"channel_frames_per_s\": {}}}",
                json_string(&r.method),
                json_string(r.workload),
                r.channels,
                json_number(r.ns_per_channel_frame),
                json_number(r.channel_frames_per_s)
            )
        })
        .collect();
    let compile: Vec<String> = report
        .compile
        .iter()
        .map(|c| {
            let per_key = |b: usize| json_number(b as f64 / c.keys.max(1) as f64);
            format!(
                "{{\"workload\": {}, \"precision\": {}, \"keys\": {}, \"seconds\": {}, \"keys_per_s\": {}, \"stream_bytes\": {}, \"stream_bytes_per_key\": {}, \"raw_f32_bytes_per_key\": {}, \"json_bytes_per_key\": {}}}",
                json_string(c.workload),
                json_string(c.precision.name()),
                c.keys,
                json_number(c.seconds),
                json_number(c.keys as f64 / c.seconds),
                c.stream_bytes,
                per_key(c.stream_bytes),
                per_key(c.raw_f32_bytes),
                per_key(c.json_bytes)
            )
        })
        .collect();
    format!(
        "{{\"machine\": {}, \"results\": [{}], \"compile\": [{}]}}",
        json_string(machine),
        rows.join(", "),
        compile.join(", ")
    )
}

/// A one-line description of this machine: the CPU model (from `/proc/cpuinfo` where it exists)
/// and the number of hardware threads.
#[must_use]
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    format!("{model}, {threads} threads, {}", std::env::consts::OS)
}

/// The report as text tables: per workload, method, channels, ns per channel-frame,
/// channel-frames per second and the ratio to `inbetween-batch-f32` at the same size (> 1:
/// slower than it); then the compiler's figures.
#[must_use]
pub fn to_table(report: &BenchReport) -> String {
    let mut out = format!(
        "{:<22} {:<10} {:>9} {:>12} {:>14} {:>10}\n",
        "method", "workload", "channels", "ns/ch-frame", "ch-frames/s", "vs batch"
    );
    for r in &report.results {
        let batch = report
            .results
            .iter()
            .find(|b| {
                b.channels == r.channels
                    && b.workload == r.workload
                    && b.method == "inbetween-batch-f32"
            })
            .map_or(f64::NAN, |b| b.ns_per_channel_frame);
        out.push_str(&format!(
            "{:<22} {:<10} {:>9} {:>12.3} {:>14.3e} {:>9.2}x\n",
            r.method,
            r.workload,
            r.channels,
            r.ns_per_channel_frame,
            r.channel_frames_per_s,
            r.ns_per_channel_frame / batch
        ));
    }
    out.push_str(&format!(
        "\n{:<10} {:<9} {:>9} {:>9} {:>12} {:>14} {:>11} {:>10}\n",
        "compile",
        "precision",
        "keys",
        "seconds",
        "keys/s",
        "stream B/key",
        "f32 B/key",
        "JSON B/key"
    ));
    for c in &report.compile {
        let per_key = |b: usize| b as f64 / c.keys.max(1) as f64;
        out.push_str(&format!(
            "{:<10} {:<9} {:>9} {:>9.2} {:>12.3e} {:>14.2} {:>11.2} {:>10.2}\n",
            c.workload,
            c.precision.name(),
            c.keys,
            c.seconds,
            c.keys as f64 / c.seconds,
            per_key(c.stream_bytes),
            per_key(c.raw_f32_bytes),
            per_key(c.json_bytes)
        ));
    }
    out
}
