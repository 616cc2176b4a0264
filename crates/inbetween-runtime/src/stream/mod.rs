//! The `.ibs` forward-difference stream: value types, validation once in `Stream::from_bytes`, then infallible reads.
//!
//! A stream holds tracks; a track holds pieces. Piece `i` of a track covers the frames
//! `[start_i, start_{i+1})` (the last one ends at the track's last frame) with a polynomial of
//! degree `n ≤ 8` given, per component, by its forward differences at a step of one frame at the
//! piece's *origin* frame `o`: `D_0 = p(o)`, `D_k = Δ^k p(o)`. The value at any real frame `w` of
//! the piece is the Newton forward sum `p(w) = Σ_k C(w − o, k) · D_k` with the generalized binomial
//! `C(t, k) = t (t−1) … (t−k+1) / k!`; at integer steps it is played by `D_i += D_{i+1}`.
//! See `docs/stream-format.md` for the byte layout.

pub mod compact;
pub(crate) mod cursor;
mod error;
#[cfg(feature = "write")]
mod join;
pub mod layout;
pub mod outside;
#[cfg(feature = "write")]
mod write;
#[cfg(feature = "write")]
mod write_compact;

pub use error::StreamError;
#[cfg(feature = "write")]
pub use join::{join_streams, join_validated, OwnedStream};
#[cfg(feature = "write")]
pub use write::{
    fix_checksum, reencode, write_stream, write_stream_as, write_stream_unvalidated, PieceData,
    PieceNumbers, TableLayout, TrackData,
};

use layout::*;

/// What a track's values are. The code is what the stream stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamValueType {
    /// One number (code 1).
    Scalar = 1,
    /// Two numbers (code 2).
    Vec2 = 2,
    /// Three numbers (code 3).
    Vec3 = 3,
    /// Four numbers (code 4).
    Vec4 = 4,
    /// r, g, b, a (code 5).
    Color = 5,
    /// x, y, z, w of a unit quaternion (code 6); played without normalization, see the docs.
    Quat = 6,
}

impl StreamValueType {
    /// The type with stream code `code`, if any.
    #[must_use]
    pub const fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(Self::Scalar),
            2 => Some(Self::Vec2),
            3 => Some(Self::Vec3),
            4 => Some(Self::Vec4),
            5 => Some(Self::Color),
            6 => Some(Self::Quat),
            _ => None,
        }
    }
    /// The stream code.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }
    /// Number of components (1..=4).
    #[must_use]
    pub const fn components(self) -> usize {
        match self {
            Self::Scalar => 1,
            Self::Vec2 => 2,
            Self::Vec3 => 3,
            Self::Vec4 | Self::Color | Self::Quat => 4,
        }
    }
}

/// What a frame outside `[first_frame, last_frame]` plays (the spec's `wrap`), with f₀ the first
/// frame and S = last − first: `Clamp` holds the nearer end; `Loop` plays f₀ + ((f − f₀) mod S);
/// `PingPong` plays f₀ + r if r ≤ S else f₀ + 2S − r, r = (f − f₀) mod 2S (floored modulo).
/// Frames inside `[first_frame, last_frame]` are played as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StreamWrap {
    /// Hold the first or last value (code 0).
    #[default]
    Clamp = 0,
    /// Repeat (code 1).
    Loop = 1,
    /// Forward then backward (code 2).
    PingPong = 2,
}

impl StreamWrap {
    /// The wrap with stream code `code`, if any.
    #[must_use]
    pub const fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(Self::Clamp),
            1 => Some(Self::Loop),
            2 => Some(Self::PingPong),
            _ => None,
        }
    }
    /// The stream code.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }
}

