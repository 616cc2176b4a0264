//! Format version 3's compact piece table: starts on a per-track grid, one degree byte per piece, a data offset every 16 pieces.
//!
//! A version-3 track's table is `ceil(P / 16)` checkpoints of 8 bytes (the grid index of the
//! block's first start and its numbers' offset), then `P` entries of `s + 1` bytes (`+ 1` on
//! fixed tracks): the start field (`s` bytes), the degree byte, the fixed exponent. Piece `i`
//! is found from checkpoint `i / 16` by walking at most 15 entries, summing start steps and
//! piece sizes; nothing else is stored per piece. See docs/stream-format.md.

use super::layout::*;
use super::{Piece, Precision};

/// Pieces per checkpoint: piece `i` is reached from checkpoint `i / BLOCK` in `i % BLOCK` steps.
pub const BLOCK: usize = 16;
/// Bytes of one checkpoint: u32 grid index of the block's first start, u32 offset of its
/// numbers within the track's numbers.
pub const CHECKPOINT_SIZE: usize = 8;
/// Largest grid exponent `k` (starts on multiples of `2^-k` frames past the first frame).
pub const MAX_GRID_EXPONENT: u8 = 32;
/// Degree byte: bits 0–3 hold the degree.
pub const DEGREE_MASK: u8 = 0x0F;
/// Degree byte: bit 4, the piece's numbers are f64 on an f32 track (*wide*).
pub const DEGREE_FLAG_WIDE: u8 = 0x10;
/// Degree byte: bit 5, the piece's origin is stored as an f64 before its numbers (otherwise it
/// is the piece's first integer frame, or its start when it holds none).
pub const DEGREE_FLAG_ORIGIN: u8 = 0x20;
/// Bytes of a stored origin.
pub const ORIGIN_SIZE: usize = 8;

/// How a version-3 track stores its piece starts (track entry byte 15, [`T_START_CODE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartCode {
    /// Byte 0: every entry holds its start as an f64 (8 bytes).
    Float,
    /// Bits 0–1 the width code (1, 2, 3 for 1, 2, 4 bytes), bits 2–7 the exponent `k`: entry
    /// `i` holds the step `G_i − G_{i−1}` (unsigned) and piece `i` starts at
    /// `first + G_i / 2^k` (one f64 addition; the division is exact).
    Grid {
        /// `k`, 0..=[`MAX_GRID_EXPONENT`].
        exponent: u8,
        /// Bytes of the step: 1, 2 or 4.
        width: u8,
    },
}

impl StartCode {
    /// The start code stored as `byte`, if valid.
    #[must_use]
    pub const fn from_byte(byte: u8) -> Option<Self> {
        let exponent = byte >> 2;
        let width = match byte & 3 {
            0 if byte == 0 => return Some(Self::Float),
            1 => 1,
            2 => 2,
            3 => 4,
            _ => return None,
        };
        if exponent > MAX_GRID_EXPONENT {
            return None;
        }
        Some(Self::Grid { exponent, width })
    }
    /// The stored byte.
    #[must_use]
    pub const fn byte(self) -> u8 {
        match self {
            Self::Float => 0,
            Self::Grid { exponent, width } => {
                let code = match width {
                    1 => 1,
                    2 => 2,
                    _ => 3,
                };
                (exponent << 2) | code
            }
        }
    }
    /// Bytes of an entry's start field.
    #[must_use]
    pub const fn start_size(self) -> usize {
        match self {
            Self::Float => 8,
            Self::Grid { width, .. } => width as usize,
        }
    }
    /// The start of a piece at grid index `grid` of a track starting at `first` (grid tracks).
    #[must_use]
    pub fn grid_start(self, first: f64, grid: u64) -> f64 {
        match self {
            Self::Float => first,
            // `grid < 2^37` and `k ≤ 32`: `grid / 2^k` is exact (a product by the power of two
            // 2^-k, the same number), only the sum rounds.
            Self::Grid { exponent, .. } => first + (grid as i64) as f64 * grid_unit(exponent),
        }
    }
}

/// `2^-exponent`, exactly.
#[inline]
fn grid_unit(exponent: u8) -> f64 {
    // The f64 with biased exponent 1023 − k and a zero mantissa.
    f64::from_bits(u64::from(1023 - exponent.min(MAX_GRID_EXPONENT) as u16) << 52)
}

/// The frame where a piece's differences are given when its entry stores none: its first
/// integer frame, or its start when it holds none.
#[must_use]
pub fn implied_origin(start: f64, end: f64) -> f64 {
    let first_integer = crate::math::ceil(start);
    if first_integer < end {
        first_integer
    } else {
        start
    }
}

