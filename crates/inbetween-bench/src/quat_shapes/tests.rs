//! Tests of the chord reparametrization, the fit, the shapes' kernels and their played error on the quaternion workload.

use inbetween::quat::{self, Quat};

use super::kernels::{arc_with, chord_with};
use super::{
    arc_lane, chord_parameter, fit_centered, fit_chord, played_arc, played_chord, ArcShape,
    ChordShape, Segment,
};

/// Two unit quaternions `theta` radians apart (about a fixed tilted axis pair).
fn pair(theta: f64) -> (Quat, Quat) {
    let q0 = quat::normalize([0.3, -0.5, 0.2, 0.8]).unwrap_or(quat::IDENTITY);
    // A unit vector orthogonal to q0, so q1 = q0 cos θ + e sin θ is θ from q0.
    let e = quat::normalize([0.5, 0.3, 0.0, 0.0]).unwrap_or(quat::IDENTITY);
    let d = quat::dot(q0, e);
    let e = quat::normalize(std::array::from_fn(|c| e[c] - d * q0[c])).unwrap_or(e);
    (
        q0,
        std::array::from_fn(|c| q0[c] * theta.cos() + e[c] * theta.sin()),
    )
}

fn max_difference(a: Quat, b: Quat) -> f64 {
    (0..4).fold(0.0, |m: f64, c| m.max((a[c] - b[c]).abs()))
}

#[test]
fn normalized_chord_at_the_chord_parameter_is_the_slerp() {
    for theta in [
        1e-9,
        1e-5,
        0.01,
        0.1,
        0.5,
        1.0,
        1.2,
        std::f64::consts::FRAC_PI_2,
    ] {
        let (q0, q1) = pair(theta);
        for i in 0..=200 {
            let u = f64::from(i) / 200.0;
            let s = chord_parameter(theta, u);
            let chord: Quat = std::array::from_fn(|c| q0[c] + s * (q1[c] - q0[c]));
            let played = quat::normalize(chord).unwrap_or(chord);
            let exact = quat::slerp(q0, q1, u);
            assert!(max_difference(played, exact) < 1e-13, "θ {theta} u {u}");
        }
    }
}

#[test]
fn tangent_form_equals_the_sine_ratio() {
    for theta in [0.01, 0.3, 1.0, std::f64::consts::FRAC_PI_2, 2.5, 3.0] {
        for i in 0..=100 {
            let u = f64::from(i) / 100.0;
            let ratio = (u * theta).sin() / ((u * theta).sin() + ((1.0 - u) * theta).sin());
            assert!(
                (chord_parameter(theta, u) - ratio).abs() < 1e-14,
                "θ {theta} u {u}"
            );
        }
    }
}

/// Near θ = 0, `s(u) − u = θ²·v·(v²/3 − 1/12) + O(θ⁴)` with `v = u − ½`, at most 0.0161 θ²
/// (at v² = 1/12): the chord parameter tends to u.
#[test]
fn chord_parameter_tends_to_u_as_the_angle_vanishes() {
    for theta in [1e-3, 1e-2, 0.1] {
        let worst = (0..=1000)
            .map(|i| {
                let u = f64::from(i) / 1000.0;
                (chord_parameter(theta, u) - u).abs()
            })
            .fold(0.0, f64::max);
        assert!(worst <= theta * theta / 60.0, "θ {theta}: {worst:e}");
        assert!(worst >= theta * theta / 70.0, "θ {theta}: {worst:e}");
    }
    assert_eq!(chord_parameter(0.0, 0.3), 0.3);
}

/// At θ = π/2 (keys 180° apart as rotations, the largest shortest arc) `s` is smooth and
/// increasing from 0 to 1; towards θ = π (antipodal keys, never a shortest arc) the chord
/// passes through 0 and `s` tends to ½ everywhere inside (0, 1): a step, which no polynomial
/// fits.
#[test]
fn chord_parameter_at_the_half_turn_and_towards_antipodal_keys() {
    let half = std::f64::consts::FRAC_PI_2;
    let mut last = -1.0;
    for i in 0..=100 {
        let s = chord_parameter(half, f64::from(i) / 100.0);
        assert!(s > last && (0.0..=1.0).contains(&s));
        last = s;
    }
    assert!(chord_parameter(half, 0.0).abs() < 1e-15);
    assert!((chord_parameter(half, 1.0) - 1.0).abs() < 1e-15);
    let near = std::f64::consts::PI - 1e-6;
    for u in [0.1, 0.25, 0.75, 0.9] {
        assert!((chord_parameter(near, u) - 0.5).abs() < 1e-5, "u {u}");
    }
    // The chord's shortest length, cos(θ/2), is what the normalization divides by.
    let (q0, q1) = pair(half);
    let mid: Quat = std::array::from_fn(|c| 0.5 * (q0[c] + q1[c]));
    assert!((quat::norm(mid) - (0.5 * half).cos()).abs() < 1e-15);
}

