//! `inbetween sample`: exact values at every integer frame.

use std::path::Path;

use inbetween::sample::{write_csv, write_json};
use inbetween::Document;

use crate::error::CliError;
use crate::input::load_document;
use crate::output::write_output;
use crate::Format;

/// The most rows `sample` and `play` print (100 million: about 2 GB of CSV for one scalar).
pub const MAX_ROWS: i64 = 100_000_000;

/// The integer frames to print: `--from`/`--to` (rounded inward to integers) or the document's
/// own range; `None` when empty.
pub fn frame_range(
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
    let default = doc.frame_range();
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
    if lo <= hi && (hi - lo) >= MAX_ROWS {
        return Err(CliError::Usage(format!(
            "{} rows is more than sample prints ({MAX_ROWS}); narrow --from/--to",
            (hi - lo).saturating_add(1)
        )));
    }
    Ok((lo <= hi).then_some((lo, hi)))
}

/// Samples `doc` over the range into the chosen format.
pub fn render(
    doc: &Document,
    range: Option<(i64, i64)>,
    format: Format,
) -> Result<String, CliError> {
    let (from, to) = range.unwrap_or((1, 0));
    let mut text = String::new();
    match format {
        Format::Csv => write_csv(doc, from, to, &mut text)?,
        Format::Json => write_json(doc, from, to, &mut text)?,
    }
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
    let range = frame_range(&doc, from, to)?;
    let text = render(&doc, range, format)?;
    write_output(output, text.as_bytes())
}
