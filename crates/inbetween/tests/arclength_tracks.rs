//! `path: arclength` tracks against closed forms: constant speed, eased distance, jumps, and
//! compiled streams within tolerance.

#[macro_use]
mod common;

use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream};
use inbetween::{Document, Ease, Interp, Track};

fn doc(json: &str) -> Document {
    Document::from_json_str(json, "arc.json").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_circle_drawn_by_an_expression_is_traversed_at_constant_angular_speed() {
    // The expression draws the circle at a speed that varies with u (u² inside the angle), so
    // key timing is uneven; arc-length timing must give angle = 2π·x exactly.
    let d = doc(
        r#"{"inbetween":1,"tracks":[{"name":"c","type":"vec2","path":"arclength","keys":[
        {"frame":0,"value":[50,0],"interp":{"expr":["50*cos(2*pi*u^2)","50*sin(2*pi*u^2)"]}},
        {"frame":100,"value":[50,0]}]}]}"#,
    );
    let t = &d.tracks()[0];
    let length = t.arclength().unwrap();
    assert_close!(length, 2.0 * std::f64::consts::PI * 50.0, 1e-9 * length);
    for f in 0..100 {
        let angle = 2.0 * std::f64::consts::PI * f64::from(f) / 100.0;
        // Within 1e-9 of the length along the circle means within that distance in position.
        assert_all_close!(
            t.eval(f64::from(f)),
            [50.0 * angle.cos(), 50.0 * angle.sin()],
            1e-9 * length,
            "frame {f}"
        );
    }
}

#[test]
fn a_straight_bezier_with_uneven_handles_moves_at_constant_speed() {
    let t = Track::vec2("line")
        .key(0.0, [0.0, 0.0])
        .bezier([90.0, 0.0], [95.0, 0.0])
        .key(30.0, [120.0, 0.0])
        .arclength(Ease::Linear)
        .build()
        .unwrap();
    assert_close!(t.arclength().unwrap(), 120.0, 1e-9 * 120.0);
    for f in 0..=30 {
        assert_all_close!(
            t.eval(f64::from(f)),
            [4.0 * f64::from(f), 0.0],
            1e-9 * 120.0,
            "frame {f}"
        );
    }
}

#[test]
fn an_eased_path_reproduces_the_ease_in_distance() {
    for name in ["in_out_sine", "out_back", "smoothstep", "in_quad"] {
        let ease = Ease::from_name(name).unwrap();
        let t = Track::vec3("line")
            .key(10.0, [0.0, 0.0, 0.0])
            .interp(Interp::CatmullRom)
            .key(20.0, [30.0, 40.0, 0.0])
            .interp(Interp::CatmullRom)
            .key(50.0, [60.0, 80.0, 0.0])
            .arclength(ease)
            .build()
            .unwrap();
        // Collinear, evenly spaced keys: the curve is the segment from the origin to (60, 80, 0), L = 100.
        for f in 10..=50 {
            let x = (f64::from(f) - 10.0) / 40.0;
            let s = (100.0 * ease.at(x)).clamp(0.0, 100.0);
            let want = [0.6 * s, 0.8 * s, 0.0];
            assert_all_close!(t.eval(f64::from(f)), want, 1e-9 * 100.0, "{name} frame {f}");
        }
    }
}

#[test]
fn constant_speed_along_a_curve_gives_equal_steps() {
    let t = Track::vec2("curve")
        .key(0.0, [0.0, 0.0])
        .interp(Interp::CatmullRom)
        .key(10.0, [100.0, 80.0])
        .interp(Interp::CatmullRom)
        .key(50.0, [150.0, -40.0])
        .interp(Interp::CatmullRom)
        .key(60.0, [300.0, 0.0])
        .arclength(Ease::Linear)
        .build()
        .unwrap();
    let length = t.arclength().unwrap();
    // A chord is shorter than its arc by about (arc·κ)²/24 relative; with 6000 substeps of the
    // 60 frames that is below 1e-5, so equal arcs show as chords equal to 1e-4 of a step.
    let n = 6000;
    let mut chords = Vec::new();
    let mut prev = t.eval(0.0);
    for k in 1..=n {
        let p = t.eval(60.0 * f64::from(k) / f64::from(n));
        chords.push(((p[0] - prev[0]).powi(2) + (p[1] - prev[1]).powi(2)).sqrt());
        prev = p;
    }
    let step = length / f64::from(n);
    let (min, max) = chords
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), c| (a.min(*c), b.max(*c)));
    assert!(
        max - min <= 1e-4 * step,
        "spread {} of step {step}",
        max - min
    );
    assert_close!(chords.iter().sum::<f64>(), length, 1e-6 * length);
}

#[test]
fn a_jump_adds_no_length_and_lands_on_the_later_point() {
    let t = Track::vec2("j")
        .key(0.0, [0.0, 0.0])
        .interp(Interp::Linear)
        .key(10.0, [100.0, 0.0])
        .interp(Interp::Step)
        .key(20.0, [100.0, 50.0])
        .interp(Interp::Linear)
        .key(40.0, [100.0, 100.0])
        .arclength(Ease::Linear)
        .build()
        .unwrap();
    assert_close!(t.arclength().unwrap(), 150.0, 1e-9 * 150.0);
    // s = 100 exactly at frame 40·100/150: the later point of the jump.
    let f = 40.0 * 100.0 / 150.0;
    assert_all_close!(t.eval(f + 1e-9), [100.0, 50.0], 1e-6);
    assert_all_close!(t.eval(12.0), [45.0, 0.0], 1e-9 * 150.0);
    assert_all_close!(t.eval(30.0), [100.0, 62.5], 1e-9 * 150.0);
    assert_eq!(t.eval(40.0).as_slice(), &[100.0, 100.0]);
}

