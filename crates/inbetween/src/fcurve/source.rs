//! F-curves as compiler input: spans split where the time map is singular, and the stream wrap that plays their outside exactly.

use alloc::vec;
use alloc::vec::Vec;

use super::{bezier, CycleMode, EasingMode, EasingType, FCurve, FInterp, FKey, KEY_SNAP};
use crate::compile::source::{SourceSpan, SpanShape, MAX_COMPONENTS};
use crate::math;
use crate::stream::outside::{Beyond, Outside};
use crate::stream::StreamWrap;

impl FCurve {
    /// How a stream plays the frames outside its compiled range ([`FCurve::stream_range`]), side
    /// by side, exactly as Blender evaluates them: cycles forever become a loop (`repeat`, and
    /// `repeat_offset` with the offset last − first value per cycle) or ping-pong (`mirror`) over
    /// the keys; any other side follows the keys' extrapolation from the range's edge (the end
    /// key's value, or past counted cycles the extrapolation at the edge, with its slope: a
    /// line). Plain `clamp`, `loop` and `ping_pong` tracks (no outside record) when both sides
    /// are that.
    ///
    /// # Errors
    /// Counted cycles that repeat the keys more often than a stream holds pieces.
    pub fn stream_outside(&self) -> Result<(StreamWrap, Option<Outside>), &'static str> {
        let cycles = self.cycles.unwrap_or_default();
        let counts = [cycles.before_count, cycles.after_count];
        let modes = [cycles.before, cycles.after];
        let (first, last) = (self.keys[0].frame, self.keys[self.keys.len() - 1].frame);
        let cycling = |side: usize| last > first && modes[side] != CycleMode::None;
        // Every compiled cycle repeats the keys' spans: refuse counts that could not fit.
        let cycles_compiled = (0..2)
            .filter(|&side| cycling(side) && counts[side] != 0)
            .map(|side| u64::from(counts[side]))
            .sum::<u64>();
        let spans = (cycles_compiled + 1) * (self.keys.len() as u64);
        if spans > crate::compile::MAX_PIECES as u64 {
            return Err("counted cycles repeat the keys more often than a stream holds pieces");
        }
        let sides = [self.beyond(false), self.beyond(true)];
        let whole = |b: &Beyond| match *b {
            Beyond::Loop { period, offset } if offset == [0.0; 4] => {
                period == last - first && counts == [0, 0]
            }
            _ => false,
        };
        let wrap = match sides {
            [Beyond::Hold, Beyond::Hold] => Some(StreamWrap::Clamp),
            [a, b] if whole(&a) && whole(&b) => Some(StreamWrap::Loop),
            [Beyond::PingPong { .. }, Beyond::PingPong { .. }] => Some(StreamWrap::PingPong),
            _ => None,
        };
        Ok(match wrap {
            Some(wrap) => (wrap, None),
            None => (
                StreamWrap::Clamp,
                Some(Outside {
                    before: sides[0],
                    after: sides[1],
                }),
            ),
        })
    }

    /// The stream wrap of [`FCurve::stream_outside`] (`Clamp` where an outside record decides).
    ///
    /// # Errors
    /// As [`FCurve::stream_outside`].
    pub fn stream_wrap(&self) -> Result<StreamWrap, &'static str> {
        self.stream_outside().map(|(wrap, _)| wrap)
    }

    /// What one side of the compiled range plays (see [`FCurve::stream_outside`]).
    fn beyond(&self, after: bool) -> Beyond {
        let c = self.cycles.unwrap_or_default();
        let (mode, count) = if after {
            (c.after, c.after_count)
        } else {
            (c.before, c.before_count)
        };
        let n = self.keys.len();
        let (k0, k1) = (&self.keys[0], &self.keys[n - 1]);
        let span = k1.frame - k0.frame;
        if span > 0.0 && count == 0 {
            let mut offset = [0.0; 4];
            match mode {
                CycleMode::None => {}
                CycleMode::Repeat => {
                    return Beyond::Loop {
                        period: span,
                        offset,
                    }
                }
                CycleMode::RepeatOffset => {
                    offset[0] = k1.value - k0.value;
                    return Beyond::Loop {
                        period: span,
                        offset,
                    };
                }
                CycleMode::Mirror => return Beyond::PingPong { period: span },
            }
        }
        // Past the keys (and any counted cycles) Blender evaluates the keys' extrapolation at
        // the frame itself.
        let (lo, hi) = self.stream_range();
        let edge = if after { hi } else { lo };
        let value = self.eval_keys_unsnapped(edge);
        let slope = self.extrapolation_slope(after);
        let played = if after {
            self.eval_compiled(hi)
        } else {
            self.eval_compiled(lo)
        };
        if slope == 0.0 && value == played {
            return Beyond::Hold;
        }
        let mut line = ([0.0; 4], [0.0; 4]);
        line.0[0] = value;
        line.1[0] = slope;
        Beyond::Line {
            value: line.0,
            slope: line.1,
        }
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
    /// the end of the cycle before (they differ only when a `repeat` cycle jumps). Frames within
    /// [`KEY_SNAP`] of a key get the key's value, as in Blender and [`FCurve::eval`].
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
            return self.eval_keys(local) + offset;
        }
        // The cycle a span starting at `frame` belongs to: decided just after it.
        let after = frame + span * 1e-9 + math::abs(frame) * 1e-15;
        let (local, offset) = self.cycle_map(after, after, frame);
        // A key's frame plays the key's value whichever way its cycle runs.
        self.eval_keys(local) + offset
    }

    /// The formula of compiled span [`start`, `end`] (segment `segment`, possibly in a cycle) at
    /// `frame` in its closed range.
    /// A span within [`KEY_SNAP`] of one of the segment's keys (by its midpoint: the spans of
    /// [`FCurve::source_spans`] around the keys) plays that key's value.
    pub(crate) fn eval_span(&self, segment: usize, start: f64, end: f64, frame: f64) -> f64 {
        let (local, offset) = self.cycle_map(start, end, frame);
        let (k0, k1) = match (self.keys.get(segment), self.keys.get(segment + 1)) {
            (Some(a), Some(b)) => (a, b),
            _ => return self.eval(frame),
        };
        let (mid, _) = self.cycle_map(start, end, 0.5 * (start + end));
        if mid - k0.frame <= KEY_SNAP {
            return k0.value + offset;
        }
        if k1.frame - mid <= KEY_SNAP {
            return k1.value + offset;
        }
        self.eval_segment(segment, local.clamp(k0.frame, k1.frame)) + offset
    }

    /// The compiler's spans: a polynomial for constant and linear segments, smooth spans for
    /// Bezier and easing segments, cut where a Bezier segment's time map has a zero derivative
    /// inside it (both handles spanning the whole segment: a vertical tangent) and at the kinks
    /// of bounce, in-out joins and elastic blends.
    pub(crate) fn source_spans(&self) -> Vec<SourceSpan> {
        let base = self.key_spans();
        if self.stream_outside().is_err() {
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

    /// The spans of the keys themselves. Frames within [`KEY_SNAP`] of a key play the key's
    /// value (Blender's key search, as [`FCurve::eval_keys`]): one constant span around each
    /// key (after the first key, before the last), the segments' formulas between them.
    fn key_spans(&self) -> Vec<SourceSpan> {
        let mut out: Vec<SourceSpan> = Vec::new();
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
                    .collect::<Vec<_>>();
                SpanShape::Polynomial {
                    coeffs: rows.into(),
                }
            };
            let span = |start: f64, end: f64, shape: SpanShape| SourceSpan {
                start,
                end,
                key: i,
                shape,
            };
            let (a, b) = (k0.frame, k1.frame);
            if b <= a {
                continue;
            }
            // [a, held) plays k0's value, [from, b) k1's, the segment's formula between.
            let held = snap_end_after(a).min(b);
            let from = snap_start_before(b).max(held);
            if held > a {
                // Joined to the previous segment's last span, which holds the same key.
                match out.last_mut() {
                    Some(last) if last.end == a && is_constant(last, k0.value) => last.end = held,
                    _ => out.push(span(a, held, polynomial(vec![k0.value]))),
                }
            }
            if from > held {
                match k0.interp {
                    FInterp::Constant => match out.last_mut() {
                        // The span holding k0 from `a` (held > a): the same constant.
                        Some(last) if last.end == held => last.end = from,
                        _ => out.push(span(held, from, polynomial(vec![k0.value]))),
                    },
                    FInterp::Linear => {
                        let (change, n) = (k1.value - k0.value, b - a);
                        let at = |f: f64| k0.value + change * ((f - a) / n);
                        let (y0, y1) = (at(held), at(from));
                        out.push(span(held, from, polynomial(vec![y0, y1 - y0])));
                    }
                    _ => {
                        let mut start = held;
                        for cut in cuts(k0, k1).into_iter().chain([from]) {
                            if cut > start && cut <= from {
                                out.push(span(start, cut, SpanShape::Smooth));
                                start = cut;
                            }
                        }
                    }
                }
            }
            if b > from {
                out.push(span(from, b, polynomial(vec![k1.value])));
            }
        }
        out
    }
}

