//! Fixed-point bank against the f32 bank on the scalar workload, for a loaded machine: many short timed runs of each, interleaved, and the ratio of their fastest runs (the ones no other process interrupted) besides the ratio of their medians.
//!
//! `cargo run --release -p inbetween-bench --example fixed_ratio [CHANNELS] [RUNS]` (default
//! 1000 and 400): each run plays 300 frames from `START_FRAME`, f32 bank then fixed bank.

use std::time::Instant;

use inbetween::stream::{Precision, Stream};
use inbetween_bench::{
    compile, max_error, workload_document, workload_keys, BatchMethod, Method, CHECK_TOLERANCE,
};

/// Wall-clock ns per channel-frame of one run of 300 frames of `method`.
fn run(method: &mut dyn Method, out: &mut [f32]) -> f64 {
    method.reset();
    let start = Instant::now();
    for _ in 0..300 {
        method.frame(out);
        std::hint::black_box(&mut *out);
    }
    start.elapsed().as_nanos() as f64 / (out.len() * 300) as f64
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
    for _ in 0..runs {
        a.push(run(&mut f32_bank, &mut out));
        b.push(run(&mut fixed_bank, &mut out));
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
