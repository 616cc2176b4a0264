//! Rows that interleave channels of different degrees (a skeletal rig's translation, rotation and scale, joint after joint): lanes of a scattered degree moved to a higher degree's group so the row is written in long runs, and the flagged quaternions of mixed groups normalized by one list.
//!
//! # Merged groups
//!
//! Horner lanes are grouped by degree, in channel order, and a group writes each run of
//! consecutive channels into the caller's row; a group whose runs average fewer than
//! `records::MIN_RUN` lanes is evaluated in blocks on the stack and scattered, a store per
//! value (~7 instructions a value under callgrind on the ozz workload, where translations and
//! scales are constant, rotations linear: runs of 6 and 4). [`merge_groups`] gives the float
//! tracks of such a degree the lanes of the next degree up that has lanes, with their pieces'
//! power coefficients padded with zeros (as every piece of a lower degree than its track's
//! already is), when the orders added cost little against the stores saved (see
//! [`worth_merging`]); then the merged group's runs are longer, often the whole row. The
//! padded Horner steps add `0 · t` (an exact zero) before the piece's own top coefficient, so
//! a lane's value is the unpadded one up to the sign of a zero, and `Bank::new` checks every
//! piece in the padded arithmetic that plays it (`verify_chain` at the lanes' degree). The
//! exact lanes keep the track's own degree.
//!
//! # Normalization by list
//!
//! Flagged quaternions on f32 lanes of a group that also holds other tracks are normalized
//! after the Horner pass (`normalize`). Their four channels lie anywhere in the row (in a rig,
//! one quaternion between a translation and a scale), so the runs of `normalize::flagged` hold
//! one track each; [`normalize_list`] normalizes them from a list of first channels made once,
//! one 128-bit load, scale and store each (`normalize::x86::scale128`, the operations of
//! `normalize_quat_f32` in its order, so the same bits as the check).

use alloc::vec::Vec;

use super::horner::{HornerGroup, CHUNK};
use super::normalize::Run;
use super::TrackInfo;
use crate::stream::layout::{MAX_DEGREE, MAX_TERMS};

/// Runs at least this long on average are written straight into the row (as
/// `records::write_lanes` decides); a group with shorter ones is scattered.
const MIN_RUN: usize = super::records::MIN_RUN;

/// Instructions a scattered lane costs against an order added to a lane (the store through the
/// channel list, ~7, against an eighth of a vector multiply and add and 4 bytes read, ~0.5 and
/// the memory): a merge adds at most this many orders per lane saved from the scatter.
const ORDERS_PER_STORE: usize = 4;

