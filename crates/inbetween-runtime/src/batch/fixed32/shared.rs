//! One exponent per chunk of i32 lanes: the fixed tracks whose lanes share a chunk play in the units of the smallest exponent any of them allows, each checked there, so a frame reads one scale a chunk (4 B per 32 lanes) instead of one a lane.
//!
//! # Why
//!
//! The i32 lanes read their `D + 1` coefficients (16 B a cubic lane, as the f32 lanes) and,
//! before, a per-lane `2^-E` (4 B more): at 100 000 channels the block, the scales and the
//! output row (2.4 MB) no longer fit this machine's 2 MB L2 where the f32 bank's (2.0 MB) just
//! did (`docs/benchmarks-history.md`, *Fixed-point lanes of 16 B (session 10)*).
//!
//! # The rule
//!
//! Each fixed track that may have i32 lanes has an expected exponent `E_t`, found without a
//! check (`expected_exponent`): the largest at which every value it plays fits i32 (less 2^7
//! units). The
//! lanes of a degree's i32 group are assigned in track order (as `assign_slots` does: a
//! track's components on consecutive lanes), so a track whose lanes cross a chunk boundary
//! joins the chunks on either side; every *run* of chunks so joined shares `E = min E_t` over
//! the tracks with lanes in it (a track that may not have i32 lanes joins nothing: its lanes
//! are 0 and play 0 at any scale). A smaller exponent is a coarser unit but never a larger
//! integer, so the values that fit at `E_t` fit at `E`. Each track is checked at `E` in
//! exactly the arithmetic that plays it (`choose_units(.., Some(E))`), and [`checked_units`]
//! settles the rest: a track that fails alone
//! too leaves its run (so that it does not coarsen the others' unit), one that holds only at a
//! smaller exponent than expected brings that one, and the runs so changed are checked again.
//! A track that fails in its run's unit but holds its budget alone plays in its own units: its
//! chunk is then *mixed* and reads a scale a lane, as before the sharing (0.3 % of the
//! benchmark's tracks, 3–6 % of its chunks at 100 000 channels: playing such a track on the
//! exact lanes instead cost the 1 000-channel bank 17 % more instructions). Only a track that
//! fails alone plays on the exact lanes, as before. Where nothing fails, one check a track, as
//! before the sharing.

use alloc::vec::Vec;

use super::{choose_units, Units, CHUNK};
use crate::batch::{to_power_coefficients, with_fixed_chain, Pending, TrackInfo};
use crate::stream::layout::{MAX_DEGREE, MAX_TERMS};

/// A fixed track as the sharing sees it: its group's degree, its lane count (components) and
/// its largest exponent (`None`: it may not have i32 lanes).
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

