//! F-curves as compiler input: spans split where the time map is singular, and the stream wrap that plays their outside exactly.

use alloc::vec;
use alloc::vec::Vec;

use super::{bezier, CycleMode, EasingMode, EasingType, Extrapolation, FCurve, FInterp, FKey};
use crate::compile::source::{SourceSpan, SpanShape, MAX_COMPONENTS};
use crate::math;
use crate::stream::StreamWrap;

impl FCurve {
    /// The stream wrap that plays frames outside the compiled range ([`FCurve::stream_range`]):
    /// `Loop` for `repeat` forever on both sides, `PingPong` for `mirror` forever on both
    /// sides, otherwise `Clamp`, which needs each side to either hold its end value (constant
    /// extrapolation, a constant end key, a flat end handle or chord, no cycling) or cycle a
    /// counted number of times (the cycles are compiled, and past them the stream holds the
    /// value the last cycle ends with, where Blender drops back to the keys' extrapolation).
    ///
    /// # Errors
    /// What a stream cannot play: linear extrapolation along a slope, cycling forever with
    /// `repeat_offset` or with different modes before and after, forever on one side only.
    pub fn stream_wrap(&self) -> Result<StreamWrap, &'static str> {
        let cycles = self.cycles.unwrap_or_default();
        let modes = [cycles.before, cycles.after];
        let counts = [cycles.before_count, cycles.after_count];
        let cycling = |side: usize| self.keys.len() >= 2 && modes[side] != CycleMode::None;
        let forever = |side: usize| cycling(side) && counts[side] == 0;
        if forever(0) || forever(1) {
            return match (forever(0) && forever(1), modes) {
                (true, [CycleMode::Repeat, CycleMode::Repeat]) => Ok(StreamWrap::Loop),
                (true, [CycleMode::Mirror, CycleMode::Mirror]) => Ok(StreamWrap::PingPong),
                (true, _) if modes.contains(&CycleMode::RepeatOffset) => {
                    Err("repeat_offset cycles forever are not in the stream format yet")
                }
                _ => Err("cycles forever on one side only, or with different modes on the two sides, are not in the stream format yet"),
            };
        }
        for (side, before) in [(0, true), (1, false)] {
            if !cycling(side) && !self.side_holds(before) {
                return Err("linear extrapolation along a slope is not in the stream format yet");
            }
        }
        // Every compiled cycle repeats the keys' spans: refuse counts that could not fit.
        let cycles_compiled = (0..2)
            .filter(|&side| cycling(side))
            .map(|side| u64::from(counts[side]))
            .sum::<u64>();
        let spans = (cycles_compiled + 1) * (self.keys.len() as u64);
        if spans > crate::compile::MAX_PIECES as u64 {
            return Err("counted cycles repeat the keys more often than a stream holds pieces");
        }
        Ok(StreamWrap::Clamp)
    }

    /// The frames a stream covers: the keys, widened by the counted cycles on each side.
    #[must_use]
    pub fn stream_range(&self) -> (f64, f64) {
        let (first, last) = (self.keys[0].frame, self.keys[self.keys.len() - 1].frame);
        let span = last - first;
        let Some(c) = self.cycles.filter(|_| span > 0.0) else {
            return (first, last);
        };
        let widen = |mode: CycleMode, count: u32| {
            if mode == CycleMode::None {
                0.0
            } else {
                f64::from(count) * span
            }
        };
        (
            first - widen(c.before, c.before_count),
            last + widen(c.after, c.after_count),
        )
    }

    /// Inside a compiled cycle span [`start`, `end`] (found by its midpoint): the frame of the
    /// keys it plays and the value offset. Frames inside the keys map to themselves.
    fn cycle_map(&self, start: f64, end: f64, frame: f64) -> (f64, f64) {
        let (local, offset, _) = self.cycle_map_reflected(start, end, frame);
        (local, offset)
    }

    /// [`FCurve::cycle_map`], and whether the cycle plays the keys backward.
    fn cycle_map_reflected(&self, start: f64, end: f64, frame: f64) -> (f64, f64, bool) {
        let (first, last) = (&self.keys[0], &self.keys[self.keys.len() - 1]);
        let span = last.frame - first.frame;
        let mid = 0.5 * (start + end);
        let c = self.cycles.unwrap_or_default();
        let (k, mode, after) = if mid > last.frame {
            (math::ceil((mid - last.frame) / span), c.after, true)
        } else if mid < first.frame {
            (math::ceil((first.frame - mid) / span), c.before, false)
        } else {
            return (frame, 0.0, false);
        };
        let shift = if after { k * span } else { -k * span };
        let reflected = mode == CycleMode::Mirror && (k as u64) % 2 == 1;
        let local = if !reflected {
            frame - shift
        } else if after {
            2.0 * last.frame + (k - 1.0) * span - frame
        } else {
            first.frame + last.frame - k * span - frame
        };
        let offset = if mode == CycleMode::RepeatOffset {
            let d = last.value - first.value;
            if after {
                k * d
            } else {
                -k * d
            }
        } else {
            0.0
        };
        (local, offset, reflected)
    }

    /// The value a compiled stream plays at `frame` inside [`FCurve::stream_range`]: the curve's,
    /// except that a frame on a boundary between compiled cycles (not the range's end) gets the
    /// start of the cycle after it, as every span starts at its first frame, where Blender gives
    /// the end of the cycle before (they differ only when a `repeat` cycle jumps), and that
    /// frames within [`super::KEY_SNAP`] of a key get the segment's formula, not the key's value.
    #[must_use]
    pub fn eval_compiled(&self, frame: f64) -> f64 {
        let (lo, hi) = self.stream_range();
        let frame = frame.clamp(lo, hi);
        let (first, last) = (self.keys[0].frame, self.keys[self.keys.len() - 1].frame);
        let span = last - first;
        if frame >= hi || span <= 0.0 || self.cycles.is_none() {
            let (local, offset) = match self.cycles {
                Some(c) if span > 0.0 => {
                    let (a, b) = (&self.keys[0], &self.keys[self.keys.len() - 1]);
                    c.map(frame, [a.frame, a.value], [b.frame, b.value])
                }
                _ => (frame, 0.0),
            };
            return self.eval_keys_unsnapped(local) + offset;
        }
        // The cycle a span starting at `frame` belongs to: decided just after it.
        let after = frame + span * 1e-9 + math::abs(frame) * 1e-15;
        let (local, offset, reflected) = self.cycle_map_reflected(after, after, frame);
        // Played backward, a key's frame starts the segment before it.
        let before = self.keys.partition_point(|k| k.frame < local);
        if reflected && before > 0 && before < self.keys.len() {
            return self.eval_segment(before - 1, local) + offset;
        }
        self.eval_keys_unsnapped(local) + offset
    }

    /// The formula of compiled span [`start`, `end`] (segment `segment`, possibly in a cycle) at
    /// `frame` in its closed range.
    pub(crate) fn eval_span(&self, segment: usize, start: f64, end: f64, frame: f64) -> f64 {
        let (local, offset) = self.cycle_map(start, end, frame);
        let (lo, hi) = match (self.keys.get(segment), self.keys.get(segment + 1)) {
            (Some(a), Some(b)) => (a.frame, b.frame),
            _ => return self.eval(frame),
        };
        self.eval_segment(segment, local.clamp(lo, hi)) + offset
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
        let base = self.key_spans();
        if self.stream_wrap().is_err() {
            // Not compilable (the compiler refuses it first): never unroll its cycles.
            return base;
        }
        let (lo, hi) = self.stream_range();
        let (first, last) = (self.keys[0].frame, self.keys[self.keys.len() - 1].frame);
        let span = last - first;
        let mut out = Vec::new();
        let cycles_before = if span > 0.0 {
            math::round((first - lo) / span) as u64
        } else {
            0
        };
        let cycles_after = if span > 0.0 {
            math::round((hi - last) / span) as u64
        } else {
            0
        };
        for k in (1..=cycles_before).rev() {
            self.push_cycle(&base, -(k as f64), &mut out);
        }
        out.extend(base.iter().cloned());
        for k in 1..=cycles_after {
            self.push_cycle(&base, k as f64, &mut out);
        }
        out
    }

    /// The key spans replayed in cycle `k` (negative: before the keys) as smooth spans, in
    /// frame order (reversed in a reflected mirror cycle).
    fn push_cycle(&self, base: &[SourceSpan], k: f64, out: &mut Vec<SourceSpan>) {
        let (first, last) = (self.keys[0].frame, self.keys[self.keys.len() - 1].frame);
        let span = last - first;
        let c = self.cycles.unwrap_or_default();
        let mode = if k > 0.0 { c.after } else { c.before };
        let reflected = mode == CycleMode::Mirror && (math::abs(k) as u64) % 2 == 1;
        let (lo, hi) = if k > 0.0 {
            (last + (k - 1.0) * span, last + k * span)
        } else {
            (first + k * span, first + (k + 1.0) * span)
        };
        let place = |x: f64| {
            if reflected {
                lo + (last - x)
            } else {
                lo + (x - first)
            }
        };
        let mut spans: Vec<SourceSpan> = base
            .iter()
            .map(|s| {
                let (a, b) = (place(s.start), place(s.end));
                SourceSpan {
                    start: a.min(b),
                    end: a.max(b),
                    key: s.key,
                    shape: SpanShape::Smooth,
                }
            })
            .collect();
        if reflected {
            spans.reverse();
        }
        // Exact joins: each span starts where the previous ended; the cycle ends at `hi`.
        let mut start = lo;
        let count = spans.len();
        for (j, mut s) in spans.into_iter().enumerate() {
            s.start = start;
            if j + 1 == count {
                s.end = hi;
            }
            if s.end > s.start {
                start = s.end;
                out.push(s);
            }
        }
    }

    /// The spans of the keys themselves.
    fn key_spans(&self) -> Vec<SourceSpan> {
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
                        if cut > start && cut <= k1.frame {
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
