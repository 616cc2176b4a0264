//! Writing a stream: owned track and piece descriptions laid out into the `.ibs` bytes.

use alloc::string::String;
use alloc::vec::Vec;

use super::layout::*;
use super::{Precision, Stream, StreamError, StreamValueType, StreamWrap};

/// A track to write.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackData {
    /// Name (UTF-8).
    pub name: String,
    /// Value type (fixes the component count).
    pub value_type: StreamValueType,
    /// Wrap mode.
    pub wrap: StreamWrap,
    /// Precision of every piece's numbers (must match `PieceNumbers`).
    pub precision: Precision,
    /// First key frame.
    pub first_frame: f64,
    /// Last key frame.
    pub last_frame: f64,
    /// Tolerance compiled for (absolute, value units).
    pub tolerance: f64,
    /// Largest error measured at integer frames.
    pub max_error: f64,
    /// Frame of that error.
    pub max_error_frame: f64,
    /// Exact value at the last frame (unused components 0).
    pub end_value: [f64; MAX_COMPONENTS],
    /// Pieces tiling `[first_frame, last_frame)`, in order.
    pub pieces: Vec<PieceData>,
    /// What each side plays, when not the wrap (then `wrap` must be `Clamp`; the stream is
    /// written as version 2).
    pub outside: Option<super::outside::Outside>,
    /// Played normalized (track flag bit 0; quat tracks only; the stream is written as
    /// version 2).
    pub normalize: bool,
}

/// A piece to write.
#[derive(Debug, Clone, PartialEq)]
pub struct PieceData {
    /// First frame (included).
    pub start: f64,
    /// Frame of the differences (within the piece).
    pub origin: f64,
    /// Degree n.
    pub degree: u8,
    /// Fixed only: numbers are integer · 2^-exponent; 0 for float precisions.
    pub exponent: i8,
    /// `(degree + 1) · components` numbers in the track's precision (or f64 in an f32 track:
    /// a wide piece), component-major: component c's value and
    /// differences Δ1..Δn are `numbers[c·(n+1) .. (c+1)·(n+1)]`.
    pub numbers: PieceNumbers,
}

/// The numbers of a piece in their stored precision.
#[derive(Debug, Clone, PartialEq)]
pub enum PieceNumbers {
    /// f32 numbers.
    F32(Vec<f32>),
    /// f64 numbers.
    F64(Vec<f64>),
    /// Fixed-point integers (scale 2^-exponent).
    Fixed(Vec<i64>),
}

