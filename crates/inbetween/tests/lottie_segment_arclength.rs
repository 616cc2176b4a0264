//! `path: "segment_arclength"` (After Effects' per-segment arc-length timing): every segment kind and ease against closed forms and kurbo, and its compiled stream played at every frame.

mod common;
use common::cubic_bezier;

use inbetween::compile::CompileOptions;
use inbetween::ease::{CubicBezierEase, StepJump, Steps};
use inbetween::player::TrackPlayer;
use inbetween::stream::Stream;
use inbetween::{Document, Ease, Interp, Track, Value};
use kurbo::{CubicBez, ParamCurve, ParamCurveArclen, Point};

/// Four segments: a Bezier with an After Effects ease (frames 0–30), a hold (30–40), a straight
/// line with an overshooting ease (40–70), a Bezier with `steps(4)` (70–90).
fn track() -> Track {
    let ae = Ease::CubicBezier(CubicBezierEase::new(0.4, 0.0, 0.2, 1.0).unwrap());
    let overshoot = Ease::CubicBezier(CubicBezierEase::new(0.3, -0.4, 0.6, 1.5).unwrap());
    let steps = Ease::Steps(Steps::new(4, StepJump::JumpEnd).unwrap());
    Track::vec2("p")
        .segment_arclength()
        .key(0.0, [20.0, 30.0])
        .interp(Interp::bezier([60.0, 20.0], [120.0, 40.0]))
        .ease(ae)
        .key(30.0, [150.0, 60.0])
        .interp(Interp::Step)
        .key(40.0, [150.0, 90.0])
        .ease(overshoot)
        .key(70.0, [30.0, 10.0])
        .interp(Interp::bezier([0.0, 60.0], [80.0, 90.0]))
        .ease(steps)
        .key(90.0, [100.0, 100.0])
        .build()
        .unwrap()
}

fn point(x: f64, y: f64) -> Point {
    Point::new(x, y)
}

/// The independent value: kurbo's point at the eased fraction of each Bezier segment's arc
/// length, the held key, and the clamped lerp on the straight segment.
fn expected(frame: f64) -> [f64; 2] {
    let on = |bez: CubicBez, x: f64| {
        let length = bez.arclen(1e-12);
        let p = bez.eval(bez.inv_arclen(length * x.clamp(0.0, 1.0), 1e-12));
        [p.x, p.y]
    };
    if frame < 30.0 {
        let bez = CubicBez::new(
            point(20.0, 30.0),
            point(60.0, 20.0),
            point(120.0, 40.0),
            point(150.0, 60.0),
        );
        on(bez, cubic_bezier(0.4, 0.0, 0.2, 1.0, frame / 30.0))
    } else if frame < 40.0 {
        [150.0, 60.0]
    } else if frame < 70.0 {
        let x = cubic_bezier(0.3, -0.4, 0.6, 1.5, (frame - 40.0) / 30.0).clamp(0.0, 1.0);
        [150.0 + (30.0 - 150.0) * x, 90.0 + (10.0 - 90.0) * x]
    } else if frame < 90.0 {
        let bez = CubicBez::new(
            point(30.0, 10.0),
            point(0.0, 60.0),
            point(80.0, 90.0),
            point(100.0, 100.0),
        );
        on(bez, ((frame - 70.0) * 4.0 / 20.0).floor() / 4.0)
    } else {
        [100.0, 100.0]
    }
}

/// Every quarter frame from −5 to 95 (clamped outside the keys) within 1e-7 of kurbo.
#[test]
fn each_segment_is_timed_by_its_own_arc_length() {
    let track = track();
    for i in -20..=380 {
        let frame = f64::from(i) * 0.25;
        let want = expected(frame.clamp(0.0, 90.0));
        let got = track.eval(frame);
        for c in 0..2 {
            assert!(
                (got[c] - want[c]).abs() < 1e-7,
                "frame {frame}: {got:?} vs {want:?}"
            );
        }
    }
    // Every key is reached at its own frame.
    for key in track.keys() {
        assert_eq!(track.eval(key.frame), key.value, "frame {}", key.frame);
    }
}

/// The compiled stream, played frame by frame, stays within the compile tolerance of exact
/// evaluation (checked here, not by the compiler's own verification).
#[test]
fn compiled_stream_plays_the_segment_timing() {
    let doc = Document::builder()
        .fps(30.0)
        .track(builder_of(&track()))
        .build()
        .unwrap();
    let track = &doc.tracks()[0];
    let compiled = doc.compile(&CompileOptions::default()).unwrap();
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let mut player = TrackPlayer::new(stream.track(0).unwrap());
    player.seek(0.0).unwrap();
    let tolerance = compiled.reports[0].summary.tolerance;
    for frame in 0..=90 {
        if frame > 0 {
            player.advance();
        }
        let exact: Value = track.eval(f64::from(frame));
        for c in 0..2 {
            let played = player.value()[c];
            assert!(
                (played - exact[c]).abs() <= tolerance,
                "frame {frame}: {played} vs {}",
                exact[c]
            );
        }
    }
}

/// A builder with the same keys as `track`.
fn builder_of(track: &Track) -> inbetween::TrackBuilder {
    let mut b = Track::vec2(track.name()).segment_arclength();
    for key in track.keys() {
        b = b
            .key(key.frame, key.value)
            .interp(key.interp.clone())
            .ease(key.ease);
    }
    b
}

/// The path is for vec2 and vec3 tracks and takes no track ease (each key's ease times its own
/// segment); both are refused with the field named.
#[test]
fn segment_arclength_refuses_other_types_and_a_track_ease() {
    let scalar = r#"{"inbetween":1,"tracks":[{"name":"s","type":"scalar","path":"segment_arclength","keys":[{"frame":0,"value":0},{"frame":1,"value":1}]}]}"#;
    let err = Document::from_json_str(scalar, "s.json")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("field \"path\"") && err.contains("vec2 or vec3"),
        "{err}"
    );
    let eased = r#"{"inbetween":1,"tracks":[{"name":"p","type":"vec2","path":"segment_arclength","ease":"in_sine","keys":[{"frame":0,"value":[0,0]},{"frame":1,"value":[1,1]}]}]}"#;
    let err = Document::from_json_str(eased, "e.json")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("field \"ease\"")
            && err.contains("no track ease with path \"segment_arclength\""),
        "{err}"
    );
}
