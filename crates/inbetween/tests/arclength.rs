//! Arc length against closed forms, accuracy sweeps, inverses, constant-speed tables and degenerate curves.

use inbetween::arclength::{
    arclen, arclen_simpson, ArcLengthError, ArcLengthTable, ParamCurve, DEFAULT_ACCURACY,
    MIN_ACCURACY,
};
use inbetween::curve::{CubicBezier, CubicHermite};
use kurbo::{ParamCurve as _, ParamCurveArclen as _};
use proptest::prelude::*;

/// The accuracies every sweep must honour (relative to the length).
const SWEEP: [f64; 8] = [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10];

macro_rules! assert_close {
    ($left:expr, $right:expr, $tol:expr, $($context:tt)+) => {{
        let (left, right, tol): (f64, f64, f64) = ($left, $right, $tol);
        let difference = (left - right).abs();
        assert!(
            difference <= tol,
            "{}: left = {left:?}, right = {right:?}, difference = {difference:e} > {tol:e}",
            format!($($context)+),
        );
    }};
}

/// Unwraps a result in a test, failing with the error's message.
fn ok<T>(result: Result<T, ArcLengthError>) -> T {
    match result {
        Ok(value) => value,
        Err(error) => panic!("unexpected error: {error}"),
    }
}

/// asinh(x) = ln(x + √(x² + 1)).
fn asinh(x: f64) -> f64 {
    (x + (x * x + 1.0).sqrt()).ln()
}

/// Length of y = x² for x in [0, a]: a√(1 + 4a²)/2 + asinh(2a)/4.
fn parabola_length(a: f64) -> f64 {
    a * (1.0 + 4.0 * a * a).sqrt() / 2.0 + asinh(2.0 * a) / 4.0
}

/// y = x² for x in [0, a] as a Hermite segment: x = a·t, y = a²·t² reproduced exactly.
fn parabola(a: f64) -> CubicHermite<2> {
    CubicHermite::new([0.0, 0.0], [a, 0.0], [a, a * a], [a, 2.0 * a * a])
}

/// The standard cubic approximation of the unit quarter circle from (1, 0) to (0, 1).
fn quarter_circle() -> CubicBezier<2> {
    let k = 0.552_284_749_8;
    CubicBezier::new([1.0, 0.0], [1.0, k], [k, 1.0], [0.0, 1.0])
}

/// A cusp: the speed 3|1 − 2t|·√((1 − 2t)² + 1) vanishes at t = 1/2; length 2√2 − 1.
fn cusp() -> CubicBezier<2> {
    CubicBezier::new([0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0])
}

/// A segment that stays at one point (length 0).
fn still(at: [f64; 2]) -> CubicBezier<2> {
    CubicBezier::new(at, at, at, at)
}

/// A straight Bezier along (3, 4) with uneven control points (monotone, non-uniform speed).
fn uneven_line() -> CubicBezier<2> {
    CubicBezier::new([0.0, 0.0], [0.15, 0.2], [0.9, 1.2], [3.0, 4.0])
}

/// Independent reference: composite Simpson on the power basis of a Bezier, 200 000 intervals.
fn reference_length(curve: &CubicBezier<2>) -> f64 {
    let [_, a1, a2, a3] = curve.power_coefficients();
    let speed = |t: f64| {
        let dx = a1[0] + 2.0 * a2[0] * t + 3.0 * a3[0] * t * t;
        let dy = a1[1] + 2.0 * a2[1] * t + 3.0 * a3[1] * t * t;
        dx.hypot(dy)
    };
    let n = 200_000;
    let h = 1.0 / n as f64;
    let mut sum = speed(0.0) + speed(1.0);
    for i in 1..n {
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * speed(i as f64 * h);
    }
    sum * h / 3.0
}

/// A true circular arc of radius `radius` around the origin, swept at the non-uniform angle
/// θ(u) = θ0 + Δθ·(u + u²)/2, so equal arc lengths give equal chords.
struct CircleArc {
    radius: f64,
    start: f64,
    sweep: f64,
}

impl CircleArc {
    fn angle(&self, u: f64) -> f64 {
        self.start + self.sweep * (u + u * u) / 2.0
    }
}

