//! `inbetween bench`: playback speed of the batch player, the single-track player, exact evaluation and hand-written baselines on one workload, timed in one run (medians).
//!
//! Workload (issue 5): `channels` scalar tracks of 32 keys 8..64 frames apart (integer frames),
//! kinds drawn per key from catmull_rom, tcb, bezier and linear, values in ±100; frames
//! `START_FRAME..START_FRAME + frames` are played one by one (every track is past its first
//! segment and before its last two there, so peers without end handling play the same frames).
//! Every method's output is checked against exact evaluation (`Track::eval`) before it is
//! timed. A channel-frame is one channel's value produced into a caller-owned buffer.

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

/// Compiles the workload in `precision`.
///
/// # Errors
/// The compiler's message.
pub fn compile(doc: &Document, precision: Precision) -> Result<Vec<u8>, String> {
    let options = CompileOptions {
        precision,
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
        })
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
        for (p, o) in self.players.iter_mut().zip(out.iter_mut()) {
            if started {
                p.advance();
            }
            *o = p.component(0) as f32;
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
        for ((t, c), o) in self.tracks.iter().zip(&mut self.cursor).zip(out.iter_mut()) {
            let keys = t.keys();
            while *c + 2 < keys.len() && keys[*c + 1].frame <= f {
                *c += 1;
            }
            *o = t
                .eval_segment(*c, f)
                .as_slice()
                .first()
                .copied()
                .unwrap_or(0.0) as f32;
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

/// A channel's cached segment.
#[derive(Debug, Clone, Copy, Default)]
struct HermiteCache {
    segment: u32,
    next: f32,
    start: f32,
    inv_len: f32,
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
        c.segment = segment as u32;
        c.start = f[segment];
        c.next = if segment + 2 < KEYS {
            f[segment + 1]
        } else {
            f32::MAX
        };
        c.inv_len = 1.0 / (f[segment + 1] - f[segment]);
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
            let f = &self.frames[ch * KEYS..(ch + 1) * KEYS];
            let s = f
                .partition_point(|&k| k <= START_FRAME as f32)
                .clamp(1, KEYS - 1)
                - 1;
            self.enter(ch, s);
        }
    }
    fn frame(&mut self, out: &mut [f32]) {
        self.frame += 1.0;
        let f = self.frame;
        for (ch, o) in out.iter_mut().enumerate().take(self.cache.len()) {
            if f >= self.cache[ch].next {
                let s = self.cache[ch].segment as usize + 1;
                self.enter(ch, s);
            }
            let c = &self.cache[ch];
            let u = (f - c.start) * c.inv_len;
            *o = ((c.c[3] * u + c.c[2]) * u + c.c[1]) * u + c.c[0];
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
    let channels = doc.tracks().len();
    let mut out = vec![0.0f32; channels];
    let mut worst: f64 = 0.0;
    method.reset();
    for i in 0..frames {
        method.frame(&mut out);
        let f = START_FRAME + i as f64;
        for (t, o) in doc.tracks().iter().zip(&out) {
            let exact = t.eval(f).as_slice().first().copied().unwrap_or(0.0);
            worst = worst.max((f64::from(*o) - exact).abs());
        }
    }
    worst
}

/// Median nanoseconds per channel-frame over `runs` runs of `frames` frames.
pub fn time(method: &mut dyn Method, channels: usize, frames: usize, runs: usize) -> f64 {
    let mut out = vec![0.0f32; channels];
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

/// Times every CLI method at 1 000 and 100 000 channels (`quick`: 1 000 and 10 000, fewer
/// frames and runs). A method whose check fails is reported with `NaN` times.
#[must_use]
pub fn run_bench(quick: bool) -> Vec<BenchResult> {
    let sizes: &[usize] = if quick {
        &[1_000, 10_000]
    } else {
        &[1_000, 100_000]
    };
    let (frames, runs) = if quick { (100, 3) } else { (300, 5) };
    let mut results = Vec::new();
    for &channels in sizes {
        let keys = workload_keys(channels, 5);
        let Ok(doc) = workload_document(&keys, None) else {
            continue;
        };
        let bytes: Vec<(Precision, Vec<u8>)> = [Precision::F32, Precision::F64, Precision::Fixed]
            .into_iter()
            .filter_map(|p| compile(&doc, p).ok().map(|b| (p, b)))
            .collect();
        let mut methods: Vec<Box<dyn Method + '_>> = Vec::new();
        let mut state_bytes = 0;
        for (precision, b) in &bytes {
            let Ok(stream) = Stream::from_bytes(b) else {
                continue;
            };
            if let Ok(m) =
                BatchMethod::new(&format!("inbetween-batch-{}", precision.name()), stream)
            {
                if *precision == Precision::F32 {
                    state_bytes = m.bank.state_bytes();
                }
                methods.push(Box::new(m));
            }
            if *precision == Precision::F32 {
                methods.push(Box::new(PlayerMethod::new(stream)));
            }
        }
        methods.push(Box::new(ExactMethod::new(&doc)));
        methods.push(Box::new(HermiteMethod::new(&doc)));
        methods.push(Box::new(BandwidthMethod::new(state_bytes)));
        for m in &mut methods {
            let checked = m.name() == "bandwidth-ceiling"
                || max_error(m.as_mut(), &doc, frames.min(100)) <= CHECK_TOLERANCE;
            let ns = if checked {
                time(m.as_mut(), channels, frames, runs)
            } else {
                f64::NAN
            };
            results.push(BenchResult {
                method: m.name(),
                channels,
                ns_per_channel_frame: ns,
                channel_frames_per_s: 1e9 / ns,
            });
        }
    }
    results
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

/// `{"machine": ..., "results": [{"method", "channels", "ns_per_channel_frame",
/// "channel_frames_per_s"}, ...]}` (times that could not be measured are `null`).
#[must_use]
pub fn to_json(machine: &str, results: &[BenchResult]) -> String {
    let rows: Vec<String> = results
        .iter()
        .map(|r| {
            format!(
                "{{\"method\": {}, \"channels\": {}, \"ns_per_channel_frame\": {}, \"channel_frames_per_s\": {}}}",
                json_string(&r.method),
                r.channels,
                json_number(r.ns_per_channel_frame),
                json_number(r.channel_frames_per_s)
            )
        })
        .collect();
    format!(
        "{{\"machine\": {}, \"results\": [{}]}}",
        json_string(machine),
        rows.join(", ")
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

/// The results as a text table: method, channels, ns per channel-frame, channel-frames per
/// second, and the ratio to `inbetween-batch-f32` at the same size (> 1: slower than it).
#[must_use]
pub fn to_table(results: &[BenchResult]) -> String {
    let mut out = format!(
        "{:<22} {:>9} {:>12} {:>14} {:>10}\n",
        "method", "channels", "ns/ch-frame", "ch-frames/s", "vs batch"
    );
    for r in results {
        let batch = results
            .iter()
            .find(|b| b.channels == r.channels && b.method == "inbetween-batch-f32")
            .map_or(f64::NAN, |b| b.ns_per_channel_frame);
        out.push_str(&format!(
            "{:<22} {:>9} {:>12.3} {:>14.3e} {:>9.2}x\n",
            r.method,
            r.channels,
            r.ns_per_channel_frame,
            r.channel_frames_per_s,
            r.ns_per_channel_frame / batch
        ));
    }
    out
}
