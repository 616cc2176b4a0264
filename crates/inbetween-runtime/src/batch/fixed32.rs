//! i32 Newton lanes for fixed-point tracks in forward play: each piece's values about the epoch centre as integer forward differences (units `2^-E` shared by a chunk of 32 lanes), played as `Σ_k d_k · C(u, k)` by wrapping i32 products and sums and one exact conversion — integer arithmetic only, the same bits on every platform and with either float library, checked at every frame in `Bank::new`.
//!
//! # Arithmetic (what is checked is what plays)
//!
//! A piece's power coefficients `a` about its entry frame `p` (f64, from `TrackPlayer`'s
//! integer differences times `2^-e`, `horner::power_from_differences`) are shifted to the centre
//! `C` of each epoch ([`shifted`], the f64 Taylor shift of `horner::centred`), turned into
//! Newton (forward-difference) coefficients `Δ^k p(C)` and rounded to integers `d_k` in the
//! track's [`Units`] of `2^-E` ([`quantize`]). Integer frame `n`, `u = n − C ∈ [−8, 8)`, plays
//! ([`newton_i32`])
//!
//! ```text
//! v = d_0 + d_1·B_1(u) + d_2·B_2(u) + … + d_D·B_D(u),   B_k(u) = C(u, k) = u(u−1)⋯(u−k+1)/k!
//! ```
//!
//! in wrapping i32 (`B_k(u)` are integers, the same for every lane of a frame: [`newton_basis`],
//! `|B_k| ≤ 120` for a cubic); the value is `v · 2^-E`. Products and sums mod 2^32 are the
//! ring's operations, so any order of them gives the same integer, the true one wherever that
//! lies in i32 (the products and the `d_k` themselves may wrap); and it is an integer
//! polynomial's value, so `TrackPlayer`'s additions of its differences give it too
//! (`additions_of_the_lanes_differences_give_their_values`).
//!
//! # Rounding
//!
//! [`quantize`] rounds from the top order down and moves each rounding `δ_k` onto the lower
//! orders by the best approximation of `B_k` by them on the epoch ([`PROJECTION`], Chebyshev's
//! minimax polynomial), so it costs `|δ_k|` times the Chebyshev remainder ([`REMAINDER`]: 7.5,
//! 14.06, 17.58 for orders 1–3) rather than `|δ_k| · max |B_k|` (8, 36, 120). A value is within
//! [`rounding_bound`] units of `2^-E` of the exact one: 20.07 for a cubic
//! (`quantized_values_stay_within_the_rounding_bound`), against 48.5 for the Horner lanes with
//! finer orders and a shift these replaced and 292.5 for Horner's rule in one unit; and `E` is
//! bounded by the values alone (not by the coefficients or a shifted product), so it is as
//! large or larger (`newton_lanes_hold_budgets_the_horner_forms_missed`).
//!
//! # Speed
//!
//! Per register of cubic lanes: three `vpmulld` by the broadcast `B_1`, `B_2`, `B_3`, three
//! `vpaddd`, the conversion and the scale, 8 vector operations against the Horner lanes' 9 (no
//! shift, and the products side by side); on Intel cores with 512-bit registers `vpmulld` (2
//! µops), the shift and the conversion all take port 0, which bounds the loop. The straight
//! frame's sweep is compiled once per `u` of the epoch (`B_k(u)` constants: a product by 0 or 1
//! is no instruction, by −1 or 2 an addition; `u ∈ {−1, 0, 1, 2}` cost no `vpmulld` at all,
//! `u = 3` one): the 1 000-channel fixed bank 0.96 of the Horner lanes' time with `u` in a
//! register, 0.93 with the constants (docs/benchmarks-history.md, *Fixed bank: Newton lanes
//! (session 18)*). The
//! generic walk is compiled once per `u` for degrees 1 to 3 too ([`eval_u`]). On x86-64 the
//! whole chunks of those degrees go through one hand-written loop (`x86`: 3 instructions of
//! bookkeeping a chunk against the generic walk's ~16) on AVX-512 registers (16 lanes) where
//! the CPU has AVX-512F and the compiler its intrinsics (Rust 1.89; builds at the MSRV play
//! AVX2), else AVX2 (8 lanes); a partial last chunk, a run from inside a chunk and the other
//! degrees take the generic walk.
//!
//! The straight frame plays a group whose lanes are one run of channels from slot 0 by
//! [`IntLanes::sweep`] (`x86::sweep`): one counted loop over every chunk straight into the
//! caller's row, two chunks a step, each chunk times a scale broadcast to it below
//! `pass::PREFETCH_UNTIL` bytes (no test of the chunk's scale: 1 in a mixed chunk, whose lanes
//! are multiplied by their own scales after the loop), and only the registers of a partial
//! last chunk that hold lanes of the row, the last one by a masked store
//! (`docs/benchmarks-history.md`, *Fixed-point sweep at 1 000 channels (session 11)*). The
//! straight frame's records are a [`LeanRecords`] list built once in `Bank::new`: without
//! those an epoch's block already holds at its first frame, a cubic record stored by one
//! 128-bit load and four 32-bit stores (*Fixed-point bank at 1 000 channels, second pass
//! (session 12)*); from [`RECORDS_PREFETCH_FROM`] bytes of block (32 768 cubic lanes) each
//! record's lines prefetched 16 records ahead (*Fixed bank at 10^6 channels: prefetch
//! (session 17)*, *Fixed bank: Newton lanes (session 18)*). Where the bank is one cubic group
//! of at least [`FUSE_FROM`] bytes, `Bank::advance_write_f32` leaves the frame's records to the
//! pass ([`IntLanes::sweep_records`], `x86::sweep_records`): each list's frames are sorted by
//! position, and before each part of 16 chunks the pass asks for the next part's records'
//! lines, stores this part's and plays it — 0.82–0.85 of the time of storing them first at
//! 100 000 channels, 0.73 at 10^6 (*Fixed bank at 100 000 channels: records stored in the
//! pass (session 19)*).
//!
//! # Output
//!
//! `write_f64` gives `v · 2^-E` exactly (`(v as f64) · 2^-E`). `write_f32` gives
//! `(v as f32) · (2^-E as f32)`: `2^-E` is exact in f32 for `E ≤ 126`, the conversion rounds
//! `v` once to 24 bits and multiplying by a power of two is exact while the result stays a
//! normal f32 (`|v| ≥ 1`, `2^-E ≥ 2^-126`; `|v| < 2^31`, `2^-E ≤ 2^64`), so it is the f64 value
//! rounded once to f32, bit for bit (`f32_output_is_the_exact_value_rounded_once`).
//!
//! # Choice of `E` and the check
//!
//! `E` is the largest exponent at which every value a track plays (each piece's `p` at the
//! integer frames it plays, [`largest_value`]) is at most `2^31 − 2^7` units ([`MAX_UNITS`],
//! [`exponent_for`]): the finest unit, and so the smallest rounding, that keeps every played
//! value in i32. `Bank::new` then plays every integer frame of every piece in that arithmetic
//! against `TrackPlayer`'s own wrapping i64 additions ([`verify_piece`]) and gives the track
//! i32 lanes where every value is within `tolerance − max_error` (so within the tolerance of
//! exact evaluation; the f32 output within that plus half an f32 ulp of itself).
//!
//! # One exponent a chunk
//!
//! The lanes of a chunk ([`CHUNK`] = 32) share one `E` and so one scale `2^-E`, read once a
//! chunk (a register broadcast) rather than once a lane: a cubic lane reads 16 B a frame, as
//! an f32 lane does, against 20 B with a scale per lane, which at 100 000 channels put the
//! frame's data (2.4 MB) past this machine's 2 MB L2 (`docs/benchmarks-history.md`, *Fixed-point
//! lanes of 16 B (session 10)*). `shared` gives a chunk the smallest `E` its tracks are
//! expected to need ([`expected_exponent`]; chunks joined by a track whose lanes cross their
//! boundary share it too) and checks each track at that `E` with `choose_units(.., Some(E))`;
//! a track that holds its budget only in its own units plays in them, and its chunk is
//! *mixed*: its scale is [`MIXED`] and its lanes read their own scales (`lane_scale`, as every
//! lane did before), which the hand-written loop and [`AtU`] branch on once a chunk.

use alloc::vec::Vec;

use super::horner::{centre, chunked_index, EPOCH, INT_CHUNK as CHUNK};
use crate::stream::layout::MAX_TERMS;

/// Largest value magnitude in units: i32's range less 128 units, more than the rounding of
/// any degree costs ([`rounding_bound`] ≤ 41.4 units).
const MAX_UNITS: f64 = 2_147_483_520.0; // 2^31 − 2^7

/// `2^e` for `e` in f64's normal range.
#[must_use]
pub(crate) fn pow2(e: i32) -> f64 {
    let e = e.clamp(-1022, 1023);
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The Taylor shift of power coefficients `a` (about their origin, degree `n`) to the point `d`
/// frames later, in f64: `horner::centred` before its rounding, the same operations in the same
/// order.
#[must_use]
pub(crate) fn shifted(a: &[f64; MAX_TERMS], n: usize, d: f64) -> [f64; MAX_TERMS] {
    let n = n.min(MAX_TERMS - 1);
    let mut b = *a;
    for i in 0..n {
        for k in (i..n).rev() {
            let next = b.get(k + 1).copied().unwrap_or(0.0);
            if let Some(x) = b.get_mut(k) {
                *x += d * next;
            }
        }
    }
    b
}

/// How a fixed track's values are held on i32 lanes: in units of `2^-e`, every Newton
/// coefficient too (one unit for all orders: no shift).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Units {
    pub(crate) e: i32,
}

impl Units {
    /// `2^-e` in f32 (exact for `e` in `exponent_for`'s range).
    #[must_use]
    pub(crate) fn scale(self) -> f32 {
        pow2(-self.e) as f32
    }
}

/// The Newton basis at `u` frames from an epoch's centre: `B_k(u) = C(u, k) = u·(u−1)⋯(u−k+1)
/// / k!` for `k < MAX_TERMS` (`B_0 = 1`; an integer for every integer `u`, negative ones too),
/// as i32. Exact for `|u| ≤ 64` (the epoch's `u` lie in `[−8, 8)`: `|B_k| ≤ C(15, 8) = 6435`);
/// any other `u` gives some wrapped numbers and never panics.
#[inline(always)]
#[must_use]
pub(crate) const fn newton_basis(u: i32) -> [i32; MAX_TERMS] {
    let mut w = [0i32; MAX_TERMS];
    let mut b: i64 = 1;
    let mut k = 0;
    while k < MAX_TERMS {
        w[k] = b as i32;
        // `B_{k+1} = B_k · (u − k) / (k + 1)`: `(k + 1) · B_{k+1}`, so the division is exact.
        b = b
            .wrapping_mul(u as i64 - k as i64)
            .wrapping_div(k as i64 + 1);
        k += 1;
    }
    w
}

/// `k! · S(m, k)` (`S` the Stirling numbers of the second kind) at `[m][k]`: `u^m = Σ_k k! ·
/// S(m, k) · B_k(u)`, so the power coefficients `b_m` have the Newton coefficients `Σ_m k! ·
/// S(m, k) · b_m`. By `k!·S(m, k) = k · ((k−1)!·S(m−1, k−1) + k!·S(m−1, k))`.
const SURJECTIONS: [[i64; MAX_TERMS]; MAX_TERMS] = {
    let mut t = [[0i64; MAX_TERMS]; MAX_TERMS];
    t[0][0] = 1;
    let mut m = 1;
    while m < MAX_TERMS {
        let mut k = 1;
        while k <= m {
            t[m][k] = k as i64 * (t[m - 1][k] + t[m - 1][k - 1]);
            k += 1;
        }
        m += 1;
    }
    t
};

