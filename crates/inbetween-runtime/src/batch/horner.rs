//! Horner lanes: each piece converted once to f32 power coefficients about a centre shared by every lane (re-centred every `EPOCH` frames), played by f32 Horner evaluation straight into the caller's row.
//!
//! # Arithmetic (what is verified is what plays)
//!
//! A piece entered at integer frame `p` with forward differences `Δ^k` (the state `TrackPlayer`
//! loads there) is the polynomial `P(p + t) = Σ_k Δ^k · C(t, k)`. [`power_from_differences`]
//! turns it into power coefficients `a_j = Σ_k Δ^k · s(k, j) / k!` (f64; `s` the signed Stirling
//! numbers of the first kind), kept cold per lane with the origin `p`. Integer frame `n` belongs to
//! the epoch `⌊n / EPOCH⌋` whose centre is `C(n) = ⌊n / EPOCH⌋ · EPOCH + EPOCH / 2`; the lane's
//! coefficients about that centre are [`centred`]: the Taylor shift of `a` by `C − p` in f64
//! (`b_k += d · b_{k+1}`, in one fixed order), each rounded once to f32 — or, in an epoch the
//! piece plays only a few frames of, the lower-degree polynomial through its values there when
//! that has smaller terms ([`epoch_coefficients`], which chooses). The played value is
//! [`horner`]: `v = c_D; v = v · t + c_k` for k = D−1 … 0, in f32 without fused multiply-add
//! (Rust never contracts), `t = n − C ∈ [−8, 8)` exact in f32. In the epochs after a piece's
//! first, a one-component track may instead keep the previous epoch's f32 coefficients
//! re-centred by [`shift_epoch`] (the Taylor shift by `EPOCH` in f32), which forward play
//! computes in place rather than reading the next epoch's block (`live`); the check decides
//! epoch by epoch ([`verify_components_chained`]) and `Bank::new` builds the blocks from its
//! decisions. Everything here depends only on (piece, integer frame), so one pass over every
//! integer frame of every piece in `Bank::new` ([`verify_components_chained`]) checks every
//! value forward play can ever produce, whatever seek it started from: the same functions
//! compute the coefficients for play and for the check, bit for bit.

use alloc::vec::Vec;

use crate::stream::layout::MAX_TERMS;

/// Frames per epoch: every `EPOCH` frames all lanes move to the next centre (the next
/// precomputed block, played in place: `live`), and `|t| ≤ EPOCH / 2` keeps the
/// f32 Horner error small: the error grows like `ulp · Σ |c_k| |t|^k`, and at 32 frames per epoch 17 % of the
/// benchmark's cubic tracks (bezier segments 8 frames long) missed a 1e-6 × scale tolerance,
/// at 16 frames 0.4 %.
pub(crate) const EPOCH: i64 = 16;

/// Centre of the epoch that integer frame `n` belongs to.
#[inline]
#[must_use]
pub(crate) fn centre(n: i64) -> i64 {
    n.div_euclid(EPOCH) * EPOCH + EPOCH / 2
}

/// Signed Stirling numbers of the first kind `s(k, j)` for k, j ≤ 8: `t(t−1)…(t−k+1) = Σ_j s(k, j) t^j`.
const STIRLING: [[i64; MAX_TERMS]; MAX_TERMS] = stirling();

const fn stirling() -> [[i64; MAX_TERMS]; MAX_TERMS] {
    let mut s = [[0i64; MAX_TERMS]; MAX_TERMS];
    s[0][0] = 1;
    let mut k = 1;
    while k < MAX_TERMS {
        let mut j = 1;
        while j <= k {
            // s(k, j) = s(k−1, j−1) − (k−1) · s(k−1, j)
            s[k][j] = s[k - 1][j - 1] - (k as i64 - 1) * s[k - 1][j];
            j += 1;
        }
        k += 1;
    }
    s
}

/// `k!` for k ≤ 8.
const FACTORIAL: [f64; MAX_TERMS] = [1.0, 1.0, 2.0, 6.0, 24.0, 120.0, 720.0, 5040.0, 40320.0];

/// Power coefficients about the origin of the forward differences `d` (orders 0..d.len()):
/// `a_j = Σ_k d_k · s(k, j) / k!`, zero above the degree.
#[must_use]
pub(crate) fn power_from_differences(d: &[f64]) -> [f64; MAX_TERMS] {
    let mut a = [0.0; MAX_TERMS];
    for (k, (dk, row)) in d.iter().zip(&STIRLING).enumerate() {
        let f = FACTORIAL.get(k).copied().unwrap_or(1.0);
        for (aj, &s) in a.iter_mut().zip(row).take(k + 1) {
            *aj += dk * s as f64 / f;
        }
    }
    a
}

/// The coefficients of power coefficients `a` (about their origin, padded to the group degree
/// `n`) about the point `d` frames later, in f64 (a Taylor shift), then each rounded once to f32
/// ([`round`]). The lanes' re-centring (`HornerGroup::recentre`) does the same operations in the
/// same order.
#[must_use]
pub(crate) fn centred(a: &[f64; MAX_TERMS], n: usize, d: f64) -> [f32; MAX_TERMS] {
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
    b.map(round)
}

/// Coefficients about the next epoch's centre from `c` (degree `n`) about this one's, in f32:
/// the Taylor shift by `EPOCH` (`c_j += 16 · c_{j+1}` for `j = n − 1 … k`, passes `k = 0 … n − 1`;
/// the products by 16 are exact, each sum rounds once, no fused multiply-add). Forward play
/// re-centres a lane this way at an epoch switch instead of reading the next block, where the
/// check accepted it ([`verify_components_chained`]); [`shift_lanes`] is the same on a chunk's
/// lanes, bit for bit.
#[inline]
#[must_use]
pub(crate) fn shift_epoch(mut c: [f32; MAX_TERMS], n: usize) -> [f32; MAX_TERMS] {
    let n = n.min(MAX_TERMS - 1);
    const D: f32 = EPOCH as f32;
    for k in 0..n {
        for j in (k..n).rev() {
            c[j] += D * c[j + 1];
        }
    }
    c
}

/// [`shift_epoch`] on every lane of one lane-chunk of `N` orders (degree `N − 1`, lowest
/// order first), in place: the same operations in the same order, so the same bits.
#[inline(always)]
pub(crate) fn shift_lanes<const N: usize>(orders: &mut [[f32; CHUNK]; N]) {
    const D: f32 = EPOCH as f32;
    for k in 0..N.saturating_sub(1) {
        for j in (k..N - 1).rev() {
            let (low, high) = orders.split_at_mut(j + 1);
            if let (Some(x), Some(y)) = (low.last_mut(), high.first()) {
                for (x, y) in x.iter_mut().zip(y) {
                    *x += D * *y;
                }
            }
        }
    }
}

/// Epochs after a piece's first for which [`verify_components_chained`] may accept the
/// re-centred coefficients (a bit each in a `u64`, bit 0 the first epoch, never set).
pub(crate) const CHAINED_EPOCHS: i64 = 64;

