//! Each segment kind against closed forms and hand-worked examples.

#[macro_use]
mod common;

use inbetween::{Document, Ease, Interp, Track, Wrap};

fn doc(json: &str) -> Document {
    match Document::from_json_str(json, "test.json") {
        Ok(d) => d,
        Err(e) => panic!("document refused: {e}"),
    }
}

#[test]
fn linear_is_the_straight_line() {
    let t = Track::scalar("x")
        .key(10.0, 2.0)
        .key(30.0, 12.0)
        .build()
        .unwrap();
    for f in [10.0, 12.5, 20.0, 29.0, 29.999] {
        assert_close!(
            t.eval(f)[0],
            2.0 + 10.0 * (f - 10.0) / 20.0,
            1e-12,
            "frame {f}"
        );
    }
    assert_eq!(t.eval(30.0)[0], 12.0);
}

#[test]
fn step_holds_until_the_next_key() {
    let t = Track::scalar("x")
        .key(0.0, 1.0)
        .interp(Interp::Step)
        .key(10.0, 5.0)
        .build()
        .unwrap();
    assert_eq!(t.eval(0.0)[0], 1.0);
    assert_eq!(t.eval(9.999)[0], 1.0);
    assert_eq!(t.eval(10.0)[0], 5.0);
}

#[test]
fn smoothstep_ease_hand_value() {
    // smoothstep(0.25) = 3/16 - 2/64 = 0.15625
    let t = Track::scalar("x")
        .key(0.0, 0.0)
        .ease(Ease::Smoothstep)
        .key(8.0, 1.0)
        .build()
        .unwrap();
    assert_close!(t.eval(2.0)[0], 0.15625, 1e-15);
}

#[test]
fn css_cubic_bezier_ease_hand_value() {
    // CSS `ease` = cubic-bezier(0.25, 0.1, 0.25, 1) at x = 0.5 is about 0.8024.
    let d = doc(
        r#"{"inbetween":1,"tracks":[{"name":"x","type":"scalar","keys":[
        {"frame":0,"value":0,"ease":{"cubic_bezier":[0.25,0.1,0.25,1]}},{"frame":10,"value":1}]}]}"#,
    );
    let v = d.tracks()[0].eval(5.0)[0];
    assert_close!(v, 0.8024, 1e-4);
}

#[test]
fn hermite_matches_the_closed_form_with_per_frame_slopes() {
    // p(u) = h00 p0 + h10 m0 + h01 p1 + h11 m1 with m = slope · N.
    let n = 20.0;
    let t = Track::scalar("x")
        .key(0.0, 1.0)
        .hermite(0.5, -0.25)
        .key(n, 3.0)
        .build()
        .unwrap();
    for i in 0..20 {
        let u = f64::from(i) / 20.0;
        let (m0, m1) = (0.5 * n, -0.25 * n);
        let expect = (2.0 * u * u * u - 3.0 * u * u + 1.0) * 1.0
            + (u * u * u - 2.0 * u * u + u) * m0
            + (-2.0 * u * u * u + 3.0 * u * u) * 3.0
            + (u * u * u - u * u) * m1;
        assert_close!(t.eval(u * n)[0], expect, 1e-12, "u = {u}");
    }
    // The slope at the key is `out` per frame.
    let h = 1e-6;
    assert_close!((t.eval(h)[0] - t.eval(0.0)[0]) / h, 0.5, 1e-5);
}