/// Whether `span` is a constant polynomial span of `value`.
fn is_constant(span: &SourceSpan, value: f64) -> bool {
    match &span.shape {
        SpanShape::Polynomial { coeffs } => coeffs.len() == 1 && coeffs[0][0] == value,
        SpanShape::Smooth => false,
    }
}

/// The next f64 above `x` (finite).
fn next_up(x: f64) -> f64 {
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let bits = x.to_bits();
    f64::from_bits(if x > 0.0 { bits + 1 } else { bits - 1 })
}

/// The next f64 below `x` (finite).
fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// The least frame after key frame `a` that [`FCurve::eval_keys`] no longer snaps to it: the
/// least f64 `f` with `f − a > KEY_SNAP` (as computed in f64).
fn snap_end_after(a: f64) -> f64 {
    let mut f = a + KEY_SNAP;
    while f - a <= KEY_SNAP {
        f = next_up(f);
    }
    while next_down(f) - a > KEY_SNAP {
        f = next_down(f);
    }
    f
}

/// The least frame before key frame `b` that [`FCurve::eval_keys`] snaps to it: the least f64
/// `f` with `b − f ≤ KEY_SNAP` (as computed in f64).
fn snap_start_before(b: f64) -> f64 {
    let mut f = b - KEY_SNAP;
    while b - f > KEY_SNAP {
        f = next_up(f);
    }
    while b - next_down(f) <= KEY_SNAP {
        f = next_down(f);
    }
    f
}

