//! The quaternion workload's bank (f32, at `QUAT_TOLERANCE`) against `slerp-soa-script` in one process: both checked against exact evaluation, then timed in alternating rounds (ns per rotation-frame, the ratio per round), with the load average, so a noisy machine still gives comparable ratios.
//!
//! `cargo run --release -p inbetween-bench --example quat_speed [ROTATIONS] [ROUNDS]` (default
//! 1 000 rotations, 8 rounds of 5 × 300 frames each).

use inbetween::compile::CompileOptions;
use inbetween::stream::{Precision, Stream};
use inbetween_bench::{
    compile_with_options, max_error, quat_workload_document, time, BatchMethod, Method,
    SlerpSoaScript, QUAT_TOLERANCE,
};

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let rotations = args
        .next()
        .transpose()
        .map_err(|e| e.to_string())?
        .unwrap_or(1_000);
    let rounds = args
        .next()
        .transpose()
        .map_err(|e| e.to_string())?
        .unwrap_or(8);
    let doc = quat_workload_document(rotations, 9)?;
    let options = CompileOptions {
        precision: Precision::F32,
        tolerance: Some(QUAT_TOLERANCE),
        ..CompileOptions::default()
    };
    let bytes = compile_with_options(&doc, &options)?;
    let stream = Stream::from_bytes(&bytes).map_err(|e| e.to_string())?;
    let mut bank = BatchMethod::new("inbetween-batch-f32", stream)?;
    let mut slerp = SlerpSoaScript::new(&doc);
    let width = inbetween_bench::width(&doc);
    for m in [&mut bank as &mut dyn Method, &mut slerp] {
        println!("{:<20} max error {:.2e}", m.name(), max_error(m, &doc, 300));
    }
    println!(
        "Horner channels {} of {}; load average {}",
        bank.bank.horner_channels(),
        bank.bank.channels(),
        load_average()
    );
    let mut ratios = Vec::new();
    for round in 0..rounds {
        let b = time(&mut bank, width, rotations, 300, 5);
        let s = time(&mut slerp, width, rotations, 300, 5);
        ratios.push(b / s);
        println!(
            "round {round}: bank {b:.3} ns, slerp {s:.3} ns, bank / slerp {:.3}",
            b / s
        );
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "bank / slerp: median {:.3}, range {:.3}-{:.3}; load average {}",
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1],
        load_average()
    );
    Ok(())
}

/// `/proc/loadavg`'s first three fields (or `?`).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
