//! Whether the quaternion workload's rotations could play on narrower Horner lanes: the compiled stream's piece degrees (tracks by maximum degree, pieces and frames by degree, the mean coefficients a component-frame), then, per lane degree `L`, how many tracks have every epoch part of every piece within their check budget when replaced by the degree-`L` polynomial through `L + 1` Chebyshev-spaced frames of that part — an estimate, in f64, of what a bank playing each epoch on degree-`L` lanes could pass; and the size of each order ≥ 3 about the epoch centre (`|c_k| · 8^k`, what narrower storage of the high orders would round).
//!
//! ```sh
//! cargo run --release -p inbetween-bench --example quat_lane_degrees [ROTATIONS] [MAX_DEGREE]
//! ```
//! (default 10 000 rotations, the compiler's default maximum degree for rotations,
//! `CompileOptions::rotation_max_degree`; a `MAX_DEGREE` given sets it and `max_degree`;
//! `QUAT_TOLERANCE`, f32).
//! The values interpolated are `TrackPlayer`'s (normalized: the raw components are within
//! ~1e-5 of unit length, so their interpolation errors are the same to that relative order),
//! and the budget is the bank's check's, `tolerance − max_error` of the track; an epoch part of
//! at most `L + 1` frames is exact.

use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream};
use inbetween_bench::{compile_with_options, quat_workload_document, QUAT_TOLERANCE};

/// Frames per epoch of the bank's Horner lanes (`batch::horner::EPOCH`).
const EPOCH: i64 = 16;

/// Lane degrees estimated.
const LANE_DEGREES: [usize; 4] = [2, 3, 4, 5];

/// Fractions of a track's budget counted.
const FRACTIONS: [f64; 4] = [0.25, 0.5, 0.75, 1.0];

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let rotations: usize = args
        .next()
        .map_or(Ok(10_000), |a| a.parse())
        .map_err(|e| format!("ROTATIONS: {e}"))?;
    let defaults = CompileOptions::default();
    // A MAX_DEGREE given caps the rotations at it (`max_degree` and `rotation_max_degree`);
    // without it, the defaults: `rotation_max_degree` caps them.
    let max_degree: Option<u8> = args
        .next()
        .map(|a| a.parse())
        .transpose()
        .map_err(|e| format!("MAX_DEGREE: {e}"))?;
    let doc = quat_workload_document(rotations, 9)?;
    let options = CompileOptions {
        precision: Precision::F32,
        tolerance: Some(QUAT_TOLERANCE),
        max_degree: max_degree.unwrap_or(defaults.max_degree),
        rotation_max_degree: max_degree.unwrap_or(defaults.rotation_max_degree),
        ..defaults
    };
    let max_degree = options.max_degree.min(options.rotation_max_degree);
    let bytes = compile_with_options(&doc, &options)?;
    let stream = Stream::from_bytes(&bytes).map_err(|e| e.to_string())?;
    let mut track_degrees = [0usize; 9];
    let mut piece_degrees = [0usize; 9];
    let mut frames = [0.0f64; 9];
    let mut within = [[0usize; FRACTIONS.len()]; LANE_DEGREES.len()];
    let mut budgets = Vec::new();
    let mut order_terms: [Vec<f64>; 7] = Default::default();
    for track in stream.tracks() {
        track_degrees[usize::from(track.max_degree()).min(8)] += 1;
        let budget = track.tolerance() - track.max_error();
        budgets.push(budget);
        let (first, last) = (
            track.first_frame().ceil() as i64,
            track.last_frame().floor() as i64,
        );
        let mut player = TrackPlayer::new(track);
        player.seek(first as f64).map_err(|e| e.to_string())?;
        let mut values = Vec::new();
        for _ in first..=last {
            values.push(player.value());
            player.advance();
        }
        let mut worst = [0.0f64; LANE_DEGREES.len()];
        let mut terms = [0.0f64; 7];
        for piece in (0..track.piece_count()).filter_map(|i| track.piece(i)) {
            let degree = usize::from(piece.degree).min(8);
            piece_degrees[degree] += 1;
            frames[degree] += piece.end - piece.start;
            let (start, end) = (piece.start.ceil() as i64, piece.end.ceil() as i64);
            let mut epoch = start.div_euclid(EPOCH) * EPOCH;
            while epoch < end {
                let from = start.max(epoch).max(first);
                let to = end.min(epoch + EPOCH).min(last + 1);
                for c in 0..4 {
                    let part: Vec<f64> = (from..to)
                        .filter_map(|f| values.get(usize::try_from(f - first).ok()?))
                        .map(|v| v[c])
                        .collect();
                    for (w, &l) in worst.iter_mut().zip(&LANE_DEGREES) {
                        *w = w.max(interpolation_error(&part, l));
                    }
                    if part.len() == EPOCH as usize {
                        let d = scaled_orders(&part);
                        for (t, x) in terms.iter_mut().zip(d) {
                            *t = t.max(x.abs());
                        }
                    }
                }
                epoch += EPOCH;
            }
        }
        for (all, t) in order_terms.iter_mut().zip(terms) {
            all.push(t);
        }
        for (counts, w) in within.iter_mut().zip(worst) {
            for (count, f) in counts.iter_mut().zip(FRACTIONS) {
                *count += usize::from(w <= f * budget);
            }
        }
    }
    budgets.sort_by(f64::total_cmp);
    let total: f64 = frames.iter().sum();
    let mean = frames
        .iter()
        .enumerate()
        .map(|(d, f)| (d + 1) as f64 * f)
        .sum::<f64>()
        / total.max(1.0);
    println!(
        "{rotations} rotations, maximum degree {max_degree}: {} stream bytes",
        bytes.len()
    );
    println!("tracks by maximum degree 0..8: {track_degrees:?}");
    println!("pieces by degree 0..8:         {piece_degrees:?}");
    let shares: Vec<String> = frames
        .iter()
        .map(|f| format!("{:.3}", f / total.max(1.0)))
        .collect();
    println!("frames by piece degree 0..8:   [{}]", shares.join(", "));
    println!("coefficients a component-frame at the piece's own degree: {mean:.2}");
    println!(
        "check budget (tolerance − max_error): min {:.2e}, median {:.2e}",
        budgets.first().copied().unwrap_or(0.0),
        budgets.get(budgets.len() / 2).copied().unwrap_or(0.0)
    );
    for (l, counts) in LANE_DEGREES.iter().zip(within) {
        println!(
            "lane degree {l}: tracks within 25 / 50 / 75 / 100 % of their budget at every \
             epoch part: {counts:?} of {}",
            budgets.len()
        );
    }
    for (k, all) in order_terms.iter_mut().enumerate().skip(3) {
        all.sort_by(f64::total_cmp);
        println!(
            "order {k} about the epoch centre, |c_k| · 8^k over whole epochs (per track its \
             largest): median {:.2e}, largest {:.2e}",
            all.get(all.len() / 2).copied().unwrap_or(0.0),
            all.last().copied().unwrap_or(0.0)
        );
    }
    Ok(())
}

