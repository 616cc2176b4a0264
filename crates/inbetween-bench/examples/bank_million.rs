//! Banks over compiled streams read from files (e.g. the benchmark's 10^6-channel scalar workload in f32 and in fixed point, which this machine cannot build beside other work) against `streaming-ceiling`, in alternating rounds in one process; prints ns per channel-frame per round (wall and CPU time), the ratios, the load average, `Bank::new` time and state bytes.
//!
//! `cargo run --release -p inbetween-bench --example bank_million STREAMS [FRAMES] [ROUNDS]
//! [CHANNELS]` (default 300 frames from `START_FRAME`, as the full bench, and 7 rounds).
//! STREAMS is one file or several separated by commas, each `PATH` (f32) or `fixed=PATH`;
//! each bank is named by its stream's precision (`inbetween-batch-f32`,
//! `inbetween-batch-fixed`). A file is read if it exists; otherwise, with CHANNELS, the scalar
//! workload of that many channels is compiled in that precision (as `inbetween bench` does)
//! and written there first. Each round is one `time_interleaved` sample of each method (the
//! banks in the order given, then the ceiling: wall time, as the bench) and one sample of each
//! by this thread's CPU time (`/proc/thread-self/stat`, at least 3·10^8 channel-frames: on a
//! machine with more runnable processes than cores, wall time mostly measures the wait for a
//! core). Then the medians, spreads and ratios (the ceiling's time over each method's, and
//! each method's over the first bank's, round by round: `inbetween-batch-fixed` over
//! `inbetween-batch-f32` is issue 12's fixed-point ratio), and the per-frame wall-time medians
//! split into the epoch's first frames (frame `≡ 0 mod 16`, where the bank moves to a new
//! block) and the others. Each bank checks every lane against `TrackPlayer` in `Bank::new`;
//! exact values at 10^6 are the bench's to check.

use std::hint::black_box;
use std::time::Instant;

use inbetween::stream::{Precision, Stream};
use inbetween_bench::{
    compile, time_interleaved, workload_document, workload_keys, BatchMethod, Method,
    StreamingCeiling, START_FRAME,
};

/// Frames per epoch of the bank (`batch::horner::EPOCH`).
const EPOCH: usize = 16;

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// User and system CPU time of this thread so far, in seconds, from `/proc/thread-self/stat`
/// (fields 14 and 15, in ticks of 1/100 s): unlike wall time, it leaves out the time the
/// thread waits for a core, which on a machine shared by more processes than cores is most
/// of a long run.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    ticks(11)
        .zip(ticks(12))
        .map_or(f64::NAN, |(u, s)| (u + s) / 100.0)
}

/// Channel-frames of one CPU-timed sample (at least): 3·10^8, about a second of CPU.
const CPU_SAMPLE: usize = 300_000_000;

/// CPU nanoseconds per channel-frame of `frames` frames from `START_FRAME`, played again
/// until [`CPU_SAMPLE`] channel-frames; the resets (a seek: the bank puts its blocks back)
/// are left out, as `time_interleaved` leaves them out.
fn cpu_sample(method: &mut dyn Method, out: &mut [f32], frames: usize) -> f64 {
    let per_pass = (out.len() * frames).max(1);
    let passes = CPU_SAMPLE.div_ceil(per_pass);
    let mut seconds = 0.0;
    for _ in 0..passes {
        method.reset();
        let start = cpu_seconds();
        for _ in 0..frames {
            method.frame(out);
            black_box(&mut *out);
        }
        seconds += cpu_seconds() - start;
    }
    seconds * 1e9 / (per_pass * passes) as f64
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn spread(v: &[f64]) -> (f64, f64) {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo, hi)
}

/// The stream at `path`, compiled in `precision` from the scalar workload of `channels`
/// channels first when the file does not exist.
fn stream_bytes(
    path: &str,
    precision: Precision,
    channels: Option<usize>,
) -> Result<Vec<u8>, String> {
    if let Ok(bytes) = std::fs::read(path) {
        return Ok(bytes);
    }
    let channels = channels.ok_or_else(|| format!("{path}: no such file and no CHANNELS"))?;
    let started = Instant::now();
    let doc = workload_document(&workload_keys(channels, 5), None)?;
    let bytes = compile(&doc, precision)?;
    drop(doc);
    std::fs::write(path, &bytes).map_err(|e| format!("{path}: {e}"))?;
    println!(
        "compiled {channels} channels in {:.0} s into {path}",
        started.elapsed().as_secs_f64()
    );
    Ok(bytes)
}

/// Each frame's time of one run of `frames` frames from `START_FRAME`, in ns per channel-frame.
fn frame_times(method: &mut dyn Method, out: &mut [f32], frames: usize) -> Vec<f64> {
    method.reset();
    let channels = out.len().max(1) as f64;
    (0..frames)
        .map(|_| {
            let start = Instant::now();
            method.frame(out);
            black_box(&mut *out);
            start.elapsed().as_nanos() as f64 / channels
        })
        .collect()
}

/// A `STREAMS` entry: its path and the precision it is compiled in when absent.
fn stream_spec(spec: &str) -> (&str, Precision) {
    match spec.strip_prefix("fixed=") {
        Some(path) => (path, Precision::Fixed),
        None => (spec, Precision::F32),
    }
}

