//! The straight frame: forward play's common case (step 1 from an integer frame) played by one lean path whose choices are made once per state change, not tested per frame.
//!
//! [`Bank::plan`] runs at every state change (`Bank::new`, `seek`, `set_step`, an epoch
//! switch, a frame that played script entries other than Horner records and exact float
//! loads, heap reloads, every frame of the general path). In forward play it turns the
//! straight path on and fixes which exact groups play (the tracks whose Horner check failed)
//! and the step count `due` at which anything besides the per-frame passes happens: the next
//! script frame, epoch start or heap reload, whichever comes first.
//!
//! - A straight `advance` is the exact groups' additions (small groups inline), the side
//!   list's (channels of Horner tracks off their lanes: before their first key, past their
//!   last), and one comparison with `due`. The frame that reaches it, unless a heap reload is
//!   due or the script frame holds entries that end a chain or move channels on or off the
//!   side list, is played here in the general path's order: at an epoch start the switch to
//!   the new block and a new plan (which locates it), then the script frame's records, then
//!   its other entries (loads of exact float lanes, `apply_entry`); what the script frame
//!   holds is read from its [`FrameInfo`], computed once. Otherwise the general piece changes
//!   (epoch switch, script, heap) and a new plan. When the plan found the records `lean`
//!   (every track on its script, the side list empty) they are stored by
//!   [`Bank::lean_records`]: per f32 or i32 group one tight loop into the live block's part
//!   (the plan located the f32 ones; `Records::store_chunked`, ~10 instructions a cubic
//!   record, or for a cubic group on AVX2 `Records::store_cubic`, ~7: one 128-bit load and
//!   four stores a record, four records a step), instead of `play_hot`'s lookups and
//!   per-record callback; a bank of one cubic f32 group stores its records without the walk
//!   over the lists; at an epoch start the
//!   f32 records the new block already holds ([`FrameInfo::held`]) are not stored again, and
//!   the i32 ones come from lists without them (`fixed32::LeanRecords`, chosen record by
//!   record in `Bank::new`).
//!   A frame before `due_other` (no epoch start, no heap reload) whose script frame is
//!   plain is decided by one test: its lean records and loads, then the next `due`.
//!   Advanced by `Bank::advance_write_f32` in a bank that is one cubic f32 or i32 group large
//!   enough (`HornerGroup::fuses`, `IntLanes::fuses`), the records are not stored here: the
//!   frame's script index waits in [`FusedRecords`] and [`Bank::write_fused`] stores them in
//!   its pass over the lanes.
//! - A straight `write_f32` of a bank that is one Horner group and nothing else (no exact
//!   group plays, empty side list, nothing to normalize: [`Only`], found by the plan) is
//!   that group's sweep alone (~30 instructions a frame less at 1 000 channels, session 15).
//!   Otherwise it is the Horner pass per group straight into the caller's row (a
//!   group whose lanes are one run of channels from its first slot by `sweep`'s counted
//!   loop, one call), the i32 lanes (likewise, one run from slot 0 by `IntLanes::sweep`),
//!   then the exact groups (alone, when no fixed group plays
//!   and the side list is empty) or the exact groups and side list, and the normalize runs
//!   only when the bank has them.
//!
//! The values are the general path's bit for bit: the same operations in the same order
//! (the side list's additions come before the epoch switch instead of after; neither reads
//! what the other writes), only the tests are hoisted. Small exact groups (up to `BLOCK`
//! lanes) add lane by lane, every order at once ([`advance_small`]), on either path.

use super::horner::HotScript;
use super::horner::CHUNK;
use super::{bits, Bank, Group, Lane, Script, BLOCK, MAX_TERMS, SLOW};
use alloc::vec::Vec;

