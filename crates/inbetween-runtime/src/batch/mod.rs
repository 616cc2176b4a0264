//! Batch playback: a bank of many compiled tracks played together in structure-of-arrays lanes — f32 Horner lanes (float tracks) and i32 Newton lanes (fixed tracks, `fixed32`) for forward play, the exact forward-difference lanes of `TrackPlayer` for everything else — with piece changes taken off the common path by a time-ordered reload schedule.
//!
//! # Two ways of playing
//!
//! - **Horner lanes** (forward play: step 1 from an integer frame, the common case). Every float
//!   track (`F32` or `F64`) whose pieces pass the check below is played by f32 Horner
//!   evaluation of its pieces converted at [`Bank::new`] to power coefficients about a centre
//!   shared by all lanes and moved every `horner::EPOCH` (16) frames (see `horner`). A frame reads
//!   `4 (D + 1)` bytes per lane of maximum degree `D` (16 for a cubic) and writes the f32 value
//!   straight into the caller's row in `write_f32`; `advance` only plays the script. The
//!   coefficients are read in place from a block precomputed for each epoch (see `live`: a new
//!   epoch is a new block index, no copy; the script's records patch the block being played and
//!   a seek puts the blocks back). Lanes are grouped by `D`, in channel order, in chunks of 8
//!   lanes (`horner::CHUNK`, one AVX2 vector; a scattered group's tracks may move up to the
//!   next degree's group, zero-padded, so an interleaved row is written in long runs:
//!   `interleaved`) holding their `D + 1` orders one after the other
//!   (`horner::chunked_index`: the frame loop walks one array, four chunks a step; a lane's
//!   numbers lie within `32 (D + 1)` bytes, so a piece change dirties two cache lines of a
//!   cubic's block, the blocks being stored on 64-byte lines, `horner::Chunks`), so a linear
//!   lane reads 8 bytes and a one-stream bank's output is contiguous. A group whose float tracks are all
//!   quaternions with the normalize flag is evaluated and normalized in one pass (`quat_lanes`:
//!   two quaternions a 256-bit register, written once; with fused multiply-adds where the CPU
//!   has AVX and FMA, and then checked in that arithmetic); other flagged tracks are
//!   normalized in a second pass over the row (`normalize`; on f32 lanes by a list of their
//!   channels, block by block while the row is in L1 when one group writes it: `interleaved`).
//!   Fixed tracks (`clamp` wrap) play the same way on i32 lanes (`fixed32`): integer
//!   forward differences at the epoch's centre in units of `2^-E` per chunk of 32 lanes
//!   (`fixed32::shared`), played as `Σ_k d_k · C(u, k)` by wrapping i32 products and sums, one
//!   exact conversion to the output — integer arithmetic only, checked the same way. They are chunked like the f32 lanes, in chunks of
//!   their own width (`horner::INT_CHUNK`, 32 lanes: at 8 the compiler leaves their kernel
//!   scalar), and read in place from the same epoch blocks, patched by their own records
//!   (`live`); one chunk walk (`pass`, generic over the width) serves both kinds of lanes.
//! - **Exact lanes**: channels are grouped by the lane type their track plays in (f64 for `F32`
//!   and `F64` tracks, exactly as `TrackPlayer` plays them; i64 for `Fixed` tracks) and by `D`.
//!   A group holds `D + 1` contiguous arrays, one per difference order; one frame is, per group,
//!   `D` vectorizable passes `W_k += W_{k+1}`, in blocks that stay in L1. These play fixed
//!   tracks always, float tracks whose Horner check failed always, and every track whenever the
//!   bank is not in forward play (fractional frames, any other step or rate, backward), and a
//!   Horner track's channels outside its keys (before the first key, past the last, wrap folds).
//!
//! # What is guaranteed
//!
//! - Exact lanes equal `TrackPlayer::value` bit for bit (`write_f64`; `write_f32` gives it
//!   rounded to f32), float and fixed channels alike.
//! - Horner lanes, at every integer frame of forward play from any integer seek: `write_f64`
//!   gives a value within `tolerance − max_error` of `TrackPlayer`'s, hence within the stream's
//!   tolerance of exact evaluation (the compiler measured `max_error` for `TrackPlayer`); the
//!   f32 values of `write_f32` are within that plus half an ulp of the value written (what
//!   rounding any within-tolerance value to f32 gives). i32 lanes (fixed tracks) promise the
//!   same: their `write_f64` is the exact value `v · 2^-E` the check measured, their
//!   `write_f32` that value rounded once. This is *checked in `Bank::new` in the
//!   arithmetic that plays it*: for every piece of every component, at every integer frame of
//!   its forward run, the f32 Horner value (the very coefficients forward play loads there, which
//!   depend only on the piece and the frame) against `TrackPlayer`'s f64 additions; a track with
//!   any frame outside plays on exact lanes. Where an f32 value holds the budget only as an f32
//!   output, `write_f64` gives the f64 Horner value of the same piece, checked the same way.
//!   [`Bank::exact`] builds a bank without Horner lanes.
//!
//! # Piece changes
//!
//! The per-frame loop never checks a channel. Piece changes come from two schedules:
//!
//! - the **script**, built once by [`Bank::new`]: for every track, the integer frames at which
//!   forward play (step 1, from an integer frame) enters a new piece, with the state to load
//!   (Horner tracks: the power coefficients and their f32 form about the entry's centre), all
//!   tracks merged in frame order. Playing forward reads it sequentially (time-major), which is
//!   what makes reloads cheap at scale (measured before the project: 0.47 vs 4.3 ns per
//!   channel-frame at 100 000 channels against per-channel reload checks).
//! - a **heap** of (step, track) for everything else: fractional seeks, rate ≠ 1, backward play,
//!   frames at or past a track's last frame and every wrap fold (loop, ping-pong, clamp). These
//!   reloads are computed by `TrackPlayer`'s own logic (`O(log pieces + degree²)`, or `degree³`
//!   at rate ≠ 1), so they are slower but identical to it. In forward play a Horner track's
//!   channels off its script go to a per-channel side list (f64 additions).
//!
//! # The straight frame
//!
//! Forward play at step 1 from an integer frame takes one lean path (`straight`): what it does
//! — which exact groups play, the step of the next script frame, epoch start or heap reload —
//! is decided when the state changes (a seek, a step change, a frame with script entries other
//! than Horner records and exact float loads, an epoch switch, a heap reload), not tested per
//! frame. A frame is then the exact groups' and side list's additions, the script frame's
//! records and exact float loads when one is due, and at an epoch start the switch to the
//! next block (inline; while every track is on its script, no channel is on the side list and there are
//! no i32 lanes, by one tight loop per group into the live block, whose place the plan
//! computed), and in `write_f32` the Horner pass per group into the caller's row; the values
//! are the general path's bit for bit.
//!
//! # Allocation
//!
//! `Bank::new` allocates (lanes, script, epoch blocks and the records' undo numbers, schedule);
//! `seek` and `set_step` do not allocate (capacities are reserved up front; they write back the
//! blocks forward play patched, `O(records played)`), and `advance` / `write_f32` / `write_f64`
//! never do.

mod fixed32;
mod horner;
mod interleaved;
mod live;
mod normalize;
mod pass;
mod quat_lanes;
mod records;
mod straight;
mod sweep;

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;

use fixed32::{IntLanes, IntScript};
use horner::{HornerGroup, HotScript, WideLane};

use crate::player::{PlayerError, RawState, TrackPlayer};
use crate::stream::layout::{MAX_DEGREE, MAX_TERMS};
use crate::stream::{Precision, Stream, StreamTrack};

/// No side-list entry.
const NONE: u32 = u32::MAX;
/// Run length meaning "until the step changes or the caller seeks" (as in `TrackPlayer`).
const FOREVER: u64 = u64::MAX;
/// Lanes per block of the per-frame loop: `(D + 1)` blocks of 4 KiB stay in L1.
const BLOCK: usize = 512;
/// Script entry kind: hand the track over to the heap (computed by `TrackPlayer`).
const SLOW: u8 = u8::MAX;
/// Longest piece run (frames) `Bank::new` checks for Horner lanes; a track with a longer one is
/// played exactly (the check visits every frame: this bounds its cost on hostile streams).
const MAX_CHECKED_RUN: i64 = 1 << 20;
/// Largest integer frame the script handles exactly (2^52).
const MAX_SCRIPT_FRAME: f64 = 4_503_599_627_370_496.0;

/// Why a bank cannot be built or a request is refused.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum BatchError {
    /// More channels (or tracks) than the bank indexes with 32 bits.
    #[error("the bank would hold {channels} channels; at most {max} are supported")]
    TooManyChannels {
        /// Channels asked for.
        channels: usize,
        /// The limit.
        max: usize,
    },
    /// A frame or step the player refuses (NaN, infinite, or a zero step).
    #[error(transparent)]
    Player(#[from] PlayerError),
    /// `write_f32` / `write_f64` with a buffer shorter than `channels()`.
    #[error("the output buffer holds {found} values but the bank has {needed} channels")]
    BufferTooSmall {
        /// `channels()`.
        needed: usize,
        /// The buffer's length.
        found: usize,
    },
}

/// A lane type: how two differences are added.
trait Lane: Copy + Default {
    /// `a[i] += b[i]` over the common length.
    fn add_slice(a: &mut [Self], b: &[Self]);
    /// `a + b` (as `add_slice` adds).
    fn add(a: Self, b: Self) -> Self;
}

impl Lane for f64 {
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        a + b
    }

    #[inline]
    fn add_slice(a: &mut [Self], b: &[Self]) {
        for (x, y) in a.iter_mut().zip(b) {
            *x += *y;
        }
    }
}

impl Lane for i64 {
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        a.wrapping_add(b)
    }

    #[inline]
    fn add_slice(a: &mut [Self], b: &[Self]) {
        for (x, y) in a.iter_mut().zip(b) {
            *x = x.wrapping_add(*y);
        }
    }
}

/// Channels of one lane type and one maximum degree: `degree + 1` arrays of `len` lanes,
/// order-major (`state[k * len + slot]` is difference `k` of `slot`).
#[derive(Debug, Clone, Default)]
struct Group<T> {
    degree: usize,
    len: usize,
    state: Vec<T>,
    /// Channel of each slot.
    channel: Vec<u32>,
    /// Fixed groups: `2^-exponent` of each slot's current piece.
    scale: Vec<f64>,
    /// `Some(c0)` when slot `i` is channel `c0 + i` for every slot (output is a copy).
    consecutive: Option<usize>,
}

impl<T: Lane> Group<T> {
    /// One frame: `W_k += W_{k+1}` for k in 0..degree, block by block (a group of at most
    /// `BLOCK` lanes lane by lane, every order at once: `straight::advance_small`, the same
    /// additions in the same order).
    #[inline]
    fn advance(&mut self) {
        let (len, degree) = (self.len, self.degree);
        if degree == 0 || len == 0 {
            return;
        }
        if len <= BLOCK && degree <= MAX_DEGREE {
            straight::advance_small(&mut self.state, len, degree);
            return;
        }
        let mut start = 0;
        while start < len {
            let end = (start + BLOCK).min(len);
            for k in 0..degree {
                let (lower, upper) = self.state.split_at_mut((k + 1) * len);
                let (Some(a), Some(b)) = (
                    lower.get_mut(k * len + start..k * len + end),
                    upper.get(start..end),
                ) else {
                    // `state` holds `(degree + 1) · len` values (`group_for`).
                    debug_assert!(false, "group state shorter than its orders");
                    return;
                };
                T::add_slice(a, b);
            }
            start = end;
        }
    }