/// The lanes and runs of every degree's Horner group (float tracks in channel order; a run
/// breaks where the next float track of the group does not start at the previous one's end).
fn census(tracks: &[TrackInfo<'_>]) -> ([usize; MAX_TERMS], [usize; MAX_TERMS]) {
    let (mut lanes, mut runs) = ([0usize; MAX_TERMS], [0usize; MAX_TERMS]);
    let mut end = [None::<u32>; MAX_TERMS];
    for info in tracks.iter().filter(|i| !i.fixed) {
        let d = usize::from(info.degree).min(MAX_DEGREE);
        let (Some(l), Some(r), Some(e)) = (lanes.get_mut(d), runs.get_mut(d), end.get_mut(d))
        else {
            continue;
        };
        *l += usize::from(info.components);
        if *e != Some(info.first_channel) {
            *r += 1;
        }
        *e = Some(info.first_channel + u32::from(info.components));
    }
    (lanes, runs)
}

/// Whether a group of `lanes` lanes in `runs` runs is scattered (`records::write_lanes`).
fn scattered(lanes: usize, runs: usize) -> bool {
    runs.saturating_mul(MIN_RUN) > lanes
}

/// Whether moving degree `d`'s lanes to degree `up`'s group pays, given every group's
/// `(lanes, runs)` ([`census`]): one of the two is scattered, and the orders added (`up − d`
/// a lane) are at most [`ORDERS_PER_STORE`] per scattered lane of the two.
fn worth_merging(
    d: usize,
    up: usize,
    (lanes, runs): &([usize; MAX_TERMS], [usize; MAX_TERMS]),
) -> bool {
    let group = |g: usize| {
        (
            lanes.get(g).copied().unwrap_or(0),
            runs.get(g).copied().unwrap_or(0),
        )
    };
    let ((low, low_runs), (high, high_runs)) = (group(d), group(up));
    let mut saved = 0usize;
    if scattered(low, low_runs) {
        saved += low;
    }
    if scattered(high, high_runs) {
        saved += high;
    }
    saved > 0 && low.saturating_mul(up.saturating_sub(d)) <= saved.saturating_mul(ORDERS_PER_STORE)
}

/// Moves the float tracks of scattered Horner groups to higher-degree groups while it pays
/// (see the module docs): from the lowest degree up, a group merges into the next degree up
/// with lanes when [`worth_merging`]; counted again after each merge. Fixed tracks (i32 lanes)
/// keep their degree.
pub(super) fn merge_groups(tracks: &mut [TrackInfo<'_>]) {
    loop {
        let census = census(tracks);
        let used: Vec<usize> = (0..MAX_TERMS)
            .filter(|&d| census.0.get(d).is_some_and(|&n| n > 0))
            .collect();
        let merge = used
            .windows(2)
            .find(|w| worth_merging(w[0], w[1], &census))
            .map(|w| (w[0], w[1]));
        let Some((d, up)) = merge else {
            return;
        };
        for info in tracks
            .iter_mut()
            .filter(|i| !i.fixed && usize::from(i.degree) == d)
        {
            info.degree = up as u8;
        }
    }
}

/// The first channel of every flagged quaternion whose lanes [`normalize_list`] normalizes
/// (the runs of `normalize::flagged` on f32 lanes that their group's pass does not normalize),
/// and the runs without f32 lanes (normalized from their exact state).
pub(super) fn listed_quaternions(runs: &[Run]) -> (Vec<u32>, Vec<Run>) {
    let listed = runs.iter().filter(|r| r.lanes() && !r.fused());
    let exact = runs.iter().filter(|r| !r.lanes()).copied().collect();
    (listed.flat_map(Run::channels).collect(), exact)
}

/// Lanes a block of [`sweep_normalized`]: 8 KB of row, 16 KB of linear coefficients (in L1
/// with the row), whole steps of `sweep`'s loop.
const SWEEP_BLOCK: usize = 2048;

/// The one run `(first, n)` of group `g` (from slot 0, the straight frame's `swept` case) from
/// `block` at `t` into `out`, [`SWEEP_BLOCK`] lanes at a time, the quaternions of `list` (first
/// channels, increasing) that end in each block normalized right after it, the rest at the end:
/// the values of `HornerGroup::sweep` then [`normalize_list`], while the block is in L1.
pub(super) fn sweep_normalized(
    g: &HornerGroup,
    block: Option<&[[f32; CHUNK]]>,
    t: f32,
    (first, n): (usize, usize),
    out: &mut [f32],
    list: &[u32],
) {
    let mut rest = list;
    let mut a = 0;
    while a < n {
        let b = (a + SWEEP_BLOCK).min(n);
        if let Some(dst) = out.get_mut(first + a..first + b) {
            g.sweep_from(block, a / CHUNK, t, dst);
        }
        let end = first + b;
        let (now, later) = rest.split_at(rest.partition_point(|&c| c as usize + 4 <= end));
        normalize_list(out, now);
        rest = later;
        a = b;
    }
    normalize_list(out, rest);
}

/// Normalizes the quaternion at each first channel of `list` in `out` with
/// `normalize_quat_f32`'s operations, bit for bit (one 128-bit register each on x86-64, with
/// AVX's three-operand forms where the CPU has it; a quaternion past `out` is left alone).
pub(super) fn normalize_list(out: &mut [f32], list: &[u32]) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if std::is_x86_feature_detected!("avx") {
        // SAFETY: `normalize_list_avx` only requires AVX, just detected at run time.
        #[allow(unsafe_code)]
        unsafe {
            normalize_list_avx(out, list);
        }
        return;
    }
    normalize_each(out, list);
}

/// [`normalize_each`] compiled with AVX enabled (the same operations, VEX-encoded: no FMA).
///
/// # Safety
/// The CPU must support AVX.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx")]
#[allow(unsafe_code)]
unsafe fn normalize_list_avx(out: &mut [f32], list: &[u32]) {
    normalize_each(out, list);
}

/// [`normalize_list`]'s loop.
#[inline(always)]
fn normalize_each(out: &mut [f32], list: &[u32]) {
    for &c in list {
        let c = c as usize;
        let Some(q) = out.get_mut(c..c + 4) else {
            continue;
        };
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::{_mm_loadu_ps, _mm_storeu_ps};
            let p = q.as_mut_ptr();
            // SAFETY: `q` holds exactly 4 f32s, so the unaligned 16-byte load and store stay
            // inside it; SSE2 is part of every x86-64 target (`scale128` needs nothing more).
            #[allow(unsafe_code)]
            unsafe {
                _mm_storeu_ps(p, super::normalize::x86::scale128(_mm_loadu_ps(p)));
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let n = super::normalize::normalize_quat_f32([q[0], q[1], q[2], q[3]]);
            q.copy_from_slice(&n);
        }
    }
}
