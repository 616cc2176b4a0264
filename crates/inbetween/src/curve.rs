//! Cubic Bezier and cubic Hermite segments: evaluation, derivatives, subdivision, conversion and power-basis coefficients.
//!
//! Both segment kinds are cubic polynomials in a parameter t, defined for t in [0, 1]; values of t
//! outside [0, 1] extrapolate the same polynomial (nothing is clamped). Points are `[f64; D]`, one
//! array per control point, so the same code serves scalars (D = 1) up to 4-vectors, colors and
//! quaternion components (D = 4).
//!
//! The two forms describe the same cubics: a Bezier segment with control points p0, p1, p2, p3 is
//! the Hermite segment from p0 to p3 with tangents 3(p1 − p0) and 3(p3 − p2) (see, for example,
//! Farin, *Curves and Surfaces for CAGD*, 5th ed., chapters 4 and 7).

use core::array;

use crate::arclength::{self, ArcLengthError, ParamCurve};

/// `f(a[k], b[k])` for every component k.
#[inline]
fn zip<const D: usize>(a: [f64; D], b: [f64; D], f: impl Fn(f64, f64) -> f64) -> [f64; D] {
    array::from_fn(|k| f(a[k], b[k]))
}

/// Linear interpolation (1 − t)·a + t·b, component-wise; exactly a at t = 0 and b at t = 1.
#[inline]
fn lerp<const D: usize>(a: [f64; D], b: [f64; D], t: f64) -> [f64; D] {
    let s = 1.0 - t;
    zip(a, b, |a, b| s * a + t * b)
}

/// Σ weights[i]·points[i], component-wise.
#[inline]
fn combine<const D: usize>(points: [[f64; D]; 4], weights: [f64; 4]) -> [f64; D] {
    array::from_fn(|k| {
        weights[0] * points[0][k]
            + weights[1] * points[1][k]
            + weights[2] * points[2][k]
            + weights[3] * points[3][k]
    })
}

/// A cubic Bezier segment with control points p0, p1, p2, p3:
///
/// B(t) = (1 − t)³·p0 + 3(1 − t)²t·p1 + 3(1 − t)t²·p2 + t³·p3.
///
/// The segment starts at p0 (B(0) = p0) heading towards p1 and ends at p3 (B(1) = p3) arriving
/// from p2. The parameter range is t in [0, 1]; other t extrapolate the cubic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicBezier<const D: usize> {
    /// Start point, B(0).
    pub p0: [f64; D],
    /// First inner control point; B′(0) = 3(p1 − p0).
    pub p1: [f64; D],
    /// Second inner control point; B′(1) = 3(p3 − p2).
    pub p2: [f64; D],
    /// End point, B(1).
    pub p3: [f64; D],
}

impl<const D: usize> CubicBezier<D> {
    /// The segment with these control points.
    #[inline]
    #[must_use]
    pub fn new(p0: [f64; D], p1: [f64; D], p2: [f64; D], p3: [f64; D]) -> Self {
        CubicBezier { p0, p1, p2, p3 }
    }

    /// The control points in order, p0, p1, p2, p3.
    #[inline]
    #[must_use]
    pub fn points(&self) -> [[f64; D]; 4] {
        [self.p0, self.p1, self.p2, self.p3]
    }

    /// B(t) in Bernstein form, (1 − t)³·p0 + 3(1 − t)²t·p1 + 3(1 − t)t²·p2 + t³·p3.
    /// Exactly p0 at t = 0 and p3 at t = 1 (for finite control points).
    #[inline]
    #[must_use]
    pub fn eval(&self, t: f64) -> [f64; D] {
        let s = 1.0 - t;
        combine(
            self.points(),
            [s * s * s, 3.0 * s * s * t, 3.0 * s * t * t, t * t * t],
        )
    }

    /// B(t) by de Casteljau's algorithm (three rounds of linear interpolation); the same value as
    /// [`eval`](Self::eval) up to rounding, and numerically the most robust form inside [0, 1].
    #[inline]
    #[must_use]
    pub fn eval_de_casteljau(&self, t: f64) -> [f64; D] {
        let a = lerp(self.p0, self.p1, t);
        let b = lerp(self.p1, self.p2, t);
        let c = lerp(self.p2, self.p3, t);
        let ab = lerp(a, b, t);
        let bc = lerp(b, c, t);
        lerp(ab, bc, t)
    }

