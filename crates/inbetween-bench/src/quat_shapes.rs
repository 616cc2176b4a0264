//! Piece shapes for rotations measured against `slerp-soa-script` (issue 12 item 3): the chord shape `normalize(a + b·s(t))` with `s` a fitted polynomial (rank-one component polynomials, the stream format unchanged) and the arc shape `m·cos φ + c·sin φ` with `φ` linear in the frame (one degree-8 piece of ordinary component polynomials a segment, its lane recovered from the coefficients), each played on the baselines' SoA reload script by a hand-written AVX2+FMA kernel.
//!
//! # The chord shape
//!
//! A slerp segment from `q0` to `q1` (`q1` negated when `q0·q1 < 0`: the shortest arc, so the
//! angle θ between them is at most π/2) is `q(u) = (sin((1−u)θ)·q0 + sin(uθ)·q1) / sin θ`.
//! With `a = q0`, `b = q1 − q0` it is also `normalize(a + b·s(u))` for the scalar
//! [`chord_parameter`] `s(u) = sin(uθ) / (sin(uθ) + sin((1−u)θ))`: the weights of `q0` and
//! `q1` in `(1 − s)·q0 + s·q1` are in the ratio `sin((1−u)θ) : sin(uθ)`, and their sum
//! `2 sin(θ/2) cos(θ(u − ½))` is positive for θ < π. Equivalently
//! `s(u) = ½ + tan(θ(u − ½)) / (2 tan(θ/2))`, which tends to `u` as θ → 0 (`s − u = O(θ²)`).
//! Fitting `s` by a polynomial of degree D per piece makes the four component polynomials
//! `a_c + b_c·s(t)` rank one: their forward differences are `b_c·Δᵏs`, so a stream of such
//! pieces has the existing format, and a player may evaluate one scalar Horner chain a rotation,
//! one fused multiply-add a component and an exact normalization (the chord is far from unit
//! length: `|a + b·s| ≥ cos(θ/2) ≥ 0.707`, so the bank's near-unit series does not apply).
//!
//! Played arithmetic ([`played_chord`], the kernel's bit for bit): `t = f − centre`,
//! `s = fma(…fma(s_D, t, s_{D−1})…, t, s_0)`, `p_c = fma(b_c, s, a_c)`,
//! `n = fma(p_3, p_3, fma(p_2, p_2, fma(p_1, p_1, p_0·p_0)))`, `q_c = p_c / sqrt(n)` (f32, each
//! operation rounded once: IEEE sqrt and division are correctly rounded in the vector
//! instructions too). Dividing each component costs four divisions where `r = 1 / sqrt(n)`,
//! `q_c = p_c·r` costs one and four multiplies, but that extra rounding raised the worst error
//! with `s` exact (the rounding floor) from 1.25e-7 to 1.57e-7 on the workload's frames, which
//! leaves the fit too little of 2e-7; f32 `p` normalized exactly still plays at 1.06e-7.
//!
//! # The arc shape
//!
//! The same segment is `q = m·cos φ + c·sin φ` with `m` its midpoint (unit), `c` the unit chord
//! direction `b / |b|` (orthogonal to `m`), `φ = ω·(f − centre)`, `ω = θ / length`. Played
//! ([`played_arc`]): `φ = ω·t`, `x = φ²`, `sin φ = fma(φ·x, S(x), φ)`, `cos φ = fma(x, C(x), 1)`
//! with the Taylor polynomials `S`, `C` through φ⁹ and φ¹⁰ (truncation below 2e-9 for |φ| ≤ π/4,
//! the largest half-angle of a shortest arc), `q_c = fma(c_c, sin φ, m_c·cos φ)`.
//!
//! In the existing format the arc is one piece of degree 8 ([`arc_polynomials`]:
//! `m_c·C(t) + c_c·S(t)`, `C` and `S` interpolating cos ωt and sin ωt), from whose f32
//! coefficients a player recovers `(m, c, ω)` ([`arc_from_coefficients`]); a player that does
//! not is measured too ([`arc_piece_on_horner_lanes`]).

