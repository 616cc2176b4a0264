//! Arc length of parametric curves: adaptive Gauss–Legendre quadrature, its inverse, and a cumulative length table for constant-speed motion.
//!
//! The length of a curve C(u) between u0 and u1 is the integral of its speed,
//!
//! s(u0, u1) = ∫ |C′(u)| du over [u0, u1], with |·| the Euclidean norm over the components.
//!
//! # Accuracy
//!
//! Every approximate query takes an `accuracy` that is **relative to the length being measured**:
//! [`arclen`] returns a length within `accuracy · L` of the true length L of the measured piece,
//! [`inv_arclen`] returns a u whose arc length from 0 is within `accuracy · L` of the requested s
//! (L the whole curve's length), and an [`ArcLengthTable`] places points within `accuracy · L` of
//! the requested distance (L the table's total length). So the spec's "within 1e-9 of the curve's
//! length" is simply `accuracy = 1e-9` ([`DEFAULT_ACCURACY`]), whatever the scale of the values.
//! Accuracies must be finite and at least [`MIN_ACCURACY`]; others are
//! [`ArcLengthError::InvalidAccuracy`].
//!
//! # Method
//!
//! Adaptive quadrature (see Press et al., *Numerical Recipes*, 3rd ed., §4.7, or Gander & Gautschi,
//! "Adaptive quadrature — revisited", BIT 40, 2000): an interval is integrated by the 8-point
//! Gauss–Legendre rule once whole and once as two halves; when the two results agree within the
//! interval's share of the tolerance (share proportional to its width in u, and 1/50 of the
//! accuracy in all) the halves' sum is kept, otherwise each half is refined the same way, depth
//! first, at most [`MAX_QUADRATURE_DEPTH`] times and over at most [`MAX_QUADRATURE_INTERVALS`]
//! intervals. The Gauss nodes never touch an interval's endpoints, so a zero speed at an endpoint
//! is harmless.
//!
//! Two estimates of the same order can agree by accident while both are wrong, and they do so
//! where the speed is not smooth or barely resolved: at a cusp (C′ = 0, the speed has a kink) or
//! in a tight turn (a near-cusp). Both show in the derivative: across a cusp C′ ≈ K·(u − c)
//! reverses its direction. So an interval is also checked for neighbouring samples (its ends and
//! its 16 nodes, in order) whose directions differ by more than 15° or where the curve stops;
//! such an interval is split until the samples resolve the turn, or — at a true cusp, which never
//! resolves — until its whole length fits its tolerance (about log2(1/accuracy) bisections).
//! With these rules a sweep of 1e-3 … 1e-10 over 200 000 random cubic Beziers stayed within 0.17
//! of the requested accuracy (tests/arclength.rs checks the same property on random cubics and
//! random cusps).
//!
//! The inverse s → u walks the same subdivision in order to the leaf interval that holds s, then
//! solves `s(leaf start, u) = rest` inside that leaf by Newton's method (the derivative of arc
//! length is the speed) with a bisection safeguard: a Newton step that leaves the bracket, or a
//! zero speed, becomes a bisection step, so the solve always terminates. A leaf's error estimate
//! vouches for its whole length only, not for one 8-point panel over a part of it, so the solve's
//! answer is checked by measuring s(leaf start, u) adaptively like any interval, and the Newton
//! steps continue on that measurement when the one-panel steps were misled.

use crate::math;
use alloc::vec::Vec;
use core::ops::ControlFlow;

/// A parametric curve on u in [0, 1] with 1 to 4 components (vec2 and vec3 in practice).
pub trait ParamCurve {
    /// The number of components, 1 to 4.
    fn dims(&self) -> usize;
    /// Writes C(u) into `out[..self.dims()]`.
    fn eval(&self, u: f64, out: &mut [f64]);
    /// Writes dC/du at u into `out[..self.dims()]`; must be exact or accurate to about 1e-12
    /// relative (callers supply analytic derivatives where they can).
    fn derivative(&self, u: f64, out: &mut [f64]);
    /// What one `derivative` call costs, in units of a cubic's (about 20 multiplications):
    /// [`ArcLengthTable::build`] spends at most [`MAX_TABLE_WORK`] units in all.
    fn cost(&self) -> u64 {
        1
    }
}

impl<T: ParamCurve + ?Sized> ParamCurve for &T {
    fn dims(&self) -> usize {
        (**self).dims()
    }
    fn eval(&self, u: f64, out: &mut [f64]) {
        (**self).eval(u, out);
    }
    fn derivative(&self, u: f64, out: &mut [f64]) {
        (**self).derivative(u, out);
    }
    fn cost(&self) -> u64 {
        (**self).cost()
    }
}

/// The default accuracy, **relative to the measured length** (a length L is found within
/// 1e-9 · L): the spec's accuracy for `path: arclength` sampling.
pub const DEFAULT_ACCURACY: f64 = 1e-9;

/// The smallest accepted accuracy, relative to the length. Below about 1e-13 the rounding of the
/// double-precision quadrature sums (≈ 1e-16 per term, accumulated over many leaves) competes with
/// the error being controlled, so the error estimate would no longer be trustworthy.
pub const MIN_ACCURACY: f64 = 1e-13;

/// Deepest bisection of the adaptive quadrature: an interval of width 2^-48 in u.
///
/// Why 48: f64 spacing near u = 1 is 2^-52, so a few more bisections would make an interval's
/// Gauss nodes coincide. At a cusp the speed has a kink: the interval of width h holding it has
/// a length (and an error) shrinking like h², while its share of the tolerance shrinks like h;
/// so the cusp is resolved after about log2(50/ε) bisections for accuracy ε (the quadrature
/// aims at ε/50) — 39 for 1e-10, 46 for 1e-12. Beyond that, at the cap, a cusp interval whose
/// two estimates agree is accepted: it is 2^-48 of the range wide, so whatever the kink leaves
/// there is a fraction of a length of about 1e-15 of the whole.
pub const MAX_QUADRATURE_DEPTH: u32 = 48;

/// The most intervals one measurement of one segment may examine (each costs 18 derivative
/// evaluations). A cubic needs a handful when smooth and about 2 · 48 per cusp at
/// [`MIN_ACCURACY`]; the cap bounds the work on any input, so no curve can make the quadrature hang.
pub const MAX_QUADRATURE_INTERVALS: usize = 1 << 14;

/// The most leaves an [`ArcLengthTable`] keeps over all its segments: 2^22 (about 100 MB of
/// leaves). A smooth segment needs a few, so this allows a million segments; as the leaves
/// are what the quadrature examined (a successful pass examines 2 × leaves − 1 intervals), it
/// also bounds the time a track's table takes, which the per-segment cap
/// [`MAX_QUADRATURE_INTERVALS`] alone does not when there are many segments.
pub const MAX_TABLE_LEAVES: usize = 1 << 22;