/// What the straight frames do until the next state change (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Straight {
    /// The next `advance` and `write_f32` take the straight path.
    pub(super) on: bool,
    /// The bank's `base`, an integer frame (the current frame is `origin + steps`).
    origin: i64,
    /// The step count at which the rest of the frame is due (`straight_due`).
    due: u64,
    /// The step count of the next epoch start or heap reload.
    due_other: u64,
    /// The exact groups that play (a bit per group: tracks without Horner or i32 lanes).
    floats: u32,
    fixed: u32,
    /// The due script frames' records (f32 and i32) are of tracks all on their script, with
    /// no channel on the side list: [`Bank::lean_records`] plays them.
    lean: bool,
    /// Each f32 group's part of the live epoch block: its first chunk in
    /// `EpochBlocks::values` and its chunk count (0: no live block, the group's own arrays).
    block: [(usize, usize); MAX_TERMS],
    /// Every f32 group is one run of channels from its first slot and not fused
    /// (`quat_lanes`): [`Bank::sweep_groups`] writes them.
    swept: bool,
    /// The bank's whole straight `write_f32` is one group's sweep (see [`Only`]).
    only: Only,
}

/// The records a straight frame leaves to its write (`Bank::advance_write_f32`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct FusedRecords {
    /// The frame being advanced is written next by `advance_write_f32`.
    pub(super) asked: bool,
    /// The script frame whose records are not stored yet, and the degree of the group whose
    /// records they are (the f32 group, or the i32 group of `Only::I32`).
    pub(super) due: Option<(usize, usize)>,
}

/// A straight frame that writes one Horner group's run and nothing else (no exact group plays,
/// the side list is empty, nothing to normalize): `write_straight` sweeps it without walking
/// the other kinds of lanes (~100 instructions a frame at 1 000 channels).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Only {
    /// Anything else: the general straight write.
    #[default]
    No,
    /// f32 group `d`, one run from its first slot, not fused nor normalized by list.
    F32(usize),
    /// i32 group `d`, one run of channels from slot 0.
    I32(usize),
}

