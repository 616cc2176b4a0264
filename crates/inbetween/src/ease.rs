//! Easing functions: the named eases, CSS `cubic-bezier()` and `steps()`, with derivatives and exact polynomial pieces.
//!
//! An ease is a function e on [0, 1] that re-times a segment: the segment is drawn at u' = e(u)
//! instead of u. The formulas are the ones in the animation document spec (section EASE), which win
//! over other published variants of the same name:
//!
//! - `linear` u, `smoothstep` 3u² − 2u³, `smootherstep` 6u⁵ − 15u⁴ + 10u³;
//! - Robert Penner's easing equations (*Programming Macromedia Flash MX*, 2002, chapter 7) as the
//!   families `in_X`, `out_X`, `in_out_X` ([`PennerFamily`], [`EaseDirection`]), with
//!   `out_X(u) = 1 − in_X(1 − u)` and `in_out_X(u) = in_X(2u)/2` for u < 1/2, else
//!   `1 − in_X(2 − 2u)/2` — including `in_out_back`, which is this general rule applied to `in_back`
//!   and not Penner's variant with the overshoot scaled by 1.525;
//! - CSS Easing Functions Level 1: `cubic-bezier(x1, y1, x2, y2)` ([`CubicBezierEase`]) and
//!   `steps(n, jump)` ([`Steps`]).
//!
//! Every ease here except the `steps` that jump at the start has e(0) = 0 and e(1) = 1 exactly.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::f64::consts::{FRAC_PI_2, LN_2, PI};

use crate::math;

/// The overshoot constant c of the `back` family: in_back(u) = (c + 1)u³ − cu² (Penner's 1.70158,
/// about a 10% overshoot).
pub const BACK_OVERSHOOT: f64 = 1.70158;

/// Angular frequency of the `elastic` family: in_elastic(u) = −2^(10u − 10)·sin((10u − 10.75)·ω)
/// with ω = 2π/3.
const ELASTIC_OMEGA: f64 = 2.0 * PI / 3.0;

/// The bounce curve's scale, 7.5625 = 2.75², which makes neighbouring arcs of B meet at B = 1.
const BOUNCE_SCALE: f64 = 7.5625;

/// The bounce curve's breakpoint divisor.
const BOUNCE_DIVISOR: f64 = 2.75;

/// Largest residual |x(t) − x| that [`CubicBezierEase::t_at_x`] accepts; the solver normally ends
/// far below it, near the rounding error of evaluating x(t).
pub const BEZIER_X_TOLERANCE: f64 = 1e-12;

/// Newton steps smaller than this (in t) end [`CubicBezierEase::t_at_x`]'s Newton phase.
const BEZIER_T_STEP_TOLERANCE: f64 = 1e-15;

/// Newton iterations tried before bisection takes over.
const BEZIER_NEWTON_ITERATIONS: usize = 12;

/// Bisection iterations at most; 64 halvings of [0, 1] go below the spacing of f64 near any t
/// that matters.
const BEZIER_BISECTION_ITERATIONS: usize = 64;

/// An error in the parameters of a parametric ease.
#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum EaseError {
    /// A `cubic_bezier` control coordinate is NaN or infinite.
    #[error("cubic_bezier {parameter} must be finite, found {found}")]
    NonFiniteControl {
        /// Which coordinate: `x1`, `y1`, `x2` or `y2`.
        parameter: &'static str,
        /// The value given.
        found: f64,
    },
    /// A `cubic_bezier` x coordinate is outside [0, 1], so x(t) would not be monotonic.
    #[error("cubic_bezier {parameter} must be in [0, 1], found {found}")]
    ControlXOutOfRange {
        /// Which coordinate: `x1` or `x2`.
        parameter: &'static str,
        /// The value given.
        found: f64,
    },
    /// A `steps` ease with no steps.
    #[error("steps count must be at least 1, found 0")]
    ZeroSteps,
    /// A `steps(n, jump_none)` ease with n < 2 (its values are i / (n − 1)).
    #[error("steps with jump_none needs a count of at least 2, found {found}")]
    JumpNoneTooFewSteps {
        /// The count given.
        found: u32,
    },
}

/// One of Penner's ten easing families; `in_X` of each is given by [`PennerFamily::ease_in`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PennerFamily {
    /// in_quad(u) = u².
    Quad,
    /// in_cubic(u) = u³.
    Cubic,
    /// in_quart(u) = u⁴.
    Quart,
    /// in_quint(u) = u⁵.
    Quint,
    /// in_sine(u) = 1 − cos(πu/2).
    Sine,
    /// in_expo(u) = 2^(10u − 10), and exactly 0 at u = 0.
    Expo,
    /// in_circ(u) = 1 − √(1 − u²).
    Circ,
    /// in_back(u) = (c + 1)u³ − cu² with c = [`BACK_OVERSHOOT`].
    Back,
    /// in_elastic(u) = −2^(10u − 10)·sin((10u − 10.75)·2π/3), exactly 0 at u = 0 and 1 at u = 1.
    Elastic,
    /// in_bounce(u) = 1 − B(1 − u), with B the bounce curve (see [`bounce_out`]).
    Bounce,
}

impl PennerFamily {
    /// All ten families, in the order of the spec.
    pub const ALL: [PennerFamily; 10] = [
        PennerFamily::Quad,
        PennerFamily::Cubic,
        PennerFamily::Quart,
        PennerFamily::Quint,
        PennerFamily::Sine,
        PennerFamily::Expo,
        PennerFamily::Circ,
        PennerFamily::Back,
        PennerFamily::Elastic,
        PennerFamily::Bounce,
    ];

