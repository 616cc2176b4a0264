//! Quaternion helpers for rotation tracks: products, normalization, nlerp and Shoemake's shortest-arc slerp on `[x, y, z, w]` arrays.
//!
//! A quaternion is `[f64; 4]` in glTF order [x, y, z, w], w being the scalar part; a rotation by
//! angle θ about the unit axis n is [n·sin(θ/2), cos(θ/2)]. q and −q are the same rotation, so the
//! interpolations here take the shortest arc: they negate the second quaternion when the two have
//! a negative dot product.

use crate::math;
use crate::math::Pair;
use core::f64::consts::FRAC_PI_2;

/// A quaternion [x, y, z, w] (glTF order, w is the scalar part).
pub type Quat = [f64; 4];

/// The identity rotation [0, 0, 0, 1].
pub const IDENTITY: Quat = [0.0, 0.0, 0.0, 1.0];

/// Below this angle (radians) `sinc` uses its Taylor series; the first omitted term is then
/// under 1e-27.
const SINC_SERIES_BELOW: f64 = 1e-4;

/// Squared norms at least this large are free of underflow in `dot(q, q)`.
const SAFE_SQUARED_NORM: f64 = 1e-290;

/// The 4D dot product a·b = ax·bx + ay·by + az·bz + aw·bw. For unit quaternions it is
/// ±cos(φ/2), with φ the angle of the rotation from a to b.
#[inline]
#[must_use]
pub fn dot(a: Quat, b: Quat) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

/// The Euclidean norm |q| = √(q·q), computed with scaling when q·q would overflow or underflow.
/// NaN for a quaternion with a NaN component.
#[must_use]
pub fn norm(q: Quat) -> f64 {
    let squared = dot(q, q);
    if squared.is_finite() && squared >= SAFE_SQUARED_NORM {
        return math::sqrt(squared);
    }
    if q.iter().any(|c| c.is_nan()) {
        return f64::NAN;
    }
    let largest = largest_magnitude(q);
    if largest == 0.0 || largest.is_infinite() {
        return largest;
    }
    let scaled = q.map(|c| c / largest);
    largest * math::sqrt(dot(scaled, scaled))
}

/// q / |q|, or `None` when |q| is zero or not finite (a zero quaternion, or one with a NaN or
/// infinite component). Every other quaternion normalizes, however tiny or huge its components.
#[must_use]
pub fn normalize(q: Quat) -> Option<Quat> {
    let squared = dot(q, q);
    if squared.is_finite() && squared >= SAFE_SQUARED_NORM {
        let length = math::sqrt(squared);
        return Some(q.map(|c| c / length));
    }
    if q.iter().any(|c| !c.is_finite()) {
        return None;
    }
    let largest = largest_magnitude(q);
    if largest == 0.0 {
        return None;
    }
    // Scale the largest component to ±1 first so that q·q neither overflows nor underflows.
    let scaled = q.map(|c| c / largest);
    let length = math::sqrt(dot(scaled, scaled));
    Some(scaled.map(|c| c / length))
}

/// The largest |component| of q (NaN components are skipped).
#[inline]
fn largest_magnitude(q: Quat) -> f64 {
    q.iter().fold(0.0_f64, |acc, &c| {
        let magnitude = math::abs(c);
        if magnitude > acc {
            magnitude
        } else {
            acc
        }
    })
}

/// −q, the same rotation as q.
#[inline]
#[must_use]
pub fn negate(q: Quat) -> Quat {
    q.map(|c| -c)
}

/// The conjugate [−x, −y, −z, w]: the inverse rotation for a unit quaternion.
#[inline]
#[must_use]
pub fn conjugate(q: Quat) -> Quat {
    [-q[0], -q[1], -q[2], q[3]]
}

/// The Hamilton product a·b: the rotation b followed by the rotation a (for unit quaternions).
/// With a = [v_a, w_a] and b = [v_b, w_b]:
/// a·b = [w_a·v_b + w_b·v_a + v_a × v_b, w_a·w_b − v_a·v_b].
#[inline]
#[must_use]
pub fn mul(a: Quat, b: Quat) -> Quat {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// The rotation by `angle` radians about `axis` (right-handed; the axis need not be unit length):
/// [n·sin(angle/2), cos(angle/2)] with n = axis/|axis|. A zero or non-finite axis gives
/// [`IDENTITY`] (there is no direction to turn about); a non-finite angle gives NaN components.
#[must_use]
pub fn from_axis_angle(axis: [f64; 3], angle: f64) -> Quat {
    let Some([x, y, z, _]) = normalize([axis[0], axis[1], axis[2], 0.0]) else {
        return IDENTITY;
    };
    let half = 0.5 * angle;
    let s = math::sin(half);
    [x * s, y * s, z * s, math::cos(half)]
}

/// `v` rotated by the unit quaternion `q` (q·v·q*), as v + 2w(u × v) + 2u × (u × v) with
/// u = [x, y, z].
#[must_use]
pub fn rotate_vector(q: Quat, v: [f64; 3]) -> [f64; 3] {
    let u = [q[0], q[1], q[2]];
    let w = q[3];
    let uv = cross(u, v);
    let uuv = cross(u, uv);
    [
        v[0] + 2.0 * (w * uv[0] + uuv[0]),
        v[1] + 2.0 * (w * uv[1] + uuv[1]),
        v[2] + 2.0 * (w * uv[2] + uuv[2]),
    ]
}

/// The 3D cross product.
#[inline]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The angle φ in [0, π] of the rotation that takes orientation a to orientation b, insensitive
/// to the sign of either quaternion: with b negated when a·b < 0 and both normalized, the 4D angle
/// between them is Ω = 2·atan2(|a − b|, |a + b|), accurate also for tiny angles (unlike
/// acos(a·b)), and φ = 2Ω. NaN when a or b cannot be normalized.
#[must_use]
pub fn angle_between(a: Quat, b: Quat) -> f64 {
    let (Some(a), Some(b)) = (normalize(a), normalize(b)) else {
        return f64::NAN;
    };
    2.0 * half_arc(a, shortest_arc_partner(a, b))
}

/// `b`, negated when a·b < 0 so that a and the result lie on the same hemisphere.
#[inline]
fn shortest_arc_partner(a: Quat, b: Quat) -> Quat {
    if dot(a, b) < 0.0 {
        negate(b)
    } else {
        b
    }
}

/// The 4D angle between unit quaternions a and b, Ω = 2·atan2(|a − b|, |a + b|), in [0, π]:
/// half the angle of the rotation from a to b. (|a − b| = 2 sin(Ω/2) and |a + b| = 2 cos(Ω/2).)
#[inline]
fn half_arc(a: Quat, b: Quat) -> f64 {
    let difference = norm([a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]]);
    let sum = norm([a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]);
    2.0 * math::atan2(difference, sum)
}

