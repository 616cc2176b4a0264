//! Tracks as compiler input: their spans, the exact polynomial of each span where there is one, and exact evaluation.

use alloc::vec;
use alloc::vec::Vec;

use crate::compile::source::{
    Coefficients, CurveSource, NonFiniteValue, SourceSpan, SpanShape, MAX_COMPONENTS,
};
use crate::compile::{
    compile_tracks_with_progress, CompileError, CompileOptions, CompiledStream, TrackInput,
    MAX_PIECES, MAX_SPANS_PER_TRACK,
};
use crate::document::Document;
use crate::ease::{Ease, EaseDirection, EasePiece, PennerFamily};
use crate::stream::{StreamValueType, StreamWrap};
use crate::track::{SegmentForm, Track, Wrap};
use crate::value::{Value, ValueType};

/// The stream's code for a value type.
#[must_use]
pub fn stream_value_type(value_type: ValueType) -> StreamValueType {
    match value_type {
        ValueType::Scalar => StreamValueType::Scalar,
        ValueType::Vec2 => StreamValueType::Vec2,
        ValueType::Vec3 => StreamValueType::Vec3,
        ValueType::Vec4 => StreamValueType::Vec4,
        ValueType::Color => StreamValueType::Color,
        ValueType::Quat => StreamValueType::Quat,
    }
}

/// The document's wrap for a stream's code (the two fold frames identically).
#[must_use]
pub fn track_wrap(wrap: StreamWrap) -> Wrap {
    match wrap {
        StreamWrap::Clamp => Wrap::Clamp,
        StreamWrap::Loop => Wrap::Loop,
        StreamWrap::PingPong => Wrap::PingPong,
    }
}

/// The stream's code for a wrap.
#[must_use]
pub fn stream_wrap(wrap: Wrap) -> StreamWrap {
    match wrap {
        Wrap::Clamp => StreamWrap::Clamp,
        Wrap::Loop => StreamWrap::Loop,
        Wrap::PingPong => StreamWrap::PingPong,
    }
}

/// The stream wrap of a track: its own wrap, or for an F-curve track the one that plays its
/// extrapolation and cycles with its outside record (see
/// [`crate::fcurve::FCurve::stream_outside`]).
fn track_stream_wrap(track: &Track) -> Result<StreamWrap, CompileError> {
    match track.fcurve() {
        None => Ok(stream_wrap(track.wrap())),
        Some(curve) => curve
            .stream_wrap()
            .map_err(|reason| CompileError::OutsideKeys {
                track: track.name().into(),
                reason,
            }),
    }
}

impl Document {
    /// Compiles every track into one forward-difference stream (see [`crate::compile`]): exact
    /// differences where a span is a polynomial, fitted pieces elsewhere, every integer frame
    /// verified in the precision that will play it.
    ///
    /// # Errors
    /// The compiler's errors, naming the track (and frame where one is at fault); among them
    /// `TooManyPieces` before any work when the `steps` eases alone ask for more than
    /// [`MAX_PIECES`] constant spans.
    pub fn compile(&self, options: &CompileOptions) -> Result<CompiledStream, CompileError> {
        self.compile_with_progress(options, &mut |_, _| {})
    }