/// The f32 coefficients about the epoch centre `centre` that a piece plays in that epoch: the
/// piece has power coefficients `a` about its origin `origin` (padded to the group degree `n`)
/// and plays frames `from .. to` of the epoch. By default they are [`centred`]: the Taylor
/// shift of `a` by `centre − origin`. But a piece that plays only a few frames of an epoch,
/// at its edge, sees a centre up to 15 frames outside itself, where its cubic (say) has grown
/// to hundreds while its values stay near 100: the f32 Horner sum of those large terms cancels
/// with errors beyond a `1e-6 × scale` budget (the four tracks of the 1 000-channel benchmark
/// that played on exact lanes until session 11, each at one or three frames). So when the
/// piece plays no more frames there than the group has orders (`to − from ≤ n`), the
/// polynomial of degree `to − from − 1` through the piece's values at those frames — the same
/// values there in exact arithmetic, much smaller terms (a constant for one frame) — is the
/// candidate too: the forward differences at `from` of the [`horner_f64`] values there,
/// [`power_from_differences`], [`centred`] by `centre − from`. Of the two, the one with the
/// smaller rounding scale `Σ |c_k| · T^k` (`T` the largest `|t|` played there) plays, the
/// Taylor shift on a tie. Everything depends only on (piece, epoch): the script's records, the
/// epoch blocks and the check ([`verify_components`]) compute the same bits here, and the check
/// judges whichever plays.
#[must_use]
pub(crate) fn epoch_coefficients(
    a: &[f64; MAX_TERMS],
    n: usize,
    origin: i64,
    (from, to): (i64, i64),
    centre: i64,
) -> [f32; MAX_TERMS] {
    let n = n.min(MAX_TERMS - 1);
    let m = to.saturating_sub(from);
    let Some(m) = usize::try_from(m).ok().filter(|&m| m >= 1 && m <= n) else {
        return centred(a, n, (centre - origin) as f64);
    };
    let orders = a.get(..=n).unwrap_or(&[]);
    let mut d = [0.0; MAX_TERMS];
    for (j, y) in d.iter_mut().enumerate().take(m) {
        *y = horner_f64(orders, (from - origin) as f64 + j as f64);
    }
    // Forward differences in place: after pass `k`, `d[k]` is `Δ^k` at `from`.
    for k in 1..m {
        for j in (k..m).rev() {
            let prev = d.get(j - 1).copied().unwrap_or(0.0);
            if let Some(x) = d.get_mut(j) {
                *x -= prev;
            }
        }
    }
    let b = power_from_differences(d.get(..m).unwrap_or(&[]));
    let fitted = centred(&b, n, (centre - from) as f64);
    let taylor = centred(a, n, (centre - origin) as f64);
    // The smaller of the two rounding-error scales `Σ |c_k| · T^k` (`T` the largest `|t|`
    // played), the Taylor shift on a tie.
    let far = (from - centre).abs().max((to - 1 - centre).abs()) as f64;
    let scale = |c: &[f32; MAX_TERMS]| {
        let terms = c.iter().take(n + 1).rev();
        terms.fold(0.0, |s, &x| s * far + f64::from(x.abs()))
    };
    if scale(&fitted) < scale(&taylor) {
        fitted
    } else {
        taylor
    }
}

/// A coefficient rounded to f32 (0 below `TINY`).
#[inline]
fn round(x: f64) -> f32 {
    if x.abs() < TINY {
        0.0
    } else {
        x as f32
    }
}

/// Coefficients below this are played as 0: subnormal f32 operands cost ~100 cycles each on
/// many CPUs, and `|c| · 16^8 < 1e-20` is far below any tolerance (the verification sees the
/// zero).
const TINY: f64 = 1e-30;

/// `c_n · t^n + … + c_0` by Horner's rule in f32 (no fused multiply-add), `n = c.len() − 1`.
#[inline]
#[must_use]
pub(crate) fn horner(c: &[f32], t: f32) -> f32 {
    let Some((&top, rest)) = c.split_last() else {
        return 0.0;
    };
    let mut v = top;
    for &x in rest.iter().rev() {
        v = v * t + x;
    }
    v
}

/// `a_n · t^n + … + a_0` by Horner's rule in f64: the value `write_f64` gives for a lane whose
/// f32 value is not within the budget itself (`a` about the piece origin, `t` frames after it).
#[inline]
#[must_use]
pub(crate) fn horner_f64(a: &[f64], t: f64) -> f64 {
    let Some((&top, rest)) = a.split_last() else {
        return 0.0;
    };
    let mut v = top;
    for &x in rest.iter().rev() {
        v = v * t + x;
    }
    v
}

/// Half the distance from `v` to the next f32 away from zero: the rounding any f32 output of a
/// value near `v` may carry.
#[must_use]
pub(crate) fn half_ulp(v: f32) -> f64 {
    let a = v.abs();
    let next = f32::from_bits(a.to_bits().saturating_add(1));
    0.5 * (f64::from(next) - f64::from(a))
}

/// What [`verify_piece`] found for one piece of one channel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Verdict {
    /// The f32 Horner value is within the budget at every frame.
    pub(crate) strict: bool,
    /// The f32 Horner value is within the budget plus its own half ulp at every frame (the
    /// promise of an f32 output).
    pub(crate) f32_output: bool,
    /// [`horner_f64`] of the power coefficients is within the budget at every frame.
    pub(crate) f64_output: bool,
}

/// Checks one piece of one channel: `differences` are the state at integer frame `origin`,
/// played forward for `run` frames (frames `origin .. origin + run`). The reference at each frame
/// is `TrackPlayer`'s own arithmetic (f64 additions of the differences); the played values are
/// [`horner`] of [`epoch_coefficients`] padded to `group_degree` (f32) and [`horner_f64`] of
/// the power coefficients (f64). [`verify_components`] with one component, nothing applied.
#[cfg(test)]
#[must_use]
pub(crate) fn verify_piece(
    differences: &[f64],
    origin: i64,
    run: i64,
    group_degree: usize,
    budget: f64,
) -> Verdict {
    verify_piece_chained(differences, origin, run, group_degree, budget, false).0
}

/// [`verify_piece`], and with `chain` the epochs it may re-centre by [`shift_epoch`]
/// ([`verify_components_chained`]'s mask).
#[must_use]
pub(crate) fn verify_piece_chained(
    differences: &[f64],
    origin: i64,
    run: i64,
    group_degree: usize,
    budget: f64,
    chain: bool,
) -> (Verdict, u64) {
    let played = |c: [&[f32]; 1], t| [horner(c[0], t)];
    verify_components_chained(
        [differences],
        (origin, run),
        group_degree,
        budget,
        (played, |v| v),
        chain,
    )
}

/// The check of one piece of `C` components played together (the epoch walk of every check):
/// `differences[c]` is component `c`'s state at integer frame `origin` (all of one length),
/// played for `run` frames. At each frame, of the [`epoch_coefficients`] f32 coefficients (padded to
/// `group_degree`) and `t`, `played` is what the f32 output plays, `raw` their [`horner`]
/// values (what `write_f64` widens), and `wide` what the f64 output applies: the reference is
/// `wide` of `TrackPlayer`'s f64 additions; `f32_output` holds when `played` is within `budget`
/// plus its half ulp, `strict` when `wide(raw)` (widened) is within `budget`, `f64_output` when
/// `wide` of the [`horner_f64`] values is. Scalar channels play [`horner`] and apply nothing;
/// normalized quaternions (`normalize::verify_piece`) play it normalized (`normalize_quat_f32`,
/// or `quat_lanes`' fused multiply-add arithmetic) and apply `normalize4`.
#[must_use]
pub(crate) fn verify_components<const C: usize>(
    differences: [&[f64]; C],
    at: (i64, i64),
    group_degree: usize,
    budget: f64,
    arithmetic: (
        impl Fn([&[f32]; C], f32) -> [f32; C],
        impl Fn([f64; C]) -> [f64; C],
    ),
) -> Verdict {
    verify_components_chained(differences, at, group_degree, budget, arithmetic, false).0
}

