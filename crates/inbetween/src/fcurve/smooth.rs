//! Blender's "continuous acceleration" auto smoothing: runs of free auto handles solved together so the curve's second derivative is continuous at every key.
//!
//! Blender 3.4 (`BKE_nurb_handle_smooth_fcurve`) first places every auto handle a third of the
//! key spacing away in time, then, for every run of keys whose two handles are both auto and not
//! locked (flattened at an extreme by auto-clamping, or at a held end), solves for the handles'
//! value offsets `h_i` (the right handle's, the left one being `−h_i / l_i`) the tridiagonal
//! system of second-derivative continuity, with `l_i = dx_{i+1} / dx_i`:
//!
//! `l_i² h_{i−1} + 2 (l_i + 1) h_i + h_{i+1} / l_{i+1} = dy_i l_i² + dy_{i+1}`
//!
//! bounded by the auto-clamped limits (locking an overshooting unknown at its limit and solving
//! again, releasing it at most twice when it pulls back inside). A run ends at a key with a
//! non-auto or locked handle: that key's handle is a boundary condition (its value offset, its
//! time length correcting the equation) unless it is a vector handle or a free end of the curve,
//! where the acceleration is zero. Cyclic curves (repeat cycles forever, both ends free auto)
//! join across the cycle. Everything here is f64; Blender solves in float32 (its Thomas
//! algorithm accumulates in double).

use alloc::vec;
use alloc::vec::Vec;

use super::{FKey, HandleType};

/// Which keys Blender treats as "locked" auto keys, and whether the curve is cyclic.
pub(super) struct Smoothing<'a> {
    /// `locked[i]`: key i's auto handles were flattened (not solved).
    pub locked: &'a [bool],
    /// The curve repeats forever with both end keys auto.
    pub cyclic: bool,
}

fn both_auto(key: &FKey) -> bool {
    key.left_type.is_auto() && key.right_type.is_auto()
}

/// Smooths every run of free auto keys (Blender's `BKE_nurb_handle_smooth_fcurve`).
pub(super) fn smooth(keys: &mut [FKey], s: &Smoothing<'_>) {
    let total = keys.len();
    if total < 2 {
        return;
    }
    let free = |keys: &[FKey], i: usize| both_auto(&keys[i]) && !s.locked[i];
    let cyclic = s.cyclic && free(keys, 0) && free(keys, total - 1);
    let mut base = 0;
    if cyclic {
        base = (1..total - 1).find(|&i| !free(keys, i)).unwrap_or(0);
        if base == 0 {
            smooth_run(keys, s.locked, (0, total), cyclic);
            return;
        }
    }
    let (mut start, mut count) = (base, 1);
    let mut j = start + 1;
    for _ in 1..total {
        if j == total - 1 && cyclic {
            j = 0;
        }
        if free(keys, j) {
            count += 1;
        } else {
            smooth_run(keys, s.locked, (start, count + 1), cyclic);
            start = j;
            count = 1;
        }
        j += 1;
    }
    if count > 1 {
        smooth_run(keys, s.locked, (start, count), cyclic);
    }
}

/// The tridiagonal system of one run, its unknowns' limits and the boundary corrections.
struct System {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    d: Vec<f64>,
    hmin: Vec<f64>,
    hmax: Vec<f64>,
    /// Frame spacing before each position (NaN at 0 unless the run is a whole cycle).
    dx: Vec<f64>,
}

/// Positions of a run: position `i` is key `left_key(i)` (whose left handle it sets) and
/// `right_key(i)` (whose right handle it sets): the same key, except that on a cyclic curve the
/// last key and the first are one position.
struct Run {
    start: usize,
    total: usize,
    cyclic: bool,
}

impl Run {
    fn left_key(&self, i: usize) -> usize {
        let p = self.start + i;
        if self.cyclic && p > self.total - 1 {
            p - (self.total - 1)
        } else {
            p
        }
    }
    fn right_key(&self, i: usize) -> usize {
        let k = self.left_key(i);
        if self.cyclic && k == self.total - 1 {
            0
        } else {
            k
        }
    }
}

/// Whether a run's end handle is solved (zero acceleration) rather than kept.
fn solves_end(side: HandleType, curve_end: bool, locked: bool) -> bool {
    side == HandleType::Vector || (curve_end && side.is_auto() && !locked)
}

