//! Property tests over random mixed sources (polynomial and smooth spans, fractional keys) in every precision.

mod stream_support;

use inbetween::compile::{CurveSource, NonFiniteValue, SourceSpan, SpanShape};
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream, StreamValueType, StreamWrap};
use proptest::prelude::*;
use stream_support::*;

#[derive(Debug, Clone)]
enum Shape {
    Poly(Vec<[f64; 4]>),
    Wave {
        amplitude: f64,
        rate: f64,
        phase: f64,
    },
}

#[derive(Debug, Clone)]
struct Mixed {
    spans: Vec<(f64, f64, Shape)>,
}

impl Mixed {
    fn eval_shape(&self, index: usize, frame: f64, out: &mut [f64]) {
        let (s, e, shape) = &self.spans[index];
        match shape {
            Shape::Poly(c) => {
                let v = (frame - s) / (e - s);
                let mut sum = 0.0;
                for k in (0..c.len()).rev() {
                    sum = sum * v + c[k][0];
                }
                out[0] = sum;
            }
            Shape::Wave {
                amplitude,
                rate,
                phase,
            } => out[0] = amplitude * (rate * frame + phase).sin() + 0.01 * frame,
        }
    }
}

impl CurveSource for Mixed {
    fn components(&self) -> usize {
        1
    }
    fn spans(&self) -> Vec<SourceSpan> {
        self.spans
            .iter()
            .enumerate()
            .map(|(i, (s, e, shape))| SourceSpan {
                start: *s,
                end: *e,
                key: i,
                shape: match shape {
                    Shape::Poly(c) => SpanShape::Polynomial {
                        coeffs: c.clone().into(),
                    },
                    Shape::Wave { .. } => SpanShape::Smooth,
                },
            })
            .collect()
    }
    fn first_frame(&self) -> f64 {
        self.spans[0].0
    }
    fn last_frame(&self) -> f64 {
        self.spans.last().unwrap().1
    }
    fn eval(&self, frame: f64, out: &mut [f64]) -> Result<(), NonFiniteValue> {
        let last = self.spans.len() - 1;
        let index = if frame >= self.last_frame() {
            last
        } else {
            self.spans.iter().rposition(|s| s.0 <= frame).unwrap_or(0)
        };
        self.eval_shape(index, frame.min(self.last_frame()), out);
        Ok(())
    }
    fn eval_in_span(
        &self,
        span: &SourceSpan,
        frame: f64,
        out: &mut [f64],
    ) -> Result<(), NonFiniteValue> {
        self.eval_shape(span.key, frame, out);
        Ok(())
    }
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        prop::collection::vec(-100.0..100.0f64, 1..11)
            .prop_map(|c| Shape::Poly(c.into_iter().map(|x| [x, 0.0, 0.0, 0.0]).collect())),
        (0.1..50.0f64, 0.01..0.4f64, -3.0..3.0f64).prop_map(|(amplitude, rate, phase)| {
            Shape::Wave {
                amplitude,
                rate,
                phase,
            }
        }),
    ]
}

fn mixed() -> impl Strategy<Value = Mixed> {
    (
        -20.0..20.0f64,
        prop::collection::vec(
            (
                prop_oneof![0.3..3.0f64, 3.0..90.0f64, 90.0..400.0f64],
                shape(),
            ),
            1..4,
        ),
    )
        .prop_map(|(start, parts)| {
            let mut at = start;
            let spans = parts
                .into_iter()
                .map(|(length, shape)| {
                    let span = (at, at + length, shape);
                    at += length;
                    span
                })
                .collect();
            Mixed { spans }
        })
}

fn precision() -> impl Strategy<Value = Precision> {
    prop_oneof![
        Just(Precision::F32),
        Just(Precision::F64),
        Just(Precision::Fixed)
    ]
}