impl ParamCurve for CircleArc {
    fn dims(&self) -> usize {
        2
    }
    fn eval(&self, u: f64, out: &mut [f64]) {
        let angle = self.angle(u);
        out[0] = self.radius * angle.cos();
        out[1] = self.radius * angle.sin();
    }
    fn derivative(&self, u: f64, out: &mut [f64]) {
        let angle = self.angle(u);
        let rate = self.sweep * (1.0 + 2.0 * u) / 2.0;
        out[0] = -self.radius * angle.sin() * rate;
        out[1] = self.radius * angle.cos() * rate;
    }
}

/// C(u) of a 2D curve.
fn point(curve: &dyn ParamCurve, u: f64) -> [f64; 2] {
    let mut out = [0.0; 2];
    curve.eval(u, &mut out);
    out
}

fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

#[test]
fn straight_bezier_with_uneven_control_points_has_the_chord_length() {
    let line = uneven_line();
    for accuracy in SWEEP {
        assert_close!(
            ok(line.arclen(accuracy)),
            5.0,
            accuracy * 5.0,
            "at {accuracy:e}"
        );
    }
    assert_close!(ok(line.arclen(DEFAULT_ACCURACY)), 5.0, 1e-13, "tight");
}

#[test]
fn parabola_matches_its_closed_form_across_the_sweep() {
    for a in [0.5, 2.0, 10.0] {
        let exact = parabola_length(a);
        let hermite = parabola(a);
        let bezier = hermite.to_bezier();
        for accuracy in SWEEP {
            assert_close!(
                ok(hermite.arclen(accuracy)),
                exact,
                accuracy * exact,
                "hermite a = {a}, {accuracy:e}"
            );
            assert_close!(
                ok(bezier.arclen(accuracy)),
                exact,
                accuracy * exact,
                "bezier a = {a}, {accuracy:e}"
            );
        }
        let half = ok(arclen(&hermite, 0.0, 0.5, 1e-10));
        assert_close!(
            half,
            parabola_length(a / 2.0),
            1e-10 * half,
            "half, a = {a}"
        );
    }
}

#[test]
fn quarter_circle_matches_an_independent_quadrature() {
    let circle = quarter_circle();
    let reference = reference_length(&circle);
    // The approximation bulges out by up to 2.7e-4 of the radius, so it is a little longer than
    // π/2: 1.5710167 against 1.5707963.
    assert!(
        (reference - core::f64::consts::FRAC_PI_2 - 2.2e-4).abs() < 2e-5,
        "{reference}"
    );
    for accuracy in SWEEP {
        let length = ok(circle.arclen(accuracy));
        assert_close!(length, reference, accuracy * reference, "at {accuracy:e}");
    }
}

#[test]
fn cusp_length_matches_its_closed_form() {
    let exact = 2.0 * 2f64.sqrt() - 1.0;
    let curve = cusp();
    for accuracy in SWEEP {
        assert_close!(
            ok(curve.arclen(accuracy)),
            exact,
            accuracy * exact,
            "at {accuracy:e}"
        );
    }
    assert_close!(
        ok(curve.arclen(MIN_ACCURACY)),
        exact,
        1e-13 * exact,
        "at MIN_ACCURACY"
    );
    // Each half is a quarter-like piece of length (2√2 − 1)/2.
    assert_close!(
        ok(arclen(&curve, 0.0, 0.5, 1e-10)),
        exact / 2.0,
        1e-10 * exact,
        "half"
    );
    // Inverse across the cusp: the point at half the length is the cusp itself.
    let u = ok(curve.inv_arclen(exact / 2.0, 1e-10));
    assert_close!(u, 0.5, 1e-4, "cusp inverse");
    assert_close!(
        ok(arclen(&curve, 0.0, u, 1e-12)),
        exact / 2.0,
        1e-10 * exact,
        "cusp inverse length"
    );
}

#[test]
fn a_line_that_folds_back_counts_every_pass() {
    // x′(t) = 3(2 − 10t + 10t²) vanishes at t = 1/2 ± √5/10: the point runs past 1, back, and on.
    let curve = CubicBezier::new([0.0, 0.0], [2.0, 0.0], [-1.0, 0.0], [1.0, 0.0]);
    let (r1, r2) = (0.5 - 5f64.sqrt() / 10.0, 0.5 + 5f64.sqrt() / 10.0);
    let x = |t: f64| curve.eval(t)[0];
    let exact = (x(r1) - x(0.0)).abs() + (x(r2) - x(r1)).abs() + (x(1.0) - x(r2)).abs();
    assert!(exact > 1.0);
    for accuracy in SWEEP {
        assert_close!(
            ok(curve.arclen(accuracy)),
            exact,
            accuracy * exact,
            "at {accuracy:e}"
        );
    }
}

