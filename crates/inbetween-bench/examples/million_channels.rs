//! The batch player at 1 000 000 scalar channels (the playback benchmark's workload): batch f32 against hermite-soa-script and streaming-ceiling, with the bench's own methods and checks; prints ns per channel-frame.
//!
//! `cargo run --release -p inbetween-bench --example million_channels [CHANNELS]` — needs ~20 GB of
//! memory (the validated document of 10^6 tracks) and ~6 minutes of compiling on one core.

use inbetween::stream::{Precision, Stream};
use inbetween_bench::{
    compile, max_error, time, workload_document, workload_keys, BatchMethod, HermiteSoaScript,
    StreamingCeiling, CHECK_TOLERANCE,
};

fn main() -> Result<(), String> {
    let channels = match std::env::args().nth(1) {
        Some(n) => n.parse::<usize>().map_err(|e| format!("CHANNELS: {e}"))?,
        None => 1_000_000,
    };
    let started = std::time::Instant::now();
    let doc = workload_document(&workload_keys(channels, 5), None)?;
    let bytes = compile(&doc, Precision::F32)?;
    let keys: usize = doc.tracks().iter().map(|t| t.keys().len()).sum();
    println!(
        "{channels} channels, {keys} keys: built and compiled in {:.0} s, stream {} bytes ({:.1} per key)",
        started.elapsed().as_secs_f64(),
        bytes.len(),
        bytes.len() as f64 / keys as f64
    );
    let stream = Stream::from_bytes(&bytes).map_err(|e| e.to_string())?;
    let mut batch = BatchMethod::new("inbetween-batch-f32", stream)?;
    let state = batch.bank.state_bytes();
    let mut hermite = HermiteSoaScript::new(&doc);
    let mut ceiling = StreamingCeiling::new(channels);
    for (name, error) in [
        ("inbetween-batch-f32", max_error(&mut batch, &doc, 8)),
        ("hermite-soa-script", max_error(&mut hermite, &doc, 8)),
    ] {
        if error.is_nan() || error > CHECK_TOLERANCE {
            return Err(format!("{name} fails its check: error {error:e}"));
        }
    }
    for _ in 0..2 {
        let b = time(&mut batch, channels, channels, 100, 5);
        let h = time(&mut hermite, channels, channels, 100, 5);
        let w = time(&mut ceiling, channels, channels, 100, 5);
        println!(
            "ns per channel-frame: batch-f32 {b:.3}, hermite-soa-script {h:.3} ({:.2}× batch), \
             streaming-ceiling {w:.3} (batch at {:.0} % of it); state {} bytes per channel",
            h / b,
            100.0 * w / b,
            state / channels.max(1)
        );
    }
    Ok(())
}
