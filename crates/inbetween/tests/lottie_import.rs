//! Lottie import: track names, precomposition time maps, time-remap baking, per-segment arc-length timing against kurbo, bad files refused with where, and format round trips.

mod common;
use common::cubic_bezier;

use std::path::{Path, PathBuf};

use inbetween::lottie_import::{import_lottie, is_lottie, LottieError, LottieImport};
use inbetween::{Document, PathMode};
use kurbo::{CubicBez, ParamCurve, ParamCurveArclen, Point};
use serde_json::{json, Value as Json};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/lottie")
        .join(name)
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/lottie")
        .join(name)
}

fn import_file(path: &Path) -> LottieImport {
    let bytes = std::fs::read(path).unwrap();
    import_lottie(&bytes, &path.display().to_string()).unwrap()
}

fn import_json(doc: &Json) -> Result<LottieImport, LottieError> {
    import_lottie(doc.to_string().as_bytes(), "test.json")
}

fn names(import: &LottieImport) -> Vec<&str> {
    import.document.tracks().iter().map(|t| t.name()).collect()
}

/// The names of docs/lottie.md: layer `nm`, `{nm}#{ind}` for two layers of one name, `#{ind}`
/// unnamed; shape items by `nm`, `{nm}#{i}` / `#{i}`; the group transform under the group;
/// per-dimension eases split scale into scale.x/.y/.z; separated position; 3-D rotations.
#[test]
fn fixture_track_names_follow_the_naming_rules() {
    let import = import_file(&fixture("transforms.json"));
    assert_eq!(
        names(&import),
        [
            "Box/anchor",
            "Box/position",
            "Box/scale.x",
            "Box/scale.y",
            "Box/scale.z",
            "Box/rotation",
            "Box/opacity",
            "Box/skew",
            "Box/skew_axis",
            "Box/Shapes/Rect/size",
            "Box/Shapes/Rect/position",
            "Box/Shapes/Rect/roundness",
            "Box/Shapes/Ellipse/position",
            "Box/Shapes/Paint#3/color",
            "Box/Shapes/Paint#4/opacity",
            "Box/Shapes/#6/color",
            "Box/Shapes/Outline/color",
            "Box/Shapes/Outline/opacity",
            "Box/Shapes/Outline/width",
            "Box/Shapes/Trim/start",
            "Box/Shapes/Trim/end",
            "Box/Shapes/Trim/offset",
            "Box/Shapes/position",
            "Box/Shapes/scale",
            "Box/Shapes/rotation",
            "Box/Shapes/opacity",
            "Twin#2/opacity",
            "Twin#3/opacity",
            "#4/rotation",
            "Split/position.x",
            "Split/position.y",
            "Cube/position",
            "Cube/rotation",
            "Cube/rotation.x",
            "Cube/rotation.y",
            "Cube/orientation",
            "Late/opacity",
            "Offset/opacity",
            "Old/opacity",
        ]
    );
    let skipped: Vec<(&str, &str)> = import
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [
            ("Box/Shapes/Path", "animated path vertices"),
            ("Box/Shapes/#5/opacity", "expression")
        ]
    );
    assert_eq!(import.document.fps(), 30.0);
}

/// Stored units, no conversion: scale in percent, colour 0–1, hold keys as `step`, the
/// per-dimension ease of scale.y is its own component's handles.
#[test]
fn values_stay_in_lottie_units_with_holds_and_per_component_eases() {
    let doc = import_file(&fixture("transforms.json")).document;
    let scale_y = doc.track("Box/scale.y").unwrap();
    assert_eq!(scale_y.eval(0.0)[0], 100.0);
    assert_eq!(scale_y.eval(45.0)[0], 60.0);
    // Component 1's ease: o (0.7, 0.3), i (0.4, 1); value 100 → 60 over frames 0..45.
    let u = 20.0 / 45.0;
    let want = 100.0 + (60.0 - 100.0) * cubic_bezier(0.7, 0.3, 0.4, 1.0, u);
    assert!((scale_y.eval(20.0)[0] - want).abs() < 1e-9);
    let rotation = doc.track("Box/rotation").unwrap();
    assert_eq!(rotation.eval(35.0)[0], 90.0, "held from frame 20 to 50");
    assert_eq!(rotation.eval(50.0)[0], -45.0);
    let color = doc.track("Box/Shapes/Paint#3/color").unwrap();
    assert_eq!(color.eval(90.0).as_slice(), &[0.0, 0.5, 1.0, 1.0]);
}

