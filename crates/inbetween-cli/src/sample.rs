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
    for (name, v) in [("--from", from), ("--to", to)] {
        if let Some(x) = v {
            if !x.is_finite() || x.abs() > 1e15 {
                return Err(CliError::Usage(format!(
                    "{name} must be a finite frame within ±1e15, found {x}"
                )));
            }
        }
    }
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

/// Runs `inbetween sample`.
pub fn run(
    input: &Path,
    from: Option<f64>,
    to: Option<f64>,
    output: Option<&Path>,
    format: Format,
) -> Result<(), CliError> {
    let doc = load_document(input)?;
    let range = frame_range(input, &doc, from, to)?;
    let text = render(input, &doc, range, format)?;
    write_output(output, text.as_bytes())
}