    /// [`Document::compile`], calling `progress(done, total)` after each track is compiled
    /// (`total` = number of tracks; the final whole-stream verification follows the last call).
    ///
    /// # Errors
    /// As [`Document::compile`].
    pub fn compile_with_progress(
        &self,
        options: &CompileOptions,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<CompiledStream, CompileError> {
        // Before any work: a `steps(n)` ease is n spans, whatever the size of the document.
        let mut spans = 0u64;
        for track in self.tracks() {
            check_step_spans(track, &mut spans)?;
        }
        let inputs: Vec<TrackInput<'_>> = self
            .tracks()
            .iter()
            .map(|t| {
                Ok(TrackInput {
                    name: t.name(),
                    value_type: stream_value_type(t.value_type()),
                    wrap: track_stream_wrap(t)?,
                    source: t,
                })
            })
            .collect::<Result<_, CompileError>>()?;
        compile_tracks_with_progress(&inputs, self.fps(), options, progress)
    }
}

/// Counts the spans of `track` with each `steps` ease counted as its n constant spans, one a
/// step, and refuses the track before any span is listed when they number more than
/// [`MAX_SPANS_PER_TRACK`] (`TooManySpans`, naming the key whose ease crosses it) or, added to
/// `spans` (the count of the tracks before it), more than [`MAX_PIECES`] (`TooManyPieces`):
/// every span becomes at least one piece, and `steps(n)` allows n up to 2^32 − 1, so without
/// this a 181-byte document made the compiler list a billion spans (23 GiB).
fn check_step_spans(track: &Track, spans: &mut u64) -> Result<(), CompileError> {
    let limit = MAX_PIECES as u64;
    let mut own = 0u64;
    let mut count = |n: u64, key: usize, frame: f64| {
        own += n;
        *spans += n;
        if own > MAX_SPANS_PER_TRACK {
            return Err(CompileError::TooManySpans {
                track: track.name().into(),
                key,
                frame,
                spans: own,
                max: MAX_SPANS_PER_TRACK,
            });
        }
        if *spans > limit {
            return Err(CompileError::TooManyPieces {
                track: track.name().into(),
                frame,
                max: MAX_PIECES,
            });
        }
        Ok(())
    };
    if let crate::track::PathMode::Arclength {
        ease: Ease::Steps(steps),
    } = track.path()
    {
        count(u64::from(steps.count()), 0, track.first_frame())?;
    }
    let keys = track.keys();
    for (i, key) in keys.iter().take(keys.len().saturating_sub(1)).enumerate() {
        let n = match key.ease {
            Ease::Steps(steps) => u64::from(steps.count()),
            _ => 1,
        };
        count(n, i, key.frame)?;
    }
    Ok(())
}

/// Coefficients of `outer(inner(v))`, both in the power basis, lowest order first.
fn compose(outer: &[f64], inner: &[f64]) -> Vec<f64> {
    let mut result = vec![0.0];
    for &c in outer.iter().rev() {
        // result ← result · inner + c
        let mut next = vec![0.0; result.len() + inner.len() - 1];
        for (i, &r) in result.iter().enumerate() {
            for (j, &p) in inner.iter().enumerate() {
                next[i + j] += r * p;
            }
        }
        next[0] += c;
        result = next;
    }
    trim(result)
}

/// Drops trailing exact zeros (keeps at least one coefficient).
fn trim(mut p: Vec<f64>) -> Vec<f64> {
    while p.len() > 1 && p.last() == Some(&0.0) {
        p.pop();
    }
    p
}

/// Product of two polynomials.
fn multiply(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}

/// Where a non-polynomial ease has a kink or a singular derivative, in u: fitting is split there.
fn ease_breakpoints(ease: &Ease) -> Vec<f64> {
    let kinks = [1.0 / 2.75, 2.0 / 2.75, 2.5 / 2.75];
    match ease {
        Ease::Penner(direction, PennerFamily::Bounce) => match direction {
            EaseDirection::Out => kinks.to_vec(),
            EaseDirection::In => kinks.iter().rev().map(|x| 1.0 - x).collect(),
            EaseDirection::InOut => {
                let mut v: Vec<f64> = kinks.iter().rev().map(|x| (1.0 - x) / 2.0).collect();
                v.push(0.5);
                v.extend(kinks.iter().map(|x| 0.5 + x / 2.0));
                v
            }
        },
        Ease::Penner(EaseDirection::InOut, _) => vec![0.5],
        _ => Vec::new(),
    }
}

impl Track {
    /// The segment's shape as a polynomial in the eased u, per component, if it is one
    /// (`None` for slerp, expressions and normalized quaternion kinds).
    fn segment_polynomial(&self, index: usize) -> Option<Coefficients> {
        let segment = self.segment(index)?;
        if segment.normalize {
            return None;
        }
        let keys = self.keys();
        let (k0, k1) = (keys.get(index)?, keys.get(index + 1)?);
        let (p0, p1) = (k0.value.to_array(), k1.value.to_array());
        let dims = self.components();
        // The rows each fixed form sets, made at once (`set` grew them row by row); up to a
        // cubic's four in place.
        let rows = match &segment.form {
            SegmentForm::Hold => 1,
            SegmentForm::Lerp => 2,
            SegmentForm::Hermite { .. } | SegmentForm::Bezier { .. } => 4,
            _ => 0,
        };
        let mut coeffs = Coefficients::zeros(rows);
        let mut set = |k: usize, c: usize, x: f64| {
            if coeffs.len() <= k {
                coeffs.resize(k + 1);
            }
            coeffs[k][c] = x;
        };
        match &segment.form {
            SegmentForm::Hold => {
                for (c, x) in p0.iter().enumerate().take(dims) {
                    set(0, c, *x);
                }
            }
            SegmentForm::Lerp => {
                for c in 0..dims {
                    set(0, c, p0[c]);
                    set(1, c, p1[c] - p0[c]);
                }
            }
            SegmentForm::Hermite { m0, m1 } => {
                for c in 0..dims {
                    set(0, c, p0[c]);
                    set(1, c, m0[c]);
                    set(2, c, -3.0 * p0[c] - 2.0 * m0[c] + 3.0 * p1[c] - m1[c]);
                    set(3, c, 2.0 * p0[c] + m0[c] - 2.0 * p1[c] + m1[c]);
                }
            }
            SegmentForm::Bezier { c1, c2 } => {
                for c in 0..dims {
                    set(0, c, p0[c]);
                    set(1, c, 3.0 * (c1[c] - p0[c]));
                    set(2, c, 3.0 * (p0[c] - 2.0 * c1[c] + c2[c]));
                    set(3, c, -p0[c] + 3.0 * c1[c] - 3.0 * c2[c] + p1[c]);
                }
            }
            SegmentForm::Lagrange { start, count } => {
                let window = self.lagrange_window(*start, *count)?;
                let length = k1.frame - k0.frame;
                let mut acc: Vec<[f64; MAX_COMPONENTS]> = Vec::new();
                for (j, kj) in window.iter().enumerate() {
                    // Basis j in u: Π_{m≠j} ((f_i − f_m) + N·u) / (f_j − f_m).
                    let mut basis = vec![1.0];
                    for (m, km) in window.iter().enumerate() {
                        if m != j {
                            let d = kj.frame - km.frame;
                            basis = multiply(&basis, &[(k0.frame - km.frame) / d, length / d]);
                        }
                    }
                    if acc.len() < basis.len() {
                        acc.resize(basis.len(), [0.0; MAX_COMPONENTS]);
                    }
                    for (row, b) in acc.iter_mut().zip(&basis) {
                        for (slot, v) in row.iter_mut().zip(kj.value.iter()).take(dims) {
                            *slot += b * v;
                        }
                    }
                }
                for (k, row) in acc.iter().enumerate() {
                    for (c, x) in row.iter().enumerate().take(dims) {
                        set(k, c, *x);
                    }
                }
            }
            SegmentForm::Slerp | SegmentForm::Expr(_) => return None,
        }
        Some(coeffs)
    }

