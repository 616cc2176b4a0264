//! What the compiler needs to know about a curve: its spans, their shape, and exact evaluation.

use alloc::vec::Vec;

pub use crate::stream::layout::MAX_COMPONENTS;

/// `Sync` when the compiler runs across threads (feature `rayon`), nothing otherwise.
#[cfg(feature = "rayon")]
pub trait MaybeSync: Sync {}
#[cfg(feature = "rayon")]
impl<T: Sync + ?Sized> MaybeSync for T {}
/// `Sync` when the compiler runs across threads (feature `rayon`), nothing otherwise.
#[cfg(not(feature = "rayon"))]
pub trait MaybeSync {}
#[cfg(not(feature = "rayon"))]
impl<T: ?Sized> MaybeSync for T {}

/// A curve the compiler can turn into a forward-difference stream (`Sync` with feature
/// `rayon`, which compiles tracks across threads).
///
/// Frames are the document's frame numbers (fractional allowed). The curve is defined on
/// `[first_frame, last_frame]`; a frame `f` with `span.start <= f < span.end` belongs to that span,
/// and `last_frame` itself gets the curve's final value (`eval(last_frame)`).
pub trait CurveSource: MaybeSync {
    /// Number of components of each value (1..=4).
    fn components(&self) -> usize;
    /// The spans, in order, contiguous (`spans[k].end == spans[k + 1].start`), covering
    /// `[first_frame, last_frame)`. Empty for a constant curve of one key (then
    /// `first_frame == last_frame`).
    fn spans(&self) -> Vec<SourceSpan>;
    /// Frame of the first key.
    fn first_frame(&self) -> f64;
    /// Frame of the last key.
    fn last_frame(&self) -> f64;
    /// Exact value at `frame` (any frame in `[first_frame, last_frame]`, fractional allowed),
    /// written to `out[..components()]`. Errors are non-finite values (an expression that is not
    /// finite there).
    fn eval(&self, frame: f64, out: &mut [f64]) -> Result<(), NonFiniteValue>;
    /// The formula of `span` evaluated at `frame` in the closed range `[span.start, span.end]`:
    /// at `span.end` this is the limit from inside the span (not the next span's value), so a
    /// fit over the closed span sees a continuous function.
    fn eval_in_span(
        &self,
        span: &SourceSpan,
        frame: f64,
        out: &mut [f64],
    ) -> Result<(), NonFiniteValue>;
    /// [`CurveSource::eval_in_span`] at the frame of every entry of `out` (`out[i].0`), written
    /// to `out[i].1`, in order, stopping at the first error (with its index). The default calls
    /// `eval_in_span` once a frame; a source may look up what the frames share once, giving the
    /// same bits.
    ///
    /// # Errors
    /// The first error of `eval_in_span`, and the index of its frame.
    fn eval_in_span_each(
        &self,
        span: &SourceSpan,
        out: &mut [(f64, [f64; MAX_COMPONENTS])],
    ) -> Result<(), (usize, NonFiniteValue)> {
        each_in_span(self, span, out)
    }
    /// [`CurveSource::eval`] at the frame of every entry of `out`, written as
    /// [`CurveSource::eval_in_span_each`] writes: the frames are increasing and inside
    /// `[span.start, span.end)`. The default calls `eval` once a frame.
    ///
    /// # Errors
    /// The first error of `eval`, and the index of its frame.
    fn eval_each_in_span(
        &self,
        span: &SourceSpan,
        out: &mut [(f64, [f64; MAX_COMPONENTS])],
    ) -> Result<(), (usize, NonFiniteValue)> {
        let _ = span;
        each(self, out)
    }
    /// Whether [`CurveSource::eval_in_span_each`] and [`CurveSource::eval_each_in_span`] on
    /// `span` return an error at the first frame whose value is not finite (in its first
    /// `components()`) and `Ok` only when every value is finite, so that the compiler takes
    /// their values without scanning them again. The default, `false`, has them scanned.
    fn reports_non_finite(&self, span: &SourceSpan) -> bool {
        let _ = span;
        false
    }
    /// What a stream plays outside `[first_frame, last_frame]` when that is not the track's
    /// wrap on both sides (the stream's outside record, format version 2); `None` (the
    /// default) plays the wrap.
    fn outside(&self) -> Option<crate::stream::outside::Outside> {
        None
    }
    /// The track's scale (the spec's: the largest absolute component of its keys' values, at
    /// least 1), which sets the default tolerance `1e-6 × scale`. The default evaluates the
    /// curve at every span start and at the last frame; a document track should return the
    /// scale of its key values directly.
    fn scale(&self) -> f64 {
        let mut out = [0.0; MAX_COMPONENTS];
        let components = self.components().min(MAX_COMPONENTS);
        let mut scale: f64 = 1.0;
        let frames = self
            .spans()
            .iter()
            .map(|s| s.start)
            .chain(core::iter::once(self.last_frame()))
            .collect::<Vec<_>>();
        for frame in frames {
            if self.eval(frame, &mut out).is_ok() {
                for v in out.iter().take(components) {
                    if v.is_finite() {
                        scale = scale.max(crate::math::abs(*v));
                    }
                }
            }
        }
        scale
    }
}