/// Ω = [`half_arc`]`(a, b)` and sinc(Ω): what a slerp computes from its ends alone. With `std`
/// the last pair of ends each thread asked for is remembered with its results (matched bit for
/// bit), so a sequence of slerps between the same keys — the compiler evaluates a segment at
/// every integer and half frame and at its fit nodes — pays for `atan2` and one `sin` once per
/// segment instead of once per point; the values are the same bits either way.
#[inline]
fn arc_angle(a: Quat, b: Quat) -> (f64, f64) {
    #[cfg(feature = "std")]
    {
        let key = [a, b].map(|q| q.map(f64::to_bits));
        if let Some((k, omega, denominator)) = LAST_ARC.with(core::cell::Cell::get) {
            if (0..4).all(|i| k[0][i] == key[0][i] && k[1][i] == key[1][i]) {
                return (omega, denominator);
            }
        }
        let omega = half_arc(a, b);
        let found = (omega, sinc(omega));
        LAST_ARC.with(|last| last.set(Some((key, found.0, found.1))));
        found
    }
    #[cfg(not(feature = "std"))]
    {
        let omega = half_arc(a, b);
        (omega, sinc(omega))
    }
}

/// The ends `[a, b]` of an arc (as bits), its Ω and sinc(Ω).
#[cfg(feature = "std")]
type RememberedArc = ([[u64; 4]; 2], f64, f64);

// The last `arc_angle` on this thread.
#[cfg(feature = "std")]
std::thread_local! {
    static LAST_ARC: core::cell::Cell<Option<RememberedArc>> = const { core::cell::Cell::new(None) };
}

/// sin(x)/x, with the limit 1 at x = 0 (Taylor series 1 − x²/6 + x⁴/120 for tiny x).
#[inline]
fn sinc(x: f64) -> f64 {
    if math::abs(x) < SINC_SERIES_BELOW {
        let x2 = x * x;
        1.0 - x2 / 6.0 * (1.0 - x2 / 20.0)
    } else {
        math::sin(x) / x
    }
}

/// Normalized linear interpolation along the shortest arc: (1 − t)·a + t·b′ normalized, with
/// b′ = −b when a·b < 0, else b. Cheaper than [`slerp`] and on the same great arc, but not at
/// constant angular speed.
///
/// `a` and `b` are expected to be unit quaternions. At t = 0 the result is `a` exactly and at
/// t = 1 it is b′ exactly. Antipodal inputs (b = −a) are the same rotation and give a. If the
/// blend cannot be normalized (only possible for non-unit inputs or t outside [0, 1]), it is
/// returned as it is.
#[must_use]
pub fn nlerp(a: Quat, b: Quat, t: f64) -> Quat {
    let b = shortest_arc_partner(a, b);
    if t == 0.0 {
        return a;
    }
    if t == 1.0 {
        return b;
    }
    let blend = [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
        a[3] + (b[3] - a[3]) * t,
    ];
    normalize(blend).unwrap_or(blend)
}

/// Spherical linear interpolation along the shortest arc (Shoemake, "Animating rotation with
/// quaternion curves", SIGGRAPH 1985): with b′ = −b when a·b < 0, else b, and Ω the 4D angle
/// between a and b′,
///
/// slerp(a, b, t) = sin((1 − t)Ω)/sin Ω · a + sin(tΩ)/sin Ω · b′,
///
/// which turns at constant angular velocity, by t times the rotation from a to b.
///
/// `a` and `b` are expected to be unit quaternions; the result is normalized. At t = 0 the
/// result is `a` exactly and at t = 1 it is b′ exactly (so −b when the arc flipped it); t outside
/// [0, 1] extrapolates along the same great circle.
///
/// Numerically: Ω = 2·atan2(|a − b′|, |a + b′|) is accurate for tiny angles, and the weights
/// are evaluated as sin(tΩ)/sin Ω = t·sinc(tΩ)/sinc(Ω), with a series for sinc near 0, so equal
/// and nearly equal inputs never divide 0 by 0 (Ω = 0 gives (1 − t)·a + t·b′). After the flip
/// Ω ≤ π/2, so sin Ω never vanishes otherwise: antipodal inputs (a·b = −1, the same rotation)
/// become equal ones and give a for every t, and a·b = 0 (orientations a 180° rotation apart,
/// where both arcs are equally long) keeps b′ = b, has Ω = π/2 and interpolates normally.
#[must_use]
pub fn slerp(a: Quat, b: Quat, t: f64) -> Quat {
    let b = shortest_arc_partner(a, b);
    if t == 0.0 {
        return a;
    }
    if t == 1.0 {
        return b;
    }
    let (omega, denominator) = arc_angle(a, b);
    blend(a, b, (omega, denominator), t)
}