#[test]
fn bezier_matches_de_casteljau_by_hand() {
    let t = Track::vec2("p")
        .key(0.0, [0.0, 0.0])
        .bezier([1.0, 2.0], [3.0, 2.0])
        .key(10.0, [4.0, 0.0])
        .build()
        .unwrap();
    // Hand de Casteljau at u = 0.5: midpoint rule.
    let lerp = |a: [f64; 2], b: [f64; 2]| [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    let (p0, p1, p2, p3) = ([0.0, 0.0], [1.0, 2.0], [3.0, 2.0], [4.0, 0.0]);
    let (a, b, c) = (lerp(p0, p1), lerp(p1, p2), lerp(p2, p3));
    let (d, e) = (lerp(a, b), lerp(b, c));
    let mid = lerp(d, e);
    assert_all_close!(t.eval(5.0), mid, 1e-12);
    assert_all_close!(mid, [2.0, 1.5], 1e-12);
}

#[test]
fn catmull_rom_through_evenly_spaced_collinear_keys_is_linear() {
    let mut b = Track::vec2("line");
    for i in 0..6 {
        let f = f64::from(i) * 10.0;
        b = b
            .key(f, [3.0 * f + 1.0, -2.0 * f])
            .interp(Interp::CatmullRom);
    }
    let t = b.build().unwrap();
    for i in 0..=500 {
        let f = f64::from(i) / 10.0;
        assert_all_close!(t.eval(f), [3.0 * f + 1.0, -2.0 * f], 1e-10, "frame {f}");
    }
}

#[test]
fn tcb_with_zero_parameters_equals_catmull_rom() {
    let keys = [
        (0.0, 1.0),
        (7.0, 4.0),
        (20.0, -2.0),
        (26.0, 5.0),
        (40.0, 0.0),
    ];
    let mut cr = Track::scalar("cr");
    let mut kb = Track::scalar("kb");
    for (f, v) in keys {
        cr = cr.key(f, v).interp(Interp::CatmullRom).tcb(0.7, 0.3, -0.2); // ignored by catmull_rom
        kb = kb.key(f, v).interp(Interp::Tcb);
    }
    let (cr, kb) = (cr.build().unwrap(), kb.build().unwrap());
    for i in 0..=400 {
        let f = f64::from(i) / 10.0;
        assert_close!(cr.eval(f)[0], kb.eval(f)[0], 1e-12, "frame {f}");
    }
}

#[test]
fn tension_one_gives_zero_tangents() {
    let t = Track::scalar("x")
        .key(0.0, 0.0)
        .interp(Interp::Tcb)
        .tcb(1.0, 0.0, 0.0)
        .key(10.0, 10.0)
        .interp(Interp::Tcb)
        .tcb(1.0, 0.0, 0.0)
        .key(30.0, -5.0)
        .tcb(1.0, 0.0, 0.0)
        .build()
        .unwrap();
    // Zero tangents: p0 + (p1 - p0)(3u² − 2u³).
    for i in 0..=10 {
        let u = f64::from(i) / 10.0;
        assert_close!(
            t.eval(10.0 * u)[0],
            10.0 * (3.0 * u * u - 2.0 * u * u * u),
            1e-12
        );
        assert_close!(
            t.eval(10.0 + 20.0 * u)[0],
            10.0 - 15.0 * (3.0 * u * u - 2.0 * u * u * u),
            1e-12
        );
    }
}

#[test]
fn kochanek_bartels_tangents_by_hand_with_uneven_spacing() {
    // Keys 0: (0, 0), 1: (10, 10), 2: (30, 0); key 1 has t = 0.5, c = 0.25, b = -0.5.
    // Segment 0 ends with DS_1, segment 1 starts with DD_1.
    let (t, c, b) = (0.5_f64, 0.25_f64, -0.5_f64);
    let (d0, d1) = (10.0, -10.0);
    let (n0, n1) = (10.0, 20.0);
    let ds = ((1.0 - t) * (1.0 + b) * (1.0 - c) / 2.0 * d0
        + (1.0 - t) * (1.0 - b) * (1.0 + c) / 2.0 * d1)
        * 2.0
        * n0
        / (n0 + n1);
    let dd = ((1.0 - t) * (1.0 + b) * (1.0 + c) / 2.0 * d0
        + (1.0 - t) * (1.0 - b) * (1.0 - c) / 2.0 * d1)
        * 2.0
        * n1
        / (n0 + n1);
    // End tangents: reflection rule, missing length = present one → DD_0 = (p1 - p0), DS_2 = (p2 - p1).
    let dd0 = 10.0;
    let ds2 = -10.0;
    let track = Track::scalar("x")
        .key(0.0, 0.0)
        .interp(Interp::Tcb)
        .key(10.0, 10.0)
        .interp(Interp::Tcb)
        .tcb(t, c, b)
        .key(30.0, 0.0)
        .build()
        .unwrap();
    let hermite = |p0: f64, m0: f64, p1: f64, m1: f64, u: f64| {
        (2.0 * u * u * u - 3.0 * u * u + 1.0) * p0
            + (u * u * u - 2.0 * u * u + u) * m0
            + (-2.0 * u * u * u + 3.0 * u * u) * p1
            + (u * u * u - u * u) * m1
    };
    for i in 0..=20 {
        let u = f64::from(i) / 20.0;
        if u < 1.0 {
            assert_close!(
                track.eval(10.0 * u)[0],
                hermite(0.0, dd0, 10.0, ds, u),
                1e-12,
                "seg 0 u {u}"
            );
        }
        assert_close!(
            track.eval(10.0 + 20.0 * u)[0],
            hermite(10.0, dd, 0.0, ds2, u),
            1e-12,
            "seg 1 u {u}"
        );
    }
}

#[test]
fn tcb_and_catmull_rom_are_c1_in_frames_with_uneven_spacing() {
    let keys = [(0.0, 0.0), (5.0, 8.0), (25.0, 3.0), (32.0, 10.0)];
    for interp in [Interp::CatmullRom, Interp::Tcb] {
        let mut b = Track::scalar("x");
        for (f, v) in keys {
            b = b.key(f, v).interp(interp.clone()).tcb(0.3, 0.0, 0.4);
        }
        let t = b.build().unwrap();
        for (f, _) in &keys[1..3] {
            let h = 1e-5;
            let left = (t.eval(*f)[0] - t.eval(f - h)[0]) / h;
            let right = (t.eval(f + h)[0] - t.eval(*f)[0]) / h;
            assert_close!(left, right, 1e-3, "{} at key frame {f}", interp.name());
        }
    }
}

#[test]
fn slerp_halfway_to_a_quarter_turn_is_the_eighth_turn() {
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let t = Track::quat("q")
        .key(0.0, [0.0, 0.0, 0.0, 1.0])
        .interp(Interp::Slerp)
        .key(10.0, [0.0, 0.0, s, s])
        .build()
        .unwrap();
    let half = std::f64::consts::PI / 8.0; // 45° turn → half-angle 22.5°
    assert_all_close!(t.eval(5.0), [0.0, 0.0, half.sin(), half.cos()], 1e-12);
    // `linear` on a quaternion track is slerp as well.
    let l = Track::quat("q")
        .key(0.0, [0.0, 0.0, 0.0, 1.0])
        .key(10.0, [0.0, 0.0, s, s])
        .build()
        .unwrap();
    assert_all_close!(l.eval(5.0), t.eval(5.0), 1e-15);
}

#[test]
fn slerp_takes_the_shortest_arc() {
    // q1 = −(90° about Z): the shortest way is still the 90° turn.
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let t = Track::quat("q")
        .key(0.0, [0.0, 0.0, 0.0, 1.0])
        .interp(Interp::Slerp)
        .key(10.0, [0.0, 0.0, -s, -s])
        .build()
        .unwrap();
    let half = std::f64::consts::PI / 8.0;
    let v = t.eval(5.0);
    assert_all_close!(v, [0.0, 0.0, half.sin(), half.cos()], 1e-12);
}

#[test]
fn slerp_is_stable_for_tiny_angles() {
    let a = 1e-9_f64;
    let t = Track::quat("q")
        .key(0.0, [0.0, 0.0, 0.0, 1.0])
        .interp(Interp::Slerp)
        .key(10.0, [0.0, (a / 2.0).sin(), 0.0, (a / 2.0).cos()])
        .build()
        .unwrap();
    for i in 0..=10 {
        let v = t.eval(f64::from(i));
        let expect_half = a / 2.0 * f64::from(i) / 10.0;
        assert_all_close!(v, [0.0, expect_half.sin(), 0.0, expect_half.cos()], 1e-15);
    }
}

#[test]
fn lagrange_window_reproduces_a_cubic() {
    let cubic = |f: f64| 0.001 * f * f * f - 0.05 * f * f + 0.3 * f - 2.0;
    let frames = [0.0, 3.0, 11.0, 12.5, 20.0, 31.0, 40.0];
    let mut b = Track::scalar("c");
    for f in frames {
        b = b.key(f, cubic(f)).interp(Interp::Polynomial { keys: 4 });
    }
    let t = b.build().unwrap();
    for i in 0..=400 {
        let f = f64::from(i) / 10.0;
        assert_close!(t.eval(f)[0], cubic(f), 1e-9, "frame {f}");
    }
}

#[test]
fn lagrange_window_follows_the_spec_clamp() {
    // n = 5 keys, K = 3: window start = clamp(i − ⌊(K−2)/2⌋, 0, n − K) = clamp(i, 0, 2).
    // Segment 3 (keys 3→4) uses keys 2, 3, 4: a parabola through those three only.
    let pts = [(0.0, 5.0), (1.0, -3.0), (2.0, 0.0), (3.0, 1.0), (4.0, 4.0)];
    let mut b = Track::scalar("x");
    for (f, v) in pts {
        b = b.key(f, v).interp(Interp::Polynomial { keys: 3 });
    }
    let t = b.build().unwrap();
    // Parabola through (2,0), (3,1), (4,4): (f−2)².
    assert_close!(t.eval(3.5)[0], 2.25, 1e-12);
    // Segment 0 uses keys 0, 1, 2: through (0,5), (1,−3), (2,0): 5 − 13.5 f + 5.5 f².
    assert_close!(t.eval(0.5)[0], 5.0 - 13.5 * 0.5 + 5.5 * 0.25, 1e-12);
}

#[test]
fn expression_lissajous_matches_closed_form() {
    let d = doc(
        r#"{"inbetween":1,"fps":30,"tracks":[{"name":"l","type":"vec2","keys":[
        {"frame":0,"value":[0,0],"interp":{"expr":["120*sin(3*2*pi*u + pi/2)","80*sin(2*2*pi*u)"]}},
        {"frame":120,"value":[0,0]}]}]}"#,
    );
    let t = &d.tracks()[0];
    let tau = std::f64::consts::TAU;
    for i in 0..120 {
        let u = f64::from(i) / 120.0;
        let expect = [
            120.0 * (3.0 * tau * u + std::f64::consts::FRAC_PI_2).sin(),
            80.0 * (2.0 * tau * u).sin(),
        ];
        assert_all_close!(t.eval(f64::from(i)), expect, 1e-9);
    }
    // The last key's frame gets the last key's value, not the expression at u = 1.
    assert_all_close!(t.eval(120.0), [0.0, 0.0], 0.0);
}