/// [`verify_components`], and with `chain` the epochs whose coefficients forward play may
/// re-centre from the previous epoch's by [`shift_epoch`] instead of taking
/// [`epoch_coefficients`]: bit `k` of the mask is set when, in the piece's `k`-th epoch after
/// its first (`1 ≤ k <` [`CHAINED_EPOCHS`]), the shifted coefficients of what it played in the
/// epoch before hold the budget at every frame it plays there, for the f32 output and widened
/// (`f32_output` and `strict`); those then play there (and are what the next epoch shifts),
/// else the epoch's own. The verdict judges whichever play, so a set bit never weakens it.
#[must_use]
pub(crate) fn verify_components_chained<const C: usize>(
    differences: [&[f64]; C],
    (origin, run): (i64, i64),
    group_degree: usize,
    budget: f64,
    (played, wide): (
        impl Fn([&[f32]; C], f32) -> [f32; C],
        impl Fn([f64; C]) -> [f64; C],
    ),
    chain: bool,
) -> (Verdict, u64) {
    let n = differences
        .first()
        .map_or(0, |d| d.len().saturating_sub(1))
        .min(MAX_TERMS - 1);
    let group_degree = group_degree.clamp(n, MAX_TERMS - 1);
    let terms = group_degree + 1;
    let a = differences.map(power_from_differences);
    let mut state = [[0.0f64; MAX_TERMS]; C];
    for (s, d) in state.iter_mut().zip(differences) {
        for (x, y) in s.iter_mut().zip(d) {
            *x = *y;
        }
    }
    let mut verdict = Verdict {
        strict: true,
        f32_output: true,
        f64_output: true,
    };
    let mut mask = 0u64;
    let mut previous: Option<[[f32; MAX_TERMS]; C]> = None;
    let first_epoch = origin.div_euclid(EPOCH);
    let mut frame = origin;
    let end = origin.saturating_add(run);
    while frame < end && (verdict.f32_output || verdict.f64_output) {
        let c = centre(frame);
        let epoch_end = (c + EPOCH / 2).min(end);
        let k = frame.div_euclid(EPOCH) - first_epoch;
        // The reference and the f64 output's values at the epoch's frames.
        let count = (epoch_end - frame) as usize;
        let mut reference = [[0.0f64; C]; EPOCH as usize];
        let mut far = [[0.0f64; C]; EPOCH as usize];
        let frames = count.min(EPOCH as usize);
        for (j, (r, f)) in reference.iter_mut().zip(&mut far).enumerate().take(frames) {
            *r = wide(state.map(|s| s[0]));
            let at = (frame + j as i64 - origin) as f64;
            *f = wide(core::array::from_fn(|m| {
                horner_f64(a[m].get(..terms).unwrap_or(&[]), at)
            }));
            for s in &mut state {
                for i in 0..n {
                    s[i] += s[i + 1];
                }
            }
        }
        // Whether coefficients hold the budget at the epoch's frames: (f32 output, widened).
        let holds = |coef: &[[f32; MAX_TERMS]; C]| {
            let (mut output, mut strict) = (true, true);
            for (j, r) in reference.iter().enumerate().take(frames) {
                let t = (frame + j as i64 - c) as f32;
                let orders = coef.each_ref().map(|c| c.get(..terms).unwrap_or(&[]));
                let played = played(orders, t);
                let widened = wide(orders.map(|c| f64::from(horner(c, t))));
                for m in 0..C {
                    output &= (f64::from(played[m]) - r[m]).abs() <= budget + half_ulp(played[m]);
                    strict &= (widened[m] - r[m]).abs() <= budget;
                }
            }
            (output, strict)
        };
        let fresh = a
            .each_ref()
            .map(|a| epoch_coefficients(a, group_degree, origin, (frame, epoch_end), c));
        // The shifted coefficients play where they hold whatever the epoch's own hold; the
        // verdict takes what holds of those that play (computed once each).
        let own = holds(&fresh);
        let shifted = previous
            .filter(|_| chain && (1..CHAINED_EPOCHS).contains(&k))
            .map(|p| p.map(|c| shift_epoch(c, group_degree)))
            .map(|s| (s, holds(&s)))
            .filter(|&(_, (output, strict))| {
                output >= own.0 && strict >= own.1 && (output || strict)
            });
        if shifted.is_some() {
            mask |= 1 << k;
        }
        let (coef, (output, strict)) = shifted.unwrap_or((fresh, own));
        verdict.f32_output &= output;
        verdict.strict &= strict;
        for (r, f) in reference.iter().zip(&far).take(frames) {
            for m in 0..C {
                verdict.f64_output &= (f[m] - r[m]).abs() <= budget;
            }
        }
        previous = Some(coef);
        frame = epoch_end;
    }
    (verdict, mask)
}

/// Lanes per chunk of the f32 lanes' coefficient arrays: one AVX2 vector (two SSE2 ones). A
/// group holds its lanes in whole chunks (the last one padded with lanes that play 0 and are
/// never output), each chunk its `D + 1` orders one after the other, so a lane's coefficients
/// lie within `32 (D + 1)` bytes — a cubic lane's 16 B within 128 B, two cache lines of a block
/// on lines ([`Chunks`]), which is what a piece-change record dirties (four lines at 32 lanes
/// a chunk, its numbers 128 B apart) — and the main pass walks one array of `[f32; CHUNK]`
/// front to back, [`step`]`(CHUNK)` = 4 chunks (four AVX2 vectors) a step. The i32 lanes
/// have their own width, [`INT_CHUNK`].
pub(crate) const CHUNK: usize = 8;

/// Bytes of a cubic group's coefficients from which the f32 lanes store a frame's records in
/// the pass ([`HornerGroup::sweep_records`]): 40 KiB, as the i32 lanes (`fixed32`'s
/// `FUSE_FROM`), about this machine's 48 KiB L1 data cache.
pub(crate) const FUSE_FROM: usize = 40 << 10;

/// Chunks a part of [`HornerGroup::sweep_records`]: 64 (512 lanes, 8 KiB of cubic
/// coefficients, as the i32 lanes' parts).
const PART: usize = 64;

/// Lanes per chunk of the i32 lanes (`fixed32`): four AVX2 vectors (eight SSE2 ones), the
/// layout of [`CHUNK`] otherwise. At 8 lanes a chunk the compiler leaves the i32 kernel (the
/// chunk loop of `pass::walk`'s `SPLIT` form) scalar: 9.7 instructions a fixed channel-frame
/// against 3.1 at 32 (session 7), so the i32 chunks stay at 32 lanes.
pub(crate) const INT_CHUNK: usize = 32;

/// Chunks of `width` lanes per step of the f32 pass (`pass::walk`): enough for four AVX2
/// vectors, the independent Horner chains that keep the multiplier busy (1 from 32 lanes a
/// chunk).
#[must_use]
pub(crate) const fn step(width: usize) -> usize {
    if width >= 32 {
        1
    } else {
        32 / width
    }
}

/// Chunks of `width` lanes per alignment unit of [`Chunks`]: as many as fill a 64-byte cache
/// line, at least one (a chunk of 32 lanes is two lines, and starts on one).
#[must_use]
pub(crate) const fn line(width: usize) -> usize {
    if 4 * width >= 64 {
        1
    } else {
        64 / (4 * width)
    }
}

/// A lane number of 4 bytes (the f32 and the i32 lanes): what [`Chunks`] stores, with the
/// chunk width of its lanes.
pub(crate) trait LaneWord: Copy + Default + core::fmt::Debug {
    /// Lanes per chunk of this kind of lanes ([`CHUNK`], [`INT_CHUNK`]): a chunk of them is
    /// `[Self; Self::CHUNK]`, and a record's `D + 1` numbers are `Self::CHUNK` apart.
    const CHUNK: usize;
}
impl LaneWord for f32 {
    const CHUNK: usize = CHUNK;
}
impl LaneWord for i32 {
    const CHUNK: usize = INT_CHUNK;
}

/// Words of a 64-byte line.
const WORDS: usize = 16;

/// One 64-byte cache line of lane words, aligned to it.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Line<T>([T; WORDS]);

impl<T: LaneWord> Default for Line<T> {
    fn default() -> Self {
        Self([T::default(); WORDS])
    }
}

const _: () = assert!(core::mem::size_of::<Line<f32>>() == 64);
const _: () = assert!(core::mem::size_of::<Line<i32>>() == 64);

/// `len` chunks of `W` lanes (`W = T::CHUNK`) whose storage starts on a 64-byte line (the
/// epoch blocks): with the allocator's 16-byte alignment every other AVX2 load of the pass
/// straddled two lines, and a cubic lane's 128 bytes three lines instead of two. Used as a
/// slice of chunks (`Deref`).
#[derive(Debug, Clone)]
pub(crate) struct Chunks<T, const W: usize> {
    lines: Vec<Line<T>>,
    len: usize,
}

impl<T, const W: usize> Default for Chunks<T, W> {
    fn default() -> Self {
        Self {
            lines: Vec::new(),
            len: 0,
        }
    }
}

impl<T: LaneWord, const W: usize> Chunks<T, W> {
    /// `W` is the lanes' own width, and a chunk is whole lines or a whole fraction of one.
    const WIDTH: () = assert!(W == T::CHUNK && (W % WORDS == 0 || WORDS % W == 0));

    /// `len` chunks of zeros.
    pub(crate) fn zeroed(len: usize) -> Self {
        let () = Self::WIDTH;
        Self {
            lines: alloc::vec![Line::default(); len.saturating_mul(W).div_ceil(WORDS)],
            len,
        }
    }

