//! The F-curve model against hand-worked values: handle placement, easing formulas, extrapolation, cycles, JSON.

use inbetween::fcurve::{
    solve_time, AutoSmoothing, CycleMode, Cycles, EasingMode, EasingType, Extrapolation, FCurve,
    FInterp, FKey, HandleType,
};
use inbetween::Document;

const AUTO: f64 = 2.5614;

fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-12 * b.abs().max(1.0),
        "{what}: {a} vs {b}"
    );
}

fn curve(keys: &[(f64, f64)], handles: HandleType, extrapolation: Extrapolation) -> FCurve {
    let keys = keys
        .iter()
        .map(|&(f, v)| {
            let mut k = FKey::new(f, v);
            k.left_type = handles;
            k.right_type = handles;
            k
        })
        .collect();
    FCurve::new(keys, [extrapolation; 2], None)
}

#[test]
fn auto_handles_follow_the_neighbours_and_reach_key_spacing_over_2_5614() {
    // Keys (0,0), (10,10), (30,10): tangent (10/10 + 20/20, 10/10 + 0/20) = (2, 1), scaled so
    // that the left handle reaches 10/2.5614 frames and the right 20/2.5614.
    let c = curve(
        &[(0.0, 0.0), (10.0, 10.0), (30.0, 10.0)],
        HandleType::Auto,
        Extrapolation::Linear,
    );
    let k = c.keys()[1];
    close(k.left[0], 10.0 - 10.0 / AUTO, "left x");
    close(k.left[1], 10.0 - 5.0 / AUTO, "left y");
    close(k.right[0], 10.0 + 20.0 / AUTO, "right x");
    close(k.right[1], 10.0 + 10.0 / AUTO, "right y");
}

#[test]
fn auto_clamped_handles_are_flat_at_extremes_and_at_constant_ends() {
    let c = curve(
        &[(0.0, 0.0), (10.0, 5.0), (20.0, 0.0)],
        HandleType::AutoClamped,
        Extrapolation::Constant,
    );
    for k in c.keys() {
        assert_eq!((k.left[1], k.right[1]), (k.value, k.value));
    }
    close(c.keys()[1].left[0], 10.0 - 10.0 / AUTO, "reach");
    // The peak is the curve's maximum: no overshoot anywhere.
    for i in 0..=200 {
        assert!(c.eval(f64::from(i) / 10.0) <= 5.0 + 1e-12);
    }
}

#[test]
fn auto_clamped_handle_is_limited_to_the_neighbouring_value() {
    // Keys (0,0), (1,9), (11,10): the auto right handle of key 1 would pass 10; clamped to 10,
    // and the left handle turned to stay aligned with it.
    let c = curve(
        &[(0.0, 0.0), (1.0, 9.0), (11.0, 10.0)],
        HandleType::AutoClamped,
        Extrapolation::Linear,
    );
    let k = c.keys()[1];
    assert_eq!(k.right[1], 10.0);
    let slope_right = (k.right[1] - k.value) / (k.right[0] - k.frame);
    let slope_left = (k.value - k.left[1]) / (k.frame - k.left[0]);
    close(slope_left, slope_right, "aligned");
}

#[test]
fn vector_handles_point_a_third_of_the_way_to_the_neighbours() {
    let c = curve(
        &[(0.0, 0.0), (6.0, 3.0), (9.0, -3.0)],
        HandleType::Vector,
        Extrapolation::Constant,
    );
    let k = c.keys()[1];
    assert_eq!(k.left, [4.0, 2.0]);
    assert_eq!(k.right, [7.0, 1.0]);
    // Vector handles on both sides of a segment give a straight segment.
    close(c.eval(7.5), 0.0, "midpoint of the straight segment");
}

