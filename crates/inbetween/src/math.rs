//! Float math in one place, through `std` or `libm`, so the library builds without the standard library.

#[cfg(not(any(feature = "std", feature = "libm")))]
compile_error!("inbetween needs one of the features `std` or `libm` for its float math");

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
