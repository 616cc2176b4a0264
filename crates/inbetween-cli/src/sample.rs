//! `inbetween sample`: exact values at every integer frame.

use std::path::Path;

use inbetween::sample::{write_csv, write_json};
use inbetween::Document;

use crate::error::{refused, CliError};
use crate::input::load_document;
use crate::output::write_output;
use crate::Format;

/// The most values (rows × value columns, the frame column not counted) `sample` and `play`
/// print: 100 million, about 1 to 2.5 GB of CSV held in memory before it is written (a value
/// takes 2 to 25 bytes). The output is rendered whole so that files are written atomically.
pub const MAX_CELLS: u64 = 100_000_000;

/// Refuses `rows` rows of `columns` values when that is more than [`MAX_CELLS`], naming both
/// numbers; `hint` says how to print fewer.
pub fn check_cells(command: &str, rows: u64, columns: usize, hint: &str) -> Result<(), CliError> {
    let columns = u64::try_from(columns.max(1)).unwrap_or(u64::MAX);
    let cells = rows.saturating_mul(columns);
    if cells > MAX_CELLS {
        return Err(CliError::Usage(format!(
            "{rows} rows × {columns} columns = {cells} values is more than {command} prints \
             ({MAX_CELLS} values); {hint}"
        )));
    }
    Ok(())
}

/// The integer frames to print: `--from`/`--to` (rounded inward to integers) or the document's
/// own range; `None` when empty. A default range the library cannot sample (keys beyond ±2^53)
/// is refused naming `source`.
pub fn frame_range(
    source: &Path,
    doc: &Document,
    from: Option<f64>,
    to: Option<f64>,
) -> Result<Option<(i64, i64)>, CliError> {
    check_from_to(from, to)?;
    let default = if from.is_some() && to.is_some() {
        None
    } else {
        doc.sample_range().map_err(refused(source))?
    };
    let lo = match (from, default) {
        (Some(f), _) => f.ceil() as i64,
        (None, Some((a, _))) => a,
        (None, None) => return Ok(None),
    };
    let hi = match (to, default) {
        (Some(t), _) => t.floor() as i64,
        (None, Some((_, b))) => b,
        (None, None) => return Ok(None),
    };
    if lo <= hi {
        let rows = hi.abs_diff(lo).saturating_add(1);
        check_cells("sample", rows, doc.columns(), "narrow --from/--to")?;
    }
    Ok((lo <= hi).then_some((lo, hi)))
}

/// Refuses a `--from` or `--to` that is not a finite frame within ±1e15, and a `--from` after
/// `--to` (usage errors, exit 2).
pub fn check_from_to(from: Option<f64>, to: Option<f64>) -> Result<(), CliError> {
    for (name, v) in [("--from", from), ("--to", to)] {
        if let Some(x) = v {
            if !x.is_finite() || x.abs() > 1e15 {
                return Err(CliError::Usage(format!(
                    "{name} must be a finite frame within ±1e15, found {x}"
                )));
            }
        }
    }
    if let (Some(a), Some(b)) = (from, to) {
        if a > b {
            return Err(CliError::Usage(format!(
                "--from {a} is after --to {b}; give --from ≤ --to (--reverse or a negative \
                 --rate plays backward)"
            )));
        }
    }
    Ok(())
}

/// Refuses a `--rate` that is zero or not finite (usage error); returns |rate| and whether it
/// plays backward (a negative rate, or `reverse`, but not both).
pub fn check_rate(rate: f64, reverse: bool) -> Result<(f64, bool), CliError> {
    if !(rate.is_finite() && rate != 0.0) {
        return Err(CliError::Usage(format!(
            "--rate must be a finite non-zero number (negative plays backward), found {rate}"
        )));
    }
    Ok((rate.abs(), reverse != (rate < 0.0)))
}

/// Samples `doc` (read from `source`, which errors name) over the range into the chosen format.
pub fn render(
    source: &Path,
    doc: &Document,
    range: Option<(i64, i64)>,
    format: Format,
) -> Result<String, CliError> {
    let (from, to) = range.unwrap_or((1, 0));
    let mut text = String::new();
    match format {
        Format::Csv => write_csv(doc, from, to, &mut text),
        Format::Json => write_json(doc, from, to, &mut text),
    }
    .map_err(refused(source))?;
    Ok(text)
}

/// Options of `sample`.
pub struct SampleArgs<'a> {
    /// The document.
    pub input: &'a Path,
    /// First frame (default ⌈earliest first key⌉).
    pub from: Option<f64>,
    /// Last frame (default ⌊latest last key⌋).
    pub to: Option<f64>,
    /// Frames advanced per row (1: every integer frame); negative goes backward.
    pub rate: f64,
    /// Decimals of every value (default: the shortest exact digits).
    pub digits: Option<usize>,
    /// Output file (default standard output).
    pub output: Option<&'a Path>,
    /// CSV or JSON.
    pub format: Format,
    /// No report.
    pub quiet: bool,
}

/// Runs `inbetween sample`.
pub fn run(args: &SampleArgs<'_>) -> Result<(), CliError> {
    let (rate, reverse) = check_rate(args.rate, false)?;
    crate::output::check_output(args.output)?;
    let doc = load_document(args.input)?;
    let range = frame_range(args.input, &doc, args.from, args.to)?;
    let frames = crate::sample_rows::frames(range, rate, reverse, doc.columns())?;
    let text = if rate == 1.0 && !reverse && args.digits.is_none() {
        render(args.input, &doc, range, args.format)?
    } else {
        crate::sample_rows::render(args.input, &doc, &frames, args.digits, args.format)?
    };
    write_output(args.output, text.as_bytes())?;
    if !args.quiet {
        report_rows(args.output, frames.rows(), doc.columns(), text.len());
    }
    Ok(())
}

/// After writing to a file (`-o FILE`), prints `N rows × M columns, B bytes → FILE`; nothing
/// when the rows themselves went to standard output.
pub fn report_rows(output: Option<&Path>, rows: u64, columns: usize, bytes: usize) {
    if let Some(path) = output.filter(|p| !crate::output::is_stdout(p)) {
        println!(
            "{rows} rows × {columns} columns, {bytes} bytes → {}",
            crate::output::display_name(path)
        );
    }
}