/// The most work an [`ArcLengthTable`] may take, in derivative evaluations weighted by
/// [`ParamCurve::cost`]: 2^28 ≈ 2.7e8, what a pass over [`MAX_TABLE_LEAVES`] leaves of cubics
/// costs (2 × 2^22 intervals × 18 evaluations, with the retry pass) — a few seconds. A curve whose
/// evaluations are dear (a 64-key `polynomial` segment costs 1 024 units) gets proportionally
/// fewer intervals, so no segment kind can make the table slow; checked before each interval,
/// and crossing it is [`ArcLengthError::TooMuchWork`]. (A 4.7 KB track of 64-key polynomial
/// segments once took 18 s to be refused.)
pub const MAX_TABLE_WORK: u64 = 1 << 28;

/// Derivative evaluations per examined interval: the 16 nodes of the two halves, and its ends.
const EVALUATIONS_PER_INTERVAL: u64 = 18;

/// The most Newton/bisection steps of one inverse solve within a leaf; 64 bisections alone shrink
/// any bracket in [0, 1] below f64 resolution, so the solve has always converged by then.
const MAX_SOLVE_STEPS: u32 = 64;

/// The share of the accuracy the quadrature's error estimate must meet. Much less than the whole:
/// the estimate (difference of the one- and two-panel results) can fall short of the true error
/// on wide intervals the rule does not yet resolve well — by up to 25× in sweeps over random
/// cubics — so the quadrature aims 50 times below the accuracy. Measured: over 200 000 random
/// cubic Beziers (coordinates in ±100) and accuracies 1e-3 … 1e-10, the worst error was 0.17 of
/// the accuracy. GL-8 converges so fast that the margin costs little (often nothing).
const QUADRATURE_SHARE: f64 = 0.02;

/// The share of the accuracy given to the Newton/bisection solve of an inverse query.
const SOLVE_SHARE: f64 = 0.5;

/// cos 15°: neighbouring samples whose directions differ by more than 15° mark an interval as
/// not yet resolved (see `halves_with_turn_check`).
const SHARP_TURN_COSINE: f64 = 0.965_925_826_289_068_3;

/// The most components a curve may have.
const MAX_DIMS: usize = 4;

/// Size of the explicit stack of the depth-first subdivision: one pending right half per level.
const STACK_SIZE: usize = MAX_QUADRATURE_DEPTH as usize + 2;

/// Positive nodes of the 8-point Gauss–Legendre rule on [−1, 1] (the nodes are ±x_i); Abramowitz &
/// Stegun, *Handbook of Mathematical Functions*, Table 25.4 (n = 8), digits as in
/// DLMF §3.5(v). The rule integrates polynomials of degree ≤ 15 exactly; no node is an endpoint.
const GAUSS_LEGENDRE_8_NODES: [f64; 4] = [
    0.183_434_642_495_649_8,
    0.525_532_409_916_329,
    0.796_666_477_413_626_7,
    0.960_289_856_497_536_3,
];

/// Weights of the nodes ±x_i in [`GAUSS_LEGENDRE_8_NODES`] (same source); they sum to 1 per side.
const GAUSS_LEGENDRE_8_WEIGHTS: [f64; 4] = [
    0.362_683_783_378_362,
    0.313_706_645_877_887_3,
    0.222_381_034_453_374_5,
    0.101_228_536_290_376_3,
];

/// Why an arc-length query failed.
#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum ArcLengthError {
    /// The adaptive quadrature hit [`MAX_QUADRATURE_DEPTH`] or [`MAX_QUADRATURE_INTERVALS`] before
    /// its error estimate met the accuracy. `u0..u1` is the worst unresolved interval of segment
    /// `segment` (its estimate stayed above its share of the tolerance); `achieved` is the
    /// summed error estimate relative to the length (it can be below `requested` while one
    /// interval is unresolved), `requested` the accuracy asked for.
    #[error(
        "arc length of segment {segment} did not reach the relative accuracy {requested:e}: \
         on u in [{u0}, {u1}] the error estimate stayed above that interval's share of the \
         tolerance when the quadrature reached its limit of {} (summed error estimate: \
         {achieved:e} of the length)",
        if (*.u1 - *.u0) * math::powi(2.0, MAX_QUADRATURE_DEPTH as i32) <= 1.0 { "48 bisections" } else { "16384 intervals" }
    )]
    AccuracyNotReached {
        /// Index of the segment (0 for a single curve).
        segment: usize,
        /// Start of the worst unresolved parameter interval.
        u0: f64,
        /// End of the worst unresolved parameter interval.
        u1: f64,
        /// Estimated error, relative to the length.
        achieved: f64,
        /// The requested accuracy, relative to the length.
        requested: f64,
    },
    /// The accuracy was not finite or below [`MIN_ACCURACY`].
    #[error("accuracy must be finite and at least {min:e} (relative to the length), found {found}", min = MIN_ACCURACY)]
    InvalidAccuracy {
        /// The rejected accuracy.
        found: f64,
    },
    /// The curve's derivative (or a parameter passed in) was NaN or infinite.
    #[error("segment {segment} has a non-finite derivative or parameter at u = {u}")]
    NonFinite {
        /// Index of the segment (0 for a single curve).
        segment: usize,
        /// The parameter where it happened.
        u: f64,
    },
    /// The curve reports a number of components outside 1..=4.
    #[error("segment {segment} has {dims} components; arc length supports 1 to 4")]
    UnsupportedDimension {
        /// Index of the segment (0 for a single curve).
        segment: usize,
        /// The reported number of components.
        dims: usize,
    },
    /// Building the table would take more than [`MAX_TABLE_WORK`] units of work.
    #[error(
        "measuring the arc length would take more than {max} evaluations of a cubic's cost \
         by segment {segment} (docs/limits.md), each evaluation of this curve costing {cost}; \
         use fewer keys per polynomial segment or fewer turns"
    )]
    TooMuchWork {
        /// Index of the segment being measured when the budget ran out.
        segment: usize,
        /// Cost of one derivative evaluation of that segment.
        cost: u64,
        /// The limit.
        max: u64,
    },
    /// A table would keep more than [`MAX_TABLE_LEAVES`] leaves (all segments together).
    #[error(
        "the arc-length table needs more than {max} intervals by segment {segment} \
         (docs/limits.md); the curve has too many segments or too many turns"
    )]
    TooManyIntervals {
        /// Index of the segment whose leaves crossed the limit.
        segment: usize,
        /// The limit.
        max: usize,
    },
}

/// Checks an accuracy argument: finite and at least [`MIN_ACCURACY`].
fn check_accuracy(accuracy: f64) -> Result<(), ArcLengthError> {
    if accuracy.is_finite() && accuracy >= MIN_ACCURACY {
        Ok(())
    } else {
        Err(ArcLengthError::InvalidAccuracy { found: accuracy })
    }
}

/// Checks that a curve has 1 to 4 components.
fn check_dims<C: ParamCurve + ?Sized>(curve: &C, segment: usize) -> Result<(), ArcLengthError> {
    let dims = curve.dims();
    if (1..=MAX_DIMS).contains(&dims) {
        Ok(())
    } else {
        Err(ArcLengthError::UnsupportedDimension { segment, dims })
    }
}

/// Whether `x` is greater than 0 (false for NaN).
#[inline]
#[must_use]
fn is_positive(x: f64) -> bool {
    x > 0.0
}

