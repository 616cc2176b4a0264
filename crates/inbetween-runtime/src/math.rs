//! Float math in one place, through `std` or `libm`, so the library builds without the standard library.

#[cfg(not(any(feature = "std", feature = "libm")))]
compile_error!("inbetween needs one of the features `std` or `libm` for its float math");

pub use crate::pair::Pair;

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident => $std:ident, $libm:ident;)*) => {$(
        $(#[$doc])*
        #[inline]
        #[must_use]
        pub fn $name(x: f64) -> f64 {
            #[cfg(feature = "std")]
            { x.$std() }
            #[cfg(not(feature = "std"))]
            { libm::$libm(x) }
        }
    )*};
}

unary! {
    /// Sine of `x` radians.
    sin => sin, sin;
    /// Cosine of `x` radians.
    cos => cos, cos;
    /// Tangent of `x` radians.
    tan => tan, tan;
    /// Arcsine in radians, NaN outside [-1, 1].
    asin => asin, asin;
    /// Arccosine in radians, NaN outside [-1, 1].
    acos => acos, acos;
    /// Arctangent in radians.
    atan => atan, atan;
    /// Square root, NaN for negative `x`.
    sqrt => sqrt, sqrt;
    /// e raised to `x`.
    exp => exp, exp;
    /// Natural logarithm.
    ln => ln, log;
    /// Largest integer not above `x`.
    floor => floor, floor;
    /// Smallest integer not below `x`.
    ceil => ceil, ceil;
    /// Absolute value.
    abs => abs, fabs;
    /// Nearest integer, halves away from zero.
    round => round, round;
}

/// Four-quadrant arctangent of `y / x` in radians.
#[inline]
#[must_use]
pub fn atan2(y: f64, x: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        y.atan2(x)
    }
    #[cfg(not(feature = "std"))]
    {
        libm::atan2(y, x)
    }
}

/// Square root of an f32, correctly rounded (IEEE 754) with `std` and with `libm`: the same
/// bits either way.
#[inline]
#[must_use]
pub fn sqrt_f32(x: f32) -> f32 {
    #[cfg(feature = "std")]
    {
        x.sqrt()
    }
    #[cfg(not(feature = "std"))]
    {
        libm::sqrtf(x)
    }
}

/// A quaternion `[x, y, z, w]` divided by its norm, as the player plays a track with the
/// normalize flag: `r = sqrt((x² + y²) + (z² + w²))` (a correctly rounded square root, so `std`
/// and `libm` give the same bits), `i = 1 / r`, then each component `· i`. A norm that is 0 or
/// not finite leaves the value as it is (a validated compile never plays one). The batch
/// player's f32 lanes do the same operations in f32.
#[inline]
#[must_use]
pub fn normalize4(q: [f64; 4]) -> [f64; 4] {
    let r = sqrt((q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]));
    if r > 0.0 && r.is_finite() {
        let inverse = 1.0 / r;
        q.map(|x| x * inverse)
    } else {
        q
    }
}

/// `x` raised to the real power `y`.
#[inline]
#[must_use]
pub fn powf(x: f64, y: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x.powf(y)
    }
    #[cfg(not(feature = "std"))]
    {
        libm::pow(x, y)
    }
}

/// 2 raised to `x`.
#[inline]
#[must_use]
pub fn exp2(x: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x.exp2()
    }
    #[cfg(not(feature = "std"))]
    {
        libm::exp2(x)
    }
}

/// The IEEE remainder `x − m·trunc(x / m)` (C's `fmod`), which is exact: the result is always
/// an f64 with the sign of `x` and magnitude below |m|.
#[inline]
#[must_use]
pub fn fmod(x: f64, m: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x % m
    }
    #[cfg(not(feature = "std"))]
    {
        libm::fmod(x, m)
    }
}

/// `x` raised to the integer power `n` by repeated multiplication.
#[inline]
#[must_use]
pub fn powi(x: f64, n: i32) -> f64 {
    let mut result = 1.0;
    let mut base = if n < 0 { 1.0 / x } else { x };
    let mut e = n.unsigned_abs();
    while e > 0 {
        if e & 1 == 1 {
            result *= base;
        }
        base *= base;
        e >>= 1;
    }
    result
}

/// Floored modulo: `x - m * floor(x / m)`, in [0, m) for m > 0.
///
/// Rounds `x / m` and the product, so it is off by up to m · 2^-53 · |x / m| — whole folds at
/// far frames. Wraps use [`wrap_remainder`], which is exact.
#[inline]
#[must_use]
pub fn floor_mod(x: f64, m: f64) -> f64 {
    let r = x - m * floor(x / m);
    if r >= m || r < 0.0 {
        0.0
    } else {
        r
    }
}

