//! F-curves as compiler input: spans split where the time map is singular, and the stream wrap that plays their outside exactly.

use alloc::vec;
use alloc::vec::Vec;

use super::{bezier, CycleMode, EasingMode, EasingType, Extrapolation, FCurve, FInterp, FKey};
use crate::compile::source::{SourceSpan, SpanShape, MAX_COMPONENTS};
use crate::math;
use crate::stream::StreamWrap;

impl FCurve {
    /// The stream wrap that plays frames outside the keys as this curve does: `Clamp` when both
    /// sides hold the end value (constant extrapolation, a constant end key, or a flat end
    /// handle or chord, and no cycling on that side), `Loop` for `repeat` forever on both sides,
    /// `PingPong` for `mirror` forever on both sides.
    ///
    /// # Errors
    /// What cannot be played by a stream yet: linear extrapolation along a slope, cycle
    /// counts, `repeat_offset`, and different modes on the two sides.
    pub fn stream_wrap(&self) -> Result<StreamWrap, &'static str> {
        let cycles = self.cycles.unwrap_or_default();
        let holds = [self.side_holds(true), self.side_holds(false)];
        let modes = [cycles.before, cycles.after];
        let counts = [cycles.before_count, cycles.after_count];
        if self.keys.len() < 2 || (modes[0] == CycleMode::None && modes[1] == CycleMode::None) {
            return if holds[0] && holds[1] {
                Ok(StreamWrap::Clamp)
            } else {
                Err("linear extrapolation along a slope is not in the stream format yet")
            };
        }
        if counts != [0, 0] {
            return Err("cycles with a count are not in the stream format yet");
        }
        match modes {
            [CycleMode::Repeat, CycleMode::Repeat] => Ok(StreamWrap::Loop),
            [CycleMode::Mirror, CycleMode::Mirror] => Ok(StreamWrap::PingPong),
            _ if modes.contains(&CycleMode::RepeatOffset) => {
                Err("repeat_offset cycles are not in the stream format yet")
            }
            _ => Err(
                "different cycle modes before and after the keys are not in the stream format yet",
            ),
        }
    }

    /// Whether the curve holds its end value on one side (before cycles).
    fn side_holds(&self, before: bool) -> bool {
        let n = self.keys.len();
        let index = if before { 0 } else { n - 1 };
        let key = &self.keys[index];
        if self.extrapolation[usize::from(!before)] == Extrapolation::Constant || n < 2 {
            return self.extrapolation[usize::from(!before)] == Extrapolation::Constant
                || key.interp == FInterp::Constant;
        }
        let neighbour = &self.keys[if before { 1 } else { n - 2 }];
        match key.interp {
            FInterp::Constant => true,
            FInterp::Linear => neighbour.value == key.value,
            _ => {
                let handle = if before { key.left } else { key.right };
                handle[1] == key.value || handle[0] == key.frame
            }
        }
    }

    /// The compiler's spans: a polynomial for constant and linear segments, smooth spans for
    /// Bezier and easing segments, cut where a Bezier segment's time map has a zero derivative
    /// inside it (both handles spanning the whole segment: a vertical tangent) and at the kinks
    /// of bounce, in-out joins and elastic blends.
    pub(crate) fn source_spans(&self) -> Vec<SourceSpan> {
        let mut out = Vec::new();
        for (i, pair) in self.keys.windows(2).enumerate() {
            let (k0, k1) = (&pair[0], &pair[1]);
            let polynomial = |coeffs: Vec<f64>| {
                let rows = coeffs
                    .into_iter()
                    .map(|c| {
                        let mut row = [0.0; MAX_COMPONENTS];
                        row[0] = c;
                        row
                    })
                    .collect();
                SpanShape::Polynomial { coeffs: rows }
            };
            let span = |start: f64, end: f64, shape: SpanShape| SourceSpan {
                start,
                end,
                key: i,
                shape,
            };
            match k0.interp {
                FInterp::Constant => out.push(span(k0.frame, k1.frame, polynomial(vec![k0.value]))),
                FInterp::Linear => out.push(span(
                    k0.frame,
                    k1.frame,
                    polynomial(vec![k0.value, k1.value - k0.value]),
                )),
                _ => {
                    let mut start = k0.frame;
                    for cut in cuts(k0, k1).into_iter().chain([k1.frame]) {
                        if cut > start && (cut < k1.frame || cut == k1.frame) {
                            out.push(span(start, cut, SpanShape::Smooth));
                            start = cut;
                        }
                    }
                }
            }
        }
        out
    }
}