/// Gives the fixed tracks of `tracks` that may have i32 lanes (`fast`, their largest exponent
/// in `exponent.e`) the exponent their chunks share, checked there ([`checked_units`]; a track
/// that fails plays exactly), then turns the chains of those that pass (`pending[starts[t] ..
/// starts[t + 1]]`) into the lanes' power coefficients.
pub(crate) fn share_units(tracks: &mut [TrackInfo<'_>], pending: &mut [Pending], starts: &[usize]) {
    let fixed: Vec<usize> = (0..tracks.len())
        .filter(|&t| tracks.get(t).is_some_and(|i| i.fixed))
        .collect();
    let members: Vec<Member> = fixed
        .iter()
        .filter_map(|&t| tracks.get(t))
        .map(|i| Member {
            degree: usize::from(i.track.max_degree()).min(MAX_DEGREE),
            lanes: usize::from(i.components),
            e: i.fast.then_some(i.exponent.e),
        })
        .collect();
    let chain =
        |t: usize| starts.get(t).copied().unwrap_or(0)..starts.get(t + 1).copied().unwrap_or(0);
    let units = {
        let (tracks, pending) = (&*tracks, &*pending);
        checked_units(members, |k, e| {
            let t = fixed.get(k).copied()?;
            let (info, chain) = (tracks.get(t)?, pending.get(chain(t))?);
            with_fixed_chain(info, chain, |p, n, b| choose_units(p, n, b, e))
        })
    };
    for (&t, units) in fixed.iter().zip(units) {
        let (Some(info), Some(chain)) = (tracks.get_mut(t), pending.get_mut(chain(t))) else {
            continue;
        };
        info.fast = units.is_some();
        info.strict = info.fast;
        if let Some(units) = units {
            info.exponent = units;
            to_power_coefficients(info, chain);
        }
    }
}

/// The units each member plays in (`None`: the exact lanes), `check(k, Some(e))` checking
/// member `k` at exponent `e` and `check(k, None)` at its own (`choose_units`). Each member is
/// checked at the exponent its run shares ([`shared_exponents`]); one that fails there is
/// checked alone too: if it fails alone it leaves its run (it never plays on i32 lanes, so it
/// must not coarsen the others' unit), and if it holds its budget alone only at an exponent
/// below its expected one (a `check` may find one: `choose_units` today gives the expected one
/// or none) that is its exponent
/// now; either way its run's exponent changes and the run's members are checked again at the
/// new one, until nothing changes (each member's exponent only falls or goes, so this ends).
/// A member that fails in its run's unit but holds alone plays in its own units (its chunk
/// then reads its lanes' scales, `IntLanes::set_scale`). A track is checked once where no
/// member fails (the benchmark's banks), twice where it fails in its run's unit, and again
/// only where a member of its run changed.
fn checked_units(
    mut members: Vec<Member>,
    check: impl Fn(usize, Option<i32>) -> Option<Units>,
) -> Vec<Option<Units>> {
    let mut checked: Vec<Option<(i32, Option<Units>)>> = alloc::vec![None; members.len()];
    let mut alone: Vec<Option<Option<Units>>> = alloc::vec![None; members.len()];
    loop {
        let mut changed = false;
        for (k, e) in shared_exponents(&members).into_iter().enumerate() {
            let (Some(e), Some(slot)) = (e, checked.get_mut(k)) else {
                continue;
            };
            if slot.is_some_and(|(at, _)| at == e) {
                continue;
            }
            let units = check(k, Some(e));
            *slot = Some((e, units));
            let (Some(own), Some(m), None) = (alone.get_mut(k), members.get_mut(k), units) else {
                continue;
            };
            let own = *own.get_or_insert_with(|| check(k, None));
            // Failing alone it leaves its run; holding its budget alone only at an exponent
            // below its expected one, it brings that one to its run.
            let lower = own.map(|u| u.e).filter(|&o| m.e.is_some_and(|x| o < x));
            if own.is_none() || lower.is_some() {
                m.e = lower;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let shared = shared_exponents(&members);
    checked
        .into_iter()
        .zip(shared)
        .zip(alone)
        .map(|((c, e), alone)| {
            let together = c.filter(|&(at, _)| Some(at) == e).and_then(|(_, u)| u);
            together.or(alone.flatten())
        })
        .collect()
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
    fn a_track_failing_in_its_own_unit_leaves_its_run_and_the_others_are_checked_again() {
        // One chunk: track 0 (expected E 10) holds its budget nowhere, track 1 (expected 20)
        // only at E ≥ 15, track 2 (expected 18) anywhere, track 3 (expected 25) only at its
        // own E 17 (a check that holds only below the expected 25) and at E ≤ 17,
        // track 4 (expected 28) only at E ≥ 25; track 5 (expected 30) is alone in the next
        // chunk.
        let mut members: Vec<Member> = [10, 20, 18, 25, 28].map(|e| member(3, 1, Some(e))).to_vec();
        members.extend((0..27).map(|_| member(3, 1, None)));
        members.push(member(3, 1, Some(30)));
        let calls = core::cell::RefCell::new(Vec::new());
        let check = |k: usize, at: Option<i32>| {
            calls.borrow_mut().push((k, at));
            let own = [10, 20, 18, 17, 28].get(k).copied().unwrap_or(30);
            let e = at.unwrap_or(own);
            let holds = match k {
                0 => false,
                1 => e >= 15,
                3 => e <= 17,
                4 => e >= 25,
                _ => true,
            };
            holds.then_some(Units { e })
        };
        let units = checked_units(members, check);
        let fine = |e| Some(Units { e });
        // Track 4 holds only alone: its own units (a mixed chunk).
        assert_eq!(units[..5], [None, fine(17), fine(17), fine(17), fine(28)]);
        assert!(units[5..32].iter().all(Option::is_none));
        assert_eq!(units[32], fine(30));
        // First at the run's E 10: track 0 fails there and alone, and leaves; tracks 1 and 4
        // fail there but hold alone, so they stay; track 3 holds at 10. Then at the run's 18:
        // track 3 fails there and holds alone at 17, below its expected 25, which becomes its
        // exponent. Then all at 17.
        let want = [
            (0, Some(10)),
            (0, None),
            (1, Some(10)),
            (1, None),
            (2, Some(10)),
            (3, Some(10)),
            (4, Some(10)),
            (4, None),
            (32, Some(30)),
            (1, Some(18)),
            (2, Some(18)),
            (3, Some(18)),
            (3, None),
            (4, Some(18)),
            (1, Some(17)),
            (2, Some(17)),
            (3, Some(17)),
            (4, Some(17)),
        ];
        assert_eq!(calls.into_inner(), want);
    }

    #[test]
    fn degrees_have_lanes_and_chunks_of_their_own() {
        // Interleaved linear and cubic tracks: each degree counts its own lanes, so the
        // 33rd linear track opens the linear group's second chunk.
        let mut members = Vec::new();
        for i in 0..66 {
            let (degree, e) = if i % 2 == 0 { (1, 10 + i) } else { (3, 50) };
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
