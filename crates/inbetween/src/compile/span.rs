//! One track's pieces: each span cut into intervals, each interval given the first candidate piece that replays within tolerance, split in two when none does.

// Index loops over small fixed arrays read like the formulas they implement.
#![allow(clippy::needless_range_loop)]

use alloc::string::ToString;
use alloc::vec::Vec;
use core::cell::OnceCell;

use super::convert::{power_to_differences, power_to_differences_components, LobattoTable};
use super::normalized;
use super::seek::{entry_rounding, entry_rounding_sharp};
use super::source::{horner_rows_at, horner_rows_grid, SourceSpan, SpanShape, MAX_COMPONENTS};
use super::verify::{origin_of, store_and_check, Candidate, Checked, Limit, StoreFailure, Truth};
use super::{
    checked_spans, non_finite, CompileError, CompileOptions, TrackInput, ACCEPT_FRACTION,
    BETWEEN_FRACTION, DEEP_SPLIT_BUDGET, DEEP_SPLIT_WORK, DEFAULT_RELATIVE_TOLERANCE,
    MARGIN_SPLIT_BUDGET, MAX_PIECES, MIN_FRAME_PIECE_FRAMES, MIN_PIECE_FRAMES, WRAP_WINDOW,
};
use crate::stream::layout::MAX_TERMS;
use crate::stream::{integer_frames, PieceData, PieceNumbers, Precision, StreamWrap, TrackData};

/// A polynomial span's degree and per-component power coefficients, if within the maximum degree.
type ExactPolynomial = Option<(usize, [[f64; MAX_TERMS]; MAX_COMPONENTS])>;

/// A candidate piece and how it plays.
type Tried = (Candidate, Checked);

/// What a track compiles to, before the stream is written.
struct TrackCompiler<'a> {
    input: &'a TrackInput<'a>,
    components: usize,
    tolerance: f64,
    precision: Precision,
    max_degree: usize,
    pieces: Vec<PieceData>,
    /// Pieces of the tracks compiled before this one (for [`MAX_PIECES`]).
    pieces_before: usize,
    max_error: (f64, f64),
    /// Sorted fractional frames that integer frames outside the keys wrap to (loop, ping-pong).
    wrapped_frames: Vec<f64>,
    /// The buffers of the last interval, reused by the next.
    spare: Option<IntervalBuffers>,
    /// The intervals still to compile of the span being compiled (`compile_span`), kept
    /// between spans (one allocation a track instead of one a span).
    todo: Vec<(f64, f64, f64)>,
    /// With `Some`: the largest error (at integer frames and between them) of the kept
    /// pieces stored in f32 instead (`compile_track_in_precision`).
    f32_probe: Option<f64>,
    /// The exact values of the kept pieces' integer frames, in order (`CompiledTrack::exact`).
    exact: Vec<[f64; MAX_COMPONENTS]>,
    /// Compiled for normalized playback (`compile::normalized`).
    normalize: bool,
    /// Lobatto nodes and cosines, made on the first fit.
    lobatto: OnceCell<LobattoTable>,
}

/// An interval's exact values at integer frames, half frames and other frames between.
type IntervalBuffers = (
    Vec<[f64; MAX_COMPONENTS]>,
    Vec<[f64; MAX_COMPONENTS]>,
    Vec<(f64, [f64; MAX_COMPONENTS])>,
);

/// One interval `[a, b)` of a span, with the exact values its candidates are checked against.
struct Interval {
    a: f64,
    b: f64,
    /// The first integer frame in `[a, b)`, or `a` when it holds none.
    origin: f64,
    /// Exact values at the integer frames `origin + m`.
    exact: Vec<[f64; MAX_COMPONENTS]>,
    /// Exact values at the half frames `origin + m + ½` up to the end.
    halves: Vec<[f64; MAX_COMPONENTS]>,
    /// Exact values at the fractional frames checked (`between_values`).
    between: Vec<(f64, [f64; MAX_COMPONENTS])>,
    /// Where it would be split: the one integer frame after its start, else near the middle.
    middle: f64,
    /// The acceptance limit at integer frames: the tolerance for a piece of one integer frame,
    /// else `ACCEPT_FRACTION` of it.
    limit: f64,
    /// The exact values at `a` and `b` from `between` where the fits' end nodes take the same
    /// bits (`CurveSource::eval_in_span_each`, one frame's bits whatever the others): spans
    /// that are not polynomials.
    ends: Option<Ends>,
}

/// The exact values at an interval's start and end.
type Ends = ([f64; MAX_COMPONENTS], [f64; MAX_COMPONENTS]);

/// What the candidates of one interval came to.
#[derive(Default)]
struct Trial {
    /// The first candidate within the limit at integer frames and between them.
    accepted: Option<Tried>,
    /// `accepted` is, on an interval shorter than `MIN_FRAME_PIECE_FRAMES`, the first fit
    /// within the limit at the frames sampled but not with the rounding margin added
    /// (`rounding_margin`): split while `MARGIN_SPLIT_BUDGET` allows, else kept as sampled.
    unmargined: bool,
    /// The best by `fallback_rank` of those within the limit at integer frames only.
    fallback: Option<Tried>,
    /// The smallest error at integer frames of any candidate, and its frame.
    best: Option<(f64, f64)>,
}

/// Frames to evaluate, pushed with zero values that `fill_values` fills in.
struct Frames<'v>(&'v mut Vec<(f64, [f64; MAX_COMPONENTS])>);

impl Frames<'_> {
    fn push(&mut self, frame: f64) {
        self.0.push((frame, [0.0; MAX_COMPONENTS]));
    }
    fn extend(&mut self, frames: impl IntoIterator<Item = f64>) {
        for frame in frames {
            self.push(frame);
        }
    }
}

/// The split budgets of one span (`DEEP_SPLIT_BUDGET`, `DEEP_SPLIT_WORK`,
/// `MARGIN_SPLIT_BUDGET`).
struct Budgets {
    deep: usize,
    work: usize,
    margin: usize,
}