impl PieceNumbers {
    fn len(&self) -> usize {
        match self {
            Self::F32(v) => v.len(),
            Self::F64(v) => v.len(),
            Self::Fixed(v) => v.len(),
        }
    }
    fn precision(&self) -> Precision {
        match self {
            Self::F32(_) => Precision::F32,
            Self::F64(_) => Precision::F64,
            Self::Fixed(_) => Precision::Fixed,
        }
    }
    fn append_to(&self, out: &mut Vec<u8>) {
        match self {
            Self::F32(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Self::F64(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Self::Fixed(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        }
    }
}

/// Converts a size to the u32 the format stores.
fn fit_u32(what: &'static str, value: usize) -> Result<u32, StreamError> {
    u32::try_from(value).map_err(|_| StreamError::TooLarge {
        what,
        found: value as u64,
        limit: u64::from(u32::MAX),
    })
}

/// Lays `tracks` out as `.ibs` bytes and validates the result with `Stream::from_bytes`.
///
/// # Errors
/// `StreamError::TooLarge` when a count or offset exceeds u32, and whatever validation finds in
/// the given data (non-finite numbers, pieces out of order, a precision mismatch reported as a
/// layout mismatch of the data length, ...).
pub fn write_stream(fps: f64, tracks: &[TrackData]) -> Result<Vec<u8>, StreamError> {
    let names_offset = HEADER_SIZE + tracks.len() * TRACK_ENTRY_SIZE;
    let names_length: usize = tracks.iter().map(|t| t.name.len()).sum();
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    let version = if tracks.iter().any(|t| t.outside.is_some() || t.normalize) {
        FORMAT_VERSION_OUTSIDE
    } else {
        FORMAT_VERSION
    };
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&BYTE_ORDER_MARK.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&fit_u32("track count", tracks.len())?.to_le_bytes());
    out.extend_from_slice(&fps.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes()); // total length, patched below
    out.extend_from_slice(&fit_u32("names offset", names_offset)?.to_le_bytes());
    out.extend_from_slice(&fit_u32("names length", names_length)?.to_le_bytes());

    let mut cursor = names_offset + names_length;
    let mut name_cursor = 0usize;
    for track in tracks {
        let components = track.value_type.components();
        let table_size = track.pieces.len() * PIECE_ENTRY_SIZE;
        let data_length: usize = track
            .pieces
            .iter()
            .map(|p| p.numbers.len() * p.numbers.precision().number_size())
            .sum();
        let max_degree = track.pieces.iter().map(|p| p.degree).max().unwrap_or(0);
        out.extend_from_slice(&fit_u32("name offset", name_cursor)?.to_le_bytes());
        out.extend_from_slice(&fit_u32("name length", track.name.len())?.to_le_bytes());
        out.push(track.value_type.code());
        out.push(components as u8);
        out.push(track.precision.code());
        out.push(track.wrap.code());
        out.push(max_degree);
        let flags = if track.normalize {
            TRACK_FLAG_NORMALIZE
        } else {
            0
        };
        out.extend_from_slice(&[u8::from(track.outside.is_some()), flags, 0]);
        out.extend_from_slice(&fit_u32("piece count", track.pieces.len())?.to_le_bytes());
        out.extend_from_slice(&fit_u32("piece table offset", cursor)?.to_le_bytes());
        out.extend_from_slice(&fit_u32("data offset", cursor + table_size)?.to_le_bytes());
        out.extend_from_slice(&fit_u32("data length", data_length)?.to_le_bytes());
        for value in [
            track.first_frame,
            track.last_frame,
            track.tolerance,
            track.max_error,
            track.max_error_frame,
        ] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        for value in track.end_value {
            out.extend_from_slice(&value.to_le_bytes());
        }
        name_cursor += track.name.len();
        cursor += table_size + data_length + record_size(track);
    }
    for track in tracks {
        out.extend_from_slice(track.name.as_bytes());
    }
    for track in tracks {
        let mut data_offset = 0usize;
        for piece in &track.pieces {
            out.extend_from_slice(&piece.start.to_le_bytes());
            out.extend_from_slice(&piece.origin.to_le_bytes());
            out.extend_from_slice(&fit_u32("piece data offset", data_offset)?.to_le_bytes());
            out.push(piece.degree);
            out.extend_from_slice(&piece.exponent.to_le_bytes());
            let wide =
                track.precision == Precision::F32 && piece.numbers.precision() == Precision::F64;
            out.push(if wide { PIECE_FLAG_WIDE } else { 0 });
            out.push(0);
            data_offset += piece.numbers.len() * piece.numbers.precision().number_size();
        }
        for piece in &track.pieces {
            piece.numbers.append_to(&mut out);
        }
        if let Some(outside) = &track.outside {
            outside.append_to(&mut out);
        }
    }
    let total = out.len() + CHECKSUM_SIZE;
    if let Some(slot) = out.get_mut(H_TOTAL_LENGTH..H_TOTAL_LENGTH + 8) {
        slot.copy_from_slice(&(total as u64).to_le_bytes());
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    Stream::from_bytes(&out)?;
    Ok(out)
}

/// Bytes of a track's outside record (0 without one).
fn record_size(track: &TrackData) -> usize {
    if track.outside.is_some() {
        super::outside::OUTSIDE_RECORD_SIZE
    } else {
        0
    }
}

/// Recomputes and stores the checksum of `bytes` (a stream whose other fields were edited).
/// Does nothing when `bytes` is shorter than a checksum.
pub fn fix_checksum(bytes: &mut [u8]) {
    let Some(body) = bytes.len().checked_sub(CHECKSUM_SIZE) else {
        return;
    };
    let crc = crc32fast::hash(bytes.get(..body).unwrap_or(&[]));
    if let Some(slot) = bytes.get_mut(body..) {
        slot.copy_from_slice(&crc.to_le_bytes());
    }
}
