//! Exact conversions: power-basis coefficients → forward differences (Stirling numbers), Chebyshev–Lobatto interpolation → power basis; their integer tables are constants.
//!
//! A polynomial `p(v) = Σ_k a_k v^k` in `v = (frame − s) / L` is, in frames `t = frame − s`,
//! `Σ_k b_k t^k` with `b_k = a_k / L^k`. Shifted to the origin `t0`, `c_k = Σ_{i≥k} C(i, k) b_i t0^{i−k}`,
//! and since `t^k = Σ_j S(k, j) t(t−1)…(t−j+1)` with `S` the Stirling numbers of the second kind,
//! `Δ^j p(t0) = Σ_{k≥j} c_k · j! · S(k, j)`. Every weight `j! S(k, j)` is a positive integer, so
//! each difference is a short sum of scaled coefficients — never a difference of sampled values.

// Index loops over small fixed arrays read like the formulas they implement.
#![allow(clippy::needless_range_loop)]

use crate::stream::layout::{MAX_COMPONENTS, MAX_DEGREE, MAX_TERMS};

/// `j! · S(k, j)` = `Δ^j [t^k]` at t = 0, for k, j ≤ 8 (at most 8! = 40 320), built once at
/// compile time.
const STIRLING_WEIGHTS: [[u32; MAX_TERMS]; MAX_TERMS] = stirling_weights();

/// Binomial coefficients `C(i, k)` for i, k ≤ 8, built once at compile time.
const BINOMIAL: [[i32; MAX_TERMS]; MAX_TERMS] = binomial_table();

/// Monomial coefficients of the Chebyshev polynomials `T_0..T_8` (`[k][i]` = coefficient of
/// x^i, at most 2^7 in magnitude), built once at compile time.
const CHEBYSHEV: [[i32; MAX_TERMS]; MAX_TERMS] = chebyshev_monomials();

/// `j! · S(k, j)` from `S(k, j) = j S(k−1, j) + S(k−1, j−1)`, then scaled by j!.
const fn stirling_weights() -> [[u32; MAX_TERMS]; MAX_TERMS] {
    let mut s = [[0u32; MAX_TERMS]; MAX_TERMS];
    s[0][0] = 1;
    let mut k = 1;
    while k < MAX_TERMS {
        let mut j = 1;
        while j <= k {
            s[k][j] = j as u32 * s[k - 1][j] + s[k - 1][j - 1];
            j += 1;
        }
        k += 1;
    }
    let mut factorial = 1u32;
    let mut j = 0;
    while j < MAX_TERMS {
        if j > 0 {
            factorial *= j as u32;
        }
        let mut k = 0;
        while k < MAX_TERMS {
            s[k][j] *= factorial;
            k += 1;
        }
        j += 1;
    }
    s
}

/// Pascal's triangle up to row 8.
const fn binomial_table() -> [[i32; MAX_TERMS]; MAX_TERMS] {
    let mut c = [[0i32; MAX_TERMS]; MAX_TERMS];
    let mut i = 0;
    while i < MAX_TERMS {
        c[i][0] = 1;
        let mut k = 1;
        while k <= i {
            c[i][k] = c[i - 1][k - 1] + if k < i { c[i - 1][k] } else { 0 };
            k += 1;
        }
        i += 1;
    }
    c
}

/// `T_k = 2x T_{k−1} − T_{k−2}` in monomials.
const fn chebyshev_monomials() -> [[i32; MAX_TERMS]; MAX_TERMS] {
    let mut t = [[0i32; MAX_TERMS]; MAX_TERMS];
    t[0][0] = 1;
    t[1][1] = 1;
    let mut k = 2;
    while k < MAX_TERMS {
        let mut i = 0;
        while i < MAX_TERMS {
            let from_x = if i > 0 { 2 * t[k - 1][i - 1] } else { 0 };
            t[k][i] = from_x - t[k - 2][i];
            i += 1;
        }
        k += 1;
    }
    t
}