/// Frames a played integer frame within `WRAP_WINDOW` frames outside `[first, last]` wraps to,
/// where they are not whole frames (those are checked anyway), sorted. Empty for clamp.
fn wrapped_frames(
    wrap: StreamWrap,
    outside: Option<&crate::stream::outside::Outside>,
    first: f64,
    last: f64,
) -> Vec<f64> {
    let span = last - first;
    if !super::outside::moves(wrap, outside) || span <= 0.0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let before = crate::math::ceil(first) - WRAP_WINDOW;
    let after = crate::math::floor(last) + WRAP_WINDOW;
    let mut k = before;
    while k <= after {
        if k < first || k > last {
            let w = match super::outside::played(wrap, outside, k, first, last) {
                super::outside::Played::At(w, _) => w,
                super::outside::Played::Value(_) => first,
            };
            if crate::math::floor(w) != w && w < last {
                out.push(w);
            }
        }
        k += 1.0;
    }
    out.sort_by(f64::total_cmp);
    out.dedup();
    out
}

/// The interval buffers of a track, made once with room for its longest span's integer and
/// half frames and for the points `between_values` lists on an interval without a fit (the
/// `4 (n + 1)` evenly spaced points of a short piece, its ends and midpoints): grown as they
/// were filled, the first intervals of a track reallocated them several times. Wrapped frames
/// and longer lists still grow them.
fn interval_buffers(spans: &[SourceSpan], max_degree: usize) -> IntervalBuffers {
    // A span `[a, b)` holds at most `⌈b − a⌉` integer frames; one more for the rounding of
    // `b − a`. Room, not a limit: a longer span's frames are reserved as they come (the
    // conversion saturates; NaN gives 0).
    let longest = spans.iter().fold(0.0f64, |m, s| m.max(s.end - s.start));
    let frames = ((longest + 2.0) as usize).min(1 << 12);
    (
        Vec::with_capacity(frames),
        Vec::with_capacity(frames),
        Vec::with_capacity(4 * (max_degree + 1) + 4),
    )
}

/// A compiled track before it is measured.
pub(super) struct CompiledTrack {
    /// Its data, `max_error` as the pieces' replay measured it.
    pub data: TrackData,
    /// Its spans.
    pub spans: Vec<SourceSpan>,
    /// The exact values its pieces were checked against at its integer frames in
    /// `[first, last)`, in order: `exact[m]` at frame `⌈first⌉ + m`.
    pub exact: Vec<[f64; MAX_COMPONENTS]>,
    /// `TrackReport::kept_in_f64`.
    pub kept_in_f64: Option<f64>,
}

/// Compiles one track in `options.precision`.
pub(super) fn compile_track(
    input: &TrackInput<'_>,
    options: &CompileOptions,
    pieces_before: usize,
) -> Result<CompiledTrack, CompileError> {
    compile_track_probing(input, options, pieces_before, false)
}

/// [`compile_track`], and with `probe_f32` the largest error of its pieces stored in f32 (in
/// `kept_in_f64`).
fn compile_track_probing(
    input: &TrackInput<'_>,
    options: &CompileOptions,
    pieces_before: usize,
    probe_f32: bool,
) -> Result<CompiledTrack, CompileError> {
    let spans = checked_spans(input)?;
    let source = input.source;
    let tolerance = options
        .tolerance
        .unwrap_or_else(|| DEFAULT_RELATIVE_TOLERANCE * source.scale());
    let mut end = [0.0; MAX_COMPONENTS];
    source
        .eval(source.last_frame(), &mut end)
        .map_err(|e| non_finite(input.name, e))?;
    let components = input.value_type.components();
    for v in end.iter_mut().skip(components) {
        *v = 0.0;
    }
    if end.iter().any(|v| !v.is_finite()) {
        return Err(CompileError::NonFinite {
            track: input.name.to_string(),
            frame: source.last_frame(),
            key: spans.len(),
        });
    }
    let normalize = normalized::normalizes(input, options);
    let max_degree = usize::from(if normalize {
        options.max_degree.min(options.rotation_max_degree)
    } else {
        options.max_degree
    });
    let mut compiler = TrackCompiler {
        input,
        components,
        tolerance,
        precision: options.precision,
        max_degree,
        // Every span gives at least one piece: room for them at once (grown by doubling, a
        // 31-span track reallocated its pieces four times).
        pieces: Vec::with_capacity(spans.len()),
        pieces_before,
        max_error: (0.0, source.first_frame()),
        wrapped_frames: wrapped_frames(
            input.wrap,
            source.outside().as_ref(),
            source.first_frame(),
            source.last_frame(),
        ),
        spare: Some(interval_buffers(&spans, max_degree)),
        todo: Vec::new(),
        f32_probe: probe_f32.then_some(0.0),
        exact: Vec::new(),
        normalize,
        lobatto: OnceCell::new(),
    };
    // One exact value per integer frame of the keys (the spans' intervals tile them).
    let frames = integer_frames(source.first_frame(), source.last_frame());
    compiler
        .exact
        .reserve(usize::try_from(frames).unwrap_or(0).min(1 << 22));
    for span in &spans {
        compiler.compile_span(span)?;
    }
    Ok(CompiledTrack {
        data: TrackData {
            name: input.name.to_string(),
            value_type: input.value_type,
            wrap: input.wrap,
            precision: options.precision,
            first_frame: source.first_frame(),
            last_frame: source.last_frame(),
            tolerance,
            max_error: compiler.max_error.0,
            max_error_frame: compiler.max_error.1,
            end_value: end,
            pieces: compiler.pieces,
            outside: source.outside(),
            normalize: compiler.normalize,
        },
        spans,
        exact: compiler.exact,
        kept_in_f64: compiler.f32_probe,
    })
}

/// Compiles one track in `options.precision`; for `F32`, when f32 made the compiler split
/// pieces below one frame (pieces shorter than a frame that are not whole spans) and `F64`
/// needs fewer such pieces, the track is kept in `F64` instead, with `kept_in_f64` the largest
/// error of its pieces stored in f32 — the tolerance f32 reaches with pieces of that layout.
///
/// # Errors
/// As [`compile_track`] (in the precision asked for).
pub(super) fn compile_track_in_precision(
    input: &TrackInput<'_>,
    options: &CompileOptions,
    pieces_before: usize,
) -> Result<CompiledTrack, CompileError> {
    let narrow = compile_track(input, options, pieces_before)?;
    let split = sub_frame_splits(&narrow);
    if options.precision != Precision::F32 || split == 0 {
        return Ok(narrow);
    }
    let f64_options = CompileOptions {
        precision: Precision::F64,
        ..*options
    };
    match compile_track_probing(input, &f64_options, pieces_before, true) {
        Ok(wide) if sub_frame_splits(&wide) < split => Ok(wide),
        _ => Ok(narrow),
    }
}