#[test]
fn zero_length_segments_have_length_zero() {
    let point = still([2.0, 3.0]);
    assert_eq!(point.arclen(DEFAULT_ACCURACY), Ok(0.0));
    assert_eq!(point.inv_arclen(1.0, DEFAULT_ACCURACY), Ok(0.0));
    let hermite = CubicHermite::new([1.0, 1.0, 1.0], [0.0; 3], [1.0, 1.0, 1.0], [0.0; 3]);
    assert_eq!(hermite.arclen(DEFAULT_ACCURACY), Ok(0.0));
}

#[test]
fn accuracy_is_relative_to_the_length_at_any_scale() {
    let circle = quarter_circle();
    let reference = reference_length(&circle);
    for scale in [1e-300, 1e-150, 1e-6, 1e6, 1e150, 1e300] {
        let scaled = CubicBezier::new(
            circle.p0.map(|x| x * scale),
            circle.p1.map(|x| x * scale),
            circle.p2.map(|x| x * scale),
            circle.p3.map(|x| x * scale),
        );
        for accuracy in [1e-6, 1e-9] {
            let length = ok(scaled.arclen(accuracy));
            assert_close!(
                length / scale,
                reference,
                accuracy * reference,
                "scale {scale:e}, {accuracy:e}"
            );
            let u = ok(scaled.inv_arclen(length / 3.0, accuracy));
            let back = ok(arclen(&scaled, 0.0, u, 1e-12));
            assert_close!(
                back / length,
                1.0 / 3.0,
                accuracy,
                "inverse at scale {scale:e}"
            );
        }
    }
}

#[test]
fn inverse_undoes_the_length() {
    let curves: [(&str, CubicBezier<2>); 4] = [
        ("quarter circle", quarter_circle()),
        ("parabola", parabola(2.0).to_bezier()),
        ("uneven line", uneven_line()),
        (
            "s-curve",
            CubicBezier::new([0.0, 0.0], [3.0, -1.0], [-2.0, 4.0], [1.0, 3.0]),
        ),
    ];
    for (name, curve) in curves {
        let total = ok(curve.arclen(1e-12));
        for accuracy in [1e-6, 1e-9, 1e-10] {
            for i in 0..=40 {
                let u = f64::from(i) / 40.0;
                let s = ok(arclen(&curve, 0.0, u, 1e-12));
                let found = ok(curve.inv_arclen(s, accuracy));
                let s_found = ok(arclen(&curve, 0.0, found, 1e-12));
                assert_close!(
                    s_found,
                    s,
                    accuracy * total,
                    "{name}: s at u = {u}, {accuracy:e}"
                );
                // No cusps here: the speed is at least 0.45, so u follows within accuracy·L/0.45.
                assert_close!(
                    found,
                    u,
                    2.5 * accuracy * total + 1e-12,
                    "{name}: u = {u}, {accuracy:e}"
                );
            }
        }
    }
}

#[test]
fn inverse_clamps_and_handles_the_ends() {
    let curve = quarter_circle();
    let total = ok(curve.arclen(DEFAULT_ACCURACY));
    assert_eq!(curve.inv_arclen(0.0, DEFAULT_ACCURACY), Ok(0.0));
    assert_eq!(curve.inv_arclen(-3.0, DEFAULT_ACCURACY), Ok(0.0));
    assert_eq!(curve.inv_arclen(total * 2.0, DEFAULT_ACCURACY), Ok(1.0));
    let end = ok(curve.inv_arclen(total, DEFAULT_ACCURACY));
    assert_close!(end, 1.0, 1e-8, "s = L");
}

#[test]
fn simpson_converges_at_fourth_order() {
    let circle = quarter_circle();
    let reference = reference_length(&circle);
    let errors: Vec<f64> = [8, 16, 32, 64]
        .iter()
        .map(|&n| (arclen_simpson(&circle, 0.0, 1.0, n) - reference).abs())
        .collect();
    for pair in errors.windows(2) {
        let ratio = pair[0] / pair[1];
        // Halving h divides an O(h⁴) error by 16.
        assert!(
            (12.0..=20.0).contains(&ratio),
            "errors {errors:?}, ratio {ratio}"
        );
    }
    let exact = parabola_length(2.0);
    let fine = arclen_simpson(&parabola(2.0), 0.0, 1.0, 2000);
    assert_close!(fine, exact, 1e-10, "parabola by Simpson");
}

