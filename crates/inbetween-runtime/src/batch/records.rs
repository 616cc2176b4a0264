//! Piece-change records of the Horner lanes (f32 and i32 alike): what forward play loads, frame by frame.

use alloc::vec::Vec;

/// A lane group as its records write it: its coefficients (flattened), each slot's channel,
/// its lane count and its orders (`terms`).
pub(crate) type GroupLanes<'a, T> = (&'a mut [T], &'a [u32], usize, usize);

/// One lane group's piece changes in forward play, frame by frame: record `r` loads
/// `coef[r (D + 1) .. (r + 1) (D + 1)]` (the coefficients about the centre of its own frame:
/// f32 for [`super::horner`], integers for [`super::fixed32`]) into lane `slot[r]` when track
/// `track[r]` is on its script. The records of script frame `i` are `start[i] .. start[i + 1]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Records<T> {
    pub(crate) start: Vec<u32>,
    /// Private: written only by [`Records::push_components`] and [`Records::index_chunks`],
    /// which keep `max_slot` (read through [`Records::slots`]).
    slot: Vec<u32>,
    /// The largest number in `slot` (0 when empty): one comparison in
    /// [`Records::store_chunked`] bounds every position of a frame's records.
    max_slot: u32,
    pub(crate) track: Vec<u32>,
    pub(crate) coef: Vec<T>,
    /// Records played in place (f32 lanes, `live`): the `D + 1` numbers each record's
    /// position held just before it, record after record (empty otherwise).
    pub(crate) undo: Vec<T>,
}

impl<T: super::horner::LaneWord> Records<T> {
    /// Records of script frame `i`.
    #[inline]
    pub(crate) fn range(&self, i: usize) -> (usize, usize) {
        let at = |i: usize| self.start.get(i).copied().unwrap_or(0) as usize;
        (at(i), at(i + 1))
    }

    /// Each record's lane (or, after [`Records::index_chunks`], its position).
    #[inline]
    pub(crate) fn slots(&self) -> &[u32] {
        &self.slot
    }

    /// The largest of [`Records::slots`] (0 when there is none).
    #[inline]
    #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
    pub(crate) fn max_slot(&self) -> u32 {
        self.max_slot
    }

    /// The records `r` (`terms` numbers each) for which `keep(i, r)` holds (`i` the script
    /// frame of record `r`), frame by frame as here: the same script frames, tracks, positions
    /// and numbers, without undo numbers.
    pub(crate) fn filtered(&self, terms: usize, keep: impl Fn(usize, usize) -> bool) -> Self {
        let mut out = Self::default();
        for i in 0..self.start.len().saturating_sub(1) {
            out.start.push(out.slot.len() as u32);
            let (from, to) = self.range(i);
            for r in (from..to).filter(|&r| keep(i, r)) {
                let (Some(&slot), Some(&track), Some(coef)) = (
                    self.slot.get(r),
                    self.track.get(r),
                    self.coef.get(r * terms..(r + 1) * terms),
                ) else {
                    continue;
                };
                out.slot.push(slot);
                out.max_slot = out.max_slot.max(slot);
                out.track.push(track);
                out.coef.extend_from_slice(coef);
            }
        }
        if !self.start.is_empty() {
            out.start.push(out.slot.len() as u32);
        }
        out
    }

    /// Each script frame's records ordered by position (`slot`), records of one position
    /// keeping their order (a stable sort): what a frame stores is unchanged (records at
    /// different positions commute; at one position the later still stores last), and a pass
    /// over the lanes in order can store each record as it reaches it. For lists without undo
    /// numbers (`filtered`'s).
    pub(crate) fn sort_frames(&mut self, terms: usize) {
        let mut order: Vec<usize> = Vec::new();
        let (mut slot, mut track, mut coef) = (
            Vec::with_capacity(self.slot.len()),
            Vec::with_capacity(self.track.len()),
            Vec::with_capacity(self.coef.len()),
        );
        for i in 0..self.start.len().saturating_sub(1) {
            let (from, to) = self.range(i);
            order.clear();
            order.extend(from..to);
            order.sort_by_key(|&r| self.slot.get(r).copied().unwrap_or(u32::MAX));
            for &r in &order {
                if let (Some(&p), Some(&t), Some(c)) = (
                    self.slot.get(r),
                    self.track.get(r),
                    self.coef.get(r * terms..(r + 1) * terms),
                ) {
                    slot.push(p);
                    track.push(t);
                    coef.extend_from_slice(c);
                }
            }
        }
        if slot.len() == self.slot.len() && coef.len() == self.coef.len() {
            self.slot = slot;
            self.track = track;
            self.coef = coef;
        }
    }