    /// dB/dt = 3[(1 − t)²·(p1 − p0) + 2(1 − t)t·(p2 − p1) + t²·(p3 − p2)].
    /// B′(0) = 3(p1 − p0), B′(1) = 3(p3 − p2).
    #[inline]
    #[must_use]
    pub fn derivative(&self, t: f64) -> [f64; D] {
        let s = 1.0 - t;
        let (w0, w1, w2) = (3.0 * s * s, 6.0 * s * t, 3.0 * t * t);
        array::from_fn(|k| {
            w0 * (self.p1[k] - self.p0[k])
                + w1 * (self.p2[k] - self.p1[k])
                + w2 * (self.p3[k] - self.p2[k])
        })
    }

    /// d²B/dt² = 6[(1 − t)·(p2 − 2p1 + p0) + t·(p3 − 2p2 + p1)].
    #[inline]
    #[must_use]
    pub fn second_derivative(&self, t: f64) -> [f64; D] {
        let s = 1.0 - t;
        array::from_fn(|k| {
            6.0 * (s * (self.p2[k] - 2.0 * self.p1[k] + self.p0[k])
                + t * (self.p3[k] - 2.0 * self.p2[k] + self.p1[k]))
        })
    }

    /// Splits the segment at `t` by de Casteljau's algorithm into the part over [0, t] and the
    /// part over [t, 1], each reparametrized to [0, 1]: `left.eval(s) = self.eval(t·s)` and
    /// `right.eval(s) = self.eval(t + (1 − t)·s)`. Both halves share the split point exactly.
    /// With t outside [0, 1] the pieces are the matching extrapolated parts.
    #[must_use]
    pub fn split(&self, t: f64) -> (Self, Self) {
        let a = lerp(self.p0, self.p1, t);
        let b = lerp(self.p1, self.p2, t);
        let c = lerp(self.p2, self.p3, t);
        let ab = lerp(a, b, t);
        let bc = lerp(b, c, t);
        let mid = lerp(ab, bc, t);
        (
            CubicBezier::new(self.p0, a, ab, mid),
            CubicBezier::new(mid, bc, c, self.p3),
        )
    }

    /// The same cubic as a Hermite segment: from p0 to p3 with tangents m0 = 3(p1 − p0) and
    /// m1 = 3(p3 − p2).
    #[inline]
    #[must_use]
    pub fn to_hermite(&self) -> CubicHermite<D> {
        CubicHermite {
            p0: self.p0,
            m0: zip(self.p0, self.p1, |p0, p1| 3.0 * (p1 - p0)),
            p1: self.p3,
            m1: zip(self.p2, self.p3, |p2, p3| 3.0 * (p3 - p2)),
        }
    }

    /// Arc length of the segment over t in [0, 1], within `accuracy · L` of the true length L
    /// (`accuracy` relative to the length; [`arclength::DEFAULT_ACCURACY`] is the spec's 1e-9).
    /// Adaptive Gauss–Legendre quadrature of |B′(t)|, see [`arclength::arclen`]; a segment whose
    /// control points coincide has length exactly 0.
    ///
    /// # Errors
    ///
    /// [`ArcLengthError`] for an invalid accuracy, non-finite control points, D outside 1..=4, or
    /// an accuracy the capped quadrature cannot reach.
    #[inline]
    pub fn arclen(&self, accuracy: f64) -> Result<f64, ArcLengthError> {
        arclength::arclen(self, 0.0, 1.0, accuracy)
    }

    /// The parameter t in [0, 1] at arc length `s` from B(0), within `accuracy · L` in length
    /// (`accuracy` relative to the whole length L). `s` is clamped to [0, L]: 0 gives t = 0, L
    /// gives t = 1, a zero-length segment gives 0. See [`arclength::inv_arclen`].
    ///
    /// # Errors
    ///
    /// As [`arclen`](Self::arclen).
    #[inline]
    pub fn inv_arclen(&self, s: f64, accuracy: f64) -> Result<f64, ArcLengthError> {
        arclength::inv_arclen(self, s, accuracy)
    }