/// The weighted sum of [`slerp`] for `t` ∉ {0, 1}, from `b` already on `a`'s hemisphere and
/// the arc's `(Ω, sinc Ω)`, normalized.
#[inline]
fn blend(a: Quat, b: Quat, (omega, denominator): (f64, f64), t: f64) -> Quat {
    let weight_a = (1.0 - t) * sinc((1.0 - t) * omega) / denominator;
    let weight_b = t * sinc(t * omega) / denominator;
    let blend = [
        weight_a * a[0] + weight_b * b[0],
        weight_a * a[1] + weight_b * b[1],
        weight_a * a[2] + weight_b * b[2],
        weight_a * a[3] + weight_b * b[3],
    ];
    normalize(blend).unwrap_or(blend)
}

/// [`slerp`] between two fixed ends at many `t`: the shortest-arc partner and the arc's Ω and
/// sinc Ω found once ([`Arc::new`]), then [`Arc::at`] gives `slerp(a, b, t)` bit for bit (the
/// same operations; `tests::an_arc_is_slerp_bit_for_bit`), and [`Arc::closed_form`] gives it
/// within [`CLOSED_FORM_TOLERANCE`] for about a third of the instructions. The compiler
/// evaluates a slerp segment at every integer and half frame and at the fits' nodes with
/// `closed_form`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arc {
    a: Quat,
    /// `b` on `a`'s hemisphere.
    b: Quat,
    /// Ω and sinc Ω.
    arc: (f64, f64),
    /// The unit quaternion `e` orthogonal to `a` in the plane of `a` and `b`, so that
    /// `b = cos Ω·a + sin Ω·e`; `None` when the closed form is not used (an arc under
    /// [`CLOSED_FORM_MIN_ARC`], ends not unit to rounding).
    normal: Option<Quat>,
}

/// Largest difference (any component, any `t` in [−1, 2] with |tΩ| ≤ π/2) between
/// [`Arc::closed_form`] and the closed form cos(tΩ)·a + sin(tΩ)·e evaluated exactly: see the
/// error bound in [`Arc::closed_form`]'s docs; `slerp` is within a few units in the last place
/// of the same closed form.
pub const CLOSED_FORM_TOLERANCE: f64 = 5e-14;

/// Arcs (Ω, radians) below this take [`blend`] in [`Arc::closed_form`]: the normal `e` is
/// then the difference of nearly equal quaternions (the bound below needs none of this, but
/// sinc's series is exact there and cheap enough for the rare tiny arc).
const CLOSED_FORM_MIN_ARC: f64 = 1e-6;

/// Ends whose squared norm is further than this from 1 take [`blend`] in
/// [`Arc::closed_form`] (a validated key is normalized: within a few units in the last place).
const UNIT_SQUARED_NORM_SLACK: f64 = 1e-15;

/// `1/k!` for k = 0..=21 (each quotient rounded once: 1/k! within k units in the last place).
const INVERSE_FACTORIALS: [f64; 22] = {
    let mut out = [1.0; 22];
    let mut k = 1;
    while k < 22 {
        out[k] = out[k - 1] / k as f64;
        k += 1;
    }
    out
};

/// (sin x, cos x) for |x| ≤ π/2 by their Taylor polynomials through x²¹ and x²⁰, Horner's rule
/// in y = x². Truncation: the series alternate with decreasing terms there, so the error is
/// below the first omitted term, (π/2)²³/23! < 1.3e-18 and (π/2)²²/22! < 1.9e-17. Rounding:
/// Horner's rule of m steps errs by at most γ_{2m}·Σ|c_k||y|^k (Higham, *Accuracy and
/// Stability*, 5.1), and Σ|c_k||x|^k is sinh |x| ≤ 2.31 or cosh |x| ≤ 2.51; with m = 11, the
/// coefficients' own rounding (≤ 21u relative), y's (≤ u relative) and the final product,
/// each result is within (22 + 21 + 3)·u·2.51 < 1.3e-14 of sin x or cos x (u = 2⁻⁵³).
#[inline]
fn sin_cos_small(x: f64) -> (f64, f64) {
    let y = x * x;
    // sin x = x·(1 − y/3! + y²/5! − … − y¹⁰/21!), cos x = 1 − y/2! + … + y¹⁰/20!.
    // Horner's rule from the top coefficients: its first step from 0.0, 0·y + c, is c
    // exactly for a finite y, so it is skipped (the same bits).
    // The two series side by side (`math::Pair`: each lane rounds as the scalar operations
    // do, so the same bits as one series after the other).
    let last = SERIES_TERMS - 1;
    let mut sc = Pair::new(SIN_SERIES[last], COS_SERIES[last]);
    let y = Pair::splat(y);
    for j in (0..last).rev() {
        sc = sc * y + Pair::new(SIN_SERIES[j], COS_SERIES[j]);
    }
    let [s, c] = sc.lanes();
    (x * s, c)
}

/// Terms of the sine and cosine series in [`sin_cos_small`].
const SERIES_TERMS: usize = 11;

