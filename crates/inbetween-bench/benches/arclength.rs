//! Arc length, its inverse and table lookup, against kurbo's `ParamCurveArclen` on the same cubic Beziers.
//!
//! Run: `cargo bench -p inbetween-bench --features peers --bench arclength`. Our accuracy is relative to the length and
//! kurbo's is absolute, so kurbo is given `accuracy · L` for each curve: both aim at the same
//! error. Each measurement covers all the curves of [`curves`] (one call per curve).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use inbetween::arclength::{ArcLengthTable, ParamCurve};
use inbetween::curve::CubicBezier;
use kurbo::{CubicBez, ParamCurveArclen};

/// The measured curves: a quarter circle, an S-curve, a tight near-cusp turn, a straight line
/// with uneven control points, and a large flat arc.
fn curves() -> Vec<[[f64; 2]; 4]> {
    vec![
        [
            [1.0, 0.0],
            [1.0, 0.552_284_749_8],
            [0.552_284_749_8, 1.0],
            [0.0, 1.0],
        ],
        [[0.0, 0.0], [3.0, -1.0], [-2.0, 4.0], [1.0, 3.0]],
        [[0.0, 0.0], [1.0, 1.0], [0.1, 1.0], [1.0, 0.05]],
        [[0.0, 0.0], [0.15, 0.2], [0.9, 1.2], [3.0, 4.0]],
        [[0.0, 0.0], [300.0, 80.0], [700.0, 80.0], [1000.0, 0.0]],
    ]
}

fn ours(points: &[[f64; 2]; 4]) -> CubicBezier<2> {
    CubicBezier::new(points[0], points[1], points[2], points[3])
}

fn theirs(points: &[[f64; 2]; 4]) -> CubicBez {
    let p = |k: usize| (points[k][0], points[k][1]);
    CubicBez::new(p(0), p(1), p(2), p(3))
}

fn lengths(accuracy: f64) -> Vec<f64> {
    curves()
        .iter()
        .map(|points| ours(points).arclen(accuracy * 1e-3).unwrap_or(0.0))
        .collect()
}

fn bench_arclen(c: &mut Criterion) {
    let mut group = c.benchmark_group("arclen");
    for accuracy in [1e-6, 1e-9] {
        let ours_curves: Vec<_> = curves().iter().map(ours).collect();
        let kurbo_curves: Vec<_> = curves().iter().map(theirs).collect();
        let absolute: Vec<f64> = lengths(accuracy).iter().map(|l| l * accuracy).collect();
        group.bench_function(BenchmarkId::new("inbetween", accuracy), |b| {
            b.iter(|| {
                ours_curves
                    .iter()
                    .map(|curve| curve.arclen(black_box(accuracy)).unwrap_or(0.0))
                    .sum::<f64>()
            });
        });
        group.bench_function(BenchmarkId::new("kurbo", accuracy), |b| {
            b.iter(|| {
                kurbo_curves
                    .iter()
                    .zip(&absolute)
                    .map(|(curve, &tolerance)| curve.arclen(black_box(tolerance)))
                    .sum::<f64>()
            });
        });
    }
    group.finish();
}

fn bench_inv_arclen(c: &mut Criterion) {
    let mut group = c.benchmark_group("inv_arclen");
    for accuracy in [1e-6, 1e-9] {
        let ours_curves: Vec<_> = curves().iter().map(ours).collect();
        let kurbo_curves: Vec<_> = curves().iter().map(theirs).collect();
        let lengths = lengths(accuracy);
        let targets: Vec<f64> = lengths.iter().map(|l| 0.37 * l).collect();
        let absolute: Vec<f64> = lengths.iter().map(|l| l * accuracy).collect();
        group.bench_function(BenchmarkId::new("inbetween", accuracy), |b| {
            b.iter(|| {
                ours_curves
                    .iter()
                    .zip(&targets)
                    .map(|(curve, &s)| curve.inv_arclen(black_box(s), accuracy).unwrap_or(0.0))
                    .sum::<f64>()
            });
        });
        group.bench_function(BenchmarkId::new("kurbo", accuracy), |b| {
            b.iter(|| {
                kurbo_curves
                    .iter()
                    .zip(targets.iter().zip(&absolute))
                    .map(|(curve, (&s, &tolerance))| curve.inv_arclen(black_box(s), tolerance))
                    .sum::<f64>()
            });
        });
    }
    group.finish();
}