#[test]
fn expression_frame_and_time_are_retimed_by_the_ease() {
    let d = doc(
        r#"{"inbetween":1,"fps":20,"tracks":[{"name":"e","type":"vec2","keys":[
        {"frame":10,"value":[0,0],"interp":{"expr":["frame","time"]},"ease":"in_quad"},
        {"frame":30,"value":[0,0]}]}]}"#,
    );
    let t = &d.tracks()[0];
    // At frame 20, u = 0.5, u' = 0.25: frame = 10 + 0.25·20 = 15, time = 15 / 20.
    assert_all_close!(t.eval(20.0), [15.0, 0.75], 1e-12);
}

#[test]
fn non_finite_expression_is_reported_with_track_key_and_frame() {
    let d = doc(
        r#"{"inbetween":1,"tracks":[{"name":"bad","type":"scalar","keys":[
        {"frame":0,"value":0},{"frame":10,"value":1,"interp":{"expr":"ln(u)"}},{"frame":20,"value":0}]}]}"#,
    );
    let err = d.tracks()[0].try_eval(10.0).unwrap_err();
    assert_eq!(err.track, "bad");
    assert_eq!(err.key, 1);
    assert_eq!(err.frame, 10.0);
    assert!(d.tracks()[0].try_eval(15.0).is_ok());
}