    /// Chunks the lines hold (at least `len` unless the allocation was cut short).
    fn held(&self) -> usize {
        self.len.min(self.lines.len() * WORDS / W)
    }
}

impl<T: LaneWord, const W: usize> core::ops::Deref for Chunks<T, W> {
    type Target = [[T; W]];

    fn deref(&self) -> &[[T; W]] {
        let len = self.held();
        // SAFETY: `Line<T>` is `repr(C)` and holds exactly `WORDS` values `T` with no padding
        // (`T` is f32 or i32, `LaneWord`; its size is 64, asserted at compile time for both),
        // so `lines` is `WORDS · lines.len()` contiguous, initialized `T`, of which `len ≤
        // WORDS · lines.len() / W` arrays `[T; W]` (no padding in an array) fill the front;
        // they are aligned (64 is a multiple of their alignment, 4); the slice borrows `self`,
        // so the vector is neither freed nor written while it lives.
        // `aligned_chunks_read_and_write_as_a_slice` checks it for both widths.
        #[allow(unsafe_code)]
        unsafe {
            core::slice::from_raw_parts(self.lines.as_ptr().cast::<[T; W]>(), len)
        }
    }
}

impl<T: LaneWord, const W: usize> core::ops::DerefMut for Chunks<T, W> {
    fn deref_mut(&mut self) -> &mut [[T; W]] {
        let len = self.held();
        // SAFETY: as in `deref`; the slice borrows `self` mutably, so it is the only access.
        #[allow(unsafe_code)]
        unsafe {
            core::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<[T; W]>(), len)
        }
    }
}

/// Stores `values` (orders 0..; missing ones 0) as lane `slot`'s `terms` orders in `coef`
/// (the chunked layout of [`chunked_index`]): the test loader of the f32 and i32 groups.
#[cfg(test)]
pub(crate) fn set_lane<T: LaneWord, const W: usize>(
    coef: &mut [[T; W]],
    terms: usize,
    slot: usize,
    values: &[T],
) {
    let coef = coef.as_flattened_mut();
    for k in 0..terms {
        if let Some(x) = coef.get_mut(chunked_index::<T>(terms, slot, k)) {
            *x = values.get(k).copied().unwrap_or_default();
        }
    }
}

/// Where order `k` of lane `slot` lives in a group of `terms` orders of `T` lanes, flattened:
/// chunk `slot / W` holds `terms` arrays of `W` lanes, order after order (`W = T::CHUNK`).
#[inline]
#[must_use]
pub(crate) fn chunked_index<T: LaneWord>(terms: usize, slot: usize, k: usize) -> usize {
    (slot / T::CHUNK) * terms * T::CHUNK + k * T::CHUNK + slot % T::CHUNK
}

/// Lanes of one maximum degree `D`: `D + 1` f32 coefficients per lane about the current
/// centre, in chunks of `CHUNK` lanes (order `k` of lane `slot` at [`chunked_index`] of the
/// flattened arrays). In forward play the coefficients are the group's part of the current
/// epoch's block, played in place (see `live`); the group's own arrays stay 0, what its
/// lanes play in an epoch without a block. The f64 power coefficients stay in the script.
#[derive(Debug, Clone, Default)]
pub(crate) struct HornerGroup {
    pub(crate) degree: usize,
    pub(crate) len: usize,
    /// Chunks of lanes (`len.div_ceil(CHUNK)`), each `D + 1` arrays of `CHUNK`.
    chunks: usize,
    coef: Vec<[f32; CHUNK]>,
    /// Channel of each slot.
    pub(crate) channel: Vec<u32>,
    /// The slots as runs of consecutive channels (`records::channel_runs`): each run's values
    /// go straight into the caller's row.
    pub(crate) runs: Vec<super::records::Run>,
    /// Slots whose f32 value holds the budget only as an f32 output, with their track and
    /// component: `write_f64` gives them [`horner_f64`] of their piece's power coefficients.
    pub(crate) wide: Vec<WideLane>,
    /// The loop [`HornerGroup::eval`] runs, chosen once in [`HornerGroup::new`] (private: only
    /// `new` sets [`Pass::Avx2`] or [`Pass::Avx2Prefetch`], after detecting AVX2).
    #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
    pass: Pass,
}

/// Which loop a group's evaluation runs ([`HornerGroup::eval`]): all three do the same IEEE
/// f32 operations in the same order, so they give the same bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
enum Pass {
    /// The build's own instructions (SSE2 on x86_64).
    #[default]
    Any,
    /// Compiled with AVX2 (the CPU has it, detected in [`HornerGroup::new`]).
    Avx2,
    /// AVX2 with software prefetch (`pass::walk_prefetch`): a group of at least
    /// `pass::PREFETCH_FROM` and less than `pass::PREFETCH_UNTIL` bytes of coefficients.
    Avx2Prefetch,
}

impl Pass {
    /// The loop for a group of `bytes` bytes of coefficients on this CPU.
    fn new(bytes: usize) -> Self {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if std::is_x86_feature_detected!("avx2") {
            return if (super::pass::PREFETCH_FROM..super::pass::PREFETCH_UNTIL).contains(&bytes) {
                Self::Avx2Prefetch
            } else {
                Self::Avx2
            };
        }
        let _ = bytes;
        Self::Any
    }
}

/// A lane whose `write_f64` value is [`horner_f64`] (see [`HornerGroup::wide`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct WideLane {
    pub(crate) slot: u32,
    pub(crate) track: u32,
    pub(crate) component: u8,
}

impl HornerGroup {
    /// An empty group of `len` lanes (every lane plays 0 until set).
    pub(crate) fn new(degree: usize, len: usize) -> Self {
        let chunks = len.div_ceil(CHUNK);
        Self {
            degree,
            len,
            chunks,
            coef: alloc::vec![[0.0; CHUNK]; (degree + 1) * chunks],
            pass: Pass::new((degree + 1) * chunks * CHUNK * 4),
            channel: alloc::vec![0; len],
            runs: Vec::new(),
            wide: Vec::new(),
        }
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.hot_bytes() + self.len * 4 + self.wide.len() * 12
    }

    /// Bytes one frame reads from this group (the coefficients).
    pub(crate) fn hot_bytes(&self) -> usize {
        self.coef.len() * CHUNK * 4
    }

    /// Loads into `slot` of the group's own arrays its f32 coefficients (`hot`, `D + 1` of
    /// them; missing ones are 0).
    #[cfg(test)]
    pub(crate) fn set(&mut self, slot: usize, hot: &[f32]) {
        if slot < self.len {
            set_lane(&mut self.coef, self.degree + 1, slot, hot);
        }
    }

    /// Chunks of coefficients the group's lanes fill (`hot_bytes() / (4 · CHUNK)`): the size
    /// of its part of an epoch block.
    pub(crate) fn chunk_count(&self) -> usize {
        self.coef.len()
    }

    /// The values of slots `start .. start + out.len()` at `t` frames from the centre, in slot
    /// order, into `out` (slots past the group are left alone): of the coefficients `block`
    /// (the group's part of the live epoch block, [`Self::chunk_count`] chunks in the group's
    /// layout), or with `None` of the group's own arrays (all 0 in play: an epoch without a
    /// block).
    pub(crate) fn eval(
        &self,
        block: Option<&[[f32; CHUNK]]>,
        t: f32,
        start: usize,
        out: &mut [f32],
    ) {
        let n = out.len().min(self.len.saturating_sub(start));
        let Some(out) = out.get_mut(..n) else {
            return;
        };
        let lanes = self.lanes(block, start);
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        match self.pass {
            // SAFETY: `eval_avx2` only requires the CPU to support AVX2: `pass` is one of its
            // two variants only when `Pass::new` detected AVX2 at run time (set by
            // `HornerGroup::new` alone; `Default` and `Clone` give `Any` or a copy on the same
            // CPU). It does the same IEEE f32 multiplies and adds as `eval_any` (no FMA is
            // enabled; a prefetch changes no value), so the same bits
            // (`group_evaluation_equals_scalar_horner_bit_for_bit`,
            // `large_groups_evaluate_like_scalar_horner_bit_for_bit` run it on AVX2 machines).
            #[allow(unsafe_code)]
            Pass::Avx2 => unsafe { eval_avx2::<false>(&lanes, t, out) },
            // SAFETY: as above.
            #[allow(unsafe_code)]
            Pass::Avx2Prefetch => unsafe { eval_avx2::<true>(&lanes, t, out) },
            Pass::Any => eval_any::<false>(&lanes, t, out),
        }
        #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
        eval_any::<false>(&lanes, t, out);
    }