    /// Power-basis coefficients [a0, a1, a2, a3] with B(t) = a0 + a1·t + a2·t² + a3·t³:
    /// a0 = p0, a1 = 3(p1 − p0), a2 = 3(p0 − 2p1 + p2), a3 = p3 − p0 + 3(p1 − p2).
    #[inline]
    #[must_use]
    pub fn power_coefficients(&self) -> [[f64; D]; 4] {
        let (p0, p1, p2, p3) = (self.p0, self.p1, self.p2, self.p3);
        [
            p0,
            array::from_fn(|k| 3.0 * (p1[k] - p0[k])),
            array::from_fn(|k| 3.0 * (p0[k] - 2.0 * p1[k] + p2[k])),
            array::from_fn(|k| p3[k] - p0[k] + 3.0 * (p1[k] - p2[k])),
        ]
    }
}

/// A cubic Hermite segment from p0 to p1 with end tangents m0 and m1:
///
/// H(t) = h00(t)·p0 + h10(t)·m0 + h01(t)·p1 + h11(t)·m1, with the Hermite basis
/// h00 = 2t³ − 3t² + 1, h10 = t³ − 2t² + t, h01 = −2t³ + 3t², h11 = t³ − t².
///
/// H(0) = p0, H(1) = p1, H′(0) = m0, H′(1) = m1. The tangents are derivatives with respect to t
/// over the unit parameter range t in [0, 1] (a tangent in value units per frame must be scaled
/// by the segment's length in frames first, as the spec's `hermite` segments do). Other t
/// extrapolate the cubic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicHermite<const D: usize> {
    /// Start point, H(0).
    pub p0: [f64; D],
    /// Start tangent, H′(0).
    pub m0: [f64; D],
    /// End point, H(1).
    pub p1: [f64; D],
    /// End tangent, H′(1).
    pub m1: [f64; D],
}

impl<const D: usize> CubicHermite<D> {
    /// The segment from `p0` to `p1` with tangents `m0` and `m1` (d/dt over t in [0, 1]).
    #[inline]
    #[must_use]
    pub fn new(p0: [f64; D], m0: [f64; D], p1: [f64; D], m1: [f64; D]) -> Self {
        CubicHermite { p0, m0, p1, m1 }
    }

    /// The points and tangents in basis order, p0, m0, p1, m1.
    #[inline]
    #[must_use]
    fn basis_points(&self) -> [[f64; D]; 4] {
        [self.p0, self.m0, self.p1, self.m1]
    }

    /// H(t) = h00(t)·p0 + h10(t)·m0 + h01(t)·p1 + h11(t)·m1 with h00 = 2t³ − 3t² + 1,
    /// h10 = t³ − 2t² + t, h01 = −2t³ + 3t², h11 = t³ − t². Exactly p0 at t = 0 and p1 at t = 1
    /// (for finite inputs).
    #[inline]
    #[must_use]
    pub fn eval(&self, t: f64) -> [f64; D] {
        let t2 = t * t;
        let t3 = t2 * t;
        combine(
            self.basis_points(),
            [
                2.0 * t3 - 3.0 * t2 + 1.0,
                t3 - 2.0 * t2 + t,
                -2.0 * t3 + 3.0 * t2,
                t3 - t2,
            ],
        )
    }

    /// dH/dt with the basis derivatives h00′ = 6t² − 6t, h10′ = 3t² − 4t + 1, h01′ = −6t² + 6t,
    /// h11′ = 3t² − 2t. H′(0) = m0, H′(1) = m1.
    #[inline]
    #[must_use]
    pub fn derivative(&self, t: f64) -> [f64; D] {
        let t2 = t * t;
        combine(
            self.basis_points(),
            [
                6.0 * t2 - 6.0 * t,
                3.0 * t2 - 4.0 * t + 1.0,
                -6.0 * t2 + 6.0 * t,
                3.0 * t2 - 2.0 * t,
            ],
        )
    }

    /// d²H/dt² with h00″ = 12t − 6, h10″ = 6t − 4, h01″ = −12t + 6, h11″ = 6t − 2.
    #[inline]
    #[must_use]
    pub fn second_derivative(&self, t: f64) -> [f64; D] {
        combine(
            self.basis_points(),
            [
                12.0 * t - 6.0,
                6.0 * t - 4.0,
                -12.0 * t + 6.0,
                6.0 * t - 2.0,
            ],
        )
    }

