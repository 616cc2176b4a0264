//! Play of the epoch blocks in forward play: a large bank's f32 lanes play one working block that each epoch switch re-centres in place (plus a few fix-ups) instead of reading the next block; the i32 lanes and small f32 banks play their epoch's block in place, the records' undo numbers putting it back when forward play is left.
//!
//! A block holds every lane's coefficients at its epoch's first frame (`EpochBlocks`: the f32
//! groups' chunks of `horner::CHUNK` lanes and the i32 groups' chunks of `horner::INT_CHUNK`,
//! both in `horner::chunked_index`'s layout, so a record's `D + 1` numbers are its lane type's
//! chunk width apart from its position, `LaneWord::CHUNK`).
//!
//! **f32 lanes: a working block.** The f32 part of the blocks has one spare block after the
//! built ones ([`EpochBlocks::played`]); where a block's f32 lanes take at least
//! [`RECENTRE_FROM`] bytes, are of degree 3 at most and at most a quarter of them need fix-ups
//! (below), a seek copies its epoch's block there
//! ([`EpochBlocks::enter_work`]), the records of the epoch's frames up to the seek are played
//! into it, and forward play plays it and patches it; the built blocks are never written after
//! `Bank::new`. At an epoch switch ([`EpochBlocks::switch_work`]) every lane is re-centred on
//! the next centre by `horner::shift_lanes` (the Taylor shift by `EPOCH` in f32, read and
//! written in the working block, which stays in cache), then the lanes whose built numbers
//! differ from that, bit for bit, are set from the block's [`Fixups`] (a piece starting at the
//! epoch's first frame, an epoch whose shifted coefficients the check refused, a track leaving
//! its lanes; about one lane in ten on the benchmark). `Bank::new` builds the blocks so that
//! this holds: a one-component track's piece takes, in each epoch the check let it
//! (`horner::verify_components_chained`), the previous epoch's coefficients shifted, and
//! [`Script::note_switches`] plays every epoch's records into the working block, shifts it and
//! lists the differences with the next block. So forward play holds block `e`'s numbers at
//! epoch `e`'s first frame without reading block `e`: at 10^6 channels a block is 16 MB that
//! came from DRAM twice (docs/benchmarks-history.md, *Epoch switch (session 20)*). Smaller
//! banks, banks with lanes past cubics (re-centring a degree-`d` lane takes `d (d + 1) / 2`
//! additions) and banks whose lanes mostly need fix-ups (four-component tracks are not
//! re-centred) play their f32 blocks in place as the i32 lanes do (below).
//!
//! **i32 lanes (and small f32 banks): in place.** Playing epoch `e` forward, the records of its frames store the new
//! pieces' coefficients into block `e` itself, so block `e` is only pristine until its first
//! record. Forward play never comes back to an epoch on its own, so nothing needs it pristine
//! until the next seek (or step change): [`Script::restore_blocks`] then writes back, in
//! reverse order, each record's undo numbers (what its position held just before it, computed
//! once by [`Script::record_undo`]), record by record over the script frames played in place,
//! which leaves every block as built. A seek to integer frame `p` then plays the records of
//! `p`'s epoch from its first frame up to `p` (what forward play from the epoch's start would
//! have stored: the same numbers `horner::epoch_coefficients` and `fixed32::quantize` give at
//! a seek) and marks them played.

use alloc::vec::Vec;
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
    /// Blocks built (a spare block after them is the f32 lanes' working block).
    count: usize,
}

/// The f32 lanes' part of the epoch blocks.
pub(super) type Floats = Chunks<f32, CHUNK>;
/// The i32 lanes' part of the epoch blocks.
pub(super) type Ints = Chunks<i32, INT_CHUNK>;