    /// One frame like [`Group::advance`], with the lanes split between rayon's threads (halves
    /// by `rayon::join` down to `PARALLEL_CHUNK` lanes; no allocation).
    #[cfg(feature = "rayon")]
    fn advance_parallel(&mut self)
    where
        T: Send + Sync,
    {
        let (len, degree) = (self.len, self.degree);
        if degree == 0 || len == 0 {
            return;
        }
        let mut orders: [&mut [T]; MAX_TERMS] = Default::default();
        let mut rest = self.state.as_mut_slice();
        for order in orders.iter_mut().take(degree + 1) {
            let (head, tail) = rest.split_at_mut(len.min(rest.len()));
            *order = head;
            rest = tail;
        }
        advance_orders(orders, degree);
    }

    /// Loads `values` (orders 0..) into `slot`, zeroing the orders it does not have.
    fn set(&mut self, slot: usize, values: &[T]) {
        for k in 0..=self.degree {
            if let Some(x) = self.state.get_mut(k * self.len + slot) {
                *x = values.get(k).copied().unwrap_or_default();
            }
        }
    }

    /// Order 0 of every slot, for output.
    fn values(&self) -> &[T] {
        self.state.get(..self.len).unwrap_or(&[])
    }
}

/// Lanes below which a parallel frame stops splitting (8 blocks: enough work per task to pay
/// for a rayon join, ~1 µs).
#[cfg(feature = "rayon")]
const PARALLEL_CHUNK: usize = 8 * BLOCK;

/// `W_k += W_{k+1}` for k in 0..degree over equal-length order slices, split in halves (at block
/// boundaries) between rayon's threads while longer than `PARALLEL_CHUNK`.
#[cfg(feature = "rayon")]
fn advance_orders<T: Lane + Send + Sync>(mut orders: [&mut [T]; MAX_TERMS], degree: usize) {
    let len = orders[0].len();
    if len <= PARALLEL_CHUNK {
        let mut start = 0;
        while start < len {
            let end = (start + BLOCK).min(len);
            for k in 0..degree {
                let (lower, upper) = orders.split_at_mut(k + 1);
                if let (Some(a), Some(b)) = (
                    lower.get_mut(k).and_then(|a| a.get_mut(start..end)),
                    upper.first().and_then(|b| b.get(start..end)),
                ) {
                    T::add_slice(a, b);
                }
            }
            start = end;
        }
        return;
    }
    let mid = (len / 2).div_ceil(BLOCK) * BLOCK;
    let mut low: [&mut [T]; MAX_TERMS] = Default::default();
    let mut high: [&mut [T]; MAX_TERMS] = Default::default();
    for ((order, lo), hi) in orders
        .iter_mut()
        .zip(low.iter_mut())
        .zip(high.iter_mut())
        .take(degree + 1)
    {
        let (a, b) = core::mem::take(order).split_at_mut(mid.min(len));
        *lo = a;
        *hi = b;
    }
    rayon::join(
        || advance_orders(low, degree),
        || advance_orders(high, degree),
    );
}

/// Where a track's channels live.
#[derive(Debug, Clone, Copy)]
struct TrackInfo<'s> {
    track: StreamTrack<'s>,
    first_channel: u32,
    components: u8,
    fixed: bool,
    /// Played by Horner lanes (f32 for float tracks, i32 for fixed ones) in forward play
    /// (every piece verified in `Bank::new`).
    fast: bool,
    /// Fixed tracks with i32 lanes: their units (`fixed32::Units`).
    exponent: fixed32::Units,
    /// The f32 values of its Horner lanes hold the budget as f64 outputs too.
    strict: bool,
    /// Group index: the track's maximum degree, plus `MAX_TERMS` for a float track with `fast`.
    group: u8,
    /// Degree of its Horner (or i32) lanes' group: its maximum degree, or for a float track
    /// a higher one when `interleaved::merge_groups` moved its lanes to that group (its
    /// pieces' power coefficients are padded with zeros to this degree, as every piece of a
    /// lower degree than its track's is; the exact groups keep the maximum degree).
    degree: u8,
    /// Slot of component 0 in its group; components follow.
    slot: u32,
    /// Float tracks: slot of component 0 in the Horner group of its maximum degree (every float
    /// track has lanes there, in channel order, so that group's output is contiguous; the lanes
    /// of tracks played exactly stay 0 and are overwritten). Fixed tracks: the same in
    /// the i32 group of their maximum degree.
    lane: u32,
}

/// A fixed channel played in floats (see the module docs).
#[derive(Debug, Clone, Copy)]
struct Side {
    channel: u32,
    degree: u8,
    state: [f64; MAX_TERMS],
}

/// The time-ordered reload schedule of forward play at step 1 (see the module docs).
#[derive(Debug, Clone, Default)]
struct Script {
    /// Distinct integer frames, increasing.
    frames: Vec<f64>,
    /// Entries of `frames[i]` played through [`Bank::apply_entry`] (every entry but the
    /// Horner records) are `others[frame_start[i]..frame_start[i + 1]]`.
    frame_start: Vec<u32>,
    others: Vec<u32>,
    /// Every entry (seeks find a track's entry here, through `by_track`).
    entries: Vec<Entry>,
    /// Per entry, the epochs after its first that it plays re-centred from the epoch before
    /// (`Pending::chained`): read by `EpochBlocks::build`, then dropped.
    chained: Vec<u64>,
    /// Numbers, entry after entry, each component-major (`components × (degree + 1)`), in
    /// `floats` for float tracks and `ints` for fixed tracks.
    floats: Vec<f64>,
    ints: Vec<i64>,
    /// Forward play's Horner piece changes, one record per lane, by group degree (the
    /// numbers of Horner entries in `floats` are power coefficients padded to the group degree).
    hot: Vec<HotScript>,
    /// Forward play's piece changes of the i32 lanes, one record per lane, by group degree.
    hot32: Vec<IntScript>,
    /// `hot32` as the straight frame stores it when lean (`fixed32::lean_records`).
    lean32: Vec<fixed32::LeanRecords>,
    /// Per Horner group, whether each frame's records in `hot` are ordered by position
    /// (`Records::frames_sorted`: the pass may store them, `HornerGroup::sweep_records`).
    hot_sorted: Vec<bool>,
    /// Per script frame, which record lists have records there: bit `d` the Horner group of
    /// degree `d`, bit `MAX_TERMS + d` the i32 group of degree `d` (so a frame visits only
    /// those).
    hot_used: Vec<u32>,
    /// Per track: whether the script holds its forward chain.
    has_track: Vec<bool>,
    /// Every Horner lane's f32 coefficients at the start of each epoch of forward play.
    blocks: EpochBlocks,
    /// Per script frame, what the straight frame reads of it (`straight::frame_infos`).
    infos: Vec<straight::FrameInfo>,
    /// The entries of track `t` are `by_track[track_start[t]..track_start[t + 1]]`, in frame order.
    by_track: Vec<u32>,
    track_start: Vec<u32>,
}

/// Every Horner lane's coefficients about the centre of each epoch its tracks' script entries
/// cover (f32 lanes: `horner::epoch_coefficients`; i32 lanes: `fixed32::quantize` of `fixed32::shifted`), as
/// forward play holds them at the epoch's first frame, the same numbers a seek computes (an
/// f32 lane may hold the epoch before's re-centred, `horner::shift_epoch`, where the check let
/// it). The i32 lanes and small f32 banks play their block in place (`live`: no copy); a large
/// f32 bank plays a working block re-centred at each switch (`live`). Lanes whose track is off
/// its chain there are 0 (their channels are written from the side list).
#[derive(Debug, Clone, Default)]
struct EpochBlocks {
    /// Epoch index (`frame.div_euclid(EPOCH)`) of the first block.
    first: i64,
    /// Blocks built (0: none, the bank has no fast lanes).
    count: usize,
    /// Per block, every f32 group's coefficient chunks, group after group.
    floats: live::Floats,
    /// Per block, every i32 group's coefficient chunks, group after group.
    ints: live::Ints,
    /// Per block, the f32 lanes forward play sets after re-centring the working block on
    /// entering it (`live::EpochBlocks::switch_work`).
    fixups: live::Fixups,
    /// The block whose epoch the working block holds the play of (`None`: none yet).
    work_holds: Option<usize>,
    /// Epoch switches so far that re-centred the working block in place, and those that
    /// read a built block (a copy into the working block, or in place; seeks included):
    /// [`Bank::epoch_switches`].
    switched: (u64, u64),
    /// Whether the f32 lanes play the working block, re-centred at each epoch switch
    /// (`Script::note_switches` decides); else they play each epoch's block in place, as the i32
    /// lanes do.
    recentre: bool,
}