/// Blender's `bezier_handle_calc_smooth_fcurve` on the run of `count` positions from key `start`.
fn smooth_run(keys: &mut [FKey], locked: &[bool], (start, count): (usize, usize), cyclic: bool) {
    let total = keys.len();
    if count < 2 {
        return;
    }
    let run = Run {
        start,
        total,
        cyclic,
    };
    let full = start == 0 && count == total && cyclic;
    let (first, last) = (run.right_key(0), run.left_key(count - 1));
    let mut solve = [
        solves_end(keys[first].right_type, start == 0, locked[first]),
        solves_end(keys[last].left_type, start + count == total, locked[last]),
    ];
    if count == 2 && !full && solve[0] == solve[1] {
        return;
    }
    let (dy, l, mut sys) = spacing_and_limits(keys, &run, count, full);
    let mut adjust = [0.0; 2];
    let unknowns = if full {
        solve = [true, true];
        let n = count - 1;
        sys.hmin[0] = sys.hmin[0].max(sys.hmin[n]);
        sys.hmax[0] = sys.hmax[0].min(sys.hmax[n]);
        continuity(&mut sys, &dy, &l, 0);
        n
    } else {
        adjust = boundaries(keys, (first, last), solve, (&dy, &l), &mut sys);
        count
    };
    for i in 1..count - 1 {
        continuity(&mut sys, &dy, &l, i);
    }
    if !full {
        sys.b[1] += adjust[0];
        sys.b[count - 2] += adjust[1];
    }
    let Some(mut h) = solve_with_limits(&mut sys, unknowns) else {
        return;
    };
    if full {
        h.push(h[0]);
    }
    for i in 1..count - 1 {
        let end = run.left_key(i) == total - 1;
        output(&mut keys[run.left_key(i)], false, -h[i] / l[i], end);
        output(&mut keys[run.right_key(i)], true, h[i], end);
    }
    if solve[0] {
        output(&mut keys[first], true, h[0], start == 0);
    }
    if solve[1] {
        let i = count - 1;
        output(&mut keys[last], false, -h[i] / l[i], start + count == total);
    }
}

/// The run's value steps dy, spacing ratios l (with the cycle's wrap when `full`) and the
/// auto-clamped limits of each unknown, in an otherwise empty system.
fn spacing_and_limits(
    keys: &[FKey],
    run: &Run,
    count: usize,
    full: bool,
) -> (Vec<f64>, Vec<f64>, System) {
    let mut dx = vec![f64::NAN; count];
    let mut dy = vec![f64::NAN; count];
    for i in 1..count {
        let (k, p) = (run.left_key(i), run.right_key(i - 1));
        dx[i] = keys[k].frame - keys[p].frame;
        dy[i] = keys[k].value - keys[p].value;
    }
    let mut l = vec![1.0; count];
    if full {
        dx[0] = dx[count - 1];
        dy[0] = dy[count - 1];
        l[0] = dx[1] / dx[0];
        l[count - 1] = l[0];
    }
    for i in 1..count - 1 {
        l[i] = dx[i + 1] / dx[i];
    }
    let mut sys = System {
        a: vec![0.0; count],
        b: vec![0.0; count],
        c: vec![0.0; count],
        d: vec![0.0; count],
        hmin: vec![f64::NEG_INFINITY; count],
        hmax: vec![f64::INFINITY; count],
        dx,
    };
    let clamped = |k: usize| {
        keys[k].left_type == HandleType::AutoClamped
            || keys[k].right_type == HandleType::AutoClamped
    };
    let mut clamped_cur = clamped(run.right_key(0));
    for i in 1..count {
        let clamped_prev = clamped_cur;
        let k = run.left_key(i);
        clamped_cur = clamped(k) || (run.cyclic && k == run.total - 1 && clamped(0));
        clamp_range(&mut sys, i - 1, dy[i], clamped_prev);
        clamp_range(&mut sys, i, dy[i] * l[i], clamped_cur);
    }
    (dy, l, sys)
}

/// The equations at the two ends of a run that is not a whole cycle: zero acceleration where
/// the end is `solve`d, else the kept handle's value offset, its time length correcting the
/// equation next to it (returned: the corrections of b[1] and b[count − 2]).
fn boundaries(
    keys: &[FKey],
    (first, last): (usize, usize),
    solve: [bool; 2],
    (dy, l): (&[f64], &[f64]),
    sys: &mut System,
) -> [f64; 2] {
    let count = sys.b.len();
    let (mut first_adj, mut last_adj) = (0.0, 0.0);
    if solve[0] {
        sys.b[0] = 2.0;
        sys.c[0] = 1.0 / l[1];
        sys.d[0] = dy[1];
    } else {
        let k = &keys[first];
        let (adj, h) = handle_adj([k.right[0] - k.frame, k.right[1] - k.value], sys.dx[1]);
        first_adj = adj;
        lock(sys, 0, h);
    }
    let n = count - 1;
    if solve[1] {
        sys.a[n] = l[n] * l[n];
        sys.b[n] = 2.0 * l[n];
        sys.d[n] = dy[n] * l[n] * l[n];
    } else {
        let k = &keys[last];
        let (adj, h) = handle_adj([k.frame - k.left[0], k.value - k.left[1]], sys.dx[n]);
        last_adj = adj;
        lock(sys, n, h);
    }
    // Corrections for b[1] and b[count − 2], added once the continuity equations are written.
    [
        if count > 2 || solve[1] {
            l[1] * first_adj
        } else {
            0.0
        },
        if count > 2 || solve[0] { last_adj } else { 0.0 },
    ]
}

