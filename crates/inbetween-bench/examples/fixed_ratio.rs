//! Fixed-point bank against the f32 bank on the scalar workload, for a loaded machine: many short timed runs of each, interleaved, and the ratio of their fastest runs (the ones no other process interrupted) besides the ratio of their medians.
//!
//! `cargo run --release -p inbetween-bench --example fixed_ratio [CHANNELS] [RUNS] [FRAMES]
//! [BLOCK]` (default 1000, 400, 300 and 1): each run plays FRAMES frames from `START_FRAME`;
//! BLOCK runs of the f32 bank, then BLOCK of the fixed bank, and again (BLOCK 1: alternating
//! run by run; 5: the bench's order, five runs of one method, then five of the next).

use std::time::Instant;

use inbetween::stream::{Precision, Stream};
use inbetween_bench::{
    compile, max_error, workload_document, workload_keys, BatchMethod, Method, CHECK_TOLERANCE,
};

/// Wall-clock ns per channel-frame of one run of `frames` frames of `method`.
fn run(method: &mut dyn Method, out: &mut [f32], frames: usize) -> f64 {
    method.reset();
    let start = Instant::now();
    for _ in 0..frames {
        method.frame(out);
        std::hint::black_box(&mut *out);
    }
    start.elapsed().as_nanos() as f64 / (out.len() * frames).max(1) as f64
}

/// The smallest and the median of `samples`.
fn min_median(samples: &mut [f64]) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    (
        samples.first().copied().unwrap_or(f64::NAN),
        samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN),
    )
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let parse = |a: Option<String>, default: usize| {
        a.map_or(Ok(default), |a| a.parse::<usize>())
            .map_err(|e| e.to_string())
    };
    let channels = parse(args.next(), 1000)?;
    let runs = parse(args.next(), 400)?;
    let frames = parse(args.next(), 300)?;
    let block = parse(args.next(), 1)?.max(1);
    let doc = workload_document(&workload_keys(channels, 5), None)?;
    let f32_bytes = compile(&doc, Precision::F32)?;
    let fixed_bytes = compile(&doc, Precision::Fixed)?;
    let f32_stream = Stream::from_bytes(&f32_bytes).map_err(|e| e.to_string())?;
    let fixed_stream = Stream::from_bytes(&fixed_bytes).map_err(|e| e.to_string())?;
    let mut f32_bank = BatchMethod::new("inbetween-batch-f32", f32_stream)?;
    let mut fixed_bank = BatchMethod::new("inbetween-batch-fixed", fixed_stream)?;
    println!(
        "{channels} channels, {} of them on i32 lanes",
        fixed_bank.bank.int32_channels()
    );
    for m in [&mut f32_bank as &mut dyn Method, &mut fixed_bank] {
        let e = max_error(m, &doc, 300);
        if e.is_nan() || e > CHECK_TOLERANCE {
            return Err(format!("{} fails its check: {e:e}", m.name()));
        }
    }
    let mut out = vec![0.0f32; channels];
    let (mut a, mut b) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs.div_ceil(block) {
        for _ in 0..block {
            a.push(run(&mut f32_bank, &mut out, frames));
        }
        for _ in 0..block {
            b.push(run(&mut fixed_bank, &mut out, frames));
        }
    }
    let ((a_min, a_med), (b_min, b_med)) = (min_median(&mut a), min_median(&mut b));
    println!(
        "fastest run: f32 {a_min:.3} ns, fixed {b_min:.3} ns, fixed / f32 {:.3}",
        b_min / a_min
    );
    println!(
        "median run:  f32 {a_med:.3} ns, fixed {b_med:.3} ns, fixed / f32 {:.3}",
        b_med / a_med
    );
    Ok(())
}