    /// The family's name as used in ease names: `quad`, `cubic`, `quart`, `quint`, `sine`, `expo`,
    /// `circ`, `back`, `elastic`, `bounce`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PennerFamily::Quad => "quad",
            PennerFamily::Cubic => "cubic",
            PennerFamily::Quart => "quart",
            PennerFamily::Quint => "quint",
            PennerFamily::Sine => "sine",
            PennerFamily::Expo => "expo",
            PennerFamily::Circ => "circ",
            PennerFamily::Back => "back",
            PennerFamily::Elastic => "elastic",
            PennerFamily::Bounce => "bounce",
        }
    }

    /// The family with this [`name`](Self::name), if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<PennerFamily> {
        PennerFamily::ALL.into_iter().find(|f| f.name() == name)
    }

    /// in_X(u), the family's ease-in curve, as in the spec. `u` is clamped to [0, 1];
    /// in_X(0) = 0 and in_X(1) = 1 exactly.
    #[must_use]
    pub fn ease_in(self, u: f64) -> f64 {
        let u = clamp_unit(u);
        if u <= 0.0 {
            return 0.0;
        }
        if u >= 1.0 {
            return 1.0;
        }
        match self {
            PennerFamily::Quad => u * u,
            PennerFamily::Cubic => u * u * u,
            PennerFamily::Quart => math::powi(u, 4),
            PennerFamily::Quint => math::powi(u, 5),
            PennerFamily::Sine => 1.0 - math::cos(u * FRAC_PI_2),
            PennerFamily::Expo => math::exp2(10.0 * u - 10.0),
            PennerFamily::Circ => 1.0 - math::sqrt((1.0 - u * u).max(0.0)),
            PennerFamily::Back => {
                let c = BACK_OVERSHOOT;
                (c + 1.0) * u * u * u - c * u * u
            }
            PennerFamily::Elastic => {
                -math::exp2(10.0 * u - 10.0) * math::sin((10.0 * u - 10.75) * ELASTIC_OMEGA)
            }
            PennerFamily::Bounce => 1.0 - bounce_out(1.0 - u),
        }
    }

    /// d in_X / du, in closed form. `u` is clamped to [0, 1]. Where in_X is not differentiable
    /// (in_expo's jump at 0) this is the one-sided derivative of the smooth part; in_circ's slope
    /// is infinite at u = 1 and in_bounce's is one-sided at its three kinks.
    #[must_use]
    pub fn ease_in_derivative(self, u: f64) -> f64 {
        let u = clamp_unit(u);
        match self {
            PennerFamily::Quad => 2.0 * u,
            PennerFamily::Cubic => 3.0 * u * u,
            PennerFamily::Quart => 4.0 * u * u * u,
            PennerFamily::Quint => 5.0 * math::powi(u, 4),
            PennerFamily::Sine => FRAC_PI_2 * math::sin(u * FRAC_PI_2),
            PennerFamily::Expo => 10.0 * LN_2 * math::exp2(10.0 * u - 10.0),
            PennerFamily::Circ => {
                let rest = 1.0 - u * u;
                if rest > 0.0 {
                    u / math::sqrt(rest)
                } else {
                    f64::INFINITY
                }
            }
            PennerFamily::Back => {
                let c = BACK_OVERSHOOT;
                3.0 * (c + 1.0) * u * u - 2.0 * c * u
            }
            PennerFamily::Elastic => {
                let amplitude = math::exp2(10.0 * u - 10.0);
                let phase = (10.0 * u - 10.75) * ELASTIC_OMEGA;
                -amplitude
                    * (10.0 * LN_2 * math::sin(phase) + 10.0 * ELASTIC_OMEGA * math::cos(phase))
            }
            PennerFamily::Bounce => bounce_out_derivative(1.0 - u),
        }
    }

    /// The family in the given direction at `u` (clamped to [0, 1]):
    /// in_X(u), 1 − in_X(1 − u), or in_X(2u)/2 for u < 1/2 and 1 − in_X(2 − 2u)/2 otherwise.
    #[must_use]
    pub fn eval(self, direction: EaseDirection, u: f64) -> f64 {
        let u = clamp_unit(u);
        match direction {
            EaseDirection::In => self.ease_in(u),
            EaseDirection::Out => 1.0 - self.ease_in(1.0 - u),
            EaseDirection::InOut => {
                if u < 0.5 {
                    self.ease_in(2.0 * u) / 2.0
                } else {
                    1.0 - self.ease_in(2.0 - 2.0 * u) / 2.0
                }
            }
        }
    }

    /// d/du of [`eval`](Self::eval): in_X′(u), in_X′(1 − u), or in_X′(2u) for u < 1/2 and
    /// in_X′(2 − 2u) otherwise. `u` is clamped to [0, 1].
    #[must_use]
    pub fn derivative(self, direction: EaseDirection, u: f64) -> f64 {
        let u = clamp_unit(u);
        match direction {
            EaseDirection::In => self.ease_in_derivative(u),
            EaseDirection::Out => self.ease_in_derivative(1.0 - u),
            EaseDirection::InOut => {
                if u < 0.5 {
                    self.ease_in_derivative(2.0 * u)
                } else {
                    self.ease_in_derivative(2.0 - 2.0 * u)
                }
            }
        }
    }

    /// Power-basis coefficients of in_X when it is a polynomial (quad, cubic, quart, quint, back).
    fn ease_in_coefficients(self) -> Option<Vec<f64>> {
        match self {
            PennerFamily::Quad => Some(vec![0.0, 0.0, 1.0]),
            PennerFamily::Cubic => Some(vec![0.0, 0.0, 0.0, 1.0]),
            PennerFamily::Quart => Some(vec![0.0, 0.0, 0.0, 0.0, 1.0]),
            PennerFamily::Quint => Some(vec![0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
            PennerFamily::Back => Some(vec![0.0, 0.0, -BACK_OVERSHOOT, BACK_OVERSHOOT + 1.0]),
            PennerFamily::Sine
            | PennerFamily::Expo
            | PennerFamily::Circ
            | PennerFamily::Elastic
            | PennerFamily::Bounce => None,
        }
    }
}

/// Penner's bounce curve B(x) (the `out_bounce` ease), four parabolic arcs:
/// 7.5625x² for x < 1/2.75, 7.5625(x − 1.5/2.75)² + 0.75 for x < 2/2.75,
/// 7.5625(x − 2.25/2.75)² + 0.9375 for x < 2.5/2.75, else 7.5625(x − 2.625/2.75)² + 0.984375.
#[must_use]
pub fn bounce_out(x: f64) -> f64 {
    let (center, floor) = bounce_arc(x);
    let d = x - center;
    BOUNCE_SCALE * d * d + floor
}

/// dB/dx of [`bounce_out`], one-sided (from the arc that contains `x`) at the breakpoints.
#[must_use]
fn bounce_out_derivative(x: f64) -> f64 {
    let (center, _) = bounce_arc(x);
    2.0 * BOUNCE_SCALE * (x - center)
}

/// The arc of B that contains `x`: its center and the value at its center.
fn bounce_arc(x: f64) -> (f64, f64) {
    if x < 1.0 / BOUNCE_DIVISOR {
        (0.0, 0.0)
    } else if x < 2.0 / BOUNCE_DIVISOR {
        (1.5 / BOUNCE_DIVISOR, 0.75)
    } else if x < 2.5 / BOUNCE_DIVISOR {
        (2.25 / BOUNCE_DIVISOR, 0.9375)
    } else {
        (2.625 / BOUNCE_DIVISOR, 0.984375)
    }
}

/// Which end of the segment a Penner family eases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EaseDirection {
    /// in_X: slow start.
    In,
    /// out_X(u) = 1 − in_X(1 − u): slow end.
    Out,
    /// in_out_X: in_X(2u)/2 for u < 1/2, else 1 − in_X(2 − 2u)/2.
    InOut,
}

impl EaseDirection {
    /// The three directions.
    pub const ALL: [EaseDirection; 3] =
        [EaseDirection::In, EaseDirection::Out, EaseDirection::InOut];

    /// The name prefix without its underscore: `in`, `out`, `in_out`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EaseDirection::In => "in",
            EaseDirection::Out => "out",
            EaseDirection::InOut => "in_out",
        }
    }
}

/// Where a [`Steps`] ease jumps (CSS Easing Functions Level 1, `<step-position>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepJump {
    /// The first jump is at the start: values 1/n, 2/n, …, 1.
    JumpStart,
    /// The last jump is at the end: values 0, 1/n, …, (n − 1)/n (CSS's default).
    JumpEnd,
    /// No jump at either end: values 0, 1/(n − 1), …, 1 (needs n ≥ 2).
    JumpNone,
    /// Jumps at both ends: values 1/(n + 1), …, n/(n + 1).
    JumpBoth,
}

impl StepJump {
    /// The four jump kinds.
    pub const ALL: [StepJump; 4] = [
        StepJump::JumpStart,
        StepJump::JumpEnd,
        StepJump::JumpNone,
        StepJump::JumpBoth,
    ];

    /// The name used in documents: `jump_start`, `jump_end`, `jump_none`, `jump_both`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            StepJump::JumpStart => "jump_start",
            StepJump::JumpEnd => "jump_end",
            StepJump::JumpNone => "jump_none",
            StepJump::JumpBoth => "jump_both",
        }
    }

    /// The jump kind with this [`name`](Self::name), if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<StepJump> {
        StepJump::ALL.into_iter().find(|j| j.name() == name)
    }
}

/// CSS's `cubic-bezier(x1, y1, x2, y2)` timing function (CSS Easing Functions Level 1): the
/// cubic Bezier from (0, 0) to (1, 1) with control points (x1, y1) and (x2, y2), read as y over x.
///
/// In the curve parameter t: x(t) = 3(1 − t)²t·x1 + 3(1 − t)t²·x2 + t³ and likewise y(t). With x1
/// and x2 in [0, 1], x(t) is strictly increasing on [0, 1], so each x has exactly one t; y1 and y2
/// may be any finite numbers (outside [0, 1] the ease overshoots).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicBezierEase {
    x1: f64,
    y1: f64,
    x2: f64,
    y2: f64,
}

