//! Writing a stream: owned track and piece descriptions laid out into the `.ibs` bytes.

use alloc::string::String;
use alloc::vec::Vec;

use super::compact::{self, StartCode};
use super::layout::*;
use super::write_compact::{is_wide, start_code, stores_origin, write_compact_table};
use super::{Precision, Stream, StreamError, StreamTrack, StreamValueType, StreamWrap};

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
    pub(super) fn len(&self) -> usize {
        match self {
            Self::F32(v) => v.len(),
            Self::F64(v) => v.len(),
            Self::Fixed(v) => v.len(),
        }
    }
    pub(super) fn precision(&self) -> Precision {
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
pub(super) fn fit_u32(what: &'static str, value: usize) -> Result<u32, StreamError> {
    u32::try_from(value).map_err(|_| StreamError::TooLarge {
        what,
        found: value as u64,
        limit: u64::from(u32::MAX),
    })
}

/// Which piece table a stream is written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TableLayout {
    /// Format version 3 (`stream::compact`): starts on a per-track grid, a degree byte per
    /// piece, a data offset per 16 pieces. What `write_stream` and the compiler write.
    #[default]
    Compact,
    /// Versions 1 and 2: 24-byte piece entries (version 2 when a track has an outside record).
    Legacy,
}

/// Lays `tracks` out as `.ibs` bytes in format version 3 (the compact piece table) and
/// validates the result with `Stream::from_bytes`.
///
/// # Errors
/// As [`write_stream_as`].
pub fn write_stream(fps: f64, tracks: &[TrackData]) -> Result<Vec<u8>, StreamError> {
    write_stream_as(fps, tracks, TableLayout::Compact)
}

/// Lays `tracks` out as `.ibs` bytes with the piece table `layout` and validates the result
/// with `Stream::from_bytes`, in named steps: plan each track's table, header, track table,
/// names, each track's piece table and numbers, then length and checksum.
///
/// # Errors
/// `StreamError::TooLarge` when a count or offset exceeds u32, and whatever validation finds in
/// the given data (non-finite numbers, pieces out of order, a precision mismatch reported as a
/// layout mismatch of the data length, ...).
pub fn write_stream_as(
    fps: f64,
    tracks: &[TrackData],
    layout: TableLayout,
) -> Result<Vec<u8>, StreamError> {
    let out = lay_out(fps, tracks, layout)?;
    Stream::from_bytes(&out)?;
    Ok(out)
}

/// [`write_stream`]'s bytes without its closing validation, for a caller that validates them
/// itself with `Stream::from_bytes` before reading them (the compiler, which plays them), so
/// that they are validated once: the same bytes, and on invalid data the same error from that
/// call.
///
/// # Errors
/// `StreamError::TooLarge` when a count or offset exceeds u32.
pub fn write_stream_unvalidated(fps: f64, tracks: &[TrackData]) -> Result<Vec<u8>, StreamError> {
    lay_out(fps, tracks, TableLayout::Compact)
}

/// The bytes of [`write_stream_as`], not yet validated.
fn lay_out(fps: f64, tracks: &[TrackData], layout: TableLayout) -> Result<Vec<u8>, StreamError> {
    let plans: Vec<TablePlan> = tracks.iter().map(|t| TablePlan::new(t, layout)).collect();
    // The exact length, so that the bytes are never moved while they grow.
    let size = HEADER_SIZE
        + tracks.len() * TRACK_ENTRY_SIZE
        + tracks.iter().map(|t| t.name.len()).sum::<usize>()
        + tracks
            .iter()
            .zip(&plans)
            .map(|(t, p)| p.table_size + p.data_length + record_size(t))
            .sum::<usize>()
        + CHECKSUM_SIZE;
    let mut out = Vec::with_capacity(size);
    write_header(&mut out, fps, tracks, layout)?;
    write_track_table(&mut out, tracks, &plans)?;
    for track in tracks {
        out.extend_from_slice(track.name.as_bytes());
    }
    for (track, plan) in tracks.iter().zip(&plans) {
        match plan.code {
            Some(code) => write_compact_table(&mut out, track, code)?,
            None => write_legacy_table(&mut out, track)?,
        }
        for (i, piece) in track.pieces.iter().enumerate() {
            if plan.code.is_some() && stores_origin(track, i) {
                out.extend_from_slice(&piece.origin.to_le_bytes());
            }
            piece.numbers.append_to(&mut out);
        }
        if let Some(outside) = &track.outside {
            outside.append_to(&mut out);
        }
    }
    finish(out)
}