/// Precomposition timing: a key at inner frame t lands at root frame sr·t + st, composed
/// through nested precompositions (hand-worked from tests/lottie/generate.py).
#[test]
fn precomposition_start_and_stretch_map_key_frames_exactly() {
    let doc = import_file(&fixture("precomps.json")).document;
    let frames = |name: &str| -> Vec<f64> {
        doc.track(name)
            .unwrap()
            .keys()
            .iter()
            .map(|k| k.frame)
            .collect()
    };
    // Pre: st 10, sr 2. Dot's opacity keys at 0, 30.
    assert_eq!(frames("Pre/Dot/opacity"), [10.0, 70.0]);
    // Pre → Nest (st 5, sr 1): F = 2·(R + 5) + 10. Leaf keys at 0, 40.
    assert_eq!(frames("Pre/Nest/Leaf/rotation"), [20.0, 100.0]);
    // Fast: st −4, sr 0.5.
    assert_eq!(frames("Fast/Leaf/rotation"), [-4.0, 16.0]);
    assert_eq!(doc.fps(), 24.0);
}

/// A time-remapped precomposition is baked at whole root frames: Remap's tm goes 0 → 3 s over
/// root frames 0..100 with ease (0.42, 0, 0.58, 1); the inner frame is tm · 24, and Nest's
/// opacity there is 100 → 40 over inner frames 0..60 with ease (0.333, 0, 0.667, 1).
#[test]
fn time_remap_is_baked_exactly_at_whole_frames() {
    let import = import_file(&fixture("precomps.json"));
    let track = import.document.track("Remap/Nest/opacity").unwrap();
    let origin = import
        .origins
        .iter()
        .find(|o| o.track == "Remap/Nest/opacity")
        .unwrap();
    assert!(origin.baked);
    // Remap is visible on root frames [4, 100).
    assert_eq!(track.first_frame(), 4.0);
    assert_eq!(track.last_frame(), 99.0);
    for frame in [4.0, 17.0, 50.0, 99.0] {
        let inner = 3.0 * cubic_bezier(0.42, 0.0, 0.58, 1.0, frame / 100.0) * 24.0;
        let want =
            100.0 + (40.0 - 100.0) * cubic_bezier(0.333, 0.0, 0.667, 1.0, (inner / 60.0).min(1.0));
        let got = track.eval(frame)[0];
        assert!((got - want).abs() < 1e-7, "frame {frame}: {got} vs {want}");
    }
}

/// Per-segment arc-length timing (the spatial position of position-path-ease.json): at every
/// frame the point is kurbo's point at arc length L · e(u) on the segment's cubic Bezier.
#[test]
fn spatial_segment_is_timed_by_its_own_arc_length_as_kurbo_measures_it() {
    let doc = import_file(&corpus("position-path-ease.json")).document;
    let track = doc.track("Shape Layer 1/position").unwrap();
    assert_eq!(track.path(), PathMode::SegmentArclength);
    let bez = CubicBez::new(
        Point::new(12.25, 45.5),
        Point::new(12.25 + 29.75, 45.5 + 27.0),
        Point::new(72.5 - 16.25, 6.0 + 15.75),
        Point::new(72.5, 6.0),
    );
    let length = bez.arclen(1e-12);
    for frame in 0..=61 {
        let x = cubic_bezier(0.333, 0.0, 0.667, 1.0, f64::from(frame) / 61.0);
        let t = bez.inv_arclen(length * x, 1e-12);
        let want = bez.eval(t);
        let got = track.eval(f64::from(frame));
        let error = ((got[0] - want.x).powi(2) + (got[1] - want.y).powi(2)).sqrt();
        assert!(error < 1e-7 * length, "frame {frame}: {got:?} vs {want:?}");
        assert_eq!(got[2], 0.0);
    }
}

/// The format extension round-trips: a `segment_arclength` track written by the importer loads
/// back (JSON) and evaluates identically; it compiles like any track.
#[test]
fn segment_arclength_documents_round_trip_through_json() {
    let doc = import_file(&corpus("auto_orient.json")).document;
    let text = doc.to_json_string();
    assert!(text.contains("\"segment_arclength\""));
    let back = Document::from_json_str(&text, "back.json").unwrap();
    for (a, b) in doc.tracks().iter().zip(back.tracks()) {
        assert_eq!(b.path(), PathMode::SegmentArclength);
        for i in 0..=240 {
            let f = f64::from(i) * 0.5;
            assert_eq!(a.eval(f), b.eval(f));
        }
    }
    let refused = Document::from_json_str(
        r#"{"inbetween":1,"tracks":[{"name":"s","type":"scalar","path":"segment_arclength","keys":[{"frame":0,"value":0},{"frame":1,"value":1}]}]}"#,
        "scalar.json",
    );
    assert!(refused.is_err(), "segment_arclength needs vec2 or vec3");
}