impl Bank<'_> {
    /// Decides the straight frames from the current state (see the module docs).
    pub(super) fn plan(&mut self) {
        self.straight.on = false;
        if !self.scripted {
            return;
        }
        // `scripted`: `base` is an integer of magnitude below 2^52.
        let origin = self.base as i64;
        let frame = origin.saturating_add(i64::try_from(self.steps).unwrap_or(i64::MAX));
        let epoch = frame.div_euclid(super::horner::EPOCH).saturating_add(1) * super::horner::EPOCH;
        let steps_to = |f: i64| u64::try_from(f.saturating_sub(origin)).unwrap_or(0);
        let script = self
            .script
            .frames
            .get(self.cursor)
            .map_or(u64::MAX, |&f| steps_to(f as i64));
        let heap = self.heap.peek().map_or(u64::MAX, |r| (r.0).0);
        let first = (1u32 << MAX_TERMS) - 1;
        let due_other = steps_to(epoch).min(heap);
        let mut block = [(0, 0); MAX_TERMS];
        if let Some(live) = self.live {
            let blocks = &self.script.blocks;
            for d in bits(self.used.horner) {
                if let Some(b) = block.get_mut(d) {
                    *b = blocks
                        .floats
                        .group_at(blocks.played(live), d)
                        .unwrap_or((0, 0));
                }
            }
        }
        let alone = self.used.floats & first == 0
            && self.used.fixed & first == 0
            && self.side.is_empty()
            && self.normalized.is_empty();
        let only = match (self.used.horner, self.used.fixed32) {
            (h, 0) if alone && h.count_ones() == 1 && h & self.fused.groups() == 0 => {
                let d = h.trailing_zeros() as usize;
                let runs = self.horner.get(d).map(|g| g.runs.as_slice());
                let listed = !self.listed.0.is_empty();
                if matches!(runs, Some([(0, _, _)])) && !listed {
                    Only::F32(d)
                } else {
                    Only::No
                }
            }
            (0, i) if alone && i.count_ones() == 1 => {
                let d = i.trailing_zeros() as usize;
                let runs = self.fixed32.get(d).map(|g| g.runs.as_slice());
                if matches!(runs, Some([(0, _, _)])) {
                    Only::I32(d)
                } else {
                    Only::No
                }
            }
            _ => Only::No,
        };
        self.straight = Straight {
            on: true,
            only,
            origin,
            due: due_other.min(script),
            due_other,
            floats: self.used.floats & first,
            fixed: self.used.fixed & first,
            lean: self.side.is_empty() && self.all_on_script && self.live.is_some(),
            block,
            swept: self.used.horner & self.fused.groups() == 0
                && bits(self.used.horner).all(|d| {
                    let runs = self.horner.get(d).map(|g| g.runs.as_slice());
                    matches!(runs, Some([(0, _, _)]))
                }),
        };
    }

    /// Group `d`'s part of the live epoch block, as the plan located it (`None`: no live block,
    /// the group plays its own arrays).
    pub(super) fn located_block(&self, d: usize) -> Option<&[[f32; CHUNK]]> {
        let (at, n) = self.straight.block.get(d).copied().unwrap_or((0, 0));
        self.script
            .blocks
            .floats
            .values
            .get(at..at + n)
            .filter(|_| n > 0)
    }

    /// The f32 and i32 records of script frame `i` of the lists whose bit is in `mask` (see
    /// `Script::hot_used`) into the live block, when the plan found them `lean` (the same
    /// stores as `play_hot`, without its per-frame lookups and tests).
    #[inline(always)]
    fn lean_records(&mut self, i: usize, mask: u32) {
        let Self {
            script:
                Script {
                    hot,
                    lean32,
                    hot_used,
                    hot_sorted,
                    blocks,
                    ..
                },
            straight,
            live,
            fused_records,
            fixed32,
            horner,
            listed,
            ..
        } = self;
        let used = hot_used.get(i).copied().unwrap_or(0) & mask;
        if let Only::F32(3) = straight.only {
            // One cubic group (the common bank): its records, if the frame has any, without
            // the walk over the lists; or left to the write's pass.
            if used == 1 << 3 {
                let sorted = hot_sorted.get(3).copied().unwrap_or(false);
                if fused_records.asked && horner.get(3).is_some_and(|g| g.fuses(sorted)) {
                    fused_records.due = Some((i, 3));
                    return;
                }
                if let (Some(hot), Some(&(at, n))) = (hot.get(3), straight.block.get(3)) {
                    if let Some(chunks) = blocks.floats.values.get_mut(at..at + n) {
                        hot.store_cubic(i, chunks.as_flattened_mut());
                    }
                }
                return;
            }
        }
        for d in bits(used & ((1 << MAX_TERMS) - 1)) {
            let sorted = hot_sorted.get(d).copied().unwrap_or(false);
            if fused_records.asked
                && d == 3
                && (straight.only == Only::F32(3) || (straight.swept && listed.0.is_empty()))
                && horner
                    .get(3)
                    .is_some_and(|g| g.fuses(sorted) && matches!(g.runs.as_slice(), [(0, _, _)]))
            {
                fused_records.due = Some((i, 3));
                continue;
            }
            let (Some(hot), Some(&(at, n))) = (hot.get(d), straight.block.get(d)) else {
                continue;
            };
            if let Some(chunks) = blocks.floats.values.get_mut(at..at + n) {
                if d == 3 {
                    hot.store_cubic(i, chunks.as_flattened_mut());
                } else {
                    hot.store_chunked(i, d + 1, chunks.as_flattened_mut());
                }
            }
        }
        // The i32 groups' parts located here (a few instructions; the plan keeps only the f32
        // ones, whose copy at every plan costs more in an f32 bank than this in a fixed one);
        // their lean lists leave out the records an epoch's block already holds.
        for d in bits(used >> MAX_TERMS) {
            if fused_records.asked
                && straight.only == Only::I32(d)
                && fixed32.get(d).is_some_and(|g| g.fuses())
            {
                fused_records.due = Some((i, d));
                continue;
            }
            let chunks = live.and_then(|e| blocks.ints.group_mut(e, d));
            if let (Some(lean), Some(chunks)) = (lean32.get(d), chunks) {
                lean.store(i, d + 1, chunks.as_flattened_mut());
            }
        }
    }

    /// A straight `advance`: the exact groups' additions, and the general rest of the frame
    /// only when something is due.
    #[inline]
    pub(super) fn advance_straight(&mut self) {
        self.steps = self.steps.saturating_add(1);
        let Straight { floats, fixed, .. } = self.straight;
        for g in bits(floats) {
            if let Some(group) = self.floats.get_mut(g) {
                advance_group(group);
            }
        }
        for g in bits(fixed) {
            if let Some(group) = self.fixed.get_mut(g) {
                advance_group(group);
            }
        }
        self.advance_side();
        if self.steps >= self.straight.due {
            self.straight_due();
        }
    }

    /// The rest of a straight frame at `due`, in the general path's order: the epoch switch
    /// (and a new plan, which locates the new block), the script frame's records (inline;
    /// f32 records the new epoch's block already holds are skipped when the records are
    /// `lean`, [`FrameInfo::held`]) and its other entries when they only load exact float
    /// lanes; anything else (a heap reload, entries that end a chain or move channels on or off
    /// the side list) through the general `piece_changes` and a new plan.
    fn straight_due(&mut self) {
        let frame = self.straight.origin + self.steps as i64;
        let i = self.cursor;
        if self.steps < self.straight.due_other && self.straight.lean {
            // Before `due_other` neither an epoch starts nor a heap reload is due: a script
            // frame of plain entries is its lean records and loads alone (what the rest of
            // this function does then, without deciding it again).
            let info = self.script.infos.get(i).copied();
            if let Some(info) = info.filter(|f| f.frame == frame && f.plain) {
                self.cursor += 1;
                self.lean_records(i, u32::MAX);
                for o in info.others.0 as usize..info.others.1 as usize {
                    if let Some(&e) = self.script.others.get(o) {
                        self.apply_entry(e as usize);
                    }
                }
                let next = self.script.infos.get(self.cursor).map(|f| f.frame);
                let steps = next.map_or(u64::MAX, |f| (f - self.straight.origin) as u64);
                self.straight.due = self.straight.due_other.min(steps);
                return;
            }
        }
        let info = self
            .script
            .infos
            .get(i)
            .copied()
            .filter(|f| f.frame == frame);
        let epoch = frame.rem_euclid(super::horner::EPOCH) == 0;
        let heap = self.heap.peek().is_some_and(|r| (r.0).0 <= self.steps);
        let general = info.map_or(!epoch, |f| !f.plain);
        if heap || general {
            self.piece_changes();
            self.plan();
            return;
        }
        if epoch {
            self.next_epoch();
            self.plan();
        }
        if let Some(info) = info {
            self.cursor += 1;
            if self.straight.lean {
                let held = epoch && info.held;
                self.lean_records(
                    i,
                    if held {
                        u32::MAX << MAX_TERMS
                    } else {
                        u32::MAX
                    },
                );
            } else {
                self.play_hot(i, u32::MAX);
            }
            for o in info.others.0 as usize..info.others.1 as usize {
                if let Some(&e) = self.script.others.get(o) {
                    self.apply_entry(e as usize);
                }
            }
        }
        let next = self.script.infos.get(self.cursor).map(|f| f.frame);
        let steps = next.map_or(u64::MAX, |f| (f - self.straight.origin) as u64);
        self.straight.due = self.straight.due_other.min(steps);
    }

    /// A straight `write_f32` into `out` (at least `channels()` long): the Horner lanes group by
    /// group, the i32 lanes, then the exact groups and the normalize runs when there are any.
    pub(super) fn write_straight(&self, out: &mut [f32]) {
        self.write_straight_but(out, None);
    }

    /// [`Self::write_straight`] without the f32 group `done` (its run already written,
    /// `write_fused`) in the general case.
    fn write_straight_but(&self, out: &mut [f32], done: Option<usize>) {
        let frame = self.straight.origin + self.steps as i64;
        match self.straight.only {
            Only::F32(d) => {
                // What `sweep_groups` writes of this one group (nothing else plays).
                if let Some(g) = self.horner.get(d) {
                    if let [(0, first, n)] = *g.runs.as_slice() {
                        if let Some(dst) = out.get_mut(first..first + n) {
                            g.sweep(self.located_block(d), (frame - self.centre) as f32, dst);
                        }
                    }
                }
                return;
            }
            Only::I32(d) => {
                // What `sweep_fixed32` writes of this one group (nothing else plays).
                if let Some(g) = self.fixed32.get(d) {
                    if let [(0, first, n)] = *g.runs.as_slice() {
                        let block = self.live.and_then(|i| self.script.blocks.ints.group(i, d));
                        let u = (frame - self.centre) as i32;
                        match out.get_mut(first..first + n) {
                            Some(dst) => g.sweep(block, u, dst),
                            None => g.write_f32(block, u, out),
                        }
                    }
                }
                return;
            }
            Only::No => {}
        }
        let t = (frame - self.centre) as f32;
        let listed = if self.straight.swept {
            self.sweep_groups(t, out, done)
        } else {
            self.write_horner_f32(t, out, true);
            false
        };
        if self.used.fixed32 != 0 {
            // `t` as an integer, without the float's round trip.
            self.sweep_fixed32((frame - self.centre) as i32, out);
        }
        if self.straight.fixed == 0 && self.side.is_empty() {
            self.write_exact_floats(out);
        } else {
            // `out` fits: checked by `write_f32`.
            let _ = self.write_with(out, |x| x as f32, |i, s| (i as f64 * s) as f32);
        }
        if !self.normalized.is_empty() {
            self.normalize_f32(out, listed);
        }
    }
}