    /// Whether every script frame's records are ordered by position (`slot`): a pass over
    /// the lanes in order can then store each record as it reaches it.
    pub(crate) fn frames_sorted(&self) -> bool {
        (0..self.start.len().saturating_sub(1)).all(|i| {
            let (from, to) = self.range(i);
            self.slot
                .get(from..to)
                .is_some_and(|s| s.windows(2).all(|w| w[0] <= w[1]))
        })
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
            self.max_slot = self.max_slot.max(first_lane + c);
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

    /// Turns every record's lane into its position in a chunked group of `terms` orders
    /// (`horner::chunked_index(terms, lane, 0)`, where order 0 of the lane lives), what
    /// `Records::play_into` reads in a chunked group. `false` (records
    /// unchanged) when a position does not fit 32 bits.
    pub(crate) fn index_chunks(&mut self, terms: usize) -> bool {
        let positions: Option<Vec<u32>> = self
            .slot
            .iter()
            .map(|&lane| {
                u32::try_from(super::horner::chunked_index::<T>(terms, lane as usize, 0)).ok()
            })
            .collect();
        let Some(positions) = positions else {
            return false;
        };
        self.max_slot = positions.iter().copied().max().unwrap_or(0);
        self.slot = positions;
        true
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        (self.start.len() + self.slot.len() + self.track.len()) * 4
            + (self.coef.len() + self.undo.len()) * core::mem::size_of::<T>()
    }

    /// Plays the records `from..to` into a group's coefficient arrays `coef` (`len` lanes,
    /// `terms` orders): order-major (`chunked` false: lane `slot` of order `k` at `k · len +
    /// slot`), or in chunks of `T::CHUNK` lanes, each chunk its `terms` orders one after
    /// the other (`horner::chunked_index`; the records' lanes turned into positions by
    /// [`Records::index_chunks`], so a record's `terms` stores start at its position,
    /// `T::CHUNK` values apart). With `on_script`, records whose track is not on its script are skipped
    /// (`None`: every track with records is on it, the common case, and no record is tested);
    /// `entered(channel of the lane)` is called for each record played.
    #[inline]
    pub(crate) fn play_into(
        &self,
        (coef, channel, len, terms): GroupLanes<'_, T>,
        (range, chunked): ((usize, usize), bool),
        on_script: Option<&[bool]>,
        entered: impl FnMut(usize),
    ) {
        let Some(lanes) = self.lanes(range, terms, on_script) else {
            return;
        };
        let group = (coef, len, channel, chunked);
        match terms {
            1 => lanes.play::<1>(group, entered),
            2 => lanes.play::<2>(group, entered),
            3 => lanes.play::<3>(group, entered),
            4 => lanes.play::<4>(group, entered),
            5 => lanes.play::<5>(group, entered),
            6 => lanes.play::<6>(group, entered),
            7 => lanes.play::<7>(group, entered),
            8 => lanes.play::<8>(group, entered),
            _ => lanes.play::<9>(group, entered),
        }
    }

    /// The records of script frame `i` into a chunked group's coefficients `values` (`terms`
    /// orders; positions from [`Records::index_chunks`]): what [`Records::play_into`] stores
    /// there for a chunked group with every track on its script, in one tight loop (no
    /// per-record track test or channel callback). A position past `values` is skipped.
    #[inline]
    pub(crate) fn store_chunked(&self, i: usize, terms: usize, values: &mut [T]) {
        let (from, to) = self.range(i);
        let (Some(slots), Some(coef)) = (
            self.slot.get(from..to),
            self.coef.get(from * terms..to * terms),
        ) else {
            return;
        };
        let records = (slots, self.max_slot, coef);
        match terms {
            1 => store_chunked::<T, 1>(records, values),
            2 => store_chunked::<T, 2>(records, values),
            3 => store_chunked::<T, 3>(records, values),
            4 => store_chunked::<T, 4>(records, values),
            5 => store_chunked::<T, 5>(records, values),
            6 => store_chunked::<T, 6>(records, values),
            7 => store_chunked::<T, 7>(records, values),
            8 => store_chunked::<T, 8>(records, values),
            _ => store_chunked::<T, 9>(records, values),
        }
    }

    /// The records `from..to` of `terms` numbers each, with the tracks on their script.
    #[inline]
    fn lanes<'a>(
        &'a self,
        (from, to): (usize, usize),
        terms: usize,
        on_script: Option<&'a [bool]>,
    ) -> Option<Lanes<'a, T>> {
        Some(Lanes {
            slots: self.slot.get(from..to)?,
            tracks: self.track.get(from..to)?,
            records: self.coef.get(from * terms..to * terms)?,
            on_script,
        })
    }
}

