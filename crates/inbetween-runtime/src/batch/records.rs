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

    /// Appends one record per component of a track's script entry: component `c` loads lane
    /// `first_lane + c` with `coef[c · terms .. (c + 1) · terms]` (missing numbers 0).
    pub(crate) fn push_components(
        &mut self,
        (first_lane, track, components): (u32, u32, u8),
        coef: &[T],
        terms: usize,
    ) where
        T: Default,
    {
        for c in 0..u32::from(components) {
            self.slot.push(first_lane + c);
            self.track.push(track);
            let from = c as usize * terms;
            let values = coef.get(from..from + terms).unwrap_or(&[]);
            let values = values
                .iter()
                .copied()
                .chain(core::iter::repeat(T::default()));
            self.coef.extend(values.take(terms));
        }
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        (self.start.len() + self.slot.len() + self.track.len()) * 4
            + self.coef.len() * core::mem::size_of::<T>()
    }

    /// Plays the records `from..to` into a group's order-major coefficient arrays `coef`
    /// (`len` lanes, `terms` orders). With `on_script`, records whose track is not on its
    /// script are skipped (`None`: every track with records is on it, the common case, and no
    /// record is tested); `entered(channel[slot])` is called for each record played.
    #[inline]
    pub(crate) fn play_into(
        &self,
        (coef, channel, len, terms): (&mut [T], &[u32], usize, usize),
        (from, to): (usize, usize),
        on_script: Option<&[bool]>,
        entered: impl FnMut(usize),
    ) {
        let (Some(slots), Some(tracks), Some(records)) = (
            self.slot.get(from..to),
            self.track.get(from..to),
            self.coef.get(from * terms..to * terms),
        ) else {
            return;
        };
        let lanes = Lanes {
            slots,
            tracks,
            on_script,
        };
        match terms {
            1 => lanes.play::<T, 1>(coef, len, records, channel, entered),
            2 => lanes.play::<T, 2>(coef, len, records, channel, entered),
            3 => lanes.play::<T, 3>(coef, len, records, channel, entered),
            4 => lanes.play::<T, 4>(coef, len, records, channel, entered),
            5 => lanes.play::<T, 5>(coef, len, records, channel, entered),
            6 => lanes.play::<T, 6>(coef, len, records, channel, entered),
            7 => lanes.play::<T, 7>(coef, len, records, channel, entered),
            8 => lanes.play::<T, 8>(coef, len, records, channel, entered),
            _ => lanes.play::<T, 9>(coef, len, records, channel, entered),
        }
    }
}

/// The lanes and tracks of a run of records, and which tracks are on their script.
struct Lanes<'a> {
    slots: &'a [u32],
    tracks: &'a [u32],
    on_script: Option<&'a [bool]>,
}

impl Lanes<'_> {
    /// The records' `N` coefficients each (`records`, record after record) into the order-major
    /// arrays `coef` of `len` lanes: `N` stores per record, the orders sliced once.
    #[inline(always)]
    fn play<T: Copy, const N: usize>(
        &self,
        coef: &mut [T],
        len: usize,
        records: &[T],
        channel: &[u32],
        mut entered: impl FnMut(usize),
    ) {
        // Invariant of the lane groups: `coef` holds `N` orders of `len` lanes.
        let fits = N.checked_mul(len).is_some_and(|all| all <= coef.len());
        debug_assert!(fits, "{N} orders of {len} lanes in {} values", coef.len());
        if !fits {
            return;
        }
        let mut orders: [&mut [T]; N] = core::array::from_fn(|_| <&mut [T]>::default());
        let mut rest = coef;
        for order in &mut orders {
            let (head, tail) = core::mem::take(&mut rest).split_at_mut(len);
            *order = head;
            rest = tail;
        }
        let records = records.chunks_exact(N);
        for ((&slot, &track), c) in self.slots.iter().zip(self.tracks).zip(records) {
            let slot = slot as usize;
            let on = self
                .on_script
                .map_or(true, |on| on.get(track as usize).copied().unwrap_or(false));
            debug_assert!(
                slot < len,
                "script slot {slot} past the group's {len} lanes"
            );
            if !on || slot >= len {
                continue;
            }
            for (order, &x) in orders.iter_mut().zip(c) {
                order[slot] = x;
            }
            entered(channel.get(slot).copied().unwrap_or(u32::MAX) as usize);
        }
    }
}

/// Slots `first slot .. + len` playing channels `first channel .. + len`: `(first slot, first
/// channel, len)`.
pub(crate) type Run = (usize, usize, usize);

/// A lane group's slots as maximal runs of consecutive channels: run `(slot, channel, len)` is
/// slots `slot .. slot + len` playing channels `channel .. channel + len`, so the group's
/// values go straight into the caller's row, run by run (one run when every slot's channel
/// follows the previous one).
#[must_use]
pub(crate) fn channel_runs(channel: &[u32]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (slot, &c) in channel.iter().enumerate() {
        let c = c as usize;
        match runs.last_mut() {
            Some((_, first, len)) if *first + *len == c => *len += 1,
            _ => runs.push((slot, c, 1)),
        }
    }
    runs
}