use inbetween::quat::{self, Quat};
use inbetween::Document;

use super::soa::SoaScript;
use super::Method;

/// `s(u) = sin(uθ) / (sin(uθ) + sin((1−u)θ))`: the chord parameter at which
/// `normalize(q0 + s·(q1 − q0))` is the slerp at `u` (θ the angle between `q0` and `q1`, in
/// radians, `0 ≤ θ < π`; `u` in [0, 1]). Computed as `½ + tan(θ(u − ½)) / (2 tan(θ/2))`, and as
/// `u` itself when θ < 1e-7 (the difference is below `θ²/12`, 1e-15 there).
#[must_use]
pub fn chord_parameter(theta: f64, u: f64) -> f64 {
    if theta < 1e-7 {
        return u;
    }
    0.5 + (theta * (u - 0.5)).tan() / (2.0 * (0.5 * theta).tan())
}

/// Coefficients (lowest order first) in `t` of the polynomial of degree `degree` through `f` at
/// the Chebyshev nodes of [−h, h] (`h > 0`), or through the integer-spaced points
/// `−h, −h + 1, …, h` when there are at most `degree + 1` of them (then exact there).
#[must_use]
pub fn fit_centered(f: impl Fn(f64) -> f64, h: f64, degree: usize) -> Vec<f64> {
    let points = (2.0 * h).round() as usize + 1;
    let nodes: Vec<f64> = if points <= degree + 1 {
        (0..points).map(|i| i as f64 - h).collect()
    } else {
        (0..=degree)
            .map(|i| {
                let angle = std::f64::consts::PI * (2 * i + 1) as f64 / (2 * (degree + 1)) as f64;
                -h * angle.cos()
            })
            .collect()
    };
    // Newton's divided differences in x = t / h, then the power basis in x, then in t.
    let xs: Vec<f64> = nodes.iter().map(|t| t / h).collect();
    let mut dd: Vec<f64> = nodes.iter().map(|t| f(*t)).collect();
    for level in 1..xs.len() {
        for i in (level..xs.len()).rev() {
            dd[i] = (dd[i] - dd[i - 1]) / (xs[i] - xs[i - level]);
        }
    }
    let mut power = vec![0.0; degree + 1];
    for i in (0..xs.len()).rev() {
        // power ← power·(x − xs[i]) + dd[i]
        let mut next = vec![0.0; degree + 1];
        for k in 0..degree {
            next[k + 1] += power[k];
            next[k] -= power[k] * xs[i];
        }
        next[0] += dd[i];
        power = next;
    }
    power
        .iter()
        .enumerate()
        .map(|(k, c)| c / h.powi(k as i32))
        .collect()
}

/// A slerp segment of a rotation track: its keys (`q1` on `q0`'s side: the shortest arc), the
/// angle between them and its integer frames.
#[derive(Debug, Clone, Copy)]
pub struct Segment {
    /// Key at the start.
    pub q0: Quat,
    /// Key at the end, negated when `q0·q1 < 0`.
    pub q1: Quat,
    /// Angle between `q0` and `q1`, radians (at most π/2).
    pub theta: f64,
    /// Start frame.
    pub f0: i64,
    /// End frame (after `f0`).
    pub f1: i64,
}

impl Segment {
    /// Between two keys at integer frames `f0 < f1`.
    #[must_use]
    pub fn new(q0: Quat, q1: Quat, f0: i64, f1: i64) -> Self {
        let mut q1 = q1;
        if quat::dot(q0, q1) < 0.0 {
            q1 = quat::negate(q1);
        }
        let theta = quat::dot(q0, q1).clamp(-1.0, 1.0).acos();
        Self {
            q0,
            q1,
            theta,
            f0,
            f1,
        }
    }

    /// The exact slerp at frame `f`.
    #[must_use]
    pub fn exact(&self, f: f64) -> Quat {
        quat::slerp(
            self.q0,
            self.q1,
            (f - self.f0 as f64) / (self.f1 - self.f0) as f64,
        )
    }