/// (−1)^j / (2j + 1)!: the sine series in y = x², divided by x.
const SIN_SERIES: [f64; SERIES_TERMS] = alternating(1);

/// (−1)^j / (2j)!: the cosine series in y = x².
const COS_SERIES: [f64; SERIES_TERMS] = alternating(0);

/// (−1)^j / (2j + first)! for j = 0..SERIES_TERMS.
const fn alternating(first: usize) -> [f64; SERIES_TERMS] {
    let mut out = [0.0; SERIES_TERMS];
    let mut j = 0;
    while j < SERIES_TERMS {
        let c = INVERSE_FACTORIALS[2 * j + first];
        out[j] = if j % 2 == 0 { c } else { -c };
        j += 1;
    }
    out
}

impl Arc {
    /// The arc from `a` to `b` (the shorter way round).
    pub(crate) fn new(a: Quat, b: Quat) -> Self {
        let b = shortest_arc_partner(a, b);
        let arc = arc_angle(a, b);
        Self {
            a,
            b,
            arc,
            normal: normal(a, b, arc.0),
        }
    }

    /// `slerp(a, b, t)` bit for bit (the tests compare `closed_form` and `slerp` through it).
    #[cfg(test)]
    #[inline]
    pub(crate) fn at(&self, t: f64) -> Quat {
        if t == 0.0 {
            return self.a;
        }
        if t == 1.0 {
            return self.b;
        }
        blend(self.a, self.b, self.arc, t)
    }

    /// `slerp(a, b, t)` as cos(tΩ)·a + sin(tΩ)·e (`e` the unit normal to `a` towards `b` in
    /// their plane), one polynomial sine and cosine ([`sin_cos_small`]) and no normalization,
    /// within [`CLOSED_FORM_TOLERANCE`] of the closed form for t in [−1, 2] with |tΩ| ≤ π/2;
    /// [`Arc::at`]'s `blend` elsewhere, on tiny arcs and on ends that are not unit. `a` at
    /// t = 0 and `b` at t = 1 exactly, as `slerp`. `None` when the value is not finite, which
    /// the series never gives (|sin|, |cos| ≤ cosh(π/2) < 2.6 there, `a` and `e` unit), so it
    /// is checked only on the other paths.
    ///
    /// Error bound, per component (u = 2⁻⁵³, unit ends to 1e-15): sin and cos each within
    /// 1.3e-14 ([`sin_cos_small`]); `e` = w/|w| with w = b − (a·b)·a computed within 4u·(1 +
    /// 1e-15) of its exact value, whose norm is sin Ω, so `e` is within ~8u/sin Ω and
    /// sin(tΩ)·e within 8u·|sin tΩ|/sin Ω ≤ 8u·|t|·Ω/sin Ω ≤ 8u·2·π/2 < 3e-15; Ω itself
    /// (`half_arc`, a few u relative) moves tΩ by under 2e-15; the two products and the sum
    /// add 3u. Total under 3.2e-14, below [`CLOSED_FORM_TOLERANCE`]
    /// (`tests::closed_form_is_slerp_within_its_tolerance` measures it against an independent
    /// closed form on random arcs up to a half turn).
    #[inline]
    pub(crate) fn closed_form(&self, t: f64) -> Option<Quat> {
        let finite = |q: Quat| q.iter().all(|x| x.is_finite()).then_some(q);
        if t == 0.0 {
            return finite(self.a);
        }
        if t == 1.0 {
            return finite(self.b);
        }
        let theta = t * self.arc.0;
        match self.normal {
            Some(e) if (-1.0..=2.0).contains(&t) && math::abs(theta) <= FRAC_PI_2 => {
                let (s, c) = sin_cos_small(theta);
                let a = self.a;
                // `c·a_k + s·e_k`, two components a step (`math::Pair`: the same bits).
                let (c, s) = (Pair::splat(c), Pair::splat(s));
                let low = c * Pair::new(a[0], a[1]) + s * Pair::new(e[0], e[1]);
                let high = c * Pair::new(a[2], a[3]) + s * Pair::new(e[2], e[3]);
                let ([q0, q1], [q2, q3]) = (low.lanes(), high.lanes());
                Some([q0, q1, q2, q3])
            }
            _ => finite(blend(self.a, self.b, self.arc, t)),
        }
    }
}

