//! Piece-change records of the Horner lanes (f32 and i32 alike): what forward play loads, frame by frame.

use alloc::vec::Vec;

/// One lane group's piece changes in forward play, frame by frame: record `r` loads
/// `coef[r (D + 1) .. (r + 1) (D + 1)]` (the coefficients about the centre of its own frame:
/// f32 for [`super::horner`], integers for [`super::fixed32`]) into lane `slot[r]` when track
/// `track[r]` is on its script. The records of script frame `i` are `start[i] .. start[i + 1]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Records<T> {
    pub(crate) start: Vec<u32>,
    pub(crate) slot: Vec<u32>,
    pub(crate) track: Vec<u32>,
    pub(crate) coef: Vec<T>,
}

impl<T: Copy> Records<T> {
    /// Records of script frame `i`.
    #[inline]
    pub(crate) fn range(&self, i: usize) -> (usize, usize) {
        let at = |i: usize| self.start.get(i).copied().unwrap_or(0) as usize;
        (at(i), at(i + 1))
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        (self.start.len() + self.slot.len() + self.track.len()) * 4
            + self.coef.len() * core::mem::size_of::<T>()
    }

    /// Plays the records `from..to` into a group's order-major coefficient arrays `coef`
    /// (`len` lanes, `terms` orders), skipping those whose track is not on its script; calls
    /// `entered(channel[slot])` for each record played.
    #[inline]
    pub(crate) fn play_into(
        &self,
        (coef, channel, len, terms): (&mut [T], &[u32], usize, usize),
        (from, to): (usize, usize),
        on_script: &[bool],
        mut entered: impl FnMut(usize),
    ) {
        let (Some(slots), Some(tracks), Some(records)) = (
            self.slot.get(from..to),
            self.track.get(from..to),
            self.coef.get(from * terms..to * terms),
        ) else {
            return;
        };
        for ((&slot, &track), c) in slots.iter().zip(tracks).zip(records.chunks_exact(terms)) {
            if !on_script.get(track as usize).copied().unwrap_or(false) {
                continue;
            }
            let slot = slot as usize;
            debug_assert!(
                slot < len,
                "script slot {slot} past the group's {len} lanes"
            );
            for (k, &x) in c.iter().enumerate() {
                if let Some(dst) = coef.get_mut(k * len + slot) {
                    *dst = x;
                }
            }
            entered(channel.get(slot).copied().unwrap_or(u32::MAX) as usize);
        }
    }
}