impl Bank<'_> {
    /// The straight write of a bank whose group of degree `d` (the bank's one group, `Only`, or
    /// its swept cubic f32 group) had its records of script frame `i` left to it: stored part by part in its pass
    /// (`HornerGroup::sweep_records`, `IntLanes::sweep_records`), the values of
    /// `lean_records` then `write_straight`.
    pub(super) fn write_fused(&mut self, (i, d): (usize, usize), out: &mut [f32]) {
        let frame = self.straight.origin + self.steps as i64;
        let u = (frame - self.centre) as i32;
        let only = self.straight.only;
        if only == Only::F32(d) || only == Only::No {
            let (g, hot) = (self.horner.get(d), self.script.hot.get(d));
            let &(at, count) = self.straight.block.get(d).unwrap_or(&(0, 0));
            if let (Some(g), Some(hot)) = (g, hot) {
                if let [(0, first, n)] = *g.runs.as_slice() {
                    let block = self.script.blocks.floats.values.get_mut(at..at + count);
                    let block = block.filter(|_| count > 0);
                    if let (Some(block), Some(dst)) = (block, out.get_mut(first..first + n)) {
                        let _ = g.sweep_records(block, hot, i, u as f32, dst);
                        if only == Only::No {
                            // The rest of the straight write, this group's run written.
                            self.write_straight_but(out, Some(d));
                        }
                        return;
                    }
                }
            }
        }
        if only == Only::I32(d) {
            let (g, lean) = (self.fixed32.get(d), self.script.lean32.get(d));
            if let (Some(g), Some(lean)) = (g, lean) {
                if let [(0, first, n)] = *g.runs.as_slice() {
                    let block = self
                        .live
                        .and_then(|e| self.script.blocks.ints.group_mut(e, d));
                    if let (Some(block), Some(dst)) = (block, out.get_mut(first..first + n)) {
                        let _ = g.sweep_records(block, lean, i, u, dst);
                        return;
                    }
                }
            }
        }
        self.lean_records(i, u32::MAX);
        self.write_straight(out);
    }

    /// A straight frame's exact float groups (`Straight::floats`) into `out`, rounded to f32:
    /// what `write_with` writes when no fixed group plays and the side list is empty, without
    /// its walk over the fixed groups and the side list.
    #[inline]
    fn write_exact_floats(&self, out: &mut [f32]) {
        for g in bits(self.straight.floats) {
            let Some(group) = self.floats.get(g) else {
                continue;
            };
            let values = group.values();
            if let Some(c0) = group.consecutive {
                if let Some(dst) = out.get_mut(c0..c0 + values.len()) {
                    for (o, v) in dst.iter_mut().zip(values) {
                        *o = *v as f32;
                    }
                }
                continue;
            }
            for (&c, v) in group.channel.iter().zip(values) {
                if let Some(o) = out.get_mut(c as usize) {
                    *o = *v as f32;
                }
            }
        }
    }

    /// A straight frame's f32 groups when the plan found them `swept`: each group's one run
    /// from its part of the live block at `t` straight into `out` (`HornerGroup::sweep`), the
    /// values `write_horner_f32` writes. With one group, quaternions to normalize by list
    /// (`interleaved`) and no channel on the side list, the group is swept in blocks, each
    /// block's quaternions normalized while it is in L1 (`interleaved::sweep_normalized`):
    /// then returns `true` (the list is done).
    #[inline]
    fn sweep_groups(&self, t: f32, out: &mut [f32], done: Option<usize>) -> bool {
        let list = self.listed.0.as_slice();
        let blocked =
            !list.is_empty() && self.side.is_empty() && self.used.horner.count_ones() == 1;
        for d in bits(self.used.horner).filter(|&d| Some(d) != done) {
            let Some(g) = self.horner.get(d) else {
                continue;
            };
            if let [(0, first, n)] = *g.runs.as_slice() {
                if blocked {
                    let run = (first, n);
                    super::interleaved::sweep_normalized(
                        g,
                        self.located_block(d),
                        t,
                        run,
                        out,
                        list,
                    );
                } else if let Some(dst) = out.get_mut(first..first + n) {
                    g.sweep(self.located_block(d), t, dst);
                }
            }
        }
        blocked
    }
}

