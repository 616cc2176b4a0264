//! The 2-D Bezier segment: handle correction, the time-to-parameter solve, and the value.

use super::FKey;
use crate::math;

/// How close, in frames, the solved parameter's time is to the frame asked for.
pub const BEZIER_TIME_TOLERANCE: f64 = 1e-12;

/// The segment's four control points `[frame, value]` after Blender's correction: when the
/// handles' time lengths add up to more than the segment, both are scaled by the same factor
/// (keeping their directions) so that they add up to exactly the segment.
#[must_use]
pub fn corrected_controls(k0: &FKey, k1: &FKey) -> [[f64; 2]; 4] {
    let p0 = [k0.frame, k0.value];
    let p3 = [k1.frame, k1.value];
    let h1 = [p0[0] - k0.right[0], p0[1] - k0.right[1]];
    let h2 = [p3[0] - k1.left[0], p3[1] - k1.left[1]];
    let length = p3[0] - p0[0];
    let reach = math::abs(h1[0]) + math::abs(h2[0]);
    let fac = if reach > length && reach > 0.0 {
        length / reach
    } else {
        1.0
    };
    [
        p0,
        [p0[0] - fac * h1[0], p0[1] - fac * h1[1]],
        [p3[0] - fac * h2[0], p3[1] - fac * h2[1]],
        p3,
    ]
}

/// The cubic Bernstein form with control values `c` at parameter `s`.
fn bernstein(c: [f64; 4], s: f64) -> f64 {
    let r = 1.0 - s;
    r * r * r * c[0] + 3.0 * r * r * s * c[1] + 3.0 * r * s * s * c[2] + s * s * s * c[3]
}

/// Its derivative d/ds.
fn bernstein_derivative(c: [f64; 4], s: f64) -> f64 {
    let r = 1.0 - s;
    3.0 * (r * r * (c[1] - c[0]) + 2.0 * r * s * (c[2] - c[1]) + s * s * (c[3] - c[2]))
}

/// The parameter s in [0, 1] at which the time cubic with control times `x` (non-decreasing:
/// x0 ≤ x1, x2 ≤ x3 and x1 ≤ x2, as after correction) reaches `t`, to within
/// [`BEZIER_TIME_TOLERANCE`] frames (or to the f64 resolution of s where the cubic is flat).
/// Newton's method kept inside a bisection bracket, so singular points (a handle of zero time
/// length, a vertical tangent) only slow it down. Times are taken relative to `x0`.
#[must_use]
pub fn solve_time(x: [f64; 4], t: f64) -> f64 {
    let c = [0.0, x[1] - x[0], x[2] - x[0], x[3] - x[0]];
    let target = t - x[0];
    if target <= 0.0 {
        return 0.0;
    }
    if target >= c[3] {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    let mut s = if c[3] > 0.0 { target / c[3] } else { 0.5 };
    for _ in 0..200 {
        let err = bernstein(c, s) - target;
        if math::abs(err) <= BEZIER_TIME_TOLERANCE {
            return s;
        }
        if err < 0.0 {
            lo = s;
        } else {
            hi = s;
        }
        if hi - lo <= f64::EPSILON * 0.5 {
            return s;
        }
        let d = bernstein_derivative(c, s);
        let newton = s - err / d;
        s = if d > 0.0 && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
    }
    s
}

/// The Bezier segment from `k0` to `k1` at `frame` (in `[k0.frame, k1.frame]`).
pub(super) fn eval(k0: &FKey, k1: &FKey, frame: f64) -> f64 {
    let p = corrected_controls(k0, k1);
    let s = solve_time([p[0][0], p[1][0], p[2][0], p[3][0]], frame);
    bernstein([p[0][1], p[1][1], p[2][1], p[3][1]], s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_time_inverts_the_time_cubic_to_1e_12() {
        let x = [2.0, 2.0, 9.5, 12.0];
        for i in 0..=100 {
            let t = 2.0 + 10.0 * f64::from(i) / 100.0;
            let s = solve_time(x, t);
            let back = bernstein([0.0, 0.0, 7.5, 10.0], s) + 2.0;
            assert!((back - t).abs() <= 1e-12, "t {t}: {back}");
        }
    }

    #[test]
    fn thirds_handles_give_s_equal_to_normalized_time() {
        // x handles at thirds make x(s) linear: s = (t − x0)/len.
        let x = [0.0, 1.0, 2.0, 3.0];
        assert!((solve_time(x, 1.2) - 0.4).abs() < 1e-14);
    }

    #[test]
    fn correction_scales_both_handles_by_the_same_factor() {
        let mut k0 = FKey::new(0.0, 0.0);
        let mut k1 = FKey::new(10.0, 1.0);
        k0.right = [8.0, 4.0]; // reaches 8
        k1.left = [2.0, -1.0]; // reaches 8: factor 10/16
        let p = corrected_controls(&k0, &k1);
        assert_eq!(p[1], [5.0, 2.5]);
        assert_eq!(p[2], [5.0, -0.25]);
    }
}
