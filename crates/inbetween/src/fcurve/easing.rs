//! Blender's easing interpolations (its `BLI_easing` formulas, which differ from Penner's for back in-out and elastic).
//!
//! Every formula takes `t` (frames since the key), `begin` (the key's value), `change` (next value
//! − begin) and `duration` (frames to the next key), like Blender's. With τ = t / duration:
//! quad τ², cubic τ³, quart τ⁴, quint τ⁵, sine 1 − cos(τπ/2), circ 1 − √(1 − τ²), expo
//! (2^(10(τ−1)) − 2^−10) / (1 − 2^−10) (exactly 0 and 1 at the ends), back τ²((s+1)τ − s) with
//! s = the key's `back`, bounce Penner's four parabolas; `out` is 1 − in(1 − τ) and `in_out`
//! runs `in` on the first half and `out` on the second, except that back's in-out multiplies s
//! by 1.525. Elastic is Blender's own: see [`elastic`].

use crate::math;
use core::f64::consts::PI;

/// Which of Blender's easing formulas a key uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EasingType {
    /// Sinusoidal.
    Sine,
    /// τ².
    Quad,
    /// τ³.
    Cubic,
    /// τ⁴.
    Quart,
    /// τ⁵.
    Quint,
    /// Exponential.
    Expo,
    /// Circular.
    Circ,
    /// Overshoots by the key's `back`.
    Back,
    /// Bounces.
    Bounce,
    /// Springs with the key's `amplitude` and `period`.
    Elastic,
}

impl EasingType {
    /// Every type, in Blender's order.
    pub const ALL: [EasingType; 10] = [
        EasingType::Sine,
        EasingType::Quad,
        EasingType::Cubic,
        EasingType::Quart,
        EasingType::Quint,
        EasingType::Expo,
        EasingType::Circ,
        EasingType::Back,
        EasingType::Bounce,
        EasingType::Elastic,
    ];

    /// The document name (lower case, as Blender's enum without the prefix).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            EasingType::Sine => "sine",
            EasingType::Quad => "quad",
            EasingType::Cubic => "cubic",
            EasingType::Quart => "quart",
            EasingType::Quint => "quint",
            EasingType::Expo => "expo",
            EasingType::Circ => "circ",
            EasingType::Back => "back",
            EasingType::Bounce => "bounce",
            EasingType::Elastic => "elastic",
        }
    }

    /// Parses a document name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<EasingType> {
        EasingType::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// Which end an easing segment eases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EasingMode {
    /// `Out` for back, bounce and elastic, `In` for the others (Blender's automatic easing).
    #[default]
    Auto,
    /// Slow start.
    In,
    /// Slow end.
    Out,
    /// Slow start and end.
    InOut,
}

impl EasingMode {
    /// Every mode.
    pub const ALL: [EasingMode; 4] = [
        EasingMode::Auto,
        EasingMode::In,
        EasingMode::Out,
        EasingMode::InOut,
    ];

    /// The document name: `auto`, `in`, `out`, `in_out`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            EasingMode::Auto => "auto",
            EasingMode::In => "in",
            EasingMode::Out => "out",
            EasingMode::InOut => "in_out",
        }
    }

    /// The mode Blender plays: `Auto` is `Out` for back, bounce and elastic, `In` otherwise.
    #[must_use]
    pub fn resolve(self, kind: EasingType) -> EasingMode {
        match (self, kind) {
            (EasingMode::Auto, EasingType::Back | EasingType::Bounce | EasingType::Elastic) => {
                EasingMode::Out
            }
            (EasingMode::Auto, _) => EasingMode::In,
            (m, _) => m,
        }
    }

    /// Parses a document name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<EasingMode> {
        EasingMode::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// One easing segment at one time: the key's parameters and where it is.
#[derive(Clone, Copy, Debug)]
pub(super) struct Params {
    pub(super) back: f64,
    pub(super) amplitude: f64,
    pub(super) period: f64,
    /// Frames since the key.
    pub(super) t: f64,
    /// The key's value.
    pub(super) begin: f64,
    /// Next key's value − `begin`.
    pub(super) change: f64,
    /// Frames to the next key.
    pub(super) duration: f64,
}

/// The easing `kind` in `mode` at `params.t` frames into a segment of `params.duration` frames.
pub(super) fn ease(kind: EasingType, mode: EasingMode, params: Params) -> f64 {
    let Params {
        t,
        begin,
        change,
        duration,
        ..
    } = params;
    let mode = mode.resolve(kind);
    if kind == EasingType::Elastic {
        return elastic(mode, params);
    }
    let tau = t / duration;
    let back = params.back;
    let eased_in = |x: f64| ease_in(kind, x, back);
    let fraction = match mode {
        EasingMode::In | EasingMode::Auto => eased_in(tau),
        EasingMode::Out => 1.0 - eased_in(1.0 - tau),
        EasingMode::InOut => {
            let inner = |x: f64| {
                if kind == EasingType::Back {
                    ease_in(kind, x, back * 1.525)
                } else {
                    eased_in(x)
                }
            };
            if tau < 0.5 {
                0.5 * inner(2.0 * tau)
            } else {
                1.0 - 0.5 * inner(2.0 - 2.0 * tau)
            }
        }
    };
    begin + change * fraction
}

