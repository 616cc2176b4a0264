//! In-place play of the epoch blocks, f32 and i32 lanes alike: forward play evaluates the Horner lanes straight from the current epoch's block (no copy), the piece-change records patch that block, and each record's undo numbers put the blocks back when forward play is left.
//!
//! A block holds every lane's coefficients at its epoch's first frame (`EpochBlocks`: the f32
//! groups' chunks of `horner::CHUNK` lanes and the i32 groups' chunks of `horner::INT_CHUNK`,
//! both in `horner::chunked_index`'s layout, so a record's `D + 1` numbers are its lane type's
//! chunk width apart from its position, `LaneWord::CHUNK`). Playing epoch `e`
//! forward, the records of its frames store the new pieces' coefficients into block `e`
//! itself, so block `e` is only pristine until its first record. Forward play never comes back
//! to an epoch on its own, so nothing needs it pristine until the next seek (or step change):
//! [`Script::restore_blocks`] then writes back, in reverse order, each record's undo numbers
//! (what its position held just before it, computed once by [`Script::record_undo`]), record
//! by record over the script frames played in place, which leaves every block as built. A seek
//! to integer frame `p` then plays the records of `p`'s epoch from its first frame up to `p`
//! (what forward play from the epoch's start would have stored: the same numbers
//! `horner::epoch_coefficients` and `fixed32::quantize` give at a seek) and marks them played.

use core::ops::Range;

use super::horner::{self, LaneWord, CHUNK, INT_CHUNK};
use super::records::Records;
use super::{EpochBlocks, Script, MAX_TERMS};

/// One lane type's part of the epoch blocks: per block, every group's chunks (`D + 1` arrays
/// of `W = T::CHUNK` lanes each), group after group, then the next block; every block padded to
/// whole 64-byte cache lines and starting on one (`horner::Chunks`).
#[derive(Debug, Clone, Default)]
pub(super) struct Chunks<T, const W: usize> {
    /// Chunks per block (a multiple of `horner::line(W)`).
    per_block: usize,
    pub(super) values: horner::Chunks<T, W>,
    /// Where each group's chunks start in a block, and how many it has.
    starts: [usize; MAX_TERMS],
    sizes: [usize; MAX_TERMS],
}

/// The f32 lanes' part of the epoch blocks.
pub(super) type Floats = Chunks<f32, CHUNK>;
/// The i32 lanes' part of the epoch blocks.
pub(super) type Ints = Chunks<i32, INT_CHUNK>;

impl<T: LaneWord, const W: usize> Chunks<T, W> {
    /// `count` blocks (all 0) of groups of `sizes[d]` chunks each (group `d`: degree `d`).
    pub(super) fn new(sizes: [usize; MAX_TERMS], count: usize) -> Self {
        let mut starts = [0; MAX_TERMS];
        let mut at = 0;
        for (s, n) in starts.iter_mut().zip(sizes) {
            *s = at;
            at += n;
        }
        let per_block = at.next_multiple_of(horner::line(W));
        Self {
            per_block,
            values: horner::Chunks::zeroed(per_block.saturating_mul(count)),
            starts,
            sizes,
        }
    }

    /// Where group `degree`'s part of block `i` lies in `values`: its first chunk and its
    /// chunk count (`None` past the blocks; the range [`Chunks::group`] reads).
    pub(super) fn group_at(&self, i: usize, degree: usize) -> Option<(usize, usize)> {
        let from = i.checked_mul(self.per_block)? + *self.starts.get(degree)?;
        let n = *self.sizes.get(degree)?;
        (from + n <= self.values.len()).then_some((from, n))
    }

    /// The chunks of group `degree` in block `i`.
    pub(super) fn group(&self, i: usize, degree: usize) -> Option<&[[T; W]]> {
        let from = i.checked_mul(self.per_block)? + *self.starts.get(degree)?;
        self.values.get(from..from + *self.sizes.get(degree)?)
    }

    /// [`Chunks::group`], to patch.
    pub(super) fn group_mut(&mut self, i: usize, degree: usize) -> Option<&mut [[T; W]]> {
        let from = i.checked_mul(self.per_block)? + *self.starts.get(degree)?;
        self.values.get_mut(from..from + *self.sizes.get(degree)?)
    }
}

impl EpochBlocks {
    /// Index of the block of the epoch integer frame `frame` is in, if built.
    pub(super) fn index(&self, frame: i64) -> Option<usize> {
        block_index((self.first, self.count), frame)
    }

    /// The chunks of f32 group `degree` in block `i`.
    pub(super) fn group(&self, i: usize, degree: usize) -> Option<&[[f32; CHUNK]]> {
        self.floats.group(i, degree)
    }