/// `x` clamped to [0, 1]; NaN becomes 0.
#[inline]
#[must_use]
fn clamp_unit(x: f64) -> f64 {
    if x >= 1.0 {
        1.0
    } else if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// Euclidean norm √(Σ v_k²), without overflow or underflow: when the plain sum of squares is not
/// a normal finite number, the components are scaled by the largest magnitude first. NaN in, NaN
/// out; an infinite component gives infinity.
#[inline]
#[must_use]
fn euclidean_norm(v: &[f64]) -> f64 {
    let sum: f64 = v.iter().map(|x| x * x).sum();
    if sum.is_finite() && (sum >= f64::MIN_POSITIVE || sum == 0.0 && v.iter().all(|&x| x == 0.0)) {
        return math::sqrt(sum);
    }
    if v.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let scale = v.iter().fold(0.0_f64, |m, &x| m.max(math::abs(x)));
    if scale == 0.0 || !scale.is_finite() {
        return scale;
    }
    let scaled: f64 = v
        .iter()
        .map(|&x| {
            let y = x / scale;
            y * y
        })
        .sum();
    scale * math::sqrt(scaled)
}

/// The speed |C′(u)|.
#[inline]
#[must_use]
fn speed<C: ParamCurve + ?Sized>(curve: &C, u: f64) -> f64 {
    derivative_and_speed(curve, u).1
}

/// ∫ |C′(u)| du over [a, b] by the 8-point Gauss–Legendre rule, `Err(u)` with the first node
/// where the speed is not finite.
#[inline]
fn gauss_legendre_8<C: ParamCurve + ?Sized>(curve: &C, a: f64, b: f64) -> Result<f64, f64> {
    let half = 0.5 * (b - a);
    let mid = 0.5 * (a + b);
    let mut sum = 0.0;
    for (&x, &w) in GAUSS_LEGENDRE_8_NODES.iter().zip(&GAUSS_LEGENDRE_8_WEIGHTS) {
        let (u_low, u_high) = (mid - half * x, mid + half * x);
        let (low, high) = (speed(curve, u_low), speed(curve, u_high));
        if !low.is_finite() {
            return Err(u_low);
        }
        if !high.is_finite() {
            return Err(u_high);
        }
        sum += w * (low + high);
    }
    Ok(sum * half)
}

/// The derivative C′(u), zero-padded to four components, and the speed |C′(u)|.
#[inline]
fn derivative_and_speed<C: ParamCurve + ?Sized>(curve: &C, u: f64) -> ([f64; MAX_DIMS], f64) {
    let mut derivative = [0.0; MAX_DIMS];
    let dims = curve.dims().min(MAX_DIMS);
    if let Some(components) = derivative.get_mut(..dims) {
        curve.derivative(u, components);
    }
    // The padding is zero, so the norm over all four components is the norm over `dims`.
    let speed = euclidean_norm(&derivative);
    (derivative, speed)
}

/// Whether the direction of motion turns by more than 15° ([`SHARP_TURN_COSINE`]) from `before`
/// to `after` (speeds `before_speed`, `after_speed`), or stops at one of them while moving at the
/// other: the sign of a cusp or of a turn too tight for the sample spacing. The test is
/// scale-free (it falls back to normalized vectors when the plain dot product over- or
/// underflows).
#[inline]
fn turns_sharply(
    before: &[f64; MAX_DIMS],
    before_speed: f64,
    after: &[f64; MAX_DIMS],
    after_speed: f64,
) -> bool {
    if before_speed == 0.0 || after_speed == 0.0 {
        return before_speed != after_speed;
    }
    let dot: f64 = before.iter().zip(after).map(|(x, y)| x * y).sum();
    let product = before_speed * after_speed;
    if dot.is_finite() && product.is_finite() && product >= f64::MIN_POSITIVE {
        return dot < SHARP_TURN_COSINE * product;
    }
    let cosine: f64 = before
        .iter()
        .zip(after)
        .map(|(x, y)| (x / before_speed) * (y / after_speed))
        .sum();
    cosine < SHARP_TURN_COSINE
}

/// The two half-panel estimates of [a, b] by the 8-point rule, and whether the derivative turns
/// by more than 15° between any two neighbours of the sequence a, the 16 nodes in order, b.
///
/// The speed |C′| is smooth except at zeros of C′ (cusps, or a line that folds back), where it
/// has a kink; there, two Gauss estimates can agree by accident while both are wrong (seen: a
/// folded line at accuracy 1e-4 off by 1.8e-4). At such a zero C′ ≈ K·(u − c) reverses its
/// direction, so some neighbouring pair of sample points straddling c turns by about 180°:
/// that interval is then accepted only once its whole length fits its tolerance. Near-cusps
/// (a narrow valley in the speed, where the two estimates were also seen to agree by accident:
/// off by 1.3e-3 at accuracy 1e-4) turn fast too, and are split until the samples resolve the
/// turn (under 15° between neighbours).
fn halves_with_turn_check<C: ParamCurve + ?Sized>(
    curve: &C,
    a: f64,
    b: f64,
) -> Result<(f64, f64, bool), f64> {
    let (mut previous, mut previous_speed) = derivative_and_speed(curve, a);
    if !previous_speed.is_finite() {
        return Err(a);
    }
    // A stop exactly at an end (an eased key, p1 = p0) is no kink inside [a, b]: the speed
    // grows like |u − a| on one side only, which the rule integrates well. Compare from the
    // first node then.
    let mut at_start = true;
    // Same at the far end; a cusp that rounding puts a hair off an interval's end (a speed of
    // rounding noise there) counts as at the end.
    let stops_at_end = |end_speed: f64, neighbour_speed: f64| end_speed <= 1e-8 * neighbour_speed;
    let mut sharp = false;
    let mid = 0.5 * (a + b);
    let mut sums = [0.0; 2];
    for (sum, (lo, hi)) in sums.iter_mut().zip([(a, mid), (mid, b)]) {
        let half = 0.5 * (hi - lo);
        let centre = 0.5 * (lo + hi);
        // Nodes in increasing u: −x4, −x3, −x2, −x1, x1, x2, x3, x4.
        let nodes = GAUSS_LEGENDRE_8_NODES.iter().zip(&GAUSS_LEGENDRE_8_WEIGHTS);
        let ordered = nodes
            .clone()
            .rev()
            .map(|(&x, &w)| (-x, w))
            .chain(nodes.map(|(&x, &w)| (x, w)));
        let mut total = 0.0;
        for (x, w) in ordered {
            let u = centre + half * x;
            let (derivative, speed) = derivative_and_speed(curve, u);
            if !speed.is_finite() {
                return Err(u);
            }
            if !(at_start && stops_at_end(previous_speed, speed)) {
                sharp |= turns_sharply(&previous, previous_speed, &derivative, speed);
            }
            at_start = false;
            (previous, previous_speed) = (derivative, speed);
            total += w * speed;
        }
        *sum = total * half;
    }
    let (end, end_speed) = derivative_and_speed(curve, b);
    if !end_speed.is_finite() {
        return Err(b);
    }
    if !stops_at_end(end_speed, previous_speed) {
        sharp |= turns_sharply(&previous, previous_speed, &end, end_speed);
    }
    Ok((sums[0], sums[1], sharp))
}

/// An interval waiting on the subdivision stack.
#[derive(Clone, Copy, Default)]
struct Pending {
    a: f64,
    b: f64,
    depth: u32,
    /// Its one-panel estimate.
    coarse: f64,
}

/// The worst interval that could not be resolved.
#[derive(Clone, Copy)]
struct Shortfall {
    u0: f64,
    u1: f64,
    error: f64,
}

/// What one adaptive pass found.
struct Pass {
    /// Sum of the kept leaves (all of them, or up to the one the visitor stopped at).
    length: f64,
    /// Sum of the leaves' error estimates.
    error: f64,
    /// The length the tolerance was relative to.
    reference: f64,
    shortfall: Option<Shortfall>,
}

impl Pass {
    /// Adds a kept leaf `[a, b]` of length `fine` and error estimate `error`, remembering the
    /// worst one that was not resolved.
    fn keep(&mut self, a: f64, b: f64, fine: f64, error: f64, resolved: bool) {
        if !resolved && self.shortfall.map_or(true, |worst| error > worst.error) {
            self.shortfall = Some(Shortfall {
                u0: a,
                u1: b,
                error,
            });
        }
        self.length += fine;
        self.error += error;
    }
}

/// The evaluation budget of one table build, charged per interval before its evaluations.
struct Work<'b> {
    budget: &'b mut u64,
    segment: usize,
    cost: u64,
}