#[test]
fn steps_ease_lands_exactly_on_integer_frames() {
    let d = doc(r#"{"inbetween":1,"tracks":[
      {"name":"end","type":"scalar","keys":[{"frame":0,"value":0,"ease":{"steps":[4,"jump_end"]}},{"frame":12,"value":4}]},
      {"name":"start","type":"scalar","keys":[{"frame":0,"value":0,"ease":{"steps":[4,"jump_start"]}},{"frame":12,"value":4}]},
      {"name":"none","type":"scalar","keys":[{"frame":0,"value":0,"ease":{"steps":[4,"jump_none"]}},{"frame":12,"value":3}]},
      {"name":"both","type":"scalar","keys":[{"frame":0,"value":0,"ease":{"steps":[4,"jump_both"]}},{"frame":12,"value":5}]}]}"#);
    let at = |name: &str, f: f64| d.track(name).unwrap().eval(f)[0];
    // index = ⌊f·4/12⌋: frames 0-2 → 0, 3-5 → 1, 6-8 → 2, 9-11 → 3.
    for (f, i) in [
        (0.0, 0.0),
        (2.0, 0.0),
        (3.0, 1.0),
        (5.0, 1.0),
        (6.0, 2.0),
        (9.0, 3.0),
        (11.0, 3.0),
    ] {
        assert_close!(at("end", f), 4.0 * i / 4.0, 1e-12, "jump_end frame {f}");
        assert_close!(
            at("start", f),
            4.0 * (i + 1.0) / 4.0,
            1e-12,
            "jump_start frame {f}"
        );
        assert_close!(at("none", f), 3.0 * i / 3.0, 1e-12, "jump_none frame {f}");
        assert_close!(
            at("both", f),
            5.0 * (i + 1.0) / 5.0,
            1e-12,
            "jump_both frame {f}"
        );
    }
}