/// The benchmark's name of a bank over a stream of `precision`.
fn bank_label(precision: Precision) -> &'static str {
    match precision {
        Precision::F32 => "inbetween-batch-f32",
        Precision::F64 => "inbetween-batch-f64",
        Precision::Fixed => "inbetween-batch-fixed",
    }
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let paths = args
        .next()
        .ok_or("usage: bank_million STREAMS [FRAMES] [ROUNDS] [CHANNELS]")?;
    let number = |a: Option<String>, default: usize, what: &str| {
        a.map_or(Ok(default), |n| n.parse::<usize>())
            .map_err(|e| format!("{what}: {e}"))
    };
    let frames = number(args.next(), 300, "FRAMES")?;
    let rounds = number(args.next(), 7, "ROUNDS")?;
    let channels = args
        .next()
        .map(|n| n.parse::<usize>())
        .transpose()
        .map_err(|e| format!("CHANNELS: {e}"))?;
    let mut files = Vec::new();
    for spec in paths.split(',') {
        let (path, precision) = stream_spec(spec);
        files.push((path, stream_bytes(path, precision, channels)?));
    }
    let mut banks = Vec::new();
    for (path, bytes) in &files {
        let stream = Stream::from_bytes(bytes).map_err(|e| e.to_string())?;
        let precision = stream.track(0).map_or(Precision::F32, |t| t.precision());
        let label = bank_label(precision);
        let started = Instant::now();
        let batch = BatchMethod::new(label, stream)?;
        let build = started.elapsed().as_secs_f64();
        let width = batch.bank.channels();
        println!(
            "{path}: {label}, {width} channels, stream {} bytes; Bank::new {build:.1} s, state {} \
             bytes ({:.0} per channel), {} Horner channels; load average {}",
            bytes.len(),
            batch.bank.state_bytes(),
            batch.bank.state_bytes() as f64 / width.max(1) as f64,
            batch.bank.horner_channels(),
            load_average()
        );
        banks.push(batch);
    }
    let width = banks.first().map_or(0, |b| b.bank.channels());
    if banks.iter().any(|b| b.bank.channels() != width) {
        return Err("the streams play different numbers of channels".into());
    }
    // The ceiling last: the ratios divide by its samples.
    let mut methods: Vec<Box<dyn Method + '_>> = Vec::new();
    for batch in banks {
        methods.push(Box::new(batch));
    }
    methods.push(Box::new(StreamingCeiling::new(width)));
    let mut wall = vec![Vec::new(); methods.len()];
    let mut cpu = vec![Vec::new(); methods.len()];
    let mut out = vec![0.0f32; width];
    for r in 0..rounds {
        let ns = time_interleaved(&mut methods, width, width, frames, 1);
        let line: Vec<String> = methods
            .iter_mut()
            .zip(&ns)
            .zip(&mut wall)
            .zip(&mut cpu)
            .map(|(((m, &w), wall), cpu)| {
                let c = cpu_sample(m.as_mut(), &mut out, frames);
                wall.push(w);
                cpu.push(c);
                format!("{} {w:.3} wall, {c:.3} cpu", m.name())
            })
            .collect();
        println!("round {r}: {}; load {}", line.join("; "), load_average());
    }
    let first = methods.first().map(|m| m.name()).unwrap_or_default();
    for (label, samples) in [("wall (time_interleaved)", &wall), ("cpu", &cpu)] {
        let ceiling = &samples[samples.len() - 1];
        let base = &samples[0];
        for (m, s) in methods.iter().zip(samples.iter()) {
            let ratio: Vec<f64> = ceiling.iter().zip(s).map(|(c, b)| c / b).collect();
            let to_first: Vec<f64> = s.iter().zip(base).map(|(b, f)| b / f).collect();
            let (lo, hi) = spread(s);
            let (rl, rh) = spread(&ratio);
            let (fl, fh) = spread(&to_first);
            println!(
                "{label:<24} {:<24} median {:.3} ({lo:.3}–{hi:.3}); ceiling / it {:.3} ({rl:.3}–{rh:.3}); it / {first} {:.3} ({fl:.3}–{fh:.3}) over {rounds} rounds of {frames} frames",
                m.name(),
                median(s),
                median(&ratio),
                median(&to_first)
            );
        }
    }
    let mut times = vec![vec![Vec::new(); frames]; methods.len()];
    for _ in 0..rounds.min(5) {
        for (m, t) in methods.iter_mut().zip(&mut times) {
            for (f, ns) in frame_times(m.as_mut(), &mut out, frames)
                .into_iter()
                .enumerate()
            {
                t[f].push(ns);
            }
        }
    }
    for (m, t) in methods.iter().zip(times) {
        let per_frame: Vec<f64> = t.iter().map(|v| median(v)).collect();
        let (mut switch, mut other) = (Vec::new(), Vec::new());
        for (i, ns) in per_frame.iter().enumerate() {
            let first = (START_FRAME as usize + i) % EPOCH == 0 && i > 0;
            if first { &mut switch } else { &mut other }.push(*ns);
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        println!(
            "per frame {:<20} all {:.3}  epoch's first frame {:.3}  other frames {:.3}",
            m.name(),
            mean(&per_frame),
            mean(&switch),
            mean(&other)
        );
    }
    Ok(())
}