/// [`CurveSource::eval_in_span`] once a frame of `out` (the default of
/// [`CurveSource::eval_in_span_each`]).
///
/// # Errors
/// The first error, and the index of its frame.
pub(crate) fn each_in_span<S: CurveSource + ?Sized>(
    source: &S,
    span: &SourceSpan,
    out: &mut [(f64, [f64; MAX_COMPONENTS])],
) -> Result<(), (usize, NonFiniteValue)> {
    for (i, (frame, value)) in out.iter_mut().enumerate() {
        source
            .eval_in_span(span, *frame, value)
            .map_err(|e| (i, e))?;
    }
    Ok(())
}

/// [`CurveSource::eval`] once a frame of `out` (the default of
/// [`CurveSource::eval_each_in_span`]).
///
/// # Errors
/// The first error, and the index of its frame.
pub(crate) fn each<S: CurveSource + ?Sized>(
    source: &S,
    out: &mut [(f64, [f64; MAX_COMPONENTS])],
) -> Result<(), (usize, NonFiniteValue)> {
    for (i, (frame, value)) in out.iter_mut().enumerate() {
        source.eval(*frame, value).map_err(|e| (i, e))?;
    }
    Ok(())
}

/// An exact value that is not finite (an expression such as `ln(u)` at u = 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NonFiniteValue {
    /// The frame where it happened.
    pub frame: f64,
    /// Index of the key that starts the segment.
    pub key: usize,
}

/// One stretch of a curve with one formula.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceSpan {
    /// First frame of the span (included).
    pub start: f64,
    /// Frame where the span ends (excluded).
    pub end: f64,
    /// Index of the key whose segment this span belongs to.
    pub key: usize,
    /// What the curve is on this span.
    pub shape: SpanShape,
}

impl SourceSpan {
    /// For a `Polynomial` span: writes its polynomial at `frame` (Horner's rule in
    /// `v = (frame − start) / (end − start)`) to `out[..components]` and returns true — what
    /// `CurveSource::eval` is at frames of the span, computed without searching the keys.
    /// Returns false (and writes nothing) for a `Smooth` span.
    pub fn polynomial_value(&self, frame: f64, components: usize, out: &mut [f64]) -> bool {
        let SpanShape::Polynomial { coeffs } = &self.shape else {
            return false;
        };
        let v = (frame - self.start) / (self.end - self.start);
        let value = horner_rows(coeffs, v, components);
        let n = components.min(MAX_COMPONENTS).min(out.len());
        // Element by element: a call to copy one to four numbers costs more than they do.
        for (o, x) in out.iter_mut().zip(value).take(n) {
            *o = x;
        }
        true
    }
}