/// Row `k`: the Newton coefficients (orders `0 .. k`) of the polynomial of degree `< k` that
/// `B_k` minus it is smallest on `u ∈ [−8, 7]`: `B_k(u) − Σ_j P[k][j] · B_j(u) = (h^k / (k! ·
/// 2^(k−1))) · T_k((u + ½) / h)`, `h = 15/2`, the Chebyshev polynomial `T_k` scaled to the
/// epoch (Chebyshev's minimax property: the smallest maximum of a polynomial with `B_k`'s
/// leading coefficient `1/k!` on that interval is `h^k / (k! · 2^(k−1))`, [`REMAINDER`]).
/// [`quantize`] moves what it rounds off `B_k`'s coefficient onto the lower orders by this row,
/// so that a rounding `δ` costs at most `|δ| · REMAINDER[k]` units instead of `|δ| · max
/// |B_k|` (`120 |δ|` for the cubic term at `u = −8`). Computed in exact rationals and printed to
/// f64 (`projection_rows_are_the_chebyshev_remainders` computes them again).
const PROJECTION: [[f64; MAX_TERMS]; MAX_TERMS] = [
    [0.0; MAX_TERMS],
    [-0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [13.9375, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [
        3.494_791_666_666_666_5,
        6.489_583_333_333_333,
        -1.5,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        -15.896_158_854_166_666,
        4.479_166_666_666_667,
        3.479_166_666_666_666_5,
        -2.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        -4.046_891_276_041_666,
        -6.398_470_052_083_334,
        4.585_937_5,
        1.390_625,
        -2.5,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        7.114_083_523_220_486,
        -4.373_708_767_361_111,
        -1.852_875_434_027_777_8,
        4.041_666_666_666_667,
        -0.479_166_666_666_666_7,
        -3.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        1.863_134_741_404_7,
        2.221_419_222_392_733,
        -3.446_842_447_916_666_6,
        0.761_132_812_5,
        2.838_541_666_666_666_5,
        -2.364_583_333_333_333_5,
        -3.5,
        0.0,
        0.0,
    ],
    [
        -1.670_014_784_828_064_9,
        1.747_716_510_106_646_7,
        -0.056_496_659_536_210_32,
        -1.974_497_767_857_143,
        2.097_572_544_642_857,
        0.901_785_714_285_714_3,
        -4.366_071_428_571_429,
        -4.0,
        0.0,
    ],
];

/// Largest `|B_k(u) − Σ_j PROJECTION[k][j] · B_j(u)|` on `u ∈ [−8, 7]`: `h^k / (k! · 2^(k−1))`
/// (`h = 15/2`; 1 for `k = 0`, nothing to move to).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const REMAINDER: [f64; MAX_TERMS] = [
    1.0,
    7.5,
    14.0625,
    17.578_125,
    16.479_492_187_5,
    12.359_619_140_625,
    7.724_761_962_890_625,
    4.138_265_337_262_835,
    1.939_811_876_841_953_9,
];

/// The largest error of [`quantize`] at any `u` of the epoch, in units of `2^-E`, for degree
/// `n`: `½ · Σ_{k ≤ n} REMAINDER[k]` (each order's rounding, at most ½, times its remainder):
/// 4.25 for a line, 20.07 for a cubic, 41.4 for degree 8.
#[must_use]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn rounding_bound(n: usize) -> f64 {
    0.5 * REMAINDER.iter().take(n + 1).sum::<f64>()
}

/// `x` rounded to the nearest integer (halves away from zero), as i64 (saturating; NaN 0).
fn round_i64(x: f64) -> i64 {
    (if x >= 0.0 { x + 0.5 } else { x - 0.5 }) as i64
}

/// The integer Newton coefficients `d_k` of power coefficients `b` (about the epoch's centre)
/// in the track's [`Units`]: `d_k ≈ Δ^k p(0) · 2^E`, from the top order down, each rounded
/// and its rounding moved onto the lower orders by [`PROJECTION`] (so the lanes' values,
/// [`newton_i32`], stay within [`rounding_bound`] units of `p(u) · 2^E` at every `u ∈ [−8,
/// 8)`, up to f64 rounding here). Each is the rounded integer mod 2^32: the lanes' arithmetic
/// is the ring's, so only the value needs to lie in i32.
#[must_use]
pub(crate) fn quantize(b: &[f64; MAX_TERMS], units: Units) -> [i32; MAX_TERMS] {
    let n = b.iter().rposition(|&x| x != 0.0).unwrap_or(0);
    let unit = pow2(units.e);
    let mut x = [0.0f64; MAX_TERMS];
    for (k, x) in x.iter_mut().enumerate().take(n + 1) {
        let mut s = 0.0;
        for (m, &bm) in b.iter().enumerate().take(n + 1).skip(k) {
            s += SURJECTIONS[m][k] as f64 * bm;
        }
        *x = s * unit;
    }
    let mut out = [0i32; MAX_TERMS];
    for k in (0..=n).rev() {
        let d = round_i64(x[k]);
        let delta = x[k] - d as f64;
        for (j, y) in x.iter_mut().enumerate().take(k) {
            *y += delta * PROJECTION[k][j];
        }
        out[k] = d as i32;
    }
    out
}

/// The exponent `E` for values up to `largest` in magnitude: the largest with `largest · 2^E ≤
/// ` [`MAX_UNITS`], if it lies in `[−64, 126]` (the f32 output's exact range).
#[must_use]
pub(crate) fn exponent_for(largest: f64) -> Option<i32> {
    if !largest.is_finite() {
        return None;
    }
    let mut e = 126;
    while e >= -64 && largest * pow2(e) > MAX_UNITS {
        e -= 1;
    }
    (e >= -64).then_some(e)
}

/// The lanes' value of [`quantize`]d Newton coefficients `c` (degree `c.len() − 1`) at `u`:
/// `Σ_k c_k · B_k(u)` ([`newton_basis`]) in wrapping i32 (ring operations mod 2^32, so any
/// order of the products and sums gives the same integer; the true one where it lies in
/// i32).
#[inline]
#[must_use]
pub(crate) fn newton_i32(c: &[i32], u: i32) -> i32 {
    let w = newton_basis(u);
    c.iter()
        .zip(w)
        .fold(0i32, |v, (&d, w)| v.wrapping_add(d.wrapping_mul(w)))
}

/// The largest `|p(u)|` of a piece (power coefficients `a` about `origin`, group degree `n`)
/// at the frames `origin .. origin + run` it plays, each epoch's `p` shifted to its centre as
/// the lanes take it (f64): what `E` must fit.
#[must_use]
pub(crate) fn largest_value(a: &[f64; MAX_TERMS], n: usize, (origin, run): (i64, i64)) -> f64 {
    let mut largest: f64 = 0.0;
    let mut frame = origin;
    let end = origin.saturating_add(run);
    while frame < end {
        let c = centre(frame);
        let b = shifted(a, n, (c - origin) as f64);
        let epoch_end = (c + EPOCH / 2).min(end);
        while frame < epoch_end {
            let u = (frame - c) as f64;
            let v = b.iter().take(n + 1).rev().fold(0.0, |v, &x| v * u + x);
            // NaN makes the exponent fail (`exponent_for`).
            largest = if v.is_nan() { v } else { largest.max(v.abs()) };
            if largest.is_nan() {
                return largest;
            }
            frame += 1;
        }
    }
    largest
}

/// One component of one piece of a fixed track's forward chain, as the check reads it:
/// `TrackPlayer`'s differences `w` at `scale` entered at integer frame `origin` and played for
/// `run` frames, and their power coefficients `a`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FixedPiece<'a> {
    pub(crate) w: &'a [i64],
    pub(crate) scale: f64,
    pub(crate) a: [f64; MAX_TERMS],
    pub(crate) origin: i64,
    pub(crate) run: i64,
}