/// `a + b` as the rounded sum and its exact rounding error (Knuth's TwoSum): `s + e = a + b`
/// exactly for finite `a`, `b` whose sum does not overflow.
#[inline]
#[must_use]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// The floored remainder of the real number `frame − first` by `m` (finite, > 0, at most
/// `f64::MAX / 2`), for the wraps: `r = (frame − first) − m·⌊(frame − first)/m⌋`, computed
/// exactly and then rounded once to the nearest f64, in `[0, m]` (`m` only when the exact
/// remainder lies within half an ulp below m).
///
/// Exact because the IEEE remainder [`fmod`] of two doubles is itself a double: `fmod(frame, m)`
/// and `fmod(first, m)` are exact, their difference is held exactly as a two-term sum, and at most two
/// additions of ±m bring it into `[0, m)` (`frame − first` itself is never formed, so it
/// neither rounds nor overflows). Also returns the fold count ⌊(frame − first)/m⌋, exact, when
/// both `frame / m` and `first / m` are below [`EXACT_FOLDS`] in magnitude, and NaN otherwise
/// (adjacent folds may then not be told apart). Non-finite input gives `(0, NaN)`.
#[must_use]
pub fn wrap_remainder(frame: f64, first: f64, m: f64) -> (f64, f64) {
    if !(frame.is_finite() && first.is_finite() && m.is_finite() && m > 0.0) {
        return (0.0, f64::NAN);
    }
    let a = fmod(frame, m);
    let b = fmod(first, m);
    // a − b = h + l exactly, |a − b| < 2m.
    let (mut h, mut l) = two_sum(a, -b);
    let mut carry = 0.0;
    // Twice at most: a and b may have opposite signs.
    for _ in 0..2 {
        let below = h < 0.0 || (h == 0.0 && l < 0.0);
        let above = h > m || (h == m && l >= 0.0);
        if !(below || above) {
            break;
        }
        let step = if below { m } else { -m };
        let (h2, l2) = two_sum(h, step);
        let (h3, l3) = two_sum(h2, l + l2);
        h = h3;
        l = l3;
        carry -= step / m;
    }
    let r = (h + l).clamp(0.0, m);
    // Whole folds: those of frame and first taken separately, plus the carry.
    let folds = trunc_div(frame, a, m) - trunc_div(first, b, m) + carry;
    (r, folds)
}

/// The largest |x / m| whose fold count [`wrap_remainder`] computes exactly: 2^50. The
/// numerator x − (x % m) is exact as a two-term sum, so the rounded quotient is within
/// 2^-52 · |x / m| < ¼ of the whole number it stands for.
pub const EXACT_FOLDS: f64 = 1_125_899_906_842_624.0;

/// (x − rem) / m towards zero, with `rem = fmod(x, m)`: a whole number, exact below [`EXACT_FOLDS`],
/// NaN beyond.
fn trunc_div(x: f64, rem: f64, m: f64) -> f64 {
    let (h, l) = two_sum(x, -rem);
    let q = round(h / m + l / m);
    if abs(q) < EXACT_FOLDS {
        q
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_remainder_is_the_exact_floored_remainder_and_fold_count() {
        // −0.75 − 0.75 = −1.5 = −2·1 + 0.5: the remainders −0.75 and 0.75 need two corrections.
        assert_eq!(wrap_remainder(-0.75, 0.75, 1.0), (0.5, -2.0));
        // 7 − 2 = 5 = 1·3 + 2.
        assert_eq!(wrap_remainder(7.0, 2.0, 3.0), (2.0, 1.0));
        // A whole number of periods gives 0, not m.
        assert_eq!(wrap_remainder(-6.0, 0.0, 3.0), (0.0, -2.0));
        // −10^15 by 2.4 (= 2 · fl(1.2)), as Python's Fraction(−10**15) % Fraction(2.4) gives it.
        let (r, folds) = wrap_remainder(-1e15, 0.0, 2.4);
        assert_eq!(r, 0.762_992_565_845_828_1);
        assert_eq!(folds, -416_666_666_666_667.0);
        // Beyond 2^50 folds the count is not exact and says so.
        assert!(wrap_remainder(1e300, 0.0, 1e-10).1.is_nan());
        let (r, folds) = wrap_remainder(f64::NAN, 0.0, 1.0);
        assert!(r == 0.0 && folds.is_nan());
    }
}