/// Re-encodes a validated stream with the piece table `layout`: the same tracks, pieces and
/// numbers, so every value played from the result has the same bits.
///
/// # Errors
/// As [`write_stream_as`] (a stream too large for the layout's u32 offsets).
pub fn reencode(stream: &Stream<'_>, layout: TableLayout) -> Result<Vec<u8>, StreamError> {
    let tracks: Vec<TrackData> = stream.tracks().map(|t| TrackData::from_track(&t)).collect();
    write_stream_as(stream.fps(), &tracks, layout)
}

impl TrackData {
    /// The track of a validated stream as data to write (numbers in their stored precision).
    #[must_use]
    pub fn from_track(track: &StreamTrack<'_>) -> Self {
        let components = track.components();
        let pieces = track
            .pieces()
            .map(|piece| {
                let terms = usize::from(piece.degree) + 1;
                let indices = (0..components).flat_map(|c| (0..terms).map(move |k| (c, k)));
                let numbers = match (track.precision(), piece.wide) {
                    // An f32 number widened to f64 narrows back exactly.
                    (Precision::F32, false) => PieceNumbers::F32(
                        indices
                            .map(|(c, k)| track.number(&piece, c, k) as f32)
                            .collect(),
                    ),
                    (Precision::Fixed, _) => PieceNumbers::Fixed(
                        indices
                            .map(|(c, k)| track.fixed_number(&piece, c, k))
                            .collect(),
                    ),
                    _ => PieceNumbers::F64(
                        indices.map(|(c, k)| track.number(&piece, c, k)).collect(),
                    ),
                };
                PieceData {
                    start: piece.start,
                    origin: piece.origin,
                    degree: piece.degree,
                    exponent: piece.exponent,
                    numbers,
                }
            })
            .collect();
        TrackData {
            name: String::from(track.name()),
            value_type: track.value_type(),
            wrap: track.wrap(),
            precision: track.precision(),
            first_frame: track.first_frame(),
            last_frame: track.last_frame(),
            tolerance: track.tolerance(),
            max_error: track.max_error(),
            max_error_frame: track.max_error_frame(),
            end_value: track.end_value(),
            pieces,
            outside: track.outside(),
            normalize: track.normalizes(),
        }
    }
}

/// A track's piece table: its start code (`None`: the legacy 24-byte entries), table size and
/// data length in bytes.
struct TablePlan {
    code: Option<StartCode>,
    table_size: usize,
    data_length: usize,
}

impl TablePlan {
    fn new(track: &TrackData, layout: TableLayout) -> Self {
        let numbers: usize = track
            .pieces
            .iter()
            .map(|p| p.numbers.len() * p.numbers.precision().number_size())
            .sum();
        let pieces = track.pieces.len();
        if layout == TableLayout::Legacy {
            return Self {
                code: None,
                table_size: pieces * PIECE_ENTRY_SIZE,
                data_length: numbers,
            };
        }
        let code = start_code(track);
        let origins = (0..pieces).filter(|&i| stores_origin(track, i)).count();
        Self {
            code: Some(code),
            table_size: compact::checkpoints(pieces) * compact::CHECKPOINT_SIZE
                + pieces * compact::entry_size(code, track.precision),
            data_length: numbers + origins * compact::ORIGIN_SIZE,
        }
    }
}

