//! The quaternion workload compiled with and without `CompileOptions::normalize`: compile time (keys/s), stream bytes per key, pieces by degree, and how many channels the bank plays on Horner lanes.
//!
//! `cargo run --release -p inbetween-bench --example quat_normalize [rotations]` (default 1 000,
//! as `inbetween bench --quick`).

use std::time::Instant;

use inbetween::batch::Bank;
use inbetween::compile::CompileOptions;
use inbetween::stream::{Precision, Stream};

fn main() -> Result<(), String> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000);
    let doc = inbetween_bench::quat_workload_document(n, 9)?;
    let keys: usize = doc.tracks().iter().map(|t| t.keys().len()).sum();
    for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
        for normalize in [false, true] {
            let options = CompileOptions {
                precision,
                normalize,
                ..CompileOptions::default()
            };
            let start = Instant::now();
            let bytes = doc.compile(&options).map_err(|e| e.to_string())?.bytes;
            let seconds = start.elapsed().as_secs_f64();
            let stream = Stream::from_bytes(&bytes).map_err(|e| e.to_string())?;
            let mut degrees = [0usize; 9];
            let mut worst: f64 = 0.0;
            for track in stream.tracks() {
                let summary = track.summary();
                for (d, count) in summary.degree_histogram.iter().enumerate() {
                    degrees[d] += count;
                }
                worst = worst.max(track.max_error());
            }
            let bank = Bank::new(&[stream]).map_err(|e| e.to_string())?;
            println!(
                "{precision} normalize {normalize}: {:.0} keys/s, {:.1} B/key, pieces by degree {degrees:?}, \
                 max error {worst:.2e}, Horner channels {} of {}",
                keys as f64 / seconds,
                bytes.len() as f64 / keys as f64,
                bank.horner_channels(),
                bank.channels()
            );
        }
    }
    Ok(())
}