    /// Spans of segment `index` appended to `out`.
    fn push_segment_spans(&self, index: usize, out: &mut Vec<SourceSpan>) {
        let keys = self.keys();
        let pair = (keys.get(index), keys.get(index + 1));
        // `spans` asks only for the segments 0 .. n − 1.
        debug_assert!(
            pair.0.is_some() && pair.1.is_some(),
            "segment {index} out of range"
        );
        let (Some(k0), Some(k1)) = pair else {
            return;
        };
        let (f0, length) = (k0.frame, k1.frame - k0.frame);
        let dims = self.components();
        let constant = |start: f64, end: f64| {
            // The value inside the span: its midpoint is safely past any rounding of `start`.
            let v = self.eval_segment(index, start + 0.5 * (end - start));
            constant_span(index, (start, end), &v, dims)
        };
        if matches!(
            self.segment(index).map(|s| &s.form),
            Some(SegmentForm::Hold)
        ) {
            out.push(constant(f0, k1.frame));
            return;
        }
        if let Ease::Steps(steps) = k0.ease {
            // Piecewise constant: one span per step, breaking where ⌊(f − f_i)·n / N⌋ changes.
            for (start, end) in step_spans(f0, k1.frame, steps.count()) {
                out.push(constant(start, end));
            }
            return;
        }
        let shape = match (self.segment_polynomial(index), k0.ease) {
            (Some(mut coeffs), Ease::Linear) => {
                if linear_composed(&mut coeffs, dims) {
                    // `Ease::Linear`'s one piece: u from 0 to 1, e(u) = u.
                    let (start, end) = (f0 + 0.0 * length, f0 + 1.0 * length);
                    if end > start {
                        out.push(SourceSpan {
                            start,
                            end,
                            key: index,
                            shape: SpanShape::Polynomial { coeffs },
                        });
                    }
                    return;
                }
                Some(coeffs)
            }
            (shape, _) => shape,
        };
        match (k0.ease.polynomial_pieces(), shape) {
            (Some(pieces), Some(shape)) => {
                for piece in pieces {
                    let (start, end) = (f0 + piece.start * length, f0 + piece.end * length);
                    if end > start {
                        let coeffs = eased_shape(&piece, &shape, dims).into();
                        out.push(SourceSpan {
                            start,
                            end,
                            key: index,
                            shape: SpanShape::Polynomial { coeffs },
                        });
                    }
                }
            }
            _ => push_smooth_spans(index, (f0, k1.frame), &ease_breakpoints(&k0.ease), out),
        }
    }
}

/// The power-basis coefficients, in the piece's own v ∈ [0, 1], of a segment's polynomial
/// `shape` (rows per power of u, `dims` components) eased by one polynomial ease piece:
/// u = piece.start + (piece.end − piece.start)·v, u' = e(u), value = S(u').
fn eased_shape(
    piece: &EasePiece,
    shape: &[[f64; MAX_COMPONENTS]],
    dims: usize,
) -> Vec<[f64; MAX_COMPONENTS]> {
    let u_of_v = [piece.start, piece.end - piece.start];
    let eased = compose(&piece.coeffs, &u_of_v);
    let per_component: Vec<Vec<f64>> = (0..dims)
        .map(|c| {
            let s: Vec<f64> = shape.iter().map(|row| row[c]).collect();
            compose(&s, &eased)
        })
        .collect();
    let degree = per_component.iter().map(Vec::len).max().unwrap_or(1);
    (0..degree)
        .map(|k| {
            let mut row = [0.0; MAX_COMPONENTS];
            for (c, p) in per_component.iter().enumerate() {
                row[c] = p.get(k).copied().unwrap_or(0.0);
            }
            row
        })
        .collect()
}

/// A constant span of segment `index` over [start, end] holding the first `dims` components of
/// `value`.
pub(crate) fn constant_span(
    index: usize,
    (start, end): (f64, f64),
    value: &Value,
    dims: usize,
) -> SourceSpan {
    let mut row = [0.0; MAX_COMPONENTS];
    row[..dims].copy_from_slice(&value[..dims]);
    SourceSpan {
        start,
        end,
        key: index,
        shape: SpanShape::Polynomial {
            coeffs: Coefficients::from(&[row][..]),
        },
    }
}

/// Smooth spans of segment `index` over the frames [f0, f1], cut at the normalized times `cuts`
/// (increasing, in (0, 1); the end u = 1 is added): u ↦ f0 + u·(f1 − f0), and u = 1 is f1
/// exactly. Empty pieces are skipped.
pub(crate) fn push_smooth_spans(
    index: usize,
    (f0, f1): (f64, f64),
    cuts: &[f64],
    out: &mut Vec<SourceSpan>,
) {
    let length = f1 - f0;
    let mut start = f0;
    for &u in cuts.iter().chain(&[1.0]) {
        let end = if u >= 1.0 { f1 } else { f0 + u * length };
        if end > start {
            out.push(SourceSpan {
                start,
                end,
                key: index,
                shape: SpanShape::Smooth,
            });
            start = end;
        }
    }
}

/// [`eased_shape`] for the `linear` ease (one piece, e(u) = u on [0, 1]) without arithmetic
/// or allocation, when the shape is finite: then `compose(s, [0, 1])` is `s` itself with each
/// −0 made +0 (it adds `0.0` and products by 0 to every coefficient) and trailing zeros
/// trimmed per component — the same bits, made in place (the track's spans were a sixth of a
/// scalar compile); true. False, and the shape unchanged, otherwise.
fn linear_composed(shape: &mut Coefficients, dims: usize) -> bool {
    let finite = shape
        .iter()
        .all(|row| row[..dims].iter().all(|x| x.is_finite()));
    if !finite || shape.is_empty() {
        return false;
    }
    // Per component: the length after trimming trailing zeros (at least one coefficient).
    let mut lengths = [1usize; MAX_COMPONENTS];
    for (c, length) in lengths.iter_mut().enumerate().take(dims) {
        *length = shape
            .iter()
            .rposition(|row| row[c] != 0.0)
            .map_or(1, |k| k + 1);
    }
    let degree = lengths[..dims].iter().copied().max().unwrap_or(1);
    shape.truncate(degree);
    for (k, row) in shape.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = if c < dims && k < lengths[c] {
                *x + 0.0
            } else {
                0.0
            };
        }
    }
    true
}

/// Samples per unit of normalized time when looking for the frames where an ease crosses a
/// level (segment joints along an arclength path).
const CROSSING_SAMPLES: u32 = 4096;