/// The units of a fixed track's i32 lanes (group degree `n`), if they hold `budget` at every
/// frame of every piece ([`verify_piece`]): its largest exponent ([`expected_exponent`]), or
/// exponent `at` (the one its chunks share, `shared`) where that is no larger.
#[must_use]
pub(crate) fn choose_units(
    pieces: &[FixedPiece<'_>],
    n: usize,
    budget: f64,
    at: Option<i32>,
) -> Option<Units> {
    let own = expected_exponent(pieces, n, budget)?;
    let units = Units {
        e: at.map_or(Some(own), |e| (e <= own).then_some(e))?,
    };
    pieces
        .iter()
        .all(|p| verify_piece((p.w, p.scale), &p.a, (p.origin, p.run), (n, units), budget))
        .then_some(units)
}

/// The exponent a fixed track (`pieces`, group degree `n`) plays at, before any check: the
/// largest whose units hold every value it plays ([`largest_value`], [`exponent_for`]), the
/// finest and so the most accurate (its rounding costs at most [`rounding_bound`] units of
/// `2^-E`). What `shared` shares; `choose_units` decides. (`budget` is not needed to choose
/// it: a finer unit never costs accuracy.)
#[must_use]
pub(crate) fn expected_exponent(pieces: &[FixedPiece<'_>], n: usize, _budget: f64) -> Option<i32> {
    let largest = pieces.iter().fold(0.0f64, |m, p| {
        let v = largest_value(&p.a, n, (p.origin, p.run));
        if v.is_nan() || m.is_nan() {
            f64::NAN
        } else {
            m.max(v)
        }
    });
    exponent_for(largest)
}

/// Whether a fixed piece plays within `budget` on i32 lanes: entered at integer frame `origin`
/// with `TrackPlayer`'s differences `w` at scale `scale` (the reference: wrapping i64 additions,
/// value `W_0 · scale`), power coefficients `a`, group degree `n`, exponent `e`, for `run`
/// frames.
#[must_use]
pub(crate) fn verify_piece(
    (w, scale): (&[i64], f64),
    a: &[f64; MAX_TERMS],
    (origin, run): (i64, i64),
    (n, units): (usize, Units),
    budget: f64,
) -> bool {
    let terms = w.len().min(MAX_TERMS);
    let mut state = [0i64; MAX_TERMS];
    state[..terms].copy_from_slice(&w[..terms]);
    let unit = pow2(-units.e);
    let mut frame = origin;
    let end = origin.saturating_add(run);
    while frame < end {
        let c = centre(frame);
        let coef = quantize(&shifted(a, n, (c - origin) as f64), units);
        let coef = coef.get(..=n).unwrap_or(&[]);
        let epoch_end = (c + EPOCH / 2).min(end);
        while frame < epoch_end {
            let played = f64::from(newton_i32(coef, (frame - c) as i32)) * unit;
            let error = (played - state[0] as f64 * scale).abs();
            // NaN (a non-finite reference) fails too.
            if error.is_nan() || error > budget {
                return false;
            }
            for k in 0..terms.saturating_sub(1) {
                state[k] = state[k].wrapping_add(state[k + 1]);
            }
            frame += 1;
        }
    }
    true
}

/// Fixed channels of one maximum degree `D` in forward play: `D + 1` i32 coefficients per lane
/// about the current centre, in chunks of `CHUNK` lanes like the f32 lanes
/// (`horner::chunked_index`), and each lane's `2^-E`. In forward play the coefficients are the
/// group's part of the current epoch's block, played in place (`live`); the group's own arrays
/// stay 0, what its lanes play in an epoch without a block.
#[derive(Debug, Clone, Default)]
pub(crate) struct IntLanes {
    pub(crate) degree: usize,
    pub(crate) len: usize,
    /// Chunks of lanes (`len.div_ceil(CHUNK)`), each `D + 1` arrays of `CHUNK`.
    chunks: usize,
    coef: Vec<[i32; CHUNK]>,
    /// `2^-E` of each chunk of lanes (exact in f32), shared by its lanes' tracks (`shared`);
    /// [`MIXED`] for a chunk whose lanes differ (a track that held its tolerance only at its
    /// own exponent) or that has no lane played on it: it reads `lane_scale`.
    scale: Vec<f32>,
    /// `2^-E` of each lane (0: padding lanes and lanes of tracks played exactly), read only for
    /// the chunks whose `scale` is [`MIXED`].
    lane_scale: Vec<[f32; CHUNK]>,
    /// The scale the small sweep broadcasts to each chunk (`x86::sweep`, no test a chunk): the
    /// chunk's `scale` where its lanes share one, 1 in a [`MIXED`] chunk with a lane played
    /// (listed in `mixed`: its lanes are then multiplied by their own scales, and
    /// `(v as f32) · 1 · s` is `(v as f32) · s` to the bit), 0 in a chunk with none (every
    /// lane's scale is 0 there).
    broadcast: Vec<f32>,
    /// The [`MIXED`] chunks with a lane played, ascending.
    mixed: Vec<u32>,
    /// Lanes of tracks played on them ([`IntLanes::fast_lanes`]).
    fast: usize,
    /// The registers [`IntLanes::sweep`] plays on (the CPU's, detected in [`IntLanes::new`]).
    #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
    registers: Registers,
    /// Channel of each slot.
    pub(crate) channel: Vec<u32>,
    /// The slots as runs of consecutive channels (`records::channel_runs`).
    pub(crate) runs: Vec<super::records::Run>,
}

impl IntLanes {
    /// `len` lanes playing 0.
    pub(crate) fn new(degree: usize, len: usize) -> Self {
        let chunks = len.div_ceil(CHUNK);
        Self {
            degree,
            len,
            chunks,
            coef: alloc::vec![[0; CHUNK]; (degree + 1) * chunks],
            scale: alloc::vec![MIXED; chunks],
            lane_scale: alloc::vec![[0.0; CHUNK]; chunks],
            broadcast: alloc::vec![0.0; chunks],
            mixed: Vec::new(),
            fast: 0,
            registers: Registers::detect(),
            channel: alloc::vec![0; len],
            runs: Vec::new(),
        }
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.coef.len() * CHUNK * 4
            + (self.scale.len() + self.broadcast.len() + self.mixed.len()) * 4
            + self.lane_scale.len() * CHUNK * 4
            + self.len * 8
    }

    /// Bytes one frame reads (coefficients and scales: a chunk's, and its lanes' where it is
    /// [`MIXED`]).
    pub(crate) fn hot_bytes(&self) -> usize {
        let mixed = self.scale.iter().filter(|&&s| s <= 0.0).count();
        self.coef.len() * CHUNK * 4 + self.scale.len() * 4 + mixed * CHUNK * 4
    }

    /// Chunks of coefficients the lanes fill: the size of the group's part of an epoch block.
    pub(crate) fn chunk_count(&self) -> usize {
        self.coef.len()
    }

    /// Lanes of tracks played on them (those given a scale by [`IntLanes::set_scale`]; a fixed
    /// track played exactly keeps its lanes 0).
    pub(crate) fn fast_lanes(&self) -> usize {
        self.fast
    }

    /// Lane `slot` plays a track at `2^-E = scale` (`scale > 0`): its chunk's scale while
    /// every lane set in the chunk has the same one (`shared::shared_exponents`), else the
    /// chunk is [`MIXED`] (a lane of a track played exactly is 0 and plays 0 at any scale).
    pub(crate) fn set_scale(&mut self, slot: usize, scale: f32) {
        let (chunk, lane) = (slot / CHUNK, slot % CHUNK);
        let first = self
            .lane_scale
            .get(chunk)
            .is_some_and(|l| l.iter().all(|&x| x == 0.0));
        let (Some(x), Some(l)) = (
            self.scale.get_mut(chunk).filter(|_| slot < self.len),
            self.lane_scale.get_mut(chunk).and_then(|l| l.get_mut(lane)),
        ) else {
            return;
        };
        *l = scale;
        *x = if first || *x == scale { scale } else { MIXED };
        let shared = *x;
        if let Some(b) = self.broadcast.get_mut(chunk) {
            *b = if shared > MIXED { shared } else { 1.0 };
        }
        // A chunk once mixed stays mixed (`scale > 0`, never `MIXED`, is what makes it so).
        let c = chunk as u32;
        if shared <= MIXED {
            if let Err(at) = self.mixed.binary_search(&c) {
                self.mixed.insert(at, c);
            }
        }
        self.fast += 1;
    }

    /// Loads `c` (orders 0..; missing ones 0) into `slot` of the group's own arrays.
    #[cfg(test)]
    pub(crate) fn set(&mut self, slot: usize, c: &[i32]) {
        if slot < self.len {
            super::horner::set_lane(&mut self.coef, self.degree + 1, slot, c);
        }
    }

    /// Every slot's value at `u` frames from the centre, `(v as f32) · 2^-E`, into its channel
    /// of `out`: of the coefficients `block` (the group's part of the live epoch block), or with
    /// `None` of the group's own arrays (all 0 in play).
    pub(crate) fn write_f32(&self, block: Option<&[[i32; CHUNK]]>, u: i32, out: &mut [f32]) {
        let lanes = (self.len, self.runs.as_slice(), self.channel.as_slice());
        let coef = block.unwrap_or(&self.coef);
        super::records::write_lanes(lanes, out, |slot, dst| self.eval(coef, u, slot, dst));
    }

    /// The values of slots `0 .. out.len()` at `u` into `out` (the straight frame of a group
    /// whose lanes are one run of channels from slot 0, `runs`): those of
    /// [`IntLanes::write_f32`], by one counted loop over the chunks (`x86::sweep`: degrees 1
    /// to 3 on AVX2 or AVX-512 registers), else through `eval` (`block` as in `write_f32`;
    /// slots past the group are left alone).
    pub(crate) fn sweep(&self, block: Option<&[[i32; CHUNK]]>, u: i32, out: &mut [f32]) {
        let coef = block.unwrap_or(&self.coef);
        let n = out.len().min(self.len);
        let Some(out) = out.get_mut(..n) else {
            return;
        };
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            let lanes = Lanes {
                degree: self.degree,
                chunks: self.chunks,
                coef,
                scale: &self.scale,
                lane_scale: &self.lane_scale,
                broadcast: &self.broadcast,
                mixed: &self.mixed,
                start: 0,
            };
            let done = match self.registers {
                Registers::Avx512 => sweep_avx512(&lanes, u, out),
                // SAFETY: `sweep_avx2` only requires AVX2, which `Registers::detect` found;
                // it runs the same wrapping integer operations, conversion and product as
                // `eval` (`the_sweep_plays_the_checked_integers_bit_for_bit`).
                #[allow(unsafe_code)]
                Registers::Avx2 => unsafe { sweep_avx2(&lanes, u, out) },
                Registers::Any => false,
            };
            if done {
                return;
            }
        }
        self.eval(coef, u, 0, out);
    }

    /// Whether [`IntLanes::sweep_records`] stores a frame's records in its pass: a cubic
    /// group of at least [`FUSE_FROM`] bytes on the hand-written registers.
    pub(crate) fn fuses(&self) -> bool {
        cfg!(all(feature = "std", target_arch = "x86_64"))
            && self.degree == 3
            && self.registers != Registers::Any
            && self.coef.len() * CHUNK * 4 >= FUSE_FROM
    }

    /// The records of script frame `i` (`records`, each frame's ordered by position) stored
    /// into `block` and the lanes' values at `u` into `out`: where the group [`fuses`]
    /// (`Self::fuses`), both in one pass, each part's records just before its lanes are played
    /// (`x86::sweep_records`); else `records.store` then [`IntLanes::sweep`]. The same stores
    /// and values either way (`records_stored_in_the_pass_equal_records_stored_first`);
    /// `true` where the pass stored them.
    pub(crate) fn sweep_records(
        &self,
        block: &mut [[i32; CHUNK]],
        records: &LeanRecords,
        i: usize,
        u: i32,
        out: &mut [f32],
    ) -> bool {
        let n = out.len().min(self.len);
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if self.fuses() {
            let (from, to) = records.records.range(i);
            let max = records.records.max_slot() as usize;
            let list = (
                records.records.slots().get(from..to),
                records.records.coef.get(from * 4..to * 4),
            );
            if let ((Some(slots), Some(coef)), Some(dst)) = (list, out.get_mut(..n)) {
                if max.saturating_add(3 * CHUNK) < block.len() * CHUNK {
                    let lanes = Lanes {
                        degree: self.degree,
                        chunks: self.chunks,
                        coef: &[],
                        scale: &self.scale,
                        lane_scale: &self.lane_scale,
                        broadcast: &self.broadcast,
                        mixed: &self.mixed,
                        start: 0,
                    };
                    let done = match self.registers {
                        Registers::Avx512 => {
                            sweep_records_avx512(&lanes, block, (slots, coef), u, dst)
                        }
                        // SAFETY: `registers` is `Avx2` only where `Registers::detect` found
                        // AVX2; `slots` are ordered by position within the frame
                        // (`lean_records` sorts them), `coef` is their `4 · slots.len()`
                        // numbers (sliced just above) and every position is at most `max`,
                        // with `max + 3 · CHUNK` inside `block`, as tested.
                        #[allow(unsafe_code)]
                        Registers::Avx2 => unsafe {
                            sweep_records_avx2(&lanes, block, (slots, coef), u, dst)
                        },
                        Registers::Any => false,
                    };
                    if done {
                        return true;
                    }
                }
            }
        }
        records.store(i, self.degree + 1, block.as_flattened_mut());
        self.sweep(Some(block), u, out);
        false
    }

    /// Every slot's value `v · 2^-E` in f64 (exact) into its channel of `out` (`block` as in
    /// [`IntLanes::write_f32`]).
    pub(crate) fn write_f64(&self, block: Option<&[[i32; CHUNK]]>, u: i32, out: &mut [f64]) {
        let terms = self.degree + 1;
        let coef = block.unwrap_or(&self.coef).as_flattened();
        let scale = self.lane_scale.as_flattened();
        let mut c = [0i32; MAX_TERMS];
        for (slot, (&ch, &s)) in self.channel.iter().zip(scale).enumerate() {
            for (k, x) in c.iter_mut().enumerate().take(terms) {
                *x = coef
                    .get(chunked_index::<i32>(terms, slot, k))
                    .copied()
                    .unwrap_or(0);
            }
            if let Some(o) = out.get_mut(ch as usize) {
                *o = f64::from(newton_i32(&c[..terms], u)) * f64::from(s);
            }
        }
    }

    /// Values of slots `start .. start + out.len()` at `u` into `out`, of the chunks `coef`.
    fn eval(&self, coef: &[[i32; CHUNK]], u: i32, start: usize, out: &mut [f32]) {
        let lanes = Lanes {
            degree: self.degree,
            chunks: self.chunks,
            coef,
            scale: &self.scale,
            lane_scale: &self.lane_scale,
            broadcast: &self.broadcast,
            mixed: &self.mixed,
            start,
        };
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if try_avx512(&lanes, u, out) {
            return;
        }
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: `eval_avx2` only requires the CPU to support AVX2, which was just
            // detected at run time; it runs the same wrapping integer operations, conversion
            // and product (`avx2_and_default_paths_agree`).
            #[allow(unsafe_code)]
            unsafe {
                eval_avx2(&lanes, u, out);
            }
            return;
        }
        eval_any(&lanes, u, out);
    }
}

/// The chunks one pass reads: `chunks` chunks of lanes, `D + 1` coefficient arrays and one
/// scale each (its lanes' scales where that is [`MIXED`]), from lane `start`.
#[derive(Clone, Copy)]
struct Lanes<'a> {
    degree: usize,
    chunks: usize,
    coef: &'a [[i32; CHUNK]],
    scale: &'a [f32],
    lane_scale: &'a [[f32; CHUNK]],
    /// `IntLanes::broadcast`: a scale a chunk, 1 in the `mixed` ones (read by `x86::sweep`).
    #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
    broadcast: &'a [f32],
    /// `IntLanes::mixed`: the chunks whose lanes read their own scales, ascending.
    #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
    mixed: &'a [u32],
    start: usize,
}

/// The registers of [`IntLanes::sweep`]'s loop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
enum Registers {
    /// None of its own: the generic walk (`eval`).
    #[default]
    Any,
    /// AVX2 (8 lanes a register).
    Avx2,
    /// AVX-512F (16 lanes), with a compiler that has its intrinsics (Rust 1.89).
    Avx512,
}