impl<'b> Work<'b> {
    fn new<C: ParamCurve + ?Sized>(curve: &C, segment: usize, budget: &'b mut u64) -> Self {
        Work {
            budget,
            segment,
            cost: curve.cost().max(1),
        }
    }

    /// Charges one interval's evaluations, or refuses before doing them.
    fn charge(&mut self) -> Result<(), ArcLengthError> {
        let units = self.cost.saturating_mul(EVALUATIONS_PER_INTERVAL);
        if *self.budget < units {
            return Err(ArcLengthError::TooMuchWork {
                segment: self.segment,
                cost: self.cost,
                max: MAX_TABLE_WORK,
            });
        }
        *self.budget -= units;
        Ok(())
    }
}

/// The explicit stack of the depth-first subdivision: at most one pending right half per level.
struct Subdivision {
    stack: [Pending; STACK_SIZE],
    top: usize,
}

impl Subdivision {
    /// A stack holding the whole range.
    fn new(root: Pending) -> Self {
        let mut stack = [Pending::default(); STACK_SIZE];
        stack[0] = root;
        Subdivision { stack, top: 1 }
    }

    /// The next interval, the leftmost pending one.
    fn pop(&mut self) -> Option<Pending> {
        self.top = self.top.checked_sub(1)?;
        self.stack.get(self.top).copied()
    }

    /// Whether two more intervals fit.
    fn has_room(&self) -> bool {
        self.top + 2 <= STACK_SIZE
    }

    /// Replaces `interval` by its halves at `mid`, with their one-panel estimates `left` and
    /// `right` (the left one comes out first). The caller checked [`has_room`](Self::has_room).
    fn split(&mut self, interval: Pending, mid: f64, (left, right): (f64, f64)) {
        let depth = interval.depth + 1;
        let halves = [
            Pending {
                a: mid,
                b: interval.b,
                depth,
                coarse: right,
            },
            Pending {
                a: interval.a,
                b: mid,
                depth,
                coarse: left,
            },
        ];
        for half in halves {
            if let Some(slot) = self.stack.get_mut(self.top) {
                *slot = half;
                self.top += 1;
            }
        }
    }
}

/// One depth-first adaptive pass over [u0, u1] (u0 < u1), calling `visit(a, b, length)` for the
/// kept leaves in increasing u until it returns `Break`. The absolute tolerance is
/// `QUADRATURE_SHARE · accuracy · reference`, with `reference` the first two-panel estimate of the
/// whole length unless given.
fn quadrature_pass<C, F>(
    curve: &C,
    segment: usize,
    (u0, u1): (f64, f64),
    accuracy: f64,
    reference: Option<f64>,
    budget: &mut u64,
    mut visit: F,
) -> Result<Pass, ArcLengthError>
where
    C: ParamCurve + ?Sized,
    F: FnMut(f64, f64, f64) -> ControlFlow<()>,
{
    let non_finite = |u| ArcLengthError::NonFinite { segment, u };
    let mut work = Work::new(curve, segment, budget);
    work.charge()?;
    let width = u1 - u0;
    let coarse = gauss_legendre_8(curve, u0, u1).map_err(non_finite)?;
    let halves = halves_with_turn_check(curve, u0, u1).map_err(non_finite)?;
    let reference = reference.unwrap_or(halves.0 + halves.1);
    let tolerance = QUADRATURE_SHARE * accuracy * reference;

    let mut pass = Pass {
        length: 0.0,
        error: 0.0,
        reference,
        shortfall: None,
    };
    let mut pending = Subdivision::new(Pending {
        a: u0,
        b: u1,
        depth: 0,
        coarse,
    });
    // The root's halves are known already; every later interval computes its own.
    let mut root_halves = Some(halves);
    let mut examined = 0usize;
    while let Some(interval) = pending.pop() {
        let Pending {
            a,
            b,
            depth,
            coarse,
        } = interval;
        let mid = 0.5 * (a + b);
        let (left, right, sharp) = match root_halves.take() {
            Some(known) => known,
            None => {
                work.charge()?;
                halves_with_turn_check(curve, a, b).map_err(non_finite)?
            }
        };
        examined += 1;
        let fine = left + right;
        let error = math::abs(fine - coarse);
        let allowed = tolerance * ((b - a) / width);
        // A sharp interval (a cusp) counts as resolved once its whole length fits its tolerance,
        // or, at the depth cap, once the estimates agree: its width is then 2^-48 of the range,
        // so a kink in it can only be off by a part of its tiny length.
        let resolved =
            error <= allowed && (!sharp || fine <= allowed || depth >= MAX_QUADRATURE_DEPTH);
        let can_split = depth < MAX_QUADRATURE_DEPTH
            && examined < MAX_QUADRATURE_INTERVALS
            && pending.has_room()
            && mid > a
            && mid < b;
        if resolved || !can_split {
            pass.keep(a, b, fine, error, resolved);
            if visit(a, b, fine).is_break() {
                break;
            }
        } else {
            pending.split(interval, mid, (left, right));
        }
    }
    Ok(pass)
}