/// Runs at least this long on average are written straight into the caller's row; shorter
/// ones (tracks of other degrees interleaved, e.g. quaternions of mixed degrees: runs of 4) are
/// evaluated in blocks of consecutive slots and scattered (one vectorized pass, then a store per
/// lane, instead of one short call per run).
const MIN_RUN: usize = 16;

/// A lane group's values at the current frame into `out` by channel: `eval(first slot, dst)`
/// fills `dst` with the values of slots `first .. first + dst.len()`; `runs` and `channel` are
/// the group's (`channel_runs`), `len` its lane count.
#[inline]
pub(crate) fn write_lanes(
    (len, runs, channel): (usize, &[Run], &[u32]),
    out: &mut [f32],
    eval: impl Fn(usize, &mut [f32]),
) {
    if runs.len().saturating_mul(MIN_RUN) <= len {
        for &(slot, first, n) in runs {
            if let Some(dst) = out.get_mut(first..first + n) {
                eval(slot, dst);
            }
        }
        return;
    }
    let mut block = [0.0f32; 256];
    let mut start = 0;
    while start < len {
        let n = (len - start).min(block.len());
        let values = block.get_mut(..n).unwrap_or(&mut []);
        eval(start, values);
        let channels = channel.get(start..start + n).unwrap_or(&[]);
        for (&c, &v) in channels.iter().zip(values.iter()) {
            if let Some(o) = out.get_mut(c as usize) {
                *o = v;
            }
        }
        start += n;
    }
}

#[cfg(test)]
mod tests {
    use super::{channel_runs, write_lanes, Records};

    /// Three lanes of degree 2 (3 orders, order-major) and two frames of records.
    fn records() -> Records<f32> {
        Records {
            start: vec![0, 2, 3],
            slot: vec![2, 0, 1],
            track: vec![7, 5, 6],
            coef: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        }
    }

    #[test]
    fn records_store_each_order_at_their_slot() {
        let r = records();
        let mut coef = [0.0f32; 9];
        let mut entered = Vec::new();
        r.play_into((&mut coef, &[10, 11, 12], 3, 3), r.range(0), None, |c| {
            entered.push(c)
        });
        // Slot 2 gets 1, 2, 3 (orders 0, 1, 2), slot 0 gets 4, 5, 6; slot 1 untouched.
        assert_eq!(coef, [4.0, 0.0, 1.0, 5.0, 0.0, 2.0, 6.0, 0.0, 3.0]);
        assert_eq!(entered, [12, 10]);
        r.play_into((&mut coef, &[10, 11, 12], 3, 3), r.range(1), None, |_| {});
        assert_eq!(coef, [4.0, 7.0, 1.0, 5.0, 8.0, 2.0, 6.0, 9.0, 3.0]);
    }

    #[test]
    fn records_of_tracks_off_their_script_are_skipped() {
        let r = records();
        let mut coef = [0.0f32; 9];
        let mut on = [false; 8];
        on[5] = true;
        let mut entered = Vec::new();
        r.play_into(
            (&mut coef, &[10, 11, 12], 3, 3),
            r.range(0),
            Some(&on),
            |c| entered.push(c),
        );
        assert_eq!(coef, [4.0, 0.0, 0.0, 5.0, 0.0, 0.0, 6.0, 0.0, 0.0]);
        assert_eq!(entered, [10]);
    }

    #[test]
    fn runs_split_where_channels_stop_following_each_other() {
        assert_eq!(channel_runs(&[]), []);
        assert_eq!(channel_runs(&[4, 5, 6]), [(0, 4, 3)]);
        assert_eq!(
            channel_runs(&[0, 1, 3, 4, 9, 2]),
            [(0, 0, 2), (2, 3, 2), (4, 9, 1), (5, 2, 1)]
        );
    }

    #[test]
    fn lanes_reach_their_channels_by_runs_and_by_scatter() {
        // Slot i plays 10 i; long runs (one run of 40) and short ones (pairs, reversed).
        let eval = |first: usize, dst: &mut [f32]| {
            for (i, v) in dst.iter_mut().enumerate() {
                *v = 10.0 * (first + i) as f32;
            }
        };
        let long: Vec<u32> = (5..45).collect();
        let mut out = [0.0f32; 50];
        write_lanes((40, &channel_runs(&long), &long), &mut out, eval);
        for (slot, &c) in long.iter().enumerate() {
            assert_eq!(out[c as usize], 10.0 * slot as f32);
        }
        let short: Vec<u32> = (0..40u32).map(|i| 40 - 2 * (i / 2) + i % 2).collect();
        let runs = channel_runs(&short);
        assert_eq!(runs.len(), 20);
        let mut out = [0.0f32; 50];
        write_lanes((40, &runs, &short), &mut out, eval);
        for (slot, &c) in short.iter().enumerate() {
            assert_eq!(out[c as usize], 10.0 * slot as f32, "slot {slot}");
        }
    }
}