impl EpochBlocks {
    fn build(
        tracks: &[TrackInfo<'_>],
        script: &Script,
        (groups, int_groups): (&[HornerGroup], &[IntLanes]),
    ) -> Self {
        let sizes = |n: &mut dyn Iterator<Item = usize>| {
            let mut sizes = [0; MAX_TERMS];
            sizes.iter_mut().zip(n).for_each(|(s, n)| *s = n);
            sizes
        };
        let floats = sizes(&mut groups.iter().map(HornerGroup::chunk_count));
        let ints = sizes(&mut int_groups.iter().map(IntLanes::chunk_count));
        let len = floats.iter().sum::<usize>() * horner::CHUNK
            + ints.iter().sum::<usize>() * horner::INT_CHUNK;
        let Some((first, count)) = Self::span(tracks, script, len) else {
            return Self::default();
        };
        let mut blocks = Self {
            first,
            count,
            floats: live::Chunks::new(floats, count, 1),
            ints: live::Chunks::new(ints, count, 0),
            fixups: live::Fixups::default(),
            work_holds: None,
            switched: (0, 0),
            recentre: false,
        };
        for (t, info) in tracks.iter().enumerate().filter(|(_, i)| i.fast) {
            let from = script.track_start.get(t).copied().unwrap_or(0) as usize;
            let to = script.track_start.get(t + 1).copied().unwrap_or(0) as usize;
            let chain = script.by_track.get(from..to).unwrap_or(&[]);
            let entries = chain.iter().filter_map(|&e| {
                let chained = script.chained.get(e as usize).copied().unwrap_or(0);
                Some((script.entries.get(e as usize)?, chained))
            });
            for ((entry, chained), (next, _)) in entries.clone().zip(entries.skip(1)) {
                if entry.kind != SLOW {
                    blocks.fill(script, info, (entry, next.frame), chained);
                }
            }
        }
        blocks
    }

    /// The blocks of the epochs that `entry` of track `info` plays in, up to frame `end` (the
    /// next entry's): each component's coefficients about each epoch's centre, in lane
    /// `info.lane + c` of its group (chunked, `horner::chunked_index`; i32 groups for fixed
    /// tracks, f32 ones otherwise).
    /// An f32 lane's coefficients in the epochs of `chained` (`Pending::chained`) are the
    /// epoch before's re-centred (`horner::shift_epoch`), as the check walked them.
    fn fill(
        &mut self,
        script: &Script,
        info: &TrackInfo<'_>,
        (entry, end): (&Entry, f64),
        chained: u64,
    ) {
        let degree = usize::from(info.degree).min(MAX_DEGREE);
        let (p, end) = (entry.frame as i64, end as i64);
        let first_epoch = p.div_euclid(horner::EPOCH);
        let mut epoch = first_epoch + 1;
        if p.rem_euclid(horner::EPOCH) == 0 {
            epoch -= 1;
        }
        // What the lane played in the epoch before (one component when `chained` is not 0):
        // the piece's first epoch when its record plays it (`Script::hot`).
        let mut previous = [0.0f32; MAX_TERMS];
        if chained != 0 && epoch > first_epoch {
            let a = Self::power_at(script, entry, 0, degree);
            let centre = horner::centre(p);
            let frames = (p, end.min(centre + horner::EPOCH / 2));
            previous = horner::epoch_coefficients(&a, degree, p, frames, centre);
        }
        while epoch * horner::EPOCH < end {
            let i = (epoch - self.first) as usize;
            let centre = epoch * horner::EPOCH + horner::EPOCH / 2;
            let d = centre as f64 - entry.frame;
            // The frames the entry plays in this epoch (`horner::epoch_coefficients`).
            let frames = (
                p.max(epoch * horner::EPOCH),
                end.min((epoch + 1) * horner::EPOCH),
            );
            for c in 0..usize::from(info.components) {
                let a = Self::power_at(script, entry, c, degree);
                let lane = info.lane as usize + c;
                if info.fixed {
                    let hot = fixed32::quantize(&fixed32::shifted(&a, degree, d), info.exponent);
                    let group = self.ints.group_mut(i, degree);
                    store_lane(group, (lane, degree), &hot);
                } else {
                    let k = epoch - first_epoch;
                    let hot = if k < 64 && chained >> k & 1 == 1 {
                        horner::shift_epoch(previous, degree)
                    } else {
                        horner::epoch_coefficients(&a, degree, p, frames, centre)
                    };
                    previous = hot;
                    store_lane(self.floats.group_mut(i, degree), (lane, degree), &hot);
                }
            }
            epoch += 1;
        }
    }

    /// Component `c`'s power coefficients of Horner entry `entry` (group degree `degree`), padded.
    fn power_at(script: &Script, entry: &Entry, c: usize, degree: usize) -> [f64; MAX_TERMS] {
        let o = entry.offset as usize + c * (degree + 1);
        let mut a = [0.0; MAX_TERMS];
        for (x, y) in a
            .iter_mut()
            .zip(script.floats.get(o..o + degree + 1).unwrap_or(&[]))
        {
            *x = *y;
        }
        a
    }

    /// The first epoch and the number of blocks: from the first fast entry to the last frame
    /// any of them plays (the end of its chain: the entry after it, a `SLOW` one at the latest).
    /// `None` when there is none, or when blocks would not pay: their size may not exceed four
    /// times what the tracks cover, plus 2^20 values (tracks far apart in time would make most
    /// blocks empty); past that the bank is built without fast lanes.
    fn span(tracks: &[TrackInfo<'_>], script: &Script, len: usize) -> Option<(i64, usize)> {
        let frames = script.entries.iter().filter(|e| e.place.fast);
        let lo = frames
            .clone()
            .filter(|e| e.kind != SLOW)
            .map(|e| e.frame as i64)
            .min()?;
        let hi = frames.map(|e| e.frame as i64).max()?;
        let first = lo.div_euclid(horner::EPOCH);
        let count = (hi.div_euclid(horner::EPOCH) - first + 1) as usize;
        let covered: usize = tracks
            .iter()
            .enumerate()
            .filter(|(_, i)| i.fast)
            .map(|(t, info)| {
                let from = script.track_start.get(t).copied().unwrap_or(0) as usize;
                let to = script.track_start.get(t + 1).copied().unwrap_or(0) as usize;
                let frame = |i: usize| {
                    let e = script.by_track.get(i).copied().unwrap_or(0) as usize;
                    script.entries.get(e).map_or(0.0, |e| e.frame)
                };
                let span = (frame(to.saturating_sub(1)) - frame(from)).max(0.0);
                let epochs = (span / horner::EPOCH as f64) as usize + 2;
                let terms = usize::from(info.degree).min(MAX_DEGREE) + 1;
                epochs.saturating_mul(terms * usize::from(info.components))
            })
            .fold(0usize, usize::saturating_add);
        (count.saturating_mul(len) <= covered.saturating_mul(4).saturating_add(1 << 20))
            .then_some((first, count))
    }
}

/// Stores orders `0..=degree` of `hot` into `lane` of a chunked group (`horner::chunked_index`).
fn store_lane<T: horner::LaneWord, const W: usize>(
    group: Option<&mut [[T; W]]>,
    (lane, degree): (usize, usize),
    hot: &[T],
) {
    let values = group.map_or(&mut [][..], |g| g.as_flattened_mut());
    for (k, &h) in hot.iter().enumerate().take(degree + 1) {
        if let Some(x) = values.get_mut(horner::chunked_index::<T>(degree + 1, lane, k)) {
            *x = h;
        }
    }
}

/// One piece change of the script: everything playing it reads but its numbers, in one place.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Integer frame it is played at (a Horner entry's origin).
    frame: f64,
    /// Fixed scale `2^-exponent` (1 for float tracks).
    scale: f64,
    /// Where its numbers start in `floats` (and `hot`) or `ints`.
    offset: u64,
    track: u32,
    /// Where the track's channels live (so that playing an entry reads only the script and the
    /// lanes).
    place: LaneSlot,
    /// The piece degree (Horner entries: the group degree), or `SLOW`.
    kind: u8,
}

/// Where a track's channels live, copied into each script entry.
#[derive(Debug, Clone, Copy)]
struct LaneSlot {
    slot: u32,
    group: u8,
    components: u8,
    fixed: bool,
    /// Numbers are power coefficients for the Horner lanes (see `horner`).
    fast: bool,
}

/// One script entry while building.
struct Pending {
    frame: f64,
    track: u32,
    kind: u8,
    scale: f64,
    floats: Vec<f64>,
    ints: Vec<i64>,
    /// Horner entries: f32 coefficients about the centre of `frame` (`horner::epoch_coefficients`, see `Script::hot`).
    hot: Vec<f32>,
    /// i32-lane entries: integer coefficients about the centre of `frame` (`Script::hot32`).
    hot_int: Vec<i32>,
    /// Horner entries of one-component float tracks: the epochs after the entry's first whose
    /// coefficients are its previous epoch's re-centred (`horner::verify_components_chained`'s
    /// mask; `Script::chained`).
    chained: u64,
}

/// Many tracks played together. See the module docs.
///
/// Starts at frame 0 with a step of one frame.
#[derive(Debug, Clone)]
pub struct Bank<'s> {
    tracks: Vec<TrackInfo<'s>>,
    channels: usize,
    floats: Vec<Group<f64>>,
    fixed: Vec<Group<i64>>,
    /// i32 lanes of the `fast` fixed tracks, by maximum degree (forward play only).
    fixed32: Vec<IntLanes>,
    /// Horner lanes of the `fast` float tracks, by maximum degree (forward play only).
    horner: Vec<HornerGroup>,
    /// Centre of the current epoch (forward play).
    centre: i64,
    /// Forward play: the epoch's block (`live`; `None`: no block there, the lanes play 0), which
    /// the f32 lanes play in place or through the working block (`EpochBlocks::played`).
    live: Option<usize>,
    /// Forward play: the first script frame whose f32 records were played in place since the
    /// blocks were last restored (the last is `cursor − 1`).
    patched: Option<usize>,
    side: Vec<Side>,
    side_of: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    base: f64,
    step: f64,
    steps: u64,
    script: Script,
    /// Whether the script drives the tracks marked in `on_script` (step 1, integer base).
    scripted: bool,
    /// Next script frame index to play.
    cursor: usize,
    on_script: Vec<bool>,
    /// Runs of tracks whose output is normalized (`normalize::flagged`).
    normalized: Vec<normalize::Run>,
    /// The first channel of each flagged quaternion normalized after the Horner pass, and the
    /// runs of `normalized` without f32 lanes (`interleaved::listed_quaternions`).
    listed: (Vec<u32>, Vec<normalize::Run>),
    /// Horner groups played and normalized in one pass, and how (`quat_lanes`).
    fused: quat_lanes::Fused,
    /// Every track with script entries is on its script (set by each reload; a track only
    /// leaves it at its chain's last entry, after which it has no records): records need no
    /// per-track test.
    all_on_script: bool,
    /// Which groups have lanes (a bit per group index), so a frame visits only those.
    used: UsedGroups,
    /// What the straight frames of forward play do (`straight`).
    straight: straight::Straight,
    /// The records the frame being advanced leaves to the write's pass
    /// ([`Bank::advance_write_f32`]).
    fused_records: straight::FusedRecords,
}

/// A bit per group index, set for the groups with lanes (`used_groups`).
#[derive(Debug, Clone, Copy, Default)]
struct UsedGroups {
    floats: u32,
    fixed: u32,
    horner: u32,
    fixed32: u32,
}