#[test]
fn table_returns_the_later_segment_at_jumps_and_zero_lengths() {
    let first = CubicBezier::new([0.0, 0.0], [0.1, 0.0], [0.2, 0.0], [1.0, 0.0]); // length 1
    let stay = still([5.0, 5.0]); // a jump to (5, 5), length 0
    let stay_again = CubicHermite::new([5.0, 5.0], [0.0; 2], [5.0, 5.0], [0.0; 2]);
    let second = CubicBezier::new([5.0, 5.0], [5.0, 5.5], [5.0, 6.5], [5.0, 7.0]); // length 2
    let last = still([9.0, 9.0]); // jump, length 0
    let segments: [&dyn ParamCurve; 5] = [&first, &stay, &stay_again, &second, &last];
    let table = ok(ArcLengthTable::build(&segments, DEFAULT_ACCURACY));
    assert_eq!(table.segment_count(), 5);
    assert_close!(table.total_length(), 3.0, 3e-9, "total");
    let starts: Vec<f64> = (0..=5).map(|i| table.segment_start(i)).collect();
    for (i, expected) in [0.0, 1.0, 1.0, 1.0, 3.0, 3.0].into_iter().enumerate() {
        assert_close!(starts[i], expected, 3e-9, "start {i}");
    }
    assert_eq!(table.locate(&segments, 0.0, DEFAULT_ACCURACY), (0, 0.0));
    assert_eq!(table.locate(&segments, -1.0, DEFAULT_ACCURACY), (0, 0.0));
    assert_eq!(
        table.locate(&segments, f64::NAN, DEFAULT_ACCURACY),
        (0, 0.0)
    );
    // The arc length of the jump belongs to the latest segment starting there: `second` at u = 0.
    assert_eq!(
        table.locate(&segments, starts[1], DEFAULT_ACCURACY),
        (3, 0.0)
    );
    let (segment, u) = table.locate(&segments, 0.5, DEFAULT_ACCURACY);
    assert_eq!(segment, 0);
    assert_close!(point(&first, u)[0], 0.5, 3e-9, "first half");
    let (segment, u) = table.locate(&segments, 2.0, DEFAULT_ACCURACY);
    assert_eq!(segment, 3);
    assert_close!(point(&second, u)[1], 6.0, 3e-9, "second half");
    assert_eq!(
        table.locate(&segments, table.total_length(), DEFAULT_ACCURACY),
        (4, 1.0)
    );
    assert_eq!(table.locate(&segments, 1e9, DEFAULT_ACCURACY), (4, 1.0));
    // length_at agrees with the starts and with locate.
    assert_eq!(table.length_at(&segments, 0, 0.0), 0.0);
    assert_eq!(table.length_at(&segments, 0, 1.0), starts[1]);
    assert_eq!(table.length_at(&segments, 2, 0.5), starts[2]);
    assert_eq!(table.length_at(&segments, 9, 0.5), table.total_length());
    assert_close!(
        table.length_at(&segments, 3, u),
        2.0,
        3e-9,
        "length_at after locate"
    );
}

#[test]
fn table_of_zero_length_segments_locates_the_start() {
    let a = still([1.0, 2.0]);
    let b = still([3.0, 4.0]);
    let segments: [&dyn ParamCurve; 2] = [&a, &b];
    let table = ok(ArcLengthTable::build(&segments, DEFAULT_ACCURACY));
    assert_eq!(table.total_length(), 0.0);
    for s in [0.0, 1.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(table.locate(&segments, s, DEFAULT_ACCURACY), (0, 0.0));
    }
}

#[test]
fn table_with_leading_zero_length_segment_starts_at_the_first_segment() {
    let stay = still([1.0, 2.0]);
    let line = uneven_line();
    let segments: [&dyn ParamCurve; 2] = [&stay, &line];
    let table = ok(ArcLengthTable::build(&segments, DEFAULT_ACCURACY));
    // The spec: at s = 0 the value is the start of the first segment.
    assert_eq!(table.locate(&segments, 0.0, DEFAULT_ACCURACY), (0, 0.0));
    let (segment, u) = table.locate(&segments, 1e-6, DEFAULT_ACCURACY);
    assert_eq!(segment, 1);
    assert_close!(
        distance(point(&line, u), [0.0, 0.0]),
        1e-6,
        5e-9,
        "just after the start"
    );
}

