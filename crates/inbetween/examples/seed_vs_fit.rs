//! The seed's forward differencing (sample frames 0..d, difference, extrapolate in f32) next to
//! the compiler's whole-span Chebyshev–Lobatto fit, on a slerp over 60 and 240 frames.
//!
//! Run with `cargo run --example seed_vs_fit`.

use inbetween::compile::{
    compile_tracks, CompileOptions, CurveSource, NonFiniteValue, SourceSpan, SpanShape, TrackInput,
};
use inbetween::player::TrackPlayer;
use inbetween::quat::{from_axis_angle, slerp, Quat, IDENTITY};
use inbetween::stream::{Precision, Stream, StreamValueType, StreamWrap};

/// Slerp from the identity to `target` over frames `[0, frames]`.
struct Slerp {
    target: Quat,
    frames: f64,
}

impl CurveSource for Slerp {
    fn components(&self) -> usize {
        4
    }
    fn spans(&self) -> Vec<SourceSpan> {
        vec![SourceSpan {
            start: 0.0,
            end: self.frames,
            key: 0,
            shape: SpanShape::Smooth,
        }]
    }
    fn first_frame(&self) -> f64 {
        0.0
    }
    fn last_frame(&self) -> f64 {
        self.frames
    }
    fn eval(&self, frame: f64, out: &mut [f64]) -> Result<(), NonFiniteValue> {
        let q = slerp(IDENTITY, self.target, (frame / self.frames).clamp(0.0, 1.0));
        out[..4].copy_from_slice(&q);
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

/// The seed's method, all in f32: samples at frames 0..=d, their differences, then additions.
/// Returns the largest component error over frames 0..=frames.
fn seed_error(source: &Slerp, degree: usize) -> f64 {
    let mut work = [[0f32; 9]; 4];
    let mut sample = [0.0; 4];
    for (c, lane) in work.iter_mut().enumerate() {
        let mut values = [0f32; 9];
        for (k, v) in values.iter_mut().enumerate().take(degree + 1) {
            source.eval(k as f64, &mut sample).unwrap_or(());
            *v = sample[c] as f32;
        }
        // Forward differences of the samples: lane[k] = Δ^k at frame 0.
        for (k, slot) in lane.iter_mut().enumerate().take(degree + 1) {
            *slot = values[0];
            for i in 0..degree - k {
                values[i] = values[i + 1] - values[i];
            }
        }
    }
    let mut worst: f64 = 0.0;
    for frame in 0..=(source.frames as usize) {
        source.eval(frame as f64, &mut sample).unwrap_or(());
        for (lane, exact) in work.iter_mut().zip(sample) {
            worst = worst.max((f64::from(lane[0]) - exact).abs());
            for i in 0..degree {
                lane[i] += lane[i + 1];
            }
        }
    }
    worst
}

/// Compiles and plays `source`; returns (pieces, max degree, largest error over every frame).
fn fit_error(source: &Slerp, precision: Precision) -> (usize, u8, f64) {
    let input = TrackInput {
        name: "rotation",
        value_type: StreamValueType::Quat,
        wrap: StreamWrap::Clamp,
        source,
    };
    let options = CompileOptions {
        precision,
        ..CompileOptions::default()
    };
    let compiled = match compile_tracks(&[input], 60.0, &options) {
        Ok(compiled) => compiled,
        Err(error) => {
            eprintln!("compile failed: {error}");
            return (0, 0, f64::NAN);
        }
    };
    let Ok(stream) = Stream::from_bytes(&compiled.bytes) else {
        return (0, 0, f64::NAN);
    };
    let Some(track) = stream.track(0) else {
        return (0, 0, f64::NAN);
    };
    let mut player = TrackPlayer::new(track);
    let mut sample = [0.0; 4];
    let mut worst: f64 = 0.0;
    for frame in 0..=(source.frames as usize) {
        source.eval(frame as f64, &mut sample).unwrap_or(());
        for (c, exact) in sample.iter().enumerate() {
            worst = worst.max((player.component(c) - exact).abs());
        }
        player.advance();
    }
    let summary = &compiled.reports[0].summary;
    (summary.pieces, summary.max_degree, worst)
}

fn main() {
    println!(
        "slerp from the identity, axis (0.3, 0.8, 0.5); max |component error| over every frame"
    );
    println!("default tolerance 1e-6 (quaternion scale 1)\n");
    println!(
        "{:>7} {:>6} | {:>12} {:>12} | {:>22} {:>22} {:>22}",
        "angle",
        "frames",
        "seed d=3 f32",
        "seed d=6 f32",
        "fit f32 (pieces/deg)",
        "fit f64",
        "fit fixed"
    );
    let axis = [0.3, 0.8, 0.5];
    for angle_degrees in [90.0f64, 170.0] {
        for frames in [60.0, 240.0] {
            let source = Slerp {
                target: from_axis_angle(axis, angle_degrees.to_radians()),
                frames,
            };
            let cells: Vec<String> = [Precision::F32, Precision::F64, Precision::Fixed]
                .into_iter()
                .map(|p| {
                    let (pieces, degree, error) = fit_error(&source, p);
                    format!("{error:9.1e} ({pieces}/{degree})")
                })
                .collect();
            println!(
                "{:>6}° {:>6} | {:>12.1e} {:>12.1e} | {:>22} {:>22} {:>22}",
                angle_degrees,
                frames,
                seed_error(&source, 3),
                seed_error(&source, 6),
                cells[0],
                cells[1],
                cells[2]
            );
        }
    }
}