/// `Σ_k rows[k][c] · v^k` for the first `components` components (the rest 0), by Horner's
/// rule from `0.0`: `acc ← acc · v + rows[k][c]`, highest `k` first — the arithmetic of
/// [`SourceSpan::polynomial_value`], written per component count so that the loop the compiler
/// spends most of its time in on polynomial spans has no bounds checks.
#[must_use]
#[inline]
pub(crate) fn horner_rows(
    rows: &[[f64; MAX_COMPONENTS]],
    v: f64,
    components: usize,
) -> [f64; MAX_COMPONENTS] {
    let mut acc = [0.0; MAX_COMPONENTS];
    if components == 1 {
        // Cubic and lower spans unrolled (the same operations in the same order).
        let c = |k: usize| rows[k][0];
        acc[0] = match rows.len() {
            1 => 0.0 * v + c(0),
            2 => (0.0 * v + c(1)) * v + c(0),
            3 => ((0.0 * v + c(2)) * v + c(1)) * v + c(0),
            4 => (((0.0 * v + c(3)) * v + c(2)) * v + c(1)) * v + c(0),
            _ => rows.iter().rev().fold(0.0, |a, row| a * v + row[0]),
        };
        return acc;
    }
    let n = components.min(MAX_COMPONENTS);
    for row in rows.iter().rev() {
        for c in 0..MAX_COMPONENTS {
            if c < n {
                acc[c] = acc[c] * v + row[c];
            }
        }
    }
    acc
}

/// [`horner_rows`] at `v = (frame − start) / length` for every frame of `frames`, appended to
/// `out`: for a scalar of degree ≤ 3 the unrolled form of its degree is chosen once, not at
/// every frame (the same operations in the same order, so the same bits).
pub(crate) fn horner_rows_each(
    rows: &[[f64; MAX_COMPONENTS]],
    (start, length): (f64, f64),
    components: usize,
    frames: impl Iterator<Item = f64>,
    out: &mut Vec<[f64; MAX_COMPONENTS]>,
) {
    if components == 1 {
        let at = (start, length);
        match rows.len() {
            1 => return scalar_horner_each::<1>(rows, at, frames, out),
            2 => return scalar_horner_each::<2>(rows, at, frames, out),
            3 => return scalar_horner_each::<3>(rows, at, frames, out),
            4 => return scalar_horner_each::<4>(rows, at, frames, out),
            _ => {}
        }
    }
    out.extend(frames.map(|frame| horner_rows(rows, (frame - start) / length, components)));
}

/// [`horner_rows_each`] for a scalar of `N` coefficients: `acc ← acc · v + c_k` from `0.0`,
/// highest `k` first, as [`horner_rows`]' unrolled arms.
fn scalar_horner_each<const N: usize>(
    rows: &[[f64; MAX_COMPONENTS]],
    (start, length): (f64, f64),
    frames: impl Iterator<Item = f64>,
    out: &mut Vec<[f64; MAX_COMPONENTS]>,
) {
    let c: [f64; N] = core::array::from_fn(|k| rows.get(k).map_or(0.0, |row| row[0]));
    out.extend(frames.map(|frame| {
        let v = (frame - start) / length;
        let mut acc = 0.0;
        for k in (0..N).rev() {
            acc = acc * v + c[k];
        }
        [acc, 0.0, 0.0, 0.0]
    }));
}

/// [`horner_rows_each`] at the frames `origin + m` (`HALF`: `origin + m + ½`, that sum then
/// `+ 0.5`) for `m` in `0..count`, the whole frames of a piece and its half frames: for a
/// scalar of degree ≤ 3 two frames at a time, side by side in one SSE2 register
/// ([`scalar_horner_grid`]), each lane doing one frame's operations in the same order (so the
/// same bits); otherwise frame by frame.
pub(crate) fn horner_rows_grid<const HALF: bool>(
    rows: &[[f64; MAX_COMPONENTS]],
    at: (f64, f64),
    components: usize,
    (origin, count): (f64, usize),
    out: &mut Vec<[f64; MAX_COMPONENTS]>,
) {
    if components == 1 {
        let grid = (origin, count);
        match rows.len() {
            1 => return scalar_horner_grid::<1, HALF>(rows, at, grid, out),
            2 => return scalar_horner_grid::<2, HALF>(rows, at, grid, out),
            3 => return scalar_horner_grid::<3, HALF>(rows, at, grid, out),
            4 => return scalar_horner_grid::<4, HALF>(rows, at, grid, out),
            _ => {}
        }
    }
    // Counted in i64 (one conversion instruction; the same whole numbers below 2^53).
    let frames = (0..count as i64).map(|m| origin + m as f64);
    if HALF {
        horner_rows_each(rows, at, components, frames.map(|f| f + 0.5), out);
    } else {
        horner_rows_each(rows, at, components, frames, out);
    }
}