/// The unit quaternion along b − (a·b)·a, the direction from `a` towards `b` orthogonal to
/// `a`, for unit ends (squared norms within [`UNIT_SQUARED_NORM_SLACK`] of 1) an arc `omega`
/// of at least [`CLOSED_FORM_MIN_ARC`] apart; `None` otherwise.
fn normal(a: Quat, b: Quat, omega: f64) -> Option<Quat> {
    let unit = |q: Quat| math::abs(dot(q, q) - 1.0) <= UNIT_SQUARED_NORM_SLACK;
    if !(omega >= CLOSED_FORM_MIN_ARC && unit(a) && unit(b)) {
        return None;
    }
    let d = dot(a, b);
    normalize([
        b[0] - d * a[0],
        b[1] - d * a[1],
        b[2] - d * a[2],
        b[3] - d * a[3],
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;
    use core::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2, FRAC_PI_4, PI};
    use proptest::prelude::*;

    /// `Arc::at` is `slerp` bit for bit: random unit ends (and equal, antipodal, orthogonal
    /// and nearly equal ones) at t in [0, 1] (including 0, ½, 1) and outside it.
    #[test]
    fn an_arc_is_slerp_bit_for_bit() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut ends: Vec<(Quat, Quat)> = Vec::new();
        for _ in 0..200 {
            let a = normalize([next(), next(), next(), next()]).unwrap();
            let b = normalize([next(), next(), next(), next()]).unwrap();
            let near = normalize([a[0] + 1e-9, a[1], a[2] - 1e-9, a[3]]).unwrap();
            ends.extend([(a, b), (a, a), (a, negate(a)), (a, near)]);
        }
        ends.push(([1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]));
        for (a, b) in ends {
            let arc = Arc::new(a, b);
            for t in [0.0, 0.5, 1.0, 1e-12, 0.999_999, -0.25, 1.5, next().abs()] {
                let (x, y) = (arc.at(t), slerp(a, b, t));
                assert_eq!(x.map(f64::to_bits), y.map(f64::to_bits), "{a:?} {b:?} {t}");
            }
        }
    }

    /// The polynomial sine and cosine are within their proven 1.3e-14 of libm's (itself
    /// within an ulp) over [−π/2, π/2], at 100 001 points and both ends.
    #[test]
    fn series_sine_and_cosine_are_within_their_bound() {
        let mut worst = 0.0f64;
        for k in 0..=100_000 {
            let x = -FRAC_PI_2 + PI * f64::from(k) / 100_000.0;
            let (s, c) = sin_cos_small(x);
            worst = worst.max((s - x.sin()).abs()).max((c - x.cos()).abs());
        }
        assert!(worst <= 1.3e-14, "{worst:e}");
        assert_eq!(sin_cos_small(0.0), (0.0, 1.0));
    }

    /// `sin_cos_small` gives the bits of Horner's rule started from 0.0 (its form before the
    /// first step was skipped) at 200 001 points of [−π/2, π/2], both ends and ±0.
    #[test]
    fn series_from_the_top_coefficient_is_horner_from_zero_bit_for_bit() {
        let from_zero = |x: f64| {
            let y = x * x;
            let (mut s, mut c) = (0.0, 0.0);
            for j in (0..SERIES_TERMS).rev() {
                s = s * y + SIN_SERIES[j];
                c = c * y + COS_SERIES[j];
            }
            (x * s, c)
        };
        let points = (0..=200_000).map(|k| -FRAC_PI_2 + PI * f64::from(k) / 200_000.0);
        for x in points.chain([-FRAC_PI_2, FRAC_PI_2, 0.0, -0.0, 1e-300]) {
            let ((s, c), (s0, c0)) = (sin_cos_small(x), from_zero(x));
            assert_eq!(
                (s.to_bits(), c.to_bits()),
                (s0.to_bits(), c0.to_bits()),
                "{x}"
            );
        }
    }

    /// `Arc::closed_form` (its series and its sum two lanes at a time, `math::Pair`) gives the
    /// bits of the scalar form, the series one after the other from 0.0 and
    /// `c·a_k + s·e_k` component by component: 2 000 random arcs up to a half turn at 200
    /// random `t` in [−1, 2] each.
    #[test]
    fn closed_form_in_lanes_is_the_scalar_form_bit_for_bit() {
        let mut seed = 0x853c_49e6_748f_ea9b_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let scalar_sin_cos = |x: f64| {
            let y = x * x;
            let (mut s, mut c) = (0.0, 0.0);
            for j in (0..SERIES_TERMS).rev() {
                s = s * y + SIN_SERIES[j];
                c = c * y + COS_SERIES[j];
            }
            (x * s, c)
        };
        let mut compared = 0;
        for _ in 0..2_000 {
            let a = normalize([next() - 0.5, next() - 0.5, next() - 0.5, next() - 0.5]).unwrap();
            let b = normalize([next() - 0.5, next() - 0.5, next() - 0.5, next() - 0.5]).unwrap();
            let arc = Arc::new(a, b);
            let Some(e) = arc.normal else { continue };
            for _ in 0..200 {
                let t = 3.0 * next() - 1.0;
                let theta = t * arc.arc.0;
                if math::abs(theta) > FRAC_PI_2 || t == 0.0 || t == 1.0 {
                    continue;
                }
                let (s, c) = scalar_sin_cos(theta);
                let a = arc.a;
                let scalar = [0, 1, 2, 3].map(|k| c * a[k] + s * e[k]);
                let got = arc.closed_form(t).expect("unit ends give finite values");
                assert_eq!(got.map(f64::to_bits), scalar.map(f64::to_bits), "t = {t}");
                compared += 1;
            }
        }
        assert!(compared > 100_000, "{compared} values compared");
    }

    /// `Arc::closed_form` against an independent closed form: `b` made as `a` turned by φ
    /// about a random axis (φ up to a half turn, so Ω = φ/2 up to π/2, and tiny φ that take
    /// `blend`), and the value at t the turn by tφ, `a·(axis, tφ)` with libm's sin and cos;
    /// at 1 000 points of a long segment from t = −0.25 to 1.25 (eases overshoot) and at the
    /// ends. Also within the tolerance of `slerp`, and `a`/`b` exactly at t = 0/1.
    #[test]
    fn closed_form_is_slerp_within_its_tolerance() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut worst = 0.0f64;
        let mut fast = 0;
        for case in 0..400 {
            let a = normalize([next() - 0.5, next() - 0.5, next() - 0.5, next() - 0.5]).unwrap();
            let axis = [next() - 0.5, next() - 0.5, next() - 0.5];
            let phi = match case % 4 {
                0 => PI * (1.0 - 1e-9 * next()),
                1 => 1e-7 * next(),
                _ => PI * next(),
            };
            let b = normalize(mul(a, from_axis_angle(axis, phi))).unwrap();
            let arc = Arc::new(a, b);
            fast += usize::from(arc.normal.is_some());
            assert_eq!(arc.closed_form(0.0), Some(a));
            assert_eq!(arc.closed_form(1.0), Some(arc.b));
            for k in 0..=1000 {
                let t = -0.25 + 1.5 * f64::from(k) / 1000.0;
                let reference = mul(a, from_axis_angle(axis, t * phi));
                let got = arc.closed_form(t).expect("unit ends give finite values");
                worst = worst.max(max_difference(got, reference));
                worst = worst.max(max_difference(got, slerp(a, b, t)));
            }
        }
        assert!(fast >= 250, "{fast} arcs took the closed form");
        assert!(worst <= CLOSED_FORM_TOLERANCE, "{worst:e}");
    }

    fn max_difference(a: Quat, b: Quat) -> f64 {
        (0..4).fold(0.0, |acc: f64, k| acc.max(math::abs(a[k] - b[k])))
    }

    macro_rules! assert_close {
        ($left:expr, $right:expr, $tol:expr) => {{
            let (left, right, tol): (Quat, Quat, f64) = ($left, $right, $tol);
            let difference = max_difference(left, right);
            assert!(
                difference <= tol,
                "left = {left:?}, right = {right:?}, difference = {difference:e} > {tol:e}"
            );
        }};
    }

    fn assert_unit(q: Quat) {
        assert!(q.iter().all(|c| c.is_finite()), "{q:?} is not finite");
        assert!(
            math::abs(norm(q) - 1.0) <= 1e-15,
            "{q:?} has norm {}",
            norm(q)
        );
    }

    /// `slerp` as written before its ends' angle was remembered: Ω and sinc(Ω) computed at
    /// every call.
    fn slerp_uncached(a: Quat, b: Quat, t: f64) -> Quat {
        let b = shortest_arc_partner(a, b);
        if t == 0.0 {
            return a;
        }
        if t == 1.0 {
            return b;
        }
        let omega = half_arc(a, b);
        let denominator = sinc(omega);
        let weight_a = (1.0 - t) * sinc((1.0 - t) * omega) / denominator;
        let weight_b = t * sinc(t * omega) / denominator;
        let blend = [0, 1, 2, 3].map(|k| weight_a * a[k] + weight_b * b[k]);
        normalize(blend).unwrap_or(blend)
    }

    /// Remembering the last ends' Ω and sinc(Ω) gives the same bits as computing them every
    /// time, in runs of one pair, alternating pairs, a flipped partner, equal and antipodal
    /// ends and NaN ends (whose cached and computed results must not differ either).
    #[test]
    fn remembered_arc_gives_the_same_bits() {
        let x = from_axis_angle([0.0, 0.0, 1.0], 1.2);
        let y = from_axis_angle([0.6, 0.0, 0.8], -2.9);
        let pairs = [
            (x, y),
            (y, x),
            (x, negate(y)),
            (x, x),
            (x, negate(x)),
            (IDENTITY, [f64::NAN, 0.0, 0.0, 1.0]),
        ];
        let bits = |q: Quat| q.map(f64::to_bits);
        for round in 0..3 {
            for (i, (a, b)) in pairs.iter().enumerate() {
                // Rounds 0 and 2 repeat each pair 7 times in a row; round 1 alternates pairs.
                let repeats = if round == 1 { 1 } else { 7 };
                for k in 0..repeats {
                    let t = (k as f64 + 0.5 + i as f64) / 9.0 - 0.1;
                    assert_eq!(bits(slerp(*a, *b, t)), bits(slerp_uncached(*a, *b, t)));
                }
            }
        }
    }

    /// The textbook form with Ω = acos(a·b′) and sin Ω in the denominator.
    fn textbook_slerp(a: Quat, b: Quat, t: f64) -> Quat {
        let b = if dot(a, b) < 0.0 { negate(b) } else { b };
        let omega = math::acos(dot(a, b));
        let wa = math::sin((1.0 - t) * omega) / math::sin(omega);
        let wb = math::sin(t * omega) / math::sin(omega);
        [0, 1, 2, 3].map(|k| wa * a[k] + wb * b[k])
    }

    fn unit(q: Quat) -> Quat {
        normalize(q).unwrap_or_else(|| panic!("{q:?} is not normalizable"))
    }

    fn sample_quats() -> Vec<Quat> {
        vec![
            IDENTITY,
            from_axis_angle([0.0, 0.0, 1.0], FRAC_PI_2),
            from_axis_angle([1.0, 2.0, 3.0], 1.0),
            from_axis_angle([-1.0, 0.5, 0.0], 2.5),
            from_axis_angle([0.3, -0.7, 0.2], -3.0),
            unit([0.5, -0.5, 0.5, -0.5]),
            unit([0.1, 0.2, 0.3, -0.9]),
        ]
    }

    #[test]
    fn slerp_halfway_to_a_quarter_turn_is_an_eighth_turn() {
        let quarter = from_axis_angle([0.0, 0.0, 1.0], FRAC_PI_2);
        let eighth = from_axis_angle([0.0, 0.0, 1.0], FRAC_PI_4);
        assert_close!(slerp(IDENTITY, quarter, 0.5), eighth, 4e-16);
        let expected = [0.0, 0.0, math::sin(PI / 8.0), math::cos(PI / 8.0)];
        assert_close!(slerp(IDENTITY, quarter, 0.5), expected, 4e-16);
    }

    #[test]
    fn slerp_endpoints_are_exact() {
        for a in sample_quats() {
            for b in sample_quats() {
                assert_eq!(slerp(a, b, 0.0), a);
                assert_eq!(nlerp(a, b, 0.0), a);
                let chosen = if dot(a, b) < 0.0 { negate(b) } else { b };
                assert_eq!(slerp(a, b, 1.0), chosen);
                assert_eq!(nlerp(a, b, 1.0), chosen);
            }
        }
    }

    #[test]
    fn slerp_turns_at_constant_angular_velocity() {
        for a in sample_quats() {
            for b in sample_quats() {
                let total = angle_between(a, b);
                let ts = [0.0, 0.1, 0.25, 0.3, 0.5, 0.8, 0.95, 1.0];
                for &t1 in &ts {
                    for &t2 in &ts {
                        let angle = angle_between(slerp(a, b, t1), slerp(a, b, t2));
                        let expected = math::abs(t1 - t2) * total;
                        assert!(
                            math::abs(angle - expected) <= 1e-13,
                            "{a:?} → {b:?}: angle {angle} between t = {t1} and {t2}, expected {expected}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn slerp_results_are_normalized() {
        for a in sample_quats() {
            for b in sample_quats() {
                for i in 0..=20 {
                    let t = f64::from(i) / 20.0;
                    assert_unit(slerp(a, b, t));
                    assert_unit(nlerp(a, b, t));
                }
            }
        }
    }

    #[test]
    fn slerp_of_identical_inputs_is_that_input() {
        for q in sample_quats() {
            for t in [0.0, 1e-300, 0.3, 0.5, 0.9, 1.0] {
                let result = slerp(q, q, t);
                assert_unit(result);
                assert_close!(result, q, 4e-16);
                // Antipodal inputs are the same rotation.
                let result = slerp(q, negate(q), t);
                assert_unit(result);
                assert_close!(result, q, 4e-16);
            }
        }
    }

    #[test]
    fn slerp_of_nearly_identical_inputs() {
        let axis = [0.48, -0.6, 0.64];
        for base_angle in [0.0, 1.0, 3.0] {
            let tiny = 1e-12;
            let a = from_axis_angle(axis, base_angle);
            let b = from_axis_angle(axis, base_angle + tiny);
            assert!(math::abs(angle_between(a, b) - tiny) <= 1e-15);
            for i in 0..=10 {
                let t = f64::from(i) / 10.0;
                let result = slerp(a, b, t);
                assert_unit(result);
                let expected = from_axis_angle(axis, base_angle + t * tiny);
                assert_close!(result, expected, 1e-15);
                assert!(math::abs(angle_between(a, result) - t * tiny) <= 1e-15);
            }
        }
        // Differing in the last bit only.
        let a = IDENTITY;
        let b = [0.0, 0.0, f64::MIN_POSITIVE, 1.0];
        assert_unit(slerp(a, b, 0.5));
        assert_close!(slerp(a, b, 0.5), IDENTITY, 1e-300);
    }

    #[test]
    fn slerp_takes_the_shortest_arc() {
        for a in sample_quats() {
            for b in sample_quats() {
                for t in [0.2, 0.5, 0.7] {
                    assert_close!(slerp(a, negate(b), t), slerp(a, b, t), 1e-15);
                    assert_close!(nlerp(a, negate(b), t), nlerp(a, b, t), 1e-15);
                }
            }
        }
        // A 350° turn about Z is a −10° turn: slerp goes the 10° way.
        let a = IDENTITY;
        let b = from_axis_angle([0.0, 0.0, 1.0], 350f64.to_radians());
        assert!(dot(a, b) < 0.0);
        let half = slerp(a, b, 0.5);
        assert_close!(
            half,
            from_axis_angle([0.0, 0.0, 1.0], -5f64.to_radians()),
            1e-15
        );
    }

    #[test]
    fn slerp_across_a_half_turn() {
        // a·b = 0: a 180° rotation apart, interpolated without any flip.
        let half_turn = [0.0, 0.0, 1.0, 0.0];
        assert_eq!(dot(IDENTITY, half_turn), 0.0);
        assert_close!(
            slerp(IDENTITY, half_turn, 0.5),
            from_axis_angle([0.0, 0.0, 1.0], FRAC_PI_2),
            4e-16
        );
        assert!(math::abs(angle_between(IDENTITY, half_turn) - PI) <= 1e-15);
    }

    #[test]
    fn slerp_matches_the_textbook_formula() {
        for a in sample_quats() {
            for b in sample_quats() {
                let angle = angle_between(a, b);
                if !(0.1..=3.0).contains(&angle) {
                    continue;
                }
                for i in 0..=20 {
                    let t = f64::from(i) / 20.0;
                    assert_close!(slerp(a, b, t), textbook_slerp(a, b, t), 1e-14);
                }
            }
        }
    }

    #[test]
    fn nlerp_is_on_the_arc_and_agrees_at_the_middle() {
        for a in sample_quats() {
            for b in sample_quats() {
                assert_close!(nlerp(a, b, 0.5), slerp(a, b, 0.5), 1e-15);
                let total = angle_between(a, b);
                for i in 0..=10 {
                    let t = f64::from(i) / 10.0;
                    let q = nlerp(a, b, t);
                    let sum = angle_between(a, q) + angle_between(q, b);
                    assert!(math::abs(sum - total) <= 1e-13, "{a:?} {b:?} {t}");
                }
            }
        }
    }

    #[test]
    fn normalize_refuses_what_has_no_direction() {
        assert_eq!(normalize([0.0; 4]), None);
        assert_eq!(normalize([f64::NAN, 0.0, 0.0, 1.0]), None);
        assert_eq!(normalize([f64::INFINITY, 0.0, 0.0, 1.0]), None);
        assert_eq!(normalize([0.0, 0.0, 0.0, 2.0]), Some(IDENTITY));
        assert_eq!(normalize([0.0, 0.0, 0.0, -1e-300]), Some(negate(IDENTITY)));
        assert_close!(
            unit([1e-200, 0.0, 0.0, 1e-200]),
            [FRAC_1_SQRT_2, 0.0, 0.0, FRAC_1_SQRT_2],
            4e-16
        );
        assert_close!(
            unit([1e200, 0.0, 0.0, 1e200]),
            [FRAC_1_SQRT_2, 0.0, 0.0, FRAC_1_SQRT_2],
            4e-16
        );
        assert_eq!(norm([3.0, 0.0, 4.0, 0.0]), 5.0);
        assert!(math::abs(norm([3e-200, 0.0, 4e-200, 0.0]) / 5e-200 - 1.0) <= 4e-16);
        assert!(math::abs(norm([3e200, 0.0, 4e200, 0.0]) / 5e200 - 1.0) <= 4e-16);
        assert_eq!(norm([f64::INFINITY, 0.0, 0.0, 0.0]), f64::INFINITY);
        assert_close!(
            unit([f64::MAX, 0.0, f64::MAX, 0.0]),
            [FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2, 0.0],
            4e-16
        );
        assert_eq!(norm([f64::MAX, 0.0, f64::MAX, 0.0]), f64::INFINITY);
        assert_eq!(
            normalize([0.0, -5e-324, 0.0, 0.0]),
            Some([0.0, -1.0, 0.0, 0.0])
        );
        assert!(norm([f64::NAN, f64::INFINITY, 0.0, 0.0]).is_nan());
    }

    #[test]
    fn products_and_axis_angle() {
        let i = [1.0, 0.0, 0.0, 0.0];
        let j = [0.0, 1.0, 0.0, 0.0];
        let k = [0.0, 0.0, 1.0, 0.0];
        assert_eq!(mul(i, j), k);
        assert_eq!(mul(j, k), i);
        assert_eq!(mul(k, i), j);
        assert_eq!(mul(j, i), negate(k));
        assert_eq!(mul(i, i), negate(IDENTITY));
        for q in sample_quats() {
            assert_eq!(mul(q, IDENTITY), q);
            assert_eq!(mul(IDENTITY, q), q);
            assert_close!(mul(q, conjugate(q)), IDENTITY, 1e-15);
        }
        let axis = [1.0, -2.0, 2.0];
        assert_close!(
            mul(from_axis_angle(axis, 0.4), from_axis_angle(axis, 0.7)),
            from_axis_angle(axis, 1.1),
            1e-15
        );
        assert_eq!(from_axis_angle([0.0; 3], 1.0), IDENTITY);
        assert_eq!(from_axis_angle([f64::NAN, 0.0, 0.0], 1.0), IDENTITY);
        // Unnormalized axes are normalized.
        assert_close!(
            from_axis_angle([0.0, 0.0, 5.0], 1.0),
            from_axis_angle([0.0, 0.0, 1.0], 1.0),
            4e-16
        );
    }

    #[test]
    fn rotating_vectors() {
        let quarter_z = from_axis_angle([0.0, 0.0, 1.0], FRAC_PI_2);
        let rotated = rotate_vector(quarter_z, [1.0, 0.0, 0.0]);
        assert_close!(
            [rotated[0], rotated[1], rotated[2], 0.0],
            [0.0, 1.0, 0.0, 0.0],
            1e-15
        );
        // rotate_vector agrees with q·v·q*.
        for q in sample_quats() {
            let v = [0.3, -1.2, 2.0];
            let r = rotate_vector(q, v);
            let product = mul(mul(q, [v[0], v[1], v[2], 0.0]), conjugate(q));
            assert_close!([r[0], r[1], r[2], 0.0], product, 1e-14);
        }
    }

    #[test]
    fn angle_between_rotations() {
        let axis = [2.0, 1.0, -2.0];
        for i in 0..=36 {
            let angle = f64::from(i) * 10f64.to_radians();
            let q = from_axis_angle(axis, angle);
            let expected = if angle <= PI { angle } else { 2.0 * PI - angle };
            assert!(
                math::abs(angle_between(IDENTITY, q) - expected) <= 1e-14,
                "{angle}"
            );
            assert!(math::abs(angle_between(negate(q), IDENTITY) - expected) <= 1e-14);
        }
        assert!(angle_between([0.0; 4], IDENTITY).is_nan());
        assert_eq!(angle_between(IDENTITY, IDENTITY), 0.0);
    }

    fn unit_quat() -> impl Strategy<Value = Quat> {
        prop::array::uniform4(-1.0..1.0_f64)
            .prop_filter("needs a direction", |q| norm(*q) > 1e-3)
            .prop_map(unit)
    }

    proptest! {
        #[test]
        fn slerp_is_normalized_and_uniform(a in unit_quat(), b in unit_quat(), t in 0.0..=1.0_f64) {
            let q = slerp(a, b, t);
            prop_assert!(math::abs(norm(q) - 1.0) <= 1e-15);
            let total = angle_between(a, b);
            prop_assert!(math::abs(angle_between(a, q) - t * total) <= 1e-12);
            prop_assert!(math::abs(angle_between(q, b) - (1.0 - t) * total) <= 1e-12);
        }
    }
}