#[test]
fn linear_extrapolation_follows_the_end_handle_or_the_chord() {
    let c = curve(
        &[(0.0, 0.0), (10.0, 10.0), (30.0, 10.0)],
        HandleType::Auto,
        Extrapolation::Linear,
    );
    // The first key's handles mirror the chord to (10, 10): slope 1.
    close(c.eval(-4.0), -4.0, "before, along the handle");
    let mut keys: Vec<FKey> = [(0.0, 0.0), (4.0, 2.0)]
        .iter()
        .map(|&(f, v)| FKey::new(f, v))
        .collect();
    keys[0].interp = FInterp::Linear;
    keys[1].interp = FInterp::Linear;
    let lin = FCurve::new(keys, [Extrapolation::Linear; 2], None);
    close(lin.eval(-2.0), -1.0, "before, along the chord");
    close(lin.eval(8.0), 4.0, "after, along the chord");
}

fn easing_curve(
    kind: EasingType,
    mode: EasingMode,
    back: f64,
    amplitude: f64,
    period: f64,
) -> FCurve {
    let mut k0 = FKey::new(0.0, 2.0);
    k0.interp = FInterp::Easing { kind, mode };
    k0.back = back;
    k0.amplitude = amplitude;
    k0.period = period;
    FCurve::new(
        vec![k0, FKey::new(10.0, 6.0)],
        [Extrapolation::Constant; 2],
        None,
    )
}

#[test]
fn easing_formulas_match_hand_worked_values() {
    // back out (auto), s = 1.70158, τ = 0.5: 1 + (−0.5)²·(2.70158·(−0.5) + 1.70158) = 1.0876975.
    let back = easing_curve(EasingType::Back, EasingMode::Auto, 1.70158, 0.0, 0.0);
    close(back.eval(5.0), 2.0 + 4.0 * 1.0876975, "back out");
    // back in-out multiplies s by 1.525: at τ = 0.25, 0.5·(0.5²·((s'+1)·0.5 − s')).
    let s = 1.70158 * 1.525;
    let back_io = easing_curve(EasingType::Back, EasingMode::InOut, 1.70158, 0.0, 0.0);
    close(
        back_io.eval(2.5),
        2.0 + 4.0 * 0.5 * 0.25 * ((s + 1.0) * 0.5 - s),
        "back in-out",
    );
    // quad in (auto): τ² ; sine in: 1 − cos(τπ/2); circ out: √(1 − (τ−1)²).
    close(
        easing_curve(EasingType::Quad, EasingMode::Auto, 0.0, 0.0, 0.0).eval(3.0),
        2.0 + 4.0 * 0.09,
        "quad",
    );
    let sine = easing_curve(EasingType::Sine, EasingMode::In, 0.0, 0.0, 0.0).eval(5.0);
    close(
        sine,
        2.0 + 4.0 * (1.0 - (std::f64::consts::PI / 4.0).cos()),
        "sine in",
    );
    let circ = easing_curve(EasingType::Circ, EasingMode::Out, 0.0, 0.0, 0.0).eval(2.0);
    close(circ, 2.0 + 4.0 * (1.0 - 0.64_f64).sqrt(), "circ out");
    // expo in reaches exactly 0 and 1: (2^(10(τ−1)) − 2^−10)/(1 − 2^−10).
    let expo = easing_curve(EasingType::Expo, EasingMode::In, 0.0, 0.0, 0.0);
    close(
        expo.eval(5.0),
        2.0 + 4.0 * (2f64.powi(-5) - 2f64.powi(-10)) / (1.0 - 2f64.powi(-10)),
        "expo",
    );
    close(
        expo.eval_segment(0, 10.0),
        6.0,
        "expo reaches the end exactly",
    );
    close(expo.eval_segment(0, 0.0), 2.0, "expo starts exactly");
    // bounce out at τ = 0.5: 7.5625·(0.5 − 1.5/2.75)² + 0.75.
    let bounce = easing_curve(EasingType::Bounce, EasingMode::Out, 0.0, 0.0, 0.0).eval(5.0);
    close(
        bounce,
        2.0 + 4.0 * (7.5625 * (0.5 - 1.5 / 2.75_f64).powi(2) + 0.75),
        "bounce out",
    );
}