/// [`horner_rows_grid`] for a scalar of `N` coefficients, two frames a step: the lanes hold
/// `m` and `m + 1` (whole numbers below 2^53, counted by adding 2.0: exact, so `origin + m`
/// is the sum the frame-by-frame form adds), and each lane does [`scalar_horner_each`]'s
/// operations on its frame (`(frame − start) / length`, then `acc ← acc · v + c_k` from
/// `0.0`, highest `k` first) — SSE2's packed operations round each lane as the scalar ones do,
/// so the same bits (`tests::horner_on_a_grid_is_frame_by_frame_bit_for_bit`). An odd last
/// frame is done alone.
fn scalar_horner_grid<const N: usize, const HALF: bool>(
    rows: &[[f64; MAX_COMPONENTS]],
    (start, length): (f64, f64),
    (origin, count): (f64, usize),
    out: &mut Vec<[f64; MAX_COMPONENTS]>,
) {
    use crate::math::Pair;
    let c: [f64; N] = core::array::from_fn(|k| rows.get(k).map_or(0.0, |row| row[0]));
    let first = out.len();
    out.resize(first + count, [0.0; MAX_COMPONENTS]);
    let (origin2, start2, length2) = (Pair::splat(origin), Pair::splat(start), Pair::splat(length));
    // Lane 0 holds m, lane 1 m + 1.
    let mut m = Pair::new(0.0, 1.0);
    let mut pairs = out[first..].chunks_exact_mut(2);
    for pair in &mut pairs {
        let mut frame = origin2 + m;
        if HALF {
            frame = frame + Pair::splat(0.5);
        }
        let v = (frame - start2) / length2;
        let mut acc = Pair::splat(0.0);
        for k in (0..N).rev() {
            acc = acc * v + Pair::splat(c[k]);
        }
        let [a, b] = acc.lanes();
        pair[0][0] = a;
        pair[1][0] = b;
        m = m + Pair::splat(2.0);
    }
    if let [last] = pairs.into_remainder() {
        let frame = origin + (count - 1) as f64;
        let frame = if HALF { frame + 0.5 } else { frame };
        let v = (frame - start) / length;
        let mut acc = 0.0;
        for k in (0..N).rev() {
            acc = acc * v + c[k];
        }
        last[0] = acc;
    }
}

/// [`SourceSpan::polynomial_value`] at every frame of `out`, into its values (the first
/// `components` of each; the others left as they are): [`horner_rows`] at
/// `v = (frame − start) / length`, for a scalar of degree ≤ 3 in the unrolled form of its
/// degree chosen once (the same operations in the same order, so the same bits).
pub(crate) fn horner_rows_at(
    rows: &[[f64; MAX_COMPONENTS]],
    (start, length): (f64, f64),
    components: usize,
    out: &mut [(f64, [f64; MAX_COMPONENTS])],
) {
    if components == 1 && (1..=4).contains(&rows.len()) {
        let c: [f64; 4] = core::array::from_fn(|k| rows.get(k).map_or(0.0, |row| row[0]));
        let at = |frame: f64| (frame - start) / length;
        match rows.len() {
            1 => out.iter_mut().for_each(|(f, x)| x[0] = 0.0 * at(*f) + c[0]),
            2 => out.iter_mut().for_each(|(f, x)| {
                let v = at(*f);
                x[0] = (0.0 * v + c[1]) * v + c[0];
            }),
            3 => out.iter_mut().for_each(|(f, x)| {
                let v = at(*f);
                x[0] = ((0.0 * v + c[2]) * v + c[1]) * v + c[0];
            }),
            _ => out.iter_mut().for_each(|(f, x)| {
                let v = at(*f);
                x[0] = (((0.0 * v + c[3]) * v + c[2]) * v + c[1]) * v + c[0];
            }),
        }
        return;
    }
    let n = components.min(MAX_COMPONENTS);
    for (frame, value) in out.iter_mut() {
        let row = horner_rows(rows, (*frame - start) / length, components);
        value[..n].copy_from_slice(&row[..n]);
    }
}