    /// The chord parameter at frame `f`.
    #[must_use]
    pub fn chord(&self, f: f64) -> f64 {
        chord_parameter(
            self.theta,
            (f - self.f0 as f64) / (self.f1 - self.f0) as f64,
        )
    }
}

/// The slerp segments of every track of `doc` (its keys at integer frames, as in the quaternion
/// workload), track by track.
#[must_use]
pub fn segments(doc: &Document) -> Vec<Vec<Segment>> {
    doc.tracks()
        .iter()
        .map(|track| {
            track
                .keys()
                .windows(2)
                .map(|w| {
                    let q = |k: &inbetween::Key| -> Quat {
                        std::array::from_fn(|c| k.value.as_slice().get(c).copied().unwrap_or(0.0))
                    };
                    Segment::new(q(&w[0]), q(&w[1]), w[0].frame as i64, w[1].frame as i64)
                })
                .collect()
        })
        .collect()
}

/// Largest |component difference| of `played` from `exact`.
fn distance(played: [f32; 4], exact: Quat) -> f64 {
    (0..4).fold(0.0, |m: f64, c| {
        m.max((f64::from(played[c]) - exact[c]).abs())
    })
}

/// The chord shape's lane at frame `f`: `lane = [a_0..a_3, b_0..b_3, centre, s_0..s_D]`
/// (`N = 10 + D`), in the arithmetic of the module docs.
#[must_use]
#[inline(always)]
pub fn played_chord<const N: usize>(lane: &[f32; N], f: f32) -> [f32; 4] {
    let t = f - lane[8];
    let s = lane[9..]
        .iter()
        .rev()
        .skip(1)
        .fold(lane[N - 1], |v, &k| v.mul_add(t, k));
    let p: [f32; 4] = std::array::from_fn(|c| lane[4 + c].mul_add(s, lane[c]));
    let n = p[3].mul_add(p[3], p[2].mul_add(p[2], p[1].mul_add(p[1], p[0] * p[0])));
    let norm = n.sqrt();
    p.map(|x| x / norm)
}

/// How [`chord_rounding_floor`] normalizes `p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChordNormalization {
    /// `p_c / sqrt(n)`, as [`played_chord`].
    Divide,
    /// `p_c · (1 / sqrt(n))`: one division and four multiplies, one rounding more.
    Reciprocal,
    /// `p` widened to f64, normalized there, rounded to f32: no rounding but `p`'s and the
    /// output's.
    Exact,
}

/// The chord shape's rounding floor on `seg`: the largest error over its integer frames when `s`
/// is exact (rounded to f32 once) and only the rest rounds — `a`, `b`, `p = fma(b, s, a)`, then
/// `normalization` (`n` by FMA in f32 but for `Exact`). What is left of the tolerance is the
/// fit's.
#[must_use]
pub fn chord_rounding_floor(seg: &Segment, normalization: ChordNormalization) -> f64 {
    let mut lane = [0.0f32; 10];
    for c in 0..4 {
        lane[c] = seg.q0[c] as f32;
        lane[4 + c] = (seg.q1[c] - seg.q0[c]) as f32;
    }
    (seg.f0..=seg.f1).fold(0.0, |worst: f64, f| {
        lane[9] = seg.chord(f as f64) as f32;
        let p: [f32; 4] = std::array::from_fn(|c| lane[4 + c].mul_add(lane[9], lane[c]));
        let played = match normalization {
            ChordNormalization::Divide => played_chord(&lane, f as f32),
            ChordNormalization::Reciprocal => {
                let n = p[3].mul_add(p[3], p[2].mul_add(p[2], p[1].mul_add(p[1], p[0] * p[0])));
                let r = 1.0 / n.sqrt();
                p.map(|x| x * r)
            }
            ChordNormalization::Exact => {
                let wide = p.map(f64::from);
                let norm = quat::norm(wide);
                wide.map(|x| (x / norm) as f32)
            }
        };
        worst.max(distance(played, seg.exact(f as f64)))
    })
}