/// A run of records (lanes, tracks, numbers), and which tracks are on their script.
struct Lanes<'a, T> {
    slots: &'a [u32],
    tracks: &'a [u32],
    records: &'a [T],
    on_script: Option<&'a [bool]>,
}

impl<T: super::horner::LaneWord> Lanes<'_, T> {
    /// [`Lanes::order_major`] or [`Lanes::chunked`].
    #[inline(always)]
    fn play<const N: usize>(
        &self,
        (coef, len, channel, chunked): (&mut [T], usize, &[u32], bool),
        entered: impl FnMut(usize),
    ) {
        if chunked {
            self.chunked::<N>(coef, len, channel, entered);
        } else {
            self.order_major::<N>(coef, len, channel, entered);
        }
    }

    /// The records' `N` coefficients each into the order-major arrays `coef` of `len` lanes:
    /// `N` stores per record, the orders sliced once.
    #[inline(always)]
    fn order_major<const N: usize>(
        &self,
        coef: &mut [T],
        len: usize,
        channel: &[u32],
        entered: impl FnMut(usize),
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
        self.each::<N>(
            |slot| slot,
            (channel, entered),
            |slot, c| {
                debug_assert!(slot < len, "record slot {slot} past the {len} lanes");
                if slot >= len {
                    return false;
                }
                for (order, &x) in orders.iter_mut().zip(c) {
                    order[slot] = x;
                }
                true
            },
        );
    }

    /// The records' `N` coefficients each into the chunked arrays `coef` (`len` lanes), at the
    /// records' positions (`horner::chunked_index`).
    #[inline(always)]
    fn chunked<const N: usize>(
        &self,
        coef: &mut [T],
        len: usize,
        channel: &[u32],
        entered: impl FnMut(usize),
    ) {
        // Invariant of `HornerGroup`: whole chunks, so every position has its `N` orders.
        let span = (N - 1) * T::CHUNK + 1;
        let end = len.div_ceil(T::CHUNK) * N * T::CHUNK;
        let coef = coef.get_mut(..end).unwrap_or(&mut []);
        let lane = |at: usize| (at / (N * T::CHUNK)) * T::CHUNK + at % T::CHUNK;
        self.each::<N>(lane, (channel, entered), |at, c| {
            let Some(dst) = coef.get_mut(at..at + span) else {
                debug_assert!(false, "record position {at} past the {len} lanes");
                return false;
            };
            for (k, &x) in c.iter().enumerate() {
                dst[k * T::CHUNK] = x;
            }
            true
        });
    }

    /// Each record whose track is on its script: `store(position, coefficients)`, then, when
    /// it stored them (the position is in the group), `entered(channel[lane(position)])`.
    #[inline(always)]
    fn each<const N: usize>(
        &self,
        lane: impl Fn(usize) -> usize,
        (channel, mut entered): (&[u32], impl FnMut(usize)),
        mut store: impl FnMut(usize, &[T; N]) -> bool,
    ) {
        let records = self.records.chunks_exact(N);
        let mut play = |slot: u32, c: &[T]| {
            let slot = slot as usize;
            if let Ok(c) = <&[T; N]>::try_from(c) {
                if store(slot, c) {
                    entered(channel.get(lane(slot)).copied().unwrap_or(u32::MAX) as usize);
                }
            }
        };
        let Some(on_script) = self.on_script else {
            // Every track with records is on its script: no per-record test.
            for (&slot, c) in self.slots.iter().zip(records) {
                play(slot, c);
            }
            return;
        };
        for ((&slot, &track), c) in self.slots.iter().zip(self.tracks).zip(records) {
            if on_script.get(track as usize).copied().unwrap_or(false) {
                play(slot, c);
            }
        }
    }
}