/// Frames strictly inside the segment where its formula is not smooth.
fn cuts(k0: &FKey, k1: &FKey) -> Vec<f64> {
    let duration = k1.frame - k0.frame;
    let at = |tau: f64| k0.frame + tau * duration;
    let mut frames: Vec<f64> = match k0.interp {
        FInterp::Bezier => {
            let mut f: Vec<f64> = vertical_tangent(k0, k1).into_iter().collect();
            f.extend(short_handle_cuts(k0, k1));
            f
        }
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

/// Ratio between the parameters of consecutive cuts near a short handle (measured on the
/// fixtures' 326 contained Bezier segments: 2 gives a worst case of 17 pieces and a mean of
/// 3.73, 3 gives 18 and 3.48, 4 gives 19 and 3.64; without these cuts 26 and 4.36).
const GRADE: f64 = 3.0;
/// A handle reaching less than this fraction of its segment in time is short.
const SHORT_HANDLE: f64 = 0.3;

/// Frames inside the segment graded toward an end whose handle is short in time (reach α ≪ the
/// segment): there the time map's derivative x′(s)/3 grows from α to about b = N − α − γ
/// within s ≈ α/(α + b), and the value, nearly a function of √(frame) beyond that knee, needs
/// pieces that shrink geometrically toward the end. Cuts at s = knee · GRADE^k (k ≥ 0,
/// s < 1/2) from each such end (α < SHORT_HANDLE · N), at the frames x(s).
fn short_handle_cuts(k0: &FKey, k1: &FKey) -> Vec<f64> {
    let p = bezier::corrected_controls(k0, k1);
    let (a, b, c) = (p[1][0] - p[0][0], p[2][0] - p[1][0], p[3][0] - p[2][0]);
    let n = p[3][0] - p[0][0];
    let mut out = Vec::new();
    if !(n > 0.0 && b > 0.0) {
        return out;
    }
    for (reach, from_end) in [(a, false), (c, true)] {
        if reach >= n * SHORT_HANDLE {
            continue;
        }
        let mut s = (reach / (reach + b)).max(1e-9);
        while s < 0.5 {
            let x = bezier::time_at(p, if from_end { 1.0 - s } else { s });
            if x > k0.frame && x < k1.frame {
                out.push(x);
            }
            s *= GRADE;
        }
    }
    out
}