/// Measures one segment on [u0, u1] (u0 < u1), handing the kept leaves to `leaf`, checking the
/// result against `accuracy · length` and retrying once against the measured length when the
/// first estimate of the length (the tolerance's reference) was too small.
fn measure<C: ParamCurve + ?Sized>(
    curve: &C,
    segment: usize,
    range: (f64, f64),
    accuracy: f64,
    mut leaves: Option<&mut Vec<(f64, f64, f64)>>,
    budget: &mut u64,
) -> Result<f64, ArcLengthError> {
    let kept = leaves.as_ref().map_or(0, |leaves| leaves.len());
    let mut reference = None;
    loop {
        let pass = quadrature_pass(
            curve,
            segment,
            range,
            accuracy,
            reference,
            budget,
            |a, b, length| {
                if let Some(leaves) = leaves.as_mut() {
                    leaves.push((a, b, length));
                }
                ControlFlow::Continue(())
            },
        )?;
        if pass.shortfall.is_none() && pass.error <= accuracy * pass.length {
            return Ok(pass.length);
        }
        if reference.is_none() && pass.length > pass.reference {
            reference = Some(pass.length);
            if let Some(leaves) = leaves.as_mut() {
                leaves.truncate(kept);
            }
            continue;
        }
        let worst = pass.shortfall.unwrap_or(Shortfall {
            u0: range.0,
            u1: range.1,
            error: pass.error,
        });
        return Err(ArcLengthError::AccuracyNotReached {
            segment,
            u0: worst.u0,
            u1: worst.u1,
            achieved: if pass.length > 0.0 {
                pass.error / pass.length
            } else {
                f64::INFINITY
            },
            requested: accuracy,
        });
    }
}

/// Arc length of `curve` between the parameters `u0` and `u1` (each clamped to [0, 1]; the order
/// does not matter, the result is never negative), within `accuracy · L` of the true length L,
/// `accuracy` relative as in the [module docs](self) (use [`DEFAULT_ACCURACY`] for the spec's 1e-9).
///
/// Adaptive 8-point Gauss–Legendre quadrature of the speed |C′(u)|, depth-capped at
/// [`MAX_QUADRATURE_DEPTH`]. u0 = u1 gives exactly 0, and so does a constant curve.
///
/// # Errors
///
/// [`ArcLengthError::InvalidAccuracy`], [`ArcLengthError::UnsupportedDimension`],
/// [`ArcLengthError::NonFinite`] for NaN parameters or a non-finite derivative, and
/// [`ArcLengthError::AccuracyNotReached`] when the depth or interval cap stops the subdivision
/// first (the error names the worst interval).
pub fn arclen<C: ParamCurve + ?Sized>(
    curve: &C,
    u0: f64,
    u1: f64,
    accuracy: f64,
) -> Result<f64, ArcLengthError> {
    check_accuracy(accuracy)?;
    check_dims(curve, 0)?;
    for u in [u0, u1] {
        if u.is_nan() {
            return Err(ArcLengthError::NonFinite { segment: 0, u });
        }
    }
    let (a, b) = (clamp_unit(u0.min(u1)), clamp_unit(u0.max(u1)));
    if a >= b {
        return Ok(0.0);
    }
    let mut budget = MAX_TABLE_WORK;
    measure(curve, 0, (a, b), accuracy, None, &mut budget)
}

/// Arc length of `curve` between `u0` and `u1` (clamped to [0, 1], either order) by the composite
/// Simpson rule with a fixed number of intervals (rounded up to an even number, at least 2):
///
/// s ≈ h/3 · [f(u_0) + 4f(u_1) + 2f(u_2) + … + 4f(u_{n−1}) + f(u_n)], f = |C′|, h = |u1 − u0|/n.
///
/// For users who ask for Simpson by name; its error falls like h⁴ on smooth speeds but it gives no
/// error estimate, so prefer [`arclen`]. The cost is n + 1 derivative evaluations. NaN only if the
/// curve's derivative is NaN.
#[must_use]
pub fn arclen_simpson<C: ParamCurve + ?Sized>(
    curve: &C,
    u0: f64,
    u1: f64,
    intervals: usize,
) -> f64 {
    let (a, b) = (clamp_unit(u0.min(u1)), clamp_unit(u0.max(u1)));
    if a >= b {
        return 0.0;
    }
    let mut n = intervals.max(2);
    if n % 2 == 1 {
        n = n.checked_add(1).unwrap_or(n - 1);
    }
    let h = (b - a) / n as f64;
    let mut sum = speed(curve, a) + speed(curve, b);
    for i in 1..n {
        let weight = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += weight * speed(curve, a + h * i as f64);
    }
    sum * h / 3.0
}

/// The accuracy of a measurement or an inverse solve inside one leaf.
#[derive(Clone, Copy)]
struct LeafAccuracy {
    /// The relative accuracy asked for (at least [`MIN_ACCURACY`]).
    accuracy: f64,
    /// The length L the accuracy is relative to (the whole curve's or table's).
    reference: f64,
}

impl LeafAccuracy {
    /// How far the arc length at the solution may miss its target: `SOLVE_SHARE · accuracy · L`.
    fn tolerance(self) -> f64 {
        SOLVE_SHARE * self.accuracy * self.reference
    }
}

/// The arc length s(a, u) from a leaf's start `a` to `u` inside it (a ≤ u), within
/// `QUADRATURE_SHARE · accuracy · L` (the error estimate of the adaptive pass, as for a whole
/// length), or `None` when the pass fails (a non-finite speed the leaf's nodes did not see).
///
/// A leaf is resolved for its whole length only: one 8-point panel over a part of it can miss by
/// far more (seen: a leaf whose two estimates agreed within 7e-10 gave, on its first 92 %, a single
/// panel off by 9e-7, 4.5 × accuracy · L). So a part of a leaf is measured like any interval.
fn partial_length<C: ParamCurve + ?Sized>(
    curve: &C,
    (a, u): (f64, f64),
    accuracy: LeafAccuracy,
) -> Option<f64> {
    if u <= a {
        return Some(0.0);
    }
    let mut budget = MAX_TABLE_WORK;
    let pass = quadrature_pass(
        curve,
        0,
        (a, u),
        accuracy.accuracy,
        Some(accuracy.reference),
        &mut budget,
        |_, _, _| ControlFlow::Continue(()),
    );
    pass.ok().map(|pass| pass.length)
}

/// Newton's method with a bisection safeguard on `residual(u) = s(a, u) − target` over the
/// bracket [a, b], from `start`: a step that leaves the bracket, or a zero speed, becomes a
/// bisection step. Returns the first u whose |residual| is within `tolerance` (`true`), or the
/// last u when the steps stall or [`MAX_SOLVE_STEPS`] run out (`false`).
fn newton_in_bracket<C: ParamCurve + ?Sized>(
    curve: &C,
    (a, b): (f64, f64),
    start: f64,
    tolerance: f64,
    mut residual: impl FnMut(f64) -> f64,
) -> (f64, bool) {
    let (mut low, mut high) = (a, b);
    let mut u = start;
    for _ in 0..MAX_SOLVE_STEPS {
        let r = residual(u);
        if math::abs(r) <= tolerance {
            return (u, true);
        }
        if r < 0.0 {
            low = u;
        } else if r > 0.0 {
            high = u;
        }
        let newton = u - r / speed(curve, u);
        let next = if newton > low && newton < high {
            newton
        } else {
            0.5 * (low + high)
        };
        if next == u || !(next > low && next < high) {
            return (u, false);
        }
        u = next;
    }
    (u, false)
}