impl CubicBezierEase {
    /// A cubic-bezier ease. All four numbers must be finite and `x1`, `x2` must be in [0, 1].
    ///
    /// # Errors
    ///
    /// [`EaseError::NonFiniteControl`] for a NaN or infinite coordinate,
    /// [`EaseError::ControlXOutOfRange`] for `x1` or `x2` outside [0, 1].
    pub fn new(x1: f64, y1: f64, x2: f64, y2: f64) -> Result<CubicBezierEase, EaseError> {
        for (parameter, found) in [("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2)] {
            if !found.is_finite() {
                return Err(EaseError::NonFiniteControl { parameter, found });
            }
        }
        for (parameter, found) in [("x1", x1), ("x2", x2)] {
            if !(0.0..=1.0).contains(&found) {
                return Err(EaseError::ControlXOutOfRange { parameter, found });
            }
        }
        Ok(CubicBezierEase { x1, y1, x2, y2 })
    }

    /// x of the first control point.
    #[inline]
    #[must_use]
    pub fn x1(&self) -> f64 {
        self.x1
    }

    /// y of the first control point.
    #[inline]
    #[must_use]
    pub fn y1(&self) -> f64 {
        self.y1
    }

    /// x of the second control point.
    #[inline]
    #[must_use]
    pub fn x2(&self) -> f64 {
        self.x2
    }

    /// y of the second control point.
    #[inline]
    #[must_use]
    pub fn y2(&self) -> f64 {
        self.y2
    }

    /// x(t) = 3(1 − t)²t·x1 + 3(1 − t)t²·x2 + t³ (Bernstein form; t is not clamped).
    #[inline]
    #[must_use]
    pub fn x_at_t(&self, t: f64) -> f64 {
        unit_bezier(self.x1, self.x2, t)
    }

    /// y(t) = 3(1 − t)²t·y1 + 3(1 − t)t²·y2 + t³ (Bernstein form; t is not clamped).
    #[inline]
    #[must_use]
    pub fn y_at_t(&self, t: f64) -> f64 {
        unit_bezier(self.y1, self.y2, t)
    }

    /// dx/dt = 3(1 − t)²·x1 + 6(1 − t)t·(x2 − x1) + 3t²·(1 − x2).
    #[inline]
    #[must_use]
    pub fn dx_dt(&self, t: f64) -> f64 {
        unit_bezier_derivative(self.x1, self.x2, t)
    }

    /// dy/dt = 3(1 − t)²·y1 + 6(1 − t)t·(y2 − y1) + 3t²·(1 − y2).
    #[inline]
    #[must_use]
    pub fn dy_dt(&self, t: f64) -> f64 {
        unit_bezier_derivative(self.y1, self.y2, t)
    }

    /// The curve parameter t in [0, 1] with x(t) = x, for `x` clamped to [0, 1] (NaN gives NaN).
    ///
    /// Safeguarded Newton's method from t = x, keeping a bracket [lo, hi] around the root; when a
    /// Newton step would leave the bracket, the slope vanishes, or Newton has not converged after
    /// 12 steps, bisection of the bracket finishes the job, down to adjacent floats (at most 64
    /// halvings). The iteration count is bounded and the result always has
    /// |x(t) − x| ≤ [`BEZIER_X_TOLERANCE`]; in practice it is within a few ulps of the root of
    /// the computed x(t). Where dx/dt vanishes inside (0, 1) (x1 = 1, x2 = 0 at t = 1/2) the
    /// inverse is ill-conditioned: t is then only as good as the cube root of the rounding error.
    #[must_use]
    pub fn t_at_x(&self, x: f64) -> f64 {
        if x.is_nan() {
            return f64::NAN;
        }
        if x <= 0.0 {
            return 0.0;
        }
        if x >= 1.0 {
            return 1.0;
        }
        let mut lo = 0.0_f64;
        let mut hi = 1.0_f64;
        let mut t = x;
        for _ in 0..BEZIER_NEWTON_ITERATIONS {
            let residual = self.x_at_t(t) - x;
            if residual == 0.0 {
                return t;
            }
            if residual < 0.0 {
                lo = t;
            } else {
                hi = t;
            }
            let slope = self.dx_dt(t);
            if slope.is_nan() || slope <= 0.0 {
                break;
            }
            let next = t - residual / slope;
            if next.is_nan() || next <= lo || next >= hi {
                break;
            }
            if math::abs(next - t) <= BEZIER_T_STEP_TOLERANCE {
                return next;
            }
            t = next;
        }
        for _ in 0..BEZIER_BISECTION_ITERATIONS {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            let residual = self.x_at_t(mid) - x;
            if residual == 0.0 {
                return mid;
            }
            if residual < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        if math::abs(self.x_at_t(lo) - x) <= math::abs(self.x_at_t(hi) - x) {
            lo
        } else {
            hi
        }
    }

    /// The ease's value: y(t) where x(t) = x (see [`t_at_x`](Self::t_at_x)); `x` is clamped to
    /// [0, 1], and y_at_x(0) = 0, y_at_x(1) = 1 exactly.
    #[must_use]
    pub fn y_at_x(&self, x: f64) -> f64 {
        if x.is_nan() {
            return f64::NAN;
        }
        if x <= 0.0 {
            return 0.0;
        }
        if x >= 1.0 {
            return 1.0;
        }
        self.y_at_t(self.t_at_x(x))
    }

    /// dy/dx at `x` (clamped to [0, 1]): (dy/dt)/(dx/dt) at the t of [`t_at_x`](Self::t_at_x).
    /// Where dx/dt = 0 (at an end with x1 = 0 or x2 = 1) this is the limit by l'Hôpital's rule
    /// from the second or third derivatives, or ±∞ when y still moves.
    #[must_use]
    pub fn slope_at_x(&self, x: f64) -> f64 {
        let t = self.t_at_x(clamp_unit(x));
        let dx = self.dx_dt(t);
        let dy = self.dy_dt(t);
        if dx != 0.0 {
            return dy / dx;
        }
        if dy != 0.0 {
            return signed_infinity(dy);
        }
        // Second derivatives: 6[(1 − t)(p2 − 2p1) + t(1 − 2p2 + p1)].
        let ddx =
            6.0 * ((1.0 - t) * (self.x2 - 2.0 * self.x1) + t * (1.0 - 2.0 * self.x2 + self.x1));
        let ddy =
            6.0 * ((1.0 - t) * (self.y2 - 2.0 * self.y1) + t * (1.0 - 2.0 * self.y2 + self.y1));
        if ddx != 0.0 {
            return ddy / ddx;
        }
        if ddy != 0.0 {
            return signed_infinity(ddy);
        }
        // Third derivatives: 6(1 − 3p2 + 3p1); dx/dt, d²x/dt² and d³x/dt³ cannot all vanish.
        let dddx = 6.0 * (1.0 - 3.0 * self.x2 + 3.0 * self.x1);
        let dddy = 6.0 * (1.0 - 3.0 * self.y2 + 3.0 * self.y1);
        dddy / dddx
    }
}

/// The Bernstein cubic with control values 0, `p1`, `p2`, 1.
#[inline]
fn unit_bezier(p1: f64, p2: f64, t: f64) -> f64 {
    let s = 1.0 - t;
    3.0 * s * t * (s * p1 + t * p2) + t * t * t
}

/// d/dt of [`unit_bezier`].
#[inline]
fn unit_bezier_derivative(p1: f64, p2: f64, t: f64) -> f64 {
    let s = 1.0 - t;
    3.0 * s * s * p1 + 6.0 * s * t * (p2 - p1) + 3.0 * t * t * (1.0 - p2)
}

/// +∞ for positive `x`, −∞ otherwise.
#[inline]
fn signed_infinity(x: f64) -> f64 {
    if x > 0.0 {
        f64::INFINITY
    } else {
        f64::NEG_INFINITY
    }
}

/// `u` clamped to [0, 1]; NaN stays NaN.
#[inline]
fn clamp_unit(u: f64) -> f64 {
    u.clamp(0.0, 1.0)
}

/// CSS's `steps(n, jump)` timing function (CSS Easing Functions Level 1) with the step index
/// taken from frames as the spec says: ⌊(f − f_i)·n / N_i⌋, multiplied and divided in that order so
/// that integer frames land exactly on steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Steps {
    count: u32,
    jump: StepJump,
}

impl Steps {
    /// `steps(count, jump)`.
    ///
    /// # Errors
    ///
    /// [`EaseError::ZeroSteps`] for `count` = 0, [`EaseError::JumpNoneTooFewSteps`] for
    /// `jump_none` with `count` < 2.
    pub fn new(count: u32, jump: StepJump) -> Result<Steps, EaseError> {
        if count == 0 {
            return Err(EaseError::ZeroSteps);
        }
        if jump == StepJump::JumpNone && count < 2 {
            return Err(EaseError::JumpNoneTooFewSteps { found: count });
        }
        Ok(Steps { count, jump })
    }