/// Forward differences (step one frame) at offset `t0` frames of `p(v) = Σ_k a[k] v^k`,
/// `v = t / length`: `out[j] = Δ^j p` for j ≤ a.len() − 1 ≤ 8.
pub fn power_to_differences(a: &[f64], length: f64, t0: f64, out: &mut [f64]) {
    let n = a.len().min(MAX_TERMS);
    let mut b = [0.0; MAX_TERMS];
    let mut scale = 1.0;
    for k in 0..n {
        b[k] = a[k] * scale;
        scale /= length;
    }
    let mut c = [0.0; MAX_TERMS];
    if t0 == 0.0 {
        c = b;
    } else {
        for k in 0..n {
            let mut sum = 0.0;
            for i in (k..n).rev() {
                sum += f64::from(BINOMIAL[i][k]) * b[i] * crate::math::powi(t0, (i - k) as i32);
            }
            c[k] = sum;
        }
    }
    for (j, o) in out.iter_mut().enumerate().take(n) {
        let mut sum = 0.0;
        for k in (j..n).rev() {
            sum += c[k] * f64::from(STIRLING_WEIGHTS[k][j]);
        }
        *o = sum;
    }
}

/// [`power_to_differences`] of every component at once: `a[k][c]` is component `c`'s power
/// coefficient `k` (k < `terms` ≤ 9), the result `[c][j]` its difference `Δ^j` at `t0`. The
/// same operations in the same order per component, so the same bits; the powers of `t0` and
/// of `1 / length` are computed once for all components.
pub(crate) fn power_to_differences_components(
    a: &[[f64; MAX_COMPONENTS]; MAX_TERMS],
    terms: usize,
    length: f64,
    t0: f64,
) -> [[f64; MAX_TERMS]; MAX_COMPONENTS] {
    // Each length its own copy of the loops, unrolled.
    match terms.min(MAX_TERMS) {
        0 => [[0.0; MAX_TERMS]; MAX_COMPONENTS],
        1 => differences_of_terms::<1>(a, length, t0),
        2 => differences_of_terms::<2>(a, length, t0),
        3 => differences_of_terms::<3>(a, length, t0),
        4 => differences_of_terms::<4>(a, length, t0),
        5 => differences_of_terms::<5>(a, length, t0),
        6 => differences_of_terms::<6>(a, length, t0),
        7 => differences_of_terms::<7>(a, length, t0),
        8 => differences_of_terms::<8>(a, length, t0),
        _ => differences_of_terms::<MAX_TERMS>(a, length, t0),
    }
}

/// [`power_to_differences_components`] of `N` coefficients.
fn differences_of_terms<const N: usize>(
    a: &[[f64; MAX_COMPONENTS]; MAX_TERMS],
    length: f64,
    t0: f64,
) -> [[f64; MAX_TERMS]; MAX_COMPONENTS] {
    let n = N;
    let mut b = [[0.0; MAX_COMPONENTS]; MAX_TERMS];
    let mut scale = 1.0;
    for k in 0..n {
        for c in 0..MAX_COMPONENTS {
            b[k][c] = a[k][c] * scale;
        }
        scale /= length;
    }
    let mut shifted = b;
    if t0 != 0.0 {
        for k in 0..n {
            let mut sum = [0.0; MAX_COMPONENTS];
            for i in (k..n).rev() {
                let power = crate::math::powi(t0, (i - k) as i32);
                for c in 0..MAX_COMPONENTS {
                    sum[c] += BINOMIAL_F64[i][k] * b[i][c] * power;
                }
            }
            shifted[k] = sum;
        }
    }
    let mut out = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
    for j in 0..n {
        let mut sum = [0.0; MAX_COMPONENTS];
        for k in (j..n).rev() {
            let weight = f64::from(STIRLING_WEIGHTS[k][j]);
            for c in 0..MAX_COMPONENTS {
                sum[c] += shifted[k][c] * weight;
            }
        }
        for c in 0..MAX_COMPONENTS {
            out[c][j] = sum[c];
        }
    }
    out
}