impl<T: LaneWord, const W: usize> Chunks<T, W> {
    /// `count` blocks (all 0) of groups of `sizes[d]` chunks each (group `d`: degree `d`), and
    /// `spare` more after them.
    pub(super) fn new(sizes: [usize; MAX_TERMS], count: usize, spare: usize) -> Self {
        let mut starts = [0; MAX_TERMS];
        let mut at = 0;
        for (s, n) in starts.iter_mut().zip(sizes) {
            *s = at;
            at += n;
        }
        let per_block = at.next_multiple_of(horner::line(W));
        Self {
            per_block,
            values: horner::Chunks::zeroed(per_block.saturating_mul(count.saturating_add(spare))),
            starts,
            sizes,
            count,
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

impl Floats {
    /// Copies block `i` into the working block (`count`).
    fn copy_to_work(&mut self, i: usize) {
        let n = self.per_block;
        let (from, work) = (i * n, self.count * n);
        if i < self.count && work + n <= self.values.len() {
            self.values.copy_within(from..from + n, work);
        }
    }

    /// Re-centres every lane of the working block on the next epoch's centre
    /// (`horner::shift_lanes` on each group's lane-chunks) and, with `fixups` (those of the
    /// block entered, `None` in `note_switches`), sets each span's fix-ups right after it is
    /// re-centred, while its lines are at hand.
    fn shift_work(&mut self, fixups: Option<(&Fixups, usize)>) {
        let work = self.count;
        for d in 0..MAX_TERMS {
            let list = fixups.and_then(|(f, i)| f.of(i, d)).unwrap_or((&[], &[]));
            if let Some(group) = self.group_mut(work, d) {
                match d {
                    0 => shift_group::<1>(group, list),
                    1 => shift_group::<2>(group, list),
                    2 => shift_group::<3>(group, list),
                    3 => shift_group::<4>(group, list),
                    4 => shift_group::<5>(group, list),
                    5 => shift_group::<6>(group, list),
                    6 => shift_group::<7>(group, list),
                    7 => shift_group::<8>(group, list),
                    _ => shift_group::<9>(group, list),
                }
            }
        }
    }
}

/// [`shift_span`] over all of `group`, 64 lane-chunks at a time.
#[inline(always)]
fn shift_group<const N: usize>(group: &mut [[f32; CHUNK]], fixups: (&[u32], &[f32])) {
    let lane_chunks = group.len() / N;
    let mut next = 0;
    let mut from = 0;
    while from < lane_chunks {
        let to = (from + 64).min(lane_chunks);
        shift_span::<N>(group, (from, to), fixups, &mut next);
        from = to;
    }
}

/// Re-centres lane-chunks `from .. to` of `group` (`N` chunks each, `horner::shift_lanes`),
/// then sets the fix-ups among `fixups` (positions ordered, `N` numbers each) from `*next` on
/// that lie in them, leaving `*next` at the first past them: the span's lines are at hand.
#[inline(always)]
fn shift_span<const N: usize>(
    group: &mut [[f32; CHUNK]],
    (from, to): (usize, usize),
    (at, coef): (&[u32], &[f32]),
    next: &mut usize,
) {
    let Some(span) = group.get_mut(from * N..to * N) else {
        return;
    };
    for orders in span.chunks_exact_mut(N) {
        if let Ok(orders) = <&mut [[f32; CHUNK]; N]>::try_from(orders) {
            horner::shift_lanes(orders);
        }
    }
    let end = to * N * CHUNK;
    let values = group.as_flattened_mut();
    while let Some(&p) = at.get(*next).filter(|&&p| (p as usize) < end) {
        let x = coef.get(*next * N..*next * N + N).unwrap_or(&[]);
        for (k, &v) in x.iter().enumerate() {
            if let Some(o) = values.get_mut(p as usize + k * CHUNK) {
                *o = v;
            }
        }
        *next += 1;
    }
}

/// Bytes of a block's f32 lanes from which forward play re-centres a working block
/// ([`EpochBlocks::switch_work`]) rather than play each block in place: 256 KiB, past this
/// machine's L1 and most of its L2 share, where reading the next block costs more than
/// re-centring (at 1 000 channels, 16 KiB a block, a switch by re-centring cost 0.04 ns a
/// channel-frame more; at 10^6 channels, 16 MB, it saved 0.03; docs/benchmarks-history.md).
const RECENTRE_FROM: usize = 256 << 10;

/// The lanes an epoch switch must set after re-centring the working block (per block, per
/// group degree): where the built block's numbers are not, bit for bit, the end of the epoch
/// before re-centred (a piece starting at the epoch's first frame, an epoch the check did not
/// let a piece re-centre, a track leaving its lanes).
#[derive(Debug, Clone, Default)]
pub(super) struct Fixups {
    /// Per degree, block `i`'s fix-ups are `start[d][i] .. start[d][i + 1]`.
    start: [Vec<u32>; MAX_TERMS],
    /// Per degree, each fix-up's lane position in the group's chunks (order 0; order `k` is
    /// `k · CHUNK` further).
    at: [Vec<u32>; MAX_TERMS],
    /// Per degree, each fix-up's `d + 1` numbers.
    coef: [Vec<f32>; MAX_TERMS],
}

impl Fixups {
    /// Block `i`'s fix-ups of group `d`: their positions and numbers.
    fn of(&self, i: usize, d: usize) -> Option<(&[u32], &[f32])> {
        let start = self.start.get(d)?.get(i..i + 2)?;
        let (from, to) = (start[0] as usize, start[1] as usize);
        let at = self.at.get(d)?.get(from..to)?;
        Some((at, self.coef.get(d)?.get(from * (d + 1)..to * (d + 1))?))
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        let n = |v: &[Vec<u32>]| v.iter().map(Vec::len).sum::<usize>() * 4;
        n(&self.start) + n(&self.at) + self.coef.iter().map(Vec::len).sum::<usize>() * 4
    }
}

impl EpochBlocks {
    /// The f32 block forward play plays in block `live`'s epoch: the working block (the spare
    /// block after the built ones: forward play plays it in place, the records patch it, and
    /// an epoch switch re-centres it, [`Self::switch_work`]; the built blocks stay as built),
    /// or where the bank does not re-centre (`recentre`), block `live` itself, in place.
    pub(super) fn played(&self, live: usize) -> usize {
        if self.recentre {
            self.count
        } else {
            live
        }
    }

    /// A seek into block `i`'s epoch: the working block becomes a copy of block `i` (nothing
    /// to do where block `i` is played in place).
    pub(super) fn enter_work(&mut self, i: usize) {
        if self.recentre {
            self.floats.copy_to_work(i);
            self.work_holds = Some(i);
        }
        self.switched.1 = self.switched.1.saturating_add(1);
    }

    /// Forward play enters block `i`'s epoch: when the working block holds the end of epoch
    /// `i − 1`'s play ([`Self::switches`]), every lane is re-centred in place
    /// (`horner::shift_lanes`) and the lanes whose block numbers differ from that are set from
    /// [`Fixups`] (`note_switches` compared them bit for bit), so the working block holds block
    /// `i`'s numbers without reading it; else block `i` is copied (or, where the bank plays its
    /// blocks in place, nothing is done).
    pub(super) fn switch_work(&mut self, i: usize) {
        if !self.switches(i) {
            self.enter_work(i);
            return;
        }
        self.floats.shift_work(Some((&self.fixups, i)));
        self.work_holds = Some(i);
        self.switched.0 = self.switched.0.saturating_add(1);
    }

    /// Whether entering block `i` re-centres the working block (it holds the end of epoch
    /// `i − 1`'s play) rather than copying block `i`.
    fn switches(&self, i: usize) -> bool {
        self.recentre && i > 0 && self.work_holds == Some(i - 1)
    }

    /// Index of the block of the epoch integer frame `frame` is in, if built.
    pub(super) fn index(&self, frame: i64) -> Option<usize> {
        block_index((self.first, self.count), frame)
    }

    /// The chunks of f32 group `degree` in block `i` (the working block: [`Self::work`]).
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
        // Where the f32 records patch the working block, never a built one: no undo numbers.
        if !blocks.recentre {
            note_undo(hot, &mut blocks.floats, &block_of, all.clone());
        }
        note_undo(hot32, &mut blocks.ints, &block_of, all);
    }

    /// Lists each block's [`Fixups`]: plays every epoch's records into the working block from
    /// its built block, re-centres it (as `switch_work`) and compares it with the next block
    /// lane by lane, bit for bit. Called once, by `Bank::new`, after the blocks are built.
    pub(super) fn note_switches(&mut self) {
        let Self {
            frames,
            hot,
            blocks,
            ..
        } = self;
        let span = (blocks.first, blocks.count);
        let floats = &mut blocks.floats;
        // Re-centring costs `d (d + 1) / 2` additions a lane of degree `d`: past cubics (the
        // rotation workload's degree-5 and -6 groups) it cost more than the block it saves
        // reading (session 20: 10 000 rotations' script 4× slower).
        let beyond_cubic = floats.sizes.iter().skip(4).any(|&n| n > 0);
        if floats.per_block * CHUNK * 4 < RECENTRE_FROM || blocks.count < 2 || beyond_cubic {
            return;
        }
        let mut fix = Fixups::default();
        // Block 0 has none (forward play enters it by a copy); block `b + 1`'s are listed
        // after block `b`'s epoch is played.
        for d in 0..MAX_TERMS {
            fix.start[d].extend([0, 0]);
        }
        let mut i = 0;
        let work = floats.count;
        for b in 0..blocks.count {
            floats.copy_to_work(b);
            while let Some(&f) = frames.get(i) {
                match block_index(span, f as i64) {
                    Some(x) if x > b => break,
                    Some(x) if x == b => play_into_work(hot, floats, i),
                    _ => {}
                }
                i += 1;
            }
            // Block 0 is entered by a copy, block `b + 1` by a switch from `b`.
            floats.shift_work(None);
            let next = b + 1;
            for d in 0..MAX_TERMS {
                let built = floats.group(next, d).filter(|_| next < blocks.count);
                let (Some(built), Some(shifted)) = (built, floats.group(work, d)) else {
                    let len = fix.at[d].len() as u32;
                    fix.start[d].push(len);
                    continue;
                };
                for (c, (x, y)) in built
                    .chunks_exact(d + 1)
                    .zip(shifted.chunks_exact(d + 1))
                    .enumerate()
                {
                    for m in 0..CHUNK {
                        let same = x
                            .iter()
                            .zip(y)
                            .all(|(x, y)| x[m].to_bits() == y[m].to_bits());
                        if !same {
                            fix.at[d].push((c * (d + 1) * CHUNK + m) as u32);
                            fix.coef[d].extend(x.iter().map(|o| o[m]));
                        }
                    }
                }
                let len = fix.at[d].len() as u32;
                fix.start[d].push(len);
            }
        }
        // Lanes × switches: a bank whose lanes mostly need fix-ups (four-component tracks do
        // not re-centre) plays its blocks in place.
        let lanes = (floats.per_block * CHUNK) as u64 * (blocks.count as u64 - 1);
        let fixed: u64 = fix.at.iter().map(|a| a.len() as u64).sum();
        blocks.recentre = fixed.saturating_mul(4) <= lanes;
        if blocks.recentre {
            blocks.fixups = fix;
        }
        blocks.work_holds = None;
        blocks.switched = (0, 0);
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
        if !blocks.recentre {
            restore(hot, &mut blocks.floats, &block_of, frames.clone());
        }
        restore(hot32, &mut blocks.ints, &block_of, frames);
    }
}

/// Plays the f32 records of script frame `i` (one list per group degree) into the working
/// block of `floats`.
fn play_into_work(records: &[Records<f32>], floats: &mut Floats, i: usize) {
    let work = floats.count;
    for (degree, hot) in records.iter().enumerate() {
        if let Some(group) = floats.group_mut(work, degree) {
            // The stores forward play's lean records make (`Records::store_chunked`).
            hot.store_chunked(i, degree + 1, group.as_flattened_mut());
        }
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