#[test]
fn elastic_uses_blenders_amplitude_and_period() {
    // Amplitude 0: no wave once past the blend (p/4 = 0.75 frames of a 10-frame segment).
    let flat = easing_curve(EasingType::Elastic, EasingMode::Out, 0.0, 0.0, 0.0);
    close(flat.eval(5.0), 6.0, "amplitude 0 jumps to the end");
    // Amplitude 8 ≥ |change| = 4: a·2^(−10τ)·sin((−τ·10 − s)·2π/p) + change + begin with
    // s = p/(2π)·asin(4/8), p = 4.1.
    let p = 4.1;
    let s = p / (2.0 * std::f64::consts::PI) * (0.5_f64).asin();
    let wave = easing_curve(EasingType::Elastic, EasingMode::Out, 0.0, 8.0, p);
    let tau = 0.3;
    let want =
        8.0 * 2f64.powf(-10.0 * tau) * ((-tau * 10.0 - s) * 2.0 * std::f64::consts::PI / p).sin()
            + 6.0;
    close(wave.eval(3.0), want, "elastic out");
}

#[test]
fn cycles_repeat_offset_and_mirror() {
    let keys: Vec<FKey> = [(0.0, 0.0), (4.0, 1.0), (10.0, 3.0)]
        .iter()
        .map(|&(f, v)| FKey::new(f, v))
        .collect();
    let offset = Cycles {
        before: CycleMode::RepeatOffset,
        after: CycleMode::RepeatOffset,
        ..Cycles::default()
    };
    let c = FCurve::new(keys.clone(), [Extrapolation::Constant; 2], Some(offset));
    close(
        c.eval(23.0),
        c.eval(3.0) + 2.0 * 3.0,
        "two cycles after, offset 2D",
    );
    close(
        c.eval(-7.0),
        c.eval(3.0) - 3.0,
        "one cycle before, offset −D",
    );
    let mirror = Cycles {
        before: CycleMode::Mirror,
        after: CycleMode::Mirror,
        after_count: 1,
        ..Cycles::default()
    };
    let m = FCurve::new(keys, [Extrapolation::Constant; 2], Some(mirror));
    close(m.eval(13.0), m.eval(7.0), "first cycle after is reflected");
    close(m.eval(-3.0), m.eval(3.0), "first cycle before is reflected");
    close(
        m.eval(-17.0),
        m.eval(3.0),
        "second cycle before plays forward",
    );
    close(
        m.eval(25.0),
        3.0,
        "past the count: the curve's own (constant) extrapolation",
    );
}

#[test]
fn time_solve_is_exact_to_1e_12_frames_with_a_vertical_tangent() {
    // Both handles span the whole segment: x'(1/2) = 0.
    let x = [0.0, 10.0, 0.0, 10.0];
    for i in 0..=1000 {
        let t = f64::from(i) / 100.0;
        let s = solve_time(x, t);
        let r = 1.0 - s;
        let back = 3.0 * r * r * s * 10.0 + s * s * s * 10.0;
        assert!((back - t).abs() <= 1e-12, "t {t}: {back}");
    }
}

#[test]
fn documents_load_write_and_refuse_fcurve_tracks() {
    let text = r#"{"inbetween":1,"fps":24,"tracks":[{"name":"Cube/location[0]","type":"scalar",
        "fcurve":{"extrapolation":"linear","cycles":{"after":"repeat_offset"}},
        "keys":[{"frame":1,"value":0,"handles":"auto_clamped"},
                {"frame":11,"value":2,"interp":{"easing":"elastic","amplitude":3,"period":2.5}},
                {"frame":21,"value":1,"interp":"linear"}]}]}"#;
    let doc = Document::from_json_str(text, "t.json").unwrap();
    let track = &doc.tracks()[0];
    assert_eq!(track.kinds_used(), vec!["bezier_2d", "easing"]);
    let again = Document::from_json_str(&doc.to_json_string(), "again.json").unwrap();
    for i in -40..80 {
        let f = f64::from(i) * 0.5;
        assert_eq!(again.tracks()[0].eval(f), track.eval(f), "frame {f}");
    }
    let bad = text.replace("\"type\":\"scalar\"", "\"type\":\"vec2\"");
    let e = Document::from_json_str(&bad, "t.json")
        .unwrap_err()
        .to_string();
    assert!(e.contains("scalar"), "{e}");
    let bad = text.replace("\"auto_clamped\"", "\"smooth\"");
    let e = Document::from_json_str(&bad, "t.json")
        .unwrap_err()
        .to_string();
    assert!(e.contains("handles") && e.contains("auto_clamped"), "{e}");
}