/// The curve's form on one span.
#[derive(Debug, Clone, PartialEq)]
pub enum SpanShape {
    /// Exactly a polynomial in `v = (frame - start) / (end - start)`, `v` in [0, 1):
    /// component `c` is `Σ_k coeffs[k][c] · v^k`. Degree `coeffs.len() - 1` (may exceed the
    /// compiler's maximum degree, in which case it is fitted like `Smooth`). A constant
    /// span (a `step` segment, a step of a `steps` ease) has one coefficient.
    Polynomial {
        /// Power-basis coefficients, lowest order first.
        coeffs: Coefficients,
    },
    /// Smooth (analytic) on `[start, end]` but not a polynomial: fit it through `eval`.
    Smooth,
}

/// Rows a [`Coefficients`] holds in place: a cubic's.
const INLINE_ROWS: usize = 4;

/// A polynomial span's power-basis coefficient rows, lowest order first (`rows[k][c]`
/// multiplies `v^k` in component `c`), read as a slice of rows (`Deref`). Up to four rows — a
/// cubic, what most spans are — are held in place, more on the heap: a `Vec` a span was one
/// heap allocation a span, and with its freeing about 4 % of a scalar compile
/// (docs/benchmarks-history.md, *Compile speed, eighth pass*). Made from a `Vec` or a slice of rows
/// (`From`), or with [`Coefficients::zeros`] and filled in place.
#[derive(Clone)]
pub struct Coefficients(Rows);

/// Where a [`Coefficients`]' rows are.
#[derive(Clone)]
enum Rows {
    /// The first `len` rows of `rows` (`len ≤ INLINE_ROWS`).
    Inline {
        len: u8,
        rows: [[f64; MAX_COMPONENTS]; INLINE_ROWS],
    },
    /// More than `INLINE_ROWS` rows at some time.
    Heap(Vec<[f64; MAX_COMPONENTS]>),
}

impl Coefficients {
    /// `len` rows of zeros.
    #[must_use]
    #[inline]
    pub fn zeros(len: usize) -> Self {
        if len <= INLINE_ROWS {
            return Self(Rows::Inline {
                // At most `INLINE_ROWS`: fits.
                len: len as u8,
                rows: [[0.0; MAX_COMPONENTS]; INLINE_ROWS],
            });
        }
        Self(Rows::Heap(alloc::vec![[0.0; MAX_COMPONENTS]; len]))
    }

    /// Keeps the first `len` rows (all of them when there are no more).
    #[inline]
    pub fn truncate(&mut self, len: usize) {
        match &mut self.0 {
            Rows::Inline { len: held, .. } => *held = (*held).min(len.min(INLINE_ROWS) as u8),
            Rows::Heap(rows) => rows.truncate(len),
        }
    }

    /// Shortens to `len` rows, or lengthens with rows of zeros.
    pub fn resize(&mut self, len: usize) {
        match &mut self.0 {
            Rows::Inline { len: held, rows } if len <= INLINE_ROWS => {
                for row in rows.iter_mut().take(len).skip(usize::from(*held)) {
                    *row = [0.0; MAX_COMPONENTS];
                }
                // At most `INLINE_ROWS`: fits.
                *held = len as u8;
            }
            Rows::Inline { .. } => {
                let mut rows = self.to_vec();
                rows.resize(len, [0.0; MAX_COMPONENTS]);
                self.0 = Rows::Heap(rows);
            }
            Rows::Heap(rows) => rows.resize(len, [0.0; MAX_COMPONENTS]),
        }
    }
}

impl Default for Coefficients {
    /// No rows.
    fn default() -> Self {
        Self(Rows::Inline {
            len: 0,
            rows: [[0.0; MAX_COMPONENTS]; INLINE_ROWS],
        })
    }
}

impl core::ops::Deref for Coefficients {
    type Target = [[f64; MAX_COMPONENTS]];

    fn deref(&self) -> &Self::Target {
        match &self.0 {
            Rows::Inline { len, rows } => &rows[..usize::from(*len).min(INLINE_ROWS)],
            Rows::Heap(rows) => rows,
        }
    }
}

