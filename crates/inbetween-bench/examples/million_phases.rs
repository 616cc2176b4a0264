//! Where the full run's time and memory go at 10^6 scalar channels, phase by phase, measured at a size that fits: the keys, the document, each compile, each bank, the baseline and each method's check, with wall time, resident memory after and the peak within (`/proc/self/status`'s VmRSS and VmHWM, the peak reset before each phase through `/proc/self/clear_refs`).
//!
//! `cargo run --release -p inbetween-bench --features rayon --example million_phases [CHANNELS]
//! [FRAMES] [MODE]` (default 100 000 channels, 300 frames, as the full run's shape). MODE
//! `disk` (default): the full run's order at 10^6 — compiles, baseline script, exact values at
//! the checked frames in a file (`Reference::on_disk`), the document dropped (and glibc's free
//! pages released, `release_freed_memory`), then the banks
//! and each check against the reference; `memory`: the same with the rows in memory
//! (`Reference::new`); `document`: the document kept and each method checked by `max_error`
//! (the full run before session 15).

use std::time::Instant;

use inbetween::stream::{Precision, Stream};
use inbetween_bench::{
    compile, max_error, release_freed_memory, workload_document, workload_keys, BatchMethod,
    HermiteSoaScript, Method, Reference, CHECK_TOLERANCE,
};

/// VmRSS and VmHWM in MB (0 where `/proc` does not say).
fn memory() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Runs `phase`, printing its wall time, the resident memory after it and the peak within it.
fn phase<T>(name: &str, phase: impl FnOnce() -> T) -> T {
    // "5" resets the peak resident size (Linux ≥ 4.0); where it fails the peak is the process's.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = memory().0;
    let start = Instant::now();
    let out = phase();
    let seconds = start.elapsed().as_secs_f64();
    let (rss, peak) = memory();
    println!(
        "{name:<28} {seconds:>8.1} s  rss {before:>8.0} -> {rss:>8.0} MB  peak {peak:>8.0} MB (+{:.0})",
        peak - before
    );
    out
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let channels = match args.next() {
        Some(n) => n.parse::<usize>().map_err(|e| format!("CHANNELS: {e}"))?,
        None => 100_000,
    };
    let frames = match args.next() {
        Some(n) => n.parse::<usize>().map_err(|e| format!("FRAMES: {e}"))?,
        None => 300,
    };
    let mode = args.next().unwrap_or_else(|| "disk".to_string());
    let (kept, on_disk) = match mode.as_str() {
        "disk" => (false, true),
        "memory" => (false, false),
        "document" => (true, false),
        other => return Err(format!("MODE: disk, memory or document, not {other}")),
    };
    println!("{channels} channels, {frames} frames, mode {mode}");
    let doc = phase("keys and document", || {
        workload_document(&workload_keys(channels, 5), None)
    })?;
    let f32_bytes = phase("compile f32", || compile(&doc, Precision::F32))?;
    let fixed_bytes = phase("compile fixed", || compile(&doc, Precision::Fixed))?;
    println!(
        "streams: f32 {} B, fixed {} B",
        f32_bytes.len(),
        fixed_bytes.len()
    );
    let mut hermite = phase("hermite-soa-script", || HermiteSoaScript::new(&doc));
    let reference = match (kept, on_disk) {
        (true, _) => None,
        (false, true) => Some(phase("reference rows (file)", || {
            Reference::on_disk(&doc, frames, &std::env::temp_dir())
        })?),
        (false, false) => Some(phase("reference rows (memory)", || {
            Reference::new(&doc, frames)
        })),
    };
    let doc = if kept {
        Some(doc)
    } else {
        phase("drop the document", || {
            drop(doc);
            release_freed_memory();
        });
        None
    };
    let stream = Stream::from_bytes(&f32_bytes).map_err(|e| e.to_string())?;
    let mut f32_bank = phase("Bank::new f32", || {
        BatchMethod::new("inbetween-batch-f32", stream)
    })?;
    let stream = Stream::from_bytes(&fixed_bytes).map_err(|e| e.to_string())?;
    let mut fixed_bank = phase("Bank::new fixed", || {
        BatchMethod::new("inbetween-batch-fixed", stream)
    })?;
    for b in [&f32_bank, &fixed_bank] {
        println!(
            "{:<28} heap_bytes {:.0} MB, state_bytes {:.1} MB",
            b.label,
            b.bank.heap_bytes() as f64 / 1e6,
            b.bank.state_bytes() as f64 / 1e6
        );
    }
    for (name, m) in [
        ("check f32", &mut f32_bank as &mut dyn Method),
        ("check fixed", &mut fixed_bank),
        ("check hermite", &mut hermite),
    ] {
        let error = phase(name, || match (&reference, &doc) {
            (Some(reference), _) => reference.max_error(m),
            (None, Some(doc)) => max_error(m, doc, frames),
            (None, None) => f64::NAN,
        });
        if error.is_nan() || error > CHECK_TOLERANCE {
            return Err(format!("{name}: {error:e}"));
        }
        println!("{name:<28} max error {error:.3e}");
    }
    Ok(())
}