#[test]
fn constant_speed_gives_equal_chords_on_a_circle() {
    // Three arcs of a circle of radius 2, each with non-uniform speed, chained.
    let arcs = [
        CircleArc {
            radius: 2.0,
            start: 0.0,
            sweep: 0.7,
        },
        CircleArc {
            radius: 2.0,
            start: 0.7,
            sweep: 0.2,
        },
        CircleArc {
            radius: 2.0,
            start: 0.9,
            sweep: 1.1,
        },
    ];
    let segments: Vec<&dyn ParamCurve> = arcs.iter().map(|arc| arc as &dyn ParamCurve).collect();
    for accuracy in [1e-6, 1e-9, 1e-10] {
        let table = ok(ArcLengthTable::build(&segments, accuracy));
        let total = table.total_length();
        assert_close!(total, 4.0, accuracy * 4.0, "circle length at {accuracy:e}");
        let n = 97;
        let points: Vec<[f64; 2]> = (0..=n)
            .map(|k| {
                let (segment, u) = table.locate(&segments, total * k as f64 / n as f64, accuracy);
                point(segments[segment], u)
            })
            .collect();
        let expected = 2.0 * 2.0 * (total / n as f64 / 4.0).sin();
        for (k, pair) in points.windows(2).enumerate() {
            // Each point is within accuracy·L along the circle, so a chord within 2·accuracy·L.
            assert_close!(
                distance(pair[0], pair[1]),
                expected,
                2.0 * accuracy * total,
                "chord {k} at {accuracy:e}"
            );
        }
    }
}

#[test]
fn constant_speed_on_a_gently_curved_bezier_path() {
    let path = [
        CubicBezier::new([0.0, 0.0], [1.0, 0.5], [2.0, 0.2], [3.0, 1.0]),
        CubicBezier::new([3.0, 1.0], [3.2, 1.1], [3.5, 2.5], [4.0, 3.0]),
        uneven_line().to_hermite().to_bezier(),
    ];
    let segments: Vec<&dyn ParamCurve> = path.iter().map(|c| c as &dyn ParamCurve).collect();
    let accuracy = DEFAULT_ACCURACY;
    let table = ok(ArcLengthTable::build(&segments, accuracy));
    let total = table.total_length();
    let independent: f64 = path.iter().map(reference_length).sum();
    assert_close!(total, independent, accuracy * total, "total");
    let n = 120;
    let mut previous = 0.0;
    for k in 1..=n {
        let s = total * k as f64 / n as f64;
        let (segment, u) = table.locate(&segments, s, accuracy);
        // The distance travelled, measured independently of the table.
        let travelled = (0..segment)
            .map(|i| reference_length(&path[i]))
            .sum::<f64>()
            + ok(arclen(&path[segment], 0.0, u, 1e-12));
        assert_close!(
            travelled - previous,
            total / n as f64,
            2.0 * accuracy * total,
            "step {k}"
        );
        assert_close!(
            table.length_at(&segments, segment, u),
            s,
            accuracy * total,
            "length_at {k}"
        );
        previous = travelled;
    }
}

#[test]
fn constant_speed_on_a_straight_line_gives_equal_chords() {
    let line = uneven_line();
    let segments: [&dyn ParamCurve; 1] = [&line];
    for accuracy in SWEEP {
        let table = ok(ArcLengthTable::build(&segments, accuracy));
        let n = 50;
        let points: Vec<[f64; 2]> = (0..=n)
            .map(|k| {
                let (_, u) = table.locate(&segments, 5.0 * k as f64 / n as f64, accuracy);
                point(&line, u)
            })
            .collect();
        for (k, pair) in points.windows(2).enumerate() {
            assert_close!(
                distance(pair[0], pair[1]),
                0.1,
                2.0 * accuracy * 5.0,
                "chord {k} at {accuracy:e}"
            );
        }
    }
}