/// How a segment's frames split into chord pieces, and how well they play.
#[derive(Debug, Clone, Default)]
pub struct ChordFit<const N: usize> {
    /// (start frame, lane) per piece, in time order.
    pub pieces: Vec<(f32, [f32; N])>,
    /// Largest played error at the pieces' integer frames against the exact slerp.
    pub max_error: f64,
}

/// Splits `seg`'s frames `f0 ..= f1` (the end frame included: the last segment of a track holds
/// there) into the fewest equal runs of integer frames whose chord pieces of degree `N − 10`
/// all play within `tolerance` of the exact slerp at every frame; one frame a piece if none
/// does (then `max_error` says by how much).
#[must_use]
pub fn fit_chord<const N: usize>(seg: &Segment, tolerance: f64) -> ChordFit<N> {
    let frames = (seg.f1 - seg.f0 + 1) as usize;
    let mut best = ChordFit::default();
    for count in 1..=frames {
        let fit = chord_pieces::<N>(seg, count);
        let done = fit.max_error <= tolerance;
        if count == 1 || fit.max_error < best.max_error || done {
            best = fit;
        }
        if done {
            break;
        }
    }
    best
}

/// `seg` in `count` chord pieces of nearly equal numbers of integer frames.
fn chord_pieces<const N: usize>(seg: &Segment, count: usize) -> ChordFit<N> {
    let frames = (seg.f1 - seg.f0 + 1) as usize;
    let degree = N - 10;
    let b: Quat = std::array::from_fn(|c| seg.q1[c] - seg.q0[c]);
    let mut fit = ChordFit::default();
    for k in 0..count {
        let first = seg.f0 + (k * frames / count) as i64;
        let last = seg.f0 + ((k + 1) * frames / count) as i64 - 1;
        let centre = 0.5 * (first + last) as f64;
        let h = (0.5 * (last - first) as f64).max(0.5);
        let coefficients = fit_centered(|t| seg.chord(centre + t), h, degree);
        let mut lane = [0.0f32; N];
        for c in 0..4 {
            lane[c] = seg.q0[c] as f32;
            lane[4 + c] = b[c] as f32;
        }
        lane[8] = centre as f32;
        for (slot, x) in lane[9..].iter_mut().zip(&coefficients) {
            *slot = *x as f32;
        }
        let exact: Vec<(f32, Quat)> = (first..=last)
            .map(|f| (f as f32, seg.exact(f as f64)))
            .collect();
        let (lane, error) = round_best(lane, &exact);
        fit.max_error = fit.max_error.max(error);
        fit.pieces.push((first as f32, lane));
    }
    fit
}

/// `lane` with each of its three lowest coefficients `s_0, s_1, s_2` rounded to the nearest f32
/// or moved one ulp up or down, whichever of the 27 choices plays closest to `exact` (frame,
/// value) at its worst frame; that worst error. (Rounding `s_0` and `s_1 · t` to nearest costs
/// up to 3e-8 each in `s`, a quarter of what the rounding floor leaves the fit.)
fn round_best<const N: usize>(lane: [f32; N], exact: &[(f32, Quat)]) -> ([f32; N], f64) {
    let worst = |lane: &[f32; N]| {
        exact.iter().fold(0.0, |m: f64, (f, q)| {
            m.max(distance(played_chord(lane, *f), *q))
        })
    };
    let step = |x: f32, d: usize| match d {
        1 => f32::from_bits(x.to_bits().wrapping_add(1)),
        2 => f32::from_bits(x.to_bits().wrapping_sub(1)),
        _ => x,
    };
    let mut best = (lane, worst(&lane));
    let terms = (N - 9).min(3);
    for choice in 1..3usize.pow(terms as u32) {
        let mut candidate = lane;
        let mut code = choice;
        for k in 0..terms {
            // One ulp away from zero (`+1` on the bits) or towards it; zero stays.
            if lane[9 + k] != 0.0 {
                candidate[9 + k] = step(lane[9 + k], code % 3);
            }
            code /= 3;
        }
        let error = worst(&candidate);
        if error < best.1 {
            best = (candidate, error);
        }
    }
    best
}