/// How a track's piece numbers are stored and played.
///
/// - `F32`: differences stored as f32, played in an f64 state (f32 coefficients with f64 state
///   stay near 1e-7 of scale flat to 60 000 frames, where pure f32 additions drift ~1e-8·N).
/// - `F64`: stored and played in f64.
/// - `Fixed`: stored as i64 integers `I_k = round(D_k · 2^e)` with a per-piece exponent `e`,
///   played by wrapping integer additions at whole-frame steps (bit-exact on every platform);
///   the value is `I_0 · 2^-e`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    /// 32-bit floats (code 1).
    F32 = 1,
    /// 64-bit floats (code 2).
    #[default]
    F64 = 2,
    /// 64-bit integers with a per-piece binary exponent (code 3).
    Fixed = 3,
}

impl Precision {
    /// The precision with stream code `code`, if any.
    #[must_use]
    pub const fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(Self::F32),
            2 => Some(Self::F64),
            3 => Some(Self::Fixed),
            _ => None,
        }
    }
    /// The stream code.
    #[must_use]
    pub const fn code(self) -> u8 {
        self as u8
    }
    /// Bytes per stored number.
    #[must_use]
    pub const fn number_size(self) -> usize {
        match self {
            Self::F32 => 4,
            Self::F64 | Self::Fixed => 8,
        }
    }
    /// Lower-case name (`f32`, `f64`, `fixed`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::Fixed => "fixed",
        }
    }
}

impl core::fmt::Display for Precision {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A validated stream borrowing its bytes. Every read after `from_bytes` succeeds.
#[derive(Debug, Clone, Copy)]
pub struct Stream<'s> {
    bytes: &'s [u8],
    track_count: u32,
    fps: f64,
}

/// One track of a validated stream (a cheap handle into the bytes).
#[derive(Debug, Clone, Copy)]
pub struct StreamTrack<'s> {
    bytes: &'s [u8],
    entry: usize,
    index: u32,
}

/// One piece of a track, decoded from its table entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piece {
    /// Index in the track.
    pub index: u32,
    /// First frame covered (included).
    pub start: f64,
    /// Frame where the piece ends (excluded; the next piece's start or the track's last frame).
    pub end: f64,
    /// Frame at which the differences are given (the first integer frame in the piece, if any).
    pub origin: f64,
    /// Degree n (0..=8): n + 1 numbers per component.
    pub degree: u8,
    /// Fixed precision only: numbers are `integer · 2^-exponent`. Zero otherwise.
    pub exponent: i8,
    /// An f32 track's piece whose numbers are stored as f64 (see `layout::PIECE_FLAG_WIDE`).
    pub wide: bool,
    /// Absolute byte offset of the piece's numbers.
    data_offset: usize,
}

/// Per-track figures for `inspect` and the demo table.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackSummary {
    /// Number of pieces.
    pub pieces: usize,
    /// `degree_histogram[d]` = pieces of degree d.
    pub degree_histogram: [usize; MAX_TERMS],
    /// Highest piece degree.
    pub max_degree: u8,
    /// Bytes of the track's piece table and numbers (excluding its track-table entry and name).
    pub bytes: usize,
    /// Tolerance the track was compiled for (value units, absolute).
    pub tolerance: f64,
    /// Largest |played − exact| over components and integer frames, measured by the compiler.
    pub max_error: f64,
    /// Frame of that largest error.
    pub max_error_frame: f64,
    /// Integer frames in `[first_frame, last_frame]`.
    pub frames: u64,
    /// Average additions per played integer frame: Σ pieces (frames · degree · components) / frames.
    pub additions_per_frame: f64,
}