    /// The number of steps n.
    #[inline]
    #[must_use]
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Where the jumps are.
    #[inline]
    #[must_use]
    pub fn jump(&self) -> StepJump {
        self.jump
    }

    /// The divisor of the step index: n for `jump_end` and `jump_start`, n + 1 for `jump_both`,
    /// n − 1 for `jump_none`.
    #[inline]
    #[must_use]
    pub fn divisor(&self) -> u64 {
        let n = u64::from(self.count);
        match self.jump {
            StepJump::JumpStart | StepJump::JumpEnd => n,
            StepJump::JumpBoth => n + 1,
            StepJump::JumpNone => n.saturating_sub(1).max(1),
        }
    }

    /// The step index at `offset_frames` = f − f_i into a segment of `length_frames` = N_i frames;
    /// the value is this index divided by [`divisor`](Self::divisor).
    ///
    /// Inside the segment (offset < length) the index is ⌊offset·n / length⌋, computed in that
    /// order and clamped to [0, n − 1], plus 1 for `jump_start` and `jump_both`. At or past the end
    /// (offset ≥ length) the ease is complete and the index is the divisor, so the value is 1 as
    /// in CSS (e(1) = 1 for every jump kind). `length_frames` should be positive; a negative
    /// offset counts as 0, and a NaN offset or length as the start.
    #[must_use]
    pub fn index_at(&self, offset_frames: f64, length_frames: f64) -> u64 {
        if offset_frames >= length_frames {
            return self.divisor();
        }
        let n = self.count;
        let raw = math::floor(offset_frames * f64::from(n) / length_frames);
        let step = if raw > 0.0 {
            // `raw` is a non-negative integer below n here, so the cast is exact.
            if raw >= f64::from(n - 1) {
                u64::from(n - 1)
            } else {
                raw as u64
            }
        } else {
            0
        };
        let step = match self.jump {
            StepJump::JumpStart | StepJump::JumpBoth => step + 1,
            StepJump::JumpEnd | StepJump::JumpNone => step,
        };
        step.min(self.divisor())
    }

    /// The ease's value at `offset_frames` into a segment of `length_frames`:
    /// [`index_at`](Self::index_at) / [`divisor`](Self::divisor).
    #[must_use]
    pub fn value_at(&self, offset_frames: f64, length_frames: f64) -> f64 {
        self.index_at(offset_frames, length_frames) as f64 / self.divisor() as f64
    }
}

/// One piece of a piecewise-polynomial ease: e(u) = Σ coeffs\[k\]·u^k for `start` ≤ u < `end` (the
/// last piece also covers u = `end` = 1). The coefficients are in the segment's u, not in
/// u − start.
#[derive(Clone, Debug, PartialEq)]
pub struct EasePiece {
    /// First u of the piece.
    pub start: f64,
    /// End of the piece (excluded, except 1 for the last piece).
    pub end: f64,
    /// Power-basis coefficients c0, c1, … in u.
    pub coeffs: Vec<f64>,
}

impl EasePiece {
    /// Σ coeffs\[k\]·u^k by Horner's rule.
    #[must_use]
    pub fn eval(&self, u: f64) -> f64 {
        self.coeffs.iter().rev().fold(0.0, |acc, &c| acc * u + c)
    }
}

/// An ease: a function e on [0, 1] that re-times a segment (the spec's EASE).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Ease {
    /// e(u) = u.
    #[default]
    Linear,
    /// e(u) = 3u² − 2u³.
    Smoothstep,
    /// e(u) = 6u⁵ − 15u⁴ + 10u³.
    Smootherstep,
    /// One of Penner's eases, `in_X`, `out_X` or `in_out_X`.
    Penner(EaseDirection, PennerFamily),
    /// CSS `cubic-bezier(x1, y1, x2, y2)`.
    CubicBezier(CubicBezierEase),
    /// CSS `steps(n, jump)`.
    Steps(Steps),
}

/// Every named ease, in the order `linear`, `smoothstep`, `smootherstep`, then `in_X`, `out_X`,
/// `in_out_X` for each family in [`PennerFamily::ALL`] order.
const NAMED_EASES: [&str; 33] = [
    "linear",
    "smoothstep",
    "smootherstep",
    "in_quad",
    "out_quad",
    "in_out_quad",
    "in_cubic",
    "out_cubic",
    "in_out_cubic",
    "in_quart",
    "out_quart",
    "in_out_quart",
    "in_quint",
    "out_quint",
    "in_out_quint",
    "in_sine",
    "out_sine",
    "in_out_sine",
    "in_expo",
    "out_expo",
    "in_out_expo",
    "in_circ",
    "out_circ",
    "in_out_circ",
    "in_back",
    "out_back",
    "in_out_back",
    "in_elastic",
    "out_elastic",
    "in_out_elastic",
    "in_bounce",
    "out_bounce",
    "in_out_bounce",
];