    /// [`Self::eval`] from slot 0 (`super::sweep`'s loop on AVX2; a group of the prefetching
    /// pass, or without AVX2, through [`Self::eval`]): the same values.
    pub(crate) fn sweep(&self, block: Option<&[[f32; CHUNK]]>, t: f32, out: &mut [f32]) {
        self.sweep_from(block, 0, t, out);
    }

    /// [`Self::sweep`] from chunk `chunk` (slot `chunk · CHUNK`): the values [`Self::eval`]
    /// writes from that slot.
    pub(crate) fn sweep_from(
        &self,
        block: Option<&[[f32; CHUNK]]>,
        chunk: usize,
        t: f32,
        out: &mut [f32],
    ) {
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if self.pass == Pass::Avx2 {
            let n = out.len().min(self.len.saturating_sub(chunk * CHUNK));
            let coef = block.unwrap_or(&self.coef);
            let coef = coef.get(chunk * (self.degree + 1)..).unwrap_or(&[]);
            if let Some(out) = out.get_mut(..n) {
                // SAFETY: `sweep_avx2` only requires AVX2, which `Pass::new` detected for
                // `Pass::Avx2` (see `eval`); it does the same IEEE f32 operations as `eval`
                // (`sweep_equals_the_group_evaluation_bit_for_bit`).
                #[allow(unsafe_code)]
                unsafe {
                    super::sweep::sweep_avx2(self.degree, coef, t, out);
                }
            }
            return;
        }
        self.eval(block, t, chunk * CHUNK, out);
    }

    /// Whether [`Self::sweep_records`] stores a frame's records in its pass: a cubic group of
    /// at least [`FUSE_FROM`] bytes on AVX2 whose records (`sorted`: each frame's ordered by
    /// position, `Records::frames_sorted`) allow it.
    pub(crate) fn fuses(&self, sorted: bool) -> bool {
        cfg!(all(feature = "std", target_arch = "x86_64"))
            && sorted
            && self.degree == 3
            && self.pass != Pass::Any
            && self.hot_bytes() >= FUSE_FROM
    }

    /// The records of script frame `i` (`records`, each frame's ordered by position) stored
    /// into `block` and the lanes' values at `t` into `out` from slot 0: where the group fuses
    /// ([`Self::fuses`]), in one pass of parts of [`PART`] chunks, each part's records stored
    /// (after asking for the next part's records' lines) just before the part is played by
    /// `sweep`'s loop; else `records.store_cubic` then [`Self::sweep`]. The same stores and
    /// values either way (`f32_records_stored_in_the_pass_equal_records_stored_first`);
    /// `true` where the pass stored them.
    pub(crate) fn sweep_records(
        &self,
        block: &mut [[f32; CHUNK]],
        records: &HotScript,
        i: usize,
        t: f32,
        out: &mut [f32],
    ) -> bool {
        let n = out.len().min(self.len);
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        if self.fuses(true) && n.div_ceil(CHUNK) * 4 <= block.len() {
            let (from, to) = records.range(i);
            let slots = records.slots();
            let chunks = n.div_ceil(CHUNK);
            let (mut next, mut ahead, mut part) = (from, from, 0);
            let mut stored = true;
            while part < chunks && stored {
                let end = (part + PART).min(chunks);
                let lines = block.as_ptr().cast::<f32>();
                let far = (end + PART) * 4 * CHUNK;
                while let Some(&at) = slots.get(ahead).filter(|_| ahead < to) {
                    if at as usize >= far {
                        break;
                    }
                    // A record's numbers lie within the 128 B of its chunk: two lines.
                    for k in [0, 2 * CHUNK] {
                        // SAFETY: a prefetch is a hint that never faults and whose line the
                        // program never observes, so any address is sound; `wrapping_add`
                        // forms it without claiming it is in `block`. SSE is in every x86-64
                        // CPU.
                        #[allow(unsafe_code)]
                        unsafe {
                            use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                            _mm_prefetch::<_MM_HINT_T0>(
                                lines.wrapping_add(at as usize + k).cast::<i8>(),
                            );
                        }
                    }
                    ahead += 1;
                }
                let limit = end * 4 * CHUNK;
                let mut reached = next;
                while slots
                    .get(reached)
                    .is_some_and(|&p| reached < to && (p as usize) < limit)
                {
                    reached += 1;
                }
                stored = records.store_cubic_span(next, reached, block.as_flattened_mut());
                next = reached;
                if let (Some(c), Some(o)) = (
                    block.get(part * 4..end * 4),
                    out.get_mut(part * CHUNK..(end * CHUNK).min(n)),
                ) {
                    // SAFETY: `fuses` holds only where `pass` is not `Any`, which
                    // `Pass::new` gives only where it detected AVX2; `sweep_avx2` does the
                    // same IEEE f32 operations as `eval`.
                    #[allow(unsafe_code)]
                    unsafe {
                        super::sweep::sweep_avx2(3, c, t, o);
                    }
                }
                part = end;
            }
            if stored && records.store_cubic_span(next, to, block.as_flattened_mut()) {
                return true;
            }
        }
        records.store_cubic(i, block.as_flattened_mut());
        self.sweep(Some(block), t, out);
        false
    }

    /// What [`Self::eval`] reads from slot `start` on: of `block`, or with `None` of the
    /// group's own arrays (for `normalize::eval_quats`, which evaluates the same lanes).
    pub(crate) fn lanes<'a>(
        &'a self,
        block: Option<&'a [[f32; CHUNK]]>,
        start: usize,
    ) -> Lanes<'a> {
        Lanes {
            degree: self.degree,
            coef: block.unwrap_or(&self.coef),
            chunks: self.chunks,
            start,
        }
    }

    /// The value of `slot` at `t` frames from the centre (the same arithmetic as [`Self::eval`]).
    #[cfg(test)]
    pub(crate) fn value(&self, slot: usize, t: f32) -> f32 {
        let mut c = [0.0f32; MAX_TERMS];
        let coef = self.coef.as_flattened();
        let terms = self.degree + 1;
        for (k, x) in c.iter_mut().enumerate().take(terms) {
            *x = coef
                .get(chunked_index::<f32>(terms, slot, k))
                .copied()
                .unwrap_or(0.0);
        }
        horner(c.get(..=self.degree).unwrap_or(&[]), t)
    }
}

/// One group's piece-change records (f32 coefficients).
pub(crate) type HotScript = super::records::Records<f32>;

/// What one evaluation reads: a group's chunked coefficient arrays (`chunks` chunks of
/// `degree + 1` orders) from lane `start` on.
pub(crate) struct Lanes<'a> {
    pub(crate) degree: usize,
    pub(crate) coef: &'a [[f32; CHUNK]],
    pub(crate) chunks: usize,
    pub(crate) start: usize,
}

/// [`eval_n`] for the group's degree (the target's default vectors: SSE2 on x86-64), with
/// software prefetch when `P` (`pass::walk_prefetch`).
#[inline(always)]
fn eval_any<const P: bool>(lanes: &Lanes<'_>, t: f32, out: &mut [f32]) {
    match lanes.degree {
        0 => eval_n::<1, P>(lanes, t, out),
        1 => eval_n::<2, P>(lanes, t, out),
        2 => eval_n::<3, P>(lanes, t, out),
        3 => eval_n::<4, P>(lanes, t, out),
        4 => eval_n::<5, P>(lanes, t, out),
        5 => eval_n::<6, P>(lanes, t, out),
        6 => eval_n::<7, P>(lanes, t, out),
        7 => eval_n::<8, P>(lanes, t, out),
        _ => eval_n::<9, P>(lanes, t, out),
    }
}