/// Figures of a shape over a workload.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ShapeFigures {
    /// Pieces a segment on average.
    pub pieces_per_segment: f64,
    /// Largest error at the integer frames the fit checked.
    pub max_error: f64,
    /// Segments with a frame above the tolerance even one frame a piece.
    pub failed: usize,
    /// f32 numbers read a rotation-frame (one lane).
    pub numbers: usize,
}

/// `chord-soa-script`: the chord shape of degree `N − 10` on the baselines' reload script.
pub struct ChordShape<const N: usize> {
    script: SoaScript<N>,
    /// What the fit found.
    pub figures: ShapeFigures,
}

impl<const N: usize> ChordShape<N> {
    /// Over the quaternion workload's tracks, every segment fitted within `tolerance`.
    #[must_use]
    pub fn new(doc: &Document, tolerance: f64) -> Self {
        let tracks = segments(doc);
        let mut figures = ShapeFigures {
            numbers: N,
            ..ShapeFigures::default()
        };
        let mut count = 0usize;
        let script = SoaScript::new(tracks.len(), |lane| {
            let mut list = Vec::new();
            for seg in &tracks[lane] {
                let fit = fit_chord::<N>(seg, tolerance);
                figures.max_error = figures.max_error.max(fit.max_error);
                figures.failed += usize::from(fit.max_error > tolerance);
                figures.pieces_per_segment += fit.pieces.len() as f64;
                count += 1;
                list.extend(fit.pieces);
            }
            list
        });
        figures.pieces_per_segment /= count.max(1) as f64;
        Self { script, figures }
    }
}

impl<const N: usize> Method for ChordShape<N> {
    fn name(&self) -> String {
        format!("chord-degree{}-soa-script", N - 10)
    }
    fn reset(&mut self) {
        self.script.reset();
    }
    fn frame(&mut self, out: &mut [f32]) {
        let f = self.script.step();
        let lanes: [&[f32]; N] = std::array::from_fn(|k| self.script.lanes[k].as_slice());
        kernels::chord_run(f, out, &lanes);
    }
}

/// The Taylor coefficients of `(sin φ − φ) / φ³` and `(cos φ − 1) / φ²` in `x = φ²`, lowest first.
const SIN: [f32; 4] = [-1.0 / 6.0, 1.0 / 120.0, -1.0 / 5_040.0, 1.0 / 362_880.0];
const COS: [f32; 5] = [
    -0.5,
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40_320.0,
    -1.0 / 3_628_800.0,
];

/// The arc shape's lane at frame `f`: `lane = [m_0..m_3, c_0..c_3, centre, ω]`, in the
/// arithmetic of the module docs.
#[must_use]
#[inline(always)]
pub fn played_arc(lane: &[f32; 10], f: f32) -> [f32; 4] {
    let phi = lane[9] * (f - lane[8]);
    let x = phi * phi;
    let sp = SIN[..3].iter().rev().fold(SIN[3], |v, &k| v.mul_add(x, k));
    let cp = COS[..4].iter().rev().fold(COS[4], |v, &k| v.mul_add(x, k));
    let sin = (phi * x).mul_add(sp, phi);
    let cos = x.mul_add(cp, 1.0);
    std::array::from_fn(|c| lane[4 + c].mul_add(sin, lane[c] * cos))
}

/// The arc lane of `seg` (see the module docs); `c = 0`, `ω = 0` when its keys are equal.
#[must_use]
pub fn arc_lane(seg: &Segment) -> [f32; 10] {
    let m = quat::slerp(seg.q0, seg.q1, 0.5);
    let b: Quat = std::array::from_fn(|c| seg.q1[c] - seg.q0[c]);
    let chord = quat::norm(b);
    let mut lane = [0.0f32; 10];
    for c in 0..4 {
        lane[c] = m[c] as f32;
        lane[4 + c] = if chord > 1e-300 {
            (b[c] / chord) as f32
        } else {
            0.0
        };
    }
    lane[8] = (0.5 * (seg.f0 + seg.f1) as f64) as f32;
    lane[9] = (seg.theta / (seg.f1 - seg.f0) as f64) as f32;
    lane
}

