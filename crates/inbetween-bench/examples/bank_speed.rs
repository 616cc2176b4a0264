//! Playback speed of the batch player (Horner lanes and the exact bank) against `hermite-soa-script` and `streaming-ceiling` (the benchmark's own baselines), on the benchmark's scalar workload; prints ns per channel-frame, `Bank::new` time and memory.
//!
//! `cargo run --release -p inbetween-bench --example bank_speed [CHANNELS… | qROTATIONS…]` (default
//! `1000 100000 q300`; `q300`: the quaternion workload, 300 rotations = 1 200 channels).
//! Each size: compile in f32, f64 and fixed; check every method against exact evaluation;
//! then time each method (median of 5 runs of 300 frames from `START_FRAME`), all in one run so
//! the ratios are comparable on a noisy machine.

use std::time::Instant;

use inbetween::batch::Bank;
use inbetween::stream::{Precision, Stream};
use inbetween_bench::{
    compile, max_error, quat_workload_document, time, workload_document, workload_keys,
    BatchMethod, HermiteSoaScript, Method, StreamingCeiling, CHECK_TOLERANCE,
};

/// A bank built with `build` (new or exact), labelled, with its build time and heap bytes.
fn bank_method<'s>(
    label: &str,
    stream: Stream<'s>,
    build: fn(&[Stream<'s>]) -> Result<Bank<'s>, inbetween::batch::BatchError>,
) -> Result<(BatchMethod<'s>, f64), String> {
    let mut m = BatchMethod::new(label, stream)?;
    let started = Instant::now();
    m.bank = build(&[stream]).map_err(|e| e.to_string())?;
    Ok((m, started.elapsed().as_secs_f64()))
}

fn main() -> Result<(), String> {
    // Sizes: scalar channel counts; `qN` is a quaternion workload of N rotations.
    let sizes: Vec<String> = std::env::args().skip(1).collect();
    let sizes = if sizes.is_empty() {
        vec!["1000".into(), "100000".into(), "q300".into()]
    } else {
        sizes
    };
    for size in sizes {
        let (quat, doc) = workload(&size)?;
        let channels = inbetween_bench::width(&doc);
        let mut streams = Vec::new();
        for p in [Precision::F32, Precision::F64, Precision::Fixed] {
            streams.push((p, compile(&doc, p)?));
        }
        let mut methods: Vec<Box<dyn Method + '_>> = Vec::new();
        for (p, bytes) in &streams {
            let stream = Stream::from_bytes(bytes).map_err(|e| e.to_string())?;
            push_banks(*p, stream, channels, &mut methods)?;
        }
        if !quat {
            methods.push(Box::new(HermiteSoaScript::new(&doc)));
        }
        for m in &mut methods {
            let e = max_error(m.as_mut(), &doc, 300);
            println!(
                "{channels:>8} ch {:<28} max error {e:.2e} (300 frames)",
                m.name()
            );
            if e.is_nan() || e > CHECK_TOLERANCE {
                return Err(format!("{} fails its check", m.name()));
            }
        }
        methods.push(Box::new(StreamingCeiling::new(channels)));
        time_and_print(&mut methods, channels);
    }
    Ok(())
}

/// The workload of a size argument: `N` scalar channels, or `qN` rotations (then `true`).
fn workload(size: &str) -> Result<(bool, inbetween::Document), String> {
    let (quat, n) = match size.strip_prefix('q') {
        Some(n) => (true, n),
        None => (false, size),
    };
    let n = n
        .parse::<usize>()
        .map_err(|e| format!("size {size}: {e}"))?;
    let doc = if quat {
        quat_workload_document(n, 9)?
    } else {
        workload_document(&workload_keys(n, 5), None)?
    };
    Ok((quat, doc))
}

/// Prints the stream's shape, then builds its two banks (Horner lanes and exact), printing
/// their build time and memory, and adds them to `methods`.
fn push_banks<'s>(
    precision: Precision,
    stream: Stream<'s>,
    channels: usize,
    methods: &mut Vec<Box<dyn Method + 's>>,
) -> Result<(), String> {
    let name = precision.name();
    let (mut pieces, mut frames, mut by_degree) = (0usize, 0.0, [0usize; 9]);
    for t in stream.tracks() {
        pieces += t.piece_count();
        frames += t.last_frame() - t.first_frame();
        by_degree[usize::from(t.max_degree()).min(8)] += 1;
    }
    println!(
        "{channels:>8} ch {name}: {:.1} frames per piece, tracks by maximum degree {by_degree:?}",
        frames / pieces.max(1) as f64
    );
    for (label, build) in [
        (
            format!("bank-{name} (Horner lanes)"),
            Bank::new as fn(&_) -> _,
        ),
        (
            format!("bank-{name} exact (old)"),
            Bank::exact as fn(&_) -> _,
        ),
    ] {
        let (m, seconds) = bank_method(&label, stream, build)?;
        println!(
            "{channels:>8} ch {label:<28} Bank::new {:>8.3} s, heap {:>6.1} MB, \
             {:>5.1} % of channels on Horner lanes, {} B per-frame state per channel",
            seconds,
            m.bank.heap_bytes() as f64 / 1e6,
            100.0 * m.bank.horner_channels() as f64 / channels as f64,
            m.bank.state_bytes() / channels
        );
        methods.push(Box::new(m));
    }
    Ok(())
}

/// Times every method (or those named by `BANK_SPEED_ONLY`, `BANK_SPEED_RUNS` runs, default 5)
/// and prints ns per channel-frame against the first `hermite-soa-script` or exact bank.
fn time_and_print(methods: &mut [Box<dyn Method + '_>], channels: usize) {
    let mut rows = Vec::new();
    // For profiling one method: BANK_SPEED_ONLY=name BANK_SPEED_RUNS=n.
    let only = std::env::var("BANK_SPEED_ONLY").unwrap_or_default();
    let runs = std::env::var("BANK_SPEED_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    for m in methods.iter_mut().filter(|m| m.name().contains(&only)) {
        rows.push((m.name(), time(m.as_mut(), channels, channels, 300, runs)));
    }
    let baseline = rows
        .iter()
        .find(|r| r.0.starts_with("hermite-soa-script") || r.0.contains("exact (old)"))
        .map_or(f64::NAN, |r| r.1);
    for (name, ns) in rows {
        println!(
            "{channels:>8} ch {name:<28} {ns:>7.3} ns/ch-frame  {:>5.2}× the first of \
             hermite-soa-script, exact f32 bank",
            ns / baseline
        );
    }
}