/// Solves s(a, u) = `target` for u in the leaf [a, b] of length `length`, to within
/// `accuracy.tolerance()` plus the partial measurement's `QUADRATURE_SHARE · accuracy · L`.
/// Always returns a u in [a, b].
///
/// Two phases, so that the common case stays cheap: Newton steps on one 8-point panel over
/// [a, u] (8 evaluations a step) find a candidate, which [`partial_length`] then checks; only
/// when the panel misled (see there) do the steps continue on the adaptive measurement, from
/// that candidate within the whole leaf.
fn solve_in_leaf<C: ParamCurve + ?Sized>(
    curve: &C,
    (a, b): (f64, f64),
    length: f64,
    target: f64,
    accuracy: LeafAccuracy,
) -> f64 {
    if !is_positive(length) || !is_positive(target) {
        return a;
    }
    if target >= length {
        return b;
    }
    let tolerance = accuracy.tolerance();
    let start = a + (b - a) * (target / length);
    let one_panel = |u: f64| gauss_legendre_8(curve, a, u).map_or(f64::NAN, |s| s - target);
    let (candidate, _) = newton_in_bracket(curve, (a, b), start, tolerance, one_panel);
    let measured =
        |u: f64| partial_length(curve, (a, u), accuracy).map_or(f64::NAN, |s| s - target);
    if math::abs(measured(candidate)) <= tolerance {
        return candidate;
    }
    newton_in_bracket(curve, (a, b), candidate, tolerance, measured).0
}

/// The parameter u in [0, 1] where the arc length from 0 reaches `s`: s(0, u) = s within
/// `accuracy · L` (L the whole curve's length, `accuracy` relative as in the [module docs](self)).
///
/// `s` is clamped to [0, L]: s ≤ 0 (or NaN) gives 0 and s ≥ L gives 1; a curve of length 0 gives 0.
/// Where the curve stands still (zero speed on an interval) any u there has the same arc length;
/// the result is one of them. One adaptive pass up to the leaf that holds s, then a
/// Newton/bisection solve inside it; no allocation.
///
/// # Errors
///
/// As [`arclen`].
pub fn inv_arclen<C: ParamCurve + ?Sized>(
    curve: &C,
    s: f64,
    accuracy: f64,
) -> Result<f64, ArcLengthError> {
    check_accuracy(accuracy)?;
    check_dims(curve, 0)?;
    if !is_positive(s) {
        return Ok(0.0);
    }
    let mut before = 0.0;
    let mut found = None;
    let mut budget = MAX_TABLE_WORK;
    let pass = quadrature_pass(
        curve,
        0,
        (0.0, 1.0),
        accuracy,
        None,
        &mut budget,
        |a, b, length| {
            if before + length >= s {
                found = Some((a, b, length));
                ControlFlow::Break(())
            } else {
                before += length;
                ControlFlow::Continue(())
            }
        },
    )?;
    if let Some(worst) = pass.shortfall {
        return Err(ArcLengthError::AccuracyNotReached {
            segment: 0,
            u0: worst.u0,
            u1: worst.u1,
            achieved: if pass.length > 0.0 {
                pass.error / pass.length
            } else {
                f64::INFINITY
            },
            requested: accuracy,
        });
    }
    Ok(match found {
        _ if !is_positive(pass.length) => 0.0,
        None => 1.0,
        Some((a, b, length)) => {
            let accuracy = LeafAccuracy {
                accuracy,
                reference: pass.reference,
            };
            solve_in_leaf(curve, (a, b), length, s - before, accuracy)
        }
    })
}

/// A leaf of a table: a parameter interval of one segment and the table's cumulative length at
/// its start.
#[derive(Clone, Copy, Debug, PartialEq)]
struct TableLeaf {
    u0: f64,
    u1: f64,
    start: f64,
}

/// Cumulative arc length over a sequence of segments, each a [`ParamCurve`] on [0, 1], for
/// constant-speed motion along the whole chain.
///
/// Built once by adaptive quadrature ([`build`](Self::build)); it keeps the leaves of the
/// subdivision (parameter intervals with their cumulative lengths), so a lookup
/// ([`locate`](Self::locate)) is a binary search over segments, one over that segment's leaves,
/// and a few Newton steps inside one well-resolved leaf: O(log n), no allocation.
///
/// Segments join without length: the end of one segment and the start of the next sit at the
/// same cumulative length even when they are different points (a jump). The table does not keep
/// the segments; pass the same slice to the lookups.
#[derive(Clone, Debug, PartialEq)]
pub struct ArcLengthTable {
    /// Cumulative length at the start of each segment, then the total (n + 1 entries).
    segment_starts: Vec<f64>,
    /// Index of each segment's first leaf, then the number of leaves (n + 1 entries).
    segment_leaves: Vec<usize>,
    leaves: Vec<TableLeaf>,
    /// The relative accuracy the table was built to.
    accuracy: f64,
}

impl ArcLengthTable {
    /// Measures every segment over u in [0, 1] to `accuracy` (relative to each segment's length,
    /// so the total is within `accuracy · total_length`). Zero-length segments are allowed and
    /// add nothing; an empty slice gives an empty table of length 0.
    ///
    /// # Errors
    ///
    /// As [`arclen`], with the index of the failing segment;
    /// [`ArcLengthError::TooManyIntervals`] past [`MAX_TABLE_LEAVES`] leaves in all.
    pub fn build(segments: &[&dyn ParamCurve], accuracy: f64) -> Result<Self, ArcLengthError> {
        check_accuracy(accuracy)?;
        let mut segment_starts = Vec::with_capacity(segments.len() + 1);
        let mut segment_leaves = Vec::with_capacity(segments.len() + 1);
        let mut leaves = Vec::with_capacity(segments.len() * 2);
        let mut raw = Vec::new();
        let mut total = 0.0;
        let mut budget = MAX_TABLE_WORK;
        for (index, segment) in segments.iter().enumerate() {
            check_dims(*segment, index)?;
            raw.clear();
            measure(
                *segment,
                index,
                (0.0, 1.0),
                accuracy,
                Some(&mut raw),
                &mut budget,
            )?;
            if leaves.len() + raw.len() > MAX_TABLE_LEAVES {
                return Err(ArcLengthError::TooManyIntervals {
                    segment: index,
                    max: MAX_TABLE_LEAVES,
                });
            }
            segment_starts.push(total);
            segment_leaves.push(leaves.len());
            for &(u0, u1, length) in &raw {
                leaves.push(TableLeaf {
                    u0,
                    u1,
                    start: total,
                });
                total += length;
            }
        }
        segment_starts.push(total);
        segment_leaves.push(leaves.len());
        Ok(ArcLengthTable {
            segment_starts,
            segment_leaves,
            leaves,
            accuracy,
        })
    }

    /// The length of the whole chain, L.
    #[inline]
    #[must_use]
    pub fn total_length(&self) -> f64 {
        self.segment_starts.last().copied().unwrap_or(0.0)
    }

    /// The number of segments.
    #[inline]
    #[must_use]
    pub fn segment_count(&self) -> usize {
        self.segment_starts.len().saturating_sub(1)
    }

    /// The cumulative length at the start of segment `i` (0 for the first); for `i` at or past
    /// [`segment_count`](Self::segment_count) the total length.
    #[inline]
    #[must_use]
    pub fn segment_start(&self, i: usize) -> f64 {
        self.segment_starts
            .get(i)
            .copied()
            .unwrap_or_else(|| self.total_length())
    }