/// What the straight frame reads of one script frame, computed once by [`frame_infos`].
#[derive(Debug, Clone, Copy)]
pub(super) struct FrameInfo {
    /// The script frame (`Script::frames`, an integer).
    frame: i64,
    /// Where its entries other than records lie in `Script::others`.
    others: (u32, u32),
    /// It is an epoch's first frame whose f32 records (every one, of every group) store, bit
    /// for bit, what that epoch's block holds where they store it as built
    /// (`EpochBlocks::fill` computes a piece's coefficients about the epoch's centre as
    /// `to_power_coefficients` computes the record's, so they agree wherever a piece starts on
    /// an epoch boundary). Forward play enters an epoch's block at its first frame unpatched
    /// (`live`), so there the straight frame skips those records when they are `lean` (no
    /// channel to take off the side list).
    held: bool,
    /// Its other entries only load exact float lanes (`apply_entry` of a float track played
    /// exactly, not a chain's end): they change nothing a plan decided.
    plain: bool,
}

/// [`FrameInfo`] of every script frame of `script`.
pub(super) fn frame_infos(script: &Script) -> Vec<FrameInfo> {
    let blocks = &script.blocks;
    let at = |i: usize| script.frame_start.get(i).copied().unwrap_or(0);
    let frames = script.frames.iter().enumerate();
    frames
        .map(|(i, &f)| {
            let frame = f as i64;
            let block = blocks.index(frame);
            let block = block.filter(|_| frame.rem_euclid(super::horner::EPOCH) == 0);
            let held = block.is_some_and(|b| {
                let mut groups = script.hot.iter().enumerate();
                groups.all(|(d, hot)| records_held(hot, i, d + 1, blocks.group(b, d)))
            });
            let others = (at(i), at(i + 1));
            let list = script.others.get(others.0 as usize..others.1 as usize);
            let plain = list.unwrap_or(&[]).iter().all(|&e| {
                let e = script.entries.get(e as usize);
                e.is_some_and(|e| e.kind != SLOW && !e.place.fast && !e.place.fixed)
            });
            FrameInfo {
                frame,
                others,
                held,
                plain,
            }
        })
        .collect()
}