/// [`Records::store_chunked`] for `N` orders: record `r`'s numbers `coef[r N .. (r + 1) N]`
/// stored at `slots[r] + k · T::CHUNK` for `k < N`; a record whose positions are not all in
/// `values` (a broken invariant of the groups) is skipped. One bound is computed once (the
/// last position whose `N` numbers fit): when `max_slot` (the largest position of every
/// record, `Records::max_slot`) is within it, no record is tested (the common case: ~2
/// instructions a record saved, ~50 a frame at 1 000 channels, session 11); otherwise each
/// position is compared with it. [`STORE_STEP`] records a step (the loop's own instructions
/// once per step).
fn store_chunked<T: super::horner::LaneWord, const N: usize>(
    (slots, max_slot, coef): (&[u32], u32, &[T]),
    values: &mut [T],
) {
    let Some(last) = values.len().checked_sub((N - 1) * T::CHUNK + 1) else {
        return;
    };
    let far = core::mem::size_of_val(values) >= PREFETCH_FROM;
    match (max_slot as usize <= last, far) {
        (true, false) => store_bounded::<T, N, false, false>((slots, coef), values, last),
        (false, false) => store_bounded::<T, N, true, false>((slots, coef), values, last),
        (true, true) => store_bounded::<T, N, false, true>((slots, coef), values, last),
        (false, true) => store_bounded::<T, N, true, true>((slots, coef), values, last),
    }
}

/// Bytes of a group's part of a block from which [`store_chunked`] prefetches each record's
/// lines [`AHEAD`] records before storing them: such a part is far past the core's L2 when
/// the records of the next frame are stored (the frame's pass has just walked through all of
/// it), so each record's stores would otherwise wait for L3 one after the other
/// (docs/benchmarks-history.md, *The bank at 10^6 channels (session 13)*). The f32 lanes'
/// [`Records::store_cubic`] leaves such parts to it; the i32 lanes' 128-bit stores
/// (`fixed32::LeanRecords::store`) prefetch from the same size (session 17:
/// docs/benchmarks-history.md, *Fixed bank at 10^6 channels: prefetch (session 17)*).
pub(crate) const PREFETCH_FROM: usize = super::pass::PREFETCH_UNTIL;

/// Records between a record's prefetch and its stores.
const AHEAD: usize = 16;

/// Asks the CPU to bring into the cache the lines of the record at position `at` of `values`
/// (`N` numbers `T::CHUNK` apart; one hint per 64 bytes of the span, nothing on other
/// architectures).
#[inline(always)]
fn prefetch_record<T: super::horner::LaneWord, const N: usize>(values: &[T], at: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let first = values.as_ptr().cast::<i8>();
        let stride = T::CHUNK * core::mem::size_of::<T>();
        let mut k = 0;
        while k < N {
            let offset = (at + k * T::CHUNK) * core::mem::size_of::<T>();
            // SAFETY: `_mm_prefetch` needs SSE (every x86_64 CPU has it); a prefetch is a hint
            // that never faults and whose line the program never observes, so any address is
            // sound, and `wrapping_add` forms it without claiming it is in `values`.
            #[allow(unsafe_code, unused_unsafe)]
            unsafe {
                use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(offset));
            }
            k += (64 / stride).max(1);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (values, at);
}

/// [`store_chunked`]'s loop: every record whose position is at most `last` (compared when
/// `CHECKED`; otherwise the caller proved every position of `slots` is); with `PREFETCH`, the
/// lines of the record [`AHEAD`] records on are prefetched before each record's stores
/// (a hint: the same stores).
#[inline(never)]
fn store_bounded<
    T: super::horner::LaneWord,
    const N: usize,
    const CHECKED: bool,
    const PREFETCH: bool,
>(
    (slots, coef): (&[u32], &[T]),
    values: &mut [T],
    last: usize,
) {
    if last >= values.len() {
        return;
    }
    if PREFETCH {
        for &at in slots.iter().take(AHEAD) {
            prefetch_record::<T, N>(values, at as usize);
        }
    }
    let mut ahead = slots.iter().skip(AHEAD);
    let mut store = |at: u32, c: &[T; N]| {
        if PREFETCH {
            if let Some(&next) = ahead.next() {
                prefetch_record::<T, N>(values, next as usize);
            }
        }
        let at = at as usize;
        if CHECKED && at > last {
            return;
        }
        for (k, &x) in c.iter().enumerate() {
            // SAFETY: `at ≤ last`: compared just above when `CHECKED`; otherwise `at` is one of
            // a `Records`' slots, all at most its `max_slot` (kept by the only writers of
            // `slot`, a private field), which `store_chunked` found at most `last`. And `last =
            // values.len() − ((N − 1) · CHUNK + 1)` (so below `values.len()`, as tested) with
            // `k < N`, so `at + k · CHUNK ≤ values.len() − 1`.
            // `stored_records_equal_played_records` checks the stores and the skip.
            #[allow(unsafe_code)]
            unsafe {
                *values.get_unchecked_mut(at + k * T::CHUNK) = x;
            }
        }
    };
    let steps = slots.chunks_exact(STORE_STEP);
    let rest = steps.remainder();
    let coef_steps = coef.chunks_exact(STORE_STEP * N);
    let coef_rest = coef_steps.remainder();
    for (step, c) in steps.zip(coef_steps) {
        let mut c = c;
        for &at in step {
            let Some((numbers, next)) = c.split_first_chunk::<N>() else {
                return;
            };
            store(at, numbers);
            c = next;
        }
    }
    for (&at, c) in rest.iter().zip(coef_rest.chunks_exact(N)) {
        if let Ok(c) = <&[T; N]>::try_from(c) {
            store(at, c);
        }
    }
}