impl Track {
    /// The normalized times x in (0, 1) where the track ease reaches `level` (by sign changes on
    /// a grid of [`CROSSING_SAMPLES`], then bisection to rounding).
    fn ease_crossings(ease: &Ease, level: f64, out: &mut Vec<f64>) {
        let f = |x: f64| ease.at(x) - level;
        let mut x0 = 0.0;
        let mut f0 = f(x0);
        for k in 1..=CROSSING_SAMPLES {
            let x1 = f64::from(k) / f64::from(CROSSING_SAMPLES);
            let f1 = f(x1);
            if (f0 < 0.0 && f1 >= 0.0) || (f0 > 0.0 && f1 <= 0.0) {
                let (mut lo, mut hi) = (x0, x1);
                for _ in 0..64 {
                    let mid = 0.5 * (lo + hi);
                    if (f(mid) < 0.0) == (f0 < 0.0) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                let x = 0.5 * (lo + hi);
                if x > 0.0 && x < 1.0 {
                    out.push(x);
                }
            }
            x0 = x1;
            f0 = f1;
        }
    }

    /// Spans of an arclength track: cut wherever the arc length crosses a segment joint (or
    /// starts or stops being clamped at 0 or L) and at the ease's own kinks, so each span stays
    /// inside one segment of the curve; a `steps` track ease gives constant spans.
    fn push_arclength_spans(&self, out: &mut Vec<SourceSpan>) {
        let arclength = (self.arclength_table(), self.path());
        // `spans` comes here only with a table, which `assemble` builds only for the two
        // arc-length paths, and `segment_arclength` goes elsewhere.
        debug_assert!(
            matches!(
                arclength,
                (Some(_), crate::track::PathMode::Arclength { .. })
            ),
            "arclength spans of a track without an arclength path"
        );
        let (Some(table), crate::track::PathMode::Arclength { ease }) = arclength else {
            return;
        };
        let (first, last) = (Track::first_frame(self), Track::last_frame(self));
        let span = last - first;
        if self.keys().len() < 2 || span <= 0.0 {
            return;
        }
        let total = table.total_length();
        let dims = self.components();
        let constant = |start: f64, end: f64| {
            let v = Track::eval(self, start + 0.5 * (end - start));
            constant_span(0, (start, end), &v, dims)
        };
        if total <= 0.0 {
            out.push(constant(first, last));
            return;
        }
        if let Ease::Steps(steps) = ease {
            for (start, end) in step_spans(first, last, steps.count()) {
                out.push(constant(start, end));
            }
            return;
        }
        let cuts = arclength_cuts(&ease, table);
        self.push_arclength_smooth_spans(table, (first, last), cuts, out);
    }

    /// Smooth spans over the frames [first, last] between the normalized times `cuts` (sorted,
    /// ending with 1), each labelled with the segment its midpoint lies in; pieces shorter than
    /// 1e-9 of the range (before the end) are merged into the next.
    fn push_arclength_smooth_spans(
        &self,
        table: &crate::arclength::ArcLengthTable,
        (first, last): (f64, f64),
        cuts: Vec<f64>,
        out: &mut Vec<SourceSpan>,
    ) {
        let span = last - first;
        let mut start = first;
        for x in cuts {
            let end = if x >= 1.0 { last } else { first + x * span };
            if end <= start + 1e-9 * span && end < last {
                continue;
            }
            if end <= start {
                continue;
            }
            let mid = start + 0.5 * (end - start);
            let s = self.arclength_at_known(mid);
            let key = self
                .locate_arclength(table, s)
                .map_or(table.segment_count().saturating_sub(1), |(j, _)| j);
            out.push(SourceSpan {
                start,
                end,
                key,
                shape: SpanShape::Smooth,
            });
            start = end;
        }
    }

    /// The arclength curve at `frame`, kept inside segment `segment` (its ends are the limits
    /// from inside): what a span that lies in that segment evaluates.
    fn eval_arclength_in_segment(
        &self,
        table: &crate::arclength::ArcLengthTable,
        segment: usize,
        frame: f64,
    ) -> crate::value::Value {
        let s = self.arclength_at_known(frame);
        let (lo, hi) = (
            table.segment_start(segment),
            table.segment_start(segment + 1),
        );
        let u = if s <= lo {
            0.0
        } else if s >= hi {
            1.0
        } else {
            match self.locate_arclength(table, s) {
                Some((j, u)) if j == segment => u,
                Some((j, _)) if j < segment => 0.0,
                _ => 1.0,
            }
        };
        self.eval_segment_at(segment, u)
    }
}

impl CurveSource for Track {
    fn components(&self) -> usize {
        Track::components(self)
    }

    fn scale(&self) -> f64 {
        Track::scale(self)
    }

    fn outside(&self) -> Option<crate::stream::outside::Outside> {
        let curve = self.fcurve()?;
        curve.stream_outside().ok().and_then(|(_, outside)| outside)
    }

    fn spans(&self) -> Vec<SourceSpan> {
        if let Some(curve) = self.fcurve() {
            return curve.source_spans();
        }
        let mut out = Vec::with_capacity(self.keys().len().saturating_sub(1));
        if let (Some(table), crate::track::PathMode::SegmentArclength) =
            (self.arclength_table(), self.path())
        {
            crate::segment_arclength::push_spans(self, table, ease_breakpoints, &mut out);
            return out;
        }
        if self.arclength_table().is_some() {
            self.push_arclength_spans(&mut out);
            return out;
        }
        for i in 0..self.keys().len().saturating_sub(1) {
            self.push_segment_spans(i, &mut out);
        }
        out
    }

    fn first_frame(&self) -> f64 {
        match self.fcurve() {
            Some(curve) => curve.stream_range().0,
            None => Track::first_frame(self),
        }
    }

    fn last_frame(&self) -> f64 {
        match self.fcurve() {
            Some(curve) => curve.stream_range().1,
            None => Track::last_frame(self),
        }
    }

    fn eval(&self, frame: f64, out: &mut [f64]) -> Result<(), NonFiniteValue> {
        if let Some(curve) = self.fcurve() {
            return crate::fcurve::write_value(curve.eval_compiled(frame), frame, out);
        }
        let clamped = frame.clamp(Track::first_frame(self), Track::last_frame(self));
        let slerp = (Track::components(self) == 4)
            .then(|| SegmentFrames::slerp_at(self, clamped))
            .flatten();
        if let Some(segment) = slerp {
            return segment.eval_one(frame, clamped, out);
        }
        let value = Track::eval(self, clamped);
        for (o, v) in out.iter_mut().zip(value.iter()) {
            *o = *v;
        }
        if value.is_finite() {
            Ok(())
        } else {
            Err(NonFiniteValue {
                frame,
                key: self.segment_index(clamped).unwrap_or(0),
            })
        }
    }