impl Registers {
    /// The widest this CPU (and compiler) offers.
    fn detect() -> Self {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            if avx512_usable() {
                return Self::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Self::Avx2;
            }
        }
        Self::Any
    }
}

/// The scale of a chunk whose lanes do not share one (read from its lanes' instead): any
/// value `≤ 0`, never a power of two.
const MIXED: f32 = 0.0;

/// [`IntLanes::eval`] for a group's degree (the build's target vectors).
#[inline(always)]
fn eval_any(g: &Lanes<'_>, u: i32, out: &mut [f32]) {
    match g.degree {
        0 => eval_n::<1>(g, u, out),
        1 => eval_u::<2>(g, u, out),
        2 => eval_u::<3>(g, u, out),
        3 => eval_u::<4>(g, u, out),
        4 => eval_n::<5>(g, u, out),
        5 => eval_n::<6>(g, u, out),
        6 => eval_n::<7>(g, u, out),
        7 => eval_n::<8>(g, u, out),
        _ => eval_n::<9>(g, u, out),
    }
}

/// `$body` compiled once for each of the epoch's 16 values of `u` (`$u`), with `$k` the
/// value as a constant; `$other` for any other `u`.
macro_rules! each_u {
    ($u:expr, $k:ident => $body:expr, $other:expr) => {
        match $u {
            -8 => each_u!(@ $k = -8, $body),
            -7 => each_u!(@ $k = -7, $body),
            -6 => each_u!(@ $k = -6, $body),
            -5 => each_u!(@ $k = -5, $body),
            -4 => each_u!(@ $k = -4, $body),
            -3 => each_u!(@ $k = -3, $body),
            -2 => each_u!(@ $k = -2, $body),
            -1 => each_u!(@ $k = -1, $body),
            0 => each_u!(@ $k = 0, $body),
            1 => each_u!(@ $k = 1, $body),
            2 => each_u!(@ $k = 2, $body),
            3 => each_u!(@ $k = 3, $body),
            4 => each_u!(@ $k = 4, $body),
            5 => each_u!(@ $k = 5, $body),
            6 => each_u!(@ $k = 6, $body),
            7 => each_u!(@ $k = 7, $body),
            _ => $other,
        }
    };
    (@ $k:ident = $v:expr, $body:expr) => {{
        const $k: i32 = $v;
        $body
    }};
}
#[cfg(all(feature = "std", target_arch = "x86_64"))]
use each_u;

/// [`eval_n`] with `u` a compile-time constant for each of the epoch's 16 values (the common
/// degrees 1 to 3), so the Newton basis `B_k(u)` is too: a product by 0, ±1 or a power of two
/// compiles to nothing, a negation or a shift instead of `vpmulld` (2 µops, 10 cycles of
/// latency). The same wrapping integer products, so the same bits
/// (`avx2_and_default_paths_agree` covers every `u`).
#[inline(always)]
fn eval_u<const N: usize>(g: &Lanes<'_>, u: i32, out: &mut [f32]) {
    each_u!(u, U => eval_n::<N>(g, U, out), eval_n::<N>(g, u, out));
}

/// [`eval_any`] compiled for AVX2, the whole chunks of degrees 1 to 3 by the hand-written
/// loop of [`x86::whole_chunks`] (the same operations lane by lane, 8 a register), the rest
/// (a partial last chunk, a run from inside a chunk, other degrees) by [`eval_any`].
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn eval_avx2(g: &Lanes<'_>, u: i32, out: &mut [f32]) {
    // SAFETY: AVX2 is this function's own precondition.
    let done = unsafe { x86::whole_chunks::<core::arch::x86_64::__m256i>(g, u, out) };
    eval_rest(g, u, out, done);
}

/// [`eval_any`] over the lanes of `out` from `done` on (what a hand-written loop left).
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[inline(always)]
fn eval_rest(g: &Lanes<'_>, u: i32, out: &mut [f32], done: usize) {
    let rest = Lanes {
        start: g.start + done,
        ..*g
    };
    eval_any(&rest, u, out.get_mut(done..).unwrap_or(&mut []));
}

/// [`eval_avx2`] with AVX-512 registers (16 lanes) in [`x86::whole_chunks`], when the CPU
/// has AVX-512F and the compiler its intrinsics (Rust 1.89): `true` if it evaluated `out`.
/// On the benchmark machine (a Xeon with AVX-512) the 1 000-channel fixed bank plays ~18 %
/// faster so (`docs/benchmarks-history.md`, session 8).
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[rustversion::since(1.89)]
#[clippy::msrv = "1.89"]
#[inline]
fn try_avx512(g: &Lanes<'_>, u: i32, out: &mut [f32]) -> bool {
    if !(std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx2")) {
        return false;
    }
    // SAFETY: `eval_avx512` only requires the CPU to support AVX-512F and AVX2, both just
    // detected; it runs the same wrapping integer operations, conversion and product
    // (`hand_written_loops_play_the_checked_integers_bit_for_bit`).
    #[allow(unsafe_code)]
    unsafe {
        eval_avx512(g, u, out);
    }
    true
}

/// Without AVX-512 intrinsics in the compiler: never.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[rustversion::before(1.89)]
#[inline]
fn try_avx512(_: &Lanes<'_>, _: i32, _: &mut [f32]) -> bool {
    false
}

/// Whether the CPU has AVX-512F and AVX2 and the compiler the intrinsics (Rust 1.89).
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[rustversion::since(1.89)]
#[clippy::msrv = "1.89"]
fn avx512_usable() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx2")
}

/// Without AVX-512 intrinsics in the compiler: never.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[rustversion::before(1.89)]
fn avx512_usable() -> bool {
    false
}

/// [`x86::sweep_records`] on AVX2 registers.
///
/// # Safety
/// The CPU must support AVX2; `records` as `x86::sweep_records` requires.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn sweep_records_avx2(
    g: &Lanes<'_>,
    block: &mut [[i32; CHUNK]],
    records: (&[u32], &[i32]),
    u: i32,
    out: &mut [f32],
) -> bool {
    // SAFETY: AVX2 and the records' conditions are this function's own preconditions.
    unsafe { x86::sweep_records::<core::arch::x86_64::__m256i>(g, block, records, u, out) }
}

/// [`x86::sweep_records`] on AVX-512 registers, for a group whose `Registers::detect` found
/// them (`false`, nothing stored nor written, on a CPU without them); `records` as
/// `x86::sweep_records` requires (checked by the caller, `IntLanes::sweep_records`).
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[rustversion::since(1.89)]
#[clippy::msrv = "1.89"]
#[inline]
fn sweep_records_avx512(
    g: &Lanes<'_>,
    block: &mut [[i32; CHUNK]],
    records: (&[u32], &[i32]),
    u: i32,
    out: &mut [f32],
) -> bool {
    /// # Safety
    /// The CPU must support AVX-512F and AVX2; `records` as `x86::sweep_records` requires.
    #[target_feature(enable = "avx512f,avx2")]
    #[allow(unsafe_code)]
    unsafe fn on_avx512(
        g: &Lanes<'_>,
        block: &mut [[i32; CHUNK]],
        records: (&[u32], &[i32]),
        u: i32,
        out: &mut [f32],
    ) -> bool {
        // SAFETY: this function's own preconditions.
        unsafe { x86::sweep_records::<core::arch::x86_64::__m512i>(g, block, records, u, out) }
    }
    // SAFETY: AVX-512F and AVX2 are detected first; the records' conditions are the
    // caller's (`IntLanes::sweep_records` checks the bound and `lean_records` the order).
    #[allow(unsafe_code)]
    let done = avx512_usable() && unsafe { on_avx512(g, block, records, u, out) };
    done
}

/// Without AVX-512 intrinsics in the compiler: never.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[rustversion::before(1.89)]
#[inline]
fn sweep_records_avx512(
    _: &Lanes<'_>,
    _: &mut [[i32; CHUNK]],
    _: (&[u32], &[i32]),
    _: i32,
    _: &mut [f32],
) -> bool {
    false
}

/// [`x86::sweep`] on AVX2 registers: `false` (nothing written) where it leaves the lanes to
/// `eval`.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn sweep_avx2(g: &Lanes<'_>, u: i32, out: &mut [f32]) -> bool {
    // SAFETY: AVX2 is this function's own precondition.
    unsafe { x86::sweep::<core::arch::x86_64::__m256i>(g, u, out) }
}

/// [`x86::sweep`] on AVX-512 registers, for a group whose `Registers::detect` found them
/// (`avx512_usable`; `false`, nothing written, on a CPU without them).
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[rustversion::since(1.89)]
#[clippy::msrv = "1.89"]
#[inline]
fn sweep_avx512(g: &Lanes<'_>, u: i32, out: &mut [f32]) -> bool {
    /// # Safety
    /// The CPU must support AVX-512F and AVX2.
    #[target_feature(enable = "avx512f,avx2")]
    #[allow(unsafe_code)]
    unsafe fn on_avx512(g: &Lanes<'_>, u: i32, out: &mut [f32]) -> bool {
        // SAFETY: AVX-512F is this function's own precondition.
        unsafe { x86::sweep::<core::arch::x86_64::__m512i>(g, u, out) }
    }
    // SAFETY: AVX-512F and AVX2 are detected first (cached by std after the first call).
    #[allow(unsafe_code)]
    let done = avx512_usable() && unsafe { on_avx512(g, u, out) };
    done
}

/// Without AVX-512 intrinsics in the compiler: never.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[rustversion::before(1.89)]
#[inline]
fn sweep_avx512(_: &Lanes<'_>, _: i32, _: &mut [f32]) -> bool {
    false
}

/// [`eval_avx2`] with the 16-lane registers.
///
/// # Safety
/// The CPU must support AVX-512F and AVX2.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[rustversion::since(1.89)]
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f,avx2")]
#[allow(unsafe_code)]
unsafe fn eval_avx512(g: &Lanes<'_>, u: i32, out: &mut [f32]) {
    // SAFETY: AVX-512F is this function's own precondition.
    let done = unsafe { x86::whole_chunks::<core::arch::x86_64::__m512i>(g, u, out) };
    eval_rest(g, u, out, done);
}

/// [`newton_i32`] then `· 2^-E` over lanes `start .. start + out.len()` of a group of `N`
/// orders (`pass::walk`: whole chunks in one pass, four AVX2 vectors a step).
#[inline(always)]
fn eval_n<const N: usize>(g: &Lanes<'_>, u: i32, out: &mut [f32]) {
    // Invariant of `IntLanes`: a scale per chunk of lanes (a violation writes nothing).
    if g.scale.len() == g.chunks && g.lane_scale.len() == g.chunks {
        let kernel = AtU {
            w: newton_basis(u),
            scale: g.scale,
            lane_scale: g.lane_scale,
        };
        super::pass::walk::<i32, AtU<'_>, N, CHUNK>((g.coef, g.chunks, g.start), out, &kernel);
    }
}

/// The i32 lanes' arithmetic at `u`: [`newton_i32`] (`w`: the basis at `u`), the conversion
/// and the chunk's scale (its lanes' where it is [`MIXED`]).
struct AtU<'a> {
    w: [i32; MAX_TERMS],
    scale: &'a [f32],
    lane_scale: &'a [[f32; CHUNK]],
}

/// A chunk's scale and its lanes'.
type Scales<'a> = (&'a f32, &'a [f32; CHUNK]);

impl<'a, const N: usize> super::pass::Kernel<i32, N, CHUNK> for AtU<'a> {
    type Aux = core::iter::Zip<core::slice::Iter<'a, f32>, core::slice::Iter<'a, [f32; CHUNK]>>;
    const SPLIT: bool = true;

    #[inline(always)]
    fn aux(&self, first: usize) -> Self::Aux {
        let lanes = self.lane_scale.get(first..).unwrap_or(&[]).iter();
        self.scale.get(first..).unwrap_or(&[]).iter().zip(lanes)
    }

