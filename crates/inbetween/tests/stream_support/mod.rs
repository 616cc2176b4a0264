//! Synthetic `CurveSource`s for the stream tests: polynomial spans, closures, slerp, steps.
#![allow(dead_code)]

use inbetween::compile::{compile_tracks, CompileOptions, CompiledStream, TrackInput};
use inbetween::compile::{CurveSource, NonFiniteValue, SourceSpan, SpanShape, MAX_COMPONENTS};
use inbetween::stream::{
    fix_checksum, Precision, Stream, StreamError, StreamValueType, StreamWrap,
};

/// Prints both sides and the difference when |a − b| > tol.
#[macro_export]
macro_rules! assert_close {
    ($a:expr, $b:expr, $tol:expr) => {
        assert_close!($a, $b, $tol, "")
    };
    ($a:expr, $b:expr, $tol:expr, $($ctx:tt)+) => {{
        let (a, b, tol): (f64, f64, f64) = ($a, $b, $tol);
        assert!(
            (a - b).abs() <= tol,
            "{} = {a:e}, {} = {b:e}, |diff| = {:e} > {tol:e} {}",
            stringify!($a),
            stringify!($b),
            (a - b).abs(),
            format!($($ctx)+)
        );
    }};
}

/// A curve made of polynomial spans: `spans[i] = (start, end, coeffs in v per component)`.
pub struct PolySource {
    pub components: usize,
    pub spans: Vec<(f64, f64, Vec<[f64; MAX_COMPONENTS]>)>,
    /// Value at the last frame (the last key's value).
    pub end_value: [f64; MAX_COMPONENTS],
}

fn poly_eval(coeffs: &[[f64; MAX_COMPONENTS]], v: f64, out: &mut [f64]) {
    for c in 0..out.len().min(MAX_COMPONENTS) {
        let mut sum = 0.0;
        for k in (0..coeffs.len()).rev() {
            sum = sum * v + coeffs[k][c];
        }
        out[c] = sum;
    }
}

impl PolySource {
    /// One polynomial span over `[start, end]` with scalar coefficients (continuous end value).
    pub fn scalar(start: f64, end: f64, coeffs: &[f64]) -> Self {
        let rows: Vec<[f64; 4]> = coeffs.iter().map(|c| [*c, 0.0, 0.0, 0.0]).collect();
        let mut end_value = [0.0; 4];
        poly_eval(&rows, 1.0, &mut end_value[..1]);
        Self {
            components: 1,
            spans: vec![(start, end, rows)],
            end_value,
        }
    }
}

impl CurveSource for PolySource {
    fn components(&self) -> usize {
        self.components
    }
    fn spans(&self) -> Vec<SourceSpan> {
        self.spans
            .iter()
            .enumerate()
            .map(|(i, (s, e, c))| SourceSpan {
                start: *s,
                end: *e,
                key: i,
                shape: SpanShape::Polynomial {
                    coeffs: c.clone().into(),
                },
            })
            .collect()
    }
    fn first_frame(&self) -> f64 {
        self.spans.first().map_or(0.0, |s| s.0)
    }
    fn last_frame(&self) -> f64 {
        self.spans.last().map_or(0.0, |s| s.1)
    }
    fn eval(&self, frame: f64, out: &mut [f64]) -> Result<(), NonFiniteValue> {
        if frame >= self.last_frame() {
            out[..self.components].copy_from_slice(&self.end_value[..self.components]);
            return Ok(());
        }
        let span = self
            .spans
            .iter()
            .rev()
            .find(|s| s.0 <= frame)
            .unwrap_or(&self.spans[0]);
        poly_eval(
            &span.2,
            (frame - span.0) / (span.1 - span.0),
            &mut out[..self.components],
        );
        Ok(())
    }
    fn eval_in_span(
        &self,
        span: &SourceSpan,
        frame: f64,
        out: &mut [f64],
    ) -> Result<(), NonFiniteValue> {
        let (s, e, c) = &self.spans[span.key];
        poly_eval(c, (frame - s) / (e - s), &mut out[..self.components]);
        Ok(())
    }
}

/// A smooth curve given by a closure of the frame, with span breaks at `breaks`
/// (first = first frame, last = last frame).
pub struct FnSource<F: Fn(f64) -> [f64; MAX_COMPONENTS]> {
    pub components: usize,
    pub breaks: Vec<f64>,
    pub f: F,
}