/// [`eval_any`] compiled for AVX2 (8 lanes a vector instead of 4; no FMA, so the same
/// arithmetic).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn eval_avx2<const P: bool>(lanes: &Lanes<'_>, t: f32, out: &mut [f32]) {
    eval_any::<P>(lanes, t, out);
}

/// [`horner`] over lanes `start .. start + out.len()` of a group of `N` orders into `out`
/// (`pass::walk`: whole chunks in one pass, four AVX2 vectors a step; `pass::walk_prefetch`
/// with `P`).
#[inline(always)]
fn eval_n<const N: usize, const P: bool>(lanes: &Lanes<'_>, t: f32, out: &mut [f32]) {
    let group = (lanes.coef, lanes.chunks, lanes.start);
    if P {
        super::pass::walk_prefetch::<f32, AtT, N, CHUNK>(group, out, &AtT(t));
    } else {
        super::pass::walk::<f32, AtT, N, CHUNK>(group, out, &AtT(t));
    }
}

/// The f32 lanes' arithmetic: [`horner`] at `t`, lane by lane.
struct AtT(f32);

impl<const N: usize> super::pass::Kernel<f32, N, CHUNK> for AtT {
    type Aux = core::iter::Repeat<()>;
    const SPLIT: bool = false;

    #[inline(always)]
    fn aux(&self, _: usize) -> Self::Aux {
        core::iter::repeat(())
    }

    #[inline(always)]
    fn chunk(&self, (): (), c: &[[f32; CHUNK]; N], out: &mut [f32; CHUNK]) {
        super::sweep::chunk(c, self.0, out);
    }