    #[inline(always)]
    fn chunk(&self, (&s, l): Scales<'_>, c: &[[i32; CHUNK]; N], out: &mut [f32; CHUNK]) {
        if s > MIXED {
            for (m, o) in out.iter_mut().enumerate() {
                *o = lane::<N>(|k| c[k][m], &self.w) as f32 * s;
            }
        } else {
            for (m, o) in out.iter_mut().enumerate() {
                *o = lane::<N>(|k| c[k][m], &self.w) as f32 * l[m];
            }
        }
    }

    #[inline(always)]
    fn part(&self, (&s, l): Scales<'_>, c: &[[i32; CHUNK]; N], from: usize, out: &mut [f32]) {
        // One slice per order, exactly `out.len()` long, so the loop vectorizes like `chunk`'s.
        let n = out.len();
        let slices: [&[i32]; N] = core::array::from_fn(|k| &c[k][from..from + n]);
        let l = &l[from..from + n];
        for (m, o) in out.iter_mut().enumerate() {
            let s = if s > MIXED { s } else { l[m] };
            *o = lane::<N>(|k| slices[k][m], &self.w) as f32 * s;
        }
    }
}

/// [`newton_i32`] of one lane's `N` orders (`c(k)`) with the basis `w`, unrolled for `N`:
/// `(c_0 + c_1·w_1) + (c_2·w_2 + c_3·w_3) + …`, the products side by side (the same integer in
/// any order).
#[inline(always)]
fn lane<const N: usize>(c: impl Fn(usize) -> i32, w: &[i32; MAX_TERMS]) -> i32 {
    let mut v = c(0);
    if N >= 2 {
        v = v.wrapping_add(c(1).wrapping_mul(w[1]));
    }
    let mut high = 0i32;
    for (k, &w) in w.iter().enumerate().take(N).skip(2) {
        high = high.wrapping_add(c(k).wrapping_mul(w));
    }
    v.wrapping_add(high)
}

impl super::Bank<'_> {
    /// A straight frame's i32 lanes into `out` at `u`: a group whose lanes are one run of
    /// channels from slot 0 by [`IntLanes::sweep`] straight into its run, the others as
    /// `write_fixed32` writes them (the same values).
    #[inline(always)]
    pub(super) fn sweep_fixed32(&self, u: i32, out: &mut [f32]) {
        for d in super::bits(self.used.fixed32) {
            let Some(g) = self.fixed32.get(d) else {
                continue;
            };
            let block = self.live.and_then(|i| self.script.blocks.ints.group(i, d));
            if let [(0, first, n)] = *g.runs.as_slice() {
                if let Some(dst) = out.get_mut(first..first + n) {
                    g.sweep(block, u, dst);
                    continue;
                }
            }
            g.write_f32(block, u, out);
        }
    }
}

/// `IntLanes::write_f32` / `write_f64`: a group's values (of a block's chunks, or `None`: its
/// own arrays) at `u` into their channels.
type WriteLanes<T> = fn(&IntLanes, Option<&[[i32; CHUNK]]>, i32, &mut [T]);

impl super::Bank<'_> {
    /// Forward play: every i32 lane's value at `u` frames from the centre into its channel of
    /// `out`, through `write` (`IntLanes::write_f32` / `write_f64`), each group of the live
    /// epoch's block (`live`).
    #[inline(always)]
    pub(super) fn write_fixed32<T>(&self, u: i32, out: &mut [T], write: WriteLanes<T>) {
        for d in super::bits(self.used.fixed32) {
            if let Some(g) = self.fixed32.get(d) {
                let block = self.live.and_then(|i| self.script.blocks.ints.group(i, d));
                write(g, block, u, out);
            }
        }
    }
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[allow(unsafe_code)]
mod x86;

pub(crate) mod shared;

/// One group's piece-change records (i32 coefficients).
pub(crate) type IntScript = super::records::Records<i32>;

/// The i32 records the straight frame stores when they are lean (`Bank::lean_records`), one
/// group's: its records (`Script::hot32`) without those of an epoch's first frame that store
/// what that epoch's block holds at their positions (forward play enters a block at its first
/// frame unpatched, `live`, as the f32 lanes' `FrameInfo::held`), chosen once in `Bank::new`
/// so the frame neither tests nor stores them; a cubic group's stored by 128-bit registers
/// where the CPU has AVX2 ([`x86::store_records4`]: six instructions a record, against the
/// generic loop's nine), from `records::PREFETCH_FROM` bytes of block with each record's
/// lines prefetched 16 records ahead (as `Records::store_chunked` does for the f32 lanes). The
/// same stores as `Records::store_chunked` of the whole list
/// (`lean_records_store_what_the_records_store`).
#[derive(Debug, Clone, Default)]
pub(crate) struct LeanRecords {
    records: IntScript,
    /// AVX2 or wider (detected in [`lean_records`]): [`x86::store_records4`] may run.
    #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
    registers: Registers,
}

impl LeanRecords {
    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.records.bytes()
    }

    /// The records of script frame `i` (`terms` orders each) into the live block's part of
    /// the group, `values` (as `Records::store_chunked`; a position past `values` is skipped).
    ///
    /// A cubic part of at least [`RECORDS_PREFETCH_FROM`] bytes (from 32 768 lanes) is stored
    /// by [`x86::store_records4`] asking for each record's lines 16 records before its stores,
    /// as `Records::store_chunked` does for f32 parts of `records::PREFETCH_FROM` bytes: the
    /// frame's pass has just walked the whole part, so each record's lines are past the core's
    /// L1 or L2, and without the hint each record's stores wait for them. With it the fixed bank at 10^6 channels took 0.93
    /// (wall) and 0.87 (CPU) of the time without it (medians of 20 paired rounds in one
    /// process; prefetching through `store_chunked`'s scalar loop gained 2–7 % wall in four
    /// processes; docs/benchmarks-history.md, *Fixed bank at 10^6 channels: prefetch (session 17)*).
    #[inline(always)]
    pub(crate) fn store(&self, i: usize, terms: usize, values: &mut [i32]) {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if terms == 4 && self.registers != Registers::Any {
            let far = core::mem::size_of_val(values) >= RECORDS_PREFETCH_FROM;
            let (from, to) = self.records.range(i);
            let (Some(slots), Some(coef)) = (
                self.records.slots().get(from..to),
                self.records.coef.get(from * 4..to * 4),
            ) else {
                return;
            };
            let max = self.records.max_slot() as usize;
            if max.saturating_add(3 * CHUNK) < values.len() {
                // SAFETY: `registers` is not `Any` only where `Registers::detect` found AVX2
                // (AVX-512 is used only with AVX2 too); `coef` holds `4 · slots.len()`
                // numbers (sliced so just above), and every position is at most `max` (the
                // records' `max_slot`, kept by their only writers), so `at + 3 · CHUNK <
                // values.len()`, as tested.
                #[allow(unsafe_code)]
                unsafe {
                    if far {
                        store_records_avx2_prefetch(slots, coef, values);
                    } else {
                        store_records_avx2(slots, coef, values);
                    }
                }
                return;
            }
        }
        self.records.store_chunked(i, terms, values);
    }
}

/// Bytes of a cubic group's part of a block from which [`LeanRecords::store`] prefetches each
/// record's lines (`pass::PREFETCH_FROM`, 512 KiB: 32 768 cubic lanes), where the f32 records
/// start at `records::PREFETCH_FROM` (4 MiB). An i32 record's four numbers lie `CHUNK · 4 =
/// 128` bytes apart, four cache lines, against two for an f32 record (8 lanes a chunk), and a
/// group of 100 000 cubic lanes (1.6 MB, with the 0.4 MB row about this machine's 2 MB L2)
/// no longer holds all of them in L2 by the time the records come: there the fixed bank took
/// 0.92–0.95 of the time without the hint (paired rounds in one process, a scratch switch;
/// docs/benchmarks-history.md, *Fixed bank: Newton lanes (session 18)*).
const RECORDS_PREFETCH_FROM: usize = super::pass::PREFETCH_FROM;

/// Bytes of a cubic group's coefficients from which it stores its records in the pass
/// ([`IntLanes::sweep_records`]): 40 KiB (2 560 lanes), about this machine's 48 KiB L1 data
/// cache. Below it a frame's records find their lines in L1 anyway and the parts only cost
/// (1 000 channels: 1.25–1.3 × the time of storing the records first); from 3 000 channels the
/// pass in parts is faster (0.86–0.93 at 3 000 and 5 000, 0.85 at 10 000, 0.82–0.85 at
/// 100 000, 0.73 at 10^6; session 19).
const FUSE_FROM: usize = 40 << 10;

/// [`LeanRecords`] of every i32 group of `script` (by degree, as `Script::hot32`), from its
/// records and epoch blocks as `Bank::new` built them.
pub(super) fn lean_records(script: &super::Script) -> Vec<LeanRecords> {
    let registers = Registers::detect();
    let blocks = &script.blocks;
    let hot32 = script.hot32.iter().enumerate();
    hot32
        .map(|(d, hot)| {
            let terms = d + 1;
            let held = |i: usize, r: usize| {
                let frame = script.frames.get(i).map_or(1, |&f| f as i64);
                let block = blocks.index(frame).filter(|_| frame.rem_euclid(EPOCH) == 0);
                let values = block.and_then(|b| blocks.ints.group(b, d));
                let values = values.map_or(&[][..], <[[i32; CHUNK]]>::as_flattened);
                let at = hot.slots().get(r).map_or(usize::MAX, |&p| p as usize);
                let coef = hot.coef.get(r * terms..(r + 1) * terms).unwrap_or(&[]);
                !values.is_empty()
                    && coef
                        .iter()
                        .enumerate()
                        .all(|(k, &c)| values.get(at.saturating_add(k * CHUNK)) == Some(&c))
            };
            let mut records = hot.filtered(terms, |i, r| !held(i, r));
            records.sort_frames(terms);
            LeanRecords { records, registers }
        })
        .collect()
}

/// [`x86::store_records4`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2; as [`x86::store_records4`].
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn store_records_avx2(slots: &[u32], coef: &[i32], values: &mut [i32]) {
    // SAFETY: the caller's guarantees, which are `store_records4`'s.
    unsafe { x86::store_records4::<false>(slots, coef, values) }
}