impl<'s> Stream<'s> {
    /// Validates `bytes` completely (header, every table entry, every offset and size, every
    /// number, checksum) without allocating, and returns a stream whose reads cannot fail.
    ///
    /// # Errors
    /// A `StreamError` naming the region, track, piece and field at fault.
    pub fn from_bytes(bytes: &'s [u8]) -> Result<Self, StreamError> {
        validate::validate(bytes)?;
        Ok(Self {
            bytes,
            track_count: read_u32(bytes, H_TRACK_COUNT),
            fps: read_f64(bytes, H_FPS),
        })
    }
    /// Frames per second of the source document.
    #[must_use]
    pub fn fps(&self) -> f64 {
        self.fps
    }
    /// Number of tracks.
    #[must_use]
    pub fn track_count(&self) -> usize {
        to_usize(self.track_count)
    }
    /// The stream's bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &'s [u8] {
        self.bytes
    }
    /// Track `index`, or `None` past the end.
    #[must_use]
    pub fn track(&self, index: usize) -> Option<StreamTrack<'s>> {
        let index32 = u32::try_from(index).ok()?;
        if index32 >= self.track_count {
            return None;
        }
        Some(StreamTrack {
            bytes: self.bytes,
            entry: HEADER_SIZE + index * TRACK_ENTRY_SIZE,
            index: index32,
        })
    }
    /// All tracks in order.
    pub fn tracks(&self) -> impl Iterator<Item = StreamTrack<'s>> + '_ {
        (0..self.track_count()).filter_map(move |i| self.track(i))
    }
    /// The track named `name`, if any.
    #[must_use]
    pub fn track_by_name(&self, name: &str) -> Option<StreamTrack<'s>> {
        self.tracks().find(|t| t.name() == name)
    }
    /// Total components over all tracks (the width of `Player::write`).
    #[must_use]
    pub fn total_components(&self) -> usize {
        self.tracks().map(|t| t.components()).sum()
    }
    /// The earliest first key frame and the latest last key frame over all tracks, or `None`
    /// for a stream without tracks.
    #[must_use]
    pub fn frame_range(&self) -> Option<(f64, f64)> {
        let first = self
            .tracks()
            .map(|t| t.first_frame())
            .fold(f64::INFINITY, f64::min);
        let last = self
            .tracks()
            .map(|t| t.last_frame())
            .fold(f64::NEG_INFINITY, f64::max);
        (first <= last).then_some((first, last))
    }
}