/// Records per step of [`store_chunked`]'s loop.
const STORE_STEP: usize = 4;

impl Records<f32> {
    /// [`Records::store_chunked`] of a cubic group (4 orders): where the CPU has AVX2, each
    /// record by one 128-bit load of its 4 numbers and 4 stores from the register (six
    /// instructions a record against the scalar loop's nine, as the i32 lanes'
    /// `fixed32::LeanRecords`); the same bits stored at the same positions
    /// (`cubic_stores_equal_chunked_stores`). Any other case, and a part of at least
    /// [`PREFETCH_FROM`] bytes (whose records `store_chunked` prefetches): `store_chunked`.
    #[inline(always)]
    pub(crate) fn store_cubic(&self, i: usize, values: &mut [f32]) {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if core::mem::size_of_val(values) < PREFETCH_FROM && std::is_x86_feature_detected!("avx2") {
            let (from, to) = self.range(i);
            let (Some(slots), Some(coef)) =
                (self.slot.get(from..to), self.coef.get(from * 4..to * 4))
            else {
                return;
            };
            if (self.max_slot as usize).saturating_add(3 * super::horner::CHUNK) < values.len() {
                // SAFETY: AVX2 was detected just above; `coef` holds `4 · slots.len()`
                // numbers (sliced so), and every position is at most `max_slot` (kept by the
                // only writers of `slot`), so `at + 3 · CHUNK < values.len()`, as tested.
                #[allow(unsafe_code)]
                unsafe {
                    store_cubic_avx2(slots, coef, values);
                }
                return;
            }
        }
        self.store_chunked(i, 4, values);
    }
}

impl Records<f32> {
    /// Records `from .. to` of a cubic group (the part of a frame's records a pass has
    /// reached, `horner::HornerGroup::sweep_records`) by [`store_cubic_avx2`]; `false`
    /// (nothing stored) without AVX2 or where a position could pass `values`.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    #[inline(always)]
    pub(crate) fn store_cubic_span(&self, from: usize, to: usize, values: &mut [f32]) -> bool {
        let (Some(slots), Some(coef)) = (self.slot.get(from..to), self.coef.get(from * 4..to * 4))
        else {
            return false;
        };
        let fits = (self.max_slot as usize).saturating_add(3 * super::horner::CHUNK) < values.len();
        if !(fits && std::is_x86_feature_detected!("avx2")) {
            return false;
        }
        // SAFETY: AVX2 was detected just above; `coef` holds `4 · slots.len()` numbers
        // (sliced so), and every position is at most `max_slot`, so `at + 3 · CHUNK <
        // values.len()`, as tested.
        #[allow(unsafe_code)]
        unsafe {
            store_cubic_avx2(slots, coef, values);
        }
        true
    }
}