/// [`x86::store_records4`] with prefetch, compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2; as [`x86::store_records4`].
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn store_records_avx2_prefetch(slots: &[u32], coef: &[i32], values: &mut [i32]) {
    // SAFETY: the caller's guarantees, which are `store_records4`'s.
    unsafe { x86::store_records4::<true>(slots, coef, values) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::horner::power_from_differences;
    use alloc::{format, vec, vec::Vec};

    /// `Σ_k |b_k| 8^k`: a bound of `|p(u)|` on the epoch (`|u| ≤ 8`), for an exponent.
    fn reach(b: &[f64; MAX_TERMS], n: usize) -> f64 {
        (0..=n).map(|k| b[k].abs() * 8f64.powi(k as i32)).sum()
    }

    /// A cubic's integer differences at frame 0 in units `2^-40` (`w`, the scale) and the power
    /// coefficients of those integers.
    fn stored(p: impl Fn(f64) -> f64) -> (Vec<i64>, f64, [f64; MAX_TERMS]) {
        let scale = pow2(-40);
        let d = [
            p(0.0),
            p(1.0) - p(0.0),
            p(2.0) - 2.0 * p(1.0) + p(0.0),
            p(3.0) - 3.0 * p(2.0) + 3.0 * p(1.0) - p(0.0),
        ];
        let w: Vec<i64> = d.iter().map(|x| (x / scale) as i64).collect();
        let exact: Vec<f64> = w.iter().map(|&x| x as f64 * scale).collect();
        (w, scale, power_from_differences(&exact))
    }

    #[test]
    fn newton_lanes_play_the_fixed_piece_within_the_rounding_bound() {
        // p(t) = 3 − t/3 + t²/7 − t³/1000 from frame 5, stored at 2^-40.
        let (w, scale, a) = stored(|t| 3.0 - t / 3.0 + t * t / 7.0 - t * t * t / 1000.0);
        let piece = FixedPiece {
            w: &w,
            scale,
            a,
            origin: 5,
            run: 40,
        };
        let e = expected_exponent(&[piece], 3, 1.0).unwrap();
        // The largest value played is p(39) ≈ 166.8 (frame 44): 2^31 units of 2^-23 hold 256.
        assert_eq!(e, 23);
        assert!((rounding_bound(3) - 20.0703125).abs() < 1e-12);
        let units = Units { e };
        let bound = rounding_bound(3) * pow2(-e) + 1e-12;
        assert!(verify_piece((&w, scale), &a, (5, 40), (3, units), bound));
        assert!(!verify_piece((&w, scale), &a, (5, 40), (3, units), 1e-9));
        assert_eq!(choose_units(&[piece], 3, bound, None), Some(units));
        // At a shared exponent no larger than its own, or not at all above it.
        assert_eq!(
            choose_units(&[piece], 3, 1e-4, Some(20)),
            Some(Units { e: 20 })
        );
        assert_eq!(choose_units(&[piece], 3, 1e-4, Some(24)), None);
    }

    #[test]
    fn newton_lanes_hold_budgets_the_horner_forms_missed() {
        // p(t) = 400 − 20 t + 0.9 t² − 0.012 t³ over 48 frames from frame 3 (values 400 down to
        // ~ 100 and back): the Horner lanes played it at E = 21, every order rounded at 2^-21
        // (off by up to 5.0e-5) or the orders ≥ 2 at 2^-24 and a shift (1.4e-5); the Newton
        // lanes take E = 22 (values below 512) and a rounding of at most 20.07 units, 4.8e-6.
        let (w, scale, a) = stored(|t| 400.0 - 20.0 * t + 0.9 * t * t - 0.012 * t * t * t);
        let piece = FixedPiece {
            w: &w,
            scale,
            a,
            origin: 3,
            run: 48,
        };
        let e = expected_exponent(&[piece], 3, 1.0).unwrap();
        assert_eq!(e, 22);
        let units = Units { e };
        assert!(verify_piece((&w, scale), &a, (3, 48), (3, units), 4.8e-6));
        assert_eq!(choose_units(&[piece], 3, 1e-5, None), Some(units));
        // Rounding each Newton coefficient on its own (no projection) misses that budget.
        let naive = |b: &[f64; MAX_TERMS]| -> [i32; MAX_TERMS] {
            let mut x = [0i32; MAX_TERMS];
            for (k, x) in x.iter_mut().enumerate().take(4) {
                let s: f64 = (k..4).map(|m| SURJECTIONS[m][k] as f64 * b[m]).sum();
                *x = round_i64(s * pow2(e)) as i32;
            }
            x
        };
        let mut worst: f64 = 0.0;
        let mut frame = 3i64;
        while frame < 51 {
            let c = centre(frame);
            let d = naive(&shifted(&a, 3, (c - 3) as f64));
            while frame < (c + EPOCH / 2).min(51) {
                let u = (frame - c) as i32;
                let played = f64::from(newton_i32(&d[..4], u)) * pow2(-e);
                let t = (frame - 3) as f64;
                let exact = 400.0 - 20.0 * t + 0.9 * t * t - 0.012 * t * t * t;
                worst = worst.max((played - exact).abs());
                frame += 1;
            }
        }
        assert!(worst > 4.8e-6, "{worst:e}");
    }

    #[test]
    fn the_newton_basis_and_lanes_match_hand_worked_values() {
        assert_eq!(
            newton_basis(-8),
            [1, -8, 36, -120, 330, -792, 1716, -3432, 6435]
        );
        assert_eq!(newton_basis(7), [1, 7, 21, 35, 35, 21, 7, 1, 0]);
        assert_eq!(newton_basis(0), [1, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(newton_basis(-1), [1, -1, 1, -1, 1, -1, 1, -1, 1]);
        // B(3) = 1, 3, 3, 1: 5 + 2·3 + 16·3 = 59.
        assert_eq!(newton_i32(&[5, 2, 16], 3), 59);
        // B(−2) = 1, −2, 3, −4: 1 − 14 + 72 − 32 = 27.
        assert_eq!(newton_i32(&[1, 7, 24, 8], -2), 27);
        assert_eq!(newton_i32(&[4, 9], -3), -23);
        assert_eq!(newton_i32(&[4], 5), 4);
        assert_eq!(newton_i32(&[], 5), 0);
    }

    #[test]
    fn powers_are_their_surjection_sums_of_the_newton_basis() {
        // u^m = Σ_k k!·S(m, k)·B_k(u), exactly, at every u of the epoch and past it.
        for (m, row) in SURJECTIONS.iter().enumerate() {
            for u in -12i64..12 {
                let w = newton_basis(u as i32);
                let sum: i64 = row.iter().zip(w).map(|(&s, w)| s * i64::from(w)).sum();
                assert_eq!(sum, u.pow(m as u32), "u {u} m {m}");
            }
        }
    }

    #[test]
    fn projection_rows_are_the_chebyshev_remainders() {
        // B_k − Σ_j P[k][j]·B_j is R_k·T_k((u + ½)/7.5), R_k = 7.5^k/(k!·2^(k−1)), at every
        // integer u of the epoch (both are polynomials of degree k), so no larger than R_k
        // there; and R_k is what `REMAINDER` holds.
        let chebyshev = |k: usize, t: f64| {
            let (mut a, mut b) = (1.0, t);
            if k == 0 {
                return a;
            }
            for _ in 1..k {
                (a, b) = (b, 2.0 * t * b - a);
            }
            b
        };
        let mut factorial = 1.0;
        for k in 1..MAX_TERMS {
            factorial *= k as f64;
            let r = 7.5f64.powi(k as i32) / (factorial * 2f64.powi(k as i32 - 1));
            assert!((REMAINDER[k] - r).abs() <= 1e-15 * r, "k {k}");
            for u in -8..8 {
                let w = newton_basis(u);
                let got = f64::from(w[k])
                    - (0..k)
                        .map(|j| PROJECTION[k][j] * f64::from(w[j]))
                        .sum::<f64>();
                let want = r * chebyshev(k, (f64::from(u) + 0.5) / 7.5);
                assert!((got - want).abs() < 1e-9, "k {k} u {u}: {got} {want}");
                assert!(got.abs() <= r + 1e-9);
            }
            assert!(PROJECTION[k][k..].iter().all(|&x| x == 0.0));
        }
    }

    /// Random-looking power coefficients of degree `n` (seed `seed`): order `k` about
    /// `size / 8^k`, plus `offset`.
    fn coefficients(n: usize, seed: u32, size: f64, offset: f64) -> [f64; MAX_TERMS] {
        let mut b = [0.0; MAX_TERMS];
        for (k, x) in b.iter_mut().enumerate().take(n + 1) {
            let r = f64::from(seed.wrapping_mul(2_654_435_761) ^ (k as u32 * 977)) / 4e9;
            *x = (r - 0.5) * size / 8f64.powi(k as i32) + offset;
        }
        b
    }

    #[test]
    fn quantized_values_stay_within_the_rounding_bound() {
        // Random-looking coefficients, every u of the epoch, every degree, against the exact
        // value of the f64 coefficients, with `E` from a bound of the values: within
        // `rounding_bound` units (rounding the Newton coefficients one by one, without the
        // projection, costs up to 82.5 units for a cubic).
        let mut worst = [0.0f64; MAX_TERMS];
        for n in 0..MAX_TERMS {
            for seed in 0..200u32 {
                let b = coefficients(n, seed, 1.0e8, 0.3);
                let e = exponent_for(reach(&b, n)).unwrap();
                let c = quantize(&b, Units { e });
                for u in -8..8 {
                    let exact: f64 = (0..=n).map(|k| b[k] * f64::from(u).powi(k as i32)).sum();
                    let got = f64::from(newton_i32(&c[..=n], u)) * pow2(-e);
                    let err = (got - exact).abs() * pow2(e);
                    worst[n] = worst[n].max(err);
                    assert!(
                        err <= rounding_bound(n) + 1e-6,
                        "n {n} seed {seed} u {u}: {err} units"
                    );
                }
            }
        }
        // The bound is not loose: some case comes within half of it (cubic and up).
        for (n, &worst) in worst.iter().enumerate().skip(3) {
            assert!(worst > 0.4 * rounding_bound(n), "n {n}: {worst}");
        }
    }

    #[test]
    fn additions_of_the_lanes_differences_give_their_values() {
        // The Newton lanes' values are an integer polynomial's: TrackPlayer's additions of
        // its differences at the epoch's first frame (Δ^k v(−8) = Σ_j d_j·B_{j−k}(−8)) give
        // `newton_i32` at every later u of the epoch, wrapping or not.
        for n in 0..MAX_TERMS {
            for seed in 0..20u32 {
                let b = coefficients(n, seed, 1.0e9, 0.0);
                let e = exponent_for(reach(&b, n)).unwrap() + (seed % 3) as i32;
                let d = quantize(&b, Units { e });
                let w = newton_basis(-8);
                let mut state = [0i32; MAX_TERMS];
                for (k, s) in state.iter_mut().enumerate().take(n + 1) {
                    *s = (k..=n).fold(0i32, |v, j| v.wrapping_add(d[j].wrapping_mul(w[j - k])));
                }
                for u in -8..8 {
                    assert_eq!(state[0], newton_i32(&d[..=n], u), "n {n} seed {seed} u {u}");
                    for k in 0..n {
                        state[k] = state[k].wrapping_add(state[k + 1]);
                    }
                }
            }
        }
    }

    #[test]
    fn wrapping_intermediates_still_give_the_value() {
        // d_1·u = 3 · 2^30 wraps, but d_0 + d_1·u = −2^31 + 5 + 3 · 2^30 = 2^30 + 5 fits.
        assert_eq!(newton_i32(&[i32::MIN + 5, 1 << 30], 3), (1 << 30) + 5);
        // Cubic at u = 4 (B = 1, 4, 6, 4): d_2·6 = 6 · 2^30 and d_3·4 = −6 · 2^30 both wrap,
        // their sum is 0: v = 5 + 2·4 = 13.
        assert_eq!(newton_i32(&[5, 2, 1 << 30, -3 << 29], 4), 13);
    }

    #[test]
    fn f32_output_is_the_exact_value_rounded_once() {
        let values = [
            1i32,
            -1,
            16_777_217,
            -16_777_219,
            i32::MAX,
            i32::MIN + 1,
            12_345_679,
            0,
        ];
        for e in [126, 60, 24, 0, -64] {
            let mut g = IntLanes::new(0, values.len());
            for (i, &v) in values.iter().enumerate() {
                g.channel[i] = i as u32;
                g.set_scale(i, pow2(-e) as f32);
                g.set(i, &[v]);
            }
            g.runs = crate::batch::records::channel_runs(&g.channel);
            let (mut out, mut wide) = ([0.0f32; 8], [0.0f64; 8]);
            g.write_f32(None, 0, &mut out);
            g.write_f64(None, 0, &mut wide);
            for (i, &v) in values.iter().enumerate() {
                let want = f64::from(v) * pow2(-e);
                assert_eq!(wide[i], want, "{v} at 2^-{e}");
                assert_eq!(out[i].to_bits(), (want as f32).to_bits(), "{v} at 2^-{e}");
            }
        }
    }

    /// A hand-written whole-chunk loop called directly (not through `eval`'s choice): the
    /// lanes it wrote, `None` where the CPU (or the compiler) lacks its instructions.
    type Direct = fn(&Lanes<'_>, i32, &mut [f32]) -> Option<usize>;

    /// The loops of `x86` by name.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    const KERNELS: [(&str, Direct); 2] = [
        ("AVX2", x86::whole_chunks_avx2),
        ("AVX-512", x86::whole_chunks_avx512),
    ];
    #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
    const KERNELS: [(&str, Direct); 0] = [];

    #[test]
    fn hand_written_loops_play_the_checked_integers_bit_for_bit() {
        // Lanes loaded with what the check plays (`quantize` of `shifted` power coefficients,
        // Newton units, `E` from a bound of their values, the smallest of a chunk shared by its
        // lanes as `shared` gives it, or each lane's own in a mixed chunk) and with wrapping
        // extremes, degrees 1–3, every `u`: the
        // hand-written AVX2 and AVX-512 loops (called directly where the CPU has them, so a
        // fallback cannot hide one) and `eval` must give `(newton_i32 as f32) · 2^-E`, the
        // value `verify_piece` checks rounded once to f32, to the bit.
        let len = 5 * CHUNK + 7;
        for degree in 1..=3 {
            let mut g = IntLanes::new(degree, len);
            let mut lanes: Vec<([i32; MAX_TERMS], f32)> = Vec::new();
            let power = |slot: usize| {
                let seed = slot as u32;
                let b = coefficients(degree, seed, 400.0 + 50.0 * f64::from(seed % 11), 0.25);
                shifted(&b, degree, f64::from(seed % 5) - 2.0)
            };
            let chunk_e: Vec<i32> = (0..len.div_ceil(CHUNK))
                .map(|k| {
                    let slots = k * CHUNK..((k + 1) * CHUNK).min(len);
                    let e = slots.map(|s| exponent_for(reach(&power(s), degree)));
                    e.map(|e| e.unwrap_or(0)).min().unwrap_or(0)
                })
                .collect();
            for slot in 0..len {
                // Chunk 1's lanes at their own exponents (a mixed chunk: a scale a lane).
                let own = exponent_for(reach(&power(slot), degree)).unwrap_or(0);
                let e = if slot / CHUNK == 1 {
                    own
                } else {
                    chunk_e[slot / CHUNK]
                };
                let mut c = quantize(&power(slot), Units { e });
                if slot % 13 == 0 {
                    // Products past i32 (wrapping), as the ring operations allow.
                    c[degree] = i32::MAX - slot as i32;
                    c[0] = i32::MIN + 3;
                }
                g.channel[slot] = slot as u32;
                g.set_scale(slot, pow2(-e) as f32);
                g.set(slot, &c[..=degree]);
                lanes.push((c, pow2(-e) as f32));
            }
            for u in -8..8 {
                let want: Vec<u32> = lanes
                    .iter()
                    .map(|(c, s)| (newton_i32(&c[..=degree], u) as f32 * s).to_bits())
                    .collect();
                let mut out = vec![f32::NAN; len];
                g.eval(&g.coef, u, 0, &mut out);
                let got: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, want, "degree {degree} u {u}: eval");
                let lanes = Lanes {
                    degree,
                    chunks: g.chunks,
                    coef: &g.coef,
                    scale: &g.scale,
                    lane_scale: &g.lane_scale,
                    broadcast: &g.broadcast,
                    mixed: &g.mixed,
                    start: 0,
                };
                for (name, kernel) in KERNELS {
                    let mut out = vec![f32::NAN; len];
                    let Some(done) = kernel(&lanes, u, &mut out) else {
                        continue;
                    };
                    assert_eq!(done, 5 * CHUNK, "degree {degree} u {u}: {name}");
                    let got: Vec<u32> = out[..done].iter().map(|v| v.to_bits()).collect();
                    assert_eq!(got, want[..done], "degree {degree} u {u}: {name}");
                    assert!(out[done..].iter().all(|v| v.is_nan()), "{name} wrote past");
                }
            }
        }
    }

    /// The registers this CPU (and compiler) can play the sweep on, by name, with the direct
    /// call of each loop (`None` where the CPU lacks it).
    fn sweep_registers() -> Vec<(&'static str, Registers)> {
        #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(unused_mut))]
        let mut all = vec![("generic", Registers::Any)];
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        {
            if std::is_x86_feature_detected!("avx2") {
                all.push(("AVX2", Registers::Avx2));
            }
            if avx512_usable() {
                all.push(("AVX-512", Registers::Avx512));
            }
        }
        all
    }

    /// `x86::sweep` called on `registers` (not through `IntLanes::sweep`'s fallback): whether
    /// it played the lanes.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    fn sweep_direct(registers: Registers, g: &Lanes<'_>, u: i32, out: &mut [f32]) -> bool {
        match registers {
            // SAFETY: `Registers::Avx2` only where AVX2 was detected (`sweep_registers`).
            #[allow(unsafe_code)]
            Registers::Avx2 => unsafe { sweep_avx2(g, u, out) },
            Registers::Avx512 => sweep_avx512(g, u, out),
            Registers::Any => false,
        }
    }

    /// Cubic lanes whose coefficients pass `pass::PREFETCH_UNTIL` bytes: the sweep's loop with
    /// chunk scales and prefetch.
    const LARGE_CUBIC: usize = crate::batch::pass::PREFETCH_UNTIL / 16 + 9;

    #[test]
    fn the_sweep_plays_the_checked_integers_bit_for_bit() {
        // Lanes as the check plays them (`quantize` of `shifted` power coefficients, Newton
        // units at the exponent their chunk shares, one chunk mixed), wrapping extremes,
        // and lanes of tracks played exactly (no scale, coefficients 0); every degree (1–3 by
        // the hand-written loop, the others through `eval`), every `u`; lengths of whole
        // chunks, an odd chunk count and a partial last chunk, a group past
        // `pass::PREFETCH_FROM` bytes and a cubic one past `pass::PREFETCH_UNTIL` (the loop
        // with chunk scales and prefetch); rows the whole
        // group and shorter; the group's arrays and a block. Each register kind the CPU has
        // must give `(newton_i32 as f32) · 2^-E` of the lane's own exponent, to the bit, and
        // write nothing past the row.
        for degree in 0..=5usize {
            let lens: &[usize] = if degree == 3 {
                &[1, 8, 31, 32, 96, 5 * CHUNK + 9, 33_000, LARGE_CUBIC]
            } else if (1..=2).contains(&degree) {
                &[1, 8, 31, 32, 96, 5 * CHUNK + 9, 33_000]
            } else {
                &[5 * CHUNK + 9]
            };
            for &len in lens {
                let mut g = IntLanes::new(degree, len);
                let mut lanes: Vec<([i32; MAX_TERMS], f32)> = Vec::new();
                let power = |slot: usize| {
                    let seed = slot as u32;
                    let b = coefficients(degree, seed, 300.0 + 40.0 * f64::from(seed % 7), 0.5);
                    shifted(&b, degree, f64::from(seed % 5) - 2.0)
                };
                let played = |slot: usize| slot % 11 != 4;
                let chunk_e: Vec<i32> = (0..len.div_ceil(CHUNK))
                    .map(|k| {
                        let slots = (k * CHUNK..((k + 1) * CHUNK).min(len)).filter(|&s| played(s));
                        let e = slots.map(|s| exponent_for(reach(&power(s), degree)));
                        e.map(|e| e.unwrap_or(0)).min().unwrap_or(0)
                    })
                    .collect();
                for slot in 0..len {
                    g.channel[slot] = slot as u32;
                    if !played(slot) {
                        lanes.push(([0; MAX_TERMS], 0.0));
                        continue;
                    }
                    let own = exponent_for(reach(&power(slot), degree)).unwrap_or(0);
                    let e = if slot / CHUNK == 2 {
                        own
                    } else {
                        chunk_e[slot / CHUNK]
                    };
                    let mut c = quantize(&power(slot), Units { e });
                    if slot % 17 == 0 {
                        c[degree] = i32::MAX - slot as i32;
                        c[0] = i32::MIN + 7;
                    }
                    g.set_scale(slot, pow2(-e) as f32);
                    g.set(slot, &c[..=degree]);
                    lanes.push((c, pow2(-e) as f32));
                }
                g.runs = crate::batch::records::channel_runs(&g.channel);
                // A block: other integers on the played lanes, 0 on the others.
                let terms = degree + 1;
                let mut block = g.coef.clone();
                let mut block_lanes = lanes.clone();
                for (slot, (c, s)) in block_lanes.iter_mut().enumerate() {
                    if *s == 0.0 {
                        continue;
                    }
                    for (k, x) in c.iter_mut().enumerate().take(terms) {
                        *x = x.wrapping_mul(3) ^ (slot as i32 & 0xff);
                        let at = chunked_index::<i32>(terms, slot, k);
                        block.as_flattened_mut()[at] = *x;
                    }
                }
                for u in -8..8 {
                    for (b, lanes) in [(None, &lanes), (Some(block.as_slice()), &block_lanes)] {
                        let want: Vec<u32> = lanes
                            .iter()
                            .map(|(c, s)| (newton_i32(&c[..=degree], u) as f32 * s).to_bits())
                            .collect();
                        for (name, registers) in sweep_registers() {
                            g.registers = registers;
                            for n in [len, len - len / 3] {
                                let mut out = vec![f32::NAN; n + 5];
                                g.sweep(b, u, &mut out[..n]);
                                let got: Vec<u32> = out[..n].iter().map(|v| v.to_bits()).collect();
                                let at = format!("{name} degree {degree} len {len} n {n} u {u}");
                                assert_eq!(got, want[..n], "{at}");
                                assert!(out[n..].iter().all(|v| v.is_nan()), "{at}: past");
                            }
                            // The loop itself played them (no fallback hides it).
                            #[cfg(all(feature = "std", target_arch = "x86_64"))]
                            if registers != Registers::Any {
                                let l = Lanes {
                                    degree,
                                    chunks: g.chunks,
                                    coef: b.unwrap_or(&g.coef),
                                    scale: &g.scale,
                                    lane_scale: &g.lane_scale,
                                    broadcast: &g.broadcast,
                                    mixed: &g.mixed,
                                    start: 0,
                                };
                                let mut out = vec![f32::NAN; len];
                                let done = sweep_direct(registers, &l, u, &mut out);
                                assert_eq!(done, (1..=3).contains(&degree), "{name} {degree}");
                                if done {
                                    let got: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
                                    assert_eq!(got, want, "{name} direct, degree {degree} u {u}");
                                }
                            }
                        }
                    }
                }
                // A row longer than the group: the lanes past it are left alone.
                let mut out = vec![f32::NAN; len + 3];
                g.registers = Registers::detect();
                g.sweep(None, 3, &mut out);
                assert!(out[len..].iter().all(|v| v.is_nan()), "past the group");
            }
        }
    }

    #[test]
    fn random_lanes_play_newton_i32_bit_for_bit() {
        // Integers of every bit pattern (a xorshift's 32 bits: products and sums that wrap,
        // shifts of negative numbers) on lanes of degrees 1–3, scales `2^-E` for `E` over
        // 0–126 (a chunk's own, one chunk's lanes each their own: mixed), every `u` of the
        // epoch: the sweep (each register kind the CPU has, and the hand-written loop called
        // directly: the cubic's `c_3·u² + c_2·u`), `eval` (the chunk walk with `u` a
        // constant) and `write_f64` against `newton_i32` lane by lane, to the bit; rows of a
        // partial last chunk, a group past `pass::PREFETCH_FROM` bytes and a cubic one past
        // `pass::PREFETCH_UNTIL`.
        let mut x = 0x2545_f491u32;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for degree in 1..=3usize {
            let large = if degree == 3 { LARGE_CUBIC } else { 33_000 };
            for len in [8, 3 * CHUNK + 13, 33_000, large] {
                let mut g = IntLanes::new(degree, len);
                let mut lanes: Vec<([i32; MAX_TERMS], f32)> = Vec::new();
                let chunk_e: Vec<i32> = (0..len.div_ceil(CHUNK))
                    .map(|_| (next() % 127) as i32)
                    .collect();
                for slot in 0..len {
                    let mut c = [0i32; MAX_TERMS];
                    for k in c.iter_mut().take(degree + 1) {
                        *k = next() as i32;
                    }
                    let e = if slot / CHUNK == 1 {
                        (next() % 127) as i32
                    } else {
                        chunk_e[slot / CHUNK]
                    };
                    g.channel[slot] = slot as u32;
                    g.set_scale(slot, pow2(-e) as f32);
                    g.set(slot, &c[..=degree]);
                    lanes.push((c, pow2(-e) as f32));
                }
                g.runs = crate::batch::records::channel_runs(&g.channel);
                for u in -8..8 {
                    let exact: Vec<i32> = lanes
                        .iter()
                        .map(|(c, _)| newton_i32(&c[..=degree], u))
                        .collect();
                    let want: Vec<u32> = exact
                        .iter()
                        .zip(&lanes)
                        .map(|(&v, (_, s))| (v as f32 * s).to_bits())
                        .collect();
                    let at = |how: &str| format!("{how}: degree {degree} len {len} u {u}");
                    for (name, registers) in sweep_registers() {
                        g.registers = registers;
                        let mut out = vec![f32::NAN; len];
                        g.sweep(None, u, &mut out);
                        let got: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
                        assert_eq!(got, want, "{}", at(name));
                        #[cfg(all(feature = "std", target_arch = "x86_64"))]
                        if registers != Registers::Any {
                            let l = Lanes {
                                degree,
                                chunks: g.chunks,
                                coef: &g.coef,
                                scale: &g.scale,
                                lane_scale: &g.lane_scale,
                                broadcast: &g.broadcast,
                                mixed: &g.mixed,
                                start: 0,
                            };
                            let mut out = vec![f32::NAN; len];
                            assert!(sweep_direct(registers, &l, u, &mut out), "{}", at(name));
                            let got: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
                            assert_eq!(got, want, "{}", at(name));
                        }
                    }
                    let mut out = vec![f32::NAN; len];
                    g.eval(&g.coef, u, 0, &mut out);
                    let got: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
                    assert_eq!(got, want, "{}", at("eval"));
                    let mut out = vec![f64::NAN; len];
                    g.write_f64(None, u, &mut out);
                    for (slot, (o, (&v, (_, s)))) in
                        out.iter().zip(exact.iter().zip(&lanes)).enumerate()
                    {
                        assert_eq!(
                            *o,
                            f64::from(v) * f64::from(*s),
                            "{} slot {slot}",
                            at("f64")
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn lean_records_store_what_the_records_store() {
        // Records of every degree 0–4 (cubic: the 128-bit stores where the CPU has AVX2, else
        // and otherwise the generic loop) at lanes all over a group, numbers with every bit
        // pattern (wrapping extremes too), two records of one lane in a frame (the later wins);
        // the whole list and a filtered one (every other record), each on every register kind
        // the CPU has, against stores by hand at `chunked_index`; a block too short for the
        // largest position (the checked loop: those records skipped). And a cubic group past
        // `records::PREFETCH_FROM` bytes, whose records `store` prefetches (by the 128-bit stores
        // where the CPU has AVX2, else the generic loop).
        let large = 270_003u32;
        let bytes = (large as usize).div_ceil(CHUNK) * CHUNK * 4 * 4;
        assert!(bytes - CHUNK * 4 * 4 >= crate::batch::records::PREFETCH_FROM);
        for (lanes, terms) in (1..=5usize).map(|t| (203u32, t)).chain([(large, 4)]) {
            let mut records = IntScript::default();
            let mut kept: Vec<Vec<(usize, Vec<i32>)>> = Vec::new();
            let mut x = 0x9e37_79b9u32.wrapping_mul(terms as u32);
            for frame in 0..5usize {
                records.start.push(records.slots().len() as u32);
                let mut frame_records = Vec::new();
                for r in 0..(6 + 3 * frame) {
                    x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    let lane = if r == 1 {
                        frame_records.first().map_or(0, |&(l, _)| l)
                    } else {
                        ((x >> 7) % lanes) as usize
                    };
                    let mut coef: Vec<i32> = (0..terms)
                        .map(|k| x.rotate_left(5 * k as u32) as i32)
                        .collect();
                    if r == 2 {
                        coef[0] = i32::MIN;
                        coef[terms - 1] = i32::MAX;
                    }
                    records.push_components((lane as u32, 0, 1), &coef, terms);
                    frame_records.push((lane, coef));
                }
                kept.push(frame_records);
            }
            records.start.push(records.slots().len() as u32);
            assert!(records.index_chunks(terms));
            let first = |r: usize| r % 2 == 0;
            let filtered = records.filtered(terms, |_, r| first(r));
            let size = (lanes as usize).div_ceil(CHUNK) * CHUNK * terms;
            let mut r = 0;
            let mut by_hand = [vec![0i32; size], vec![0i32; size]];
            let mut want = [Vec::new(), Vec::new()];
            for frame in &kept {
                for (lane, coef) in frame {
                    for (list, values) in by_hand.iter_mut().enumerate() {
                        if list == 0 || first(r) {
                            for (k, &c) in coef.iter().enumerate() {
                                values[chunked_index::<i32>(terms, *lane, k)] = c;
                            }
                        }
                    }
                    r += 1;
                }
                for (w, v) in want.iter_mut().zip(&by_hand) {
                    w.push(v.clone());
                }
            }
            for (list, (hot, name)) in [(&records, "all"), (&filtered, "filtered")]
                .into_iter()
                .enumerate()
            {
                for (registers_name, registers) in sweep_registers() {
                    let lean = LeanRecords {
                        records: hot.clone(),
                        registers,
                    };
                    let at = format!("{name}, {registers_name}, {terms} orders, {lanes} lanes");
                    let mut values = vec![0i32; size];
                    for (i, want) in want[list].iter().enumerate() {
                        lean.store(i, terms, &mut values);
                        assert_eq!(&values, want, "{at}, frame {i}");
                    }
                    // Too short for the last chunk: its records are skipped, the rest stored.
                    let short = size - CHUNK * terms;
                    let mut values = vec![0i32; short];
                    let mut reference = vec![0i32; short];
                    for i in 0..kept.len() {
                        lean.store(i, terms, &mut values);
                        hot.store_chunked(i, terms, &mut reference);
                    }
                    assert_eq!(values, reference, "{at}, short block");
                    assert_eq!(
                        values[..],
                        want[list].last().unwrap()[..short],
                        "{at}, short"
                    );
                }
            }
        }
    }

    #[test]
    fn records_stored_in_the_pass_equal_records_stored_first() {
        // Cubic groups below `FUSE_FROM` bytes (records stored first), past it (the pass in
        // parts; an odd chunk count and a partial last chunk) and past `pass::PREFETCH_UNTIL`
        // (the large loop in parts); every third chunk mixed; two frames of records at lanes
        // all over the group, ordered by position (`sort_frames`), two of one lane in a frame
        // (the later wins), numbers with every bit pattern; rows the whole group and shorter
        // (records past the row stored too); every `u` (a few for the largest group); every
        // register kind the CPU has. The block and the row must be `LeanRecords::store` then
        // `sweep`'s, bit for bit, and nothing written past the row; the pass itself must have
        // stored them wherever it applies. The sorted list must store what the unsorted one does.
        for len in [1000usize, 3001, 33_009, LARGE_CUBIC] {
            let mut g = IntLanes::new(3, len);
            for slot in 0..len {
                g.channel[slot] = slot as u32;
                let chunk = (slot / CHUNK) as i32;
                let e = if chunk % 3 == 2 {
                    slot as i32 % 30
                } else {
                    chunk % 30
                };
                g.set_scale(slot, pow2(-e) as f32);
            }
            g.runs = crate::batch::records::channel_runs(&g.channel);
            let block: Vec<[i32; CHUNK]> = (0..g.coef.len())
                .map(|c| {
                    core::array::from_fn(|j| ((c * CHUNK + j) as i32).wrapping_mul(-0x61c8_8647))
                })
                .collect();
            let mut unsorted = IntScript::default();
            let mut x = 0x2545_f491u32;
            for _ in 0..2 {
                unsorted.start.push(unsorted.slots().len() as u32);
                let mut first = 0;
                for r in 0..len / 30 + 3 {
                    x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    let lane = if r == 1 {
                        first
                    } else {
                        (x >> 5) as usize % len
                    };
                    first = if r == 0 { lane } else { first };
                    let coef: Vec<i32> = (0..4).map(|k| x.rotate_left(7 * k) as i32).collect();
                    unsorted.push_components((lane as u32, 0, 1), &coef, 4);
                }
            }
            unsorted.start.push(unsorted.slots().len() as u32);
            assert!(unsorted.index_chunks(4));
            let mut sorted = unsorted.clone();
            sorted.sort_frames(4);
            for i in 0..2 {
                let (from, to) = sorted.range(i);
                let slots = &sorted.slots()[from..to];
                assert!(
                    slots.windows(2).all(|w| w[0] <= w[1]),
                    "len {len}: frame {i} ordered"
                );
            }
            let us: Vec<i32> = if len > 100_000 {
                vec![-8, 0, 1, 5]
            } else {
                (-8..8).collect()
            };
            for (name, registers) in sweep_registers() {
                g.registers = registers;
                let lean = LeanRecords {
                    records: sorted.clone(),
                    registers,
                };
                let plain = LeanRecords {
                    records: unsorted.clone(),
                    registers,
                };
                let fuses = registers != Registers::Any && len * 16 >= FUSE_FROM;
                assert_eq!(g.fuses(), fuses, "{name} len {len}");
                for &u in &us {
                    for n in [len, len - len / 3] {
                        let at = format!("{name} len {len} n {n} u {u}");
                        let (mut first, mut fused, mut unordered) =
                            (block.clone(), block.clone(), block.clone());
                        for i in 0..2 {
                            let mut want = vec![f32::NAN; n + 5];
                            lean.store(i, 4, first.as_flattened_mut());
                            g.sweep(Some(&first), u, &mut want[..n]);
                            plain.store(i, 4, unordered.as_flattened_mut());
                            assert_eq!(unordered, first, "{at} frame {i}: sorted stores");
                            let mut got = vec![f32::NAN; n + 5];
                            let in_pass = g.sweep_records(&mut fused, &lean, i, u, &mut got[..n]);
                            assert_eq!(in_pass, fuses, "{at} frame {i}: stored in the pass");
                            assert_eq!(fused, first, "{at} frame {i}: block");
                            let bits =
                                |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                            assert_eq!(bits(&got), bits(&want), "{at} frame {i}: row");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn avx2_and_default_paths_agree() {
        // Every degree (1–3: the kernels compiled per u), every u, every slot, from a chunk
        // boundary (whole chunks and a partial one) and from inside a chunk: the vector passes
        // against each other and against `newton_i32`, including wrapping products.
        let len = 3001;
        for degree in 0..=5 {
            let mut g = IntLanes::new(degree, len);
            let mut coef = Vec::new();
            // A chunk's lanes share its scale, but every third chunk's differ (mixed).
            let scale = |slot: usize| match slot / CHUNK {
                k if k % 3 == 2 => pow2(-(slot as i32 % 40)) as f32,
                k => pow2(-(k as i32 % 40)) as f32,
            };
            for slot in 0..len {
                let s = slot as i32;
                g.channel[slot] = slot as u32;
                g.set_scale(slot, scale(slot));
                let c = [s * 1000 - 7, -s * 31, s * s - 5, 3 - s, s << 20, -(s << 19)];
                g.set(slot, &c[..=degree]);
                coef.push(c);
            }
            for u in -8..8 {
                for start in [0, 45, 96] {
                    let n = len - start;
                    let (mut x, mut y) = (vec![0.0f32; n], vec![0.0f32; n]);
                    g.eval(&g.coef, u, start, &mut x);
                    let lanes = Lanes {
                        degree,
                        chunks: g.chunks,
                        coef: &g.coef,
                        scale: &g.scale,
                        lane_scale: &g.lane_scale,
                        broadcast: &g.broadcast,
                        mixed: &g.mixed,
                        start,
                    };
                    eval_any(&lanes, u, &mut y);
                    for (i, (a, b)) in x.iter().zip(&y).enumerate() {
                        let slot = start + i;
                        let want = newton_i32(&coef[slot][..=degree], u) as f32 * scale(slot);
                        let at = format!("degree {degree} slot {slot} u {u} from {start}");
                        assert_eq!(a.to_bits(), want.to_bits(), "{at}");
                        assert_eq!(b.to_bits(), want.to_bits(), "{at}");
                    }
                }
            }
        }
    }
}