impl<'s> StreamTrack<'s> {
    /// An empty placeholder (no bytes): a constant scalar 0 with no pieces.
    pub(crate) const EMPTY: StreamTrack<'static> = StreamTrack {
        bytes: &[],
        entry: 0,
        index: 0,
    };
    fn field_u32(&self, field: usize) -> u32 {
        read_u32(self.bytes, self.entry + field)
    }
    fn field_f64(&self, field: usize) -> f64 {
        read_f64(self.bytes, self.entry + field)
    }
    /// Index in the stream.
    #[must_use]
    pub fn index(&self) -> usize {
        to_usize(self.index)
    }
    /// The track's name.
    #[must_use]
    pub fn name(&self) -> &'s str {
        let names = to_usize(read_u32(self.bytes, H_NAMES_OFFSET));
        let start = names.saturating_add(to_usize(self.field_u32(T_NAME_OFFSET)));
        let end = start.saturating_add(to_usize(self.field_u32(T_NAME_LENGTH)));
        self.bytes
            .get(start..end)
            .and_then(|b| core::str::from_utf8(b).ok())
            .unwrap_or("")
    }
    /// Value type.
    #[must_use]
    pub fn value_type(&self) -> StreamValueType {
        StreamValueType::from_code(read_u8(self.bytes, self.entry + T_VALUE_TYPE))
            .unwrap_or(StreamValueType::Scalar)
    }
    /// Number of components (1..=4).
    #[must_use]
    pub fn components(&self) -> usize {
        self.value_type().components()
    }
    /// Precision of the numbers.
    #[must_use]
    pub fn precision(&self) -> Precision {
        Precision::from_code(read_u8(self.bytes, self.entry + T_PRECISION)).unwrap_or_default()
    }
    /// What each side plays when the track has an outside record (format version 2; its
    /// `wrap()` is then `Clamp`), else `None`.
    #[must_use]
    pub fn outside(&self) -> Option<outside::Outside> {
        if read_u8(self.bytes, self.entry + T_OUTSIDE) != 1 {
            return None;
        }
        let at = to_usize(self.field_u32(T_DATA_OFFSET))
            .saturating_add(to_usize(self.field_u32(T_DATA_LENGTH)));
        Some(outside::Outside::read(self.bytes, at))
    }
    /// Whether the player normalizes this track's value (track flags bit 0, format version 2;
    /// quat tracks only): `q / ‖q‖` in f64, see docs/stream-format.md.
    #[must_use]
    pub fn normalizes(&self) -> bool {
        read_u8(self.bytes, self.entry + T_FLAGS) & TRACK_FLAG_NORMALIZE != 0
    }
    /// Whether frames before the first frame hold its value (`clamp`, or an outside record's
    /// `Hold` before).
    #[must_use]
    pub fn holds_before(&self) -> bool {
        self.wrap() == StreamWrap::Clamp
            && self
                .outside()
                .map_or(true, |o| o.before == outside::Beyond::Hold)
    }
    /// Wrap mode.
    #[must_use]
    pub fn wrap(&self) -> StreamWrap {
        StreamWrap::from_code(read_u8(self.bytes, self.entry + T_WRAP)).unwrap_or_default()
    }
    /// Highest degree of its pieces.
    #[must_use]
    pub fn max_degree(&self) -> u8 {
        read_u8(self.bytes, self.entry + T_MAX_DEGREE)
    }
    /// Number of pieces (0 for a constant track whose first and last frames coincide).
    #[must_use]
    pub fn piece_count(&self) -> usize {
        to_usize(self.field_u32(T_PIECE_COUNT))
    }
    /// First key frame.
    #[must_use]
    pub fn first_frame(&self) -> f64 {
        self.field_f64(T_FIRST_FRAME)
    }
    /// Last key frame.
    #[must_use]
    pub fn last_frame(&self) -> f64 {
        self.field_f64(T_LAST_FRAME)
    }
    /// Tolerance it was compiled for (absolute, value units).
    #[must_use]
    pub fn tolerance(&self) -> f64 {
        self.field_f64(T_TOLERANCE)
    }
    /// Largest error the compiler measured at integer frames (absolute, value units).
    #[must_use]
    pub fn max_error(&self) -> f64 {
        self.field_f64(T_MAX_ERROR)
    }
    /// Frame of the largest measured error.
    #[must_use]
    pub fn max_error_frame(&self) -> f64 {
        self.field_f64(T_MAX_ERROR_FRAME)
    }
    /// Exact value at the last frame (components beyond `components()` are 0).
    #[must_use]
    pub fn end_value(&self) -> [f64; MAX_COMPONENTS] {
        let mut out = [0.0; MAX_COMPONENTS];
        for (c, slot) in out.iter_mut().enumerate() {
            *slot = self.field_f64(T_END_VALUE + 8 * c);
        }
        out
    }
    /// The compact piece table of a version-3 track (`None` in versions 1 and 2).
    #[inline]
    fn compact(&self) -> Option<compact::CompactTable<'s>> {
        if read_u16(self.bytes, H_VERSION) != FORMAT_VERSION_COMPACT {
            return None;
        }
        compact::CompactTable::new(self.bytes, self.entry)
    }
    /// Piece `index`, or `None` past the end. Version 3 walks at most 15 entries from the
    /// piece's checkpoint.
    #[must_use]
    pub fn piece(&self, index: usize) -> Option<Piece> {
        if let Some(table) = self.compact() {
            return table.piece(index);
        }
        let count = self.piece_count();
        if index >= count {
            return None;
        }
        let table = to_usize(self.field_u32(T_PIECE_TABLE_OFFSET));
        let entry = table + index * PIECE_ENTRY_SIZE;
        let end = if index + 1 < count {
            read_f64(self.bytes, entry + PIECE_ENTRY_SIZE + P_START)
        } else {
            self.last_frame()
        };
        Some(Piece {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            start: read_f64(self.bytes, entry + P_START),
            end,
            origin: read_f64(self.bytes, entry + P_ORIGIN),
            degree: read_u8(self.bytes, entry + P_DEGREE),
            exponent: read_i8(self.bytes, entry + P_EXPONENT),
            wide: read_u8(self.bytes, entry + P_FLAGS) & PIECE_FLAG_WIDE != 0,
            data_offset: to_usize(self.field_u32(T_DATA_OFFSET))
                + to_usize(read_u32(self.bytes, entry + P_DATA_OFFSET)),
        })
    }
    /// Start frame of piece `index` (for the binary search).
    fn piece_start(&self, index: usize) -> f64 {
        let table = to_usize(self.field_u32(T_PIECE_TABLE_OFFSET));
        read_f64(self.bytes, table + index * PIECE_ENTRY_SIZE + P_START)
    }
    /// Index of the piece containing frame `w` in `[first_frame, last_frame)`: the last piece
    /// whose start is ≤ `w` (piece 0 for smaller `w`), in O(log pieces) (plus at most 15 start
    /// steps in version 3). `None` for a track without pieces.
    #[must_use]
    pub fn piece_index_at(&self, w: f64) -> Option<usize> {
        if let Some(table) = self.compact() {
            return table.index_at(w).map(|(index, _)| index);
        }
        let count = self.piece_count();
        if count == 0 {
            return None;
        }
        // Invariant: start(lo) <= w or lo == 0; start(hi) > w or hi == count.
        let (mut lo, mut hi) = (0usize, count);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.piece_start(mid) <= w {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    }
    /// The piece containing frame `w` in `[first_frame, last_frame)`: the last piece whose start
    /// is ≤ `w` (piece 0 for smaller `w`), in O(log pieces). `None` for a track without pieces.
    #[must_use]
    pub fn piece_at(&self, w: f64) -> Option<Piece> {
        if let Some(table) = self.compact() {
            return table.piece_at(w);
        }
        self.piece_index_at(w).and_then(|index| self.piece(index))
    }
    /// The pieces in order.
    pub fn pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        (0..self.piece_count()).filter_map(move |i| self.piece(i))
    }
    /// Number `k` (difference order, 0 = value) of component `c` of `piece`, as an f64
    /// (fixed numbers are scaled by 2^-exponent).
    #[must_use]
    pub fn number(&self, piece: &Piece, component: usize, order: usize) -> f64 {
        let terms = usize::from(piece.degree) + 1;
        let index = component * terms + order;
        match self.precision() {
            Precision::F32 if !piece.wide => {
                f64::from(read_f32(self.bytes, piece.data_offset + 4 * index))
            }
            Precision::F32 => read_f64(self.bytes, piece.data_offset + 8 * index),
            Precision::F64 => read_f64(self.bytes, piece.data_offset + 8 * index),
            Precision::Fixed => {
                // i64 → f64 rounds to nearest (deterministic); the power of two is exact.
                let raw = read_i64(self.bytes, piece.data_offset + 8 * index);
                (raw as f64) * crate::math::powi(2.0, -i32::from(piece.exponent))
            }
        }
    }
    /// Raw integer `k` of component `c` of a fixed-precision `piece` (0 for other precisions).
    #[must_use]
    pub fn fixed_number(&self, piece: &Piece, component: usize, order: usize) -> i64 {
        if self.precision() != Precision::Fixed {
            return 0;
        }
        let terms = usize::from(piece.degree) + 1;
        read_i64(
            self.bytes,
            piece.data_offset + 8 * (component * terms + order),
        )
    }
    /// Bytes of the piece table (checkpoints and entries in version 3), numbers and outside
    /// record.
    #[must_use]
    pub fn byte_size(&self) -> usize {
        let record = if self.outside().is_some() {
            outside::OUTSIDE_RECORD_SIZE
        } else {
            0
        };
        let table = to_usize(self.field_u32(T_DATA_OFFSET))
            .saturating_sub(to_usize(self.field_u32(T_PIECE_TABLE_OFFSET)));
        table + to_usize(self.field_u32(T_DATA_LENGTH)) + record
    }
    /// Pieces, degrees, bytes, measured error and additions per frame.
    #[must_use]
    pub fn summary(&self) -> TrackSummary {
        self.summary_of(self.pieces().map(|p| (p.start, p.end, p.degree)))
    }
    /// [`StreamTrack::summary`] with the pieces' `(start, end, degree)` given in order (the
    /// compiler has them at hand, to the same bits: no piece is decoded from the table).
    #[must_use]
    pub fn summary_of(&self, pieces: impl Iterator<Item = (f64, f64, u8)>) -> TrackSummary {
        let mut histogram = [0usize; MAX_TERMS];
        let mut additions = 0.0;
        let components = self.components() as f64;
        let mut max_degree = 0u8;
        for (start, end, degree) in pieces {
            if let Some(slot) = histogram.get_mut(usize::from(degree)) {
                *slot += 1;
            }
            max_degree = max_degree.max(degree);
            additions += integer_frames(start, end) as f64 * f64::from(degree) * components;
        }
        let (first, last) = (self.first_frame(), self.last_frame());
        // Saturating: a stream may hold any finite frames, and `integer_frames` saturates at
        // u64::MAX beyond 1.8e19 frames (found by fuzzing).
        let frames = integer_frames(first, last).saturating_add(u64::from(is_integer(last)));
        TrackSummary {
            pieces: self.piece_count(),
            degree_histogram: histogram,
            max_degree,
            bytes: self.byte_size(),
            tolerance: self.tolerance(),
            max_error: self.max_error(),
            max_error_frame: self.max_error_frame(),
            frames,
            additions_per_frame: if frames == 0 {
                0.0
            } else {
                additions / frames as f64
            },
        }
    }
}

