//! Two f64 lanes with packed SSE2 arithmetic on x86-64: each lane rounds exactly as the scalar operation does.
//!
//! The compiler's exact values and the slerp's series evaluate the same formula at many
//! frames; done two frames (or two series) at a time they take one instruction where two scalar
//! ones would, and IEEE 754 rounds each lane of `addpd`, `subpd`, `mulpd` and `divpd` as
//! `addsd`, `subsd`, `mulsd` and `divsd` round a scalar (no fused multiply-add is ever formed:
//! the operations are the intrinsics', not expressions LLVM may contract), so the results are
//! the scalar results bit for bit (`tests::lanes_are_the_scalar_operations_bit_for_bit`).
//! Other targets get the same operations lane by lane.

/// Two f64 lanes, `[lane 0, lane 1]`.
#[derive(Clone, Copy, Debug)]
pub struct Pair(Lanes);

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
type Lanes = core::arch::x86_64::__m128d;
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
type Lanes = [f64; 2];

/// Runs `$body` (SSE2 intrinsics on registers only). SAFETY: the intrinsics' one requirement
/// is that the CPU has SSE2, and this code is built only when the target has it
/// (`cfg(target_feature = "sse2")`, part of the x86-64 baseline); they read and write no
/// memory.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
macro_rules! sse2 {
    ($body:expr) => {{
        #[allow(unsafe_code)]
        // SAFETY: SSE2 is enabled for this build (see the macro's docs); registers only.
        let lanes = unsafe { $body };
        lanes
    }};
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use core::arch::x86_64 as x86;

impl Pair {
    /// `[a, b]`.
    #[inline(always)]
    #[must_use]
    pub fn new(a: f64, b: f64) -> Self {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        return Self(sse2!(x86::_mm_set_pd(b, a)));
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        return Self([a, b]);
    }

    /// `[x, x]`.
    #[inline(always)]
    #[must_use]
    pub fn splat(x: f64) -> Self {
        Self::new(x, x)
    }

    /// The lanes, `[lane 0, lane 1]`.
    #[inline(always)]
    #[must_use]
    pub fn lanes(self) -> [f64; 2] {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        return sse2!([
            x86::_mm_cvtsd_f64(self.0),
            x86::_mm_cvtsd_f64(x86::_mm_unpackhi_pd(self.0, self.0)),
        ]);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        return self.0;
    }
}

/// A lane-wise operation: the intrinsic on SSE2, the scalar operator lane by lane elsewhere.
macro_rules! lane_op {
    ($trait:ident, $method:ident, $intrinsic:ident, $op:tt) => {
        impl core::ops::$trait for Pair {
            type Output = Pair;
            #[inline(always)]
            fn $method(self, other: Pair) -> Pair {
                #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                return Pair(sse2!(x86::$intrinsic(self.0, other.0)));
                #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
                return Pair([self.0[0] $op other.0[0], self.0[1] $op other.0[1]]);
            }
        }
    };
}

lane_op!(Add, add, _mm_add_pd, +);
lane_op!(Sub, sub, _mm_sub_pd, -);
lane_op!(Mul, mul, _mm_mul_pd, *);
lane_op!(Div, div, _mm_div_pd, /);

#[cfg(test)]
mod tests {
    use super::Pair;

    /// Every operation's lanes are the scalar operation's bits: random doubles of every
    /// exponent, signed zeros, infinities, NaN, subnormals, in both lanes.
    #[test]
    fn lanes_are_the_scalar_operations_bit_for_bit() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE / 3.0,
            f64::MAX,
            0.5,
        ];
        let mut value = |k: u64| -> f64 {
            let r = next();
            match k % 3 {
                0 => special[(r % special.len() as u64) as usize],
                1 => f64::from_bits(r),
                _ => (r >> 11) as f64 / (1u64 << 40) as f64 - 4096.0,
            }
        };
        for k in 0..200_000u64 {
            let (a, b, c, d) = (value(k), value(k / 3), value(k / 5), value(k + 1));
            let (x, y) = (Pair::new(a, b), Pair::new(c, d));
            let bits = |p: Pair| p.lanes().map(f64::to_bits);
            let same = |l: f64, r: f64| [l.to_bits(), r.to_bits()];
            assert_eq!(bits(x), same(a, b));
            assert_eq!(bits(Pair::splat(c)), same(c, c));
            assert_eq!(bits(x + y), same(a + c, b + d), "{a} {b} {c} {d}");
            assert_eq!(bits(x - y), same(a - c, b - d), "{a} {b} {c} {d}");
            assert_eq!(bits(x * y), same(a * c, b * d), "{a} {b} {c} {d}");
            assert_eq!(bits(x / y), same(a / c, b / d), "{a} {b} {c} {d}");
        }
    }
}
