//! Plays one method of the playback benchmark for a given number of frames, for counting instructions with `valgrind --tool=callgrind` (run twice with different frame counts and subtract: setup cancels out).
//!
//! ```sh
//! cargo build --release -p inbetween-bench --example playback_instructions
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/playback_instructions inbetween-batch-f32 scalar 10000 100
//! ```
//!
//! Arguments: METHOD (a name of `inbetween bench`), WORKLOAD (`scalar`, `quaternion` or `ozz`),
//! CHANNELS (for `ozz`: characters, each 67 joints of ten values; the batch methods only, one
//! bank over that many copies of the clip as `inbetween bench`), FRAMES. `tools/callgrind-playback.sh` runs the subtraction for every method.
//! With `PLAYBACK_STREAM_CACHE=PATH` the compiled stream is read from `PATH` (written there
//! first when absent), so a run at 100 000 channels under valgrind skips the compile.

use std::hint::black_box;
use std::process::ExitCode;

use inbetween::stream::{Precision, Stream};

use inbetween_bench::{
    compile_with_options, quat_workload_document, workload_document, workload_keys, BatchMethod,
    ExactMethod, HermiteSoaScript, Method, PlayerMethod, SlerpSoaScript, StreamingCeiling,
};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [method, workload, channels, frames] = args.as_slice() else {
        eprintln!("usage: playback_instructions METHOD scalar|quaternion|ozz CHANNELS FRAMES");
        return ExitCode::from(2);
    };
    let (Ok(channels), Ok(frames)) = (channels.parse::<usize>(), frames.parse::<usize>()) else {
        eprintln!("CHANNELS and FRAMES are whole numbers");
        return ExitCode::from(2);
    };
    if workload == "ozz" {
        return play_ozz(method, channels, frames);
    }
    let doc = match workload.as_str() {
        "scalar" => workload_document(&workload_keys(channels, 5), None),
        "quaternion" => quat_workload_document(channels, 9),
        other => Err(format!("unknown workload {other}")),
    };
    let doc = match doc {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let bytes = match cached_compile(method, workload, &doc) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let Ok(stream) = Stream::from_bytes(&bytes) else {
        eprintln!("the compiled stream does not load");
        return ExitCode::FAILURE;
    };
    let width = inbetween_bench::width(&doc);
    let mut m: Box<dyn Method + '_> = match method.as_str() {
        "inbetween-batch-f32"
        | "inbetween-batch-f64"
        | "inbetween-batch-fixed"
        | "inbetween-batch-f32-degree4"
        | "inbetween-batch-f32-raw" => match BatchMethod::new(method, stream) {
            Ok(m) => Box::new(m),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        },
        "inbetween-player-f32" => Box::new(PlayerMethod::new(stream)),
        "inbetween-exact" => Box::new(ExactMethod::new(&doc)),
        "hermite-soa-script" => Box::new(HermiteSoaScript::new(&doc)),
        "slerp-soa-script" => Box::new(SlerpSoaScript::new(&doc)),
        "streaming-ceiling" => Box::new(StreamingCeiling::new(width)),
        other => {
            eprintln!("unknown method {other}");
            return ExitCode::from(2);
        }
    };
    let mut out = vec![0.0f32; width];
    m.reset();
    for _ in 0..frames {
        m.frame(&mut out);
        black_box(&mut out);
    }
    ExitCode::SUCCESS
}

/// [`compile_for`], or with `PLAYBACK_STREAM_CACHE=PATH` the bytes of `PATH` when it exists
/// (else compiled and written there): a callgrind run at 100 000 channels then skips the
/// compile, which takes most of an hour under valgrind (the cache is the caller's to match
/// to METHOD, WORKLOAD and CHANNELS, and to delete after a change of the compiler).
fn cached_compile(
    method: &str,
    workload: &str,
    doc: &inbetween::Document,
) -> Result<Vec<u8>, String> {
    let Some(path) = std::env::var_os("PLAYBACK_STREAM_CACHE") else {
        return compile_for(method, workload, doc);
    };
    if let Ok(bytes) = std::fs::read(&path) {
        return Ok(bytes);
    }
    let bytes = compile_for(method, workload, doc)?;
    std::fs::write(&path, &bytes).map_err(|e| format!("writing the stream cache: {e}"))?;
    Ok(bytes)
}

/// The ozz workload: `characters` copies of the clip compiled in f32 at `OZZ_TOLERANCE`, one
/// bank of the batch `method` over them (as `inbetween bench --workload ozz`), `frames` frames.
fn play_ozz(method: &str, characters: usize, frames: usize) -> ExitCode {
    let played = (|| {
        let clip = inbetween_bench::ozz_clip()?;
        let options = inbetween::compile::CompileOptions {
            precision: Precision::F32,
            tolerance: Some(inbetween_bench::OZZ_TOLERANCE),
            ..inbetween::compile::CompileOptions::default()
        };
        let bytes = compile_with_options(&clip, &options).map_err(|e| e.to_string())?;
        let stream = Stream::from_bytes(&bytes).map_err(|e| e.to_string())?;
        let mut m = BatchMethod::new_many(method, &vec![stream; characters])?;
        let mut out = vec![0.0f32; inbetween_bench::width(&clip) * characters];
        m.reset();
        for _ in 0..frames {
            m.frame(&mut out);
            black_box(&mut out);
        }
        Ok::<(), String>(())
    })();
    match played {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// The stream `method` plays: the workload compiled in its precision (f32 unless the method
/// names another), at `max_degree: 4` for `-degree4`, without the normalize flag for `-raw`;
/// the quaternion workload at `QUAT_TOLERANCE`, as `inbetween bench`.
fn compile_for(method: &str, workload: &str, doc: &inbetween::Document) -> Result<Vec<u8>, String> {
    let precision = match method {
        "inbetween-batch-f64" => Precision::F64,
        "inbetween-batch-fixed" => Precision::Fixed,
        _ => Precision::F32,
    };
    let max_degree = if method == "inbetween-batch-f32-degree4" {
        4
    } else {
        inbetween::compile::DEFAULT_MAX_DEGREE
    };
    let options = inbetween::compile::CompileOptions {
        precision,
        max_degree,
        // `inbetween-batch-f32-raw`: rotations fitted and played without the normalize flag.
        normalize: method != "inbetween-batch-f32-raw",
        // The quaternion workload at the bench's tolerance (`QUAT_TOLERANCE`).
        tolerance: (workload == "quaternion").then_some(inbetween_bench::QUAT_TOLERANCE),
        ..inbetween::compile::CompileOptions::default()
    };
    compile_with_options(doc, &options).map_err(|e| e.to_string())
}