impl<'s> Bank<'s> {
    /// A bank of every track of `streams`, in order; channel `i` is the `i`-th component of the
    /// tracks taken in order (the column order of `Player::write`, stream after stream).
    ///
    /// # Errors
    /// `TooManyChannels` past `u32::MAX - 1` channels.
    pub fn new(streams: &[Stream<'s>]) -> Result<Self, BatchError> {
        Self::build(streams, true)
    }

    /// Like [`Bank::new`] without Horner lanes: every channel is played exactly as
    /// `TrackPlayer` plays it (f64 state, additions), at every frame and step.
    ///
    /// # Errors
    /// `TooManyChannels` past `u32::MAX - 1` channels.
    pub fn exact(streams: &[Stream<'s>]) -> Result<Self, BatchError> {
        Self::build(streams, false)
    }

    fn build(streams: &[Stream<'s>], lanes: bool) -> Result<Self, BatchError> {
        let mut tracks = list_tracks(streams)?;
        if lanes {
            interleaved::merge_groups(&mut tracks);
        }
        let fused = quat_lanes::Fused::new(&tracks);
        let (pending, has_track) = forward_chains(&mut tracks, lanes, fused);
        let LaneGroups {
            floats,
            fixed,
            fixed32,
            horner,
        } = LaneGroups::new(&mut tracks)?;
        let max = (u32::MAX - 1) as usize;
        let lanes = horner.iter().map(|g| g.chunk_count() * horner::CHUNK);
        let mut lanes = lanes.chain(fixed32.iter().map(|g| g.chunk_count() * horner::INT_CHUNK));
        if let Some(channels) = lanes.find(|&n| n > max) {
            // Script records address the lanes' coefficients with 32 bits.
            return Err(BatchError::TooManyChannels { channels, max });
        }
        let mut script = build_script(&tracks, pending, has_track);
        script.blocks = EpochBlocks::build(&tracks, &script, (&horner, &fixed32));
        script.chained = Vec::new();
        script.note_switches();
        script.record_undo();
        script.infos = straight::frame_infos(&script);
        script.lean32 = fixed32::lean_records(&script);
        script.hot_sorted = script.hot.iter().map(|h| h.frames_sorted()).collect();
        if script.blocks.count == 0 && tracks.iter().any(|i| i.fast) {
            // Fast lanes play on script only where epoch blocks exist (see `EpochBlocks`); a
            // bank whose tracks are too far apart in time for them plays exactly.
            return Self::build(streams, false);
        }
        let track_count = tracks.len();
        let channels = tracks
            .last()
            .map_or(0, |i| i.first_channel as usize + usize::from(i.components));
        let used = UsedGroups {
            floats: used_groups(&floats, |g| g.len),
            fixed: used_groups(&fixed, |g| g.len),
            horner: used_groups(&horner, |g| g.len),
            // i32 groups without a fast track's lane play nothing (their lanes write 0 and the
            // exact groups write their channels after them): skipped.
            fixed32: used_groups(&fixed32, IntLanes::fast_lanes),
        };
        let normalized = normalize::flagged(&tracks, fused.groups());
        let listed = interleaved::listed_quaternions(&normalized);
        let mut bank = Self {
            tracks,
            channels,
            floats,
            fixed,
            fixed32,
            horner,
            centre: horner::centre(0),
            live: None,
            patched: None,
            side: Vec::with_capacity(channels),
            side_of: alloc::vec![NONE; channels],
            heap: BinaryHeap::with_capacity(track_count),
            base: 0.0,
            step: 1.0,
            steps: 0,
            script,
            scripted: false,
            cursor: 0,
            on_script: alloc::vec![false; track_count],
            normalized,
            listed,
            fused,
            all_on_script: false,
            used,
            straight: straight::Straight::default(),
            fused_records: straight::FusedRecords::default(),
        };
        bank.reload_all();
        Ok(bank)
    }

    /// Number of channels (the width of `write_f32` / `write_f64`).
    #[must_use]
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// Bytes of per-frame state in forward play at step 1: the Horner lanes' f32 coefficients
    /// (read only) and the difference arrays of the channels played exactly (read and written
    /// back): the measure of a bandwidth ceiling.
    #[must_use]
    pub fn state_bytes(&self) -> usize {
        let exact = self.floats.get(..MAX_TERMS).unwrap_or(&[]);
        let floats: usize = exact.iter().map(|g| g.state.len() * 8).sum();
        let fixed = self.fixed.get(..MAX_TERMS).unwrap_or(&[]);
        let fixed: usize = fixed.iter().map(|g| g.state.len() * 8).sum::<usize>()
            + self.fixed32.iter().map(IntLanes::hot_bytes).sum::<usize>();
        let horner: usize = self.horner.iter().map(HornerGroup::hot_bytes).sum();
        floats + fixed + horner
    }

    /// How the f32 lanes entered their epochs so far: `(re-centred, read)`, the epoch switches
    /// of forward play that re-centred the working block in place (reading no block) and the
    /// entries that read a built block (a copy into the working block, or the block played in
    /// place: a bank whose f32 blocks are small, or whose lanes would mostly need fix-ups;
    /// seeks included). A diagnostic of the epoch switch (`batch` module docs); each counts
    /// once per epoch whatever the lanes.
    #[must_use]
    pub fn epoch_switches(&self) -> (u64, u64) {
        self.script.blocks.switched
    }

    /// Channels played on Horner lanes in forward play — f32 lanes for float tracks, i32 lanes
    /// for fixed ones (the rest are played exactly, as `TrackPlayer` plays them; see the module
    /// docs).
    #[must_use]
    pub fn horner_channels(&self) -> usize {
        let fast = self.tracks.iter().filter(|i| i.fast);
        fast.map(|i| usize::from(i.components)).sum()
    }

    /// The fixed channels among [`Bank::horner_channels`]: played on i32 Newton lanes in forward
    /// play (integer arithmetic; see the module docs).
    #[must_use]
    pub fn int32_channels(&self) -> usize {
        let fast = self.tracks.iter().filter(|i| i.fast && i.fixed);
        fast.map(|i| usize::from(i.components)).sum()
    }

    /// Whether forward play at step 1 from an integer frame plays `channel` on Horner lanes
    /// (f32 or i32; within `tolerance − max_error` of `TrackPlayer`) rather than exactly as
    /// `TrackPlayer`.
    #[must_use]
    pub fn is_horner_channel(&self, channel: usize) -> bool {
        let t = self
            .tracks
            .partition_point(|i| i.first_channel as usize + usize::from(i.components) <= channel);
        self.tracks.get(t).is_some_and(|i| i.fast)
    }

    /// Bytes the bank holds on the heap (lanes, script, schedules), for memory reports.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        let groups: usize = self
            .floats
            .iter()
            .map(|g| g.state.len() * 8 + g.len * 4)
            .sum::<usize>()
            + self
                .fixed
                .iter()
                .map(|g| g.state.len() * 8 + g.len * 12)
                .sum::<usize>()
            + self.horner.iter().map(HornerGroup::bytes).sum::<usize>()
            + self.fixed32.iter().map(IntLanes::bytes).sum::<usize>();
        let s = &self.script;
        let script = s.frames.len() * 12
            + s.entries.len() * (core::mem::size_of::<Entry>() + 4)
            + s.floats.len() * 8
            + s.hot.iter().map(HotScript::bytes).sum::<usize>()
            + s.hot32.iter().map(IntScript::bytes).sum::<usize>()
            + s.lean32
                .iter()
                .map(fixed32::LeanRecords::bytes)
                .sum::<usize>()
            + s.others.len() * 4
            + s.blocks.floats.values.len() * horner::CHUNK * 4
            + s.blocks.ints.values.len() * horner::INT_CHUNK * 4
            + s.blocks.fixups.bytes()
            + s.ints.len() * 8
            + s.track_start.len() * 4
            + s.has_track.len()
            + s.infos.len() * core::mem::size_of::<straight::FrameInfo>();
        let tracks = self.tracks.len() * (core::mem::size_of::<TrackInfo<'_>>() + 1 + 16);
        let side = self.side.capacity() * core::mem::size_of::<Side>() + self.side_of.len() * 4;
        groups + script + tracks + side
    }

    /// The current frame (before each track's wrap).
    #[must_use]
    pub fn frame(&self) -> f64 {
        self.base + self.steps as f64 * self.step
    }

    /// Frames per `advance`.
    #[must_use]
    pub fn step(&self) -> f64 {
        self.step
    }

    /// Moves every channel to `frame` (any finite real, wrapped per track): one `TrackPlayer`
    /// seek per track. Forward play afterwards takes the fast path when `frame` is an integer and
    /// the step is 1.
    ///
    /// # Errors
    /// `Player(NonFiniteFrame)` for NaN or an infinity (the bank is unchanged).
    pub fn seek(&mut self, frame: f64) -> Result<(), BatchError> {
        if !frame.is_finite() {
            return Err(PlayerError::NonFiniteFrame { frame }.into());
        }
        self.base = frame;
        self.steps = 0;
        self.reload_all();
        Ok(())
    }

    /// Sets the frames per `advance` for the whole bank, keeping the current frame (as
    /// `TrackPlayer::set_step`). Any step other than 1 plays on the slower path: every piece
    /// change is a `TrackPlayer` reload (with the `O(degree³)` step conversion for rates ≠ ±1).
    ///
    /// # Errors
    /// `Player(InvalidStep)` for 0, NaN or an infinity (the bank is unchanged).
    pub fn set_step(&mut self, step: f64) -> Result<(), BatchError> {
        if !(step.is_finite() && step != 0.0) {
            return Err(PlayerError::InvalidStep { step }.into());
        }
        self.base = self.frame();
        self.steps = 0;
        self.step = step;
        self.reload_all();
        Ok(())
    }

    /// Moves every channel one step: the additions of every group, then the piece changes due
    /// at the new frame. Never allocates.
    pub fn advance(&mut self) {
        if self.straight.on {
            self.advance_straight();
            return;
        }
        self.advance_with(Group::advance, Group::advance);
    }

    /// One step: `float` / `int` on every exact group that plays, then the rest of the frame.
    #[inline(always)]
    fn advance_with(&mut self, float: fn(&mut Group<f64>), int: fn(&mut Group<i64>)) {
        self.steps = self.steps.saturating_add(1);
        for g in playing(self.used.floats, self.scripted) {
            if let Some(group) = self.floats.get_mut(g) {
                float(group);
            }
        }
        for g in playing(self.used.fixed, self.scripted) {
            if let Some(group) = self.fixed.get_mut(g) {
                int(group);
            }
        }
        self.advance_rest();
        self.plan();
    }

    /// Forward play: a new epoch re-centres every Horner lane (the lanes play the epoch's
    /// block in place, or the f32 lanes the working block re-centred in place, `live`; no
    /// block: no lane holds a piece in this epoch, they play 0).
    fn next_epoch(&mut self) {
        let frame = self.frame() as i64;
        if frame.rem_euclid(horner::EPOCH) == 0 {
            self.centre = horner::centre(frame);
            self.live = self.script.blocks.index(frame);
            if let Some(i) = self.live {
                self.script.blocks.switch_work(i);
            }
        }
    }

    /// The part of a frame after the groups' additions: side-list channels and piece changes.
    fn advance_rest(&mut self) {
        self.advance_side();
        self.piece_changes();
    }

    /// The piece changes due at the current frame: the epoch switch and the script (forward
    /// play), the heap's reloads.
    fn piece_changes(&mut self) {
        if self.scripted {
            self.next_epoch();
            self.play_script();
        }
        while let Some(&Reverse((due, track))) = self.heap.peek() {
            if due > self.steps {
                break;
            }
            self.heap.pop();
            self.reload_track(track as usize, true);
        }
    }

    /// One frame of the side list's channels (f64 additions, as `TrackPlayer`).
    #[inline]
    fn advance_side(&mut self) {
        for side in &mut self.side {
            let n = usize::from(side.degree).min(MAX_DEGREE);
            for i in 0..n {
                side.state[i] += side.state[i + 1];
            }
        }
    }

    /// Like [`Bank::advance`], with the additions of big groups split between rayon's threads
    /// (feature `rayon`); the piece changes stay on the calling thread. The result is identical
    /// to `advance` (the same additions on the same lanes). Worth it for banks of ~100 000
    /// channels and more; below `PARALLEL_CHUNK` lanes per group it is `advance`. Never allocates.
    #[cfg(feature = "rayon")]
    pub fn advance_parallel(&mut self) {
        self.advance_with(Group::advance_parallel, Group::advance_parallel);
    }

    /// Writes every channel's current value, in channel order, into `out[..channels()]`.
    ///
    /// # Errors
    /// `BufferTooSmall` when `out` is shorter than `channels()` (nothing is written).
    pub fn write_f64(&self, out: &mut [f64]) -> Result<(), BatchError> {
        self.fits(out.len())?;
        self.write_horner(out, f64::from);
        if self.scripted {
            self.write_wide(out);
            let u = (self.frame() as i64 - self.centre) as i32;
            self.write_fixed32(u, out, fixed32::IntLanes::write_f64);
        }
        self.write_with(out, |x| x, |i, s| i as f64 * s)?;
        self.normalize_f64(out);
        Ok(())
    }

    /// [`Bank::advance`] then [`Bank::write_f32`] into `out`, the same state and values; where
    /// the bank is one cubic f32 or i32 group in forward play (of at least 40 KiB), the new
    /// frame's piece-change records are stored by the write's pass over the lanes, part by
    /// part (see `straight`).
    ///
    /// # Errors
    /// As `write_f32` (the bank has advanced).
    pub fn advance_write_f32(&mut self, out: &mut [f32]) -> Result<(), BatchError> {
        if self.straight.on && self.fits(out.len()).is_ok() {
            self.fused_records.asked = true;
            self.advance_straight();
            self.fused_records.asked = false;
            if let Some(due) = self.fused_records.due.take() {
                self.write_fused(due, out);
                return Ok(());
            }
            return self.write_f32(out);
        }
        self.advance();
        self.write_f32(out)
    }

    /// Like `write_f64`, rounding each value to f32.
    ///
    /// # Errors
    /// `BufferTooSmall` when `out` is shorter than `channels()` (nothing is written).
    pub fn write_f32(&self, out: &mut [f32]) -> Result<(), BatchError> {
        self.fits(out.len())?;
        if self.straight.on {
            self.write_straight(out);
            return Ok(());
        }
        if self.scripted {
            let t = (self.frame() as i64 - self.centre) as f32;
            self.write_horner_f32(t, out, false);
            self.write_fixed32(t as i32, out, fixed32::IntLanes::write_f32);
        }
        self.write_with(out, |x| x as f32, |i, s| (i as f64 * s) as f32)?;
        self.normalize_f32(out, false);
        Ok(())
    }

    /// `BufferTooSmall` unless `len ≥ channels()`.
    fn fits(&self, len: usize) -> Result<(), BatchError> {
        if len < self.channels {
            return Err(BatchError::BufferTooSmall {
                needed: self.channels,
                found: len,
            });
        }
        Ok(())
    }

    /// Forward play: every Horner lane's value, through `convert`, into its channel of `out`.
    fn write_horner<T>(&self, out: &mut [T], convert: impl Fn(f32) -> T + Copy) {
        if self.scripted {
            let t = (self.frame() as i64 - self.centre) as f32;
            for (d, g) in self.horner.iter().enumerate().filter(|(_, g)| g.len > 0) {
                let work = self.live.map(|i| self.script.blocks.played(i));
                let block = work.and_then(|i| self.script.blocks.group(i, d));
                scatter(g, block, t, out, convert);
            }
        }
    }

    /// The exact lanes (groups and side list) into `out`, after the Horner lanes: in forward
    /// play the groups of Horner tracks are idle and skipped, and a Horner track's channels
    /// that are not on its lanes just now (before its first frame, past its last) are on the
    /// side list, written last.
    fn write_with<T: Copy>(
        &self,
        out: &mut [T],
        float: impl Fn(f64) -> T,
        int: impl Fn(i64, f64) -> T,
    ) -> Result<(), BatchError> {
        self.fits(out.len())?;
        for group in playing(self.used.floats, self.scripted).filter_map(|g| self.floats.get(g)) {
            let values = group.values();
            match group.consecutive {
                Some(c0) => {
                    if let Some(dst) = out.get_mut(c0..c0 + values.len()) {
                        for (o, v) in dst.iter_mut().zip(values) {
                            *o = float(*v);
                        }
                    }
                }
                None => {
                    for (&c, v) in group.channel.iter().zip(values) {
                        if let Some(o) = out.get_mut(c as usize) {
                            *o = float(*v);
                        }
                    }
                }
            }
        }
        for group in playing(self.used.fixed, self.scripted).filter_map(|g| self.fixed.get(g)) {
            let values = group.values();
            match group.consecutive {
                Some(c0) => {
                    if let Some(dst) = out.get_mut(c0..c0 + values.len()) {
                        for ((o, v), s) in dst.iter_mut().zip(values).zip(&group.scale) {
                            *o = int(*v, *s);
                        }
                    }
                }
                None => {
                    for ((&c, v), s) in group.channel.iter().zip(values).zip(&group.scale) {
                        if let Some(o) = out.get_mut(c as usize) {
                            *o = int(*v, *s);
                        }
                    }
                }
            }
        }
        for side in &self.side {
            if let Some(o) = out.get_mut(side.channel as usize) {
                *o = float(side.state[0]);
            }
        }
        Ok(())
    }

    /// Reloads every track at the current position and rebuilds the schedules.
    fn reload_all(&mut self) {
        if let Some(from) = self.patched.take() {
            self.script.restore_blocks(from..self.cursor);
        }
        self.heap.clear();
        let base = self.base;
        self.scripted =
            self.step == 1.0 && crate::math::floor(base) == base && base.abs() < MAX_SCRIPT_FRAME;
        self.cursor = self.script.frames.partition_point(|&f| f <= base);
        if self.scripted {
            self.centre = horner::centre(base as i64);
        }
        for t in 0..self.tracks.len() {
            let info = self.tracks[t];
            let (first, last) = (info.track.first_frame(), info.track.last_frame());
            let inside = base >= first && base < last;
            let on = self.scripted
                && self.script.has_track.get(t).copied().unwrap_or(false)
                && (inside || (base < first && info.track.holds_before()));
            if let Some(x) = self.on_script.get_mut(t) {
                *x = on;
            }
            if on && inside && info.fast {
                // Its f32 or i32 lanes play the block in place (`enter_blocks`).
                for c in 0..usize::from(info.components) {
                    self.leave_side(info.first_channel as usize + c);
                }
            } else {
                self.reload_track(t, !on);
            }
        }
        self.all_on_script = self
            .script
            .has_track
            .iter()
            .zip(&self.on_script)
            .all(|(&has, &on)| !has || on);
        if self.scripted {
            self.enter_blocks(base as i64);
        }
        self.plan();
    }

    /// A seek to integer frame `frame` in forward play: the lanes play the block of its
    /// epoch in place, patched by the records of the epoch's frames up to `frame` (see `live`).
    fn enter_blocks(&mut self, frame: i64) {
        self.live = self.script.blocks.index(frame);
        if let Some(i) = self.live {
            self.script.blocks.enter_work(i);
        }
        let epoch_start = (frame.div_euclid(horner::EPOCH) * horner::EPOCH) as f64;
        let from = self.script.frames.partition_point(|&f| f < epoch_start);
        for i in from..self.cursor {
            self.play_hot(i, u32::MAX);
        }
        self.patched = Some(from);
    }

    /// Loads track `t`'s state at the current position with `TrackPlayer`'s logic; schedules its
    /// next reload on the heap when `schedule`.
    fn reload_track(&mut self, t: usize, schedule: bool) {
        let Some(info) = self.tracks.get(t).copied() else {
            debug_assert!(false, "track {t} past the bank's tracks");
            return;
        };
        let player = TrackPlayer::at(info.track, self.base, self.steps, self.step);
        for c in 0..usize::from(info.components) {
            match player.raw_state(c) {
                RawState::Float(w) => self.load_float(&info, c, w),
                RawState::Int(w, scale) => self.load_int(&info, c, w, scale),
            }
        }
        let run = player.run_left();
        if schedule && run != FOREVER {
            self.heap
                .push(Reverse((self.steps.saturating_add(run), t as u32)));
        }
    }

    /// Loads a float state into component `c` of a track's lanes (a fixed track's goes to the
    /// side list).
    fn load_float(&mut self, info: &TrackInfo<'s>, c: usize, w: &[f64]) {
        let slot = info.slot as usize + c;
        let group = usize::from(info.group);
        let channel = info.first_channel as usize + c;
        let on_lanes = info.fast && self.scripted;
        if !info.fixed && !on_lanes {
            if !self.side.is_empty() {
                self.leave_side(channel);
            }
            if let Some(g) = self.floats.get_mut(group) {
                g.set(slot, w);
            }
            return;
        }
        if info.fixed {
            if let Some(g) = self.fixed.get_mut(group) {
                g.set(slot, &[]);
            }
        }
        // A fast track's f32 or i32 lanes keep what they hold: its channels are written from
        // the side list after them (and the blocks are played in place, `live`).
        let mut state = [0.0; MAX_TERMS];
        for (s, x) in state.iter_mut().zip(w) {
            *s = *x;
        }
        let entry = Side {
            channel: channel as u32,
            degree: w.len().saturating_sub(1).min(MAX_DEGREE) as u8,
            state,
        };
        match self.side_of.get(channel).copied() {
            Some(NONE) => {
                if let Some(x) = self.side_of.get_mut(channel) {
                    *x = self.side.len() as u32;
                }
                self.side.push(entry);
            }
            Some(i) => {
                if let Some(x) = self.side.get_mut(i as usize) {
                    *x = entry;
                }
            }
            None => {}
        }
    }

    /// Loads an integer state into component `c` of a fixed track's lanes.
    fn load_int(&mut self, info: &TrackInfo<'s>, c: usize, w: &[i64], scale: f64) {
        let slot = info.slot as usize + c;
        let group = usize::from(info.group);
        if !info.fixed {
            // Not produced by `TrackPlayer` for float tracks; kept total.
            let mut state = [0.0; MAX_TERMS];
            for (s, x) in state.iter_mut().zip(w) {
                *s = *x as f64 * scale;
            }
            let n = w.len().min(MAX_TERMS);
            self.load_float(info, c, &state[..n]);
            return;
        }
        if info.fast && self.scripted {
            // Off its forward chain (its chain is on the i32 lanes, loaded from the script), a
            // `clamp` track (the only ones given i32 lanes) holds a constant: exact on the side
            // list as the f64 `TrackPlayer` outputs.
            debug_assert!(
                w.iter().skip(1).all(|&x| x == 0),
                "non-constant state off the chain"
            );
            let value = w.first().map_or(0.0, |&x| x as f64 * scale);
            self.load_float(info, c, &[value]);
            return;
        }
        self.leave_side(info.first_channel as usize + c);
        if let Some(g) = self.fixed.get_mut(group) {
            g.set(slot, w);
            if let Some(s) = g.scale.get_mut(slot) {
                *s = scale;
            }
        }
    }

    /// Applies the script entries of the current frame (and any frames skipped, none in play):
    /// the Horner records group by group, then the other entries.
    fn play_script(&mut self) {
        let frame = self.frame();
        while let Some(&f) = self.script.frames.get(self.cursor) {
            if f > frame {
                break;
            }
            let i = self.cursor;
            self.cursor += 1;
            if f < frame {
                continue;
            }
            self.play_hot(i, u32::MAX);
            let start = self.script.frame_start.get(i).copied().unwrap_or(0) as usize;
            let end = self.script.frame_start.get(i + 1).copied().unwrap_or(0) as usize;
            for o in start..end {
                if let Some(&e) = self.script.others.get(o) {
                    self.apply_entry(e as usize);
                }
            }
        }
    }

    /// Forward play's common case, kept lean: the Horner records of script frame `i` (a few
    /// stores per lane, the f32 ones into the live epoch block; a channel on the side list
    /// leaves it), of the record lists whose bit is in `mask` (see `Script::hot_used`).
    #[inline]
    fn play_hot(&mut self, i: usize, mask: u32) {
        let Self {
            horner,
            fixed32,
            script:
                Script {
                    hot,
                    hot32,
                    hot_used,
                    blocks,
                    ..
                },
            on_script,
            all_on_script,
            side,
            side_of,
            live,
            ..
        } = self;
        let on_script = (!*all_on_script).then_some(on_script.as_slice());
        let used = hot_used.get(i).copied().unwrap_or(0) & mask;
        for bit in bits(used) {
            if bit < MAX_TERMS {
                let block = live.and_then(|i| blocks.group_mut(blocks.played(i), bit));
                if let (Some(g), Some(hot), Some(block)) = (horner.get(bit), hot.get(bit), block) {
                    let lanes = (block.as_flattened_mut(), g.channel.as_slice(), g.len);
                    let lanes = ((lanes.0, lanes.1, lanes.2, bit + 1), true);
                    play_records(hot, i, lanes, on_script, (side, side_of));
                }
            } else {
                let d = bit - MAX_TERMS;
                let block = live.and_then(|e| blocks.ints.group_mut(e, d));
                if let (Some(g), Some(hot), Some(block)) = (fixed32.get(d), hot32.get(d), block) {
                    let lanes = (block.as_flattened_mut(), g.channel.as_slice(), g.len);
                    let lanes = ((lanes.0, lanes.1, lanes.2, d + 1), true);
                    play_records(hot, i, lanes, on_script, (side, side_of));
                }
            }
        }
    }

    fn apply_entry(&mut self, e: usize) {
        let Some(&entry) = self.script.entries.get(e) else {
            // `others` only lists entries of the script (`build_script`).
            debug_assert!(false, "script entry {e} past the script");
            return;
        };
        let t = entry.track as usize;
        if !self.on_script.get(t).copied().unwrap_or(false) {
            return;
        }
        if entry.kind == SLOW {
            if let Some(x) = self.on_script.get_mut(t) {
                *x = false;
            }
            self.reload_track(t, true);
            return;
        }
        let LaneSlot {
            slot,
            group,
            components,
            fixed,
            fast,
        } = entry.place;
        let terms = usize::from(entry.kind) + 1;
        let offset = entry.offset as usize;
        let (slot, group) = (slot as usize, usize::from(group));
        if fast {
            // Its lanes play the epoch blocks in place (`enter_blocks`).
            self.leave_side_track(&entry);
        } else if fixed {
            for c in 0..usize::from(components) {
                let at = offset + c * terms;
                if !self.side.is_empty() {
                    self.leave_side(self.tracks.get(t).map_or(0, |i| i.first_channel as usize) + c);
                }
                if let (Some(g), Some(w)) = (
                    self.fixed.get_mut(group),
                    self.script.ints.get(at..at + terms),
                ) {
                    g.set(slot + c, w);
                    if let Some(s) = g.scale.get_mut(slot + c) {
                        *s = entry.scale;
                    }
                }
            }
        } else {
            for c in 0..usize::from(components) {
                let at = offset + c * terms;
                if let (Some(g), Some(w)) = (
                    self.floats.get_mut(group),
                    self.script.floats.get(at..at + terms),
                ) {
                    g.set(slot + c, w);
                }
            }
        }
    }

    /// Takes the channels of `entry`'s track off the side list.
    fn leave_side_track(&mut self, entry: &Entry) {
        if !self.side.is_empty() {
            let first = self
                .tracks
                .get(entry.track as usize)
                .map_or(0, |i| i.first_channel);
            for c in 0..u32::from(entry.place.components) {
                self.leave_side((first + c) as usize);
            }
        }
    }

    /// `write_f64` of the Horner lanes whose f32 values hold the budget only as f32 outputs:
    /// [`horner::horner_f64`] of their piece's power coefficients at the current frame (the
    /// track's script entry covering it). Channels off their lanes are overwritten later from
    /// the side list.
    fn write_wide(&self, out: &mut [f64]) {
        let frame = self.frame();
        let s = &self.script;
        for g in &self.horner {
            let terms = g.degree + 1;
            for w in &g.wide {
                let t = w.track as usize;
                let from = s.track_start.get(t).copied().unwrap_or(0) as usize;
                let to = s.track_start.get(t + 1).copied().unwrap_or(0) as usize;
                let entries = s.by_track.get(from..to).unwrap_or(&[]);
                let i = entries.partition_point(|&e| {
                    s.entries.get(e as usize).is_some_and(|x| x.frame <= frame)
                });
                let Some(entry) = i
                    .checked_sub(1)
                    .and_then(|i| entries.get(i))
                    .and_then(|&e| s.entries.get(e as usize))
                    .filter(|e| e.kind != SLOW)
                else {
                    continue;
                };
                let at = entry.offset as usize + usize::from(w.component) * terms;
                let (Some(a), Some(o)) = (
                    s.floats.get(at..at + terms),
                    g.channel
                        .get(w.slot as usize)
                        .and_then(|&c| out.get_mut(c as usize)),
                ) else {
                    continue;
                };
                *o = horner::horner_f64(a, frame - entry.frame);
            }
        }
    }

    /// Takes `channel` off the side list, if it is there.
    fn leave_side(&mut self, channel: usize) {
        leave_side(&mut self.side, &mut self.side_of, channel);
    }
}

/// Takes `channel` off the side list `side` (positions in `side_of`), if it is there.
fn leave_side(side: &mut Vec<Side>, side_of: &mut [u32], channel: usize) {
    if let Some(i) = side_of.get(channel).copied().filter(|&i| i != NONE) {
        side.swap_remove(i as usize);
        if let Some(moved) = side.get(i as usize).map(|s| s.channel as usize) {
            if let Some(x) = side_of.get_mut(moved) {
                *x = i;
            }
        }
        if let Some(x) = side_of.get_mut(channel) {
            *x = NONE;
        }
    }
}

/// The records of script frame `i` into a lane group (`lanes`: see `HornerGroup::lanes_mut`,
/// and whether its layout is chunked, `horner::chunked_index`, or order-major); each channel
/// entering its lanes leaves the side list.
#[inline]
fn play_records<T: horner::LaneWord>(
    records: &records::Records<T>,
    i: usize,
    (lanes, chunked): (records::GroupLanes<'_, T>, bool),
    on_script: Option<&[bool]>,
    (side, side_of): (&mut Vec<Side>, &mut [u32]),
) {
    let range = (records.range(i), chunked);
    if side.is_empty() {
        records.play_into(lanes, range, on_script, |_| {});
    } else {
        records.play_into(lanes, range, on_script, |c| leave_side(side, side_of, c));
    }
}

/// Writes group `g`'s values at `t` into their channels of `out` through `convert`, a stack
/// block at a time.
fn scatter<T>(
    g: &HornerGroup,
    coef: Option<&[[f32; horner::CHUNK]]>,
    t: f32,
    out: &mut [T],
    convert: impl Fn(f32) -> T,
) {
    let mut block = [0.0f32; 256];
    let mut start = 0;
    while start < g.len {
        let n = (g.len - start).min(block.len());
        let values = block.get_mut(..n).unwrap_or(&mut []);
        g.eval(coef, t, start, values);
        let channels = g.channel.get(start..start + n).unwrap_or(&[]);
        for (&c, &v) in channels.iter().zip(values.iter()) {
            if let Some(o) = out.get_mut(c as usize) {
                *o = convert(v);
            }
        }
        start += n;
    }
}

/// Every track's forward chain (`track_chain`, in track order) and whether it has one; with
/// `lanes`, each track's chain checked for Horner (f32) or i32 lanes, marking `fast` / `strict`
/// and turning a fast chain's states into power coefficients.
fn forward_chains(
    tracks: &mut [TrackInfo<'_>],
    lanes: bool,
    fused: quat_lanes::Fused,
) -> (Vec<Pending>, Vec<bool>) {
    // About one entry a piece and one a track: reserved at once, so that a million tracks do
    // not pass through the doubling copies of a growing vector (gigabytes of peak memory).
    let entries = tracks.iter().map(|i| i.track.piece_count() + 1).sum();
    let mut pending = Vec::with_capacity(entries);
    let mut has_track = Vec::with_capacity(tracks.len());
    let mut starts = Vec::with_capacity(tracks.len() + 1);
    for (t, info) in tracks.iter_mut().enumerate() {
        let from = pending.len();
        starts.push(from);
        has_track.push(track_chain(info, t as u32, &mut pending));
        let verdict = match (lanes, info.fixed, info.track.normalizes()) {
            // Flagged fixed tracks play on the exact lanes (`normalize`).
            (false, _, _) | (true, true, true) => None,
            (true, false, _) => {
                let chain = pending.get_mut(from..).unwrap_or(&mut []);
                verify_chain(info, chain, fused.fma_for(info))
            }
            // Provisional: the exponent it is expected to play at; the check comes once its
            // chunks share an exponent (`fixed32::shared`).
            (true, true, false) => {
                let chain = pending.get(from..).unwrap_or(&[]);
                with_fixed_chain(info, chain, fixed32::expected_exponent).map(|e| {
                    info.exponent = fixed32::Units { e };
                    true
                })
            }
        };
        info.fast = verdict.is_some();
        info.strict = verdict.unwrap_or(false);
        // Fixed tracks once their chunks share units (`fixed32::shared`).
        if info.fast && !info.fixed {
            to_power_coefficients(info, pending.get_mut(from..).unwrap_or(&mut []));
        }
    }
    starts.push(pending.len());
    fixed32::shared::share_units(tracks, &mut pending, &starts);
    (pending, has_track)
}

/// Every lane group of a bank, sized by `assign_slots`, each slot knowing its channel.
struct LaneGroups {
    floats: Vec<Group<f64>>,
    fixed: Vec<Group<i64>>,
    fixed32: Vec<IntLanes>,
    horner: Vec<HornerGroup>,
}

impl LaneGroups {
    /// Assigns every track its slots (`assign_slots`) and makes the groups.
    fn new(tracks: &mut [TrackInfo<'_>]) -> Result<Self, BatchError> {
        let (counts, lanes, lanes32) = assign_slots(tracks)?;
        let mut groups = Self {
            floats: (0..2 * MAX_TERMS)
                .map(|g| group_for(g % MAX_TERMS, counts[0][g], false))
                .collect(),
            fixed: (0..2 * MAX_TERMS)
                .map(|g| group_for(g % MAX_TERMS, counts[1][g], true))
                .collect(),
            fixed32: (0..MAX_TERMS)
                .map(|d| IntLanes::new(d, lanes32[d]))
                .collect(),
            horner: (0..MAX_TERMS)
                .map(|d| HornerGroup::new(d, lanes[d]))
                .collect(),
        };
        for (t, info) in tracks.iter().enumerate() {
            for c in 0..u32::from(info.components) {
                groups.place(t, info, c);
            }
        }
        groups.floats.iter_mut().for_each(mark_consecutive);
        groups.fixed.iter_mut().for_each(mark_consecutive);
        for g in &mut groups.horner {
            g.runs = records::channel_runs(&g.channel);
        }
        for g in &mut groups.fixed32 {
            g.runs = records::channel_runs(&g.channel);
        }
        Ok(groups)
    }

    /// Component `c` of track `t`: its channel in its exact group's slot and, for a fixed or
    /// float track, in its i32 or Horner lane (with the lane's scale, or as a wide lane).
    fn place(&mut self, t: usize, info: &TrackInfo<'_>, c: u32) {
        let slot = (info.slot + c) as usize;
        let channel = info.first_channel + c;
        let group = usize::from(info.group);
        let target = if info.fixed {
            self.fixed.get_mut(group).map(|g| &mut g.channel)
        } else {
            self.floats.get_mut(group).map(|g| &mut g.channel)
        };
        if let Some(x) = target.and_then(|list| list.get_mut(slot)) {
            *x = channel;
        }
        let lane = (info.lane + c) as usize;
        if let Some(g) = self
            .fixed32
            .get_mut(group % MAX_TERMS)
            .filter(|_| info.fixed)
        {
            if let Some(x) = g.channel.get_mut(lane) {
                *x = channel;
            }
            // Lanes of fixed tracks played exactly keep scale 0: they write 0, then the exact
            // groups overwrite their channels (contiguous output).
            if info.fast {
                g.set_scale(lane, info.exponent.scale());
            }
        }
        if let Some(g) = self
            .horner
            .get_mut(usize::from(info.degree))
            .filter(|_| !info.fixed)
        {
            if let Some(x) = g.channel.get_mut(lane) {
                *x = channel;
            }
            if info.fast && !info.strict {
                g.wide.push(WideLane {
                    slot: info.lane + c,
                    track: t as u32,
                    component: c as u8,
                });
            }
        }
    }
}

/// Every track of `streams` with its first channel (slots are assigned later).
fn list_tracks<'s>(streams: &[Stream<'s>]) -> Result<Vec<TrackInfo<'s>>, BatchError> {
    let max = (u32::MAX - 1) as usize;
    let mut tracks = Vec::new();
    let mut channels = 0usize;
    for track in streams.iter().flat_map(|s| s.tracks()) {
        let components = track.components();
        let too_many = BatchError::TooManyChannels {
            channels: channels + components,
            max,
        };
        tracks.push(TrackInfo {
            track,
            first_channel: u32::try_from(channels).map_err(|_| too_many)?,
            components: components as u8,
            fixed: track.precision() == Precision::Fixed,
            fast: false,
            exponent: fixed32::Units::default(),
            strict: false,
            group: 0,
            degree: track.max_degree().min(MAX_DEGREE as u8),
            slot: 0,
            lane: 0,
        });
        channels += components;
        if channels > max {
            return Err(too_many);
        }
    }
    Ok(tracks)
}

/// Gives each track its group, first slot and first lane (float tracks: in the Horner group of
/// their degree; fixed tracks: in the i32 group); returns the lane count of every
/// group (`[float groups, fixed groups]`, each `MAX_TERMS` exact then `MAX_TERMS` for tracks
/// with fast lanes), of every Horner group and of every i32 group.
#[allow(clippy::type_complexity)]
fn assign_slots(
    tracks: &mut [TrackInfo<'_>],
) -> Result<
    (
        [[usize; 2 * MAX_TERMS]; 2],
        [usize; MAX_TERMS],
        [usize; MAX_TERMS],
    ),
    BatchError,
> {
    let mut counts = [[0usize; 2 * MAX_TERMS]; 2];
    let mut lanes = [0usize; MAX_TERMS];
    let mut lanes32 = [0usize; MAX_TERMS];
    let index = |n: usize| {
        u32::try_from(n).map_err(|_| BatchError::TooManyChannels {
            channels: n,
            max: (u32::MAX - 1) as usize,
        })
    };
    for info in tracks {
        let degree = usize::from(info.track.max_degree()).min(MAX_DEGREE);
        let group = degree + if info.fast { MAX_TERMS } else { 0 };
        let count = &mut counts[usize::from(info.fixed)][group];
        info.group = group as u8;
        info.slot = index(*count)?;
        *count += usize::from(info.components);
        let lane_count = match (info.fixed, info.fast) {
            (false, _) => &mut lanes[usize::from(info.degree).min(MAX_DEGREE)],
            (true, _) => &mut lanes32[degree],
        };
        info.lane = index(*lane_count)?;
        *lane_count += usize::from(info.components);
    }
    Ok((counts, lanes, lanes32))
}

/// A piece of a forward chain as the checks see it: its entry, the integer frame it is entered
/// at, how many frames it plays (until the next entry) and its terms (degree + 1).
struct ChainPiece<'c> {
    entry: &'c Pending,
    origin: i64,
    run: i64,
    terms: usize,
}

/// The pieces of `chain` to check (every entry but the `SLOW` ones). `None` when a piece never
/// ends or runs longer than `MAX_CHECKED_RUN` frames: such a track is not checked and plays on
/// the exact lanes.
fn checked_pieces(chain: &[Pending]) -> Option<Vec<ChainPiece<'_>>> {
    let mut pieces = Vec::with_capacity(chain.len());
    for (i, entry) in chain.iter().enumerate() {
        if entry.kind == SLOW {
            continue;
        }
        let next = chain.get(i + 1)?;
        let (origin, run) = (entry.frame as i64, (next.frame - entry.frame) as i64);
        if run > MAX_CHECKED_RUN {
            return None;
        }
        let terms = usize::from(entry.kind) + 1;
        pieces.push(ChainPiece {
            entry,
            origin,
            run,
            terms,
        });
    }
    Some(pieces)
}

/// Whether every piece of a float track's forward chain plays within its budget on Horner lanes
/// (`horner::verify_piece` at every integer frame of every piece, every component): `None` when
/// not, `Some(strict)` when the f32 outputs hold it and the f64 outputs too (`strict`: the f32
/// values themselves; otherwise `horner_f64`). The budget is `tolerance − max_error`: the
/// compiler measured `max_error` for `TrackPlayer`'s values against exact evaluation, so a value
/// within the budget of `TrackPlayer`'s is within the tolerance of the exact one.
fn verify_chain(info: &TrackInfo<'_>, chain: &mut [Pending], fma: bool) -> Option<bool> {
    let budget = info.track.tolerance() - info.track.max_error();
    if budget.is_nan() || budget <= 0.0 || chain.is_empty() {
        return None;
    }
    let group_degree = usize::from(info.degree).min(MAX_DEGREE);
    let components = usize::from(info.components);
    let mut strict = true;
    let mut masks = Vec::new();
    for ChainPiece {
        entry,
        origin,
        run,
        terms,
    } in checked_pieces(chain)?
    {
        if info.track.normalizes() {
            // The four components together, normalized (`normalize::verify_piece`).
            let at = (origin, run);
            let group = (group_degree, fma);
            let v = normalize::verify_piece(&entry.floats, terms, at, group, budget);
            if !(v.f32_output && (v.strict || v.f64_output)) {
                return None;
            }
            strict &= v.strict;
            continue;
        }
        // One component: the epochs forward play re-centres in place (`EpochBlocks::build`).
        let chained = components == 1;
        for c in 0..components {
            let d = entry.floats.get(c * terms..(c + 1) * terms).unwrap_or(&[]);
            let (v, mask) =
                horner::verify_piece_chained(d, origin, run, group_degree, budget, chained);
            if !(v.f32_output && (v.strict || v.f64_output)) {
                return None;
            }
            strict &= v.strict;
            if chained {
                masks.push((origin, mask));
            }
        }
    }
    // `checked_pieces` lists the chain's non-`SLOW` entries in order, each at its own frame.
    let mut masks = masks.into_iter().peekable();
    for entry in chain.iter_mut().filter(|e| e.kind != SLOW) {
        if let Some(&(_, mask)) = masks.peek().filter(|(o, _)| *o == entry.frame as i64) {
            entry.chained = mask;
            masks.next();
        }
    }
    Some(strict)
}

/// Replaces the differences of a verified chain's entries by power coefficients padded to the
/// group degree `D` (per component, `D + 1` each, in `floats` for fixed tracks too; the entry's
/// kind becomes `D`), the numbers the Horner lanes load, with their f32 (float tracks) or i32
/// (fixed tracks, units `2^-E`) coefficients about the centre of the entry's frame (`horner::epoch_coefficients` for float tracks).
fn to_power_coefficients(info: &TrackInfo<'_>, chain: &mut [Pending]) {
    let degree = usize::from(info.degree).min(MAX_DEGREE);
    // Each entry's end: the next entry's frame (a verified chain's last entry is `SLOW`).
    let ends: Vec<i64> = (0..chain.len())
        .map(|i| chain.get(i + 1).map_or(i64::MAX, |e| e.frame as i64))
        .collect();
    for (entry, &end) in chain.iter_mut().zip(&ends).filter(|(e, _)| e.kind != SLOW) {
        let terms = usize::from(entry.kind) + 1;
        let (origin, centre) = (entry.frame as i64, horner::centre(entry.frame as i64));
        let d = centre as f64 - entry.frame;
        // The frames the entry plays in its first epoch (`horner::epoch_coefficients`).
        let frames = (origin, end.min(centre + horner::EPOCH / 2));
        let mut power = Vec::with_capacity((degree + 1) * usize::from(info.components));
        for c in 0..usize::from(info.components) {
            let a = if info.fixed {
                let w = entry.ints.get(c * terms..(c + 1) * terms).unwrap_or(&[]);
                fixed_power(w, entry.scale)
            } else {
                let diffs = entry.floats.get(c * terms..(c + 1) * terms).unwrap_or(&[]);
                horner::power_from_differences(diffs)
            };
            power.extend_from_slice(a.get(..=degree).unwrap_or(&[]));
            if info.fixed {
                let hot = fixed32::quantize(&fixed32::shifted(&a, degree, d), info.exponent);
                entry
                    .hot_int
                    .extend_from_slice(hot.get(..=degree).unwrap_or(&[]));
            } else {
                let hot = horner::epoch_coefficients(&a, degree, origin, frames, centre);
                entry
                    .hot
                    .extend_from_slice(hot.get(..=degree).unwrap_or(&[]));
            }
        }
        entry.ints.clear();
        entry.floats = power;
        entry.kind = degree as u8;
    }
}

/// The exact groups that play, among those with lanes (`used`, a bit per group): all of
/// them, or in forward play (`scripted`) only the first `MAX_TERMS`, those of the tracks without
/// Horner or i32 lanes.
fn playing(used: u32, scripted: bool) -> impl Iterator<Item = usize> {
    let first = (1u32 << MAX_TERMS) - 1;
    bits(if scripted { used & first } else { used })
}

/// The indices of the set bits of `mask`, ascending.
fn bits(mut mask: u32) -> impl Iterator<Item = usize> {
    core::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            bit
        })
    })
}