/// Lottie files are told from our documents by their top level.
#[test]
fn lottie_files_are_recognised_and_documents_are_not() {
    for name in ["auto_orient.json", "bouncy_ball.json", "scalar-ease.json"] {
        assert!(is_lottie(&std::fs::read(corpus(name)).unwrap()), "{name}");
    }
    let ours = br#"{"inbetween":1,"fps":60,"tracks":[{"name":"layers","type":"scalar","keys":[{"frame":0,"value":0}]}],"layers":[],"fr":1}"#;
    assert!(!is_lottie(ours));
    assert!(!is_lottie(b"[\"layers\"]"));
    assert!(!is_lottie(b"not json \"layers\""));
}

/// A minimal Lottie with one layer whose opacity is `opacity`.
fn with_opacity(opacity: Json) -> Json {
    json!({"v": "5.12.2", "fr": 30, "ip": 0, "op": 60, "w": 10, "h": 10, "layers": [
        {"ty": 3, "ind": 1, "nm": "L", "ip": 0, "op": 60, "st": 0, "ks": {"o": opacity}}
    ]})
}

fn error_text(doc: &Json) -> String {
    match import_json(doc) {
        Ok(_) => panic!("accepted: {doc}"),
        Err(e) => e.to_string(),
    }
}

/// Bad files are refused with the layer, property, keyframe and field, and what was expected.
#[test]
fn bad_lottie_is_refused_naming_layer_property_and_keyframe() {
    let smooth = json!({"o": {"x": 0.3, "y": 0}, "i": {"x": 0.7, "y": 1}});
    let key = |t: Json, s: Json| {
        let mut k = smooth.clone();
        k["t"] = t;
        k["s"] = s;
        k
    };
    let cases: Vec<(Json, &[&str])> = vec![
        (
            with_opacity(json!({"a": 1})),
            &["layer \"L\"", "property \"L/opacity\"", "field \"k\""],
        ),
        (
            with_opacity(json!({"a": 1, "k": "full"})),
            &["property \"L/opacity\"", "field \"k\"", "\"full\""],
        ),
        (
            with_opacity(
                json!({"a": 1, "k": [key(json!(10), json!([1])), key(json!(5), json!([0]))]}),
            ),
            &[
                "property \"L/opacity\"",
                "keyframe 1",
                "field \"t\"",
                "after the previous keyframe's 10",
            ],
        ),
        (
            with_opacity(
                json!({"a": 1, "k": [key(json!(0), json!(["NaN"])), key(json!(5), json!([0]))]}),
            ),
            &["keyframe 0", "field \"s\"", "finite numbers"],
        ),
        (
            with_opacity(
                json!({"a": 1, "k": [key(json!("0"), json!([1])), key(json!(5), json!([0]))]}),
            ),
            &["keyframe 0", "field \"t\"", "a finite number"],
        ),
        (
            with_opacity(
                json!({"a": 1, "k": [{"t": 0, "s": [1], "o": {"x": 1.5, "y": 0}, "i": {"x": 0.5, "y": 1}}, key(json!(5), json!([0]))]}),
            ),
            &["keyframe 0", "x in [0, 1]"],
        ),
        (
            with_opacity(
                json!({"a": 1, "k": [key(json!(0), json!([1, 2])), key(json!(5), json!([0]))]}),
            ),
            &["keyframe 0", "one number"],
        ),
    ];
    for (doc, wants) in cases {
        let text = error_text(&doc);
        for want in wants {
            assert!(text.contains(want), "{text:?} lacks {want:?}");
        }
        assert!(text.starts_with("test.json: "), "{text}");
    }
    let mut huge =
        with_opacity(json!({"a": 1, "k": [key(json!(0), json!([1])), key(json!(5), json!([0]))]}));
    huge["op"] = json!(1e300);
    assert!(error_text(&huge).contains("field \"op\""));
    let nothing = with_opacity(json!({"a": 0, "k": 100}));
    assert!(error_text(&nothing).contains("no animated property"));
    let not_json = import_lottie(b"{\"layers\": [NaN]}", "nan.json").unwrap_err();
    assert!(not_json.to_string().contains("line 1"), "{not_json}");
    let mut cycle = with_opacity(json!({"a": 0, "k": 100}));
    cycle["assets"] =
        json!([{"id": "c", "layers": [{"ty": 0, "refId": "c", "nm": "Self", "ip": 0, "op": 60}]}]);
    cycle["layers"] = json!([{"ty": 0, "refId": "c", "nm": "Outer", "ip": 0, "op": 60}]);
    let text = error_text(&cycle);
    assert!(
        text.contains("layer \"Outer/Self\"") && text.contains("does not contain itself"),
        "{text}"
    );
}

