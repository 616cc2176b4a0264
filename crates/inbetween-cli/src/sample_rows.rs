//! `sample` at fractional frames (`--rate`) or with rounded values (`--digits`): the rows stepped as `play` steps them, as CSV or JSON.

use std::path::Path;

use inbetween::sample::{eval_row, write_csv_header, SampleError};
use inbetween::Document;

use crate::error::{refused, CliError};
use crate::numbers;
use crate::Format;

/// Rows `start + i × step` for i in `0..rows`.
pub struct Frames {
    start: f64,
    step: f64,
    rows: u64,
}

impl Frames {
    /// How many rows.
    #[must_use]
    pub fn rows(&self) -> u64 {
        self.rows
    }

    fn iter(&self) -> impl Iterator<Item = (String, f64)> + '_ {
        (0..self.rows).map(|row| {
            (
                numbers::frame_label(self.start, self.step, row),
                self.start + row as f64 * self.step,
            )
        })
    }
}

/// The rows over the integer range `range` (none when `None`) at `rate` frames per row, from the
/// end down when `reverse`; refused when more than `sample` prints.
pub fn frames(
    range: Option<(i64, i64)>,
    rate: f64,
    reverse: bool,
    columns: usize,
) -> Result<Frames, CliError> {
    let Some((lo, hi)) = range else {
        return Ok(Frames {
            start: 0.0,
            step: rate,
            rows: 0,
        });
    };
    let (lo, hi) = (lo as f64, hi as f64);
    let rows = (((hi - lo) / rate).floor() as u64).saturating_add(1);
    crate::sample::check_cells(
        "sample",
        rows,
        columns,
        "narrow --from/--to or raise --rate",
    )?;
    Ok(if reverse {
        Frames {
            start: lo + (rows - 1) as f64 * rate,
            step: -rate,
            rows,
        }
    } else {
        Frames {
            start: lo,
            step: rate,
            rows,
        }
    })
}

/// `doc` evaluated at `frames`, each value with `digits` decimals (or exact), as the same CSV or
/// JSON as `sample` writes (the JSON's `frames` then hold the fractional frames).
pub fn render(
    source: &Path,
    doc: &Document,
    frames: &Frames,
    digits: Option<usize>,
    format: Format,
) -> Result<String, CliError> {
    let decimals = vec![digits; doc.columns()];
    let mut values = Vec::with_capacity(doc.columns());
    let mut text = String::new();
    match format {
        Format::Csv => {
            write_csv_header(doc, &mut text).map_err(|_| refused(source)(SampleError::Write))?;
            for (label, frame) in frames.iter() {
                eval_row(doc, frame, &mut values)
                    .map_err(|e| refused(source)(SampleError::from(e)))?;
                numbers::write_row(&label, &values, &decimals, &mut text);
            }
        }
        Format::Json => {
            let mut columns: Vec<Vec<String>> = vec![Vec::new(); doc.columns()];
            for (_, frame) in frames.iter() {
                eval_row(doc, frame, &mut values)
                    .map_err(|e| refused(source)(SampleError::from(e)))?;
                for (column, v) in columns.iter_mut().zip(&values) {
                    column.push(numbers::format(*v, digits));
                }
            }
            let labels: Vec<String> = frames.iter().map(|(label, _)| label).collect();
            text = json(doc, &labels, &columns);
        }
    }
    Ok(text)
}

/// `{"fps", "frames", "tracks": [{"name", "type", "values"}]}` from formatted numbers.
fn json(doc: &Document, frames: &[String], columns: &[Vec<String>]) -> String {
    let mut out = format!(
        "{{\"fps\":{},\"frames\":[{}],\"tracks\":[",
        doc.fps(),
        frames.join(",")
    );
    let mut at = 0;
    for (t, track) in doc.tracks().iter().enumerate() {
        if t > 0 {
            out.push(',');
        }
        out.push_str("{\"name\":");
        let _ = inbetween::sample::write_json_string(track.name(), &mut out);
        out.push_str(&format!(
            ",\"type\":\"{}\",\"values\":[",
            track.value_type().name()
        ));
        let n = track.components();
        let mine = &columns[at..at + n];
        for row in 0..frames.len() {
            if row > 0 {
                out.push(',');
            }
            let cells: Vec<&str> = mine.iter().map(|column| column[row].as_str()).collect();
            if n == 1 {
                out.push_str(cells[0]);
            } else {
                out.push('[');
                out.push_str(&cells.join(","));
                out.push(']');
            }
        }
        out.push_str("]}");
        at += n;
    }
    out.push_str("]}\n");
    out
}