/// Bit `i` set for every group `i` with lanes (`len(group) > 0`; at most 32 groups).
fn used_groups<T>(groups: &[T], len: impl Fn(&T) -> usize) -> u32 {
    groups
        .iter()
        .enumerate()
        .filter(|(i, g)| *i < 32 && len(g) > 0)
        .fold(0, |used, (i, _)| used | 1 << i)
}

/// `Some(c0)` when `channel[i] = c0 + i` for every slot.
fn consecutive_from(channel: &[u32]) -> Option<usize> {
    let c0 = channel.first().copied().unwrap_or(0);
    let consecutive = channel
        .iter()
        .enumerate()
        .all(|(i, &c)| c as usize == c0 as usize + i);
    consecutive.then_some(c0 as usize)
}

/// An empty group of `len` slots of maximum degree `degree`.
fn group_for<T: Lane>(degree: usize, len: usize, fixed: bool) -> Group<T> {
    Group {
        degree,
        len,
        state: alloc::vec![T::default(); (degree + 1) * len],
        channel: alloc::vec![0; len],
        scale: if fixed {
            alloc::vec![1.0; len]
        } else {
            Vec::new()
        },
        consecutive: None,
    }
}

/// Marks a group whose slots are consecutive channels (its output is a plain copy).
fn mark_consecutive<T>(group: &mut Group<T>) {
    group.consecutive = consecutive_from(&group.channel);
}