/// A cubic is its own fit of degree 3 on an interval holding at least 4 integer frames; on
/// shorter ones (h = ½, 1) the fit passes through the cubic at every integer frame.
#[test]
fn fit_reproduces_a_polynomial_of_its_degree() {
    let p = |t: f64| 0.25 - 0.5 * t + 0.125 * t * t - 0.01 * t * t * t;
    for h in [1.5, 7.5, 32.0] {
        let c = fit_centered(p, h, 3);
        for (k, e) in [0.25, -0.5, 0.125, -0.01].iter().enumerate() {
            assert!((c[k] - e).abs() < 1e-12, "h {h} k {k}: {} vs {e}", c[k]);
        }
    }
    for h in [0.5, 1.0] {
        let c = fit_centered(p, h, 3);
        let mut t = -h;
        while t <= h {
            let at = c.iter().rev().fold(0.0, |v, x| v * t + x);
            assert!((at - p(t)).abs() < 1e-14, "h {h} t {t}");
            t += 1.0;
        }
    }
}

/// Chebyshev interpolation of degree D on [−h, h] is within
/// `max|f⁽ᴰ⁺¹⁾| · h^(D+1) / (2^D (D+1)!)` of `f`: checked for `exp(t/h)` (derivative bound
/// `e / h^(D+1)`).
#[test]
fn fit_error_is_within_the_chebyshev_bound() {
    let h = 20.0;
    for degree in 2..=6usize {
        let c = fit_centered(|t: f64| (t / h).exp(), h, degree);
        let factorial: f64 = (1..=degree + 1).map(|k| k as f64).product();
        let bound = std::f64::consts::E / (2f64.powi(degree as i32) * factorial);
        let worst = (0..=400)
            .map(|i| {
                let t = -h + f64::from(i) * 0.1;
                (c.iter().rev().fold(0.0, |v, x| v * t + x) - (t / h).exp()).abs()
            })
            .fold(0.0, f64::max);
        assert!(
            worst <= bound * (1.0 + 1e-9) + 1e-15,
            "degree {degree}: {worst:e} > {bound:e}"
        );
        assert!(
            worst >= bound / 50.0,
            "degree {degree}: {worst:e} (bound {bound:e})"
        );
    }
}

/// `fit_chord`'s figure bounds the played error: every integer frame of every piece, replayed
/// here, against the exact slerp, and the pieces cover the segment's frames once each.
#[test]
fn chord_fit_error_bounds_every_played_frame() {
    for (theta, length) in [(0.09, 8), (0.5, 33), (1.05, 64), (1.05, 8), (1.5, 40)] {
        let (q0, q1) = pair(theta);
        let seg = Segment::new(q0, q1, 100, 100 + length);
        let fit = fit_chord::<15>(&seg, 2e-7);
        assert!(
            fit.max_error <= 2e-7,
            "θ {theta} length {length}: {:e}",
            fit.max_error
        );
        let mut worst: f64 = 0.0;
        for (k, (start, lane)) in fit.pieces.iter().enumerate() {
            let end = fit.pieces.get(k + 1).map_or(seg.f1 as f32 + 1.0, |p| p.0);
            let mut f = *start;
            while f < end {
                let played = played_chord(lane, f).map(f64::from);
                worst = worst.max(max_difference(played, seg.exact(f64::from(f))));
                f += 1.0;
            }
        }
        assert_eq!(fit.pieces[0].0, seg.f0 as f32);
        assert_eq!(worst, fit.max_error, "θ {theta} length {length}");
    }
}

/// The arc shape needs no fit: within 1.3e-7 of the slerp at every u up to θ = π/2 (its
/// sine and cosine polynomials truncate below 2e-9 there; the rest is f32 rounding).
#[test]
fn arc_shape_plays_the_slerp_up_to_the_half_turn() {
    for theta in [0.0, 1e-4, 0.2, 1.05, std::f64::consts::FRAC_PI_2] {
        let (q0, q1) = pair(theta);
        let seg = Segment::new(q0, q1, 0, 64);
        let lane = arc_lane(&seg);
        for f in 0..=64 {
            let played = played_arc(&lane, f as f32).map(f64::from);
            let error = max_difference(played, seg.exact(f64::from(f)));
            assert!(error < 1.3e-7, "θ {theta} frame {f}: {error:e}");
        }
    }
}

/// The AVX2+FMA loops write what the scalar arithmetic computes, bit for bit (rotations past the
/// last whole block of 8 take the scalar path in both).
#[test]
fn vector_kernels_equal_the_scalar_arithmetic_bit_for_bit() {
    // Where the CPU lacks AVX2 or FMA both calls take the scalar path.
    let vector = true;
    let n = 203;
    let value = |k: usize, i: usize| ((i * 37 + k * 11) % 101) as f32 / 101.0 - 0.4;
    let chord: [Vec<f32>; 14] = std::array::from_fn(|k| {
        (0..n)
            .map(|i| {
                if k == 8 {
                    (i % 9) as f32
                } else {
                    value(k, i) * 0.1f32.powi(k.saturating_sub(9) as i32)
                }
            })
            .collect()
    });
    let lanes: [&[f32]; 14] = std::array::from_fn(|k| chord[k].as_slice());
    let (mut a, mut b) = (vec![0.0f32; 4 * n], vec![0.0f32; 4 * n]);
    chord_with(3.5, &mut a, &lanes, vector);
    chord_with(3.5, &mut b, &lanes, false);
    assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
    let arc: [Vec<f32>; 10] = std::array::from_fn(|k| (0..n).map(|i| value(k, i)).collect());
    let lanes: [&[f32]; 10] = std::array::from_fn(|k| arc[k].as_slice());
    arc_with(7.0, &mut a, &lanes, vector);
    arc_with(7.0, &mut b, &lanes, false);
    assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
}