/// Small files that would expand without bound are refused: precompositions nested ten uses
/// wide and six deep (10⁶ layers), and time-remapped tracks baked over 10⁶ frames each.
#[test]
fn files_that_expand_without_bound_are_refused() {
    let opacity = json!({"a": 1, "k": [
        {"t": 0, "s": [0], "o": {"x": 0.3, "y": 0}, "i": {"x": 0.7, "y": 1}}, {"t": 10, "s": [100]}]});
    let uses = |id: &str| -> Vec<Json> {
        (0..10)
            .map(|i| json!({"ty": 0, "ind": i, "refId": id, "ip": 0, "op": 60}))
            .collect()
    };
    let mut assets: Vec<Json> = (0..6)
        .map(|d| json!({"id": format!("a{d}"), "layers": uses(&format!("a{}", d + 1))}))
        .collect();
    assets.push(json!({"id": "a6", "layers": [{"ty": 3, "ind": 1, "ip": 0, "op": 60, "ks": {"o": opacity}}]}));
    let wide = json!({"fr": 30, "ip": 0, "op": 60, "assets": assets, "layers": uses("a0")});
    let text = error_text(&wide);
    assert!(text.contains("at most 100000 layers walked"), "{text}");

    let inner: Vec<Json> = (0..5)
        .map(|i| json!({"ty": 3, "ind": i, "ip": 0, "op": 60, "ks": {"o": opacity}}))
        .collect();
    let long = json!({"fr": 30, "ip": 0, "op": 1_000_000, "assets": [{"id": "p", "layers": inner}],
        "layers": [{"ty": 0, "nm": "R", "refId": "p", "ip": 0, "op": 2, "tm": {"a": 0, "k": 0}}]});
    let text = error_text(&long);
    assert!(
        text.contains("baked keys") && text.contains("R/#"),
        "{text}"
    );
}

/// Every leaf of the fixtures replaced, one at a time, by a wrong or extreme value: the import
/// answers (a document or an error), never panics, and a document it gives evaluates finitely.
#[test]
fn every_single_field_corruption_is_answered_without_panic() {
    fn leaves(v: &Json, path: &mut Vec<Json>, out: &mut Vec<Vec<Json>>) {
        match v {
            Json::Object(map) => {
                for (k, child) in map {
                    path.push(Json::from(k.as_str()));
                    leaves(child, path, out);
                    path.pop();
                }
            }
            Json::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    path.push(Json::from(i));
                    leaves(child, path, out);
                    path.pop();
                }
            }
            _ => out.push(path.clone()),
        }
    }
    fn slot<'a>(v: &'a mut Json, path: &[Json]) -> &'a mut Json {
        path.iter().fold(v, |v, key| match key {
            Json::String(k) => &mut v[k.as_str()],
            other => &mut v[other.as_u64().unwrap() as usize],
        })
    }
    let replacements = [
        json!("x"),
        json!(-1e308),
        json!(1e308),
        json!(null),
        json!({}),
    ];
    let mut answered = 0;
    for name in ["transforms.json", "precomps.json"] {
        let original: Json =
            serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap();
        let mut paths = Vec::new();
        leaves(&original, &mut Vec::new(), &mut paths);
        for path in &paths {
            for replacement in &replacements {
                let mut doc = original.clone();
                *slot(&mut doc, path) = replacement.clone();
                if let Ok(import) = import_json(&doc) {
                    for track in import.document.tracks() {
                        let mid = 0.5 * (track.first_frame() + track.last_frame());
                        let v = track.eval(mid);
                        assert!(
                            v.is_finite() || replacement.is_number(),
                            "{path:?} = {replacement}: {v:?}"
                        );
                    }
                }
                answered += 1;
            }
        }
    }
    assert!(answered > 4000, "{answered}");
}