/// Record `r`'s 4 numbers `coef[4r .. 4r + 4]` at `slots[r] + k · CHUNK`, `k ≤ 3`, by one
/// 128-bit load and 4 stores from the register (`vmovss`, `vextractps`): bits moved, not
/// computed.
///
/// # Safety
/// The CPU must support AVX2; `coef` must hold at least `4 · slots.len()` numbers and every
/// `slots[r] + 3 · CHUNK` must be below `values.len()`.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn store_cubic_avx2(slots: &[u32], coef: &[f32], values: &mut [f32]) {
    use super::horner::CHUNK;
    use core::arch::x86_64::{_mm_extract_ps, _mm_loadu_ps, _mm_store_ss};
    let v = values.as_mut_ptr();
    let store = |at: u32, c: *const f32| {
        // SAFETY: `c` is record `r`'s `coef[4r ..]` with `r < slots.len()` (inside `coef`
        // by the caller's length, 4 numbers) and `at = slots[r]`: the writes `values[at + k ·
        // CHUNK]`, `k ≤ 3`, are below `values.len()` by the caller's bound on `at`; unaligned
        // accesses need no alignment. An f32 and an i32 have the same size and alignment, so
        // the extracted bits are stored as the f32 they are. AVX2 (so SSE4.1's `extractps`)
        // is the caller's guarantee.
        unsafe {
            let x = _mm_loadu_ps(c);
            let p = v.add(at as usize);
            _mm_store_ss(p, x);
            *p.add(CHUNK).cast::<i32>() = _mm_extract_ps::<1>(x);
            *p.add(2 * CHUNK).cast::<i32>() = _mm_extract_ps::<2>(x);
            *p.add(3 * CHUNK).cast::<i32>() = _mm_extract_ps::<3>(x);
        }
    };
    // Four records a step: the loop's own instructions once per four.
    let steps = slots.chunks_exact(4);
    let rest = steps.remainder();
    let coef_steps = coef.chunks_exact(16);
    let coef_rest = coef_steps.remainder();
    for (at, c) in steps.zip(coef_steps) {
        let c = c.as_ptr();
        for (k, &at) in at.iter().enumerate() {
            // `4k + 4 ≤ 16`: inside the step's numbers.
            store(at, c.wrapping_add(4 * k));
        }
    }
    for (&at, c) in rest.iter().zip(coef_rest.chunks_exact(4)) {
        store(at, c.as_ptr());
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
pub(super) const MIN_RUN: usize = 16;

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
    // A small group (the few quaternions of a degree most rotations do not have) clears a
    // small block: clearing 1 KB cost ~80 instructions a frame (session 13).
    if len <= 32 {
        scatter_blocks((len, channel), out, &eval, &mut [0.0f32; 32]);
    } else {
        scatter_blocks((len, channel), out, &eval, &mut [0.0f32; 256]);
    }
}