/// The 40-byte header, its total length 0 until `finish`.
fn write_header(
    out: &mut Vec<u8>,
    fps: f64,
    tracks: &[TrackData],
    layout: TableLayout,
) -> Result<(), StreamError> {
    let names_offset = HEADER_SIZE + tracks.len() * TRACK_ENTRY_SIZE;
    let names_length: usize = tracks.iter().map(|t| t.name.len()).sum();
    let version = match layout {
        TableLayout::Compact => FORMAT_VERSION_COMPACT,
        TableLayout::Legacy if tracks.iter().any(|t| t.outside.is_some() || t.normalize) => {
            FORMAT_VERSION_OUTSIDE
        }
        TableLayout::Legacy => FORMAT_VERSION,
    };
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&BYTE_ORDER_MARK.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&fit_u32("track count", tracks.len())?.to_le_bytes());
    out.extend_from_slice(&fps.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes()); // total length, set by `finish`
    out.extend_from_slice(&fit_u32("names offset", names_offset)?.to_le_bytes());
    out.extend_from_slice(&fit_u32("names length", names_length)?.to_le_bytes());
    Ok(())
}

/// One 104-byte entry per track; `out` holds the header.
fn write_track_table(
    out: &mut Vec<u8>,
    tracks: &[TrackData],
    plans: &[TablePlan],
) -> Result<(), StreamError> {
    let names_length: usize = tracks.iter().map(|t| t.name.len()).sum();
    let mut cursor = HEADER_SIZE + tracks.len() * TRACK_ENTRY_SIZE + names_length;
    let mut name_cursor = 0usize;
    for (track, plan) in tracks.iter().zip(plans) {
        let max_degree = track.pieces.iter().map(|p| p.degree).max().unwrap_or(0);
        out.extend_from_slice(&fit_u32("name offset", name_cursor)?.to_le_bytes());
        out.extend_from_slice(&fit_u32("name length", track.name.len())?.to_le_bytes());
        out.push(track.value_type.code());
        out.push(track.value_type.components() as u8);
        out.push(track.precision.code());
        out.push(track.wrap.code());
        out.push(max_degree);
        let flags = if track.normalize {
            TRACK_FLAG_NORMALIZE
        } else {
            0
        };
        let start_code = plan.code.map_or(0, StartCode::byte);
        out.extend_from_slice(&[u8::from(track.outside.is_some()), flags, start_code]);
        let data_offset = cursor + plan.table_size;
        out.extend_from_slice(&fit_u32("piece count", track.pieces.len())?.to_le_bytes());
        out.extend_from_slice(&fit_u32("piece table offset", cursor)?.to_le_bytes());
        out.extend_from_slice(&fit_u32("data offset", data_offset)?.to_le_bytes());
        out.extend_from_slice(&fit_u32("data length", plan.data_length)?.to_le_bytes());
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
        cursor = data_offset + plan.data_length + record_size(track);
    }
    Ok(())
}

/// Versions 1 and 2: a 24-byte entry per piece.
fn write_legacy_table(out: &mut Vec<u8>, track: &TrackData) -> Result<(), StreamError> {
    let mut data_offset = 0usize;
    for piece in &track.pieces {
        out.extend_from_slice(&piece.start.to_le_bytes());
        out.extend_from_slice(&piece.origin.to_le_bytes());
        out.extend_from_slice(&fit_u32("piece data offset", data_offset)?.to_le_bytes());
        out.push(piece.degree);
        out.extend_from_slice(&piece.exponent.to_le_bytes());
        out.push(if is_wide(track, piece) {
            PIECE_FLAG_WIDE
        } else {
            0
        });
        out.push(0);
        data_offset += piece.numbers.len() * piece.numbers.precision().number_size();
    }
    Ok(())
}

/// Sets the total length, appends the checksum and validates the stream.
pub(super) fn finish(mut out: Vec<u8>) -> Result<Vec<u8>, StreamError> {
    let total = out.len() + CHECKSUM_SIZE;
    if let Some(slot) = out.get_mut(H_TOTAL_LENGTH..H_TOTAL_LENGTH + 8) {
        slot.copy_from_slice(&(total as u64).to_le_bytes());
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
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