    /// The leaves of segment `i` (empty for an index out of range).
    fn leaves_of(&self, i: usize) -> &[TableLeaf] {
        match (self.segment_leaves.get(i), self.segment_leaves.get(i + 1)) {
            (Some(&first), Some(&end)) => self.leaves.get(first..end).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The cumulative length at the end of leaf `k` of segment `i`.
    fn leaf_end(&self, i: usize, leaves: &[TableLeaf], k: usize) -> f64 {
        leaves
            .get(k + 1)
            .map_or_else(|| self.segment_start(i + 1), |next| next.start)
    }

    /// The cumulative length at parameter `u` (clamped to [0, 1]; NaN counts as 0) of segment
    /// `segment`, within the table's build accuracy · L: `segment_start(segment)` at u = 0 and
    /// `segment_start(segment + 1)` at u = 1. A segment index past the end gives the total length.
    /// `segments` must be the slice the table was built from.
    #[must_use]
    pub fn length_at(&self, segments: &[&dyn ParamCurve], segment: usize, u: f64) -> f64 {
        let leaves = self.leaves_of(segment);
        if leaves.is_empty() {
            return self.segment_start(segment);
        }
        let u = clamp_unit(u);
        let k = leaves
            .partition_point(|leaf| leaf.u0 <= u)
            .saturating_sub(1);
        let Some(leaf) = leaves.get(k) else {
            return self.segment_start(segment);
        };
        let end = self.leaf_end(segment, leaves, k);
        if u >= leaf.u1 {
            return end;
        }
        let partial = match segments.get(segment) {
            Some(curve) => {
                let accuracy = LeafAccuracy {
                    accuracy: self.accuracy,
                    reference: self.total_length(),
                };
                partial_length(*curve, (leaf.u0, u), accuracy).unwrap_or(0.0)
            }
            None => (end - leaf.start) * (u - leaf.u0) / (leaf.u1 - leaf.u0),
        };
        (leaf.start + partial).clamp(leaf.start, end)
    }

    /// The point at arc length `s` along the chain, as (segment index, u).
    ///
    /// `s` is clamped to [0, L] (NaN counts as 0). The rule of the spec: a jump between segments
    /// adds no length, and the point at the arc length of a jump is the later one — when several
    /// segments (zero-length ones, or a segment's end and the next one's start) share the
    /// cumulative length s, the result is in the latest segment j with `segment_start(j) <= s`.
    /// Like the spec's ends, s = 0 gives (0, 0.0) — the start of the first segment, even when
    /// zero-length segments follow it — and s = L gives (last segment, 1.0), which the caller maps
    /// to the last key's value; an empty table or L = 0 gives (0, 0.0).
    ///
    /// The point's cumulative length is within `(build accuracy + accuracy) · L / 2` of `s`: the
    /// table's leaves are within half its build accuracy, and the solve inside the leaf adds at
    /// most `accuracy · L / 2`; so with both at `accuracy` the point is within `accuracy · L`.
    /// `accuracy` is relative as in the [module docs](self); values below [`MIN_ACCURACY`] (or NaN)
    /// count as [`MIN_ACCURACY`]. `segments` must be the slice the table was built from (with
    /// another slice the result is still a valid (segment, u), linearly placed in the leaf).
    ///
    /// O(log n) binary searches plus the solve in one leaf: typically 2–3 Newton steps of one
    /// 8-point panel each and one adaptive measurement that confirms the answer (26 speed
    /// evaluations when the leaf is smooth); no allocation; never NaN.
    #[must_use]
    pub fn locate(&self, segments: &[&dyn ParamCurve], s: f64, accuracy: f64) -> (usize, f64) {
        self.locate_with(|j| segments.get(j).copied(), s, accuracy)
    }

    /// Like [`locate`](Self::locate), but the curve of the segment found is made on demand by
    /// `curve_of(segment index)` (`None`: place the point linearly in its leaf), so callers
    /// whose segments are views into other data need no slice of trait objects.
    #[must_use]
    pub fn locate_with<C: ParamCurve>(
        &self,
        curve_of: impl FnOnce(usize) -> Option<C>,
        s: f64,
        accuracy: f64,
    ) -> (usize, f64) {
        let total = self.total_length();
        let count = self.segment_count();
        if count == 0 || !is_positive(total) {
            return (0, 0.0);
        }
        if !is_positive(s) {
            return (0, 0.0);
        }
        if s >= total {
            return (count - 1, 1.0);
        }
        // The first start beyond s is at most the total (index count), so j < count.
        let j = self
            .segment_starts
            .partition_point(|&start| start <= s)
            .saturating_sub(1)
            .min(count - 1);
        let leaves = self.leaves_of(j);
        let k = leaves
            .partition_point(|leaf| leaf.start <= s)
            .saturating_sub(1);
        let Some(leaf) = leaves.get(k) else {
            return (j, 0.0);
        };
        let end = self.leaf_end(j, leaves, k);
        let length = end - leaf.start;
        let target = s - leaf.start;
        let u = match curve_of(j) {
            Some(curve) => {
                let accuracy = LeafAccuracy {
                    accuracy: if accuracy >= MIN_ACCURACY {
                        accuracy
                    } else {
                        MIN_ACCURACY
                    },
                    reference: total,
                };
                solve_in_leaf(&curve, (leaf.u0, leaf.u1), length, target, accuracy)
            }
            None if length > 0.0 => leaf.u0 + (leaf.u1 - leaf.u0) * (target / length),
            None => leaf.u0,
        };
        (j, clamp_unit(u))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::CubicBezier;

    /// A straight line from `from` to `to` with speed profile u ↦ u + k·u² (normalized), 2D.
    struct Line {
        from: [f64; 2],
        to: [f64; 2],
    }

    impl ParamCurve for Line {
        fn dims(&self) -> usize {
            2
        }
        fn eval(&self, u: f64, out: &mut [f64]) {
            for (k, o) in out.iter_mut().enumerate() {
                *o = self.from[k] + u * (self.to[k] - self.from[k]);
            }
        }
        fn derivative(&self, _u: f64, out: &mut [f64]) {
            for (k, o) in out.iter_mut().enumerate() {
                *o = self.to[k] - self.from[k];
            }
        }
    }

    /// A curve that reports NaN.
    struct Broken;

    impl ParamCurve for Broken {
        fn dims(&self) -> usize {
            2
        }
        fn eval(&self, _u: f64, out: &mut [f64]) {
            out.fill(f64::NAN);
        }
        fn derivative(&self, u: f64, out: &mut [f64]) {
            out.fill(if u > 0.5 { f64::NAN } else { 1.0 });
        }
    }

    /// A curve with 5 components.
    struct TooWide;

    impl ParamCurve for TooWide {
        fn dims(&self) -> usize {
            5
        }
        fn eval(&self, _u: f64, out: &mut [f64]) {
            out.fill(0.0);
        }
        fn derivative(&self, _u: f64, out: &mut [f64]) {
            out.fill(1.0);
        }
    }

    #[test]
    fn gauss_legendre_8_integrates_degree_15_exactly() {
        // ∫ x^k over [−1, 1] = 2/(k + 1) for even k, 0 for odd k.
        for k in 0..=15 {
            let mut sum = 0.0;
            for (&x, &w) in GAUSS_LEGENDRE_8_NODES.iter().zip(&GAUSS_LEGENDRE_8_WEIGHTS) {
                sum += w * (math::powi(x, k) + math::powi(-x, k));
            }
            let exact = if k % 2 == 0 {
                2.0 / f64::from(k + 1)
            } else {
                0.0
            };
            assert!(
                math::abs(sum - exact) <= 4e-16,
                "degree {k}: {sum} vs {exact}"
            );
        }
    }

    #[test]
    fn norm_survives_huge_and_tiny_components() {
        assert_eq!(euclidean_norm(&[3.0, 4.0]), 5.0);
        assert_eq!(euclidean_norm(&[0.0, 0.0, 0.0]), 0.0);
        let huge = euclidean_norm(&[3e200, 4e200]);
        assert!(math::abs(huge / 5e200 - 1.0) < 1e-15, "{huge}");
        let tiny = euclidean_norm(&[3e-200, 4e-200]);
        assert!(math::abs(tiny / 5e-200 - 1.0) < 1e-15, "{tiny}");
        assert!(euclidean_norm(&[f64::NAN, 1.0]).is_nan());
        assert_eq!(euclidean_norm(&[f64::INFINITY, 1.0]), f64::INFINITY);
    }

    #[test]
    fn line_length_and_inverse_are_exact() {
        let line = Line {
            from: [1.0, 2.0],
            to: [4.0, 6.0],
        };
        let length = arclen(&line, 0.0, 1.0, DEFAULT_ACCURACY).unwrap_or(f64::NAN);
        assert!(math::abs(length - 5.0) < 1e-14, "{length}");
        let part = arclen(&line, 0.75, 0.25, DEFAULT_ACCURACY).unwrap_or(f64::NAN);
        assert!(math::abs(part - 2.5) < 1e-14, "{part}");
        for s in [0.0, 1.0, 2.5, 4.999, 5.0] {
            let u = inv_arclen(&line, s, DEFAULT_ACCURACY).unwrap_or(f64::NAN);
            assert!(math::abs(u - s / 5.0) < 1e-9, "s = {s}: u = {u}");
        }
        assert_eq!(inv_arclen(&line, -1.0, DEFAULT_ACCURACY), Ok(0.0));
        assert_eq!(inv_arclen(&line, f64::NAN, DEFAULT_ACCURACY), Ok(0.0));
        assert_eq!(inv_arclen(&line, 7.0, DEFAULT_ACCURACY), Ok(1.0));
    }

    #[test]
    fn zero_length_curve_gives_zero_everywhere() {
        let point = Line {
            from: [1.0, 1.0],
            to: [1.0, 1.0],
        };
        assert_eq!(arclen(&point, 0.0, 1.0, DEFAULT_ACCURACY), Ok(0.0));
        assert_eq!(inv_arclen(&point, 0.5, DEFAULT_ACCURACY), Ok(0.0));
        assert_eq!(arclen_simpson(&point, 0.0, 1.0, 10), 0.0);
    }

    #[test]
    fn bad_arguments_are_reported() {
        let line = Line {
            from: [0.0, 0.0],
            to: [1.0, 0.0],
        };
        for accuracy in [0.0, -1e-9, f64::NAN, f64::INFINITY, 1e-14] {
            assert!(matches!(
                arclen(&line, 0.0, 1.0, accuracy),
                Err(ArcLengthError::InvalidAccuracy { .. })
            ));
        }
        assert!(matches!(
            arclen(&line, f64::NAN, 1.0, 1e-6),
            Err(ArcLengthError::NonFinite { segment: 0, .. })
        ));
        let broken = arclen(&Broken, 0.0, 1.0, 1e-6);
        assert!(
            matches!(broken, Err(ArcLengthError::NonFinite { segment: 0, u }) if u > 0.5),
            "{broken:?}"
        );
        assert_eq!(
            arclen(&TooWide, 0.0, 1.0, 1e-6),
            Err(ArcLengthError::UnsupportedDimension {
                segment: 0,
                dims: 5
            })
        );
        let table = ArcLengthTable::build(&[&line, &Broken], 1e-6);
        assert!(matches!(
            table,
            Err(ArcLengthError::NonFinite { segment: 1, .. })
        ));
    }

    #[test]
    fn simpson_rounds_intervals_up_to_even() {
        let line = Line {
            from: [0.0, 0.0],
            to: [3.0, 4.0],
        };
        for n in [0, 1, 2, 3, 7] {
            assert!(math::abs(arclen_simpson(&line, 0.0, 1.0, n) - 5.0) < 1e-14);
        }
    }

    /// Straight Bezier from `from` to `to` with control points at fractions `f1`, `f2`.
    fn straight_bezier(from: [f64; 2], to: [f64; 2], f1: f64, f2: f64) -> CubicBezier<2> {
        let at = |f: f64| {
            [
                from[0] + f * (to[0] - from[0]),
                from[1] + f * (to[1] - from[1]),
            ]
        };
        CubicBezier::new(from, at(f1), at(f2), to)
    }

    #[test]
    fn eased_ends_stay_cheap() {
        // p1 = p0 and p2 = p3: the speed is 0 at both ends (an ease-in-out key pair). A stop at
        // an interval's end is no cusp, so it must not drive the subdivision to the depth cap.
        let eased = straight_bezier([0.0, 0.0], [3.0, 4.0], 0.0, 1.0);
        let curved = CubicBezier::new([0.0, 0.0], [0.0, 0.0], [1.0, 2.0], [3.0, 2.0]);
        let segments: [&dyn ParamCurve; 2] = [&eased, &curved];
        let table = ArcLengthTable::build(&segments, 1e-10);
        let Ok(table) = table else {
            panic!("{table:?}");
        };
        assert!(table.leaves.len() <= 24, "{} leaves", table.leaves.len());
        assert!(math::abs(table.segment_start(1) - 5.0) < 5e-10);
    }

    #[test]
    fn a_cusp_is_split_about_log2_of_the_accuracy_times() {
        // The cusp of (0,0), (1,1), (0,1), (1,0) is at u = 1/2, a node-free interval boundary:
        // nothing to resolve there. Shifted by a third it sits inside intervals.
        let cusp = CubicBezier::new([0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]);
        let (_, right) = cusp.split(0.2);
        let segments: [&dyn ParamCurve; 1] = [&right];
        for accuracy in [1e-6, 1e-10, MIN_ACCURACY] {
            let table = ArcLengthTable::build(&segments, accuracy);
            let Ok(table) = table else {
                panic!("{table:?}");
            };
            let leaves = table.leaves.len();
            assert!(leaves <= 2 * 50, "{leaves} leaves at {accuracy:e}");
        }
    }

    #[test]
    fn empty_table() {
        let table = ArcLengthTable::build(&[], DEFAULT_ACCURACY);
        let Ok(table) = table else {
            panic!("{table:?}");
        };
        assert_eq!(table.total_length(), 0.0);
        assert_eq!(table.segment_count(), 0);
        assert_eq!(table.locate(&[], 1.0, DEFAULT_ACCURACY), (0, 0.0));
        assert_eq!(table.length_at(&[], 3, 0.5), 0.0);
    }
}