/// Position of Chebyshev–Lobatto node `j` of `degree` on [0, 1]: `(1 − cos(π j / d)) / 2`,
/// exactly 0 at j = 0 and 1 at j = d (so the span's ends, the keys, are nodes).
#[must_use]
pub fn lobatto_node(j: usize, degree: usize) -> f64 {
    if degree == 0 || j == 0 {
        return 0.0;
    }
    if j >= degree {
        return 1.0;
    }
    let x = crate::math::cos(core::f64::consts::PI * j as f64 / degree as f64);
    (1.0 - x) / 2.0
}

/// The power-basis coefficients in `v ∈ [0, 1]` of the polynomial of `degree` that interpolates
/// `values[j]` at `v = lobatto_node(j, degree)`, j = 0..=degree, through Chebyshev coefficients
/// (`c_k = (2/d) Σ''_j f_j cos(π j k / d)`, the first and last halved).
#[must_use]
pub fn lobatto_interpolant(values: &[f64], degree: usize) -> [f64; MAX_TERMS] {
    let d = degree.min(MAX_DEGREE);
    interpolant_with(values, d, &lobatto_cosines(d))
}

/// `cos(π m / d)` for m = 0..2d (the rest 0): the cosines [`lobatto_interpolant`] weighs the
/// values with (m = (j k) mod 2d: 2d cosines, not (d + 1)²).
fn lobatto_cosines(d: usize) -> [f64; 2 * MAX_DEGREE] {
    let mut cosines = [0.0; 2 * MAX_DEGREE];
    if d > 0 {
        for (m, slot) in cosines.iter_mut().enumerate().take(2 * d) {
            *slot = crate::math::cos(core::f64::consts::PI * m as f64 / d as f64);
        }
    }
    cosines
}

/// The node positions and interpolation cosines of every degree up to [`MAX_DEGREE`], computed
/// once (by [`lobatto_node`] and [`lobatto_interpolant`]'s own expressions, so with the same
/// bits) for a compiler that fits many intervals: a rotation track once spent a sixth of its
/// compile in these cosines.
pub(crate) struct LobattoTable {
    /// `nodes[d][j]` = `lobatto_node(j, d)`.
    nodes: [[f64; MAX_TERMS]; MAX_TERMS],
    /// `cosines[d]` = `lobatto_cosines(d)`.
    cosines: [[f64; 2 * MAX_DEGREE]; MAX_TERMS],
}

impl LobattoTable {
    /// Every node and cosine up to [`MAX_DEGREE`].
    pub(crate) fn new() -> Self {
        let mut table = LobattoTable {
            nodes: [[0.0; MAX_TERMS]; MAX_TERMS],
            cosines: [[0.0; 2 * MAX_DEGREE]; MAX_TERMS],
        };
        for d in 0..MAX_TERMS {
            for j in 0..=d {
                table.nodes[d][j] = lobatto_node(j, d);
            }
            table.cosines[d] = lobatto_cosines(d);
        }
        table
    }

    /// `lobatto_node(j, degree)` for `j ≤ degree ≤ MAX_DEGREE` (computed otherwise).
    pub(crate) fn node(&self, j: usize, degree: usize) -> f64 {
        match self.nodes.get(degree) {
            Some(row) if j <= degree => row[j],
            _ => lobatto_node(j, degree),
        }
    }

    /// `lobatto_interpolant(values, degree)`, the same bits.
    #[cfg(test)]
    pub(crate) fn interpolant(&self, values: &[f64], degree: usize) -> [f64; MAX_TERMS] {
        let d = degree.min(MAX_DEGREE);
        interpolant_with(values, d, &self.cosines[d])
    }