    /// On `Smooth` spans every path checks each value it writes (`SegmentFrames::eval_each`,
    /// `eval_in_span` and `eval` off the polynomial branch, `fcurve::write_value`).
    fn reports_non_finite(&self, span: &SourceSpan) -> bool {
        matches!(span.shape, SpanShape::Smooth)
    }

    fn eval_in_span_each(
        &self,
        span: &SourceSpan,
        out: &mut [(f64, [f64; MAX_COMPONENTS])],
    ) -> Result<(), (usize, NonFiniteValue)> {
        match SegmentFrames::of(self, span) {
            Some(segment) => segment.eval_each(out),
            None => crate::compile::source::each_in_span(self, span, out),
        }
    }

    fn eval_each_in_span(
        &self,
        span: &SourceSpan,
        out: &mut [(f64, [f64; MAX_COMPONENTS])],
    ) -> Result<(), (usize, NonFiniteValue)> {
        match SegmentFrames::of(self, span).filter(|s| s.evals_as_eval(out)) {
            Some(segment) => segment.eval_each(out),
            None => crate::compile::source::each(self, out),
        }
    }

    fn eval_in_span(
        &self,
        span: &SourceSpan,
        frame: f64,
        out: &mut [f64],
    ) -> Result<(), NonFiniteValue> {
        if let SpanShape::Polynomial { coeffs } = &span.shape {
            // The span's own polynomial: continuous up to and including its end, where a
            // `steps` ease or a `step` segment already jumps to the next value.
            let length = span.end - span.start;
            let v = if length > 0.0 {
                (frame - span.start) / length
            } else {
                0.0
            };
            for (c, o) in out.iter_mut().enumerate().take(Track::components(self)) {
                *o = coeffs.iter().rev().fold(0.0, |acc, row| acc * v + row[c]);
            }
            return Ok(());
        }
        if let Some(curve) = self.fcurve() {
            let v = curve.eval_span(span.key, span.start, span.end, frame);
            return crate::fcurve::write_value(v, frame, out);
        }
        let slerp = (Track::components(self) == 4)
            .then(|| SegmentFrames::of(self, span).filter(|s| s.slerp.is_some()))
            .flatten();
        if let Some(segment) = slerp {
            return segment.eval_one(frame, frame, out);
        }
        let value = match self.arclength_table() {
            Some(table) if self.path() == crate::track::PathMode::SegmentArclength => {
                crate::segment_arclength::eval_in_segment(self, table, span.key, frame)
            }
            Some(table) => self.eval_arclength_in_segment(table, span.key, frame),
            None => self.eval_segment(span.key, frame),
        };
        for (o, v) in out.iter_mut().zip(value.iter()) {
            *o = *v;
        }
        if value.is_finite() {
            Ok(())
        } else {
            Err(NonFiniteValue {
                frame,
                key: span.key,
            })
        }
    }
}

/// The normalized times where an arclength track's spans are cut, sorted and ending with 1:
/// where the track ease `ease` crosses a segment joint's share of the length (or 0 or 1, where
/// clamping starts or stops), and the ease's own kinks.
fn arclength_cuts(ease: &Ease, table: &crate::arclength::ArcLengthTable) -> Vec<f64> {
    let total = table.total_length();
    let mut cuts: Vec<f64> = Vec::new();
    let mut levels: Vec<f64> = (1..table.segment_count())
        .map(|j| table.segment_start(j) / total)
        .collect();
    levels.push(0.0);
    levels.push(1.0);
    for level in levels {
        Track::ease_crossings(ease, level, &mut cuts);
    }
    cuts.extend(ease_breakpoints(ease));
    cuts.push(1.0);
    cuts.sort_by(f64::total_cmp);
    cuts
}

/// The frame ranges of a `steps(n)` ease over `[f0, f1)`: one per step, cut where
/// ⌊(f − f0)·n / (f1 − f0)⌋ changes (the last ends exactly at `f1`); empty ranges, which
/// rounding can make on a very short segment, are left out.
pub(crate) fn step_spans(f0: f64, f1: f64, n: u32) -> Vec<(f64, f64)> {
    let length = f1 - f0;
    let mut spans = Vec::with_capacity(n as usize);
    let mut start = f0;
    for j in 1..=n {
        let end = if j == n {
            f1
        } else {
            f0 + f64::from(j) * length / f64::from(n)
        };
        if end > start {
            spans.push((start, end));
            start = end;
        }
    }
    spans
}

/// A keyed segment of a track (no F-curve, no arc-length timing) evaluated at many frames,
/// with what `Track::eval_segment` looks up at every call looked up once: each frame costs
/// the same `Ease::at_offset` and `Track::eval_segment_at` calls, so the same bits as
/// `eval_in_span` (and, under [`SegmentFrames::evals_as_eval`], as `eval`).
struct SegmentFrames<'t> {
    track: &'t Track,
    index: usize,
    key: &'t crate::track::Key,
    length: f64,
    /// A slerp segment's two quaternions (`Track::slerp_keys`).
    slerp: Option<([f64; 4], [f64; 4])>,
}

impl<'t> SegmentFrames<'t> {
    /// The segment of a `Smooth` span of `track`, when `eval_in_span` there is
    /// `eval_segment(span.key, ·)`: no F-curve, no arc-length table, both keys present.
    fn of(track: &'t Track, span: &SourceSpan) -> Option<Self> {
        if !matches!(span.shape, SpanShape::Smooth)
            || track.fcurve().is_some()
            || track.arclength_table().is_some()
        {
            return None;
        }
        let keys = track.keys();
        let (key, next) = (keys.get(span.key)?, keys.get(span.key + 1)?);
        Some(SegmentFrames {
            track,
            index: span.key,
            key,
            length: next.frame - key.frame,
            slerp: track.slerp_keys(span.key),
        })
    }