/// One `locate` per iteration on a chain of 100 segments (cycling through 1000 distances), against
/// building nothing and calling kurbo's `inv_arclen` on the segment found by a cumulative search.
fn bench_table(c: &mut Criterion) {
    let mut group = c.benchmark_group("table_locate");
    let base = curves();
    let chain: Vec<CubicBezier<2>> = (0..100)
        .map(|i| {
            let points = base[i % base.len()];
            let offset = i as f64 * 10.0;
            let shifted = points.map(|p| [p[0] + offset, p[1]]);
            ours(&shifted)
        })
        .collect();
    let segments: Vec<&dyn ParamCurve> = chain.iter().map(|c| c as &dyn ParamCurve).collect();
    for accuracy in [1e-6, 1e-9] {
        let Ok(table) = ArcLengthTable::build(&segments, accuracy) else {
            continue;
        };
        let total = table.total_length();
        let distances: Vec<f64> = (0..1000)
            .map(|k| total * (k as f64 + 0.5) / 1000.0)
            .collect();
        group.bench_function(BenchmarkId::new("inbetween_locate", accuracy), |b| {
            let mut k = 0;
            b.iter(|| {
                k = (k + 1) % distances.len();
                table.locate(&segments, black_box(distances[k]), accuracy)
            });
        });
        group.bench_function(BenchmarkId::new("inbetween_build_100", accuracy), |b| {
            b.iter(|| ArcLengthTable::build(black_box(&segments), accuracy).is_ok());
        });
    }
    group.finish();
}

/// Frames of the constant-speed playback.
const FRAMES: u32 = 600;

/// The path of the constant-speed playback: three chained cubic Beziers.
fn path_chain() -> Vec<[[f64; 2]; 4]> {
    vec![
        [[0.0, 0.0], [300.0, 80.0], [700.0, 80.0], [1000.0, 0.0]],
        [
            [1000.0, 0.0],
            [1300.0, -80.0],
            [1400.0, 300.0],
            [1200.0, 500.0],
        ],
        [
            [1200.0, 500.0],
            [1000.0, 700.0],
            [600.0, 400.0],
            [300.0, 600.0],
        ],
    ]
}

/// The chain as a vec2 `path: arclength` track, keys every 200 frames, the last at [`FRAMES`].
fn path_track(chain: &[[[f64; 2]; 4]]) -> inbetween::TrackBuilder {
    let mut builder = inbetween::Track::vec2("path");
    for (i, seg) in chain.iter().enumerate() {
        builder = builder
            .key(f64::from(i as u32) * 200.0, seg[0])
            .bezier(seg[1], seg[2]);
    }
    builder
        .key(f64::from(FRAMES), chain[chain.len() - 1][3])
        .arclength(inbetween::Ease::Linear)
}

/// The chain in kurbo, with each segment's length.
struct KurboChain {
    curves: Vec<CubicBez>,
    lengths: Vec<f64>,
    total: f64,
}

impl KurboChain {
    fn new(chain: &[[[f64; 2]; 4]]) -> Self {
        let curves: Vec<CubicBez> = chain.iter().map(theirs).collect();
        let lengths: Vec<f64> = curves.iter().map(|c| c.arclen(1e-9)).collect();
        let total = lengths.iter().sum();
        KurboChain {
            curves,
            lengths,
            total,
        }
    }