    /// [`EpochBlocks::group`], to patch.
    pub(super) fn group_mut(&mut self, i: usize, degree: usize) -> Option<&mut [[f32; CHUNK]]> {
        self.floats.group_mut(i, degree)
    }
}

/// Index of the block of the epoch integer frame `frame` is in, among `count` blocks from
/// epoch `first`.
fn block_index((first, count): (i64, usize), frame: i64) -> Option<usize> {
    let i = usize::try_from(frame.div_euclid(super::horner::EPOCH) - first).ok()?;
    (i < count).then_some(i)
}

impl Script {
    /// Fills every record's undo numbers (f32 and i32 lanes): plays every record in place,
    /// noting what its position held just before, then puts the blocks back. Called once, by
    /// `Bank::new`.
    pub(super) fn record_undo(&mut self) {
        let all = 0..self.frames.len();
        let Self {
            frames,
            hot,
            hot32,
            blocks,
            ..
        } = self;
        let span = (blocks.first, blocks.count);
        let block_of = |i: usize| block_index(span, *frames.get(i)? as i64);
        note_undo(hot, &mut blocks.floats, &block_of, all.clone());
        note_undo(hot32, &mut blocks.ints, &block_of, all);
    }

    /// Puts back the blocks patched by the records of script frames `frames` (played in
    /// place, in order), leaving every block as built.
    pub(super) fn restore_blocks(&mut self, frames: Range<usize>) {
        let Self {
            frames: at,
            hot,
            hot32,
            blocks,
            ..
        } = self;
        let span = (blocks.first, blocks.count);
        let block_of = |i: usize| block_index(span, *at.get(i)? as i64);
        restore(hot, &mut blocks.floats, &block_of, frames.clone());
        restore(hot32, &mut blocks.ints, &block_of, frames);
    }
}

/// Gives every record of `records` (one list per group degree) its undo numbers: plays the
/// records of every script frame in `frames` into its block of `chunks` noting what each
/// position held just before, then puts the blocks back.
fn note_undo<T: LaneWord, const W: usize>(
    records: &mut [Records<T>],
    chunks: &mut Chunks<T, W>,
    block_of: &impl Fn(usize) -> Option<usize>,
    frames: Range<usize>,
) {
    for r in records.iter_mut() {
        r.undo = alloc::vec![T::default(); r.coef.len()];
    }
    for i in frames.clone() {
        let Some(block) = block_of(i) else {
            continue;
        };
        for (degree, hot) in records.iter_mut().enumerate() {
            let Some(group) = chunks.group_mut(block, degree) else {
                continue;
            };
            let values = group.as_flattened_mut();
            let (from, to) = hot.range(i);
            for r in from..to {
                for (k, at) in positions::<T>(hot.slots(), r, degree + 1) {
                    let (Some(v), Some(&x)) = (values.get_mut(at), hot.coef.get(k)) else {
                        continue;
                    };
                    if let Some(u) = hot.undo.get_mut(k) {
                        *u = *v;
                    }
                    *v = x;
                }
            }
        }
    }
    restore(records, chunks, block_of, frames);
}

/// Writes back, in reverse order, the undo numbers of the records of script frames `frames`
/// (one list per group degree) into their blocks of `chunks`.
fn restore<T: LaneWord, const W: usize>(
    records: &[Records<T>],
    chunks: &mut Chunks<T, W>,
    block_of: &impl Fn(usize) -> Option<usize>,
    frames: Range<usize>,
) {
    for i in frames.rev() {
        let Some(block) = block_of(i) else {
            continue;
        };
        for (degree, hot) in records.iter().enumerate() {
            let Some(group) = chunks.group_mut(block, degree) else {
                continue;
            };
            let values = group.as_flattened_mut();
            let (from, to) = hot.range(i);
            for r in (from..to).rev() {
                for (k, at) in positions::<T>(hot.slots(), r, degree + 1) {
                    if let (Some(v), Some(&x)) = (values.get_mut(at), hot.undo.get(k)) {
                        *v = x;
                    }
                }
            }
        }
    }
}

/// The `terms` numbers of record `r` (positions `slot`): each one's index in the records'
/// `coef` / `undo` and its position in the group's chunks (the record's position, then
/// `T::CHUNK` apart).
fn positions<T: LaneWord>(
    slot: &[u32],
    r: usize,
    terms: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let at = slot.get(r).copied().unwrap_or(u32::MAX) as usize;
    (0..terms).map(move |k| (r * terms + k, at.saturating_add(k * T::CHUNK)))
}