    /// The slerp segment holding `frame` when `eval` there is that segment's `eval_segment`
    /// (as [`SegmentFrames::of`] and [`SegmentFrames::evals_as_eval`] decide): the compiler's
    /// exact values on slerp segments come from `quat::Arc::closed_form` however they are
    /// asked for.
    fn slerp_at(track: &'t Track, frame: f64) -> Option<Self> {
        let index = track.segment_index(frame)?;
        track.slerp_keys(index)?;
        let keys = track.keys();
        let span = SourceSpan {
            start: keys.get(index)?.frame,
            end: keys.get(index + 1)?.frame,
            key: index,
            shape: SpanShape::Smooth,
        };
        Self::of(track, &span).filter(|s| s.evals_as_eval(&[(frame, [0.0; MAX_COMPONENTS])]))
    }

    /// [`SegmentFrames::eval_each`] at the one frame `at`, written to `out`; a non-finite
    /// value is reported at `frame` (the frame asked for, before any clamp).
    fn eval_one(&self, frame: f64, at: f64, out: &mut [f64]) -> Result<(), NonFiniteValue> {
        let mut one = [(at, [0.0; MAX_COMPONENTS])];
        let result = self.eval_each(&mut one);
        for (o, v) in out.iter_mut().zip(one[0].1) {
            *o = v;
        }
        result.map_err(|(_, e)| NonFiniteValue { frame, ..e })
    }

    /// Whether `eval` at every frame of `out` is this segment's `eval_segment`: the frames
    /// increase, lie in the keys (the clamp and the wrap leave them as they are) and in this
    /// segment (`segment_index`, checked at the first and last: it does not decrease).
    fn evals_as_eval(&self, out: &[(f64, [f64; MAX_COMPONENTS])]) -> bool {
        let (Some(low), Some(high)) = (out.first(), out.last()) else {
            return true;
        };
        let (first, last) = (
            Track::first_frame(self.track),
            Track::last_frame(self.track),
        );
        // `Wrap::apply` leaves a frame where it is up to `first + (last − first)`.
        let unwrapped = first + (last - first);
        let increasing = out.windows(2).all(|w| w[0].0 < w[1].0);
        increasing
            && low.0 >= first
            && high.0 <= last
            && high.0 <= unwrapped
            && self.track.segment_index(low.0) == Some(self.index)
            && self.track.segment_index(high.0) == Some(self.index)
    }

    /// `eval_segment(index, frame)` at every frame of `out`, written and checked as
    /// `eval_in_span` writes and checks it.
    fn eval_each(
        &self,
        out: &mut [(f64, [f64; MAX_COMPONENTS])],
    ) -> Result<(), (usize, NonFiniteValue)> {
        if let Some(ends) = self.slerp {
            return self.eval_each_slerp(ends, out);
        }
        for (i, (frame, slot)) in out.iter_mut().enumerate() {
            let u = self
                .key
                .ease
                .at_offset(*frame - self.key.frame, self.length);
            let value = self.track.eval_segment_at(self.index, u);
            for (o, v) in slot.iter_mut().zip(value.iter()) {
                *o = *v;
            }
            if !value.is_finite() {
                let error = NonFiniteValue {
                    frame: *frame,
                    key: self.index,
                };
                return Err((i, error));
            }
        }
        Ok(())
    }

    /// [`SegmentFrames::eval_each`] on a slerp segment between the quaternions `ends`: what
    /// `eval_segment_at` is there (the first key's value at u = 0, else `quat::slerp`), here
    /// through one `quat::Arc` for all the frames and its `closed_form` (within
    /// `quat::CLOSED_FORM_TOLERANCE`, 5e-14, of the slerp: the compiler's exact value on slerp
    /// segments, which `eval` and `eval_in_span` give as well), written straight to the four
    /// components.
    fn eval_each_slerp(
        &self,
        (first, second): ([f64; 4], [f64; 4]),
        out: &mut [(f64, [f64; MAX_COMPONENTS])],
    ) -> Result<(), (usize, NonFiniteValue)> {
        let arc = crate::quat::Arc::new(first, second);
        let (ease, start, length) = (&self.key.ease, self.key.frame, self.length);
        let linear = matches!(ease, Ease::Linear);
        for (i, (frame, slot)) in out.iter_mut().enumerate() {
            let offset = *frame - start;
            let u = if linear {
                linear_at_offset(offset, length)
            } else {
                ease.at_offset(offset, length)
            };
            let value = if u == 0.0 {
                first.iter().all(|x| x.is_finite()).then_some(first)
            } else {
                arc.closed_form(u)
            };
            let Some(q) = value else {
                // The value is not finite: written as the slerp gives it, then reported.
                *slot = crate::quat::slerp(first, second, u);
                let error = NonFiniteValue {
                    frame: *frame,
                    key: self.index,
                };
                return Err((i, error));
            };
            *slot = q;
        }
        Ok(())
    }
}