    /// Splits the segment at `t` into the part over [0, t] and the part over [t, 1], each
    /// reparametrized to [0, 1] (`left.eval(s) = self.eval(t·s)`,
    /// `right.eval(s) = self.eval(t + (1 − t)·s)`). The split point is H(t) for both; tangents
    /// are rescaled by the new parameter speed: the left half has m0·t and H′(t)·t, the right half
    /// H′(t)·(1 − t) and m1·(1 − t).
    #[must_use]
    pub fn split(&self, t: f64) -> (Self, Self) {
        let mid = self.eval(t);
        let tangent = self.derivative(t);
        let rest = 1.0 - t;
        (
            CubicHermite::new(self.p0, self.m0.map(|m| m * t), mid, tangent.map(|m| m * t)),
            CubicHermite::new(
                mid,
                tangent.map(|m| m * rest),
                self.p1,
                self.m1.map(|m| m * rest),
            ),
        )
    }

    /// The same cubic as a Bezier segment: control points p0, p0 + m0/3, p1 − m1/3, p1.
    #[inline]
    #[must_use]
    pub fn to_bezier(&self) -> CubicBezier<D> {
        CubicBezier {
            p0: self.p0,
            p1: zip(self.p0, self.m0, |p, m| p + m / 3.0),
            p2: zip(self.p1, self.m1, |p, m| p - m / 3.0),
            p3: self.p1,
        }
    }

    /// Arc length of the segment over t in [0, 1], within `accuracy · L` of the true length L
    /// (`accuracy` relative to the length; [`arclength::DEFAULT_ACCURACY`] is the spec's 1e-9).
    /// Adaptive Gauss–Legendre quadrature of |H′(t)|, see [`arclength::arclen`]; a segment with
    /// p0 = p1 and zero tangents has length exactly 0.
    ///
    /// # Errors
    ///
    /// [`ArcLengthError`] for an invalid accuracy, non-finite points or tangents, D outside 1..=4, or
    /// an accuracy the capped quadrature cannot reach.
    #[inline]
    pub fn arclen(&self, accuracy: f64) -> Result<f64, ArcLengthError> {
        arclength::arclen(self, 0.0, 1.0, accuracy)
    }

    /// The parameter t in [0, 1] at arc length `s` from H(0), within `accuracy · L` in length
    /// (`accuracy` relative to the whole length L). `s` is clamped to [0, L]: 0 gives t = 0, L
    /// gives t = 1, a zero-length segment gives 0. See [`arclength::inv_arclen`].
    ///
    /// # Errors
    ///
    /// As [`arclen`](Self::arclen).
    #[inline]
    pub fn inv_arclen(&self, s: f64, accuracy: f64) -> Result<f64, ArcLengthError> {
        arclength::inv_arclen(self, s, accuracy)
    }

    /// Power-basis coefficients [a0, a1, a2, a3] with H(t) = a0 + a1·t + a2·t² + a3·t³:
    /// a0 = p0, a1 = m0, a2 = 3(p1 − p0) − 2m0 − m1, a3 = 2(p0 − p1) + m0 + m1.
    #[inline]
    #[must_use]
    pub fn power_coefficients(&self) -> [[f64; D]; 4] {
        let (p0, m0, p1, m1) = (self.p0, self.m0, self.p1, self.m1);
        [
            p0,
            m0,
            array::from_fn(|k| 3.0 * (p1[k] - p0[k]) - 2.0 * m0[k] - m1[k]),
            array::from_fn(|k| 2.0 * (p0[k] - p1[k]) + m0[k] + m1[k]),
        ]
    }
}

impl<const D: usize> From<CubicBezier<D>> for CubicHermite<D> {
    #[inline]
    fn from(bezier: CubicBezier<D>) -> Self {
        bezier.to_hermite()
    }
}

impl<const D: usize> From<CubicHermite<D>> for CubicBezier<D> {
    #[inline]
    fn from(hermite: CubicHermite<D>) -> Self {
        hermite.to_bezier()
    }
}

/// Copies the components of `point` into `out` (as many as both hold).
#[inline]
fn write_point<const D: usize>(point: [f64; D], out: &mut [f64]) {
    for (slot, value) in out.iter_mut().zip(point) {
        *slot = value;
    }
}

/// A Bezier segment as a curve on u = t in [0, 1] with its exact derivative (D components).
impl<const D: usize> ParamCurve for CubicBezier<D> {
    #[inline]
    fn dims(&self) -> usize {
        D
    }

    #[inline]
    fn eval(&self, u: f64, out: &mut [f64]) {
        write_point(CubicBezier::eval(self, u), out);
    }