fn wrap() -> impl Strategy<Value = StreamWrap> {
    prop_oneof![
        Just(StreamWrap::Clamp),
        Just(StreamWrap::Loop),
        Just(StreamWrap::PingPong)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn played_streams_stay_within_tolerance_and_seek_agrees(source in mixed(), precision in precision(), wrap in wrap(), seek_at in -100.0..200.0f64) {
        let compiled = compile_one(&source, StreamValueType::Scalar, wrap, precision, None);
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let track = stream.track(0).unwrap();
        let tolerance = track.tolerance();
        let (first, last) = (source.first_frame(), source.last_frame());
        let mut exact = [0.0; 4];
        // Forward over two periods around the keys, every integer frame.
        let from = first.floor() - 5.0;
        let mut player = TrackPlayer::new(track);
        player.seek(from).unwrap();
        let mut played = Vec::new();
        let mut frame = from;
        while frame <= last + (last - first) + 5.0 {
            let w = wrap_frame(wrap, first, last, frame);
            source.eval(w, &mut exact).unwrap();
            let v = player.component(0);
            prop_assert!((v - exact[0]).abs() <= tolerance, "{precision} {wrap:?} frame {frame}: {v} vs {} (tol {tolerance:e})", exact[0]);
            // Fixed point is bit-exact wherever the wrapped frame is a whole frame.
            played.push((v, w.fract() == 0.0));
            player.advance();
            frame += 1.0;
        }
        // Seek to an integer frame, then play: equals the sequential values.
        let start = seek_at.round().clamp(from, frame - 1.0);
        let index = (start - from) as usize;
        let mut probe = TrackPlayer::new(track);
        probe.seek(start).unwrap();
        for (expected, whole) in played.iter().skip(index).take(40) {
            let diff = (probe.component(0) - expected).abs();
            if precision == Precision::Fixed && *whole {
                prop_assert_eq!(probe.component(0), *expected);
            } else {
                prop_assert!(diff <= 1e-4 * tolerance, "{precision}: {diff:e}");
            }
            probe.advance();
        }
        // Backward from the end equals forward reversed.
        let mut back = TrackPlayer::new(track);
        back.seek(frame - 1.0).unwrap();
        back.set_step(-1.0).unwrap();
        for (expected, whole) in played.iter().rev().take(60) {
            let diff = (back.component(0) - expected).abs();
            if precision == Precision::Fixed && *whole {
                prop_assert_eq!(back.component(0), *expected);
            } else {
                prop_assert!(diff <= 1e-4 * tolerance, "{precision} backward: {diff:e}");
            }
            back.advance();
        }
        // Another rate: within tolerance at fractional frames.
        let mut fast = TrackPlayer::new(track);
        fast.seek(first).unwrap();
        fast.set_step(60.0 / 144.0).unwrap();
        let mut k = 0.0;
        while first + k * 60.0 / 144.0 <= last {
            let frame = first + k * 60.0 / 144.0;
            source.eval(frame, &mut exact).unwrap();
            prop_assert!((fast.component(0) - exact[0]).abs() <= tolerance, "{precision} rate frame {frame}: {} vs {} tol {tolerance:e} pieces {:?}", fast.component(0), exact[0], track.pieces().collect::<Vec<_>>());
            fast.advance();
            k += 1.0;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn slerp_tracks_stay_within_tolerance_of_the_unit_quaternion(
        degrees in 1.0..179.5f64,
        frames in 1.5..400.0f64,
        precision in precision(),
    ) {
        let source = slerp_source(frames, degrees.to_radians());
        let compiled = compile_one(&source, StreamValueType::Quat, StreamWrap::Loop, precision, None);
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let mut player = TrackPlayer::new(stream.track(0).unwrap());
        let mut exact = [0.0; 4];
        for frame in 0..=(frames as usize) {
            source.eval(frame as f64, &mut exact).unwrap();
            let q = player.value();
            for c in 0..4 {
                prop_assert!((q[c] - exact[c]).abs() <= 1e-6, "{precision} frame {frame}: {q:?} vs {exact:?}");
            }
            player.advance();
        }
    }
}