/// The largest error, over the frames of `y` (values at consecutive frames), of the degree-`l`
/// polynomial through `l + 1` of them (Chebyshev nodes of the part rounded to frames, evenly
/// spaced frames where two round alike); 0 for at most `l + 1` frames.
fn interpolation_error(y: &[f64], l: usize) -> f64 {
    let m = y.len();
    if m <= l + 1 {
        return 0.0;
    }
    let half = (m - 1) as f64 / 2.0;
    let mut nodes: Vec<usize> = (0..=l)
        .map(|i| {
            let angle = std::f64::consts::PI * (2 * i + 1) as f64 / (2 * l + 2) as f64;
            (half + half * angle.cos()).round() as usize
        })
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    if nodes.len() < l + 1 {
        nodes = (0..=l).map(|i| i * (m - 1) / l).collect();
    }
    let mut worst = 0.0f64;
    for (x, &exact) in y.iter().enumerate() {
        let mut v = 0.0;
        for (i, &xi) in nodes.iter().enumerate() {
            let mut w = 1.0;
            for (j, &xj) in nodes.iter().enumerate() {
                if i != j {
                    w *= (x as f64 - xj as f64) / (xi as f64 - xj as f64);
                }
            }
            v += w * y.get(xi).copied().unwrap_or(0.0);
        }
        worst = worst.max((v - exact).abs());
    }
    worst
}

/// The power coefficients `c_k · 8^k` (k = 0..6) about the centre of a whole epoch of 16
/// values `y` (frames `centre − 8 .. centre + 8`): the degree-6 polynomial in `τ = t / 8`
/// through 7 Chebyshev-spaced frames of them, by Gaussian elimination (partial pivoting) on
/// the Vandermonde system.
fn scaled_orders(y: &[f64]) -> [f64; 7] {
    let mut rows = [[0.0f64; 8]; 7];
    for (i, row) in rows.iter_mut().enumerate() {
        let angle = std::f64::consts::PI * (2 * i + 1) as f64 / 14.0;
        let x = (7.5 + 7.5 * angle.cos()).round() as usize;
        let tau = (x as f64 - 8.0) / 8.0;
        let mut p = 1.0;
        for v in row.iter_mut().take(7) {
            *v = p;
            p *= tau;
        }
        row[7] = y.get(x).copied().unwrap_or(0.0);
    }
    for col in 0..7 {
        let pivot = (col..7)
            .max_by(|&a, &b| rows[a][col].abs().total_cmp(&rows[b][col].abs()))
            .unwrap_or(col);
        rows.swap(col, pivot);
        let top = rows[col];
        for row in rows.iter_mut().skip(col + 1) {
            let f = row[col] / top[col];
            for (x, t) in row.iter_mut().zip(top).skip(col) {
                *x -= f * t;
            }
        }
    }
    let mut c = [0.0f64; 7];
    for col in (0..7).rev() {
        let rest: f64 = (col + 1..7).map(|k| rows[col][k] * c[k]).sum();
        c[col] = (rows[col][7] - rest) / rows[col][col];
    }
    c
}