    /// `lobatto_interpolant` of every component at once: `values[j][c]` is component `c` at
    /// node `j` (j ≤ `degree`), `out[k][c]` its power coefficient `k`. The same operations in
    /// the same order per component as [`interpolant_with`], so the same bits; the components
    /// side by side (one loop over four lanes instead of four calls) and the integer tables
    /// read as floats.
    pub(crate) fn interpolant_components(
        &self,
        values: &[[f64; MAX_COMPONENTS]; MAX_TERMS],
        degree: usize,
    ) -> [[f64; MAX_COMPONENTS]; MAX_TERMS] {
        // Each degree its own copy of the loops, unrolled.
        match degree.min(MAX_DEGREE) {
            1 => self.interpolant_of_degree::<1>(values),
            2 => self.interpolant_of_degree::<2>(values),
            3 => self.interpolant_of_degree::<3>(values),
            4 => self.interpolant_of_degree::<4>(values),
            5 => self.interpolant_of_degree::<5>(values),
            6 => self.interpolant_of_degree::<6>(values),
            7 => self.interpolant_of_degree::<7>(values),
            8 => self.interpolant_of_degree::<8>(values),
            _ => {
                let mut out = [[0.0; MAX_COMPONENTS]; MAX_TERMS];
                out[0] = values[0];
                out
            }
        }
    }

    /// [`LobattoTable::interpolant_components`] at degree `D` (1..=8).
    fn interpolant_of_degree<const D: usize>(
        &self,
        values: &[[f64; MAX_COMPONENTS]; MAX_TERMS],
    ) -> [[f64; MAX_COMPONENTS]; MAX_TERMS] {
        let d = D;
        let mut out = [[0.0; MAX_COMPONENTS]; MAX_TERMS];
        let cosines = &self.cosines[d];
        let mut cheb = [[0.0; MAX_COMPONENTS]; MAX_TERMS];
        for k in 0..d + 1 {
            let mut sum = [0.0; MAX_COMPONENTS];
            let mut m = 0;
            for j in 0..d + 1 {
                let weight = if j == 0 || j == d { 0.5 } else { 1.0 };
                for c in 0..MAX_COMPONENTS {
                    sum[c] += weight * values[j][c] * cosines[m];
                }
                m += k;
                if m >= 2 * d {
                    m -= 2 * d;
                }
            }
            for c in 0..MAX_COMPONENTS {
                cheb[k][c] = sum[c] * 2.0 / d as f64;
                if k == 0 || k == d {
                    cheb[k][c] /= 2.0;
                }
            }
        }
        let mut in_x = [[0.0; MAX_COMPONENTS]; MAX_TERMS];
        for k in 0..d + 1 {
            for i in 0..k + 1 {
                for c in 0..MAX_COMPONENTS {
                    in_x[i][c] += cheb[k][c] * CHEBYSHEV_F64[k][i];
                }
            }
        }
        for i in 0..d + 1 {
            let mut factor = 1.0;
            for l in 0..i + 1 {
                for c in 0..MAX_COMPONENTS {
                    out[l][c] += in_x[i][c] * BINOMIAL_F64[i][l] * factor;
                }
                factor *= -2.0;
            }
        }
        out
    }
}

/// [`CHEBYSHEV`] as floats (every entry exact).
const CHEBYSHEV_F64: [[f64; MAX_TERMS]; MAX_TERMS] = floats(CHEBYSHEV);

/// [`BINOMIAL`] as floats (every entry exact).
const BINOMIAL_F64: [[f64; MAX_TERMS]; MAX_TERMS] = floats(BINOMIAL);

/// A table of small integers as floats.
const fn floats(table: [[i32; MAX_TERMS]; MAX_TERMS]) -> [[f64; MAX_TERMS]; MAX_TERMS] {
    let mut out = [[0.0; MAX_TERMS]; MAX_TERMS];
    let mut i = 0;
    while i < MAX_TERMS {
        let mut k = 0;
        while k < MAX_TERMS {
            out[i][k] = table[i][k] as f64;
            k += 1;
        }
        i += 1;
    }
    out
}

