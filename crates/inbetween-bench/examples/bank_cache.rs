//! The scalar workload's f32 or fixed bank played for a number of frames from a stream compiled once and kept in a file, for valgrind's cache simulation at scale (run twice with different frame counts and subtract: compile-free setup cancels out).
//!
//! `tools/cache-playback.sh` runs it: callgrind with instrumentation off while the bank is
//! built (`Bank::new` checks every frame of every piece: ~5·10^10 instructions at 100 000
//! fixed channels, an hour under full simulation), switched on by `callgrind_control -i on`
//! when this program says `ready` and pauses, then a cache simulation of the frames with
//! `--LL` set to this machine's L2 (2 MB, 16-way), so that its LL misses per channel-frame are
//! what a frame fetches from L3.
//!
//! Arguments: PRECISION (`f32` or `fixed`), CHANNELS, FRAMES, STREAM (a file: read if it
//! exists, else the workload is compiled and written there), PAUSE (milliseconds to wait after
//! printing `ready` on stderr, default 0).

use std::hint::black_box;
use std::process::ExitCode;

use inbetween::stream::{Precision, Stream};
use inbetween_bench::{compile, workload_document, workload_keys, BatchMethod, Method};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (args, pause) = match args.as_slice() {
        [a @ .., p] if args.len() == 5 => (a, p.parse().map_err(|_| "PAUSE: milliseconds")?),
        a => (a, 0),
    };
    let [precision, channels, frames, path] = args else {
        return Err("usage: bank_cache f32|fixed CHANNELS FRAMES STREAM [PAUSE]".into());
    };
    let (precision, label) = match precision.as_str() {
        "f32" => (Precision::F32, "inbetween-batch-f32"),
        "fixed" => (Precision::Fixed, "inbetween-batch-fixed"),
        other => return Err(format!("unknown precision {other}")),
    };
    let channels: usize = channels.parse().map_err(|_| "CHANNELS: a whole number")?;
    let frames: usize = frames.parse().map_err(|_| "FRAMES: a whole number")?;
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(_) => {
            let doc = workload_document(&workload_keys(channels, 5), None)?;
            let b = compile(&doc, precision)?;
            std::fs::write(path, &b).map_err(|e| format!("{path}: {e}"))?;
            b
        }
    };
    let stream = Stream::from_bytes(&bytes).map_err(|e| e.to_string())?;
    let mut bank = BatchMethod::new(label, stream)?;
    let mut out = vec![0.0f32; bank.bank.channels()];
    bank.reset();
    eprintln!("ready");
    std::thread::sleep(std::time::Duration::from_millis(pause));
    for _ in 0..frames {
        bank.frame(&mut out);
        black_box(&mut out);
    }
    Ok(())
}