#[test]
fn table_accepts_cusps() {
    let curve = cusp();
    let segments: [&dyn ParamCurve; 2] = [&curve, &curve];
    let exact = 2.0 * 2f64.sqrt() - 1.0;
    for accuracy in SWEEP {
        let table = ok(ArcLengthTable::build(&segments, accuracy));
        assert_close!(
            table.total_length(),
            2.0 * exact,
            accuracy * 2.0 * exact,
            "at {accuracy:e}"
        );
        let (segment, u) = table.locate(&segments, exact * 1.5, accuracy);
        assert_eq!(segment, 1);
        assert_close!(u, 0.5, 1e-3, "cusp at {accuracy:e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Cusps anywhere: B′ vanishes at t = c when the control points are chosen around a
    /// symmetric fold; the sweep must hold there too.
    #[test]
    fn random_cusps_hold_the_sweep(c in 0.05f64..0.95, a in -5.0f64..5.0, b in -5.0f64..5.0, x in 0.5f64..5.0) {
        // C′(u) = (u − c)·(a + b·u, x) vanishes at u = c; C(0) = 0.
        let hermite = CubicHermite::new(
            [0.0, 0.0],
            [-c * a, -c * x],
            [(1.0 - c) * a / 2.0 - c * a / 2.0 + b * (1.0 / 3.0 - c / 2.0), (0.5 - c) * x],
            [(1.0 - c) * (a + b), (1.0 - c) * x],
        );
        let [_, a1, a2, a3] = hermite.power_coefficients();
        // Reference: exact for this construction via a very fine Simpson on each side of the cusp.
        let speed = |t: f64| {
            let dx = a1[0] + 2.0 * a2[0] * t + 3.0 * a3[0] * t * t;
            let dy = a1[1] + 2.0 * a2[1] * t + 3.0 * a3[1] * t * t;
            dx.hypot(dy)
        };
        let simpson = |lo: f64, hi: f64| {
            let n = 20_000;
            let h = (hi - lo) / n as f64;
            let mut sum = speed(lo) + speed(hi);
            for i in 1..n {
                sum += if i % 2 == 1 { 4.0 } else { 2.0 } * speed(lo + i as f64 * h);
            }
            sum * h / 3.0
        };
        let exact = simpson(0.0, c) + simpson(c, 1.0);
        for accuracy in SWEEP {
            let length = ok(hermite.arclen(accuracy));
            prop_assert!((length - exact).abs() <= accuracy * exact, "{:e}: {} vs {}", accuracy, length, exact);
        }
    }

    #[test]
    fn random_cubics_are_bounded_by_chord_and_polygon(
        points in proptest::array::uniform8(-100.0f64..100.0),
        fraction in 0.0f64..1.0,
    ) {
        let curve = bezier_of(points);
        let length = ok(curve.arclen(DEFAULT_ACCURACY));
        let chord = distance(curve.p0, curve.p3);
        let polygon = distance(curve.p0, curve.p1) + distance(curve.p1, curve.p2) + distance(curve.p2, curve.p3);
        prop_assert!(length >= chord * (1.0 - 1e-9) && length <= polygon * (1.0 + 1e-9),
            "chord {} <= length {} <= polygon {}", chord, length, polygon);
        let fine = ok(curve.arclen(1e-12));
        for accuracy in SWEEP {
            let coarse = ok(curve.arclen(accuracy));
            prop_assert!((coarse - fine).abs() <= accuracy * fine, "{:e}: {} vs {}", accuracy, coarse, fine);
        }
        let s = fraction * length;
        let u = ok(curve.inv_arclen(s, DEFAULT_ACCURACY));
        prop_assert!((0.0..=1.0).contains(&u));
        let back = ok(arclen(&curve, 0.0, u, 1e-12));
        prop_assert!((back - s).abs() <= DEFAULT_ACCURACY * fine, "s {} back {}", s, back);
        let hermite = curve.to_hermite();
        let via_hermite = ok(hermite.arclen(DEFAULT_ACCURACY));
        prop_assert!((via_hermite - fine).abs() <= DEFAULT_ACCURACY * fine);
    }
}

/// Found by `random_cubics_are_bounded_by_chord_and_polygon` (a random seed, session 4): on this
/// cubic `inv_arclen` at the default accuracy returned a u whose arc length missed s by 9.05e-7,
/// 4.5 × the promised `accuracy · L` (L ≈ 207). The cause: the leaf [0.5, 1] holding s was
/// resolved as a whole (its two estimates agreed within 7e-10), but the solve measured
/// s(0.5, u) with one 8-point panel, which on [0.5, 0.96] is off by 9e-7.
#[test]
fn inverse_arc_length_holds_its_accuracy_on_a_found_cubic() {
    let p = [
        -91.60067391650595,
        20.620805431035404,
        5.026585684604748,
        -72.1797144740683,
        13.357912264817315,
        32.603909442381266,
        85.52125115422221,
        -64.19879108611498,
    ];
    let curve = bezier_of(p);
    let fine = ok(curve.arclen(1e-12));
    let s = 0.93473450734171 * ok(curve.arclen(DEFAULT_ACCURACY));
    let u = ok(curve.inv_arclen(s, DEFAULT_ACCURACY));
    let back = ok(arclen(&curve, 0.0, u, 1e-12));
    assert_close!(back, s, DEFAULT_ACCURACY * fine, "inverse at s = {s}");
    // A table's lookup and partial length solve and measure in the same leaf.
    let segments: [&dyn ParamCurve; 1] = [&curve];
    let table = ok(ArcLengthTable::build(&segments, DEFAULT_ACCURACY));
    let (_, u) = table.locate(&segments, s, DEFAULT_ACCURACY);
    let back = ok(arclen(&curve, 0.0, u, 1e-12));
    assert_close!(back, s, DEFAULT_ACCURACY * fine, "locate at s = {s}");
    let measured = table.length_at(&segments, 0, u);
    assert_close!(measured, back, DEFAULT_ACCURACY * fine, "length_at u = {u}");
}

/// The 2D cubic Bezier with control points (x0, y0), …, (x3, y3) given flat.
fn bezier_of(p: [f64; 8]) -> CubicBezier<2> {
    CubicBezier::new([p[0], p[1]], [p[2], p[3]], [p[4], p[5]], [p[6], p[7]])
}

/// Independent reference: kurbo's arc length of the cubic over [0, u], to `1e-13 · L` absolute.
fn kurbo_length_to(curve: &kurbo::CubicBez, u: f64, total: f64) -> f64 {
    curve.subsegment(0.0..u).arclen(1e-13 * total)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The inverse's promise, checked against kurbo's arc length (its own adaptive quadrature):
    /// s(0, u) is within `accuracy · L` of s for `inv_arclen`, and for a table's `locate` and
    /// `length_at` (which solve and measure inside one leaf the same way), on random cubics at 16
    /// spread distances each. (The one-panel solve this replaced missed on about 1 query in
    /// 20 000 at accuracy 1e-9, by up to 3.5 × accuracy · L.)
    #[test]
    fn inverse_arc_length_is_within_accuracy_of_kurbos_length(
        points in proptest::array::uniform8(-100.0f64..100.0),
        offset in 0.0f64..1.0,
    ) {
        let curve = bezier_of(points);
        let reference = kurbo::CubicBez::new(
            (points[0], points[1]), (points[2], points[3]),
            (points[4], points[5]), (points[6], points[7]),
        );
        let rough = reference.arclen(1e-6);
        let total = reference.arclen(1e-13 * rough);
        let segments: [&dyn ParamCurve; 1] = [&curve];
        for accuracy in [1e-6, 1e-8, DEFAULT_ACCURACY, 1e-10] {
            let table = ok(ArcLengthTable::build(&segments, accuracy));
            for fraction in (0..16).map(|k| (f64::from(k) + offset) / 16.0) {
                let s = fraction * total;
                let u = ok(curve.inv_arclen(s, accuracy));
                let back = kurbo_length_to(&reference, u, total);
                prop_assert!((back - s).abs() <= accuracy * total,
                    "inv_arclen {:e}: s {} reached {} at u {}", accuracy, s, back, u);
                let (segment, u) = table.locate(&segments, s, accuracy);
                let back = kurbo_length_to(&reference, u, total);
                prop_assert!(segment == 0 && (back - s).abs() <= accuracy * total,
                    "locate {:e}: s {} reached {} at u {}", accuracy, s, back, u);
                let measured = table.length_at(&segments, 0, fraction);
                let exact = kurbo_length_to(&reference, fraction, total);
                prop_assert!((measured - exact).abs() <= accuracy * total,
                    "length_at {:e}: u {} gave {} for {}", accuracy, fraction, measured, exact);
            }
        }
    }
}