/// Both shapes play the quaternion workload (50 rotations, 300 frames from `START_FRAME`)
/// within the bench's tolerance of exact evaluation (`Track::eval`), as every method is checked.
#[test]
fn shapes_play_the_quaternion_workload_within_its_tolerance() {
    use super::super as bench;
    let doc = bench::quat_workload_document(50, 9).unwrap();
    let mut chord = ChordShape::<15>::new(&doc, bench::QUAT_TOLERANCE);
    assert_eq!(chord.figures.failed, 0);
    let error = bench::max_error(&mut chord, &doc, 300);
    assert!(error <= bench::QUAT_TOLERANCE, "{error:e}");
    let error = bench::max_error(&mut ArcShape::new(&doc), &doc, 300);
    assert!(error <= bench::QUAT_TOLERANCE, "{error:e}");
}

/// A slerp segment emitted as one degree-8 piece of ordinary component polynomials gives back
/// its arc lane (`m`, `c`, `ω` within f32 rounding of the keys' lane) and plays within the
/// bench's tolerance; a piece that is not an arc (one coefficient moved) is refused.
#[test]
fn arc_lane_is_recovered_from_its_component_polynomials() {
    use super::{arc_from_coefficients, arc_polynomials};
    for (theta, length) in [
        (0.005, 64),
        (0.09, 8),
        (0.52, 33),
        (1.05, 64),
        (std::f64::consts::FRAC_PI_4, 17),
    ] {
        let (q0, q1) = pair(theta);
        let seg = Segment::new(q0, q1, 10, 10 + length);
        let centre = (10.0 + 0.5 * length as f64) as f32;
        let mut coefficients = arc_polynomials(&seg);
        let lane = arc_from_coefficients(&coefficients, centre).unwrap();
        let keys = arc_lane(&seg);
        for k in 0..10 {
            let d = (lane[k] - keys[k]).abs();
            assert!(
                d <= 2.0 * f32::EPSILON * keys[k].abs().max(0.5),
                "θ {theta} k {k}: {d:e}"
            );
        }
        for f in seg.f0..=seg.f1 {
            let played = played_arc(&lane, f as f32).map(f64::from);
            let error = max_difference(played, seg.exact(f as f64));
            assert!(error <= 2e-7, "θ {theta} frame {f}: {error:e}");
        }
        coefficients[2][2] *= 1.01;
        assert!(arc_from_coefficients(&coefficients, centre).is_none());
    }
}

/// The degree-8 arc piece played on Horner lanes with the near-unit series stays within the
/// bench's tolerance for the workload's angles (the piece is within 1.2e-9 of the arc, so the
/// rest is f32 rounding), and the figure is an error, not 0.
#[test]
fn degree_eight_arc_piece_plays_on_horner_lanes_within_the_tolerance() {
    use super::arc_piece_on_horner_lanes;
    for (theta, length) in [(0.09, 8), (0.52, 33), (1.05, 64)] {
        let (q0, q1) = pair(theta);
        let error = arc_piece_on_horner_lanes(&Segment::new(q0, q1, 0, length));
        assert!(
            error > 0.0 && error <= 2e-7,
            "θ {theta} length {length}: {error:e}"
        );
    }
}

/// The chord's rounding floor is f32 rounding, not 0, below the tolerance, and grows with the
/// normalization's roundings: exact in f64 ≤ dividing by `sqrt(n)` ≤ multiplying by its
/// reciprocal, on these arcs.
#[test]
fn chord_rounding_floor_is_below_the_tolerance() {
    use super::{chord_rounding_floor, ChordNormalization};
    let mut worst = [0.0f64; 3];
    for (theta, length) in [(0.09, 8), (0.52, 33), (1.05, 64), (1.5, 40)] {
        let (q0, q1) = pair(theta);
        let seg = Segment::new(q0, q1, 0, length);
        for (k, n) in [
            ChordNormalization::Exact,
            ChordNormalization::Divide,
            ChordNormalization::Reciprocal,
        ]
        .into_iter()
        .enumerate()
        {
            worst[k] = worst[k].max(chord_rounding_floor(&seg, n));
        }
    }
    let [exact, divide, reciprocal] = worst;
    assert!(exact > 1e-8 && exact <= divide, "{exact:e} {divide:e}");
    assert!(
        divide <= reciprocal && reciprocal < 2e-7,
        "{divide:e} {reciprocal:e}"
    );
}