/// [`write_lanes`]' scattered form: `block.len()` slots at a time evaluated into `block`, then
/// stored by channel.
#[inline(always)]
fn scatter_blocks(
    (len, channel): (usize, &[u32]),
    out: &mut [f32],
    eval: &impl Fn(usize, &mut [f32]),
    block: &mut [f32],
) {
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
    use super::{channel_runs, write_lanes, Records, PREFETCH_FROM};
    use crate::batch::horner::{chunked_index, LaneWord, CHUNK};
    use alloc::{vec, vec::Vec};

    /// Three lanes of degree 2 (3 orders, order-major) and two frames of records.
    fn records() -> Records<f32> {
        Records {
            start: vec![0, 2, 3],
            slot: vec![2, 0, 1],
            max_slot: 2,
            track: vec![7, 5, 6],
            coef: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
            undo: Vec::new(),
        }
    }

    #[test]
    fn records_store_each_order_at_their_slot() {
        let r = records();
        let mut coef = [0.0f32; 9];
        let mut entered = Vec::new();
        r.play_into(
            (&mut coef, &[10, 11, 12], 3, 3),
            (r.range(0), false),
            None,
            |c| entered.push(c),
        );
        // Slot 2 gets 1, 2, 3 (orders 0, 1, 2), slot 0 gets 4, 5, 6; slot 1 untouched.
        assert_eq!(coef, [4.0, 0.0, 1.0, 5.0, 0.0, 2.0, 6.0, 0.0, 3.0]);
        assert_eq!(entered, [12, 10]);
        r.play_into(
            (&mut coef, &[10, 11, 12], 3, 3),
            (r.range(1), false),
            None,
            |_| {},
        );
        assert_eq!(coef, [4.0, 7.0, 1.0, 5.0, 8.0, 2.0, 6.0, 9.0, 3.0]);
    }

    #[test]
    fn chunked_records_store_each_order_a_chunk_apart() {
        // The f32 lanes' chunks (8 lanes) and the i32 lanes' (32): each record's orders are
        // its own lane type's chunk width apart.
        chunked_records_of::<f32>();
        chunked_records_of::<i32>();
    }

    fn chunked_records_of<T: LaneWord + From<u8> + PartialEq>() {
        let w = T::CHUNK;
        // 40 lanes of degree 2: whole chunks of 3 orders. Lane 33 gets 1, 2, 3; lane 0 gets
        // 4, 5, 6.
        let mut r = Records {
            start: vec![0, 2],
            slot: vec![33, 0],
            max_slot: 33,
            track: vec![7, 5],
            coef: [1, 2, 3, 4, 5, 6].map(T::from).to_vec(),
            undo: Vec::new(),
        };
        assert!(r.index_chunks(3));
        // Lane 33: chunk 33 / w (3 orders of w lanes before each chunk), lane 33 % w in it.
        assert_eq!(r.slot, [((33 / w) * 3 * w + 33 % w) as u32, 0]);
        let channels: Vec<u32> = (100..140).collect();
        let mut coef = vec![T::default(); 40usize.div_ceil(w) * 3 * w];
        let mut entered = Vec::new();
        r.play_into(
            (&mut coef, &channels, 40, 3),
            (r.range(0), true),
            None,
            |c| entered.push(c),
        );
        for (lane, values) in [(33, [1, 2, 3]), (0, [4, 5, 6])] {
            for (k, &v) in values.iter().enumerate() {
                // Order k of lane 33 (or 0) is k · w after order 0.
                let at = r.slot[usize::from(lane == 0)] as usize + k * w;
                assert!(coef[at] == T::from(v), "lane {lane} order {k}");
                assert_eq!(chunked_index::<T>(3, lane, k), at);
            }
        }
        assert_eq!(coef.iter().filter(|&&x| x != T::default()).count(), 6);
        assert_eq!(entered, [133, 100]);
    }

    /// `max_slot`, which lets `store_chunked` skip the per-record bound, is the largest slot
    /// after every push and after the lanes become chunk positions.
    #[test]
    fn the_largest_slot_follows_pushes_and_chunk_positions() {
        let mut r = Records::<f32>::default();
        assert_eq!(r.max_slot, 0);
        r.push_components((5, 0, 3), &[1.0; 12], 4);
        r.push_components((2, 1, 1), &[2.0; 4], 4);
        assert_eq!(r.slots(), [5, 6, 7, 2]);
        assert_eq!(r.max_slot, 7);
        assert!(r.index_chunks(4));
        assert_eq!(r.max_slot, chunked_index::<f32>(4, 7, 0) as u32);
        assert_eq!(r.slots().iter().max(), Some(&r.max_slot));
    }

    #[test]
    fn stored_records_equal_played_records() {
        stored_records_of::<f32>();
        stored_records_of::<i32>();
    }

    /// `store_chunked` (positions bounded once, then unchecked) against `play_into`'s chunked
    /// stores of every track on its script, for every order count, the records of 37 lanes
    /// in two frames; then with a position past the values (a broken invariant: the checked
    /// loop skips that record and stores the others).
    fn stored_records_of<T: LaneWord + From<u8> + PartialEq>() {
        for terms in 1..=9usize {
            let lanes = [36u32, 0, 9, 17, 8, 35, 1];
            let coef: Vec<T> = (0..lanes.len() * terms)
                .map(|x| T::from(x as u8 + 1))
                .collect();
            let mut r = Records {
                start: vec![0, 4, lanes.len() as u32],
                slot: lanes.to_vec(),
                max_slot: 36,
                track: vec![0; lanes.len()],
                coef,
                undo: Vec::new(),
            };
            assert!(r.index_chunks(terms));
            let len = 37usize.div_ceil(T::CHUNK) * terms * T::CHUNK;
            for i in 0..2 {
                let mut played = vec![T::default(); len];
                r.play_into(
                    (&mut played, &[0; 37], 37, terms),
                    (r.range(i), true),
                    None,
                    |_| {},
                );
                let mut stored = vec![T::default(); len];
                r.store_chunked(i, terms, &mut stored);
                assert!(stored == played, "{terms} orders, frame {i}");
            }
            // Values cut just before lane 36's last order: its record is past them.
            let lane36 = r.slot[0] as usize;
            let mut stored = vec![T::default(); lane36 + (terms - 1) * T::CHUNK];
            r.store_chunked(0, terms, &mut stored);
            let mut played = vec![T::default(); len];
            r.play_into(
                (&mut played, &[0; 37], 37, terms),
                (r.range(0), true),
                None,
                |_| {},
            );
            for (at, (s, p)) in stored.iter().zip(&played).enumerate() {
                let of_36 = at >= lane36 && (at - lane36) % T::CHUNK == 0;
                let want = if of_36 { T::default() } else { *p };
                assert!(*s == want, "{terms} orders, position {at}");
            }
        }
    }

    #[test]
    fn cubic_stores_equal_chunked_stores() {
        // `store_cubic` (128-bit registers where the CPU has AVX2) against `store_chunked`:
        // random lanes of a 203-lane group (two records of one lane in a frame too: the later
        // wins), numbers of random bits (NaNs, infinities, subnormals, negative zero: moved,
        // not computed), frames of 0 to 40 records, and values too short for the largest
        // position (both then take the checked loop).
        let lanes = 203usize;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..20 {
            let mut r = Records::<f32>::default();
            for frame in 0..8usize {
                r.start.push(r.slot.len() as u32);
                for _ in 0..(frame * 5 + round) % 41 {
                    let lane = (next() % lanes as u64) as u32;
                    r.slot.push(lane);
                    r.max_slot = r.max_slot.max(lane);
                    r.track.push(0);
                    for _ in 0..4 {
                        r.coef.push(f32::from_bits(next() as u32));
                    }
                }
            }
            r.start.push(r.slot.len() as u32);
            assert!(r.index_chunks(4));
            let full = lanes.div_ceil(CHUNK) * 4 * CHUNK;
            for len in [full, r.max_slot as usize + 3 * CHUNK] {
                let mut cubic = vec![f32::from_bits(7); len];
                let mut chunked = cubic.clone();
                for i in 0..8 {
                    r.store_cubic(i, &mut cubic);
                    r.store_chunked(i, 4, &mut chunked);
                    let same = cubic
                        .iter()
                        .zip(&chunked)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "round {round}, frame {i}, {len} values");
                }
            }
        }
    }

    #[test]
    fn prefetching_stores_equal_played_records() {
        prefetched_records_of::<f32>();
        prefetched_records_of::<i32>();
    }

    /// `store_chunked` on a group part of at least `PREFETCH_FROM` bytes (the loop that
    /// prefetches each record's lines `AHEAD` records on) against `play_into`'s chunked stores,
    /// for every order count: 100 records of scattered lanes in two frames (more than `AHEAD`
    /// each, and fewer), then with values cut before the farthest lane's last order (the
    /// checked loop with prefetch skips that record and stores the others).
    fn prefetched_records_of<T: LaneWord + From<u8> + PartialEq>() {
        for terms in 1..=9usize {
            let lanes = (PREFETCH_FROM / core::mem::size_of::<T>()).div_ceil(terms) + 2 * T::CHUNK;
            let slot: Vec<u32> = (0..100u32)
                .map(|r| ((r as usize * 7919 + 13) % lanes) as u32)
                .chain([lanes as u32 - 1])
                .collect();
            let coef: Vec<T> = (0..slot.len() * terms)
                .map(|x| T::from((x % 250) as u8 + 1))
                .collect();
            let max_slot = lanes as u32 - 1;
            let mut r = Records {
                start: vec![0, 10, slot.len() as u32],
                slot,
                max_slot,
                track: vec![0; 101],
                coef,
                undo: Vec::new(),
            };
            assert!(r.index_chunks(terms));
            let len = lanes.div_ceil(T::CHUNK) * terms * T::CHUNK;
            assert!(len * core::mem::size_of::<T>() >= PREFETCH_FROM);
            let channel = vec![0u32; lanes];
            let played = |i: usize| {
                let mut played = vec![T::default(); len];
                let lanes = (played.as_mut_slice(), channel.as_slice(), lanes, terms);
                r.play_into(lanes, (r.range(i), true), None, |_| {});
                played
            };
            for i in 0..2 {
                let mut stored = vec![T::default(); len];
                r.store_chunked(i, terms, &mut stored);
                assert!(stored == played(i), "{terms} orders, frame {i}");
            }
            let last = r.max_slot as usize;
            let mut stored = vec![T::default(); last + (terms - 1) * T::CHUNK];
            assert!(core::mem::size_of_val(stored.as_slice()) >= PREFETCH_FROM);
            r.store_chunked(1, terms, &mut stored);
            let want = played(1);
            for (at, (s, p)) in stored.iter().zip(&want).enumerate() {
                let of_last = at >= last && (at - last) % T::CHUNK == 0;
                let want = if of_last { T::default() } else { *p };
                assert!(*s == want, "{terms} orders, position {at}");
            }
        }
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
            (r.range(0), false),
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
        // 40 lanes scatter from the large block, 12 and 32 from the small one.
        for lanes in [40u32, 12, 32] {
            let short: Vec<u32> = (0..lanes).map(|i| 40 - 2 * (i / 2) + i % 2).collect();
            let runs = channel_runs(&short);
            assert_eq!(runs.len(), lanes as usize / 2);
            let mut out = [-1.0f32; 50];
            write_lanes((lanes as usize, &runs, &short), &mut out, eval);
            for (slot, &c) in short.iter().enumerate() {
                assert_eq!(out[c as usize], 10.0 * slot as f32, "slot {slot}");
            }
            assert_eq!(out.iter().filter(|&&v| v != -1.0).count(), lanes as usize);
        }
    }
}