/// Where each piece of `data` ends, in order: the next piece's start, the last frame for the
/// last piece (as the stream's reader computes `Piece::end`).
pub(super) fn piece_ends(data: &TrackData) -> impl Iterator<Item = f64> + '_ {
    data.pieces
        .iter()
        .skip(1)
        .map(|p| p.start)
        .chain(core::iter::once(data.last_frame))
}

/// Pieces of `data` shorter than one frame that the compiler made by splitting (not whole spans).
fn sub_frame_splits(track: &CompiledTrack) -> usize {
    let (data, spans) = (&track.data, &track.spans);
    let ends = piece_ends(data);
    data.pieces
        .iter()
        .zip(ends)
        .filter(|(piece, end)| {
            // Most pieces are a frame or longer: the span search only for the others.
            end - piece.start < 1.0
                && !spans
                    .binary_search_by(|s| s.start.total_cmp(&piece.start))
                    .is_ok_and(|i| spans.get(i).is_some_and(|s| s.end == *end))
        })
        .count()
}

/// The smallest degree whose dropped top coefficients sum (largest component) to ≤ `threshold`.
fn trimmed_degree(coeffs: &[[f64; MAX_COMPONENTS]], components: usize, threshold: f64) -> usize {
    let mut dropped = 0.0;
    let mut degree = coeffs.len().saturating_sub(1);
    while degree > 0 {
        let top = coeffs[degree]
            .iter()
            .take(components)
            .fold(0.0f64, |m, x| m.max(crate::math::abs(*x)));
        if dropped + top > threshold {
            break;
        }
        dropped += top;
        degree -= 1;
    }
    degree
}

/// How a piece that cannot hold the tolerance between frames ranks as a fallback (smaller is
/// better): first whether its start value (held by a clamped track before its first frame) is
/// off by more than `limit`, then its error between frames. Near a jump inside a span (an
/// `in_expo` ease at u = 0, say) every fit is poor between frames, and a steep high-degree one
/// can lose its start value to f32 or fixed-point rounding.
fn fallback_rank(checked: &Checked, limit: f64) -> (bool, f64) {
    (checked.start_error > limit, checked.between_error)
}

/// How many of the integer frames `origin + m` (m < `count`) have a whole frame after them
/// before `b` (`origin + m + 1 ≤ b`; true up to some m, then false): counted down from the
/// last, which usually has.
fn with_whole_frame_after(origin: f64, count: usize, b: f64) -> usize {
    let mut whole = count;
    while whole > 0 && origin + (whole - 1) as f64 + 1.0 > b {
        whole -= 1;
    }
    whole
}

/// Whether every number of `values` is finite, by one sum: x · 0 is ±0 for a finite x and
/// NaN otherwise, so the sum is 0 exactly when all are finite (no branch a number).
#[inline]
fn all_finite(values: &[f64]) -> bool {
    values.iter().map(|x| x * 0.0).sum::<f64>() == 0.0
}

/// Whether the first `components` numbers of every row of `rows` are finite, by one sum as
/// [`all_finite`] (a NaN or infinity anywhere makes it NaN).
#[inline]
fn rows_finite(rows: &[[f64; MAX_COMPONENTS]], components: usize) -> bool {
    if components == 1 {
        return rows.iter().map(|v| v[0] * 0.0).sum::<f64>() == 0.0;
    }
    let components = components.min(MAX_COMPONENTS);
    rows.iter()
        .map(|v| v[..components].iter().map(|x| x * 0.0).sum::<f64>())
        .sum::<f64>()
        == 0.0
}

/// A split point of `[a, b]`: the integer nearest the middle if strictly inside, else the middle.
fn split_point(a: f64, b: f64) -> f64 {
    let middle = a + (b - a) / 2.0;
    let rounded = crate::math::round(middle);
    if rounded > a && rounded < b {
        rounded
    } else {
        middle
    }
}