/// [`lobatto_interpolant`] of degree `d ≤ MAX_DEGREE` with its cosines given.
fn interpolant_with(values: &[f64], d: usize, cosines: &[f64; 2 * MAX_DEGREE]) -> [f64; MAX_TERMS] {
    let mut out = [0.0; MAX_TERMS];
    if d == 0 {
        out[0] = values.first().copied().unwrap_or(0.0);
        return out;
    }
    // Node j at x_j = cos(π j / d) ∈ [−1, 1] corresponds to v = (1 − x_j)/2 — i.e. x = 1 − 2v.
    let mut cheb = [0.0; MAX_TERMS];
    for (k, ck) in cheb.iter_mut().enumerate().take(d + 1) {
        let mut sum = 0.0;
        // m = (j k) mod 2d, stepped by k (< 2d) without a division.
        let mut m = 0;
        for j in 0..=d {
            let weight = if j == 0 || j == d { 0.5 } else { 1.0 };
            sum += weight * values.get(j).copied().unwrap_or(0.0) * cosines[m];
            m += k;
            if m >= 2 * d {
                m -= 2 * d;
            }
        }
        *ck = sum * 2.0 / d as f64;
        if k == 0 || k == d {
            *ck /= 2.0;
        }
    }
    let mut in_x = [0.0; MAX_TERMS];
    for k in 0..=d {
        for i in 0..=k {
            in_x[i] += cheb[k] * f64::from(CHEBYSHEV[k][i]);
        }
    }
    // Substitute x = 1 − 2v: x^i = Σ_l C(i, l) (−2v)^l.
    for i in 0..=d {
        let mut factor = 1.0;
        for l in 0..=i {
            out[l] += in_x[i] * f64::from(BINOMIAL[i][l]) * factor;
            factor *= -2.0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_of_a_cubic_match_closed_form() {
        // p(t) = t^3 over length 1: Δp(0) = 1, Δ²p(0) = 6, Δ³p(0) = 6.
        let mut out = [0.0; 4];
        power_to_differences(&[0.0, 0.0, 0.0, 1.0], 1.0, 0.0, &mut out);
        assert_eq!(out, [0.0, 1.0, 6.0, 6.0]);
        // Shifted to t0 = 2: p(2) = 8, Δp(2) = 27 − 8 = 19, Δ² = 64 − 54 + 8 = 18, Δ³ = 6.
        power_to_differences(&[0.0, 0.0, 0.0, 1.0], 1.0, 2.0, &mut out);
        assert_eq!(out, [8.0, 19.0, 18.0, 6.0]);
    }

    /// The table's nodes and interpolants are those of `lobatto_node` and
    /// `lobatto_interpolant`, bit for bit, at every degree.
    #[test]
    fn lobatto_table_gives_the_same_bits() {
        let table = LobattoTable::new();
        let values = [0.3, -1.7, 2.5e-3, 9.0, -0.0, 4.4, 1e9, -3.0, 0.125];
        for d in 0..=MAX_DEGREE {
            for j in 0..=d {
                assert_eq!(table.node(j, d).to_bits(), lobatto_node(j, d).to_bits());
            }
            let bits = |p: [f64; MAX_TERMS]| p.map(f64::to_bits);
            assert_eq!(
                bits(table.interpolant(&values[..=d], d)),
                bits(lobatto_interpolant(&values[..=d], d))
            );
        }
    }

    /// All components at once give each component's `power_to_differences`, bit for bit, at
    /// every length of coefficients, with and without a shift.
    /// Four components' numbers for the all-at-once tests: mixed signs, zeros, tiny and huge.
    const TEST_LANES: [[f64; MAX_TERMS]; MAX_COMPONENTS] = [
        [0.3, -1.7, 2.5e-3, 9.0, -0.0, 4.4, 1e9, -3.0, 0.125],
        [1e-300, 7.0, -7.0, 0.1, 0.2, 0.3, -1e12, 5.5, 0.0],
        [-0.9, 0.8, -0.7, 0.6, -0.5, 0.4, -0.3, 0.2, -0.1],
        [
            0.0,
            -0.0,
            1.0 / 3.0,
            2.0 / 3.0,
            1.0,
            1e-17,
            -1e-17,
            3e5,
            1.0,
        ],
    ];

    #[test]
    fn differences_of_all_components_are_each_ones_bit_for_bit() {
        let lanes = TEST_LANES;
        let mut a = [[0.0; MAX_COMPONENTS]; MAX_TERMS];
        for k in 0..MAX_TERMS {
            for c in 0..MAX_COMPONENTS {
                a[k][c] = lanes[c][k];
            }
        }
        for terms in 1..=MAX_TERMS {
            for (length, t0) in [
                (1.0, 0.0),
                (37.0, 0.0),
                (12.5, 0.5),
                (0.3, 0.7),
                (64.0, 3.0),
            ] {
                let all = power_to_differences_components(&a, terms, length, t0);
                for c in 0..MAX_COMPONENTS {
                    let mut one = [0.0; MAX_TERMS];
                    power_to_differences(&lanes[c][..terms], length, t0, &mut one[..terms]);
                    for j in 0..terms {
                        assert_eq!(all[c][j].to_bits(), one[j].to_bits(), "{terms} {c} {j}");
                    }
                }
            }
        }
    }

    /// All components at once give each component's `lobatto_interpolant`, bit for bit, at
    /// every degree (values of mixed sign and magnitude, a zero of each sign).
    #[test]
    fn interpolant_of_all_components_is_each_ones_bit_for_bit() {
        let table = LobattoTable::new();
        let lanes = TEST_LANES;
        for d in 0..=MAX_DEGREE {
            let mut values = [[0.0; MAX_COMPONENTS]; MAX_TERMS];
            for j in 0..=d {
                for c in 0..MAX_COMPONENTS {
                    values[j][c] = lanes[c][j];
                }
            }
            let all = table.interpolant_components(&values, d);
            for c in 0..MAX_COMPONENTS {
                let one = lobatto_interpolant(&lanes[c][..=d], d);
                for k in 0..MAX_TERMS {
                    assert_eq!(all[k][c].to_bits(), one[k].to_bits(), "d {d} c {c} k {k}");
                }
            }
        }
    }

    #[test]
    fn lobatto_interpolant_reproduces_polynomials() {
        // v^3 − v at degree 4 is reproduced exactly.
        let d = 4;
        let values: [f64; 5] = core::array::from_fn(|j| {
            let v = lobatto_node(j, d);
            v * v * v - v
        });
        let a = lobatto_interpolant(&values, d);
        let expected = [0.0, -1.0, 0.0, 1.0, 0.0];
        for (x, e) in a.iter().zip(expected) {
            assert!((x - e).abs() < 1e-13, "{a:?}");
        }
    }

    /// The constant tables against closed forms: `j! S(k, j) = Σ_i (−1)^(j−i) C(j, i) i^k`
    /// (inclusion–exclusion), `C(i, k) = i! / (k! (i − k)!)`, and `T_k(cos θ) = cos(kθ)`.
    #[test]
    fn constant_tables_match_closed_forms() {
        let factorial = |n: usize| (1..=n as u64).product::<u64>();
        for k in 0..MAX_TERMS {
            for j in 0..MAX_TERMS {
                let choose = |n: usize, r: usize| factorial(n) / (factorial(r) * factorial(n - r));
                let mut surjections = 0i64;
                for i in 0..=j {
                    let term = (choose(j, i) * (i as u64).pow(k as u32)) as i64;
                    surjections += if (j - i) % 2 == 0 { term } else { -term };
                }
                assert_eq!(
                    i64::from(STIRLING_WEIGHTS[k][j]),
                    surjections,
                    "k {k} j {j}"
                );
                if j <= k {
                    assert_eq!(
                        i64::from(BINOMIAL[k][j]),
                        choose(k, j) as i64,
                        "C({k}, {j})"
                    );
                }
            }
        }
        for k in 0..MAX_TERMS {
            for theta in [0.1, 0.7, 1.3, 2.9] {
                let x: f64 = f64::cos(theta);
                let t: f64 = (0..MAX_TERMS)
                    .map(|i| f64::from(CHEBYSHEV[k][i]) * x.powi(i as i32))
                    .sum();
                assert!((t - f64::cos(k as f64 * theta)).abs() < 1e-12, "T_{k}({x})");
            }
        }
    }
}