/// The forward chain of one track: from its first integer frame, each state `TrackPlayer` loads
/// at step 1 and the frame it is loaded at, up to the first integer frame at or past the last
/// frame (a `SLOW` entry: the heap takes over there). Empty for tracks without pieces.
fn track_chain(info: &TrackInfo<'_>, t: u32, out: &mut Vec<Pending>) -> bool {
    let track = info.track;
    if track.piece_count() == 0 {
        return false;
    }
    let (first, last) = (track.first_frame(), track.last_frame());
    let mut p = crate::math::ceil(first);
    if p.abs() >= MAX_SCRIPT_FRAME || last.abs() >= MAX_SCRIPT_FRAME {
        return false;
    }
    loop {
        let slow = Pending {
            frame: p,
            track: t,
            kind: SLOW,
            scale: 1.0,
            floats: Vec::new(),
            ints: Vec::new(),
            hot: Vec::new(),
            hot_int: Vec::new(),
            chained: 0,
        };
        if p >= last {
            out.push(slow);
            return true;
        }
        let player = TrackPlayer::at(track, p, 0, 1.0);
        let mut entry = Pending {
            frame: p,
            track: t,
            kind: 0,
            scale: 1.0,
            floats: Vec::new(),
            ints: Vec::new(),
            hot: Vec::new(),
            hot_int: Vec::new(),
            chained: 0,
        };
        let mut ok = true;
        for c in 0..usize::from(info.components) {
            match (player.raw_state(c), info.fixed) {
                (RawState::Float(w), false) => {
                    entry.kind = w.len().saturating_sub(1) as u8;
                    entry.floats.extend_from_slice(w);
                }
                (RawState::Int(w, scale), true) => {
                    entry.kind = w.len().saturating_sub(1) as u8;
                    entry.scale = scale;
                    entry.ints.extend_from_slice(w);
                }
                _ => ok = false,
            }
        }
        if !ok {
            out.push(slow);
            return true;
        }
        out.push(entry);
        let run = player.run_left();
        if run == FOREVER || run as f64 >= MAX_SCRIPT_FRAME {
            return true;
        }
        p += run as f64;
    }
}

