//! A piece cursor: remembers the piece last entered and its neighbours' spans, so the next, previous or same piece is found and decoded in O(1).
//!
//! `StreamTrack::piece_index_at` and `StreamTrack::piece` search (a binary search, then up to
//! 15 entries from a checkpoint in format version 3) on every call. A player entering pieces in
//! order asks for the neighbour of the piece it holds; the cursor answers that from what it
//! decoded when it entered the current piece: the previous piece's start and the next piece's
//! end (so a frame in either neighbour is told without reading the stream), and in version 3
//! the walk (grid index and data offset) of the current piece, from which the neighbour's walk
//! is one start step and one piece size away ([`CompactTable::next`], [`CompactTable::back`]).
//!
//! The answers are those of the search, bit for bit: piece `i` covers `[start_i, start_{i+1})`,
//! starts never decrease (validated), so a frame in that span has `i` as the last piece whose
//! start is at or before it; and validation checked every checkpoint against the running sums
//! of the walk, so a walk reached by steps equals the one found from its checkpoint.

use super::compact::{CompactTable, Walk};
use super::{Piece, StreamTrack};

/// The piece entered last and what is known around it.
#[derive(Debug, Clone, Copy)]
struct Current {
    piece: Piece,
    /// Its walk (version 3; unused otherwise).
    walk: Walk,
    /// Start of the previous piece (NaN for piece 0: no frame compares inside).
    before: f64,
    /// End of the next piece (NaN for the last piece).
    after: f64,
}

/// A cursor over one track's pieces. `Copy`, no allocation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PieceCursor<'s> {
    track: StreamTrack<'s>,
    table: Option<CompactTable<'s>>,
    current: Option<Current>,
}

impl<'s> PieceCursor<'s> {
    /// A cursor holding no piece yet.
    pub fn new(track: StreamTrack<'s>) -> Self {
        Self {
            track,
            table: track.compact(),
            current: None,
        }
    }

    /// The index of the piece containing `w` (`StreamTrack::piece_index_at`; 0 on a track
    /// without pieces): without reading the stream when `w` lies in the current piece or one
    /// of its neighbours.
    #[inline]
    pub fn index_at(&self, w: f64) -> usize {
        if let Some(c) = &self.current {
            let (start, end, index) = (c.piece.start, c.piece.end, c.piece.index as usize);
            if w >= start && w < end {
                return index;
            }
            if w >= end && w < c.after {
                return index + 1;
            }
            if w >= c.before && w < start {
                return index - 1;
            }
        }
        self.track.piece_index_at(w).unwrap_or(0)
    }

    /// The piece held, when it is piece `index`.
    #[inline]
    pub fn held(&self, index: usize) -> Option<&Piece> {
        self.current
            .as_ref()
            .map(|c| &c.piece)
            .filter(|p| p.index as usize == index)
    }

    /// Enters piece `index` (`StreamTrack::piece`): O(1) from the current piece when it is that
    /// one or a neighbour, else searched.
    pub fn enter(&mut self, index: usize) -> Option<Piece> {
        if let Some(piece) = self.held(index) {
            return Some(*piece);
        }
        let count = self.track.piece_count();
        if index >= count {
            return None;
        }
        let held = self.current.map(|c| (c.walk, c.piece.index as usize));
        let entered = match self.table {
            Some(table) => {
                let walk = match held {
                    Some((walk, i)) if i + 1 == index => table.next(walk),
                    Some((walk, i)) if index + 1 == i => table.back(walk),
                    _ => table.walk_to(index)?,
                };
                Current {
                    piece: table.piece_at_walk(walk),
                    walk,
                    before: if index > 0 {
                        table.start_before(walk)
                    } else {
                        f64::NAN
                    },
                    after: if index + 1 < count {
                        table.end_after(walk)
                    } else {
                        f64::NAN
                    },
                }
            }
            None => self.enter_listed(index, count)?,
        };
        self.current = Some(entered);
        Some(entered.piece)
    }

    /// Piece `index` of a version-1 or 2 track (every entry holds its start: O(1) anyway).
    fn enter_listed(&self, index: usize, count: usize) -> Option<Current> {
        let track = &self.track;
        let after = if index + 2 < count {
            track.piece_start(index + 2)
        } else if index + 1 < count {
            track.last_frame()
        } else {
            f64::NAN
        };
        Some(Current {
            piece: track.piece(index)?,
            walk: Walk {
                index,
                grid: 0,
                offset: 0,
            },
            before: if index > 0 {
                track.piece_start(index - 1)
            } else {
                f64::NAN
            },
            after,
        })
    }
}