/// Degree of [`arc_polynomials`]: the stream's largest.
pub const ARC_DEGREE: usize = 8;

/// `seg` as one ordinary piece: per component the coefficients (lowest first, in `t` frames
/// from the segment's centre) of `m_c·C(t) + c_c·S(t)`, `C` and `S` the Chebyshev interpolants
/// of degree 8 of `cos ωt` and `sin ωt` on the segment ([`fit_centered`]), rounded to f32 — what
/// a compiler could emit for a slerp segment in the existing format (rank two: the even
/// coefficients are proportional to `m`, the odd ones to `c`). Interpolation error below
/// `(ωh)⁹ / (2⁸·9!)`, 1.2e-9 at the largest shortest-arc half-angle `ωh = π/4`.
#[must_use]
pub fn arc_polynomials(seg: &Segment) -> [[f32; ARC_DEGREE + 1]; 4] {
    let lane = arc_lane(seg);
    let omega = seg.theta / (seg.f1 - seg.f0) as f64;
    let h = 0.5 * (seg.f1 - seg.f0) as f64;
    // Even and odd by symmetry: the interpolants' other terms are rounding noise, which on a
    // short arc outweighs their tiny high-order terms, so they are set to 0.
    let parity = |mut c: Vec<f64>, odd: usize| {
        for (k, x) in c.iter_mut().enumerate() {
            if k % 2 != odd {
                *x = 0.0;
            }
        }
        c
    };
    let cos = parity(fit_centered(|t| (omega * t).cos(), h, ARC_DEGREE), 0);
    let sin = parity(fit_centered(|t| (omega * t).sin(), h, ARC_DEGREE), 1);
    let m = quat::slerp(seg.q0, seg.q1, 0.5);
    std::array::from_fn(|c| {
        let dir = f64::from(lane[4 + c]);
        std::array::from_fn(|k| (m[c] * cos[k] + dir * sin[k]) as f32)
    })
}

/// The arc lane recovered from a piece's f32 component coefficients (in `t` from `centre`), as
/// a player could when it loads the piece: `m_c` the constant terms, `ω = |linear terms|` (the
/// derivative at the centre is `c·ω` with `c` unit), `c_c` the linear terms over `ω`. `None`
/// when the piece is not an arc: its even coefficients not proportional to `m` or its odd ones
/// not to `c` within `1e-6` relative (a player would then keep the Horner lanes; either way it
/// checks what it plays).
#[must_use]
pub fn arc_from_coefficients(
    coefficients: &[[f32; ARC_DEGREE + 1]; 4],
    centre: f32,
) -> Option<[f32; 10]> {
    let m: [f64; 4] = std::array::from_fn(|c| f64::from(coefficients[c][0]));
    let o: [f64; 4] = std::array::from_fn(|c| f64::from(coefficients[c][1]));
    let omega = o.iter().map(|x| x * x).sum::<f64>().sqrt();
    let dir: [f64; 4] = std::array::from_fn(|c| if omega > 0.0 { o[c] / omega } else { 0.0 });
    let columns: [[f64; 4]; ARC_DEGREE + 1] =
        std::array::from_fn(|k| std::array::from_fn(|c| f64::from(coefficients[c][k])));
    for (k, column) in columns.iter().enumerate().skip(2) {
        let basis = if k % 2 == 0 { m } else { dir };
        let scale: f64 = (0..4).map(|c| basis[c] * column[c]).sum();
        let size = column.iter().map(|x| x * x).sum::<f64>().sqrt();
        let off = (0..4)
            .map(|c| (column[c] - scale * basis[c]).abs())
            .fold(0.0, f64::max);
        if off > 1e-6 * size.max(1e-30) {
            return None;
        }
    }
    let mut lane = [0.0f32; 10];
    for c in 0..4 {
        lane[c] = m[c] as f32;
        lane[4 + c] = dir[c] as f32;
    }
    lane[8] = centre;
    lane[9] = omega as f32;
    Some(lane)
}

