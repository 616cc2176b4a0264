//! Exact conversions: power-basis coefficients → forward differences (Stirling numbers), Chebyshev–Lobatto interpolation → power basis.
//!
//! A polynomial `p(v) = Σ_k a_k v^k` in `v = (frame − s) / L` is, in frames `t = frame − s`,
//! `Σ_k b_k t^k` with `b_k = a_k / L^k`. Shifted to the origin `t0`, `c_k = Σ_{i≥k} C(i, k) b_i t0^{i−k}`,
//! and since `t^k = Σ_j S(k, j) t(t−1)…(t−j+1)` with `S` the Stirling numbers of the second kind,
//! `Δ^j p(t0) = Σ_{k≥j} c_k · j! · S(k, j)`. Every weight `j! S(k, j)` is a positive integer, so
//! each difference is a short sum of scaled coefficients — never a difference of sampled values.

// Index loops over small fixed arrays read like the formulas they implement.
#![allow(clippy::needless_range_loop)]

use crate::stream::layout::{MAX_DEGREE, MAX_TERMS};

/// `j! · S(k, j)` = `Δ^j [t^k]` at t = 0, for k, j ≤ 8.
fn stirling_weights() -> [[f64; MAX_TERMS]; MAX_TERMS] {
    let mut s = [[0.0; MAX_TERMS]; MAX_TERMS];
    s[0][0] = 1.0;
    for k in 1..MAX_TERMS {
        for j in 1..=k {
            s[k][j] = j as f64 * s[k - 1][j] + s[k - 1][j - 1];
        }
    }
    let mut factorial = 1.0;
    for j in 0..MAX_TERMS {
        if j > 0 {
            factorial *= j as f64;
        }
        for row in s.iter_mut() {
            row[j] *= factorial;
        }
    }
    s
}

/// Binomial coefficients `C(i, k)` for i, k ≤ 8.
fn binomial_table() -> [[f64; MAX_TERMS]; MAX_TERMS] {
    let mut c = [[0.0; MAX_TERMS]; MAX_TERMS];
    for i in 0..MAX_TERMS {
        c[i][0] = 1.0;
        for k in 1..=i {
            c[i][k] = c[i - 1][k - 1] + if k < i { c[i - 1][k] } else { 0.0 };
        }
    }
    c
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
    let binomial = binomial_table();
    let mut c = [0.0; MAX_TERMS];
    if t0 == 0.0 {
        c = b;
    } else {
        for k in 0..n {
            let mut sum = 0.0;
            for i in (k..n).rev() {
                sum += binomial[i][k] * b[i] * crate::math::powi(t0, (i - k) as i32);
            }
            c[k] = sum;
        }
    }
    let weights = stirling_weights();
    for (j, o) in out.iter_mut().enumerate().take(n) {
        let mut sum = 0.0;
        for k in (j..n).rev() {
            sum += c[k] * weights[k][j];
        }
        *o = sum;
    }
}

/// Monomial coefficients of the Chebyshev polynomials `T_0..T_8` (`t[k][i]` = coefficient of x^i).
fn chebyshev_monomials() -> [[f64; MAX_TERMS]; MAX_TERMS] {
    let mut t = [[0.0; MAX_TERMS]; MAX_TERMS];
    t[0][0] = 1.0;
    t[1][1] = 1.0;
    for k in 2..MAX_TERMS {
        for i in 0..MAX_TERMS {
            let from_x = if i > 0 { 2.0 * t[k - 1][i - 1] } else { 0.0 };
            t[k][i] = from_x - t[k - 2][i];
        }
    }
    t
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
    let mut out = [0.0; MAX_TERMS];
    if d == 0 {
        out[0] = values.first().copied().unwrap_or(0.0);
        return out;
    }
    // Node j at x_j = cos(π j / d) ∈ [−1, 1] corresponds to v = (1 − x_j)/2 — i.e. x = 1 − 2v.
    let mut cheb = [0.0; MAX_TERMS];
    for (k, ck) in cheb.iter_mut().enumerate().take(d + 1) {
        let mut sum = 0.0;
        for j in 0..=d {
            let weight = if j == 0 || j == d { 0.5 } else { 1.0 };
            let angle = core::f64::consts::PI * ((j * k) % (2 * d)) as f64 / d as f64;
            sum += weight * values.get(j).copied().unwrap_or(0.0) * crate::math::cos(angle);
        }
        *ck = sum * 2.0 / d as f64;
        if k == 0 || k == d {
            *ck /= 2.0;
        }
    }
    let t = chebyshev_monomials();
    let mut in_x = [0.0; MAX_TERMS];
    for k in 0..=d {
        for i in 0..=k {
            in_x[i] += cheb[k] * t[k][i];
        }
    }
    // Substitute x = 1 − 2v: x^i = Σ_l C(i, l) (−2v)^l.
    let binomial = binomial_table();
    for i in 0..=d {
        let mut factor = 1.0;
        for l in 0..=i {
            out[l] += in_x[i] * binomial[i][l] * factor;
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
}