/// `Ease::Linear.at_offset(offset, length)` with the ease's match and calls taken out (the
/// same operations, so the same bits: 1 at or past the end, else `offset / length` clamped
/// to [0, 1]; `tests::linear_at_offset_is_the_ease_bit_for_bit`).
#[inline]
fn linear_at_offset(offset: f64, length: f64) -> f64 {
    if offset >= length {
        1.0
    } else {
        (offset / length).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::track::Interp;

    /// `linear_at_offset` gives `Ease::Linear.at_offset`'s bits: offsets before, inside, at and
    /// past the end of segments of several lengths (zero included), signed zeros and NaN.
    #[test]
    fn linear_at_offset_is_the_ease_bit_for_bit() {
        let mut offsets = vec![-0.0, 0.0, -1.5, f64::NAN, 1e-300, f64::INFINITY];
        offsets.extend((0..200).map(|k| f64::from(k) * 0.37 - 3.0));
        for length in [0.0, 1.0, 7.5, 36.0, 1e9] {
            offsets.extend([length, length - 0.5, length + 0.5, length * 0.999]);
            for &offset in &offsets {
                let ease = Ease::Linear.at_offset(offset, length);
                let ours = linear_at_offset(offset, length);
                assert_eq!(ours.to_bits(), ease.to_bits(), "{offset} / {length}");
            }
        }
    }
    use crate::Document;

    fn poly_eval(coeffs: &[[f64; MAX_COMPONENTS]], v: f64, c: usize) -> f64 {
        coeffs.iter().rev().fold(0.0, |acc, row| acc * v + row[c])
    }

    /// Every polynomial span reproduces exact evaluation inside it.
    fn check_spans(track: &Track) {
        let spans = CurveSource::spans(track);
        assert!(!spans.is_empty());
        for w in spans.windows(2) {
            assert_eq!(w[0].end, w[1].start, "spans are contiguous");
        }
        assert_eq!(spans[0].start, track.first_frame());
        assert_eq!(spans[spans.len() - 1].end, track.last_frame());
        for span in &spans {
            if let SpanShape::Polynomial { coeffs } = &span.shape {
                for i in 0..20 {
                    let v = f64::from(i) / 20.0;
                    let frame = span.start + v * (span.end - span.start);
                    let exact = track.eval_segment(span.key, frame);
                    for c in 0..track.components() {
                        let got = poly_eval(coeffs, v, c);
                        assert!(
                            (got - exact[c]).abs() <= 1e-9 * track.scale(),
                            "track {} span {:?} v {v}: {got} vs {}",
                            track.name(),
                            (span.start, span.end),
                            exact[c]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn polynomial_spans_match_exact_evaluation() {
        let eases = [
            Ease::Linear,
            Ease::Smoothstep,
            Ease::Smootherstep,
            Ease::from_name("in_out_cubic").unwrap(),
            Ease::from_name("out_quart").unwrap(),
            Ease::from_name("in_out_back").unwrap(),
        ];
        for ease in eases {
            for interp in [
                Interp::Linear,
                Interp::Step,
                Interp::CatmullRom,
                Interp::Tcb,
                Interp::hermite([1.0, -2.0], [0.5, 0.0]),
                Interp::bezier([10.0, 5.0], [-3.0, 8.0]),
                Interp::Polynomial { keys: 4 },
            ] {
                let t = Track::vec2("t")
                    .key(0.0, [0.0, 1.0])
                    .interp(interp.clone())
                    .ease(ease)
                    .tcb(0.3, -0.2, 0.1)
                    .key(7.5, [4.0, -2.0])
                    .interp(interp.clone())
                    .ease(ease)
                    .key(20.0, [-1.0, 6.0])
                    .interp(interp.clone())
                    .key(31.0, [2.0, 2.0])
                    .build()
                    .unwrap();
                check_spans(&t);
            }
        }
    }

    /// `eval_in_span_each` and `eval_each_in_span` (a segment looked up once for many frames)
    /// give the bits, the errors and the error frames of `eval_in_span` and `eval` called once
    /// a frame, on slerp, eased, expression and Hermite segments, wrapped tracks, frames
    /// crossing a key (where `eval` is not the span's formula and the lookup is not taken) and
    /// an expression that is not finite at a frame.
    #[test]
    fn segment_lookup_once_gives_the_bits_of_one_call_a_frame() {
        let q = |x: f64| crate::quat::from_axis_angle([0.6, 0.0, 0.8], x);
        let tracks = [
            Track::quat("q")
                .key(0.0, q(0.0))
                .interp(Interp::Slerp)
                .key(13.0, q(1.9))
                .interp(Interp::Slerp)
                .ease(Ease::from_name("in_out_sine").unwrap())
                .key(40.5, q(-0.7))
                .wrap(Wrap::Loop)
                .build()
                .unwrap(),
            Track::scalar("e")
                .key(-3.25, 1.0)
                .expr(["sin(7 * u) + u"])
                .key(9.0, 2.0)
                .interp(Interp::hermite([1.0], [0.5]))
                .ease(Ease::from_name("out_expo").unwrap())
                .key(30.0, 0.0)
                .wrap(Wrap::PingPong)
                .build()
                .unwrap(),
            Track::scalar("nan")
                .key(0.0, 1.0)
                .expr(["ln(4 - 4 * u)"])
                .key(8.0, 2.0)
                .build()
                .unwrap(),
        ];
        let bits = |r: &Result<(), (usize, NonFiniteValue)>,
                    out: &[(f64, [f64; MAX_COMPONENTS])]| {
            let values: Vec<[u64; MAX_COMPONENTS]> =
                out.iter().map(|(_, v)| v.map(f64::to_bits)).collect();
            (r.map_err(|(i, e)| (i, e.frame.to_bits(), e.key)), values)
        };
        let mut looked_up = 0;
        for track in &tracks {
            for span in CurveSource::spans(track) {
                looked_up += usize::from(SegmentFrames::of(track, &span).is_some());
                let (a, b) = (span.start, span.end);
                let inside: Vec<f64> = (0..=(b - a).ceil() as i64 + 2)
                    .map(|m| a.ceil() + m as f64 - 1.0)
                    .filter(|f| *f >= a && *f < b)
                    .collect();
                let between: Vec<f64> = (0..=40)
                    .map(|k| a + (b - a) * f64::from(k) / 40.0)
                    .collect();
                // One frame past the span's end: `eval` there is the next segment's value.
                let crossing: Vec<f64> = inside.iter().copied().chain([b + 0.5]).collect();
                let pairs = |f: &[f64]| {
                    f.iter()
                        .map(|x| (*x, [0.0; MAX_COMPONENTS]))
                        .collect::<Vec<_>>()
                };
                for frames in [&inside, &between, &crossing] {
                    let (mut once, mut each_one) = (pairs(frames), pairs(frames));
                    let r1 = track.eval_in_span_each(&span, &mut once);
                    let r2 = crate::compile::source::each_in_span(track, &span, &mut each_one);
                    assert_eq!(bits(&r1, &once), bits(&r2, &each_one), "in span {span:?}");
                }
                for frames in [&inside, &crossing] {
                    let (mut once, mut each_one) = (pairs(frames), pairs(frames));
                    let r1 = track.eval_each_in_span(&span, &mut once);
                    let r2 = crate::compile::source::each(track, &mut each_one);
                    assert_eq!(bits(&r1, &once), bits(&r2, &each_one), "eval {span:?}");
                }
            }
        }
        assert!(looked_up >= 4, "the lookup was taken on {looked_up} spans");
    }

    /// `reports_non_finite` holds on every `Smooth` span: the lookups in one call return `Ok`
    /// only when every value is finite, and otherwise the error at the first non-finite value
    /// (slerp, expression, eased and Hermite segments, an expression that is infinite at a
    /// key, frames inside and between; F-curve tracks are covered by `fcurve`'s writer).
    #[test]
    fn smooth_spans_report_their_first_non_finite_value() {
        let q = |x: f64| crate::quat::from_axis_angle([0.0, 0.6, 0.8], x);
        let tracks = [
            Track::quat("q")
                .key(0.0, q(0.0))
                .interp(Interp::Slerp)
                .key(9.5, q(2.5))
                .interp(Interp::Slerp)
                .ease(Ease::from_name("out_back").unwrap())
                .key(30.0, q(-1.0))
                .build()
                .unwrap(),
            Track::scalar("inf")
                .key(0.0, 1.0)
                .expr(["ln(4 - 4 * u)"])
                .key(8.0, 2.0)
                .interp(Interp::hermite([1.0], [0.5]))
                .ease(Ease::from_name("in_expo").unwrap())
                .key(20.0, 0.0)
                .build()
                .unwrap(),
        ];
        let mut smooth = 0;
        for track in &tracks {
            for span in CurveSource::spans(track) {
                if !track.reports_non_finite(&span) {
                    continue;
                }
                smooth += 1;
                let (a, b) = (span.start, span.end);
                let frames: Vec<(f64, [f64; MAX_COMPONENTS])> = (0..=24)
                    .map(|k| (a + (b - a) * f64::from(k) / 24.0, [0.0; MAX_COMPONENTS]))
                    .collect();
                let inside = frames[..24].to_vec();
                for (mut out, in_span) in [(frames, true), (inside, false)] {
                    let result = if in_span {
                        track.eval_in_span_each(&span, &mut out)
                    } else {
                        track.eval_each_in_span(&span, &mut out)
                    };
                    let finite = |v: &[f64; MAX_COMPONENTS]| {
                        v[..track.components()].iter().all(|x| x.is_finite())
                    };
                    let first_bad = out.iter().position(|(_, v)| !finite(v));
                    match result {
                        Ok(()) => assert_eq!(first_bad, None, "{} {span:?}", track.name()),
                        Err((i, _)) => assert_eq!(first_bad, Some(i), "{} {span:?}", track.name()),
                    }
                }
            }
        }
        assert!(smooth >= 3, "{smooth} smooth spans");
    }

    /// The linear ease's shortcut gives the bits of the general composition with the ease's
    /// piece, signed zeros and trailing zeros (per component) included.
    #[test]
    fn linear_ease_shortcut_is_the_general_composition_bit_for_bit() {
        let Some(pieces) = Ease::Linear.polynomial_pieces() else {
            panic!("linear is a polynomial ease");
        };
        let shapes: [&[[f64; MAX_COMPONENTS]]; 4] = [
            &[
                [1.5, -0.0, 0.0, 0.0],
                [-0.0, 2.0, 0.0, 0.0],
                [3.0, 0.0, 0.0, 0.0],
            ],
            &[[-0.0, 0.0, 0.0, 0.0]],
            &[
                [0.1, 7.0, 0.0, 0.0],
                [0.2, -0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 0.0],
            ],
            &[[1e300, -1e-300, 0.0, 0.0], [-2.5, 1e-310, 0.0, 0.0]],
        ];
        for shape in shapes {
            let general = eased_shape(&pieces[0], shape, 2);
            let mut shortcut = Coefficients::from(shape);
            assert!(linear_composed(&mut shortcut, 2), "{shape:?} is finite");
            let bits = |rows: &[[f64; MAX_COMPONENTS]]| -> Vec<[u64; MAX_COMPONENTS]> {
                rows.iter().map(|r| r.map(f64::to_bits)).collect()
            };
            assert_eq!(bits(&shortcut), bits(&general), "{shape:?}");
        }
        let infinite = [[f64::INFINITY, 0.0, 0.0, 0.0]];
        assert!(!linear_composed(&mut Coefficients::from(&infinite[..]), 1));
    }

    #[test]
    fn steps_eases_become_constant_spans() {
        let doc = Document::from_json_str(
            r#"{"inbetween":1,"tracks":[{"name":"s","type":"scalar","keys":[
            {"frame":0,"value":0,"ease":{"steps":[4,"jump_start"]}},{"frame":12,"value":4}]}]}"#,
            "t.json",
        )
        .unwrap();
        let t = &doc.tracks()[0];
        let spans = CurveSource::spans(t);
        assert_eq!(spans.len(), 4);
        assert_eq!(spans[1].start, 3.0);
        check_spans(t);
    }

    #[test]
    fn non_polynomial_kinds_are_smooth_and_split_at_kinks() {
        let t = Track::scalar("b")
            .key(0.0, 0.0)
            .ease(Ease::from_name("in_out_bounce").unwrap())
            .key(10.0, 1.0)
            .build()
            .unwrap();
        let spans = CurveSource::spans(&t);
        // Three kinks in each half and the join at 1/2: eight spans.
        assert_eq!(spans.len(), 8);
        assert!(spans.iter().all(|s| s.shape == SpanShape::Smooth));
        let q = Track::quat("q")
            .key(0.0, [0.0, 0.0, 0.0, 1.0])
            .key(10.0, [0.0, 0.0, 1.0, 0.0])
            .build()
            .unwrap();
        assert_eq!(CurveSource::spans(&q)[0].shape, SpanShape::Smooth);
    }
}