    #[inline(always)]
    fn part(&self, (): (), c: &[[f32; CHUNK]; N], from: usize, out: &mut [f32]) {
        // One slice per order, exactly `out.len()` long, so the loop vectorizes like `chunk`'s.
        let n = out.len();
        let slices: [&[f32]; N] = core::array::from_fn(|k| &c[k][from..from + n]);
        for (m, o) in out.iter_mut().enumerate() {
            let mut v = slices[N - 1][m];
            for k in (0..N - 1).rev() {
                v = v * self.0 + slices[k][m];
            }
            *o = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_coefficients_of_differences_match_the_polynomial() {
        // p(t) = 2 − t + 0.5 t² + 0.25 t³: differences at 0 are p(0), Δp(0), Δ²p(0), Δ³p(0).
        let p = |t: f64| 2.0 - t + 0.5 * t * t + 0.25 * t * t * t;
        let d0 = p(0.0);
        let d1 = p(1.0) - p(0.0);
        let d2 = p(2.0) - 2.0 * p(1.0) + p(0.0);
        let d3 = p(3.0) - 3.0 * p(2.0) + 3.0 * p(1.0) - p(0.0);
        let a = power_from_differences(&[d0, d1, d2, d3]);
        assert_eq!(&a[..4], &[2.0, -1.0, 0.5, 0.25]);
        assert!(a[4..].iter().all(|&x| x == 0.0));
    }

    #[test]
    fn centred_coefficients_are_the_taylor_shift() {
        // p(t) = (t − 3)³ about 0 is t³ about 3.
        let a = [-27.0, 27.0, -9.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let c = centred(&a, 3, 3.0);
        assert_eq!(&c[..4], &[0.0, 0.0, 0.0, 1.0]);
        assert_eq!(horner(&c[..4], 2.0), 8.0);
    }

    #[test]
    fn the_epoch_shift_is_the_taylor_shift_by_an_epoch() {
        // Small integer coefficients: every product and sum is exact in f32, so the shift is
        // p(t + 16)'s coefficients exactly (binomial expansion, worked in i64 here).
        let c = [3.0f32, -2.0, 5.0, 1.0, -1.0, 0.0, 0.0, 0.0, 0.0];
        let shifted = shift_epoch(c, 4);
        for (j, got) in shifted.iter().enumerate().take(5) {
            let mut want = 0i64;
            for (k, &ck) in c.iter().enumerate().take(5).skip(j) {
                let binomial = (0..j).fold(1i64, |b, i| b * (k - i) as i64 / (i + 1) as i64);
                want += ck as i64 * binomial * 16i64.pow((k - j) as u32);
            }
            assert_eq!(f64::from(*got), want as f64, "order {j}");
        }
        // Any coefficients: the chunk form gives each lane the bits of the lane form.
        let lane =
            |m: usize, k: usize| ((m * 7 + k * 13) as f32).sin() * 10f32.powi(k as i32 % 3 - 1);
        let mut chunk: [[f32; CHUNK]; 6] =
            core::array::from_fn(|k| core::array::from_fn(|m| lane(m, k)));
        shift_lanes(&mut chunk);
        for m in 0..CHUNK {
            let mut one = [0.0f32; MAX_TERMS];
            for (k, x) in one.iter_mut().enumerate().take(6) {
                *x = lane(m, k);
            }
            let want = shift_epoch(one, 5);
            for (k, (order, w)) in chunk.iter().zip(want).enumerate() {
                assert_eq!(order[m].to_bits(), w.to_bits(), "lane {m} order {k}");
            }
        }
    }

    #[test]
    fn chained_epochs_are_checked_as_they_play() {
        // A cubic piece 200 frames long from frame 5 (differences of 0.3 + 0.01 t + 0.02 t² −
        // 1e-4 t³ about its origin): with a loose budget every later epoch may shift; with a
        // budget below what the shifted coefficients reach, the epochs whose shift misses it
        // are left out, and every epoch the mask lets shift holds the budget when played as
        // forward play plays it (checked here against the piece's exact values).
        let a = [0.3f64, 0.01, 0.02, -1e-4];
        let value = |t: f64| a[0] + t * (a[1] + t * (a[2] + t * a[3]));
        let d = [
            value(0.0),
            value(1.0) - value(0.0),
            value(2.0) - 2.0 * value(1.0) + value(0.0),
            value(3.0) - 3.0 * value(2.0) + 3.0 * value(1.0) - value(0.0),
        ];
        let (origin, run) = (5i64, 200i64);
        let epochs = (origin + run - 1).div_euclid(EPOCH) - origin.div_euclid(EPOCH);
        let (loose, mask) = verify_piece_chained(&d, origin, run, 3, 1e-2, true);
        assert!(loose.f32_output && loose.strict);
        assert_eq!(mask, ((1u64 << (epochs + 1)) - 1) & !1, "{mask:b}");
        let (_, none) = verify_piece_chained(&d, origin, run, 3, 1e-2, false);
        assert_eq!(none, 0);
        // Played as forward play plays it: the first epoch's own coefficients, then shifted
        // where the mask says, else the epoch's own.
        let worst = |mask: u64| {
            let mut worst = 0.0f64;
            let mut c = [0.0f32; MAX_TERMS];
            let mut padded = [0.0; MAX_TERMS];
            padded[..4].copy_from_slice(&a);
            for n in origin..origin + run {
                let (centre_n, k) = (centre(n), n.div_euclid(EPOCH) - origin.div_euclid(EPOCH));
                if n == origin || n.rem_euclid(EPOCH) == 0 {
                    let frames = (n, (centre_n + EPOCH / 2).min(origin + run));
                    c = if mask >> k & 1 == 1 {
                        shift_epoch(c, 3)
                    } else {
                        epoch_coefficients(&padded, 3, origin, frames, centre_n)
                    };
                }
                let played = f64::from(horner(&c[..4], (n - centre_n) as f32));
                worst = worst.max((played - value((n - origin) as f64)).abs());
            }
            worst
        };
        let reached = worst(mask);
        assert!(reached < 1e-2, "{reached}");
        let fresh = worst(0);
        // The shifts' rounding accumulates (7.8e-5 against 6.7e-6 here): a budget between the
        // two leaves out the epochs whose shift misses it, and what plays holds it.
        assert!(reached > 2.0 * fresh, "{fresh} {reached}");
        let budget = (reached + fresh) / 2.0;
        let (tight, tight_mask) = verify_piece_chained(&d, origin, run, 3, budget, true);
        assert!(tight.f32_output, "{fresh} {reached}");
        assert!(tight_mask != mask && tight_mask != 0, "{tight_mask:b}");
        let played = worst(tight_mask);
        assert!(played <= budget, "{played} > {budget}");
    }

    #[test]
    fn centres_are_mid_epoch_for_negative_frames_too() {
        assert_eq!(EPOCH, 16);
        assert_eq!(centre(0), 8);
        assert_eq!(centre(15), 8);
        assert_eq!(centre(16), 24);
        assert_eq!(centre(-1), -8);
        assert_eq!(centre(-16), -8);
        assert_eq!(centre(-17), -24);
    }

    #[test]
    fn group_evaluation_equals_scalar_horner_bit_for_bit() {
        // 75 lanes: nine whole chunks of 8 (two steps of four and one more) and 3 lanes of a
        // tenth; evaluated from chunk boundaries (steps, single chunks, the partial tail), from
        // lane 20 (inside a chunk: its part, then whole chunks) and in runs that start and end
        // inside one chunk (17..19).
        let mut g = HornerGroup::new(3, 75);
        let a = |slot: usize| {
            let s = slot as f64;
            [s * 0.37, -1.5, 0.01 * s, -1e-4 * s, 0.0, 0.0, 0.0, 0.0, 0.0]
        };
        for slot in 0..75 {
            g.set(slot, &centred(&a(slot), 3, 16.0 - slot as f64));
        }
        let mut out = [0.0f32; 75];
        for t in -16..16 {
            for split in [&[0, 20, 75][..], &[0, 64, 75], &[0, 75], &[0, 17, 19, 75]] {
                out.fill(f32::NAN);
                for run in split.windows(2) {
                    g.eval(None, t as f32, run[0], &mut out[run[0]..run[1]]);
                }
                for (slot, v) in out.iter().enumerate() {
                    assert_eq!(
                        v.to_bits(),
                        g.value(slot, t as f32).to_bits(),
                        "slot {slot} t {t} split {split:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn f32_records_stored_in_the_pass_equal_records_stored_first() {
        // Cubic groups below `FUSE_FROM` bytes (records stored first), past it (parts of 64
        // chunks and a partial last chunk) and past `pass::PREFETCH_FROM` (whose own sweep is
        // the prefetching walk); two frames of records at lanes all over the group, ordered by
        // position, two of one lane in a frame (the later wins); rows the whole group and
        // shorter (records past the row stored too). The block and the row must be those of
        // `store_cubic` then `sweep`, bit for bit, nothing written past the row, and the pass
        // itself must have stored them wherever the group fuses (AVX2).
        for len in [1000usize, 3001, 40_003] {
            let g = HornerGroup::new(3, len);
            let block: alloc::vec::Vec<[f32; CHUNK]> = (0..g.coef.len())
                .map(|c| core::array::from_fn(|j| ((c * CHUNK + j) % 977) as f32 * 0.125 - 60.0))
                .collect();
            let mut records = HotScript::default();
            let mut x = 0x2545_f491u32;
            for _ in 0..2 {
                records.start.push(records.slots().len() as u32);
                let mut lanes: alloc::vec::Vec<usize> = (0..len / 30 + 3)
                    .map(|_| {
                        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                        (x >> 5) as usize % len
                    })
                    .collect();
                lanes.sort_unstable();
                lanes.insert(1, lanes[0]);
                for (r, &lane) in lanes.iter().enumerate() {
                    let coef: alloc::vec::Vec<f32> = (0..4)
                        .map(|k| (r * 4 + k) as f32 * 0.01 - (lane % 13) as f32)
                        .collect();
                    records.push_components((lane as u32, 0, 1), &coef, 4);
                }
            }
            records.start.push(records.slots().len() as u32);
            assert!(records.index_chunks(4) && records.frames_sorted());
            let fuses = g.fuses(true);
            #[cfg(all(feature = "std", target_arch = "x86_64"))]
            assert_eq!(
                fuses,
                len * 16 >= FUSE_FROM && std::is_x86_feature_detected!("avx2")
            );
            for t in [-8.0f32, -1.0, 0.0, 3.0, 7.0] {
                for n in [len, len - len / 3] {
                    let (mut first, mut fused) = (block.clone(), block.clone());
                    for i in 0..2 {
                        let at = alloc::format!("len {len} n {n} t {t} frame {i}");
                        let mut want = alloc::vec![f32::NAN; n + 3];
                        records.store_cubic(i, first.as_flattened_mut());
                        g.sweep(Some(&first), t, &mut want[..n]);
                        let mut got = alloc::vec![f32::NAN; n + 3];
                        let in_pass = g.sweep_records(&mut fused, &records, i, t, &mut got[..n]);
                        assert_eq!(in_pass, fuses, "{at}: stored in the pass");
                        assert!(fused == first, "{at}: block");
                        let bits = |v: &[f32]| {
                            v.iter()
                                .map(|a| a.to_bits())
                                .collect::<alloc::vec::Vec<_>>()
                        };
                        assert_eq!(bits(&got), bits(&want), "{at}: row");
                    }
                }
            }
        }
    }

    #[test]
    fn sweep_equals_the_group_evaluation_bit_for_bit() {
        // Every degree; lengths of whole steps (32, 64), steps and single chunks (56), a
        // partial last chunk (75, 3), one lane; the whole group and a shorter row (the run of
        // a group padded past its channels); of the group's arrays and of a block.
        for degree in 0..=8 {
            for len in [1, 3, 32, 56, 64, 75] {
                let mut g = HornerGroup::new(degree, len);
                for slot in 0..len {
                    let s = slot as f64;
                    let a: [f64; MAX_TERMS] =
                        core::array::from_fn(|k| (s * 0.37 - 3.0 + k as f64) / (1.0 + k as f64));
                    g.set(slot, &centred(&a, degree, 5.0 - s));
                }
                let block: alloc::vec::Vec<[f32; CHUNK]> =
                    g.coef.iter().map(|c| c.map(|x| x * 0.5 - 1.0)).collect();
                for t in [-8.0f32, -1.0, 0.0, 3.0, 7.0] {
                    for n in [len, len - len / 3] {
                        for b in [None, Some(block.as_slice())] {
                            let mut want = alloc::vec![f32::NAN; n];
                            g.eval(b, t, 0, &mut want);
                            let mut got = alloc::vec![f32::NAN; n];
                            g.sweep(b, t, &mut got);
                            let same = want
                                .iter()
                                .zip(&got)
                                .all(|(w, v)| w.to_bits() == v.to_bits());
                            assert!(same, "degree {degree} len {len} n {n} t {t}");
                            // From each later chunk: the same values as from slot 0.
                            for chunk in 1..n.div_ceil(CHUNK) {
                                let mut part = alloc::vec![f32::NAN; n - chunk * CHUNK];
                                g.sweep_from(b, chunk, t, &mut part);
                                let from = want.get(chunk * CHUNK..).unwrap_or(&[]);
                                let same = from
                                    .iter()
                                    .zip(&part)
                                    .all(|(w, v)| w.to_bits() == v.to_bits());
                                assert!(same, "degree {degree} len {len} from chunk {chunk}");
                            }
                            if b.is_none() {
                                let slot_values = (0..n).map(|s| g.value(s, t).to_bits());
                                assert!(got.iter().map(|v| v.to_bits()).eq(slot_values));
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn large_groups_evaluate_like_scalar_horner_bit_for_bit() {
        // 40 003 cubic lanes: 5 001 chunks of 4 orders, 640 KB, past the pass's prefetch
        // threshold (512 KiB of whole steps), evaluated whole and from lane 5 (inside a chunk).
        let len = 40_003;
        let mut g = HornerGroup::new(3, len);
        for slot in 0..len {
            let s = (slot % 977) as f64;
            let a = [s * 0.37 - 50.0, 1.5 - 0.003 * s, 0.01 * s - 4.0, -1e-4 * s];
            g.set(slot, &a.map(|x| x as f32));
        }
        let mut out = alloc::vec![f32::NAN; len];
        for t in [-8.0f32, -3.0, 0.0, 7.0] {
            for start in [0, 5] {
                out.fill(f32::NAN);
                g.eval(None, t, start, &mut out[start..]);
                for (slot, v) in out.iter().enumerate().skip(start) {
                    let want = g.value(slot, t).to_bits();
                    assert_eq!(v.to_bits(), want, "slot {slot} t {t} start {start}");
                }
            }
        }
    }

    #[test]
    fn groups_past_the_prefetch_range_evaluate_like_scalar_horner_bit_for_bit() {
        // 270 003 cubic lanes: 4.3 MB, past `pass::PREFETCH_UNTIL` (4 MiB): the loop without
        // software prefetch again, through `eval` and `sweep`.
        let len: usize = 270_003;
        let bytes = len.div_ceil(CHUNK) * 4 * CHUNK * 4;
        assert!(bytes >= super::super::pass::PREFETCH_UNTIL);
        assert_ne!(Pass::new(bytes), Pass::Avx2Prefetch);
        let within = super::super::pass::PREFETCH_FROM;
        assert!(matches!(Pass::new(within), Pass::Avx2Prefetch | Pass::Any));
        let mut g = HornerGroup::new(3, len);
        for slot in 0..len {
            let s = (slot % 977) as f64;
            let a = [s * 0.37 - 50.0, 1.5 - 0.003 * s, 0.01 * s - 4.0, -1e-4 * s];
            g.set(slot, &a.map(|x| x as f32));
        }
        let mut out = alloc::vec![f32::NAN; len];
        for t in [-8.0f32, 0.0, 7.0] {
            for sweep in [false, true] {
                out.fill(f32::NAN);
                if sweep {
                    g.sweep(None, t, &mut out);
                } else {
                    g.eval(None, t, 0, &mut out);
                }
                for (slot, v) in out.iter().enumerate() {
                    let want = g.value(slot, t).to_bits();
                    assert_eq!(v.to_bits(), want, "slot {slot} t {t} sweep {sweep}");
                }
            }
        }
    }

    #[test]
    fn aligned_chunks_read_and_write_as_a_slice() {
        // The f32 lanes' chunks (8 lanes: two a line) and the i32 lanes' (32: two lines each).
        aligned_chunks_of::<f32, CHUNK>(|i| i as f32);
        aligned_chunks_of::<i32, INT_CHUNK>(|i| i as i32);
    }

    fn aligned_chunks_of<T: LaneWord + PartialEq, const W: usize>(value: fn(usize) -> T) {
        for len in [0, 1, 2, 3, 5, 64] {
            let mut c = Chunks::<T, W>::zeroed(len);
            assert_eq!(c.len(), len);
            assert_eq!(c.as_ptr() as usize % 64, 0, "{len} chunks");
            assert!(c.iter().flatten().all(|&x| x == T::default()));
            for (i, x) in c.as_flattened_mut().iter_mut().enumerate() {
                *x = value(i);
            }
            let flat = c.as_flattened();
            assert_eq!(flat.len(), len * W);
            assert!(flat.iter().enumerate().all(|(i, &x)| x == value(i)));
            let copy = c.clone();
            assert!(copy.as_flattened() == flat);
            // Chunk `i` starts `4 W i` bytes after the first: on a line every `line(W)` chunks.
            for (i, chunk) in c.iter().enumerate().step_by(line(W)) {
                assert_eq!(chunk.as_ptr() as usize % 64, 0, "chunk {i} of {len}");
            }
        }
    }

    #[test]
    fn verification_tells_f32_values_f32_outputs_and_f64_outputs_apart() {
        // 100 + t/3: f32 cannot hold 100.333… better than ~4e-6.
        let d = [100.0, 1.0 / 3.0];
        let tight = verify_piece(&d, 5, 40, 1, 1e-9);
        assert!(
            !tight.strict && !tight.f32_output && tight.f64_output,
            "{tight:?}"
        );
        // The largest f32 error, then a budget just below it (but above it less half an ulp).
        let a = power_from_differences(&d);
        let worst = (5..45)
            .map(|n: i64| {
                let c = centred(&a, 1, (centre(n) - 5) as f64);
                let v = horner(&c[..2], (n - centre(n)) as f32);
                (f64::from(v) - (100.0 + (n - 5) as f64 / 3.0)).abs()
            })
            .fold(0.0, f64::max);
        assert!(worst > 1e-7 && worst < 2e-5, "{worst}");
        let output = verify_piece(&d, 5, 40, 1, worst - 1e-7);
        assert!(
            !output.strict && output.f32_output && output.f64_output,
            "{output:?}"
        );
        let loose = verify_piece(&d, 5, 40, 1, 1e-4);
        assert!(
            loose.strict && loose.f32_output && loose.f64_output,
            "{loose:?}"
        );
    }
    /// A cubic bezier piece of the scalar benchmark (1 000 channels, channel 435: 8 frames from
    /// 1033, values near −70, budget 7.6e-5): its Taylor shift about the next epoch's centre
    /// (1048, 15 frames past its origin) plays frame 1040 ~1e-4 off, so the track played on exact
    /// lanes; at that frame, its only one in that epoch, it now holds the constant
    /// `P(1040)`, and every frame passes.
    #[test]
    fn a_piece_at_an_epoch_edge_plays_its_values_not_a_far_taylor_shift() {
        let d = [
            -70.364_425_659_179_69,
            6.064_391_136_169_434,
            9.594_990_730_285_645,
            -3.090_803_623_199_463,
        ];
        let (origin, budget) = (1033, 7.616_965_415_821_11e-5);
        let a = power_from_differences(&d);
        // `TrackPlayer`'s value at 1040: seven frames of additions.
        let mut state = d;
        for _ in 0..7 {
            for i in 0..3 {
                state[i] += state[i + 1];
            }
        }
        let taylor = centred(&a, 3, (1048 - origin) as f64);
        let far = f64::from(horner(&taylor[..4], -8.0)) - state[0];
        assert!(far.abs() > budget, "{far:e}");
        let held = epoch_coefficients(&a, 3, origin, (1040, 1041), 1048);
        assert_eq!(held[1..4], [0.0; 3]);
        let near = f64::from(horner(&held[..4], -8.0)) - state[0];
        assert!(near.abs() <= half_ulp(held[0]) + 1e-12, "{near:e}");
        let v = verify_piece(&d, origin, 8, 3, budget);
        assert!(v.f32_output && v.strict, "{v:?}");
    }

    /// `epoch_coefficients`: the Taylor shift, bit for bit, where the piece plays more frames of
    /// the epoch than it has orders; elsewhere coefficients whose f64 values at the frames
    /// played are the piece's (either candidate) and whose rounding scale is at most the
    /// Taylor shift's.
    #[test]
    fn epoch_coefficients_are_the_piece_at_the_frames_it_plays() {
        let mut x = 7u64;
        let mut next = || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for n in 1..=5usize {
            for _ in 0..40 {
                let mut a = [0.0; MAX_TERMS];
                for (k, c) in a.iter_mut().enumerate().take(n + 1) {
                    *c = next() * 200.0 / 4f64.powi(k as i32);
                }
                let origin = 100 + (next() * 30.0) as i64;
                let centre = 120;
                for from in centre - 8..centre + 8 {
                    for to in from + 1..=centre + 8 {
                        let c = epoch_coefficients(&a, n, origin, (from, to), centre);
                        let taylor = centred(&a, n, (centre - origin) as f64);
                        if to - from > n as i64 {
                            assert_eq!(c.map(f32::to_bits), taylor.map(f32::to_bits));
                            continue;
                        }
                        let far = (from - centre).abs().max((to - 1 - centre).abs()) as f64;
                        let scale = |c: &[f32; MAX_TERMS]| {
                            c.iter()
                                .take(n + 1)
                                .rev()
                                .fold(0.0, |s, &v| s * far + v.abs() as f64)
                        };
                        assert!(scale(&c) <= scale(&taylor));
                        let wide: Vec<f64> = c.iter().map(|&v| f64::from(v)).collect();
                        for f in from..to {
                            let got = horner_f64(&wide[..=n], (f - centre) as f64);
                            let want = horner_f64(&a[..=n], (f - origin) as f64);
                            // Coefficients rounded to f32: a few ulps of the terms.
                            let slack = 1e-5 * scale(&c).max(1.0);
                            assert!((got - want).abs() <= slack, "n {n} {from}..{to} at {f}");
                        }
                    }
                }
            }
        }
    }
}
