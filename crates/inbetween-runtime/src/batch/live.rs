//! In-place play of the f32 epoch blocks: forward play evaluates the Horner lanes straight from the current epoch's block (no copy), the piece-change records patch that block, and each record's undo numbers put the blocks back when forward play is left.
//!
//! A block holds every f32 lane's coefficients at its epoch's first frame (`EpochBlocks`).
//! Playing epoch `e` forward, the records of its frames store the new pieces' coefficients into
//! block `e` itself, so block `e` is only pristine until its first record. Forward play never
//! comes back to an epoch on its own, so nothing needs it pristine until the next seek (or step
//! change): [`Script::restore_blocks`] then writes back, in reverse order, each record's undo
//! numbers (what its position held just before it, computed once by
//! [`Script::record_undo`]), record by record over the script frames played in place, which
//! leaves every block as built. A seek to integer frame `p` then plays the records of `p`'s
//! epoch from its first frame up to `p` (what forward play from the epoch's start would have
//! stored: the same numbers `horner::centred` gives at a seek) and marks them played.

use core::ops::Range;

use super::horner::CHUNK;
use super::{EpochBlocks, Script, MAX_TERMS};

impl EpochBlocks {
    /// Index of the block of the epoch integer frame `frame` is in, if built.
    pub(super) fn index(&self, frame: i64) -> Option<usize> {
        let i = usize::try_from(frame.div_euclid(super::horner::EPOCH) - self.first).ok()?;
        (i < self.count).then_some(i)
    }

    /// The chunks of f32 group `degree` in block `i`.
    pub(super) fn group(&self, i: usize, degree: usize) -> Option<&[[f32; CHUNK]]> {
        let from = i.checked_mul(self.len / CHUNK)? + *self.starts.get(degree)?;
        self.values.get(from..from + *self.sizes.get(degree)?)
    }

    /// [`EpochBlocks::group`], to patch.
    pub(super) fn group_mut(&mut self, i: usize, degree: usize) -> Option<&mut [[f32; CHUNK]]> {
        let from = i.checked_mul(self.len / CHUNK)? + *self.starts.get(degree)?;
        self.values.get_mut(from..from + *self.sizes.get(degree)?)
    }
}

impl Script {
    /// Fills every f32 record's undo numbers: plays every record in place, noting what its
    /// position held just before, then puts the blocks back. Called once, by `Bank::new`.
    pub(super) fn record_undo(&mut self) {
        for hot in self.hot.iter_mut() {
            hot.undo = alloc::vec![0.0; hot.coef.len()];
        }
        let all = 0..self.frames.len();
        self.patch_noting(all.clone());
        self.restore_blocks(all);
    }

    /// Puts back the blocks patched by the f32 records of script frames `frames` (played in
    /// place, in order), leaving every block as built.
    pub(super) fn restore_blocks(&mut self, frames: Range<usize>) {
        for i in frames.rev() {
            let Some(block) = self.block_of(i) else {
                continue;
            };
            for (degree, hot) in self.hot.iter().enumerate() {
                let terms = degree + 1;
                let (from, to) = hot.range(i);
                let Some(chunks) = self.blocks.group_mut(block, degree) else {
                    continue;
                };
                let values = chunks.as_flattened_mut();
                for r in (from..to).rev() {
                    let at = hot.slot.get(r).copied().unwrap_or(u32::MAX) as usize;
                    let undo = hot.undo.get(r * terms..(r + 1) * terms).unwrap_or(&[]);
                    for (k, &x) in undo.iter().enumerate() {
                        if let Some(v) = values.get_mut(at + k * CHUNK) {
                            *v = x;
                        }
                    }
                }
            }
        }
    }

    /// Plays the f32 records of script frames `frames` into their epochs' blocks (every
    /// record, whatever its track), noting each one's undo numbers first.
    fn patch_noting(&mut self, frames: Range<usize>) {
        for i in frames {
            let Some(block) = self.block_of(i) else {
                continue;
            };
            for degree in 0..MAX_TERMS {
                let terms = degree + 1;
                let (Some(hot), Some(chunks)) = (
                    self.hot.get_mut(degree),
                    self.blocks.group_mut(block, degree),
                ) else {
                    continue;
                };
                let values = chunks.as_flattened_mut();
                let (from, to) = hot.range(i);
                for r in from..to {
                    let at = hot.slot.get(r).copied().unwrap_or(u32::MAX) as usize;
                    for k in 0..terms {
                        let (Some(v), Some(&x)) =
                            (values.get_mut(at + k * CHUNK), hot.coef.get(r * terms + k))
                        else {
                            continue;
                        };
                        if let Some(u) = hot.undo.get_mut(r * terms + k) {
                            *u = *v;
                        }
                        *v = x;
                    }
                }
            }
        }
    }

    /// The block of script frame `i`'s epoch.
    fn block_of(&self, i: usize) -> Option<usize> {
        let frame = *self.frames.get(i)?;
        self.blocks.index(frame as i64)
    }
}