impl core::ops::DerefMut for Coefficients {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match &mut self.0 {
            Rows::Inline { len, rows } => &mut rows[..usize::from(*len).min(INLINE_ROWS)],
            Rows::Heap(rows) => rows,
        }
    }
}

impl From<&[[f64; MAX_COMPONENTS]]> for Coefficients {
    fn from(rows: &[[f64; MAX_COMPONENTS]]) -> Self {
        if rows.len() > INLINE_ROWS {
            return Self(Rows::Heap(rows.to_vec()));
        }
        let mut out = Self::zeros(rows.len());
        out.copy_from_slice(rows);
        out
    }
}

impl From<Vec<[f64; MAX_COMPONENTS]>> for Coefficients {
    fn from(rows: Vec<[f64; MAX_COMPONENTS]>) -> Self {
        if rows.len() > INLINE_ROWS {
            Self(Rows::Heap(rows))
        } else {
            Self::from(rows.as_slice())
        }
    }
}

impl PartialEq for Coefficients {
    /// The same rows (wherever they are held).
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl core::fmt::Debug for Coefficients {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Coefficients` holds the rows a `Vec` of rows holds, bit for bit, through 20 000 random
    /// sequences of the operations the compiler's sources use (`zeros`, `From` a slice or a
    /// `Vec`, `resize`, `truncate`, writes through `DerefMut`), across the change from rows in
    /// place to rows on the heap and back to fewer rows; equality and `Debug` are the rows'.
    #[test]
    fn coefficients_hold_the_rows_a_vec_holds() {
        use crate::compile::verify::tests::Random;
        let bits = |rows: &[[f64; MAX_COMPONENTS]]| -> Vec<[u64; MAX_COMPONENTS]> {
            rows.iter().map(|r| r.map(f64::to_bits)).collect()
        };
        let mut random = Random(0xc0ef_f1c1_e475);
        let mut heap = 0;
        for case in 0..20_000 {
            let row = |random: &mut Random| -> [f64; MAX_COMPONENTS] {
                core::array::from_fn(|_| {
                    if random.unit() < 0.1 {
                        -0.0
                    } else {
                        random.symmetric(1e3)
                    }
                })
            };
            let len = (random.unit() * 8.0) as usize;
            let start: Vec<[f64; MAX_COMPONENTS]> = (0..len).map(|_| row(&mut random)).collect();
            let (mut model, mut coeffs) = match case % 3 {
                0 => (vec![[0.0; MAX_COMPONENTS]; len], Coefficients::zeros(len)),
                1 => (start.clone(), Coefficients::from(start.as_slice())),
                _ => (start.clone(), Coefficients::from(start.clone())),
            };
            for _ in 0..6 {
                let to = (random.unit() * 9.0) as usize;
                match (random.unit() * 3.0) as usize {
                    0 => {
                        model.resize(to, [0.0; MAX_COMPONENTS]);
                        coeffs.resize(to);
                    }
                    1 => {
                        model.truncate(to);
                        coeffs.truncate(to);
                    }
                    _ if !model.is_empty() => {
                        let k = to % model.len();
                        let value = row(&mut random);
                        model[k] = value;
                        coeffs[k] = value;
                    }
                    _ => {}
                }
                assert_eq!(bits(&coeffs), bits(&model), "case {case}");
                heap += usize::from(model.len() > INLINE_ROWS);
            }
            let same = Coefficients::from(model.as_slice());
            assert_eq!(coeffs, same, "case {case}");
            assert_eq!(format!("{coeffs:?}"), format!("{model:?}"), "case {case}");
            if !model.is_empty() {
                let mut other = model.clone();
                other[0][0] = 1e9;
                assert_ne!(coeffs, Coefficients::from(other), "case {case}");
            }
        }
        assert!(heap > 10_000, "{heap} steps with rows on the heap");
    }

    /// `horner_rows_grid` gives frame-by-frame `horner_rows`' bits at `origin + m` and
    /// `origin + m + ½` (the sum, then `+ 0.5`): 20 000 random cases — whole origins of both
    /// signs (−0 too) up to 2^32, 0 to 40 frames (odd and even counts), 1 to 6 rows (the packed
    /// scalar forms and the others), 1 to 3 components, coefficients of every size, zero and
    /// non-finite ones, appended after values already in the vector.
    #[test]
    fn horner_on_a_grid_is_frame_by_frame_bit_for_bit() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let bits =
            |v: &[[f64; MAX_COMPONENTS]]| v.iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>();
        for case in 0..20_000 {
            let number = |r: u64, s: u64| -> f64 {
                match r % 7 {
                    0 => 0.0,
                    1 => -0.0,
                    2 => f64::from_bits(s),
                    3 if r % 35 == 3 => f64::INFINITY,
                    _ => {
                        let unit = (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                        unit * 10f64.powi((r % 13) as i32 - 6)
                    }
                }
            };
            let rows: Vec<[f64; MAX_COMPONENTS]> = (0..1 + next() % 6)
                .map(|_| core::array::from_fn(|_| number(next(), next())))
                .collect();
            let origin = match next() % 4 {
                0 => -0.0,
                1 => (next() % (1 << 32)) as f64,
                _ => (next() % 2000) as f64 - 1000.0,
            };
            let count = (next() % 41) as usize;
            let start = origin - (next() % 1000) as f64 / 999.0;
            let length = 1e-3 + (next() % 100_000) as f64 / 997.0;
            let components = 1 + case % 3;
            let at = (start, length);
            let before = [[7.5, -1.0, 2.0, 3.0]];
            let plain = |frame: f64| horner_rows(&rows, (frame - start) / length, components);
            let mut whole = before.to_vec();
            horner_rows_grid::<false>(&rows, at, components, (origin, count), &mut whole);
            let mut one = before.to_vec();
            one.extend((0..count as i64).map(|m| plain(origin + m as f64)));
            assert_eq!(bits(&whole), bits(&one), "case {case}: whole frames");
            let mut halves = before.to_vec();
            horner_rows_grid::<true>(&rows, at, components, (origin, count), &mut halves);
            let mut one = before.to_vec();
            one.extend((0..count as i64).map(|m| plain(origin + m as f64 + 0.5)));
            assert_eq!(bits(&halves), bits(&one), "case {case}: half frames");
        }
    }

    /// `horner_rows_each` gives `horner_rows`' bits at every frame, and `horner_rows_at`
    /// `SourceSpan::polynomial_value`'s, for scalars of every unrolled length (a trailing
    /// signed zero included) and beyond, and for vectors.
    #[test]
    fn horner_at_many_frames_gives_the_bits_of_one_frame() {
        let row = |x: f64| [x, -2.0 * x, 0.5 + x, -0.0];
        let all: Vec<[f64; MAX_COMPONENTS]> =
            [-0.0, 3.25, -1.0 / 3.0, 7e-9, 1e6, -0.0].map(row).to_vec();
        let (start, length) = (-3.5, 7.25);
        let frames = || (0..40).map(|m| start - 0.5 + f64::from(m) * 0.21);
        for len in 1..=all.len() {
            for components in 1..=3 {
                let rows = &all[..len];
                let mut out = Vec::new();
                horner_rows_each(rows, (start, length), components, frames(), &mut out);
                let one: Vec<_> = frames()
                    .map(|f| horner_rows(rows, (f - start) / length, components))
                    .collect();
                let bits = |v: &[[f64; MAX_COMPONENTS]]| {
                    v.iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>()
                };
                assert_eq!(
                    bits(&out),
                    bits(&one),
                    "{len} terms, {components} components"
                );
                // In place (`horner_rows_at`), as `SourceSpan::polynomial_value` writes them.
                let mut at: Vec<_> = frames().map(|f| (f, [0.0; MAX_COMPONENTS])).collect();
                horner_rows_at(rows, (start, length), components, &mut at);
                let span = SourceSpan {
                    start,
                    end: start + length,
                    key: 0,
                    shape: SpanShape::Polynomial {
                        coeffs: rows.into(),
                    },
                };
                for (frame, value) in &at {
                    let mut alone = [0.0; MAX_COMPONENTS];
                    assert!(span.polynomial_value(*frame, components, &mut alone));
                    assert_eq!(value.map(f64::to_bits), alone.map(f64::to_bits), "{frame}");
                }
            }
        }
    }
}