/// The `in` form of a non-elastic easing on τ in [0, 1]: 0 at 0, 1 at 1.
fn ease_in(kind: EasingType, x: f64, back: f64) -> f64 {
    match kind {
        EasingType::Sine => 1.0 - math::cos(x * PI / 2.0),
        EasingType::Quad => x * x,
        EasingType::Cubic => x * x * x,
        EasingType::Quart => x * x * x * x,
        EasingType::Quint => x * x * x * x * x,
        EasingType::Expo => {
            const FLOOR: f64 = 1.0 / 1024.0;
            if x <= 0.0 {
                0.0
            } else {
                (math::exp2(10.0 * (x - 1.0)) - FLOOR) / (1.0 - FLOOR)
            }
        }
        EasingType::Circ => 1.0 - math::sqrt((1.0 - x * x).max(0.0)),
        EasingType::Back => x * x * ((back + 1.0) * x - back),
        EasingType::Bounce => 1.0 - bounce_out(1.0 - x),
        EasingType::Elastic => x,
    }
}

/// Penner's bounce (out form) on τ in [0, 1].
fn bounce_out(x: f64) -> f64 {
    const K: f64 = 7.5625;
    if x < 1.0 / 2.75 {
        K * x * x
    } else if x < 2.0 / 2.75 {
        let y = x - 1.5 / 2.75;
        K * y * y + 0.75
    } else if x < 2.5 / 2.75 {
        let y = x - 2.25 / 2.75;
        K * y * y + 0.9375
    } else {
        let y = x - 2.625 / 2.75;
        K * y * y + 0.984375
    }
}

/// Blender's elastic easing. With p = period (0: 0.3·duration, 0.45·duration for in-out) and A
/// = amplitude: when A ≥ |change| the wave has amplitude A and phase s = p/(2π)·asin(change/A);
/// otherwise (A = 0 included) it has amplitude |change|, phase s = p/4, and its height is scaled
/// by A/|change| (0 when A = 0), blended back to 1 over the last |s| frames before the key
/// where the wave is anchored. The wave is ±a·2^(10τ')·sin((τ'·duration − s)·2π/p) with τ' = τ − 1
/// (in), −τ (out), or 2τ − 1 per half (in-out, half height).
fn elastic(mode: EasingMode, params: Params) -> f64 {
    let Params {
        t,
        begin,
        change,
        duration,
        ..
    } = params;
    if t == 0.0 {
        return begin;
    }
    let (tau, default_period) = match mode {
        EasingMode::InOut => (t / (duration / 2.0), 0.45),
        _ => (t / duration, 0.3),
    };
    let full = if mode == EasingMode::InOut { 2.0 } else { 1.0 };
    if tau == full {
        return begin + change;
    }
    let x = match mode {
        EasingMode::Out => -tau,
        _ => tau - 1.0,
    };
    let period = if params.period == 0.0 {
        duration * default_period
    } else {
        params.period
    };
    let mut amplitude = params.amplitude;
    let mut height = 1.0;
    let phase;
    if amplitude == 0.0 || amplitude < math::abs(change) {
        phase = period / 4.0;
        height = elastic_blend(x, change, duration, amplitude, phase);
        amplitude = change;
    } else {
        phase = period / (2.0 * PI) * math::asin(change / amplitude);
    }
    let wave = |x: f64| {
        amplitude * math::exp2(10.0 * x) * math::sin((x * duration - phase) * (2.0 * PI) / period)
    };
    match mode {
        EasingMode::Out => height * wave(x) + change + begin,
        EasingMode::InOut if x < 0.0 => -0.5 * height * wave(x) + begin,
        EasingMode::InOut => 0.5 * height * wave(-x) + change + begin,
        _ => -height * wave(x) + begin,
    }
}

/// The height factor of a small-amplitude elastic wave at τ' = `x` (see [`elastic`]).
fn elastic_blend(x: f64, change: f64, duration: f64, amplitude: f64, phase: f64) -> f64 {
    if change == 0.0 {
        return 1.0;
    }
    let mut f = if amplitude == 0.0 {
        0.0
    } else {
        amplitude / math::abs(change)
    };
    let reach = math::abs(phase);
    let at = math::abs(x * duration);
    if at < reach {
        let l = at / reach;
        f = f * l + (1.0 - l);
    }
    f
}
