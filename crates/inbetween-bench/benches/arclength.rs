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

/// Constant speed along a chain of cubic Beziers for 600 frames: the compiled stream played
/// with additions, against kurbo's `inv_arclen` + evaluation per frame, and against exact
/// evaluation of the arclength track (table lookup + Newton per frame).
fn bench_constant_speed_playback(c: &mut Criterion) {
    use inbetween::compile::CompileOptions;
    use inbetween::player::TrackPlayer;
    use inbetween::stream::Stream;
    use inbetween::{Ease, Track};
    use kurbo::ParamCurve as _;

    const FRAMES: u32 = 600;
    let chain: Vec<[[f64; 2]; 4]> = vec![
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
    ];
    let mut builder = Track::vec2("path");
    for (i, seg) in chain.iter().enumerate() {
        builder = builder
            .key(f64::from(i as u32) * 200.0, seg[0])
            .bezier(seg[1], seg[2]);
    }
    let track = builder
        .key(f64::from(FRAMES), chain[chain.len() - 1][3])
        .arclength(Ease::Linear)
        .build()
        .expect("valid path");
    let doc = inbetween::Document::builder()
        .track(
            Track::vec2("path")
                .key(0.0, chain[0][0])
                .bezier(chain[0][1], chain[0][2])
                .key(200.0, chain[1][0])
                .bezier(chain[1][1], chain[1][2])
                .key(400.0, chain[2][0])
                .bezier(chain[2][1], chain[2][2])
                .key(f64::from(FRAMES), chain[2][3])
                .arclength(Ease::Linear),
        )
        .build()
        .expect("valid document");
    let compiled = doc.compile(&CompileOptions::default()).expect("compiles");
    let stream = Stream::from_bytes(&compiled.bytes).expect("valid stream");
    let compiled_track = stream.track(0).expect("one track");
    let kurbo_chain: Vec<CubicBez> = chain.iter().map(theirs).collect();
    let accuracy = 1e-9;
    let kurbo_lengths: Vec<f64> = kurbo_chain.iter().map(|c| c.arclen(1e-9)).collect();
    let total: f64 = kurbo_lengths.iter().sum();

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
    group.bench_function("kurbo-inv_arclen", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for f in 0..FRAMES {
                let mut s = total * f64::from(f) / f64::from(FRAMES);
                let mut k = 0;
                while k + 1 < kurbo_chain.len() && s > kurbo_lengths[k] {
                    s -= kurbo_lengths[k];
                    k += 1;
                }
                let t = kurbo_chain[k].inv_arclen(s, accuracy * total);
                let p = kurbo_chain[k].eval(t);
                acc += p.x + p.y;
            }
            black_box(acc)
        });
    });
    // Cached kurbo: every frame's (segment, t) found once by `inv_arclen` (the table, timed
    // below as a build), then one `eval` per frame — the most a kurbo user can cache.
    let kurbo_table = || -> Vec<(usize, f64)> {
        (0..FRAMES)
            .map(|f| {
                let mut s = total * f64::from(f) / f64::from(FRAMES);
                let mut k = 0;
                while k + 1 < kurbo_chain.len() && s > kurbo_lengths[k] {
                    s -= kurbo_lengths[k];
                    k += 1;
                }
                (k, kurbo_chain[k].inv_arclen(s, accuracy * total))
            })
            .collect()
    };
    let table = kurbo_table();
    group.bench_function("kurbo-cached", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for &(k, t) in &table {
                let p = kurbo_chain[k].eval(t);
                acc += p.x + p.y;
            }
            black_box(acc)
        });
    });
    group.finish();
    // What the cached players cost before the first frame: kurbo's table of 600 frames, and
    // compiling our arclength track (its arc-length table, fit and verification included).
    let mut group = c.benchmark_group("constant_speed_600_frames_build");
    group.bench_function("kurbo-cached-table", |b| {
        b.iter(|| black_box(kurbo_table()))
    });
    group.bench_function("inbetween-compile", |b| {
        b.iter(|| black_box(doc.compile(&CompileOptions::default())))
    });
    group.finish();
}

criterion_group!(
    benches,
    bench_arclen,
    bench_inv_arclen,
    bench_table,
    bench_constant_speed_playback
);
criterion_main!(benches);
