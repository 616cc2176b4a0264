//! The 2-D Bezier segment: handle correction, the time-to-parameter solve, and the value.

use super::FKey;
use crate::math;

/// How close, in frames, the solved parameter's time is to the frame asked for.
pub const BEZIER_TIME_TOLERANCE: f64 = 1e-12;

/// The segment's four control points `[frame, value]` after Blender's correction: a handle
/// whose time length exceeds the segment's is scaled toward its key (keeping its direction)
/// until it reaches exactly the other key's frame. Each handle is corrected on its own; with both
/// handles at most the segment long, time is non-decreasing along the segment (see
/// [`solve_time`]).
#[must_use]
pub fn corrected_controls(k0: &FKey, k1: &FKey) -> [[f64; 2]; 4] {
    let p0 = [k0.frame, k0.value];
    let p3 = [k1.frame, k1.value];
    let h1 = [p0[0] - k0.right[0], p0[1] - k0.right[1]];
    let h2 = [p3[0] - k1.left[0], p3[1] - k1.left[1]];
    let length = p3[0] - p0[0];
    let fac = |h: [f64; 2]| {
        let reach = math::abs(h[0]);
        if reach > length {
            length / reach
        } else {
            1.0
        }
    };
    let (f1, f2) = (fac(h1), fac(h2));
    [
        p0,
        [p0[0] - f1 * h1[0], p0[1] - f1 * h1[1]],
        [p3[0] - f2 * h2[0], p3[1] - f2 * h2[1]],
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

/// The parameter s in [0, 1] at which the time cubic with control times `x` reaches `t`, to within
/// [`BEZIER_TIME_TOLERANCE`] frames (or to the f64 resolution of s where the cubic is flat).
/// The cubic must be non-decreasing, as it is after correction: with a = x1 − x0 and c = x3 − x2
/// in [0, L], L = x3 − x0, x'(s)/3 = (1−s)²a + 2s(1−s)(L − a − c) + s²c ≥ 0 because
/// a + c − L ≤ ac/L ≤ √(ac). Newton's method kept inside a bisection bracket, so singular
/// points (a handle of zero time length, a vertical tangent where both handles span the whole
/// segment) only slow it down. Times are taken relative to `x0`.
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

/// The frame of corrected control points `p` at parameter `s`.
pub(super) fn time_at(p: [[f64; 2]; 4], s: f64) -> f64 {
    bernstein([p[0][0], p[1][0], p[2][0], p[3][0]], s)
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
    fn correction_scales_only_a_handle_reaching_past_the_other_key() {
        let mut k0 = FKey::new(0.0, 0.0);
        let mut k1 = FKey::new(10.0, 1.0);
        k0.right = [8.0, 4.0]; // within the segment: kept
        k1.left = [-10.0, -3.0]; // reaches 20 back: halved
        let p = corrected_controls(&k0, &k1);
        assert_eq!(p[1], [8.0, 4.0]);
        assert_eq!(p[2], [0.0, -1.0]);
    }
}