    /// Frame `f`'s (segment, t) at constant speed: a cumulative search for the segment, then
    /// kurbo's `inv_arclen` to `accuracy · L`.
    fn at_frame(&self, f: u32, accuracy: f64) -> (usize, f64) {
        let mut s = self.total * f64::from(f) / f64::from(FRAMES);
        let mut k = 0;
        while k + 1 < self.curves.len() && s > self.lengths[k] {
            s -= self.lengths[k];
            k += 1;
        }
        (k, self.curves[k].inv_arclen(s, accuracy * self.total))
    }
}

/// Constant speed along a chain of cubic Beziers for 600 frames: the compiled stream played
/// with additions, against kurbo's `inv_arclen` + evaluation per frame, and against exact
/// evaluation of the arclength track (table lookup + Newton per frame).
fn bench_constant_speed_playback(c: &mut Criterion) {
    use inbetween::compile::CompileOptions;
    use inbetween::player::TrackPlayer;
    use inbetween::stream::Stream;

    let chain = path_chain();
    let track = path_track(&chain).build().expect("valid path");
    let doc = inbetween::Document::builder()
        .track(path_track(&chain))
        .build()
        .expect("valid document");
    let compiled = doc.compile(&CompileOptions::default()).expect("compiles");
    let stream = Stream::from_bytes(&compiled.bytes).expect("valid stream");
    let compiled_track = stream.track(0).expect("one track");
    let kurbo = KurboChain::new(&chain);
    let accuracy = 1e-9;

    let mut group = c.benchmark_group("constant_speed_600_frames");
    group.bench_function("inbetween-stream-f64", |b| {
        b.iter(|| {
            let mut player = TrackPlayer::new(compiled_track);
            let mut acc = 0.0;
            let mut out = [0.0; 2];
            for _ in 0..FRAMES {
                player.write(&mut out);
                acc += out[0] + out[1];
                player.advance();
            }
            black_box(acc)
        });
    });
    group.bench_function("inbetween-exact", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for f in 0..FRAMES {
                let v = track.eval(f64::from(f));
                acc += v[0] + v[1];
            }
            black_box(acc)
        });
    });
    bench_kurbo_playback(&mut group, &kurbo, accuracy);
    group.finish();
    // What the cached players cost before the first frame: kurbo's table of 600 frames, and
    // compiling our arclength track (its arc-length table, fit and verification included).
    let mut group = c.benchmark_group("constant_speed_600_frames_build");
    group.bench_function("kurbo-cached-table", |b| {
        b.iter(|| black_box(kurbo_table(&kurbo, accuracy)))
    });
    group.bench_function("inbetween-compile", |b| {
        b.iter(|| black_box(doc.compile(&CompileOptions::default())))
    });
    group.finish();
}

/// Every frame's (segment, t) found once by `inv_arclen`: the most a kurbo user can cache.
fn kurbo_table(kurbo: &KurboChain, accuracy: f64) -> Vec<(usize, f64)> {
    (0..FRAMES).map(|f| kurbo.at_frame(f, accuracy)).collect()
}

/// kurbo per frame: `inv_arclen` + evaluation every frame, and cached: the table (timed as a
/// build) then one `eval` per frame.
fn bench_kurbo_playback(
    group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    kurbo: &KurboChain,
    accuracy: f64,
) {
    use kurbo::ParamCurve as _;
    group.bench_function("kurbo-inv_arclen", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for f in 0..FRAMES {
                let (k, t) = kurbo.at_frame(f, accuracy);
                let p = kurbo.curves[k].eval(t);
                acc += p.x + p.y;
            }
            black_box(acc)
        });
    });
    let table = kurbo_table(kurbo, accuracy);
    group.bench_function("kurbo-cached", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for &(k, t) in &table {
                let p = kurbo.curves[k].eval(t);
                acc += p.x + p.y;
            }
            black_box(acc)
        });
    });
}

criterion_group!(
    benches,
    bench_arclen,
    bench_inv_arclen,
    bench_table,
    bench_constant_speed_playback
);
criterion_main!(benches);
