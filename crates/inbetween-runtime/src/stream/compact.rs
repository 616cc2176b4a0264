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
            // `grid < 2^37` and `k ≤ 32`: the quotient is exact, only the sum rounds.
            Self::Grid { exponent, .. } => first + grid as f64 / (1u64 << exponent) as f64,
        }
    }
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
    /// Absolute offset of the first checkpoint.
    pub table: usize,
    /// Absolute offset of the first entry.
    pub entries: usize,
    /// Absolute offset of the track's numbers.
    pub data: usize,
    pub count: usize,
    pub code: StartCode,
    pub precision: Precision,
    pub components: usize,
    pub first: f64,
    pub last: f64,
}

/// A position of the walk: piece `index`, its grid index and its data's offset within the
/// track's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Walk {
    pub index: usize,
    pub grid: u64,
    pub offset: u64,
}

impl<'s> CompactTable<'s> {
    fn entry(&self, i: usize) -> usize {
        self.entries + i * entry_size(self.code, self.precision)
    }
    /// Checkpoint `block`: (grid index, data offset).
    pub fn checkpoint(&self, block: usize) -> (u32, u32) {
        let at = self.table + block * CHECKPOINT_SIZE;
        (read_u32(self.bytes, at), read_u32(self.bytes, at + 4))
    }
    /// Entry `i`'s start step in grid units (0 on float tracks).
    pub fn step(&self, i: usize) -> u64 {
        let at = self.entry(i);
        match self.code {
            StartCode::Float => 0,
            StartCode::Grid { width: 1, .. } => u64::from(read_u8(self.bytes, at)),
            StartCode::Grid { width: 2, .. } => u64::from(read_u16(self.bytes, at)),
            StartCode::Grid { .. } => u64::from(read_u32(self.bytes, at)),
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
    /// Bytes of piece `i`'s data: its stored origin, if any, and its numbers.
    pub fn size(&self, i: usize) -> u64 {
        let byte = self.degree_byte(i);
        let terms = u64::from(byte & DEGREE_MASK) + 1;
        let number = if byte & DEGREE_FLAG_WIDE != 0 {
            8
        } else {
            self.precision.number_size() as u64
        };
        let origin = if byte & DEGREE_FLAG_ORIGIN != 0 {
            ORIGIN_SIZE as u64
        } else {
            0
        };
        origin + terms * self.components as u64 * number
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
    /// The walk one piece further.
    pub fn next(&self, w: Walk) -> Walk {
        Walk {
            index: w.index + 1,
            grid: w.grid.saturating_add(self.step(w.index + 1)),
            offset: w.offset.saturating_add(self.size(w.index)),
        }
    }
    /// The walk at piece `index` (`< count`): its checkpoint, then at most 15 entries.
    fn walk_to(&self, index: usize) -> Walk {
        let mut w = self.at_checkpoint(index / BLOCK);
        while w.index < index {
            w = self.next(w);
        }
        w
    }
    /// Where piece `w.index` ends: the next start, or the last frame.
    pub fn end(&self, w: Walk) -> f64 {
        if w.index + 1 < self.count {
            self.start(self.next(w))
        } else {
            self.last
        }
    }
    /// The piece at walk position `w`.
    pub fn piece_at_walk(&self, w: Walk) -> Piece {
        let (start, end) = (self.start(w), self.end(w));
        let byte = self.degree_byte(w.index);
        let mut at = self
            .data
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
    /// Piece `index`, or `None` past the end.
    pub fn piece(&self, index: usize) -> Option<Piece> {
        (index < self.count).then(|| self.piece_at_walk(self.walk_to(index)))
    }
    /// The last piece whose start is ≤ `w` (piece 0 for smaller `w`): a binary search over the
    /// checkpoints, then a walk of at most 15 entries.
    pub fn piece_at(&self, w: f64) -> Option<Piece> {
        if self.count == 0 {
            return None;
        }
        let blocks = checkpoints(self.count);
        // Invariant: block `lo` starts at or before `w` (or lo == 0); block `hi` after it.
        let (mut lo, mut hi) = (0usize, blocks);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.start(self.at_checkpoint(mid)) <= w {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let mut at = self.at_checkpoint(lo);
        while at.index + 1 < self.count && at.index % BLOCK != BLOCK - 1 {
            let next = self.next(at);
            if self.start(next) > w {
                break;
            }
            at = next;
        }
        Some(self.piece_at_walk(at))
    }
}
