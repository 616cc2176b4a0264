//! The quaternion workload's bank (f32, at `QUAT_TOLERANCE`) against `slerp-soa-script` in one process: both checked against exact evaluation, then timed in alternating rounds (ns per rotation-frame, the ratio per round), with the load average, so a noisy machine still gives comparable ratios.
//!
//! `cargo run --release -p inbetween-bench --example quat_speed [ROTATIONS] [ROUNDS] [MAX_DEGREE]`
//! (default 1 000 rotations, 8 rounds of 5 × 300 frames each, the compiler's default maximum
//! degree for rotations, `CompileOptions::rotation_max_degree`; a `MAX_DEGREE` given sets both
//! `max_degree` and `rotation_max_degree`, so `8` compiles as before session 16). Each round also times the bank's frame in two parts: `pass` (`write_f32` alone,
//! 300 times at `START_FRAME`: the Horner pass over one epoch's block) and `script`
//! (`advance` alone, 300 frames: the script's records and epoch switches).

use std::hint::black_box;
use std::time::Instant;

use inbetween::batch::Bank;
use inbetween::compile::CompileOptions;
use inbetween::stream::{Precision, Stream};
use inbetween_bench::{
    compile_with_options, max_error, quat_workload_document, time, BatchMethod, Method,
    SlerpSoaScript, QUAT_TOLERANCE, START_FRAME,
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
    let max_degree = args
        .next()
        .transpose()
        .map_err(|e| e.to_string())?
        .map(u8::try_from)
        .transpose()
        .map_err(|e| e.to_string())?;
    let doc = quat_workload_document(rotations, 9)?;
    let defaults = CompileOptions::default();
    let options = CompileOptions {
        precision: Precision::F32,
        tolerance: Some(QUAT_TOLERANCE),
        max_degree: max_degree.unwrap_or(defaults.max_degree),
        rotation_max_degree: max_degree.unwrap_or(defaults.rotation_max_degree),
        ..defaults
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
        let [pass, script] = split(&mut bank.bank, width, rotations)?;
        ratios.push(b / s);
        println!(
            "round {round}: bank {b:.3} ns (pass {pass:.3}, script {script:.3}), slerp {s:.3} ns, \
             bank / slerp {:.3}",
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

/// The bank's frame in two parts, ns per rotation-frame (the median of 5 runs of 300 frames
/// each): `write_f32` alone at the start frame, then `advance` alone from it.
fn split(bank: &mut Bank<'_>, width: usize, rotations: usize) -> Result<[f64; 2], String> {
    let mut out = vec![0.0f32; width];
    let mut parts = [0.0; 2];
    for (part, value) in parts.iter_mut().enumerate() {
        let mut runs = Vec::new();
        for _ in 0..5 {
            bank.seek(START_FRAME).map_err(|e| e.to_string())?;
            let start = Instant::now();
            for _ in 0..300 {
                if part == 0 {
                    bank.write_f32(&mut out).map_err(|e| e.to_string())?;
                } else {
                    bank.advance();
                }
                black_box(&mut out);
            }
            runs.push(start.elapsed().as_nanos() as f64 / (rotations * 300) as f64);
        }
        runs.sort_by(f64::total_cmp);
        *value = runs[runs.len() / 2];
    }
    Ok(parts)
}

/// `/proc/loadavg`'s first three fields (or `?`).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