/// Second-derivative continuity at position `i`.
fn continuity(sys: &mut System, dy: &[f64], l: &[f64], i: usize) {
    sys.a[i] = l[i] * l[i];
    sys.b[i] = 2.0 * (l[i] + 1.0);
    sys.c[i] = 1.0 / l[i + 1];
    sys.d[i] = dy[i] * l[i] * l[i] + dy[i + 1];
}

/// Unknown `i` fixed at `value`.
fn lock(sys: &mut System, i: usize, value: f64) {
    sys.a[i] = 0.0;
    sys.c[i] = 0.0;
    sys.b[i] = 1.0;
    sys.d[i] = value;
}

/// Auto-clamped limits: the handle neither reverses nor passes the neighbour's value.
fn clamp_range(sys: &mut System, i: usize, dy: f64, clamped: bool) {
    if !clamped {
        return;
    }
    if dy > 0.0 {
        sys.hmax[i] = sys.hmax[i].min(dy);
        sys.hmin[i] = 0.0;
    } else if dy < 0.0 {
        sys.hmax[i] = 0.0;
        sys.hmin[i] = sys.hmin[i].max(dy);
    } else {
        sys.hmax[i] = 0.0;
        sys.hmin[i] = 0.0;
    }
}

/// A kept boundary handle `[time, value]` offset over a segment of `dx` frames: scaled back when
/// it reaches past a third-plus of the segment, it corrects the equation next to it by
/// `1 − 3·time/dx` and fixes the unknown at its (scaled) value offset.
fn handle_adj(mut size: [f64; 2], dx: f64) -> (f64, f64) {
    let fac = dx / (size[0] + dx / 3.0);
    if fac < 1.0 {
        size[0] *= fac;
        size[1] *= fac;
    }
    (1.0 - 3.0 * size[0] / dx, size[1])
}

/// Writes a solved value offset `dy` to a key's handle (only an auto or vector one), turning an
/// aligned other handle to stay opposite, or at a curve end mirroring an auto or vector one.
fn output(key: &mut FKey, right: bool, dy: f64, endpoint: bool) {
    let (this, other) = if right {
        (key.right_type, key.left_type)
    } else {
        (key.left_type, key.right_type)
    };
    if !(this.is_auto() || this == HandleType::Vector) {
        return;
    }
    let p = [key.frame, key.value];
    let mut handle = if right { key.right } else { key.left };
    handle[1] = key.value + dy;
    let mut opposite = if right { key.left } else { key.right };
    let length = |q: [f64; 2]| {
        let (x, y) = (q[0] - p[0], q[1] - p[1]);
        crate::math::sqrt(x * x + y * y)
    };
    if other == HandleType::Aligned {
        let scale = length(opposite) / length(handle);
        opposite = [
            p[0] + (p[0] - handle[0]) * scale,
            p[1] + (p[1] - handle[1]) * scale,
        ];
    } else if endpoint && (other.is_auto() || other == HandleType::Vector) {
        opposite = [2.0 * p[0] - handle[0], 2.0 * p[1] - handle[1]];
    }
    if right {
        key.right = handle;
        key.left = opposite;
    } else {
        key.left = handle;
        key.right = opposite;
    }
}

