//! What `Bank::new` makes of compiled streams: per `.ibs` file, its channels, those on Horner lanes and on i32 lanes, the median time of three builds and the bank's heap and per-frame bytes.
//!
//! `cargo run --release -p inbetween-bench --example bank_build -- STREAM…` (streams such as
//! `examples/bank_cache.rs` keeps: `/tmp/inbetween-cache/fixed-100000.ibs`).

use std::time::Instant;

use inbetween::batch::Bank;
use inbetween::stream::Stream;

fn main() -> Result<(), String> {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
        let stream = Stream::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))?;
        let mut times = Vec::new();
        let mut bank = None;
        for _ in 0..3 {
            let started = Instant::now();
            let b = Bank::new(std::slice::from_ref(&stream)).map_err(|e| e.to_string())?;
            times.push(started.elapsed().as_secs_f64());
            bank = Some(b);
        }
        times.sort_by(f64::total_cmp);
        let Some(bank) = bank else { continue };
        println!(
            "{path}: {} channels, {} on Horner lanes, {} on i32 lanes; Bank::new {:.3} s \
             (median of 3); heap {:.1} MB, per-frame state {:.2} MB",
            bank.channels(),
            bank.horner_channels(),
            bank.int32_channels(),
            times[1],
            bank.heap_bytes() as f64 / 1e6,
            bank.state_bytes() as f64 / 1e6,
        );
    }
    Ok(())
}