/// Frames strictly inside the segment where its formula is not smooth.
fn cuts(k0: &FKey, k1: &FKey) -> Vec<f64> {
    let duration = k1.frame - k0.frame;
    let at = |tau: f64| k0.frame + tau * duration;
    let mut frames: Vec<f64> = match k0.interp {
        FInterp::Bezier => vertical_tangent(k0, k1).into_iter().collect(),
        FInterp::Easing { kind, mode } => {
            let mode = mode.resolve(kind);
            let mut taus: Vec<f64> = Vec::new();
            if kind == EasingType::Bounce {
                let out = [1.0 / 2.75, 2.0 / 2.75, 2.5 / 2.75];
                match mode {
                    EasingMode::Out => taus.extend(out),
                    EasingMode::InOut => {
                        taus.extend(out.iter().map(|x| 0.5 - 0.5 * x));
                        taus.extend(out.iter().map(|x| 0.5 + 0.5 * x));
                    }
                    _ => taus.extend(out.iter().map(|x| 1.0 - x)),
                }
            }
            if mode == EasingMode::InOut {
                taus.push(0.5);
            }
            if kind == EasingType::Elastic {
                taus.extend(elastic_blend_kinks(k0, k1, mode));
            }
            taus.into_iter()
                .filter(|t| *t > 0.0 && *t < 1.0)
                .map(at)
                .collect()
        }
        _ => Vec::new(),
    };
    frames.sort_by(f64::total_cmp);
    frames
}

/// Where a small-amplitude elastic's height blend ends (normalized time), if it blends.
fn elastic_blend_kinks(k0: &FKey, k1: &FKey, mode: EasingMode) -> Vec<f64> {
    let change = k1.value - k0.value;
    let duration = k1.frame - k0.frame;
    if change == 0.0 || !(k0.amplitude == 0.0 || k0.amplitude < math::abs(change)) {
        return Vec::new();
    }
    let default = if mode == EasingMode::InOut { 0.45 } else { 0.3 };
    let period = if k0.period == 0.0 {
        duration * default
    } else {
        k0.period
    };
    let reach = math::abs(period / 4.0) / duration;
    match mode {
        EasingMode::Out => vec![reach],
        EasingMode::InOut => vec![0.5 - reach / 2.0, 0.5 + reach / 2.0],
        _ => vec![1.0 - reach],
    }
}

/// The frame inside the segment where the corrected time cubic has a double root of its
/// derivative (x'(s) = 0 with s in (0, 1)), if any.
fn vertical_tangent(k0: &FKey, k1: &FKey) -> Option<f64> {
    let p = bezier::corrected_controls(k0, k1);
    let (a, b, c) = (p[1][0] - p[0][0], p[2][0] - p[1][0], p[3][0] - p[2][0]);
    // x'(s)/3 = a(1−s)² + 2b·s(1−s) + c·s² has discriminant 4(b² − ac); correction keeps
    // b ≥ −√(ac), so it touches zero inside (0, 1) only at b = −√(ac), at s = √a/(√a + √c).
    if a <= 0.0 || c <= 0.0 || b >= 0.0 {
        return None;
    }
    let disc = b * b - a * c;
    if disc < -1e-12 * (a * c) {
        return None;
    }
    let (ra, rc) = (math::sqrt(a), math::sqrt(c));
    let s = ra / (ra + rc);
    let x = bezier::time_at(p, s);
    (x > k0.frame && x < k1.frame).then_some(x)
}