impl TrackCompiler<'_> {
    /// The Lobatto nodes and cosines (made on the first call).
    fn lobatto(&self) -> &LobattoTable {
        self.lobatto.get_or_init(LobattoTable::new)
    }

    /// Compiles `span` into pieces: intervals popped in increasing frame order, each kept
    /// ([`Self::keep`]), refused, or split in two.
    fn compile_span(&mut self, span: &SourceSpan) -> Result<(), CompileError> {
        let poly = self.exact_polynomial(span);
        // Intervals still to compile (last = next), each with the error between frames of its
        // parent's best fallback.
        let mut todo = core::mem::take(&mut self.todo);
        todo.clear();
        todo.push((span.start, span.end, f64::INFINITY));
        let mut budgets = Budgets {
            deep: DEEP_SPLIT_BUDGET,
            work: DEEP_SPLIT_WORK,
            margin: MARGIN_SPLIT_BUDGET,
        };
        while let Some((a, b, parent_between)) = todo.pop() {
            let interval = self.interval(span, a, b)?;
            let mut trial = Trial::default();
            let (precision, limit) = (self.precision, interval.limit);
            self.try_candidates(span, &poly, &interval, (precision, limit), &mut trial)?;
            // Sampled within the limit but not with the margin: split (the halves' fits are
            // shorter, and of lower degree, so their rounding is smaller) while the span's
            // margin budget allows, spending no other budget; else kept as sampled.
            let middle = interval.middle;
            if trial.unmargined
                && middle > a
                && middle < b
                && b - a >= self.min_length()
                && budgets.margin > 0
            {
                budgets.margin -= 1;
                todo.push((middle, b, parent_between));
                todo.push((a, middle, parent_between));
                self.spare = Some((interval.exact, interval.halves, interval.between));
                continue;
            }
            let fallback_between = trial
                .fallback
                .as_ref()
                .map_or(f64::INFINITY, |(_, f)| f.between_error);
            let (minimal, deep) = self.stop_splitting(&interval, &trial, parent_between, &budgets);
            let between_only = trial.fallback.is_some();
            if trial.accepted.is_none() && (minimal || deep) && self.precision == Precision::F32 {
                self.try_wide(span, &poly, &interval, &mut trial)?;
            }
            // Kept by reference (a `Tried` is some 400 bytes): its numbers are taken.
            let kept = match (&mut trial.accepted, &mut trial.fallback) {
                (Some(accepted), _) => Some(accepted),
                (None, Some(fallback)) if minimal => Some(fallback),
                _ => None,
            };
            if let Some(kept) = kept {
                self.probe_f32(&kept.0, &interval);
                self.keep(kept)?;
                self.exact.extend_from_slice(&interval.exact);
            } else if minimal {
                return Err(self.unreachable(trial.best, interval.origin));
            } else {
                let improving = fallback_between < 0.9 * parent_between;
                budgets.spend(deep, improving, between_only);
                todo.push((interval.middle, b, fallback_between));
                todo.push((a, interval.middle, fallback_between));
            }
            self.spare = Some((interval.exact, interval.halves, interval.between));
        }
        self.todo = todo;
        Ok(())
    }

    /// The span's polynomial trimmed to the lowest degree whose dropped top coefficients sum
    /// below `1e-3 × tolerance`, per component, if that degree is within the maximum.
    fn exact_polynomial(&self, span: &SourceSpan) -> ExactPolynomial {
        let SpanShape::Polynomial { coeffs } = &span.shape else {
            return None;
        };
        let degree = trimmed_degree(coeffs, self.components, 1e-3 * self.tolerance);
        (degree <= self.max_degree).then(|| {
            let mut per_component = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
            for (k, row) in coeffs.iter().enumerate().take(degree + 1) {
                for c in 0..self.components {
                    per_component[c][k] = row[c];
                }
            }
            (degree, per_component)
        })
    }

    /// The interval `[a, b)` of `span` with its origin, exact values, split point and limit.
    fn interval(&mut self, span: &SourceSpan, a: f64, b: f64) -> Result<Interval, CompileError> {
        let origin = origin_of(a, b);
        let (mut exact, mut halves, mut between) = self.spare.take().unwrap_or_default();
        self.exact_values(span, (a, b, origin), &mut exact, &mut halves)?;
        self.between_values(span, (a, b, origin), None, &mut between)?;
        let middle = if exact.len() == 1 && origin > a {
            origin
        } else {
            split_point(a, b)
        };
        let limit = if exact.len() <= 1 {
            self.tolerance
        } else {
            ACCEPT_FRACTION * self.tolerance
        };
        // `between` holds `a` and `b`, evaluated as the fits' nodes are off polynomial spans.
        let at = |x: f64| between.iter().find(|(f, _)| *f == x).map(|(_, v)| *v);
        let ends = match span.shape {
            SpanShape::Polynomial { .. } => None,
            _ => at(a).zip(at(b)),
        };
        Ok(Interval {
            a,
            b,
            origin,
            exact,
            halves,
            between,
            middle,
            limit,
            ends,
        })
    }

    /// Tries the candidates of `interval` in order, stored in `precision`, until one is within
    /// `limit` at its integer frames and within `BETWEEN_FRACTION × limit` between them (a
    /// fitted one also near its Lobatto nodes); remembers the best fallback on the way, in
    /// `trial` (empty).
    fn try_candidates(
        &self,
        span: &SourceSpan,
        poly: &ExactPolynomial,
        interval: &Interval,
        (precision, limit): (Precision, f64),
        trial: &mut Trial,
    ) -> Result<(), CompileError> {
        let (a, b, origin) = (interval.a, interval.b, interval.origin);
        let limit = if self.normalize && interval.exact.len() > 1 {
            normalized::ACCEPT * limit
        } else {
            limit
        };
        // A candidate failing at integer frames is only needed whole for the error message of
        // an interval that cannot be split; one that can (and is not below
        // `MIN_FRAME_PIECE_FRAMES`, where budgets decide) is split whatever its error.
        let splittable = interval.middle > a && interval.middle < b && b - a >= self.min_length();
        let check = Limit {
            integer: limit,
            stop_early: splittable && b - a >= MIN_FRAME_PIECE_FRAMES,
        };
        let mut near_nodes = Vec::new();
        // One candidate filled in place for each try (a copy made only of those kept as
        // accepted or fallback): moving 288 bytes of differences through the layers of an
        // iterator cost several copies a candidate.
        let mut candidate = Candidate {
            start: a,
            end: b,
            origin,
            degree: 0,
            differences: [[0.0; MAX_TERMS]; MAX_COMPONENTS],
        };
        for index in 0..self.candidate_count(poly) {
            let fitted = self.fill_candidate(span, poly, index, interval.ends, &mut candidate)?;
            let truth = Truth {
                exact: &interval.exact,
                halves: &interval.halves,
                between: &interval.between,
            };
            let Ok(mut checked) = self.check(&candidate, precision, &truth, check) else {
                continue;
            };
            // Near the nodes only when it holds at integer frames: otherwise it is neither
            // accepted nor a fallback, whatever its error between frames.
            if fitted && checked.max_error <= limit {
                let fit = Some(candidate.degree);
                self.between_values(span, (a, b, origin), fit, &mut near_nodes)?;
                if self.normalize {
                    normalized::check_between(&mut checked, &candidate, &near_nodes);
                } else {
                    checked.check_between(&candidate, self.components, &near_nodes);
                }
                let (sampled, allowed) = (checked.between_error, BETWEEN_FRACTION * limit);
                if sampled <= allowed {
                    checked.between_error += self.rounding_margin(&candidate, &checked, allowed);
                    let refused = checked.between_error > allowed;
                    if refused && b - a < MIN_FRAME_PIECE_FRAMES && self.max_degree > 0 {
                        // The first fit the samples accept; the higher degrees, whose
                        // differences are larger, would round more. Split, or kept as sampled.
                        checked.between_error = sampled;
                        trial.accepted = Some((candidate.clone(), checked));
                        trial.unmargined = true;
                        break;
                    }
                }
            }
            if self.max_degree == 0 {
                // Constant pieces hold each frame's value; between frames they cannot follow.
                checked.between_error = 0.0;
            }
            if checked.max_error <= limit && checked.between_error <= BETWEEN_FRACTION * limit {
                trial.accepted = Some((candidate.clone(), checked));
                break;
            }
            if trial.best.map_or(true, |(e, _)| checked.max_error < e) {
                trial.best = Some((checked.max_error, checked.max_error_frame));
            }
            if checked.max_error <= limit
                && trial.fallback.as_ref().map_or(true, |(_, f)| {
                    fallback_rank(&checked, limit) < fallback_rank(f, limit)
                })
            {
                trial.fallback = Some((candidate.clone(), checked));
            }
        }
        Ok(())
    }

    /// Whether `interval` is not split further (`minimal`), and whether it is shorter than
    /// `MIN_FRAME_PIECE_FRAMES` (`deep`). Split down to `MIN_FRAME_PIECE_FRAMES`; below it,
    /// down to `MIN_PIECE_FRAMES`, only while the integer frames hold and either splitting
    /// keeps reducing the error between frames (by 10 % a halving — near an infinite slope
    /// inside a span it falls like √length) or `DEEP_SPLIT_BUDGET` allows (a steep transition
    /// or a jump fails in one interval a level; a tolerance beyond the precision, everywhere);
    /// and never more than `DEEP_SPLIT_WORK` times a span in all. A curve that oscillates
    /// faster than the frames (`sin(100000 u)`) improves at every halving: without
    /// `DEEP_SPLIT_WORK` one 10-frame span once became 18 000 pieces. Splits made only for the
    /// error between frames (the integer frames hold: there is a fallback) share that budget
    /// at any length: `floor(1020 frame)` over 2 000 frames once split every frame sixteen ways.
    fn stop_splitting(
        &self,
        interval: &Interval,
        trial: &Trial,
        parent_between: f64,
        budgets: &Budgets,
    ) -> (bool, bool) {
        let (a, b) = (interval.a, interval.b);
        let fallback_between = trial
            .fallback
            .as_ref()
            .map_or(f64::INFINITY, |(_, f)| f.between_error);
        let improving = fallback_between < 0.9 * parent_between;
        let deep = b - a < MIN_FRAME_PIECE_FRAMES;
        let between_only = trial.fallback.is_some();
        let splittable = interval.middle > a && interval.middle < b;
        let minimal = !splittable
            || b - a < self.min_length()
            || (deep && !improving && budgets.deep == 0)
            || ((deep || between_only) && budgets.work == 0);
        (minimal, deep)
    }

    /// For an f32 track: f32 cannot hold the unit-step differences of some pieces shorter than
    /// a frame (they grow like 1/length^degree), so the candidates are tried again stored in
    /// f64 (a *wide* piece, limit the tolerance); the first within tolerance between frames
    /// is accepted at `interval.limit`, else the best wide one competes as a fallback.
    fn try_wide(
        &self,
        span: &SourceSpan,
        poly: &ExactPolynomial,
        interval: &Interval,
        trial: &mut Trial,
    ) -> Result<(), CompileError> {
        let mut wide = Trial::default();
        let at = (Precision::F64, self.tolerance);
        self.try_candidates(span, poly, interval, at, &mut wide)?;
        let Some(wide) = wide.accepted.or(wide.fallback) else {
            return Ok(());
        };
        let limit = interval.limit;
        if wide.1.between_error <= BETWEEN_FRACTION * limit {
            trial.accepted = Some(wide);
        } else if trial.fallback.as_ref().map_or(true, |(_, f)| {
            fallback_rank(&wide.1, limit) < fallback_rank(f, limit)
        }) {
            trial.fallback = Some(wide);
        }
        Ok(())
    }

    /// With the f32 probe on: raises it to the error of `candidate` stored in f32 (at integer
    /// frames and between them; infinite when f32 cannot hold its numbers).
    fn probe_f32(&mut self, candidate: &Candidate, interval: &Interval) {
        let Some(probe) = self.f32_probe else {
            return;
        };
        let truth = Truth {
            exact: &interval.exact,
            halves: &interval.halves,
            between: &interval.between,
        };
        let whole = Limit {
            integer: f64::INFINITY,
            stop_early: false,
        };
        let error = self
            .check(candidate, Precision::F32, &truth, whole)
            .map_or(f64::INFINITY, |c| c.max_error.max(c.between_error));
        self.f32_probe = Some(probe.max(error));
    }

    /// `verify::store_and_check`, or for a normalized track `normalized::store_and_check`.
    fn check(
        &self,
        candidate: &Candidate,
        precision: Precision,
        truth: &Truth<'_>,
        limit: Limit,
    ) -> Result<Checked, StoreFailure> {
        if self.normalize {
            normalized::store_and_check(candidate, precision, truth, limit)
        } else {
            store_and_check(candidate, self.components, precision, truth, limit)
        }
    }

    /// Adds a piece (and its error to the track's), refusing it past [`MAX_PIECES`]; its
    /// numbers are taken.
    fn keep(&mut self, (candidate, checked): &mut Tried) -> Result<(), CompileError> {
        if checked.max_error > self.max_error.0 {
            self.max_error = (checked.max_error, checked.max_error_frame);
        }
        if self.pieces_before + self.pieces.len() >= MAX_PIECES {
            return Err(CompileError::TooManyPieces {
                track: self.input.name.to_string(),
                frame: candidate.start,
                max: MAX_PIECES,
            });
        }
        self.pieces.push(PieceData {
            start: candidate.start,
            origin: candidate.origin,
            degree: candidate.degree as u8,
            exponent: checked.exponent,
            numbers: core::mem::replace(&mut checked.numbers, PieceNumbers::F64(Vec::new())),
        });
        Ok(())
    }

    /// The error for an interval that nothing holds and that cannot be split: the best
    /// candidate's error at integer frames, or `OutOfRange` when none could be stored.
    fn unreachable(&self, best: Option<(f64, f64)>, origin: f64) -> CompileError {
        match best {
            Some((error, frame)) => CompileError::ToleranceExceeded {
                track: self.input.name.to_string(),
                frame,
                error,
                tolerance: self.tolerance,
                precision: self.precision,
                max_degree: self.max_degree as u8,
            },
            None => CompileError::OutOfRange {
                track: self.input.name.to_string(),
                frame: origin,
                precision: self.precision,
            },
        }
    }

    /// Pieces shorter than this are not split further: `MIN_PIECE_FRAMES`, or one frame at
    /// degree 0.
    fn min_length(&self) -> f64 {
        if self.max_degree == 0 {
            1.0
        } else {
            MIN_PIECE_FRAMES
        }
    }

    /// Exact values at the integer frames of `[a, b)` from `origin` on (`exact`), and at the
    /// half frames after them that are before `b` (`halves`): for a polynomial span its own
    /// polynomial (Horner in `v`, what `CurveSource::eval` is there), else
    /// `CurveSource::eval` at integer frames and `eval_in_span` at half frames.
    fn exact_values(
        &self,
        span: &SourceSpan,
        (a, b, origin): (f64, f64, f64),
        exact: &mut Vec<[f64; MAX_COMPONENTS]>,
        halves: &mut Vec<[f64; MAX_COMPONENTS]>,
    ) -> Result<(), CompileError> {
        exact.clear();
        halves.clear();
        if let SpanShape::Polynomial { coeffs } = &span.shape {
            return self.polynomial_values(span, coeffs, (a, b, origin), exact, halves);
        }
        // Integer frames (the document's value there, `eval`), then the half frames before
        // `b` (`eval_in_span`), each list evaluated in one call.
        let mut frames: Vec<(f64, [f64; MAX_COMPONENTS])> = (0..integer_frames(a, b))
            .map(|m| (origin + m as f64, [0.0; MAX_COMPONENTS]))
            .collect();
        self.eval_frames(span, &mut frames, true)?;
        exact.extend(frames.iter().map(|(_, v)| *v));
        let whole = with_whole_frame_after(origin, exact.len(), b);
        frames.clear();
        frames.extend((0..whole).map(|m| (origin + m as f64 + 0.5, [0.0; MAX_COMPONENTS])));
        self.eval_frames(span, &mut frames, false)?;
        halves.extend(frames.iter().map(|(_, v)| *v));
        Ok(())
    }

    /// The exact values of the (non-polynomial) `span` at the frames of `out`: `eval` there
    /// (`document`, the frames increasing inside the span) or `eval_in_span`, in one call
    /// (`CurveSource::eval_each_in_span`, `eval_in_span_each`); the first frame in order
    /// whose value is not finite, or that the source refuses, gives the error (as frame by
    /// frame).
    fn eval_frames(
        &self,
        span: &SourceSpan,
        out: &mut [(f64, [f64; MAX_COMPONENTS])],
        document: bool,
    ) -> Result<(), CompileError> {
        let source = self.input.source;
        let result = if document {
            source.eval_each_in_span(span, out)
        } else {
            source.eval_in_span_each(span, out)
        };
        let evaluated = match result {
            Ok(()) => out.len(),
            Err((i, _)) => i,
        };
        if !source.reports_non_finite(span) {
            self.first_non_finite(span, &out[..evaluated])?;
        }
        result.map_err(|(_, e)| non_finite(self.input.name, e))
    }

    /// [`Self::exact_values`] on a polynomial span: the same frames and the same arithmetic
    /// as `SourceSpan::polynomial_value`, in two tight loops, the finiteness checked after
    /// each (the first non-finite frame in the same order).
    fn polynomial_values(
        &self,
        span: &SourceSpan,
        coeffs: &[[f64; MAX_COMPONENTS]],
        (a, b, origin): (f64, f64, f64),
        exact: &mut Vec<[f64; MAX_COMPONENTS]>,
        halves: &mut Vec<[f64; MAX_COMPONENTS]>,
    ) -> Result<(), CompileError> {
        let count = integer_frames(a, b) as usize;
        let length = span.end - span.start;
        let components = self.components;
        let at = (span.start, length);
        horner_rows_grid::<false>(coeffs, at, components, (origin, count), exact);
        // Half frames `origin + m + ½` for the integer frames with a whole frame after them.
        let whole = with_whole_frame_after(origin, count, b);
        horner_rows_grid::<true>(coeffs, at, components, (origin, whole), halves);
        let finite = |v: &[f64; MAX_COMPONENTS]| all_finite(&v[..components.min(MAX_COMPONENTS)]);
        // One sum over all the values first; the first bad frame is looked for only if any is.
        if rows_finite(exact, components) && rows_finite(halves, components) {
            return Ok(());
        }
        let bad = match exact.iter().position(|v| !finite(v)) {
            Some(m) => Some(origin + m as f64),
            None => halves
                .iter()
                .position(|v| !finite(v))
                .map(|m| origin + m as f64 + 0.5),
        };
        match bad {
            Some(frame) => Err(CompileError::NonFinite {
                track: self.input.name.to_string(),
                frame,
                key: span.key,
            }),
            None => Ok(()),
        }
    }

    /// `NonFinite` when a component of `value` (the exact value at `frame`) is not finite.
    fn check_finite(
        &self,
        span: &SourceSpan,
        frame: f64,
        value: &[f64; MAX_COMPONENTS],
    ) -> Result<(), CompileError> {
        if value.iter().take(self.components).all(|v| v.is_finite()) {
            return Ok(());
        }
        Err(CompileError::NonFinite {
            track: self.input.name.to_string(),
            frame,
            key: span.key,
        })
    }

    /// Exact values between the integer frames of `[a, b)`: at `a` and `b` (the span's formula
    /// there, the limit from inside), at the midpoints between its
    /// integer frames, between its start and its first integer frame, and between its last
    /// integer frame and its end (at a quarter, half and three quarters of a piece without
    /// integer frames; at 4 (n + 1) evenly spaced points of a piece shorter than 2 (n + 1)
    /// frames); with `fit_degree`, instead at k/8 (k = 1..7) of the way between consecutive
    /// Lobatto nodes of that degree, where a fit's error peaks. Checked so that rate playback
    /// and wrapped frames, which land between frames, stay within tolerance.
    fn between_values(
        &self,
        span: &SourceSpan,
        (a, b, origin): (f64, f64, f64),
        fit_degree: Option<usize>,
        out: &mut Vec<(f64, [f64; MAX_COMPONENTS])>,
    ) -> Result<(), CompileError> {
        out.clear();
        let mut frames = Frames(out);
        if let Some(d) = fit_degree {
            let d = d.max(1);
            frames.0.reserve(7 * d);
            for j in 0..d {
                let lobatto = self.lobatto();
                let (v0, v1) = (lobatto.node(j, d), lobatto.node(j + 1, d));
                for k in 1..8 {
                    frames.push(a + (v0 + f64::from(k) / 8.0 * (v1 - v0)) * (b - a));
                }
            }
            return self.fill_values(span, out);
        }
        // Short pieces: 4 (n + 1) evenly spaced points for the highest degree n, so the
        // polynomial error of the stored numbers is sampled densely however short the piece.
        let even = 4 * (self.max_degree + 1);
        if b - a < even as f64 / 2.0 {
            frames.extend((1..even).map(|k| a + (b - a) * k as f64 / even as f64));
        }
        // Where integer frames outside the keys wrap to: played like integer frames.
        let from = self.wrapped_frames.partition_point(|w| *w < a);
        let to = self.wrapped_frames.partition_point(|w| *w < b);
        frames.extend(
            self.wrapped_frames
                .get(from..to)
                .unwrap_or(&[])
                .iter()
                .copied(),
        );
        let count = integer_frames(a, b);
        // The ends: a clamped track holds the value at its first frame, and frames just before
        // the end are played from this piece.
        frames.extend([a, b]);
        if count == 0 {
            frames.extend([0.25, 0.5, 0.75].map(|x| a + x * (b - a)));
        } else {
            if origin > a {
                frames.push((a + origin) / 2.0);
            }
            // Half frames before `b` are checked from `halves`; the last midpoint when the piece
            // ends less than a frame after its last integer frame is checked here.
            let last = origin + (count - 1) as f64;
            if last + 1.0 > b {
                frames.push((last + b) / 2.0);
            }
        }
        self.fill_values(span, out)
    }

    /// How many pieces are tried on an interval ([`Self::fill_candidate`]): the exact
    /// polynomial if there is one, and one fit a degree from 1 (0 when the maximum is 0) up to
    /// the maximum.
    fn candidate_count(&self, exact_poly: &ExactPolynomial) -> usize {
        usize::from(exact_poly.is_some()) + self.max_degree + 1 - self.max_degree.min(1)
    }

    /// Fills `candidate` (its start, end and origin those of the interval) with the piece
    /// number `index` to try, in order: the exact polynomial (if the span is one within the
    /// maximum degree), then Chebyshev–Lobatto fits of degree 1 (0 when the maximum is 0) up
    /// to the maximum — lower degrees are better conditioned on pieces shorter than a frame,
    /// where unit-step differences grow like 1/length^degree. True for a fit.
    fn fill_candidate(
        &self,
        span: &SourceSpan,
        exact_poly: &ExactPolynomial,
        index: usize,
        ends: Option<Ends>,
        candidate: &mut Candidate,
    ) -> Result<bool, CompileError> {
        match (exact_poly, index) {
            (Some((degree, coeffs)), 0) => {
                self.exact_candidate(span, *degree, coeffs, candidate);
                Ok(false)
            }
            _ => {
                let d = self.max_degree.min(1) + index - usize::from(exact_poly.is_some());
                self.fitted_candidate(span, d, ends, candidate)?;
                Ok(true)
            }
        }
    }

    /// Fills in the exact values of `span` at the frames of `out`: its polynomial
    /// (`SourceSpan::polynomial_value`), else `CurveSource::eval_in_span`.
    fn fill_values(
        &self,
        span: &SourceSpan,
        out: &mut [(f64, [f64; MAX_COMPONENTS])],
    ) -> Result<(), CompileError> {
        let SpanShape::Polynomial { coeffs } = &span.shape else {
            return self.eval_frames(span, out, false);
        };
        // `SourceSpan::polynomial_value` at each frame, its degree chosen once.
        horner_rows_at(
            coeffs,
            (span.start, span.end - span.start),
            self.components,
            out,
        );
        self.first_non_finite(span, out)
    }

    /// `check_finite` at the first of the frames of `out` whose value is not finite (the
    /// error frame by frame gives), if any.
    fn first_non_finite(
        &self,
        span: &SourceSpan,
        out: &[(f64, [f64; MAX_COMPONENTS])],
    ) -> Result<(), CompileError> {
        let components = self.components.min(MAX_COMPONENTS);
        // One sum over all the values first (as `rows_finite`); the frame is looked for only
        // if any is not finite.
        let finite = if components == 1 {
            out.iter().map(|(_, v)| v[0] * 0.0).sum::<f64>() == 0.0
        } else {
            out.iter()
                .map(|(_, v)| v[..components].iter().map(|x| x * 0.0).sum::<f64>())
                .sum::<f64>()
                == 0.0
        };
        if finite {
            return Ok(());
        }
        for (frame, value) in out {
            if !all_finite(&value[..components]) {
                self.check_finite(span, *frame, value)?;
            }
        }
        Ok(())
    }

    /// What a fit's sampled error between frames is raised by, so that it bounds the
    /// rounding of the played values between the samples too, not only at them: each sample
    /// is a played value, within the entry rounding bound `R` of the stored polynomial `P`
    /// (`seek::entry_rounding`: a seek to any position of the piece, or the first value at any
    /// step), so `|P − exact|` is within the sample's error plus `R` there, and a value played
    /// anywhere is within `R` of `P`: `2R`. On a normalized track each component of a
    /// normalized value moves at most `2 |a − b| / |b|` with `|a − b| ≤ 2R` (four components)
    /// and `|b| ≥ ½` (a fit of a unit quaternion): `8R` at a sample and anywhere, `16R`.
    /// Where the sampled error plus that exceeds `allowed`, `R` is taken from
    /// `seek::entry_rounding_sharp` instead, whose position term keeps the cancellation
    /// between the differences (on a fit much shorter than a frame the other is orders of
    /// magnitude above it). Added (`try_candidates`) on every fit that the samples accept;
    /// on one shorter than 1/16 frame (`MIN_FRAME_PIECE_FRAMES`) that it refuses, the
    /// interval is split under its own budget (`MARGIN_SPLIT_BUDGET`). Without it the samples
    /// missed the rounding of fits under an oscillating ease (a 1/8-frame degree-8 piece of a
    /// value near 100 with unit-step differences up to 3e13: 1.07 × the tolerance between
    /// them; a 0.055-frame degree-7 piece, 1.16 ×; `tests/between_frames.rs`).
    fn rounding_margin(&self, candidate: &Candidate, checked: &Checked, allowed: f64) -> f64 {
        let components = if self.normalize { 4 } else { self.components };
        let widened = checked.widened_all(components, candidate.degree + 1);
        let at = (candidate.start, candidate.end, candidate.origin);
        let factor = if self.normalize { 16.0 } else { 2.0 };
        let margin = factor * entry_rounding(&widened, (components, candidate.degree), at);
        if checked.between_error + margin <= allowed {
            return margin;
        }
        factor * entry_rounding_sharp(&widened, (components, candidate.degree), at)
    }

    /// Sets `candidate` (on a sub-interval of `span`) to the exact differences of the
    /// polynomial span at its origin.
    fn exact_candidate(
        &self,
        span: &SourceSpan,
        degree: usize,
        coeffs: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
        candidate: &mut Candidate,
    ) {
        candidate.degree = degree;
        candidate.differences = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
        for c in 0..self.components {
            power_to_differences(
                &coeffs[c][..=degree],
                span.end - span.start,
                candidate.origin - span.start,
                &mut candidate.differences[c][..=degree],
            );
        }
    }

    /// Sets `candidate` to the Chebyshev–Lobatto interpolant of degree `d` over its closed
    /// `[start, end]`, as differences at its origin. With `ends` (the exact values at the start
    /// and end, as `eval_in_span_each` gives them) the end nodes are not evaluated again.
    fn fitted_candidate(
        &self,
        span: &SourceSpan,
        d: usize,
        ends: Option<Ends>,
        candidate: &mut Candidate,
    ) -> Result<(), CompileError> {
        let (a, b, origin) = (candidate.start, candidate.end, candidate.origin);
        let lobatto = self.lobatto();
        let mut frames = [(0.0, [0.0; MAX_COMPONENTS]); MAX_TERMS];
        for (j, (frame, _)) in frames.iter_mut().enumerate().take(d + 1) {
            *frame = if j == 0 {
                a
            } else if j == d {
                b
            } else {
                a + lobatto.node(j, d) * (b - a)
            };
        }
        match ends {
            // Both ends known (finite: the interval's values there were checked); the inner
            // nodes evaluated in order, so their first error is the one all the nodes give.
            Some((at_a, at_b)) if d >= 1 => {
                if d >= 2 {
                    self.eval_frames(span, &mut frames[1..d], false)?;
                }
                frames[0].1 = at_a;
                frames[d].1 = at_b;
            }
            _ => self.eval_frames(span, &mut frames[..=d], false)?,
        }
        let mut nodes = [[0.0; MAX_COMPONENTS]; MAX_TERMS];
        for (node, (_, value)) in nodes.iter_mut().zip(&frames).take(d + 1) {
            node[..self.components].copy_from_slice(&value[..self.components]);
        }
        // Every component side by side (unused ones are zeros and stay zeros).
        let power = lobatto.interpolant_components(&nodes, d);
        candidate.degree = d;
        candidate.differences = power_to_differences_components(&power, d + 1, b - a, origin - a);
        Ok(())
    }
}