impl Ease {
    /// The ease with this name: a named ease (`linear`, `smoothstep`, `smootherstep`, `in_X`,
    /// `out_X`, `in_out_X`), or the forms [`name`](Self::name) gives the parametric eases,
    /// `cubic_bezier(x1, y1, x2, y2)` and `steps(n, jump)` (`steps(n)` means `jump_end`).
    /// `None` for anything else, including invalid parameters.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Ease> {
        match name {
            "linear" => return Some(Ease::Linear),
            "smoothstep" => return Some(Ease::Smoothstep),
            "smootherstep" => return Some(Ease::Smootherstep),
            _ => {}
        }
        if let Some(args) = parse_call(name, "cubic_bezier") {
            let mut numbers = [0.0; 4];
            let mut parts = args.split(',');
            for number in &mut numbers {
                *number = parts.next()?.trim().parse::<f64>().ok()?;
            }
            if parts.next().is_some() {
                return None;
            }
            let [x1, y1, x2, y2] = numbers;
            return CubicBezierEase::new(x1, y1, x2, y2)
                .ok()
                .map(Ease::CubicBezier);
        }
        if let Some(args) = parse_call(name, "steps") {
            let mut parts = args.split(',');
            let count = parts.next()?.trim().parse::<u32>().ok()?;
            let jump = match parts.next() {
                Some(jump) => StepJump::from_name(jump.trim())?,
                None => StepJump::JumpEnd,
            };
            if parts.next().is_some() {
                return None;
            }
            return Steps::new(count, jump).ok().map(Ease::Steps);
        }
        let (direction, family) = if let Some(rest) = name.strip_prefix("in_out_") {
            (EaseDirection::InOut, rest)
        } else if let Some(rest) = name.strip_prefix("in_") {
            (EaseDirection::In, rest)
        } else if let Some(rest) = name.strip_prefix("out_") {
            (EaseDirection::Out, rest)
        } else {
            return None;
        };
        PennerFamily::from_name(family).map(|family| Ease::Penner(direction, family))
    }

    /// The ease's name, the inverse of [`from_name`](Self::from_name): the named eases by name,
    /// `cubic_bezier(x1, y1, x2, y2)` and `steps(n, jump)` (numbers in shortest round-trip form).
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Ease::Linear => String::from("linear"),
            Ease::Smoothstep => String::from("smoothstep"),
            Ease::Smootherstep => String::from("smootherstep"),
            Ease::Penner(direction, family) => format!("{}_{}", direction.name(), family.name()),
            Ease::CubicBezier(b) => {
                format!("cubic_bezier({}, {}, {}, {})", b.x1, b.y1, b.x2, b.y2)
            }
            Ease::Steps(s) => format!("steps({}, {})", s.count, s.jump.name()),
        }
    }

    /// The names of all 33 named eases (`linear`, `smoothstep`, `smootherstep` and the 30 Penner
    /// eases); each one gives `Some` from [`from_name`](Self::from_name).
    #[must_use]
    pub fn names() -> &'static [&'static str] {
        &NAMED_EASES
    }

    /// e(u), with `u` clamped to [0, 1] (NaN gives NaN). `steps` uses ⌊u·n⌋, the same rule as
    /// [`Steps::value_at`] with offset u and length 1.
    #[must_use]
    pub fn at(&self, u: f64) -> f64 {
        let u = clamp_unit(u);
        match self {
            Ease::Linear => u,
            Ease::Smoothstep => u * u * (3.0 - 2.0 * u),
            Ease::Smootherstep => u * u * u * (u * (6.0 * u - 15.0) + 10.0),
            Ease::Penner(direction, family) => family.eval(*direction, u),
            Ease::CubicBezier(b) => b.y_at_x(u),
            Ease::Steps(s) => s.value_at(u, 1.0),
        }
    }

    /// The spec's rule for a frame `offset` frames into a segment of `length` frames: `steps` take
    /// the step index from the frames ([`Steps::value_at`]), so integer frames land exactly on
    /// steps; every other ease is [`at`](Self::at)(offset / length). At or past the end
    /// (offset ≥ length, also for a zero length) the value is e(1).
    #[must_use]
    pub fn at_offset(&self, offset: f64, length: f64) -> f64 {
        match self {
            Ease::Steps(s) => s.value_at(offset, length),
            _ if offset >= length => self.at(1.0),
            _ => self.at(offset / length),
        }
    }

    /// Whether e(0) ≠ 0: `steps` with `jump_start` or `jump_both`.
    #[must_use]
    pub fn jumps_at_start(&self) -> bool {
        matches!(
            self,
            Ease::Steps(Steps {
                jump: StepJump::JumpStart | StepJump::JumpBoth,
                ..
            })
        )
    }

    /// de/du at `u` (clamped to [0, 1]), in closed form where e is smooth: 1 for `linear`,
    /// 6u − 6u² for `smoothstep`, 30u⁴ − 60u³ + 30u² for `smootherstep`, the chain rule on
    /// in_X′ for the Penner eases ([`PennerFamily::derivative`]), (dy/dt)/(dx/dt) for
    /// `cubic_bezier` ([`CubicBezierEase::slope_at_x`]), and 0 for `steps` (between jumps).
    #[must_use]
    pub fn derivative(&self, u: f64) -> f64 {
        let u = clamp_unit(u);
        match self {
            Ease::Linear => 1.0,
            Ease::Smoothstep => 6.0 * u * (1.0 - u),
            Ease::Smootherstep => 30.0 * u * u * (u * (u - 2.0) + 1.0),
            Ease::Penner(direction, family) => family.derivative(*direction, u),
            Ease::CubicBezier(b) => b.slope_at_x(u),
            Ease::Steps(_) => 0.0,
        }
    }

    /// The ease's exact polynomial structure, for compiling it without approximation: the pieces
    /// of a piecewise-polynomial ease (`linear`, `smoothstep`, `smootherstep`, and `in_X`,
    /// `out_X`, `in_out_X` for quad, cubic, quart, quint and back), each with power-basis
    /// coefficients in u such that e(u) = Σ c_k u^k on [start, end). One piece on [0, 1] for all
    /// but `in_out_X`, which has two, split at 1/2. `None` for the other eases.
    #[must_use]
    pub fn polynomial_pieces(&self) -> Option<Vec<EasePiece>> {
        let whole = |coeffs: Vec<f64>| {
            vec![EasePiece {
                start: 0.0,
                end: 1.0,
                coeffs,
            }]
        };
        match self {
            Ease::Linear => Some(whole(vec![0.0, 1.0])),
            Ease::Smoothstep => Some(whole(vec![0.0, 0.0, 3.0, -2.0])),
            Ease::Smootherstep => Some(whole(vec![0.0, 0.0, 0.0, 10.0, -15.0, 6.0])),
            Ease::Penner(direction, family) => {
                let ease_in = family.ease_in_coefficients()?;
                Some(match direction {
                    EaseDirection::In => whole(ease_in),
                    EaseDirection::Out => {
                        // 1 − in(1 − u)
                        whole(one_minus(compose_affine(&ease_in, 1.0, -1.0)))
                    }
                    EaseDirection::InOut => {
                        // in(2u)/2 on [0, 1/2), 1 − in(2 − 2u)/2 on [1/2, 1]
                        let first = scale(compose_affine(&ease_in, 0.0, 2.0), 0.5);
                        let second = one_minus(scale(compose_affine(&ease_in, 2.0, -2.0), 0.5));
                        vec![
                            EasePiece {
                                start: 0.0,
                                end: 0.5,
                                coeffs: first,
                            },
                            EasePiece {
                                start: 0.5,
                                end: 1.0,
                                coeffs: second,
                            },
                        ]
                    }
                })
            }
            Ease::CubicBezier(_) | Ease::Steps(_) => None,
        }
    }
}

/// The argument text of `name(args)` when `text` has that form.
fn parse_call<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.strip_prefix(name)?
        .trim_start()
        .strip_prefix('(')?
        .strip_suffix(')')
}

/// Coefficients of q(u) = p(a + b·u), by Horner's rule over polynomials.
fn compose_affine(p: &[f64], a: f64, b: f64) -> Vec<f64> {
    let mut q: Vec<f64> = vec![0.0; p.len()];
    for &c in p.iter().rev() {
        // q ← q·(a + b·u) + c
        let mut next = vec![0.0; p.len()];
        for (k, &qk) in q.iter().enumerate() {
            next[k] += a * qk;
            if k + 1 < next.len() {
                next[k + 1] += b * qk;
            }
        }
        next[0] += c;
        q = next;
    }
    q
}

/// Every coefficient times `factor`.
fn scale(mut p: Vec<f64>, factor: f64) -> Vec<f64> {
    for c in &mut p {
        *c *= factor;
    }
    p
}