/// The degree-8 arc piece of `seg` ([`arc_polynomials`]) played as the bank's fused Horner
/// lanes play a normalized rotation today (`quat_lanes::played_fma`'s arithmetic: Horner by
/// FMA at `t` frames from the centre, then the near-unit series `s = fma(d, fma(⅜, d, ½), 1)`,
/// `d = 1 − ((x² + y²) + (z² + w²))`): its largest error against the exact slerp over the
/// segment's integer frames — what a player that does not recognize the arc would play.
#[must_use]
pub fn arc_piece_on_horner_lanes(seg: &Segment) -> f64 {
    let coefficients = arc_polynomials(seg);
    let centre = (0.5 * (seg.f0 + seg.f1) as f64) as f32;
    (seg.f0..=seg.f1).fold(0.0, |worst: f64, f| {
        let t = f as f32 - centre;
        let q = coefficients.map(|c| {
            c[..ARC_DEGREE]
                .iter()
                .rev()
                .fold(c[ARC_DEGREE], |v, &k| v.mul_add(t, k))
        });
        let d = 1.0 - ((q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]));
        let scale = d.mul_add(0.375f32.mul_add(d, 0.5), 1.0);
        worst.max(distance(q.map(|x| x * scale), seg.exact(f as f64)))
    })
}

/// `arc-soa-script`: the arc shape (one piece a segment) on the baselines' reload script.
pub struct ArcShape {
    script: SoaScript<10>,
    /// Largest error at the segments' integer frames (no fit: the shape is exact up to
    /// rounding and the sine and cosine polynomials).
    pub figures: ShapeFigures,
    name: &'static str,
}

impl ArcShape {
    /// Over the quaternion workload's tracks, each lane from its segment's keys ([`arc_lane`]).
    #[must_use]
    pub fn new(doc: &Document) -> Self {
        Self::with_lanes(doc, "arc-soa-script", |seg| Some(arc_lane(seg)))
    }

    /// As [`ArcShape::new`], each lane recovered from the segment's degree-8 component
    /// polynomials ([`arc_polynomials`], [`arc_from_coefficients`]); a segment whose piece is
    /// not recovered counts in `figures.failed` and plays its keys' lane.
    #[must_use]
    pub fn from_coefficients(doc: &Document) -> Self {
        Self::with_lanes(doc, "arc-from-degree8-soa-script", |seg| {
            let centre = (0.5 * (seg.f0 + seg.f1) as f64) as f32;
            arc_from_coefficients(&arc_polynomials(seg), centre)
        })
    }

    /// Over the workload's tracks with `arc_of(segment)` (its keys' lane when `None`), named
    /// `name`.
    fn with_lanes(
        doc: &Document,
        name: &'static str,
        arc_of: impl Fn(&Segment) -> Option<[f32; 10]>,
    ) -> Self {
        let tracks = segments(doc);
        let mut figures = ShapeFigures {
            numbers: 10,
            pieces_per_segment: 1.0,
            ..ShapeFigures::default()
        };
        let script = SoaScript::new(tracks.len(), |track| {
            let mut list = Vec::new();
            for seg in &tracks[track] {
                let arc = arc_of(seg).unwrap_or_else(|| {
                    figures.failed += 1;
                    arc_lane(seg)
                });
                for f in seg.f0..=seg.f1 {
                    let played = played_arc(&arc, f as f32);
                    figures.max_error =
                        figures.max_error.max(distance(played, seg.exact(f as f64)));
                }
                list.push((seg.f0 as f32, arc));
            }
            list
        });
        Self {
            script,
            figures,
            name,
        }
    }
}

impl Method for ArcShape {
    fn name(&self) -> String {
        self.name.into()
    }
    fn reset(&mut self) {
        self.script.reset();
    }
    fn frame(&mut self, out: &mut [f32]) {
        let f = self.script.step();
        let lanes: [&[f32]; 10] = std::array::from_fn(|k| self.script.lanes[k].as_slice());
        kernels::arc_run(f, out, &lanes);
    }
}

mod kernels;

#[cfg(test)]
mod tests;