impl<F: Fn(f64) -> [f64; MAX_COMPONENTS] + Sync> CurveSource for FnSource<F> {
    fn components(&self) -> usize {
        self.components
    }
    fn spans(&self) -> Vec<SourceSpan> {
        self.breaks
            .windows(2)
            .enumerate()
            .map(|(i, w)| SourceSpan {
                start: w[0],
                end: w[1],
                key: i,
                shape: SpanShape::Smooth,
            })
            .collect()
    }
    fn first_frame(&self) -> f64 {
        self.breaks[0]
    }
    fn last_frame(&self) -> f64 {
        *self.breaks.last().unwrap()
    }
    fn eval(&self, frame: f64, out: &mut [f64]) -> Result<(), NonFiniteValue> {
        let v = (self.f)(frame.clamp(self.first_frame(), self.last_frame()));
        out[..self.components].copy_from_slice(&v[..self.components]);
        Ok(())
    }
    fn eval_in_span(
        &self,
        _span: &SourceSpan,
        frame: f64,
        out: &mut [f64],
    ) -> Result<(), NonFiniteValue> {
        self.eval(frame, out)
    }
}

/// Slerp from the identity to a rotation of `angle` radians about a tilted axis, over `[0, frames]`.
pub fn slerp_source(frames: f64, angle: f64) -> FnSource<impl Fn(f64) -> [f64; 4]> {
    let axis = {
        let a = [0.3f64, 0.8, 0.5];
        let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        [a[0] / n, a[1] / n, a[2] / n]
    };
    FnSource {
        components: 4,
        breaks: vec![0.0, frames],
        f: move |frame| {
            let half = angle * frame / frames / 2.0;
            let s = half.sin();
            [axis[0] * s, axis[1] * s, axis[2] * s, half.cos()]
        },
    }
}

/// Compiles one track.
pub fn compile_one(
    source: &dyn CurveSource,
    value_type: StreamValueType,
    wrap: StreamWrap,
    precision: Precision,
    tolerance: Option<f64>,
) -> CompiledStream {
    let options = CompileOptions {
        tolerance,
        precision,
        ..CompileOptions::default()
    };
    compile_tracks(
        &[TrackInput {
            name: "t",
            value_type,
            wrap,
            source,
        }],
        60.0,
        &options,
    )
    .unwrap_or_else(|e| panic!("compile failed: {e}"))
}

/// Every precision.
pub const PRECISIONS: [Precision; 3] = [Precision::F32, Precision::F64, Precision::Fixed];

/// The spec's wrap of frame `f` for a track on `[first, last]`.
pub fn wrap_frame(wrap: StreamWrap, first: f64, last: f64, f: f64) -> f64 {
    if (first..=last).contains(&f) {
        return f;
    }
    let span = last - first;
    let fmod = |x: f64, m: f64| x - m * (x / m).floor();
    match wrap {
        StreamWrap::Clamp => f.clamp(first, last),
        StreamWrap::Loop => first + fmod(f - first, span),
        StreamWrap::PingPong => {
            let r = fmod(f - first, 2.0 * span);
            if r <= span {
                first + r
            } else {
                first + 2.0 * span - r
            }
        }
    }
}

/// The error after writing `patch` at `offset` and fixing the checksum.
pub fn corrupt(bytes: &[u8], offset: usize, patch: &[u8]) -> StreamError {
    let mut copy = bytes.to_vec();
    copy[offset..offset + patch.len()].copy_from_slice(patch);
    fix_checksum(&mut copy);
    Stream::from_bytes(&copy).expect_err("corrupted stream accepted")
}

/// A smooth non-polynomial curve over 160 frames in two components (spans at 20 and 95.5).
pub fn smooth_vec2() -> FnSource<impl Fn(f64) -> [f64; 4]> {
    FnSource {
        components: 2,
        breaks: vec![0.0, 20.0, 95.5, 160.0],
        f: |f: f64| {
            [
                10.0 * (f / 9.0).sin() + f * 0.05,
                (f / 31.0).cos() * 4.0,
                0.0,
                0.0,
            ]
        },
    }
}

/// Three polynomial spans over 80 frames — a hold, a cubic, a line — in value units of
/// `scale` (about 10 × scale).
pub fn mixed_polynomials(scale: f64) -> PolySource {
    let row = |x: f64| [x * scale, 0.0, 0.0, 0.0];
    PolySource {
        components: 1,
        spans: vec![
            (0.0, 12.0, vec![row(2.0)]),
            (12.0, 40.0, vec![row(2.0), row(0.0), row(9.0), row(-6.0)]),
            (40.0, 80.0, vec![row(5.0), row(-5.0)]),
        ],
        end_value: [0.0; 4],
    }
}

/// examples/showcase.json (every segment kind and ease family) and its compile in `precision`.
pub fn compiled_showcase(precision: Precision) -> (inbetween::Document, CompiledStream) {
    let showcase = include_str!("../../../../examples/showcase.json");
    let doc = inbetween::Document::from_json_str(showcase, "showcase.json").unwrap();
    let options = CompileOptions {
        precision,
        ..CompileOptions::default()
    };
    let compiled = doc.compile(&options).unwrap();
    (doc, compiled)
}