/// Coefficients of 1 − p(u).
fn one_minus(mut p: Vec<f64>) -> Vec<f64> {
    for c in &mut p {
        *c = -*c;
    }
    if let Some(c0) = p.first_mut() {
        *c0 += 1.0;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    macro_rules! assert_close {
        ($left:expr, $right:expr, $tol:expr) => {
            assert_close!($left, $right, $tol, "{}", "values differ")
        };
        ($left:expr, $right:expr, $tol:expr, $($context:tt)+) => {{
            let (left, right, tol): (f64, f64, f64) = ($left, $right, $tol);
            let difference = math::abs(left - right);
            assert!(
                left == right || difference <= tol,
                "{}: left = {left:e}, right = {right:e}, difference = {difference:e} > {tol:e}",
                format!($($context)+),
            );
        }};
    }

    /// u = 0, 1/n, …, 1 plus a few awkward points.
    fn sample_points(n: u32) -> Vec<f64> {
        let mut points: Vec<f64> = (0..=n).map(|i| f64::from(i) / f64::from(n)).collect();
        points.extend([1e-9, 0.25, 0.5 - 1e-12, 0.5, 0.5 + 1e-12, 0.75, 1.0 - 1e-9]);
        points
    }

    /// in_X restated from the spec's text, independently of the library code.
    fn reference_in(family: &str, u: f64) -> f64 {
        let c = 1.70158;
        match family {
            "quad" => u * u,
            "cubic" => u * u * u,
            "quart" => u * u * u * u,
            "quint" => u * u * u * u * u,
            "sine" => 1.0 - math::cos(PI * u / 2.0),
            "expo" => {
                if u == 0.0 {
                    0.0
                } else {
                    math::powf(2.0, 10.0 * u - 10.0)
                }
            }
            "circ" => 1.0 - math::sqrt(1.0 - u * u),
            "back" => (c + 1.0) * u * u * u - c * u * u,
            "elastic" => {
                if u == 0.0 {
                    0.0
                } else if u == 1.0 {
                    1.0
                } else {
                    -math::powf(2.0, 10.0 * u - 10.0)
                        * math::sin((10.0 * u - 10.75) * (2.0 * PI / 3.0))
                }
            }
            "bounce" => {
                let x = 1.0 - u;
                let b = if x < 1.0 / 2.75 {
                    7.5625 * x * x
                } else if x < 2.0 / 2.75 {
                    7.5625 * (x - 1.5 / 2.75) * (x - 1.5 / 2.75) + 0.75
                } else if x < 2.5 / 2.75 {
                    7.5625 * (x - 2.25 / 2.75) * (x - 2.25 / 2.75) + 0.9375
                } else {
                    7.5625 * (x - 2.625 / 2.75) * (x - 2.625 / 2.75) + 0.984375
                };
                1.0 - b
            }
            other => panic!("unknown family {other}"),
        }
    }

    /// A named ease restated from the spec's text.
    fn reference(name: &str, u: f64) -> f64 {
        match name {
            "linear" => u,
            "smoothstep" => 3.0 * u * u - 2.0 * u * u * u,
            "smootherstep" => {
                6.0 * math::powi(u, 5) - 15.0 * math::powi(u, 4) + 10.0 * math::powi(u, 3)
            }
            _ => {
                if let Some(family) = name.strip_prefix("in_out_") {
                    if u < 0.5 {
                        reference_in(family, 2.0 * u) / 2.0
                    } else {
                        1.0 - reference_in(family, 2.0 - 2.0 * u) / 2.0
                    }
                } else if let Some(family) = name.strip_prefix("in_") {
                    reference_in(family, u)
                } else if let Some(family) = name.strip_prefix("out_") {
                    1.0 - reference_in(family, 1.0 - u)
                } else {
                    panic!("unknown ease {name}")
                }
            }
        }
    }

    fn named(name: &str) -> Ease {
        match Ease::from_name(name) {
            Some(ease) => ease,
            None => panic!("{name} should be a named ease"),
        }
    }

    fn bezier(x1: f64, y1: f64, x2: f64, y2: f64) -> CubicBezierEase {
        match CubicBezierEase::new(x1, y1, x2, y2) {
            Ok(b) => b,
            Err(e) => panic!("valid control points refused: {e}"),
        }
    }

    fn steps(count: u32, jump: StepJump) -> Steps {
        match Steps::new(count, jump) {
            Ok(s) => s,
            Err(e) => panic!("valid steps refused: {e}"),
        }
    }

    /// y at x by plain bisection on t with many iterations: an independent reference.
    fn bezier_reference(x1: f64, y1: f64, x2: f64, y2: f64, x: f64) -> f64 {
        let curve = |p1: f64, p2: f64, t: f64| {
            3.0 * (1.0 - t) * (1.0 - t) * t * p1 + 3.0 * (1.0 - t) * t * t * p2 + t * t * t
        };
        let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if curve(x1, x2, mid) < x {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        curve(y1, y2, 0.5 * (lo + hi))
    }

    #[test]
    fn hand_worked_values() {
        assert_eq!(Ease::Smoothstep.at(0.25), 0.15625);
        assert_eq!(Ease::Smootherstep.at(0.25), 0.103515625);
        assert_eq!(Ease::Linear.at(0.3), 0.3);
        assert_close!(named("out_quad").at(0.5), 0.75, 1e-15);
        assert_close!(named("in_out_cubic").at(0.25), 0.0625, 1e-15);
        assert_close!(named("in_back").at(0.5), -0.0876975, 1e-15);
        assert_close!(named("out_bounce").at(0.5), 0.765625, 1e-15);
        assert_close!(named("in_elastic").at(0.5), -0.015625, 1e-15);
        assert_close!(named("in_expo").at(0.5), 0.03125, 1e-15);
        assert_close!(named("in_circ").at(0.6), 0.2, 1e-15);
        assert_close!(
            named("in_sine").at(1.0 / 3.0),
            1.0 - math::sqrt(3.0) / 2.0,
            1e-15
        );
        assert_close!(named("in_out_sine").at(0.5), 0.5, 1e-15);
    }

    #[test]
    fn in_out_back_is_the_general_rule_not_the_1_525_variant() {
        let ease = named("in_out_back");
        // in_back(0.5)/2 = −0.0876975/2
        assert_close!(ease.at(0.25), -0.04384875, 1e-15);
        // Penner's 1.525 variant gives a different value here.
        let c2 = 1.70158 * 1.525;
        let penner_variant = math::powi(2.0 * 0.25, 2) * ((c2 + 1.0) * 2.0 * 0.25 - c2) / 2.0;
        assert!(math::abs(ease.at(0.25) - penner_variant) > 1e-3);
    }

    #[test]
    fn named_eases_have_exact_endpoints() {
        for name in Ease::names() {
            let ease = named(name);
            assert_eq!(ease.at(0.0), 0.0, "{name} at 0");
            assert_eq!(ease.at(1.0), 1.0, "{name} at 1");
            assert!(!ease.jumps_at_start(), "{name}");
        }
    }

    #[test]
    fn input_is_clamped() {
        for name in Ease::names() {
            let ease = named(name);
            assert_eq!(ease.at(-0.5), 0.0, "{name} below 0");
            assert_eq!(ease.at(1.5), 1.0, "{name} above 1");
            assert!(ease.derivative(-0.5).is_finite() || name.contains("circ"));
        }
        assert!(Ease::Linear.at(f64::NAN).is_nan());
    }

    #[test]
    fn every_named_ease_matches_the_spec_formula() {
        for name in Ease::names() {
            let ease = named(name);
            for u in sample_points(997) {
                assert_close!(ease.at(u), reference(name, u), 1e-14, "{name} at {u}");
            }
        }
    }

    #[test]
    fn out_and_in_out_identities() {
        for family in PennerFamily::ALL {
            for u in sample_points(389) {
                let ease_in = |v: f64| family.eval(EaseDirection::In, v);
                assert_close!(
                    family.eval(EaseDirection::Out, u),
                    1.0 - ease_in(1.0 - u),
                    1e-15,
                    "out_{} at {u}",
                    family.name()
                );
                let in_out = if u < 0.5 {
                    ease_in(2.0 * u) / 2.0
                } else {
                    1.0 - ease_in(2.0 - 2.0 * u) / 2.0
                };
                assert_close!(
                    family.eval(EaseDirection::InOut, u),
                    in_out,
                    1e-15,
                    "in_out_{} at {u}",
                    family.name()
                );
                // in_out is point-symmetric about (1/2, 1/2).
                let mirrored = 1.0 - family.eval(EaseDirection::InOut, 1.0 - u);
                if u != 0.5 {
                    assert_close!(
                        family.eval(EaseDirection::InOut, u),
                        mirrored,
                        1e-14,
                        "in_out_{} symmetry at {u}",
                        family.name()
                    );
                }
            }
        }
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let h = 1e-6;
        let mut eases: Vec<Ease> = Ease::names().iter().map(|n| named(n)).collect();
        eases.push(Ease::CubicBezier(bezier(0.25, 0.1, 0.25, 1.0)));
        eases.push(Ease::CubicBezier(bezier(0.7, -0.4, 0.2, 1.5)));
        eases.push(Ease::CubicBezier(bezier(0.0, 0.0, 1.0, 1.0)));
        for ease in eases {
            let mut checked = 0;
            for i in 1..200 {
                let u = (f64::from(i) + 0.123) / 200.5;
                let forward = (ease.at(u + h) - ease.at(u)) / h;
                let backward = (ease.at(u) - ease.at(u - h)) / h;
                if math::abs(forward - backward) > 1e-3 * math::abs(forward).max(1.0) {
                    // A kink (bounce) lies within h of u.
                    continue;
                }
                let central = (ease.at(u + h) - ease.at(u - h)) / (2.0 * h);
                let d = ease.derivative(u);
                assert_close!(
                    d,
                    central,
                    1e-6 * math::abs(d).max(1.0),
                    "{} at {u}",
                    ease.name()
                );
                checked += 1;
            }
            assert!(
                checked >= 190,
                "{}: only {checked} points checked",
                ease.name()
            );
        }
    }

    #[test]
    fn derivative_special_cases() {
        assert_eq!(Ease::Linear.derivative(0.0), 1.0);
        assert_eq!(Ease::Smoothstep.derivative(0.5), 1.5);
        assert_eq!(Ease::Smootherstep.derivative(0.5), 1.875);
        assert_eq!(
            Ease::Steps(steps(3, StepJump::JumpEnd)).derivative(0.4),
            0.0
        );
        // dx/dt = dy/dt = 0 at t = 0 for (0, 0, 1, 1): the limit is 1.
        let straight = bezier(0.0, 0.0, 1.0, 1.0);
        assert_close!(straight.slope_at_x(0.0), 1.0, 1e-12);
        assert_close!(straight.slope_at_x(1.0), 1.0, 1e-12);
        // x = t³, y = t³ (x1 = x2 = y1 = y2 = 0): third-derivative limit 1.
        assert_close!(bezier(0.0, 0.0, 0.0, 0.0).slope_at_x(0.0), 1.0, 1e-12);
        // dx/dt = 0 but dy/dt > 0 at t = 0: vertical start.
        assert_eq!(bezier(0.0, 0.5, 0.5, 1.0).slope_at_x(0.0), f64::INFINITY);
        // Horizontal start: slope = y1/x1.
        assert_close!(bezier(0.5, 0.0, 0.5, 1.0).slope_at_x(0.0), 0.0, 1e-15);
        assert_close!(bezier(0.2, 0.6, 0.5, 1.0).slope_at_x(0.0), 3.0, 1e-12);
    }

    #[test]
    fn polynomial_pieces_reproduce_the_ease() {
        let mut with_pieces = 0;
        for name in Ease::names() {
            let ease = named(name);
            let Some(pieces) = ease.polynomial_pieces() else {
                continue;
            };
            with_pieces += 1;
            assert_eq!(pieces.first().map(|p| p.start), Some(0.0), "{name}");
            assert_eq!(pieces.last().map(|p| p.end), Some(1.0), "{name}");
            for pair in pieces.windows(2) {
                assert_eq!(pair[0].end, pair[1].start, "{name}");
            }
            for u in sample_points(499) {
                let piece = pieces
                    .iter()
                    .find(|p| u >= p.start && (u < p.end || p.end == 1.0))
                    .unwrap_or_else(|| panic!("{name}: no piece holds {u}"));
                assert_close!(piece.eval(u), ease.at(u), 1e-13, "{name} at {u}");
            }
        }
        // linear, smoothstep, smootherstep + 3 directions × (quad, cubic, quart, quint, back)
        assert_eq!(with_pieces, 18);
        for name in [
            "in_sine",
            "out_expo",
            "in_out_circ",
            "in_elastic",
            "out_bounce",
        ] {
            assert_eq!(named(name).polynomial_pieces(), None, "{name}");
        }
        assert_eq!(
            Ease::CubicBezier(bezier(0.1, 0.2, 0.3, 0.4)).polynomial_pieces(),
            None
        );
        assert_eq!(
            Ease::Steps(steps(2, StepJump::JumpEnd)).polynomial_pieces(),
            None
        );
    }

    #[test]
    fn polynomial_pieces_hand_worked() {
        let pieces = named("out_quad").polynomial_pieces();
        assert_eq!(
            pieces,
            Some(vec![EasePiece {
                start: 0.0,
                end: 1.0,
                coeffs: vec![0.0, 2.0, -1.0]
            }])
        );
        let pieces = named("in_out_quad").polynomial_pieces();
        assert_eq!(
            pieces,
            Some(vec![
                EasePiece {
                    start: 0.0,
                    end: 0.5,
                    coeffs: vec![0.0, 0.0, 2.0]
                },
                EasePiece {
                    start: 0.5,
                    end: 1.0,
                    coeffs: vec![-1.0, 4.0, -2.0]
                },
            ])
        );
    }

    #[test]
    fn css_ease_value() {
        let ease = bezier(0.25, 0.1, 0.25, 1.0);
        let reference = bezier_reference(0.25, 0.1, 0.25, 1.0, 0.5);
        assert_close!(reference, 0.8024, 1e-4);
        assert_close!(ease.y_at_x(0.5), reference, 1e-13);
        for i in 0..=100 {
            let x = f64::from(i) / 100.0;
            assert_close!(
                ease.y_at_x(x),
                bezier_reference(0.25, 0.1, 0.25, 1.0, x),
                1e-13,
                "x = {x}"
            );
        }
    }

    #[test]
    fn bezier_endpoints_and_clamping() {
        let ease = bezier(0.3, -2.0, 0.7, 3.0);
        assert_eq!(ease.y_at_x(0.0), 0.0);
        assert_eq!(ease.y_at_x(1.0), 1.0);
        assert_eq!(ease.y_at_x(-1.0), 0.0);
        assert_eq!(ease.y_at_x(2.0), 1.0);
        assert!(ease.y_at_x(f64::NAN).is_nan());
        assert_eq!(ease.t_at_x(0.0), 0.0);
        assert_eq!(ease.t_at_x(1.0), 1.0);
        assert_eq!(Ease::CubicBezier(ease).at(0.0), 0.0);
        assert_eq!(Ease::CubicBezier(ease).at(1.0), 1.0);
    }

    #[test]
    fn bezier_degenerate_controls_are_identity() {
        for (x1, x2) in [(0.0, 0.0), (1.0, 1.0), (0.0, 1.0), (1.0, 0.0), (0.5, 0.5)] {
            let ease = bezier(x1, x1, x2, x2);
            for i in 0..=1000 {
                let x = f64::from(i) / 1000.0;
                assert_close!(ease.y_at_x(x), x, 1e-12, "({x1}, {x1}, {x2}, {x2}) at {x}");
            }
        }
    }

    #[test]
    fn bezier_matches_bisection_reference() {
        for (x1, y1, x2, y2) in [
            (0.42, 0.0, 1.0, 1.0),
            (0.0, 0.0, 0.58, 1.0),
            (0.68, -0.55, 0.265, 1.55),
            (0.0, 1.0, 0.0, 1.0),
            (1.0, 0.0, 1.0, 0.0),
            (0.9, 0.1, 0.1, 0.9),
        ] {
            let ease = bezier(x1, y1, x2, y2);
            for i in 0..=200 {
                let x = f64::from(i) / 200.0;
                let t = ease.t_at_x(x);
                assert!((0.0..=1.0).contains(&t));
                assert_close!(ease.x_at_t(t), x, 1e-15, "({x1}, {y1}, {x2}, {y2}) at {x}");
                // y error ≤ |dy/dx| · x error, and dy/dx can be large near flat x(t).
                let tolerance = 1e-12 * math::abs(ease.slope_at_x(x)).max(1.0);
                assert_close!(
                    ease.y_at_x(x),
                    bezier_reference(x1, y1, x2, y2, x),
                    tolerance,
                    "({x1}, {y1}, {x2}, {y2}) at {x}"
                );
            }
        }
    }

    #[test]
    fn bezier_rejects_bad_controls() {
        assert_eq!(
            CubicBezierEase::new(1.5, 0.0, 0.5, 1.0),
            Err(EaseError::ControlXOutOfRange {
                parameter: "x1",
                found: 1.5
            })
        );
        assert_eq!(
            CubicBezierEase::new(0.5, 0.0, -0.1, 1.0),
            Err(EaseError::ControlXOutOfRange {
                parameter: "x2",
                found: -0.1
            })
        );
        assert!(matches!(
            CubicBezierEase::new(f64::NAN, 0.0, 0.5, 1.0),
            Err(EaseError::NonFiniteControl {
                parameter: "x1",
                ..
            })
        ));
        assert_eq!(
            CubicBezierEase::new(0.5, f64::INFINITY, 0.5, 1.0),
            Err(EaseError::NonFiniteControl {
                parameter: "y1",
                found: f64::INFINITY
            })
        );
        assert!(CubicBezierEase::new(0.5, 0.0, 0.5, f64::NEG_INFINITY).is_err());
        assert!(CubicBezierEase::new(0.0, -10.0, 1.0, 10.0).is_ok());
        let message = format!(
            "{}",
            EaseError::ControlXOutOfRange {
                parameter: "x1",
                found: 1.5
            }
        );
        assert_eq!(message, "cubic_bezier x1 must be in [0, 1], found 1.5");
        let message = format!(
            "{}",
            EaseError::NonFiniteControl {
                parameter: "y2",
                found: f64::NAN
            }
        );
        assert_eq!(message, "cubic_bezier y2 must be finite, found NaN");
        assert_eq!(
            format!("{}", EaseError::ZeroSteps),
            "steps count must be at least 1, found 0"
        );
    }

    #[test]
    fn steps_all_jumps() {
        // n = 4 over one unit: floor(u·4) = 0, 1, 2, 3.
        let cases = [
            (StepJump::JumpEnd, [0.0, 0.25, 0.5, 0.75]),
            (StepJump::JumpStart, [0.25, 0.5, 0.75, 1.0]),
            (StepJump::JumpNone, [0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0]),
            (StepJump::JumpBoth, [0.2, 0.4, 0.6, 0.8]),
        ];
        for (jump, values) in cases {
            let ease = Ease::Steps(steps(4, jump));
            for (i, &value) in values.iter().enumerate() {
                let u = (i as f64 + 0.5) / 4.0;
                assert_eq!(ease.at(u), value, "{} at {u}", ease.name());
                let u = i as f64 / 4.0;
                assert_eq!(ease.at(u), value, "{} at {u}", ease.name());
            }
            assert_eq!(ease.at(1.0), 1.0, "{} completes", ease.name());
            assert_eq!(
                ease.jumps_at_start(),
                matches!(jump, StepJump::JumpStart | StepJump::JumpBoth)
            );
        }
    }

    #[test]
    fn steps_integer_frames_land_exactly() {
        let s = steps(4, StepJump::JumpEnd);
        assert_eq!(s.index_at(3.0, 12.0), 1);
        assert_eq!(s.index_at(2.999, 12.0), 0);
        assert_eq!(s.index_at(6.0, 12.0), 2);
        assert_eq!(s.value_at(9.0, 12.0), 0.75);
        // (30/44)·22 rounds to 14.999…, but 30·22/44 is exactly 15.
        let s = steps(22, StepJump::JumpEnd);
        assert_eq!(math::floor((30.0 / 44.0) * 22.0), 14.0);
        assert_eq!(s.index_at(30.0, 44.0), 15);
        let ease = Ease::Steps(s);
        assert_eq!(ease.at_offset(30.0, 44.0), 15.0 / 22.0);
        // at_offset agrees with at for non-steps eases.
        assert_eq!(
            Ease::Smoothstep.at_offset(3.0, 12.0),
            Ease::Smoothstep.at(0.25)
        );
    }

    #[test]
    fn steps_clamping() {
        for jump in StepJump::ALL {
            let s = steps(3, jump);
            let start = s.index_at(0.0, 9.0);
            assert_eq!(s.index_at(-5.0, 9.0), start, "{}", jump.name());
            assert_eq!(s.index_at(f64::NAN, 9.0), start, "{}", jump.name());
            assert_eq!(s.value_at(9.0, 9.0), 1.0, "{}", jump.name());
            assert_eq!(s.value_at(100.0, 9.0), 1.0, "{}", jump.name());
            // Just before the end: the last step inside the segment, n − 1 (+ jump).
            let last = match jump {
                StepJump::JumpEnd | StepJump::JumpNone => 2,
                StepJump::JumpStart | StepJump::JumpBoth => 3,
            };
            assert_eq!(s.index_at(9.0 - 1e-9, 9.0), last, "{}", jump.name());
            assert_eq!(s.index_at(1.0 - 1e-16, 1.0), last, "{}", jump.name());
        }
        let s = steps(1, StepJump::JumpStart);
        assert_eq!(s.value_at(0.0, 1.0), 1.0);
        let s = steps(u32::MAX, StepJump::JumpBoth);
        assert_eq!(s.divisor(), u64::from(u32::MAX) + 1);
        assert!(s.value_at(0.5, 1.0) > 0.49 && s.value_at(0.5, 1.0) < 0.51);
        // A zero-length segment is complete.
        assert_eq!(
            Ease::Steps(steps(2, StepJump::JumpEnd)).at_offset(0.0, 0.0),
            1.0
        );
        assert_eq!(Ease::Smoothstep.at_offset(0.0, 0.0), 1.0);
    }

    #[test]
    fn steps_rejects_bad_counts() {
        assert_eq!(Steps::new(0, StepJump::JumpEnd), Err(EaseError::ZeroSteps));
        assert_eq!(
            Steps::new(1, StepJump::JumpNone),
            Err(EaseError::JumpNoneTooFewSteps { found: 1 })
        );
        assert!(Steps::new(2, StepJump::JumpNone).is_ok());
        assert!(Steps::new(1, StepJump::JumpBoth).is_ok());
        assert_eq!(
            format!("{}", EaseError::JumpNoneTooFewSteps { found: 1 }),
            "steps with jump_none needs a count of at least 2, found 1"
        );
    }

    #[test]
    fn names_round_trip() {
        assert_eq!(Ease::names().len(), 33);
        for name in Ease::names() {
            assert_eq!(named(name).name(), *name);
        }
        let parametric = [
            Ease::CubicBezier(bezier(0.25, 0.1, 0.25, 1.0)),
            Ease::CubicBezier(bezier(0.0, -0.5, 1.0, 1e-7)),
            Ease::Steps(steps(4, StepJump::JumpEnd)),
            Ease::Steps(steps(2, StepJump::JumpNone)),
            Ease::Steps(steps(7, StepJump::JumpBoth)),
            Ease::Steps(steps(1, StepJump::JumpStart)),
        ];
        for ease in parametric {
            assert_eq!(Ease::from_name(&ease.name()), Some(ease), "{}", ease.name());
        }
        assert_eq!(
            Ease::CubicBezier(bezier(0.25, 0.1, 0.25, 1.0)).name(),
            "cubic_bezier(0.25, 0.1, 0.25, 1)"
        );
        assert_eq!(
            Ease::Steps(steps(4, StepJump::JumpEnd)).name(),
            "steps(4, jump_end)"
        );
        assert_eq!(
            Ease::from_name("steps(3)"),
            Some(Ease::Steps(steps(3, StepJump::JumpEnd)))
        );
        for bad in [
            "",
            "in_",
            "out",
            "in_out_",
            "in_linear",
            "ease",
            "Linear",
            "in_out_wobble",
            "cubic_bezier(1.5, 0, 0, 1)",
            "cubic_bezier(0, 0, 1)",
            "cubic_bezier(0, 0, 1, 1, 1)",
            "steps(0, jump_end)",
            "steps(1, jump_none)",
            "steps(2, jump_sideways)",
            "steps(-1)",
            "steps(2, jump_end",
        ] {
            assert_eq!(Ease::from_name(bad), None, "{bad:?}");
        }
        for family in PennerFamily::ALL {
            assert_eq!(PennerFamily::from_name(family.name()), Some(family));
        }
        assert_eq!(Ease::default(), Ease::Linear);
    }

    proptest! {
        #[test]
        fn bezier_solves_x(
            x1 in 0.0..=1.0_f64,
            y1 in -2.0..3.0_f64,
            x2 in 0.0..=1.0_f64,
            y2 in -2.0..3.0_f64,
            x in 0.0..=1.0_f64,
        ) {
            let ease = bezier(x1, y1, x2, y2);
            let t = ease.t_at_x(x);
            prop_assert!((0.0..=1.0).contains(&t));
            prop_assert!(math::abs(ease.x_at_t(t) - x) <= BEZIER_X_TOLERANCE);
            prop_assert_eq!(ease.y_at_x(x), ease.y_at_t(t));
        }

        #[test]
        fn bezier_extreme_controls_solve_x(
            x1 in prop::sample::select(vec![0.0, 1e-300, 1e-12, 0.5, 1.0 - 1e-12, 1.0]),
            x2 in prop::sample::select(vec![0.0, 1e-300, 1e-12, 0.5, 1.0 - 1e-12, 1.0]),
            x in prop::num::f64::POSITIVE | prop::num::f64::NEGATIVE | prop::num::f64::ZERO,
        ) {
            let ease = bezier(x1, 0.3, x2, 0.7);
            let t = ease.t_at_x(x);
            let target = x.clamp(0.0, 1.0);
            prop_assert!(math::abs(ease.x_at_t(t) - target) <= BEZIER_X_TOLERANCE);
            prop_assert!(ease.y_at_x(x).is_finite());
        }

        #[test]
        fn named_eases_are_finite(u in -1.0..2.0_f64, index in 0usize..33) {
            let ease = named(Ease::names()[index]);
            prop_assert!(ease.at(u).is_finite());
        }
    }
}