/// Entry size of a track with `code`: start field, degree byte, exponent byte on fixed tracks.
#[must_use]
pub const fn entry_size(code: StartCode, precision: Precision) -> usize {
    code.start_size() + 1 + matches!(precision, Precision::Fixed) as usize
}

/// Number of checkpoints of a table of `pieces` pieces.
#[must_use]
pub const fn checkpoints(pieces: usize) -> usize {
    pieces.div_ceil(BLOCK)
}

/// One version-3 track's piece table, located (reads never fail; after validation they are
/// the stream's values).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CompactTable<'s> {
    pub bytes: &'s [u8],
    /// Absolute offset of the track's entry (numbers' offset, components and last frame are
    /// read from it when needed).
    pub track_entry: usize,
    /// Absolute offset of the first checkpoint.
    pub table: usize,
    /// Absolute offset of the first entry.
    pub entries: usize,
    pub count: usize,
    pub code: StartCode,
    pub precision: Precision,
    pub first: f64,
}

/// A position of the walk: piece `index`, its grid index and its data's offset within the
/// track's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Walk {
    pub index: usize,
    pub grid: u64,
    pub offset: u64,
}

/// Step of a grid entry: its first `width` (1, 2 or 4) bytes, little-endian.
#[inline]
fn step_of(entry: &[u8], width: usize) -> u64 {
    let byte = |i: usize| u64::from(entry.get(i).copied().unwrap_or(0));
    match width {
        1 => byte(0),
        2 => byte(0) | byte(1) << 8,
        _ => byte(0) | byte(1) << 8 | byte(2) << 16 | byte(3) << 24,
    }
}