/// Whether `x` is a whole number.
#[inline]
pub(crate) fn is_integer(x: f64) -> bool {
    crate::math::floor(x) == x
}

/// Number of integers in `[a, b)`.
#[must_use]
pub fn integer_frames(a: f64, b: f64) -> u64 {
    let lo = crate::math::ceil(a);
    let hi = crate::math::ceil(b);
    if hi > lo {
        (hi - lo) as u64
    } else {
        0
    }
}

pub mod bound;
mod compact_check;
mod validate;
#[cfg(feature = "rayon")]
mod validate_parallel;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for code in 0..=255u8 {
            if let Some(t) = StreamValueType::from_code(code) {
                assert_eq!(t.code(), code);
            }
            if let Some(w) = StreamWrap::from_code(code) {
                assert_eq!(w.code(), code);
            }
            if let Some(p) = Precision::from_code(code) {
                assert_eq!(p.code(), code);
            }
        }
        assert_eq!(StreamValueType::Color.components(), 4);
        assert_eq!(Precision::F32.number_size(), 4);
    }

    #[test]
    fn integer_frames_counts_whole_frames_in_half_open_ranges() {
        assert_eq!(integer_frames(0.0, 10.0), 10);
        assert_eq!(integer_frames(0.5, 10.25), 10);
        assert_eq!(integer_frames(0.2, 0.7), 0);
        assert_eq!(integer_frames(-2.5, -1.0), 1);
    }

    #[test]
    #[cfg(feature = "write")]
    fn an_empty_track_list_writes_a_valid_stream() {
        let bytes = write_stream(24.0, &[]).unwrap_or_default();
        let stream = Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stream.track_count(), 0);
        assert_eq!(stream.fps(), 24.0);
        assert_eq!(stream.frame_range(), None);
        assert!(matches!(
            Stream::from_bytes(&bytes[..bytes.len() - 1]),
            Err(StreamError::Truncated { .. } | StreamError::LengthMismatch { .. })
        ));
    }
}