#[test]
fn frames_within_1e_4_of_an_inner_key_get_its_value() {
    // Measured in Blender 3.4: keys (0,0), (10,10), (20,0) linear; 0.0001 → 0, 10.001 → 9.999.
    let mut keys: Vec<FKey> = [(0.0, 0.0), (10.0, 10.0), (20.0, 0.0)]
        .iter()
        .map(|&(f, v)| FKey::new(f, v))
        .collect();
    for k in &mut keys {
        k.interp = FInterp::Linear;
    }
    let c = FCurve::new(keys, [Extrapolation::Constant; 2], None);
    assert_eq!(c.eval(0.0001), 0.0);
    assert_eq!(c.eval(9.99995), 10.0);
    close(c.eval(10.001), 9.999, "past the tolerance");
    close(
        c.eval_keys_unsnapped(9.99995),
        9.99995,
        "the segment's own formula",
    );
}

#[test]
fn huge_cycle_counts_are_refused_by_the_compiler_not_unrolled() {
    let keys: Vec<FKey> = [(0.0, 0.0), (10.0, 1.0)]
        .iter()
        .map(|&(f, v)| FKey::new(f, v))
        .collect();
    let cycles = Cycles {
        after: CycleMode::Repeat,
        after_count: u32::MAX,
        ..Cycles::default()
    };
    let track =
        inbetween::Track::scalar("c").fcurve(keys, [Extrapolation::Constant; 2], Some(cycles));
    let doc = Document::builder().track(track).build().unwrap();
    let error = doc
        .compile(&inbetween::compile::CompileOptions::default())
        .unwrap_err();
    assert!(
        matches!(error, inbetween::compile::CompileError::OutsideKeys { .. }),
        "{error}"
    );
    // Evaluation is unaffected: the 3rd cycle after the keys repeats them.
    close(
        doc.tracks()[0].eval(25.0)[0],
        doc.tracks()[0].eval(5.0)[0],
        "repeat",
    );
}

#[test]
fn a_single_key_curve_holds_or_extrapolates_along_its_handles() {
    let mut k = FKey::new(3.0, 2.0);
    k.left = [2.0, 1.0];
    k.right = [5.0, 2.0];
    let c = FCurve::new(vec![k], [Extrapolation::Linear; 2], None);
    close(c.eval(1.0), 0.0, "before, along the left handle");
    close(c.eval(9.0), 2.0, "after, along the flat right handle");
    assert!(c.eval(f64::NAN).is_nan() || c.eval(f64::NAN) == 2.0);
}

/// The natural cubic spline through `points` (zero second derivative at both ends) at `x`, by
/// dense Gaussian elimination of the second derivatives (an independent reference).
fn natural_spline(points: &[(f64, f64)], x: f64) -> f64 {
    let n = points.len();
    let h: Vec<f64> = points.windows(2).map(|w| w[1].0 - w[0].0).collect();
    let mut m = vec![vec![0.0; n + 1]; n];
    m[0][0] = 1.0;
    m[n - 1][n - 1] = 1.0;
    for i in 1..n - 1 {
        m[i][i - 1] = h[i - 1];
        m[i][i] = 2.0 * (h[i - 1] + h[i]);
        m[i][i + 1] = h[i];
        m[i][n] = 6.0
            * ((points[i + 1].1 - points[i].1) / h[i] - (points[i].1 - points[i - 1].1) / h[i - 1]);
    }
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))
            .unwrap();
        m.swap(col, pivot);
        let pivot_row = m[col].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                for (x, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    let second: Vec<f64> = (0..n).map(|i| m[i][n] / m[i][i]).collect();
    let i = points.partition_point(|p| p.0 <= x).clamp(1, n - 1) - 1;
    let (x0, y0, x1, y1, hi) = (
        points[i].0,
        points[i].1,
        points[i + 1].0,
        points[i + 1].1,
        h[i],
    );
    let (m0, m1) = (second[i], second[i + 1]);
    m0 * (x1 - x).powi(3) / (6.0 * hi)
        + m1 * (x - x0).powi(3) / (6.0 * hi)
        + (y0 / hi - m0 * hi / 6.0) * (x1 - x)
        + (y1 / hi - m1 * hi / 6.0) * (x - x0)
}