impl<'s> CompactTable<'s> {
    /// The table of the track whose entry is at `track_entry`, if its start code is known.
    #[inline]
    pub fn new(bytes: &'s [u8], track_entry: usize) -> Option<Self> {
        let code = StartCode::from_byte(read_u8(bytes, track_entry + T_START_CODE))?;
        let count = to_usize(read_u32(bytes, track_entry + T_PIECE_COUNT));
        let table = to_usize(read_u32(bytes, track_entry + T_PIECE_TABLE_OFFSET));
        Some(Self {
            bytes,
            track_entry,
            table,
            entries: table + checkpoints(count) * CHECKPOINT_SIZE,
            count,
            code,
            precision: Precision::from_code(read_u8(bytes, track_entry + T_PRECISION))
                .unwrap_or_default(),
            first: read_f64(bytes, track_entry + T_FIRST_FRAME),
        })
    }
    /// Absolute offset of the track's numbers.
    fn data(&self) -> usize {
        to_usize(read_u32(self.bytes, self.track_entry + T_DATA_OFFSET))
    }
    /// The track's last frame.
    fn last(&self) -> f64 {
        read_f64(self.bytes, self.track_entry + T_LAST_FRAME)
    }
    /// Components per value.
    fn components(&self) -> u64 {
        super::StreamValueType::from_code(read_u8(self.bytes, self.track_entry + T_VALUE_TYPE))
            .map_or(1, |t| t.components() as u64)
    }
    fn entry_size(&self) -> usize {
        entry_size(self.code, self.precision)
    }
    fn entry(&self, i: usize) -> usize {
        self.entries + i * self.entry_size()
    }
    /// Entries `from..to` as one slice (empty when out of range, never after validation).
    fn entry_bytes(&self, from: usize, to: usize) -> &'s [u8] {
        self.bytes
            .get(self.entry(from)..self.entry(to))
            .unwrap_or(&[])
    }
    /// Checkpoint `block`: (grid index, data offset).
    pub fn checkpoint(&self, block: usize) -> (u32, u32) {
        let at = self.table + block * CHECKPOINT_SIZE;
        (read_u32(self.bytes, at), read_u32(self.bytes, at + 4))
    }
    /// Entry `i`'s start step in grid units (0 on float tracks).
    pub fn step(&self, i: usize) -> u64 {
        match self.code {
            StartCode::Float => 0,
            StartCode::Grid { width, .. } => {
                step_of(self.entry_bytes(i, i + 1), usize::from(width))
            }
        }
    }
    /// Entry `i`'s degree byte.
    pub fn degree_byte(&self, i: usize) -> u8 {
        read_u8(self.bytes, self.entry(i) + self.code.start_size())
    }
    /// Entry `i`'s fixed exponent (0 on float tracks).
    pub fn exponent(&self, i: usize) -> i8 {
        if self.precision == Precision::Fixed {
            read_i8(self.bytes, self.entry(i) + self.code.start_size() + 1)
        } else {
            0
        }
    }
    /// Start of the piece at walk position `w`.
    pub fn start(&self, w: Walk) -> f64 {
        match self.code {
            StartCode::Float => read_f64(self.bytes, self.entry(w.index)),
            StartCode::Grid { .. } => self.code.grid_start(self.first, w.grid),
        }
    }
    /// Bytes of the data of a piece with degree byte `byte`: its stored origin, if any, and
    /// its numbers.
    fn size_of(&self, byte: u8) -> u64 {
        self.sizer()(byte)
    }
    /// [`Self::size_of`] with the track's components and number size read once.
    #[inline]
    fn sizer(&self) -> impl Fn(u8) -> u64 {
        let components = self.components();
        let narrow = self.precision.number_size() as u64 * components;
        move |byte: u8| {
            let terms = u64::from(byte & DEGREE_MASK) + 1;
            let per_term = if byte & DEGREE_FLAG_WIDE != 0 {
                8 * components
            } else {
                narrow
            };
            let origin = if byte & DEGREE_FLAG_ORIGIN != 0 {
                ORIGIN_SIZE as u64
            } else {
                0
            };
            origin + terms * per_term
        }
    }
    /// Bytes of piece `i`'s data.
    pub fn size(&self, i: usize) -> u64 {
        self.size_of(self.degree_byte(i))
    }
    /// The walk at the first piece of `block`, as its checkpoint says.
    pub fn at_checkpoint(&self, block: usize) -> Walk {
        let (grid, offset) = self.checkpoint(block);
        Walk {
            index: block * BLOCK,
            grid: u64::from(grid),
            offset: u64::from(offset),
        }
    }
    /// The walk one piece further (validation's sequential walk).
    pub fn next(&self, w: Walk) -> Walk {
        Walk {
            index: w.index + 1,
            grid: w.grid.saturating_add(self.step(w.index + 1)),
            offset: w.offset.saturating_add(self.size(w.index)),
        }
    }
    /// The walk at piece `index` (`< count`) with grid index `grid`: its data offset is its
    /// checkpoint's plus the sizes of the at most 15 pieces before it in its block.
    fn with_offset(&self, index: usize, grid: u64) -> Walk {
        let from = self.at_checkpoint(index / BLOCK);
        let size_of = self.sizer();
        let sizes = self
            .entry_bytes(from.index, index)
            .chunks_exact(self.entry_size())
            .filter_map(|entry| entry.get(self.code.start_size()))
            .map(|&byte| size_of(byte))
            .sum::<u64>();
        Walk {
            index,
            grid,
            offset: from.offset.saturating_add(sizes),
        }
    }
    /// Where piece `w.index` ends: the next start (the next checkpoint's at a block's end), or
    /// the last frame.
    pub fn end(&self, w: Walk) -> f64 {
        let next = w.index + 1;
        if next >= self.count {
            return self.last();
        }
        self.start(Walk {
            index: next,
            grid: self.next_grid(w),
            offset: 0,
        })
    }
    /// Grid index of piece `w.index + 1`: the next checkpoint's at a block's end.
    fn next_grid(&self, w: Walk) -> u64 {
        let next = w.index + 1;
        if next % BLOCK == 0 {
            self.at_checkpoint(next / BLOCK).grid
        } else {
            w.grid.saturating_add(self.step(next))
        }
    }
    /// The piece at walk position `w`.
    pub fn piece_at_walk(&self, w: Walk) -> Piece {
        let (start, end) = (self.start(w), self.end(w));
        let byte = self.degree_byte(w.index);
        let mut at = self
            .data()
            .saturating_add(usize::try_from(w.offset).unwrap_or(usize::MAX));
        let origin = if byte & DEGREE_FLAG_ORIGIN != 0 {
            let origin = read_f64(self.bytes, at);
            at = at.saturating_add(ORIGIN_SIZE);
            origin
        } else {
            implied_origin(start, end)
        };
        Piece {
            index: u32::try_from(w.index).unwrap_or(u32::MAX),
            start,
            end,
            origin,
            degree: byte & DEGREE_MASK,
            exponent: self.exponent(w.index),
            wide: byte & DEGREE_FLAG_WIDE != 0,
            data_offset: at,
        }
    }
    /// Piece `index`, or `None` past the end: from its checkpoint, one pass over the at most 15
    /// entries before it summing start steps and sizes.
    pub fn piece(&self, index: usize) -> Option<Piece> {
        self.walk_to(index).map(|w| self.piece_at_walk(w))
    }
    /// The walk at piece `index`, or `None` past the end: its checkpoint's grid index and data
    /// offset plus the start steps and sizes of the at most 15 entries before it in its block.
    pub fn walk_to(&self, index: usize) -> Option<Walk> {
        if index >= self.count {
            return None;
        }
        let from = self.at_checkpoint(index / BLOCK);
        let (start_size, width) = (self.code.start_size(), self.code.start_size());
        let grid_code = matches!(self.code, StartCode::Grid { .. });
        let size_of = self.sizer();
        let (mut grid, mut offset) = (from.grid, from.offset);
        let entries = self.entry_bytes(from.index, index + 1);
        let mut walked = entries.chunks_exact(self.entry_size());
        // Entry `from.index`'s step is already in the checkpoint; each later one adds its step
        // and the size of the piece before it (no overflow: a u32 checkpoint plus at most 15
        // u32 steps or sizes).
        let mut previous = walked.next().and_then(|e| e.get(start_size)).copied();
        for entry in walked {
            if grid_code {
                grid = grid.wrapping_add(step_of(entry, width));
            }
            offset = offset.wrapping_add(previous.map_or(0, &size_of));
            previous = entry.get(start_size).copied();
        }
        Some(Walk {
            index,
            grid,
            offset,
        })
    }
    /// The walk one piece back (`w.index > 0`): the inverse of [`Self::next`], which validation
    /// checked against every checkpoint, so it is the walk [`Self::walk_to`] finds.
    pub fn back(&self, w: Walk) -> Walk {
        let index = w.index.saturating_sub(1);
        Walk {
            index,
            grid: w.grid.saturating_sub(self.step(w.index)),
            offset: w.offset.saturating_sub(self.size(index)),
        }
    }
    /// Start of piece `w.index − 1` (`w.index > 0`), `w` being piece `w.index`'s walk.
    pub fn start_before(&self, w: Walk) -> f64 {
        let index = w.index.saturating_sub(1);
        self.start(Walk {
            index,
            grid: w.grid.saturating_sub(self.step(w.index)),
            offset: 0,
        })
    }
    /// End of piece `w.index + 1` (`w.index + 1 < count`), `w` being piece `w.index`'s walk.
    pub fn end_after(&self, w: Walk) -> f64 {
        self.end(Walk {
            index: w.index + 1,
            grid: self.next_grid(w),
            offset: 0,
        })
    }
    /// The index and grid index of the last piece whose start is ≤ `w` (piece 0 for smaller
    /// `w`): a binary search over the entries (f64 starts) or the checkpoints (grid starts),
    /// then at most 15 steps.
    pub fn index_at(&self, w: f64) -> Option<(usize, u64)> {
        if self.count == 0 {
            return None;
        }
        let StartCode::Grid { exponent, width } = self.code else {
            let start = |i: usize| read_f64(self.bytes, self.entry(i));
            return Some((last_at_or_before(self.count, w, start), 0));
        };
        let unit = grid_unit(exponent);
        let block = last_at_or_before(checkpoints(self.count), w, |b| {
            let grid = read_u32(self.bytes, self.table + b * CHECKPOINT_SIZE);
            self.first + f64::from(grid) * unit
        });
        let first_piece = block * BLOCK;
        let to = (first_piece + BLOCK).min(self.count);
        let width = usize::from(width);
        let grid = read_u32(self.bytes, self.table + block * CHECKPOINT_SIZE);
        let (mut index, mut grid) = (first_piece, u64::from(grid));
        for entry in self
            .entry_bytes(first_piece + 1, to)
            .chunks_exact(self.entry_size())
        {
            // No overflow: a u32 checkpoint plus at most 15 u32 steps (< 2^37).
            let next = grid.wrapping_add(step_of(entry, width));
            // The reader's `grid_start` with the unit hoisted (`next < 2^63`: the signed
            // conversion gives the same f64).
            if self.first + (next as i64) as f64 * unit > w {
                break;
            }
            (index, grid) = (index + 1, next);
        }
        Some((index, grid))
    }
    /// The last piece whose start is ≤ `w` (piece 0 for smaller `w`).
    pub fn piece_at(&self, w: f64) -> Option<Piece> {
        let (index, grid) = self.index_at(w)?;
        Some(self.piece_at_walk(self.with_offset(index, grid)))
    }
}

/// The last of `units` increasing starts (`start(i)`) that is ≤ `w`, or 0: a binary search.
fn last_at_or_before(units: usize, w: f64, start: impl Fn(usize) -> f64) -> usize {
    // Invariant: unit `lo` starts at or before `w` (or lo == 0); unit `hi` after it.
    let (mut lo, mut hi) = (0usize, units);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if start(mid) <= w {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}
