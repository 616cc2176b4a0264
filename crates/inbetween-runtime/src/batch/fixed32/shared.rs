//! One exponent per chunk of i32 lanes: the fixed tracks whose lanes share a chunk play in the units of the smallest exponent any of them chose, each re-checked there, so a frame reads one scale a chunk (4 B per 32 lanes) instead of one a lane.
//!
//! # Why
//!
//! The i32 lanes read their `D + 1` coefficients (16 B a cubic lane, as the f32 lanes) and,
//! before, a per-lane `2^-E` (4 B more): at 100 000 channels the block, the scales and the
//! output row (2.4 MB) no longer fit this machine's 2 MB L2 where the f32 bank's (2.0 MB) just
//! did (`docs/benchmarks.md`, *Fixed-point lanes of 16 B (session 10)*).
//!
//! # The rule
//!
//! Each fixed track's own check (`choose_units`) gives its exponent `E_t`, the largest that
//! holds its coefficients in `2^30` units. The lanes of a degree's i32 group are assigned in
//! track order (as `assign_slots` does: a track's components on consecutive lanes), so a
//! track whose lanes cross a chunk boundary joins the chunks on either side; every *run* of
//! chunks so joined shares `E = min E_t` over the tracks with lanes in it (a track played
//! exactly has no `E_t` and joins nothing: its lanes are 0 and play 0 at any scale). A smaller
//! exponent is a coarser unit but never a larger integer, so every track of the run still fits
//! `2^30` units at `E`; each track with `E_t > E` is checked again at `E`, in exactly the
//! arithmetic that plays it ([`super::verify_piece`]: plain form, then fine), and a track that
//! no longer holds its budget plays on the exact lanes, as a track failing its own check does
//! (the tracks setting `E` keep their own check; dropping the others changes no run's
//! minimum).

use alloc::vec::Vec;

use super::CHUNK;
use crate::batch::{fixed_chain_exponent, to_power_coefficients, Pending, TrackInfo};
use crate::stream::layout::{MAX_DEGREE, MAX_TERMS};

/// A fixed track as the sharing sees it: its group's degree, its lane count (components) and
/// the exponent its own check chose (`None`: played exactly, no i32 lane plays it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Member {
    pub(crate) degree: usize,
    pub(crate) lanes: usize,
    pub(crate) e: Option<i32>,
}

/// A run of chunks being joined: its last chunk, the smallest exponent so far and its members.
struct Run {
    last: usize,
    e: i32,
    members: Vec<usize>,
}

/// The exponent each member's lanes play at (see the module docs): for a member with an `e`,
/// the smallest `e` of the members with lanes in its run of chunks; `None` for the others.
/// Members are in track order; lanes are given per degree in that order, from 0.
#[must_use]
pub(crate) fn shared_exponents(members: &[Member]) -> Vec<Option<i32>> {
    let mut shared = alloc::vec![None; members.len()];
    let mut next_lane = [0usize; MAX_TERMS];
    let mut runs: [Option<Run>; MAX_TERMS] = Default::default();
    let close = |run: Run, shared: &mut [Option<i32>]| {
        for &i in &run.members {
            if let Some(x) = shared.get_mut(i) {
                *x = Some(run.e);
            }
        }
    };
    for (i, m) in members.iter().enumerate() {
        let d = m.degree.min(MAX_TERMS - 1);
        let (Some(lane), Some(run)) = (next_lane.get_mut(d), runs.get_mut(d)) else {
            continue;
        };
        let first = *lane;
        *lane += m.lanes;
        let (Some(e), true) = (m.e, m.lanes > 0) else {
            continue;
        };
        let (lo, hi) = (first / CHUNK, (first + m.lanes - 1) / CHUNK);
        match run {
            Some(r) if lo <= r.last => {
                r.last = r.last.max(hi);
                r.e = r.e.min(e);
                r.members.push(i);
            }
            _ => {
                let new = Run {
                    last: hi,
                    e,
                    members: alloc::vec![i],
                };
                if let Some(old) = run.replace(new) {
                    close(old, &mut shared);
                }
            }
        }
    }
    for run in runs.into_iter().flatten() {
        close(run, &mut shared);
    }
    shared
}