#[test]
fn a_path_of_length_zero_stays_at_the_start() {
    let t = Track::vec2("z")
        .key(0.0, [5.0, 5.0])
        .key(10.0, [5.0, 5.0])
        .interp(Interp::Step)
        .key(20.0, [5.0, 5.0])
        .arclength(Ease::Linear)
        .build()
        .unwrap();
    assert_eq!(t.arclength(), Some(0.0));
    for f in [0.0, 3.0, 15.0, 19.9] {
        assert_eq!(t.eval(f).as_slice(), &[5.0, 5.0]);
    }
}

#[test]
fn key_eases_do_not_change_an_arclength_track() {
    let json = |ease: &str| {
        format!(
            r#"{{"inbetween":1,"tracks":[{{"name":"a","type":"vec2","path":"arclength","ease":"in_out_sine","keys":[
            {{"frame":0,"value":[0,0],"interp":"catmull_rom","ease":"{ease}"}},
            {{"frame":10,"value":[10,20],"interp":"catmull_rom","ease":"{ease}"}},
            {{"frame":30,"value":[40,0]}}]}}]}}"#
        )
    };
    let (a, b) = (doc(&json("linear")), doc(&json("out_bounce")));
    for f in 0..=30 {
        assert_eq!(
            a.tracks()[0].eval(f64::from(f)),
            b.tracks()[0].eval(f64::from(f)),
            "frame {f}"
        );
    }
}

#[test]
fn arclength_tracks_compile_within_tolerance_in_every_precision() {
    let d = doc(r#"{"inbetween":1,"tracks":[
        {"name":"circle","type":"vec2","path":"arclength","ease":"in_out_sine","wrap":"loop","keys":[
          {"frame":0,"value":[50,0],"interp":{"expr":["50*cos(2*pi*u^2)","50*sin(2*pi*u^2)"]}},
          {"frame":90,"value":[50,0]}]},
        {"name":"zigzag","type":"vec3","path":"arclength","ease":"out_back","keys":[
          {"frame":0,"value":[0,0,0],"interp":"tcb","tcb":[0,0.5,0]},
          {"frame":7,"value":[30,10,5],"interp":{"bezier":{"out":[40,40,5],"in":[60,-20,0]}}},
          {"frame":21.5,"value":[80,0,-5],"interp":"step"},
          {"frame":40,"value":[90,30,0],"interp":"linear"},
          {"frame":70,"value":[0,0,0]}]}]}"#);
    for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
        let compiled = d
            .compile(&CompileOptions {
                precision,
                ..CompileOptions::default()
            })
            .unwrap();
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        for (i, t) in d.tracks().iter().enumerate() {
            let mut p = TrackPlayer::new(stream.track(i).unwrap());
            p.seek(-20.0).unwrap();
            for f in -20..=120 {
                let exact = t.eval(f64::from(f));
                let v = p.value();
                for c in 0..t.components() {
                    assert!(
                        (v[c] - exact[c]).abs() <= 1e-6 * t.scale(),
                        "{precision} {} frame {f}: {} vs {}",
                        t.name(),
                        v[c],
                        exact[c]
                    );
                }
                p.advance();
            }
        }
    }
}

#[test]
fn a_users_own_distance_function_drives_the_point() {
    let t = Track::vec2("line")
        .key(0.0, [0.0, 0.0])
        .bezier([90.0, 0.0], [95.0, 0.0])
        .key(30.0, [120.0, 0.0])
        .arclength(Ease::Linear)
        .build()
        .unwrap();
    // Distance over time of the user's choosing: s(t) = 120 · t².
    for k in 0..=10 {
        let time = f64::from(k) / 10.0;
        let p = t.at_distance(120.0 * time * time).unwrap();
        assert_all_close!(p, [120.0 * time * time, 0.0], 1e-9 * 120.0);
    }
    assert_eq!(t.at_distance(-5.0).unwrap().as_slice(), &[0.0, 0.0]);
    assert_eq!(t.at_distance(1e9).unwrap().as_slice(), &[120.0, 0.0]);
    let keyed = Track::vec2("k")
        .key(0.0, [0.0, 0.0])
        .key(1.0, [1.0, 1.0])
        .build()
        .unwrap();
    assert!(keyed.at_distance(0.5).is_none());
}

#[test]
fn a_curve_whose_length_cannot_be_measured_is_refused_with_a_clear_error() {
    // x = 1/u has infinite length on (0, 1]: the capped quadrature says so instead of hanging.
    let e = Document::from_json_str(
        r#"{"inbetween":1,"tracks":[{"name":"bad","type":"vec2","path":"arclength","keys":[
        {"frame":0,"value":[0,0],"interp":{"expr":["1/u","0"]}},{"frame":10,"value":[1,0]}]}]}"#,
        "arc.json",
    )
    .unwrap_err();
    assert!(
        matches!(e.error.kind, inbetween::ErrorKind::ArcLength(_)),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.contains("track \"bad\"")
            && text.contains("field \"path\"")
            && text.contains("arc length"),
        "{text}"
    );
}