    #[inline]
    fn derivative(&self, u: f64, out: &mut [f64]) {
        write_point(CubicBezier::derivative(self, u), out);
    }
}

/// A Hermite segment as a curve on u = t in [0, 1] with its exact derivative (D components).
impl<const D: usize> ParamCurve for CubicHermite<D> {
    #[inline]
    fn dims(&self) -> usize {
        D
    }

    #[inline]
    fn eval(&self, u: f64, out: &mut [f64]) {
        write_point(CubicHermite::eval(self, u), out);
    }

    #[inline]
    fn derivative(&self, u: f64, out: &mut [f64]) {
        write_point(CubicHermite::derivative(self, u), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math;

    /// Largest absolute component difference.
    fn max_difference<const D: usize>(a: [f64; D], b: [f64; D]) -> f64 {
        (0..D).fold(0.0, |acc: f64, k| acc.max(math::abs(a[k] - b[k])))
    }

    macro_rules! assert_close {
        ($left:expr, $right:expr, $tol:expr, $($context:tt)+) => {{
            let (left, right, tol) = ($left, $right, $tol);
            let difference = max_difference(left, right);
            assert!(
                difference <= tol,
                "{}: left = {left:?}, right = {right:?}, difference = {difference:e} > {tol:e}",
                alloc::format!($($context)+),
            );
        }};
    }

    /// Deterministic pseudo-random numbers in [−10, 10) (a 64-bit LCG; no dependency needed).
    struct Numbers(u64);

    impl Numbers {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 20.0 - 10.0
        }

        fn point<const D: usize>(&mut self) -> [f64; D] {
            array::from_fn(|_| self.next())
        }

        fn bezier<const D: usize>(&mut self) -> CubicBezier<D> {
            CubicBezier::new(self.point(), self.point(), self.point(), self.point())
        }

        fn hermite<const D: usize>(&mut self) -> CubicHermite<D> {
            CubicHermite::new(self.point(), self.point(), self.point(), self.point())
        }
    }

    /// Parameters in and somewhat outside [0, 1].
    fn parameters() -> impl Iterator<Item = f64> {
        (-20..=120).map(|i| f64::from(i) / 100.0)
    }

    /// Σ a_k t^k, component-wise.
    fn eval_power<const D: usize>(coefficients: [[f64; D]; 4], t: f64) -> [f64; D] {
        array::from_fn(|k| {
            ((coefficients[3][k] * t + coefficients[2][k]) * t + coefficients[1][k]) * t
                + coefficients[0][k]
        })
    }

    fn de_casteljau_matches_bernstein<const D: usize>() {
        let mut numbers = Numbers(D as u64);
        for _ in 0..50 {
            let curve = numbers.bezier::<D>();
            for t in parameters() {
                assert_close!(
                    curve.eval(t),
                    curve.eval_de_casteljau(t),
                    1e-12,
                    "{curve:?} at {t}"
                );
            }
        }
    }

    fn endpoints_are_exact<const D: usize>() {
        let mut numbers = Numbers(10 + D as u64);
        for _ in 0..50 {
            let bezier = numbers.bezier::<D>();
            assert_eq!(bezier.eval(0.0), bezier.p0);
            assert_eq!(bezier.eval(1.0), bezier.p3);
            assert_eq!(bezier.eval_de_casteljau(0.0), bezier.p0);
            assert_eq!(bezier.eval_de_casteljau(1.0), bezier.p3);
            let hermite = numbers.hermite::<D>();
            assert_eq!(hermite.eval(0.0), hermite.p0);
            assert_eq!(hermite.eval(1.0), hermite.p1);
            assert_eq!(hermite.derivative(0.0), hermite.m0);
            assert_eq!(hermite.derivative(1.0), hermite.m1);
            let m0: [f64; D] = array::from_fn(|k| 3.0 * (bezier.p1[k] - bezier.p0[k]));
            let m1: [f64; D] = array::from_fn(|k| 3.0 * (bezier.p3[k] - bezier.p2[k]));
            assert_eq!(bezier.derivative(0.0), m0);
            assert_eq!(bezier.derivative(1.0), m1);
        }
    }

    fn split_halves_reproduce_the_curve<const D: usize>() {
        let mut numbers = Numbers(20 + D as u64);
        for _ in 0..20 {
            let bezier = numbers.bezier::<D>();
            let hermite = numbers.hermite::<D>();
            for split_at in [0.0, 0.1, 0.5, 0.77, 1.0] {
                let (left, right) = bezier.split(split_at);
                assert_eq!(left.p3, right.p0);
                assert_eq!(left.p0, bezier.p0);
                assert_eq!(right.p3, bezier.p3);
                let (hleft, hright) = hermite.split(split_at);
                assert_eq!(hleft.p1, hright.p0);
                assert_eq!(hleft.p0, hermite.p0);
                assert_eq!(hright.p1, hermite.p1);
                for i in 0..=20 {
                    let s = f64::from(i) / 20.0;
                    let on_left = split_at * s;
                    let on_right = split_at + (1.0 - split_at) * s;
                    let context = (split_at, s);
                    assert_close!(left.eval(s), bezier.eval(on_left), 1e-11, "{context:?}");
                    assert_close!(right.eval(s), bezier.eval(on_right), 1e-11, "{context:?}");
                    assert_close!(hleft.eval(s), hermite.eval(on_left), 1e-11, "{context:?}");
                    assert_close!(hright.eval(s), hermite.eval(on_right), 1e-11, "{context:?}");
                }
            }
        }
    }

    fn hermite_bezier_round_trip<const D: usize>() {
        let mut numbers = Numbers(30 + D as u64);
        for _ in 0..50 {
            let bezier = numbers.bezier::<D>();
            let hermite = bezier.to_hermite();
            let back = hermite.to_bezier();
            for (a, b) in bezier.points().into_iter().zip(back.points()) {
                assert_close!(a, b, 1e-13, "{bezier:?}");
            }
            let hermite = numbers.hermite::<D>();
            let bezier = CubicBezier::from(hermite);
            let back = CubicHermite::from(bezier);
            for (a, b) in hermite.basis_points().into_iter().zip(back.basis_points()) {
                assert_close!(a, b, 1e-13, "{hermite:?}");
            }
            for t in parameters() {
                assert_close!(hermite.eval(t), bezier.eval(t), 1e-11, "{hermite:?} at {t}");
                assert_close!(
                    hermite.derivative(t),
                    bezier.derivative(t),
                    1e-11,
                    "{hermite:?} at {t}"
                );
                assert_close!(
                    hermite.second_derivative(t),
                    bezier.second_derivative(t),
                    1e-11,
                    "{hermite:?} at {t}"
                );
            }
        }
    }

    fn derivatives_match_finite_differences<const D: usize>() {
        let h = 1e-5;
        let central = |f: &dyn Fn(f64) -> [f64; D], t: f64| -> [f64; D] {
            let (plus, minus) = (f(t + h), f(t - h));
            array::from_fn(|k| (plus[k] - minus[k]) / (2.0 * h))
        };
        let mut numbers = Numbers(40 + D as u64);
        for _ in 0..20 {
            let bezier = numbers.bezier::<D>();
            let hermite = numbers.hermite::<D>();
            for t in parameters() {
                // Cubics: central differences are exact up to h²·f‴/6 (f‴ constant) and rounding.
                let numeric = central(&|t| bezier.eval(t), t);
                assert_close!(bezier.derivative(t), numeric, 1e-7, "bezier at {t}");
                let numeric = central(&|t| bezier.derivative(t), t);
                assert_close!(bezier.second_derivative(t), numeric, 1e-7, "bezier at {t}");
                let numeric = central(&|t| hermite.eval(t), t);
                assert_close!(hermite.derivative(t), numeric, 1e-7, "hermite at {t}");
                let numeric = central(&|t| hermite.derivative(t), t);
                assert_close!(
                    hermite.second_derivative(t),
                    numeric,
                    1e-7,
                    "hermite at {t}"
                );
            }
        }
    }

    fn power_coefficients_reproduce_eval<const D: usize>() {
        let mut numbers = Numbers(50 + D as u64);
        for _ in 0..50 {
            let bezier = numbers.bezier::<D>();
            let hermite = numbers.hermite::<D>();
            for t in parameters() {
                let power = eval_power(bezier.power_coefficients(), t);
                assert_close!(power, bezier.eval(t), 1e-11, "bezier at {t}");
                let power = eval_power(hermite.power_coefficients(), t);
                assert_close!(power, hermite.eval(t), 1e-11, "hermite at {t}");
            }
            // Both forms of the same cubic have the same coefficients.
            for (a, b) in bezier
                .power_coefficients()
                .into_iter()
                .zip(bezier.to_hermite().power_coefficients())
            {
                assert_close!(a, b, 1e-12, "{bezier:?}");
            }
        }
    }

    fn straight_bezier_stays_on_the_line<const D: usize>() {
        let mut numbers = Numbers(60 + D as u64);
        for _ in 0..20 {
            let start: [f64; D] = numbers.point();
            let end: [f64; D] = numbers.point();
            let along = |s: f64| lerp(start, end, s);
            // Uneven inner points: the curve runs along the line at a varying speed, and as p1
            // lies behind the start it first moves backwards.
            let curve = CubicBezier::new(along(0.0), along(-0.3), along(0.9), along(1.0));
            let speed_profile = CubicBezier::new([0.0], [-0.3], [0.9], [1.0]);
            for t in parameters() {
                let [s] = speed_profile.eval(t);
                assert_close!(curve.eval(t), along(s), 1e-11, "t = {t}");
            }
            // A Hermite segment with both tangents equal to the chord is the straight line at
            // constant speed.
            let chord: [f64; D] = zip(start, end, |a, b| b - a);
            let line = CubicHermite::new(start, chord, end, chord);
            for t in parameters() {
                assert_close!(line.eval(t), along(t), 1e-11, "t = {t}");
                assert_close!(line.derivative(t), chord, 1e-11, "t = {t}");
                assert_close!(line.second_derivative(t), [0.0; D], 1e-11, "t = {t}");
            }
        }
    }

    macro_rules! curve_tests {
        ($($module:ident => $dimension:literal),* $(,)?) => {$(
            mod $module {
                #[test]
                fn de_casteljau_matches_bernstein() {
                    super::de_casteljau_matches_bernstein::<$dimension>();
                }
                #[test]
                fn endpoints_are_exact() {
                    super::endpoints_are_exact::<$dimension>();
                }
                #[test]
                fn split_halves_reproduce_the_curve() {
                    super::split_halves_reproduce_the_curve::<$dimension>();
                }
                #[test]
                fn hermite_bezier_round_trip() {
                    super::hermite_bezier_round_trip::<$dimension>();
                }
                #[test]
                fn derivatives_match_finite_differences() {
                    super::derivatives_match_finite_differences::<$dimension>();
                }
                #[test]
                fn power_coefficients_reproduce_eval() {
                    super::power_coefficients_reproduce_eval::<$dimension>();
                }
                #[test]
                fn straight_bezier_stays_on_the_line() {
                    super::straight_bezier_stays_on_the_line::<$dimension>();
                }
            }
        )*};
    }

    curve_tests!(d1 => 1, d2 => 2, d3 => 3, d4 => 4);

    #[test]
    fn hand_worked_values() {
        // 1D Bezier 0, 1, 2, 3 is the line 3t.
        let line = CubicBezier::new([0.0], [1.0], [2.0], [3.0]);
        assert_eq!(line.eval(0.5), [1.5]);
        assert_eq!(line.derivative(0.25), [3.0]);
        assert_eq!(line.second_derivative(0.25), [0.0]);
        assert_eq!(line.power_coefficients(), [[0.0], [3.0], [0.0], [0.0]]);
        // Bezier (0,0), (0,1), (1,1), (1,0) at t = 1/2 is (1/2, 3/4).
        let arch = CubicBezier::new([0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]);
        assert_eq!(arch.eval(0.5), [0.5, 0.75]);
        // Hermite 0 → 1 with zero tangents is smoothstep.
        let smooth = CubicHermite::new([0.0], [0.0], [1.0], [0.0]);
        assert_eq!(smooth.eval(0.25), [0.15625]);
        assert_eq!(smooth.derivative(0.5), [1.5]);
        assert_eq!(smooth.power_coefficients(), [[0.0], [0.0], [3.0], [-2.0]]);
        assert_eq!(smooth.to_bezier().points(), [[0.0], [0.0], [1.0], [1.0]]);
    }

    #[test]
    fn extrapolates_outside_the_unit_range() {
        let curve = CubicBezier::new([0.0], [0.0], [0.0], [1.0]); // t³
        assert_eq!(curve.eval(2.0), [8.0]);
        assert_eq!(curve.eval(-1.0), [-1.0]);
        let hermite = curve.to_hermite();
        assert_eq!(hermite.eval(2.0), [8.0]);
    }
}