#[test]
fn quaternion_component_kinds_are_normalized() {
    let t = Track::quat("q")
        .key(0.0, [0.0, 0.0, 0.0, 1.0])
        .interp(Interp::CatmullRom)
        .key(10.0, [1.0, 0.0, 0.0, 0.0])
        .interp(Interp::CatmullRom)
        .key(20.0, [0.0, 1.0, 0.0, 0.0])
        .build()
        .unwrap();
    for i in 0..=200 {
        let v = t.eval(f64::from(i) / 10.0);
        let n: f64 = v.iter().map(|c| c * c).sum::<f64>().sqrt();
        assert_close!(n, 1.0, 1e-12);
    }
    // Keys are normalized on load.
    let u = Track::quat("u")
        .key(0.0, [0.0, 0.0, 0.0, 2.0])
        .build()
        .unwrap();
    assert_eq!(u.eval(0.0).as_slice(), &[0.0, 0.0, 0.0, 1.0]);
}

#[test]
fn wraps_follow_the_spec() {
    let mk = |w: Wrap| {
        Track::scalar("x")
            .key(10.0, 0.0)
            .key(20.0, 10.0)
            .wrap(w)
            .build()
            .unwrap()
    };
    let clamp = mk(Wrap::Clamp);
    assert_eq!(clamp.eval(-100.0)[0], 0.0);
    assert_eq!(clamp.eval(25.0)[0], 10.0);
    let lp = mk(Wrap::Loop);
    // f₀ + ((f − f₀) mod S): 23 → 13, 7 → 17, 20 is inside the keys → last value, 30 → 10.
    assert_close!(lp.eval(23.0)[0], 3.0, 1e-12);
    assert_close!(lp.eval(7.0)[0], 7.0, 1e-12);
    assert_eq!(lp.eval(20.0)[0], 10.0);
    assert_eq!(lp.eval(30.0)[0], 0.0);
    let pp = mk(Wrap::PingPong);
    // r = (f − f₀) mod 2S; r ≤ S → f₀ + r else f₀ + 2S − r.
    assert_close!(pp.eval(23.0)[0], 7.0, 1e-12); // r = 13 → 10 + 20 − 13 = 17
    assert_close!(pp.eval(30.0)[0], 0.0, 1e-12); // r = 0
    assert_close!(pp.eval(5.0)[0], 5.0, 1e-12); // r = 15 → 15
    assert_close!(pp.eval(33.5)[0], 3.5, 1e-12); // r = 3.5
}

#[test]
fn single_key_track_is_constant() {
    let t = Track::vec3("c")
        .key(5.0, [1.0, 2.0, 3.0])
        .wrap(Wrap::Loop)
        .build()
        .unwrap();
    for f in [-10.0, 5.0, 100.0] {
        assert_eq!(t.eval(f).as_slice(), &[1.0, 2.0, 3.0]);
    }
}

#[test]
fn fractional_key_frames_belong_to_the_right_segment() {
    let t = Track::scalar("x")
        .key(0.5, 0.0)
        .interp(Interp::Step)
        .key(2.25, 1.0)
        .interp(Interp::Step)
        .key(3.75, 2.0)
        .build()
        .unwrap();
    assert_eq!(t.eval(0.5)[0], 0.0);
    assert_eq!(t.eval(2.0)[0], 0.0);
    assert_eq!(t.eval(2.25)[0], 1.0);
    assert_eq!(t.eval(3.0)[0], 1.0);
    assert_eq!(t.eval(3.75)[0], 2.0);
}

#[test]
fn segment_derivatives_match_finite_differences() {
    let kinds = [
        Interp::Linear,
        Interp::CatmullRom,
        Interp::Tcb,
        Interp::hermite([1.0, -2.0], [0.5, 3.0]),
        Interp::bezier([10.0, 5.0], [-3.0, 8.0]),
        Interp::Polynomial { keys: 4 },
        Interp::expr(["120*sin(3*2*pi*u + pi/2)", "frame^2/100 + time"]),
    ];
    for interp in kinds {
        let t = Track::vec2("d")
            .key(0.0, [0.0, 1.0])
            .interp(interp.clone())
            .tcb(0.2, 0.4, -0.3)
            .key(7.5, [4.0, -2.0])
            .interp(interp.clone())
            .tcb(-0.5, 0.0, 0.5)
            .key(20.0, [-1.0, 6.0])
            .interp(interp.clone())
            .key(31.0, [2.0, 2.0])
            .build()
            .unwrap();
        for seg in 0..3 {
            for i in 1..10 {
                let u = f64::from(i) / 10.0;
                let h = 1e-6;
                let d = t.segment_derivative_at(seg, u);
                let (a, b) = (t.eval_segment_at(seg, u + h), t.eval_segment_at(seg, u - h));
                for c in 0..2 {
                    let numeric = (a[c] - b[c]) / (2.0 * h);
                    assert_close!(
                        d[c],
                        numeric,
                        1e-5 * (1.0 + numeric.abs()),
                        "{} segment {seg} u {u} component {c}",
                        interp.name()
                    );
                }
            }
        }
    }
}