impl Budgets {
    /// Spends the budgets on a split: `DEEP_SPLIT_WORK` for a split below
    /// `MIN_FRAME_PIECE_FRAMES` or made only for the error between frames, `DEEP_SPLIT_BUDGET`
    /// for a split below it that did not reduce that error.
    fn spend(&mut self, deep: bool, improving: bool, between_only: bool) {
        if deep || between_only {
            self.work = self.work.saturating_sub(1);
        }
        if deep && !improving {
            self.deep = self.deep.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::convert::LobattoTable;
    use super::super::source::{CurveSource, MAX_COMPONENTS};
    use crate::Document;
    use alloc::vec::Vec;

    /// `a`, `b` and the Lobatto nodes of degrees 2–8 between them, as the fits place them.
    fn lobatto_frames(a: f64, b: f64) -> Vec<(f64, [f64; MAX_COMPONENTS])> {
        let lobatto = LobattoTable::new();
        let mut frames = alloc::vec![a, b];
        for d in 2..=8 {
            frames.extend((1..d).map(|j| a + lobatto.node(j, d) * (b - a)));
        }
        frames
            .into_iter()
            .map(|f| (f, [0.0; MAX_COMPONENTS]))
            .collect()
    }

    /// What `Interval::ends` relies on: a source's `eval_in_span_each` gives each frame the
    /// bits it gives that frame alone, so the values at an interval's ends (evaluated among
    /// its other between-frame points) are those of a fit's end nodes (evaluated among its
    /// Lobatto nodes). On every span of the example, Blender and tiny-span documents' tracks
    /// (slerps, eases, Béziers, F-curves, steps), the start, end and Lobatto nodes of degrees
    /// 1–8 of the span and of its first half, in one call and one by one.
    #[test]
    fn a_frames_value_in_span_is_the_same_alone_or_among_others() {
        let texts = [
            include_str!("../../../../examples/showcase.json"),
            include_str!("../../../../tests/blender/case3.json"),
            include_str!("../../tests/fuzz_regressions/document_json/hostile_loop_tiny_span.json"),
        ];
        let mut compared = 0;
        for text in texts {
            let doc = Document::from_json_str(text, "test.json").expect("a test document");
            for track in doc.tracks() {
                for span in track.spans() {
                    let (a, b) = (span.start, span.start + (span.end - span.start) / 2.0);
                    for (a, b) in [(span.start, span.end), (a, b)] {
                        let mut together = lobatto_frames(a, b);
                        let batch = track.eval_in_span_each(&span, &mut together);
                        for (i, (frame, value)) in together.iter().enumerate() {
                            if batch.as_ref().is_err_and(|(at, _)| i >= *at) {
                                break;
                            }
                            let mut alone = [(*frame, [0.0; MAX_COMPONENTS])];
                            let single = track.eval_in_span_each(&span, &mut alone);
                            assert!(single.is_ok(), "{} at {frame}", track.name());
                            assert_eq!(alone[0].1.map(f64::to_bits), value.map(f64::to_bits));
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared > 1_000, "{compared} values compared");
    }

    /// `rows_finite` (one sum over all the rows) says what checking each row with
    /// `all_finite` says, on 20 000 random lists: 0–40 rows of 1–4 components, values of any
    /// size and sign (some ±0, some beyond f32's range), and in about half of them one NaN or
    /// ±∞ in a used component, or in an unused one (which must not count).
    #[test]
    fn one_sum_over_the_rows_is_each_rows_finiteness() {
        use super::{all_finite, rows_finite};
        use crate::compile::verify::tests::Random;
        let mut random = Random(0xf1_417e_5ca1_ab1e);
        let mut flagged = 0;
        for case in 0..20_000 {
            let components = 1 + case % 4;
            let count = (random.unit() * 41.0) as usize;
            let mut rows: Vec<[f64; MAX_COMPONENTS]> = (0..count)
                .map(|_| {
                    core::array::from_fn(|_| {
                        let size = crate::math::powi(10.0, (random.unit() * 600.0) as i32 - 300);
                        if random.unit() < 0.05 {
                            -0.0
                        } else {
                            random.symmetric(size)
                        }
                    })
                })
                .collect();
            if count > 0 && random.unit() < 0.5 {
                let m = ((random.unit() * count as f64) as usize).min(count - 1);
                let c = ((random.unit() * MAX_COMPONENTS as f64) as usize).min(MAX_COMPONENTS - 1);
                rows[m][c] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][case % 3];
            }
            let each = rows.iter().all(|v| all_finite(&v[..components]));
            flagged += usize::from(!each);
            assert_eq!(rows_finite(&rows, components), each, "case {case}");
        }
        assert!(flagged > 1_000, "{flagged} lists with a value not finite");
    }
}
