//! `inbetween compile`: a document to a verified forward-difference stream (`.ibs`).

use std::path::{Path, PathBuf};

use inbetween::compile::{CompileOptions, CompiledStream};
use inbetween::stream::Precision;
use inbetween::Document;

use crate::error::{refused, CliError};
use crate::input::load_document;
use crate::output::{print_report, write_atomic};
use crate::progress::Progress;

/// Options of `compile` as given on the command line.
pub struct CompileArgs<'a> {
    /// The document.
    pub input: &'a Path,
    /// Where to write the stream (default: the input with `.ibs`).
    pub output: Option<&'a Path>,
    /// Absolute tolerance in value units (default 1e-6 × each track's scale).
    pub tolerance: Option<f64>,
    /// Stored and played precision.
    pub precision: Precision,
    /// Highest piece degree.
    pub max_degree: u8,
    /// Highest piece degree of normalized quat tracks (`CompileOptions::rotation_max_degree`).
    pub rotation_max_degree: u8,
    /// Quat tracks fitted for normalized playback (`CompileOptions::normalize`).
    pub normalize: bool,
    /// Print nothing on success.
    pub quiet: bool,
}

/// Compiles `doc` (read from `source`, which errors name) with the options.
pub fn compile_document(
    source: &Path,
    doc: &Document,
    options: &CompileOptions,
) -> Result<CompiledStream, CliError> {
    compile_with_bar(source, doc, options, true)
}

/// Compiles `doc` (read from `source`) with a progress bar on standard error (a terminal only,
/// and not `quiet`).
pub fn compile_with_bar(
    source: &Path,
    doc: &Document,
    options: &CompileOptions,
    quiet: bool,
) -> Result<CompiledStream, CliError> {
    let bar = Progress::bar("compiling tracks", doc.tracks().len() as u64, quiet);
    let result = doc
        .compile_with_progress(options, &mut |done, total| {
            bar.set(done as u64, total as u64);
            if done == total {
                bar.label("verifying stream");
            }
        })
        .map_err(refused(source));
    bar.finish();
    result
}

/// The per-track table: kinds → pieces, degrees, bytes, measured error, additions/frame, and
/// the pieces proven between integer frames (`TrackProof`; docs/stream-format.md).
pub fn report(doc: &Document, compiled: &CompiledStream, precision: Precision) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:<7} {:<34} {:>6} {:>4} {:>7} {:>10} {:>10} {:>7} {:>8} {:>9}",
        "track",
        "prec",
        "kinds",
        "pieces",
        "deg",
        "bytes",
        "tolerance",
        "max error",
        "@frame",
        "adds/fr",
        "proven"
    );
    for (track, report) in doc.tracks().iter().zip(&compiled.reports) {
        let s = &report.summary;
        let _ = writeln!(
            out,
            "{:<10} {:<7} {:<34} {:>6} {:>4} {:>7} {:>10.2e} {:>10.2e} {:>7} {:>8.2} {:>9}",
            track.name(),
            report
                .kept_in_f64
                .map_or(precision, |_| Precision::F64)
                .name(),
            track.kinds_used().join(","),
            s.pieces,
            s.max_degree,
            s.bytes,
            s.tolerance,
            s.max_error,
            s.max_error_frame,
            s.additions_per_frame,
            format!("{}/{}", report.proof.between_proven, s.pieces)
        );
    }
    let _ = writeln!(
        out,
        "proven: pieces whose every real frame is proven within the tolerance at steps \
         1/64..16 (polynomial spans); the rest are checked at every integer frame and sampled \
         between (docs/stream-format.md)"
    );
    for report in &compiled.reports {
        if let Some(reach) = report.kept_in_f64 {
            let _ = writeln!(
                out,
                "note: track {:?} is kept in f64: f32 cannot hold its tolerance {:.2e} without \
                 pieces shorter than a frame (with pieces of a frame or more it reaches {:.2e})",
                report.name, report.summary.tolerance, reach
            );
        }
    }
    out
}

/// Runs `inbetween compile`.
pub fn run(args: &CompileArgs<'_>) -> Result<(), CliError> {
    crate::check_tolerance(args.tolerance)?;
    let doc = load_document(args.input)?;
    let options = CompileOptions {
        tolerance: args.tolerance,
        precision: args.precision,
        max_degree: args.max_degree,
        rotation_max_degree: args.rotation_max_degree,
        normalize: args.normalize,
    };
    let compiled = compile_with_bar(args.input, &doc, &options, args.quiet)?;
    let out: PathBuf = crate::output::default_output(args.input, args.output, "ibs");
    write_atomic(&out, &compiled.bytes)?;
    if !args.quiet {
        let text = format!(
            "{}\n{} bytes → {}\n",
            report(&doc, &compiled, args.precision),
            compiled.bytes.len(),
            crate::output::display_name(&out)
        );
        print_report(&out, &text);
    }
    Ok(())
}
