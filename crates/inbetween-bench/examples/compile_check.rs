//! Compiler checks outside `cargo test`: the streams of a fixed set of documents written to a directory (to `cmp` two builds), and one workload compiled once (for counting instructions).
//!
//! ```sh
//! cargo build --release -p inbetween-bench --example compile_check
//! target/release/examples/compile_check streams OUT_DIR      # run from the repository root
//! diff -r BEFORE_DIR OUT_DIR                                   # the same bytes, the same errors
//! RAYON_NUM_THREADS=1 valgrind --tool=callgrind \
//!     --toggle-collect='inbetween::compile::compile_tracks_with_progress*' \
//!     target/release/examples/compile_check once scalar 500 f32
//! target/release/examples/compile_check once quaternion 50 f32 2e-7   # the bench's tolerance
//! target/release/examples/compile_check times 9 scalar 1000 f32        # 9 timed compiles, median
//! ```
//!
//! `streams` compiles every JSON document of `examples/`, `tests/blender/` (not the
//! `.values.json` files) and `crates/inbetween/tests/fuzz_regressions/document_json/`, and the
//! bench workloads (300 scalar channels, 100 rotations, the ozz clip within 2e-7), each in f32, f64 and
//! fixed at degrees 8 and 3 (the quaternions also with `normalize: false`), writing each stream
//! as `NAME.PRECISION.dDEGREE.ibs`, or the error message as `.err`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use inbetween::compile::CompileOptions;
use inbetween::ozz_import::import_ozz;
use inbetween::stream::Precision;
use inbetween::Document;
use inbetween_bench::{quat_workload_document, workload_document, workload_keys};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["streams", out] => streams(Path::new(out)),
        ["once", workload, channels, precision] => once(workload, channels, precision, None),
        ["once", workload, channels, precision, tolerance] => {
            once(workload, channels, precision, Some(tolerance))
        }
        ["times", runs, workload, channels, precision] => {
            times(runs, workload, channels, precision, None)
        }
        ["times", runs, workload, channels, precision, tolerance] => {
            times(runs, workload, channels, precision, Some(tolerance))
        }
        _ => Err(
            "usage: compile_check streams OUT_DIR | once WORKLOAD CHANNELS PRECISION [TOLERANCE] \
             | times RUNS WORKLOAD CHANNELS PRECISION [TOLERANCE]"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// A bench workload by name (`scalar`, `quaternion`, `ozz`).
fn workload(name: &str, channels: usize) -> Result<Document, String> {
    match name {
        "scalar" => workload_document(&workload_keys(channels, 5), None),
        "quaternion" => quat_workload_document(channels, 9),
        "ozz" => {
            let read = |f: &str| std::fs::read(format!("tests/corpus/ozz/playback/{f}.ozz"));
            let (animation, skeleton) = (read("animation"), read("skeleton"));
            let (Ok(animation), Ok(skeleton)) = (animation, skeleton) else {
                return Err("tests/corpus/ozz/playback/*.ozz: run from the repository root".into());
            };
            import_ozz(&animation, Some(&skeleton), 60.0).map_err(|e| e.to_string())
        }
        other => Err(format!("unknown workload {other}")),
    }
}

fn precision(name: &str) -> Result<Precision, String> {
    match name {
        "f32" => Ok(Precision::F32),
        "f64" => Ok(Precision::F64),
        "fixed" => Ok(Precision::Fixed),
        other => Err(format!("unknown precision {other}")),
    }
}

/// Compiles one workload once (default options in `precision`, and the absolute `tolerance`
/// when given: `2e-7` is the bench's quaternion workload, `QUAT_TOLERANCE`).
fn once(
    name: &str,
    channels: &str,
    precision_name: &str,
    tolerance: Option<&str>,
) -> Result<(), String> {
    times("1", name, channels, precision_name, tolerance)
}

/// Compiles one workload `runs` times in one process (as `inbetween bench` times a small
/// compile: the thread pool started by the first), printing each run's wall time and then the
/// median's keys per second.
fn times(
    runs: &str,
    name: &str,
    channels: &str,
    precision_name: &str,
    tolerance: Option<&str>,
) -> Result<(), String> {
    let runs: usize = runs.parse().map_err(|_| "RUNS is a whole number")?;
    let channels = channels.parse().map_err(|_| "CHANNELS is a whole number")?;
    let doc = workload(name, channels)?;
    let tolerance = match tolerance {
        Some(t) => Some(t.parse().map_err(|_| "TOLERANCE is a number")?),
        None => None,
    };
    let options = CompileOptions {
        precision: precision(precision_name)?,
        tolerance,
        ..CompileOptions::default()
    };
    let keys: usize = doc.tracks().iter().map(|t| t.keys().len()).sum();
    let mut seconds = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let start = std::time::Instant::now();
        let compiled = doc.compile(&options).map_err(|e| e.to_string())?;
        let run = start.elapsed().as_secs_f64();
        println!(
            "{} bytes, {keys} keys in {run:.4} s: {:.3e} keys/s",
            compiled.bytes.len(),
            keys as f64 / run
        );
        seconds.push(run);
    }
    seconds.sort_by(f64::total_cmp);
    let median = seconds[seconds.len() / 2];
    if seconds.len() > 1 {
        println!("median {median:.4} s: {:.3e} keys/s", keys as f64 / median);
    }
    Ok(())
}

/// JSON documents under `dir` (not recursive), sorted, without `.values.json`.
fn documents(dir: &str) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{dir}: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".json") && !name.ends_with(".values.json")
        })
        .collect();
    out.sort();
    Ok(out)
}

/// Every document and workload in every precision and degree, written to `out`.
fn streams(out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let mut docs: Vec<(String, Document, bool, Option<f64>)> = Vec::new();
    for dir in [
        "examples",
        "examples/lottie",
        "tests/blender",
        "crates/inbetween/tests/fuzz_regressions/document_json",
    ] {
        for path in documents(dir)? {
            let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
            let file = path.to_string_lossy().replace('/', "_");
            if let Ok(doc) = Document::from_json_slice(&bytes, &file) {
                docs.push((file, doc, false, None));
            }
        }
    }
    docs.push(("scalar300".into(), workload("scalar", 300)?, false, None));
    docs.push((
        "quaternion100".into(),
        workload("quaternion", 100)?,
        true,
        None,
    ));
    // The ozz clip at the bench's tolerance (`OZZ_TOLERANCE`).
    docs.push(("ozz".into(), workload("ozz", 0)?, false, Some(2e-7)));
    for (name, doc, raw_too, tolerance) in &docs {
        for p in ["f32", "f64", "fixed"] {
            for degree in [8u8, 3] {
                for normalize in [true, false].into_iter().take(1 + usize::from(*raw_too)) {
                    let options = CompileOptions {
                        precision: precision(p)?,
                        max_degree: degree,
                        normalize,
                        tolerance: *tolerance,
                        ..CompileOptions::default()
                    };
                    let raw = if normalize { "" } else { ".raw" };
                    let (ext, bytes) = match doc.compile(&options) {
                        Ok(c) => ("ibs", c.bytes),
                        Err(e) => ("err", e.to_string().into_bytes()),
                    };
                    let file = out.join(format!("{name}.{p}.d{degree}{raw}.{ext}"));
                    std::fs::write(file, bytes).map_err(|e| e.to_string())?;
                }
            }
        }
        eprintln!("{name}");
    }
    Ok(())
}