/// Whether every record of script frame `i` in `hot` (`terms` orders each) stores what
/// `group` (a group's part of a block) holds at its position.
fn records_held(hot: &HotScript, i: usize, terms: usize, group: Option<&[[f32; CHUNK]]>) -> bool {
    let (from, to) = hot.range(i);
    if from == to {
        return true;
    }
    let Some(values) = group.map(<[[f32; CHUNK]]>::as_flattened) else {
        return false;
    };
    (from..to).all(|r| {
        let at = hot.slots().get(r).map_or(usize::MAX, |&p| p as usize);
        (0..terms).all(|k| {
            let held = values
                .get(at.saturating_add(k * CHUNK))
                .map(|v| v.to_bits());
            held.is_some() && held == hot.coef.get(r * terms + k).map(|c| c.to_bits())
        })
    })
}

/// One frame of an exact group: [`advance_small`] inline for a group of at most `BLOCK` lanes
/// (the few tracks whose Horner check failed), [`Group::advance`] otherwise — the same additions.
#[inline(always)]
fn advance_group<T: Lane>(group: &mut Group<T>) {
    if group.len <= BLOCK {
        // Inline here (the straight frame's exact groups: ~20 instructions of call a frame).
        lanes_by_degree(&mut group.state, group.len, group.degree);
    } else {
        Group::advance(group);
    }
}

