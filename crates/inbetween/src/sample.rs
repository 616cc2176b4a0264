//! Sampling a document at integer frames into the spec's CSV (or JSON) output.

use alloc::string::String;
use core::fmt::{self, Write};

use crate::document::Document;
use crate::error::EvalError;
use crate::track::Track;

/// Why sampling stopped.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SampleError {
    /// A value was not finite (an expression outside its domain).
    #[error(transparent)]
    NotFinite(#[from] EvalError),
    /// The writer failed.
    #[error("could not write the output")]
    Write,
    /// The document's default range reaches a key beyond ±[`MAX_SAMPLE_FRAME`], where whole
    /// frames are no longer all f64 numbers (and beyond ±9.2e18 not even i64 ones): it cannot be
    /// sampled frame by frame; give an explicit range.
    #[error("track \"{track}\": its keys run from frame {first:e} to frame {last:e}, beyond ±{max:e} (2^53, where whole frames stop being exact f64 numbers), so the default range of integer frames cannot be sampled (docs/limits.md); give an explicit range")]
    RangeTooLarge {
        /// The track whose first or last key lies outside.
        track: String,
        /// Its first key's frame.
        first: f64,
        /// Its last key's frame.
        last: f64,
        /// The limit, [`MAX_SAMPLE_FRAME`].
        max: f64,
    },
}

/// The largest |frame| of the default sampling range ([`Document::sample_range`]): 2^53 =
/// 9 007 199 254 740 992. Up to it every integer is an f64, so each row's frame is evaluated
/// exactly as printed; beyond it consecutive integers share one f64.
pub const MAX_SAMPLE_FRAME: f64 = 9_007_199_254_740_992.0;

impl Document {
    /// The integer frames `sample` prints by default, from ⌈earliest first key⌉ to ⌊latest last
    /// key⌋ (both included); `Ok(None)` when no integer lies between them (keys 0.2 and 0.7).
    ///
    /// # Errors
    /// [`SampleError::RangeTooLarge`] naming the first track with a key beyond
    /// ±[`MAX_SAMPLE_FRAME`] (such a range used to come back empty, and `sample` printed only
    /// the header).
    pub fn sample_range(&self) -> Result<Option<(i64, i64)>, SampleError> {
        for track in self.tracks() {
            let (first, last) = (track.first_frame(), track.last_frame());
            if !(crate::math::abs(first) <= MAX_SAMPLE_FRAME
                && crate::math::abs(last) <= MAX_SAMPLE_FRAME)
            {
                return Err(SampleError::RangeTooLarge {
                    track: track.name().into(),
                    first,
                    last,
                    max: MAX_SAMPLE_FRAME,
                });
            }
        }
        Ok(self.frame_range())
    }
}

impl From<fmt::Error> for SampleError {
    fn from(_: fmt::Error) -> SampleError {
        SampleError::Write
    }
}

/// Quotes a CSV field when it holds a comma, quote or line break (RFC 4180).
pub fn csv_field(name: &str) -> String {
    if name.contains([',', '"', '\n', '\r']) {
        let mut s = String::with_capacity(name.len() + 2);
        s.push('"');
        for ch in name.chars() {
            if ch == '"' {
                s.push('"');
            }
            s.push(ch);
        }
        s.push('"');
        s
    } else {
        String::from(name)
    }
}

/// Writes the CSV header: `frame`, then each track's columns (`name` for a scalar,
/// `name.x name.y ...` for vectors and quaternions, `name.r ... name.a` for colours).
pub fn write_csv_header<W: Write>(doc: &Document, out: &mut W) -> fmt::Result {
    out.write_str("frame")?;
    for track in doc.tracks() {
        let suffixes = track.value_type().component_names();
        if suffixes.is_empty() {
            write!(out, ",{}", csv_field(track.name()))?;
        } else {
            for s in suffixes {
                let mut col = String::from(track.name());
                col.push('.');
                col.push_str(s);
                write!(out, ",{}", csv_field(&col))?;
            }
        }
    }
    out.write_str("\n")
}

/// Writes one CSV row of values for `frame`, given the values already computed.
pub fn write_csv_row<W: Write>(frame: i64, values: &[f64], out: &mut W) -> fmt::Result {
    write!(out, "{frame}")?;
    for v in values {
        // `{}` prints the shortest digits that read back to the same f64.
        write!(out, ",{v}")?;
    }
    out.write_str("\n")
}

/// Evaluates every track at `frame` (after each track's wrap) into `values`, in column order.
pub fn eval_row(
    doc: &Document,
    frame: f64,
    values: &mut alloc::vec::Vec<f64>,
) -> Result<(), EvalError> {
    values.clear();
    for track in doc.tracks() {
        let v = track.try_eval(frame)?;
        values.extend_from_slice(&v);
    }
    Ok(())
}

/// Writes the spec's CSV for the integer frames `from..=to` (only the header when empty).
pub fn write_csv<W: Write>(
    doc: &Document,
    from: i64,
    to: i64,
    out: &mut W,
) -> Result<(), SampleError> {
    write_csv_header(doc, out)?;
    let mut values = alloc::vec::Vec::with_capacity(doc.columns());
    let mut frame = from;
    while frame <= to {
        eval_row(doc, frame as f64, &mut values)?;
        write_csv_row(frame, &values, out)?;
        if frame == i64::MAX {
            break;
        }
        frame += 1;
    }
    Ok(())
}

/// Writes the same samples as JSON:
/// `{"fps": F, "frames": [..], "tracks": [{"name": .., "type": .., "values": [[..], ..]}, ..]}`
/// (scalar tracks give plain numbers).
pub fn write_json<W: Write>(
    doc: &Document,
    from: i64,
    to: i64,
    out: &mut W,
) -> Result<(), SampleError> {
    write!(out, "{{\"fps\":{},\"frames\":[", doc.fps())?;
    let mut frame = from;
    let mut first = true;
    while frame <= to {
        if !first {
            out.write_str(",")?;
        }
        first = false;
        write!(out, "{frame}")?;
        if frame == i64::MAX {
            break;
        }
        frame += 1;
    }
    out.write_str("],\"tracks\":[")?;
    for (t, track) in doc.tracks().iter().enumerate() {
        if t > 0 {
            out.write_str(",")?;
        }
        write!(out, "{{\"name\":")?;
        write_json_string(track.name(), out)?;
        write!(
            out,
            ",\"type\":\"{}\",\"values\":[",
            track.value_type().name()
        )?;
        write_track_values(track, from, to, out)?;
        out.write_str("]}")?;
    }
    out.write_str("]}\n")?;
    Ok(())
}

fn write_track_values<W: Write>(
    track: &Track,
    from: i64,
    to: i64,
    out: &mut W,
) -> Result<(), SampleError> {
    let mut frame = from;
    while frame <= to {
        if frame > from {
            out.write_str(",")?;
        }
        let v = track.try_eval(frame as f64)?;
        if v.len() == 1 {
            write!(out, "{}", v[0])?;
        } else {
            out.write_str("[")?;
            for (c, x) in v.iter().enumerate() {
                if c > 0 {
                    out.write_str(",")?;
                }
                write!(out, "{x}")?;
            }
            out.write_str("]")?;
        }
        if frame == i64::MAX {
            break;
        }
        frame += 1;
    }
    Ok(())
}

/// Writes `s` as a JSON string literal.
pub fn write_json_string<W: Write>(s: &str, out: &mut W) -> fmt::Result {
    out.write_str("\"")?;
    for ch in s.chars() {
        match ch {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32)?,
            c => out.write_char(c)?,
        }
    }
    out.write_str("\"")
}
