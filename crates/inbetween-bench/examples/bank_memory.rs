//! Where the batch player's time goes at scale, frame by frame: the f32 bank against `streaming-ceiling`, `hermite-soa-script`, both with and without the bank's software prefetch, and the ceiling moved to a fresh copy every 16 frames (as the bank moves to a new epoch block), timed frame by frame in alternating rounds in one process; prints ns per channel-frame by kind of frame.
//!
//! `cargo run --release -p inbetween-bench --example bank_memory [CHANNELS] [ROUNDS]` (default
//! 100 000 channels, 9 rounds of 100 frames from `START_FRAME` per method). Per frame index the
//! median over the rounds; then the mean of those medians over the epoch's first frames (frame
//! `≡ 0 mod 16`: the bank moves to a new block there) and over the other frames.

use std::hint::black_box;
use std::time::Instant;

use inbetween::stream::{Precision, Stream};
use inbetween_bench::{
    compile, max_error, workload_document, workload_keys, BatchMethod, HermiteSoaScript, Method,
    StreamingCeiling, CHECK_TOLERANCE, START_FRAME,
};

/// Frames per round.
const FRAMES: usize = 100;
/// Frames per epoch of the bank (`batch::horner::EPOCH`).
const EPOCH: usize = 16;

/// `streaming-ceiling` over `copies` copies of its arrays, moving to the next copy every
/// `EPOCH` frames of the workload (frame `START_FRAME + i`): the ceiling's loop with the
/// bank's block switches and nothing else.
struct MovingCeiling {
    copies: Vec<StreamingCeiling>,
    frame: usize,
}

impl Method for MovingCeiling {
    fn name(&self) -> String {
        "ceiling-moving".into()
    }
    fn reset(&mut self) {
        self.frame = 0;
        for c in &mut self.copies {
            c.reset();
        }
    }
    fn frame(&mut self, out: &mut [f32]) {
        let epoch = (START_FRAME as usize + self.frame) / EPOCH;
        self.frame += 1;
        let n = self.copies.len().max(1);
        if let Some(c) = self.copies.get_mut(epoch % n) {
            c.frame(out);
        }
    }
}

/// A baseline with the bank's software prefetch (named so).
struct Prefetching(Box<dyn Method>);

impl Method for Prefetching {
    fn name(&self) -> String {
        format!("{}+prefetch", self.0.name())
    }
    fn reset(&mut self) {
        self.0.reset();
    }
    fn frame(&mut self, out: &mut [f32]) {
        self.0.frame(out);
    }
}

/// Each frame's time of one round from `START_FRAME`, in ns per channel-frame.
fn round(method: &mut dyn Method, out: &mut [f32]) -> Vec<f64> {
    method.reset();
    let channels = out.len().max(1) as f64;
    (0..FRAMES)
        .map(|_| {
            let start = Instant::now();
            method.frame(out);
            black_box(&mut *out);
            start.elapsed().as_nanos() as f64 / channels
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let channels = args.next().map_or(Ok(100_000), |n| n.parse::<usize>());
    let channels = channels.map_err(|e| format!("CHANNELS: {e}"))?;
    let rounds = args.next().map_or(Ok(9), |n| n.parse::<usize>());
    let rounds = rounds.map_err(|e| format!("ROUNDS: {e}"))?;
    let doc = workload_document(&workload_keys(channels, 5), None)?;
    let bytes = compile(&doc, Precision::F32)?;
    let stream = Stream::from_bytes(&bytes).map_err(|e| e.to_string())?;
    let mut batch = BatchMethod::new("inbetween-batch-f32", stream)?;
    let error = max_error(&mut batch, &doc, 8);
    if error.is_nan() || error > CHECK_TOLERANCE {
        return Err(format!("the bank fails its check: error {error:e}"));
    }
    let copies = FRAMES.div_ceil(EPOCH) + 1;
    let mut methods: Vec<Box<dyn Method + '_>> = vec![
        Box::new(batch),
        Box::new(StreamingCeiling::new(channels)),
        Box::new(Prefetching(Box::new(StreamingCeiling::with_prefetch(
            channels,
        )))),
        Box::new(HermiteSoaScript::new(&doc)),
        Box::new(Prefetching(Box::new(HermiteSoaScript::with_prefetch(&doc)))),
        Box::new(MovingCeiling {
            copies: (0..copies)
                .map(|_| StreamingCeiling::new(channels))
                .collect(),
            frame: 0,
        }),
    ];
    let mut out = vec![0.0f32; channels];
    let mut times = vec![vec![Vec::new(); FRAMES]; methods.len()];
    for _ in 0..rounds {
        for (m, t) in methods.iter_mut().zip(&mut times) {
            for (frame, ns) in round(m.as_mut(), &mut out).into_iter().enumerate() {
                t[frame].push(ns);
            }
        }
    }
    println!("{channels} channels, {rounds} rounds of {FRAMES} frames (ns per channel-frame, per-frame medians)");
    for (m, t) in methods.iter().zip(times) {
        let per_frame: Vec<f64> = t.into_iter().map(median).collect();
        let (mut switch, mut other) = (Vec::new(), Vec::new());
        for (i, ns) in per_frame.iter().enumerate() {
            let first = (START_FRAME as usize + i) % EPOCH == 0 && i > 0;
            if first { &mut switch } else { &mut other }.push(*ns);
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        println!(
            "{:<22} all {:.3}  epoch's first frame {:.3}  other frames {:.3}",
            m.name(),
            mean(&per_frame),
            mean(&switch),
            mean(&other)
        );
        if std::env::var_os("BANK_MEMORY_FRAMES").is_some() {
            let line: Vec<String> = per_frame.iter().map(|x| format!("{x:.2}")).collect();
            println!("  {}", line.join(" "));
        }
    }
    Ok(())
}