/// One frame of a small exact group (`degree + 1` order-major arrays of `len` lanes in
/// `state`): per lane, `W_k += W_{k+1}` for `k` in `0..degree`, ascending — the additions of
/// the order-by-order passes, in the same order (each `W_{k+1}` is read before its own
/// update), so the same values bit for bit, in one loop instead of `degree` (a group of a few
/// lanes spent ~45 instructions an order on slicing). `state` shorter than its orders (a
/// broken invariant of the groups) is left alone.
#[inline]
pub(super) fn advance_small<T: Lane>(state: &mut [T], len: usize, degree: usize) {
    lanes_by_degree(state, len, degree);
}

/// [`advance_small`], always inline.
#[inline(always)]
fn lanes_by_degree<T: Lane>(state: &mut [T], len: usize, degree: usize) {
    match degree {
        1 => lanes_by_lane::<T, 2>(state, len),
        2 => lanes_by_lane::<T, 3>(state, len),
        3 => lanes_by_lane::<T, 4>(state, len),
        4 => lanes_by_lane::<T, 5>(state, len),
        5 => lanes_by_lane::<T, 6>(state, len),
        6 => lanes_by_lane::<T, 7>(state, len),
        7 => lanes_by_lane::<T, 8>(state, len),
        8 => lanes_by_lane::<T, 9>(state, len),
        _ => {}
    }
}

/// [`advance_small`] for `N` orders.
#[inline(always)]
fn lanes_by_lane<T: Lane, const N: usize>(state: &mut [T], len: usize) {
    let Some(state) = N.checked_mul(len).and_then(|all| state.get_mut(..all)) else {
        debug_assert!(false, "group state shorter than its orders");
        return;
    };
    let mut orders: [&mut [T]; N] = core::array::from_fn(|_| <&mut [T]>::default());
    let mut rest = state;
    for order in &mut orders {
        let (head, tail) = core::mem::take(&mut rest).split_at_mut(len);
        *order = head;
        rest = tail;
    }
    // One lane index into `N` slices at once (an iterator would borrow one of them).
    #[allow(clippy::needless_range_loop)]
    for i in 0..len {
        for k in 0..N - 1 {
            let next = orders[k + 1][i];
            orders[k][i] = T::add(orders[k][i], next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::advance_small;
    use alloc::vec::Vec;

    /// The order-by-order passes `advance_small` replaces: `W_k += W_{k+1}` over every lane,
    /// `k` ascending (what `Group::advance` does for groups above `BLOCK` lanes).
    fn by_orders(state: &mut [f64], len: usize, degree: usize) {
        for k in 0..degree {
            for i in 0..len {
                state[k * len + i] += state[(k + 1) * len + i];
            }
        }
    }

    /// Values of every magnitude, so that a different order of additions would round
    /// differently.
    fn state(len: usize, degree: usize, seed: u64) -> Vec<f64> {
        let mut x = seed;
        (0..(degree + 1) * len)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let mantissa = (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                mantissa * 2f64.powi((x % 40) as i32 - 20)
            })
            .collect()
    }

    #[test]
    fn lane_by_lane_frames_equal_order_by_order_passes_bit_for_bit() {
        for degree in 1..=8 {
            for len in [1, 2, 3, 4, 5, 7, 9, 33] {
                let mut a = state(len, degree, (degree * 100 + len) as u64);
                let mut b = a.clone();
                for frame in 0..20 {
                    advance_small(&mut a, len, degree);
                    by_orders(&mut b, len, degree);
                    let same = a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits());
                    assert!(same, "degree {degree}, {len} lanes, frame {frame}");
                }
            }
        }
    }

    #[test]
    fn lane_by_lane_integer_frames_wrap_like_the_passes() {
        // Degree 2, two lanes: W0 += W1, then W1 += W2, per lane; i64::MAX wraps.
        let mut s = [i64::MAX, 5, 1, -3, 7, 11];
        advance_small(&mut s, 2, 2);
        assert_eq!(s, [i64::MIN, 2, 8, 8, 7, 11]);
    }
}