/// Continuous-acceleration smoothing of `auto` keys with free (linear-extrapolated) ends makes
/// every handle a third of its segment long and the second derivative continuous, zero at the
/// ends: the curve is the natural cubic spline through the keys.
#[test]
fn continuous_acceleration_on_auto_keys_is_the_natural_cubic_spline() {
    let points = [
        (0.0, 0.0),
        (1.0, 1.0),
        (2.0, 0.0),
        (4.5, 3.0),
        (5.25, -1.0),
        (9.0, 2.0),
    ];
    for count in [3, 4, 6] {
        let keys = points[..count]
            .iter()
            .map(|&(f, v)| {
                let mut k = FKey::new(f, v);
                k.left_type = HandleType::Auto;
                k.right_type = HandleType::Auto;
                k
            })
            .collect();
        let c = FCurve::with_smoothing(
            keys,
            [Extrapolation::Linear; 2],
            None,
            AutoSmoothing::ContAccel,
        );
        // Hand-worked for three keys: slopes 1.5, 0, -1.5, handles a third of a frame long.
        if count == 3 {
            close(c.keys()[0].right[1], 0.5, "first right handle");
            close(c.keys()[1].left[1], 1.0, "middle left handle");
            close(c.keys()[2].left[1], 0.5, "last left handle");
            close(c.keys()[0].left[0], -1.0 / 3.0, "mirrored end handle");
        }
        let last = points[count - 1].0;
        for q in 0..=(4.0 * last) as usize {
            let x = q as f64 / 4.0;
            let want = natural_spline(&points[..count], x);
            assert!(
                (c.eval(x) - want).abs() <= 1e-9,
                "{count} keys, frame {x}: {} vs {want}",
                c.eval(x)
            );
        }
    }
}

/// Auto-clamped keys under continuous acceleration never overshoot their neighbours (the
/// solver locks a handle at its limit), and `cont_accel` reads and writes back in documents.
#[test]
fn continuous_acceleration_keeps_auto_clamped_keys_within_their_neighbours() {
    let json = r#"{"inbetween":1,"tracks":[{"name":"s","type":"scalar",
        "fcurve":{"auto_smoothing":"cont_accel","extrapolation":"linear"},
        "keys":[{"frame":0,"value":0},{"frame":2,"value":0.2},{"frame":3,"value":5},
                {"frame":10,"value":5.1},{"frame":11,"value":0}]}]}"#;
    let doc = Document::from_json_str(json, "c.json").unwrap();
    let track = &doc.tracks()[0];
    let curve = track.fcurve().unwrap();
    assert_eq!(curve.smoothing(), AutoSmoothing::ContAccel);
    for q in 0..=44 {
        let x = q as f64 / 4.0;
        let v = curve.eval(x);
        assert!((-1e-9..=5.1 + 1e-9).contains(&v), "frame {x}: {v}");
    }
    let again = Document::from_json_str(&doc.to_json_string(), "again.json").unwrap();
    assert_eq!(again.tracks()[0].fcurve(), Some(curve));
    let bad = json.replace("cont_accel", "bezier");
    let error = Document::from_json_str(&bad, "c.json")
        .unwrap_err()
        .to_string();
    assert!(error.contains("cont_accel"), "{error}");
}