/// Merges every track's forward chain into one frame-ordered script with its numbers laid out
/// in play order.
fn build_script(
    tracks: &[TrackInfo<'_>],
    mut pending: Vec<Pending>,
    has_track: Vec<bool>,
) -> Script {
    let mut script = Script {
        has_track,
        ..Script::default()
    };
    pending.sort_by(|a, b| a.frame.total_cmp(&b.frame).then(a.track.cmp(&b.track)));
    script.entries.reserve_exact(pending.len());
    script.hot = (0..MAX_TERMS).map(|_| HotScript::default()).collect();
    script.hot32 = (0..MAX_TERMS).map(|_| IntScript::default()).collect();
    for entry in &pending {
        let Some(info) = tracks.get(entry.track as usize) else {
            continue;
        };
        if script.frames.last() != Some(&entry.frame) {
            script.frames.push(entry.frame);
            script.mark_frame_start();
        }
        script.push_entry(info, entry);
    }
    script.mark_frame_start();
    for (d, hot) in script.hot.iter_mut().enumerate() {
        // Positions fit: `Bank::build` checked the Horner groups' sizes.
        let chunked = hot.index_chunks(d + 1);
        debug_assert!(chunked, "Horner record positions past 32 bits");
    }
    for (d, hot) in script.hot32.iter_mut().enumerate() {
        // Positions fit: `Bank::build` checked the i32 groups' sizes.
        let chunked = hot.index_chunks(d + 1);
        debug_assert!(chunked, "i32 record positions past 32 bits");
    }
    script.hot_used = (0..script.frames.len())
        .map(|i| script.used_at(i))
        .collect();
    index_by_track(&mut script, tracks.len());
    script
}

impl Script {
    /// Where the entries and records of the frame just begun start (after the last frame:
    /// where they all end).
    fn mark_frame_start(&mut self) {
        self.frame_start.push(self.others.len() as u32);
        for h in &mut self.hot {
            h.start.push(h.slots().len() as u32);
        }
        for h in &mut self.hot32 {
            h.start.push(h.slots().len() as u32);
        }
    }

    /// Appends `entry` of track `info`: as Horner or i32 records when the track is on those
    /// lanes (and the entry is not its chain's `SLOW` end), else as an entry `apply_entry`
    /// plays; its numbers go to `ints` / `floats` either way (seeks read them).
    fn push_entry(&mut self, info: &TrackInfo<'_>, entry: &Pending) {
        let e = self.entries.len() as u32;
        self.chained.push(entry.chained);
        self.entries.push(Entry {
            frame: entry.frame,
            scale: entry.scale,
            offset: if info.fixed && !info.fast {
                self.ints.len()
            } else {
                self.floats.len()
            } as u64,
            track: entry.track,
            place: LaneSlot {
                slot: if info.fast { info.lane } else { info.slot },
                group: info.group,
                components: info.components,
                fixed: info.fixed,
                fast: info.fast,
            },
            kind: entry.kind,
        });
        let hot = self.hot.get_mut(usize::from(entry.kind) % MAX_TERMS);
        match hot.filter(|_| info.fast && !info.fixed && entry.kind != SLOW) {
            Some(hot) => {
                let lanes = (info.lane, entry.track, info.components);
                hot.push_components(lanes, &entry.hot, usize::from(entry.kind) + 1);
            }
            None if info.fast && info.fixed && entry.kind != SLOW => {
                push_fixed_records(&mut self.hot32, info, entry);
            }
            None => self.others.push(e),
        }
        self.ints.extend_from_slice(&entry.ints);
        self.floats.extend_from_slice(&entry.floats);
    }

    /// `hot_used` of script frame `i`.
    fn used_at(&self, i: usize) -> u32 {
        let float = self.hot.iter().map(|h| h.range(i));
        let int = self.hot32.iter().map(|h| h.range(i));
        float
            .chain(int)
            .enumerate()
            .filter(|(_, (from, to))| from != to)
            .fold(0u32, |used, (bit, _)| used | 1 << bit)
    }
}

/// The i32-lane records of a fixed track's script entry: per component, its lane and its
/// integer coefficients about the centre of the entry's frame.
fn push_fixed_records(hot32: &mut [IntScript], info: &TrackInfo<'_>, entry: &Pending) {
    let degree = usize::from(info.group) % MAX_TERMS;
    let Some(h) = hot32.get_mut(degree) else {
        return;
    };
    let lanes = (info.lane, entry.track, info.components);
    h.push_components(lanes, &entry.hot_int, degree + 1);
}

/// A fixed track's forward chain as the i32 lanes' check reads it (see `fixed32`), when it
/// may have them: `clamp` wrap without an outside record (off its chain it then holds
/// constants); what `with` makes of its pieces, group degree and budget `tolerance −
/// max_error` (`fixed32::expected_exponent`, a bound; `fixed32::choose_units`, every integer
/// frame of every piece played in the lanes' integer arithmetic against `TrackPlayer`).
fn with_fixed_chain<R>(
    info: &TrackInfo<'_>,
    chain: &[Pending],
    with: impl FnOnce(&[fixed32::FixedPiece<'_>], usize, f64) -> Option<R>,
) -> Option<R> {
    let budget = info.track.tolerance() - info.track.max_error();
    let clamped = info.track.wrap() == crate::stream::StreamWrap::Clamp;
    if !clamped
        || info.track.outside().is_some()
        || chain.is_empty()
        || budget.is_nan()
        || budget <= 0.0
    {
        return None;
    }
    let degree = usize::from(info.track.max_degree()).min(MAX_DEGREE);
    let components = usize::from(info.components);
    let mut pieces = Vec::new();
    for ChainPiece {
        entry,
        origin,
        run,
        terms,
    } in checked_pieces(chain)?
    {
        for c in 0..components {
            let w = entry.ints.get(c * terms..(c + 1) * terms).unwrap_or(&[]);
            let a = fixed_power(w, entry.scale);
            let scale = entry.scale;
            pieces.push(fixed32::FixedPiece {
                w,
                scale,
                a,
                origin,
                run,
            });
        }
    }
    with(&pieces, degree, budget)
}

/// Power coefficients of a fixed piece's integer differences `w` at `scale` (f64).
fn fixed_power(w: &[i64], scale: f64) -> [f64; MAX_TERMS] {
    let mut d = [0.0; MAX_TERMS];
    for (x, &y) in d.iter_mut().zip(w) {
        *x = y as f64 * scale;
    }
    horner::power_from_differences(d.get(..w.len().min(MAX_TERMS)).unwrap_or(&[]))
}

/// Fills `by_track` and `track_start`: each track's entries in frame order (a counting sort of
/// the frame-ordered entries).
fn index_by_track(script: &mut Script, tracks: usize) {
    let mut start = alloc::vec![0u32; tracks + 1];
    for t in script.entries.iter().map(|e| e.track) {
        if let Some(x) = start.get_mut(t as usize + 1) {
            *x += 1;
        }
    }
    for i in 0..tracks {
        let before = start.get(i).copied().unwrap_or(0);
        if let Some(x) = start.get_mut(i + 1) {
            *x += before;
        }
    }
    let mut fill = start.clone();
    script.by_track = alloc::vec![0; script.entries.len()];
    for (e, t) in script.entries.iter().map(|e| e.track).enumerate() {
        if let Some(at) = fill.get_mut(t as usize) {
            if let Some(x) = script.by_track.get_mut(*at as usize) {
                *x = e as u32;
            }
            *at += 1;
        }
    }
    script.track_start = start;
}