/// Solves the first `n` equations, locking unknowns that leave their limits at the limit and
/// solving again, and releasing a locked one (at most twice each) whose equation pulls it back
/// inside (Blender's `tridiagonal_solve_with_limits`). `None` when a solve is not finite.
fn solve_with_limits(sys: &mut System, n: usize) -> Option<Vec<f64>> {
    let original = (sys.a.clone(), sys.b.clone(), sys.c.clone(), sys.d.clone());
    let mut is_locked = vec![false; n];
    let mut unlocks = vec![0u8; n];
    // Every pass locks an unknown or releases one (at most twice each): bounded.
    for _ in 0..(4 * n + 8) {
        let h = solve_cyclic(&sys.a[..n], &sys.b[..n], &sys.c[..n], &sys.d[..n])?;
        let (mut all, mut locked, mut overshoot) = (false, false, false);
        loop {
            for i in 0..n {
                if h[i] >= sys.hmin[i] && h[i] <= sys.hmax[i] {
                    continue;
                }
                overshoot = true;
                let target = if h[i] > sys.hmax[i] {
                    sys.hmax[i]
                } else {
                    sys.hmin[i]
                };
                if target != 0.0 || all {
                    is_locked[i] = true;
                    lock(sys, i, target);
                    locked = true;
                }
            }
            all = true;
            if !overshoot || locked {
                break;
            }
        }
        let mut unlocked = false;
        if !locked {
            for i in 0..n {
                if !is_locked[i] || unlocks[i] >= 2 {
                    continue;
                }
                let (a0, b0, c0, d0) = (&original.0, &original.1, &original.2, &original.3);
                let state =
                    a0[i] * h[(i + n - 1) % n] + b0[i] * h[i] + c0[i] * h[(i + 1) % n] - d0[i];
                let relax = -state * b0[i];
                if (relax > 0.0 && h[i] < sys.hmax[i]) || (relax < 0.0 && h[i] > sys.hmin[i]) {
                    sys.a[i] = a0[i];
                    sys.b[i] = b0[i];
                    sys.c[i] = c0[i];
                    sys.d[i] = d0[i];
                    is_locked[i] = false;
                    unlocks[i] += 1;
                    unlocked = true;
                }
            }
        }
        if !(overshoot || unlocked) {
            return Some(h);
        }
    }
    None
}

/// Solves `a_i x_{i−1} + b_i x_i + c_i x_{i+1} = d_i` (indices cyclic: `a_0` couples `x_{n−1}`,
/// `c_{n−1}` couples `x_0`) exactly as Blender's degenerate cases define it for n = 1 and 2,
/// by the Thomas algorithm when it is not cyclic, else by Sherman–Morrison.
fn solve_cyclic(a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let finite = |x: Vec<f64>| x.iter().all(|v| v.is_finite()).then_some(x);
    match n {
        0 => return None,
        1 => return finite(vec![d[0] / (a[0] + b[0] + c[0])]),
        2 => return finite(thomas(&[0.0, a[1] + c[1]], b, &[a[0] + c[0], 0.0], d)),
        _ => {}
    }
    let (a0, cn) = (a[0], c[n - 1]);
    if a0 == 0.0 && cn == 0.0 {
        return finite(thomas(a, b, c, d));
    }
    // A = T + u vᵀ with u = (γ, 0, …, 0, c_{n−1}), v = (1, 0, …, 0, a_0 / γ).
    let gamma = -b[0];
    let mut b2 = b.to_vec();
    b2[0] -= gamma;
    b2[n - 1] -= cn * a0 / gamma;
    let x = thomas(a, &b2, c, d);
    let mut u = vec![0.0; n];
    u[0] = gamma;
    u[n - 1] = cn;
    let z = thomas(a, &b2, c, &u);
    let fact = (x[0] + a0 * x[n - 1] / gamma) / (1.0 + z[0] + a0 * z[n - 1] / gamma);
    finite(x.iter().zip(&z).map(|(xi, zi)| xi - fact * zi).collect())
}

/// The Thomas algorithm (`a_0` and `c_{n−1}` ignored).
fn thomas(a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut cp = vec![0.0; n];
    let mut dp = vec![0.0; n];
    cp[0] = c[0] / b[0];
    dp[0] = d[0] / b[0];
    for i in 1..n {
        let denom = b[i] - a[i] * cp[i - 1];
        cp[i] = c[i] / denom;
        dp[i] = (d[i] - a[i] * dp[i - 1]) / denom;
    }
    let mut x = vec![0.0; n];
    x[n - 1] = dp[n - 1];
    for i in (0..n - 1).rev() {
        x[i] = dp[i] - cp[i] * x[i + 1];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cyclic_solve_matches_a_dense_check() {
        // 4 unknowns, cyclic coupling; verify A x = d by substitution.
        let a = [0.5, 1.0, 2.0, 0.25];
        let b = [4.0, 5.0, 6.0, 3.0];
        let c = [1.0, 0.5, 1.5, 0.75];
        let d = [1.0, -2.0, 3.0, 0.5];
        let x = solve_cyclic(&a, &b, &c, &d).unwrap();
        for i in 0..4 {
            let lhs = a[i] * x[(i + 3) % 4] + b[i] * x[i] + c[i] * x[(i + 1) % 4];
            assert!((lhs - d[i]).abs() < 1e-12, "row {i}: {lhs} vs {}", d[i]);
        }
    }
}