/// Gives the fixed tracks of `tracks` with i32 lanes the exponent their chunks share,
/// re-checking those whose own was larger (a track that fails there plays exactly), then turns
/// their chains (`pending[starts[t] .. starts[t + 1]]`) into the lanes' power coefficients.
pub(crate) fn share_units(tracks: &mut [TrackInfo<'_>], pending: &mut [Pending], starts: &[usize]) {
    let members: Vec<Member> = tracks
        .iter()
        .filter(|i| i.fixed)
        .map(|i| Member {
            degree: usize::from(i.track.max_degree()).min(MAX_DEGREE),
            lanes: usize::from(i.components),
            e: i.fast.then_some(i.exponent.e),
        })
        .collect();
    let mut shared = shared_exponents(&members).into_iter();
    for (t, info) in tracks.iter_mut().enumerate().filter(|(_, i)| i.fixed) {
        let e = shared.next().flatten();
        let range = starts.get(t).copied().unwrap_or(0)..starts.get(t + 1).copied().unwrap_or(0);
        let Some((e, chain)) = e.zip(pending.get_mut(range)).filter(|_| info.fast) else {
            continue;
        };
        if e != info.exponent.e {
            match fixed_chain_exponent(info, chain, Some(e)) {
                Some(units) => info.exponent = units,
                None => {
                    info.fast = false;
                    info.strict = false;
                    continue;
                }
            }
        }
        to_power_coefficients(info, chain);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(degree: usize, lanes: usize, e: Option<i32>) -> Member {
        Member { degree, lanes, e }
    }

    #[test]
    fn each_chunk_takes_the_smallest_exponent_of_its_lanes() {
        // 40 scalar cubic tracks: lanes 0..32 are chunk 0, 32..40 chunk 1.
        let mut members: Vec<Member> = (0..40).map(|i| member(3, 1, Some(22 + i % 3))).collect();
        members[5].e = Some(19);
        members[35].e = Some(21);
        // A track played exactly joins nothing.
        members[36].e = None;
        let shared = shared_exponents(&members);
        for (i, s) in shared.iter().enumerate() {
            let want = match i {
                36 => None,
                0..32 => Some(19),
                _ => Some(21),
            };
            assert_eq!(*s, want, "track {i}");
        }
    }

    #[test]
    fn a_track_across_a_chunk_boundary_joins_both_chunks() {
        // 30 scalar tracks (lanes 0..30, E 20), a 4-component track on lanes 30..34 (E 22),
        // then 40 scalar tracks of E 18 on lanes 34..74: chunks 0 and 1 are joined by the
        // 4-component track, chunk 2 (lanes 64..74) is on its own.
        let mut members: Vec<Member> = (0..30).map(|_| member(3, 1, Some(20))).collect();
        members.push(member(3, 4, Some(22)));
        members.extend((0..40).map(|_| member(3, 1, Some(18))));
        let shared = shared_exponents(&members);
        // Lanes 34..64 (members 31..61) are in chunk 1, joined with chunk 0: min 18.
        assert!(shared[..61].iter().all(|&s| s == Some(18)));
        // Lanes 64..74 (members 61..71): chunk 2 alone.
        assert!(shared[61..].iter().all(|&s| s == Some(18)));
        // With the later tracks at E 25 the joined run keeps 20, chunk 2 its own 25.
        for m in &mut members[31..] {
            m.e = Some(25);
        }
        let shared = shared_exponents(&members);
        assert!(shared[..61].iter().all(|&s| s == Some(20)), "{shared:?}");
        assert!(shared[61..].iter().all(|&s| s == Some(25)), "{shared:?}");
    }

    #[test]
    fn degrees_have_lanes_and_chunks_of_their_own() {
        // Interleaved linear and cubic tracks: each degree counts its own lanes, so the
        // 33rd linear track opens the linear group's second chunk.
        let mut members = Vec::new();
        for i in 0..66 {
            let (degree, e) = if i % 2 == 0 {
                (1, 10 + i as i32)
            } else {
                (3, 50)
            };
            members.push(member(degree, 1, Some(e)));
        }
        let shared = shared_exponents(&members);
        for (i, s) in shared.iter().enumerate() {
            let want = match (i % 2, i / 2) {
                (1, _) => 50,
                (_, k) if k < 32 => 10,
                _ => 10 + 64,
            };
            assert_eq!(*s, Some(want), "track {i}");
        }
    }
}
