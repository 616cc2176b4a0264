//! Every kind of document error names the file, track, key and field, and says what was expected.

use inbetween::{Document, ErrorKind, LoadError};

fn refuse(json: &str) -> LoadError {
    match Document::from_json_str(json, "anim.json") {
        Ok(_) => panic!("document was accepted: {json}"),
        Err(e) => e,
    }
}

/// Wraps one track's JSON in a valid document.
fn with_track(track: &str) -> String {
    format!(r#"{{"inbetween": 1, "tracks": [{track}]}}"#)
}

fn with_keys(ty: &str, keys: &str) -> String {
    with_track(&format!(
        r#"{{"name": "t", "type": "{ty}", "keys": [{keys}]}}"#
    ))
}

#[track_caller]
fn check(err: &LoadError, key: Option<usize>, field: Option<&str>, message_has: &[&str]) {
    let text = err.to_string();
    assert!(text.starts_with("anim.json: "), "no file name in: {text}");
    assert_eq!(err.error.location.key, key, "key in: {text}");
    assert_eq!(
        err.error.location.field.as_deref(),
        field,
        "field in: {text}"
    );
    for m in message_has {
        assert!(text.contains(m), "message {text:?} lacks {m:?}");
    }
}

#[test]
fn json_syntax_error_gives_line_and_column() {
    let e = refuse("{\n  \"inbetween\": 1,\n  \"tracks\": [,]\n}");
    match &e.error.kind {
        ErrorKind::Syntax { line, column, .. } => {
            assert_eq!(*line, 3);
            assert_eq!(*column, 14);
        }
        other => panic!("not a syntax error: {other:?}"),
    }
    assert!(e.to_string().contains("line 3, column 14"));
}

#[test]
fn invalid_utf8_is_a_syntax_error() {
    let e = Document::from_json_slice(b"{\"inbetween\": 1, \xff}", "anim.json").unwrap_err();
    assert!(
        matches!(
            e.error.kind,
            ErrorKind::Syntax {
                line: 1,
                column: 18,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn version_other_than_one_is_named() {
    let e = refuse(r#"{"inbetween": 2, "tracks": []}"#);
    assert!(matches!(&e.error.kind, ErrorKind::UnsupportedVersion { found } if found == "2"));
    check(&e, None, Some("inbetween"), &["version 2"]);
    let e = refuse(r#"{"tracks": []}"#);
    check(&e, None, Some("inbetween"), &["missing"]);
    let e = refuse(r#"{"inbetween": "1", "tracks": []}"#);
    check(&e, None, Some("inbetween"), &["the string \"1\""]);
}

#[test]
fn top_level_must_be_an_object_with_tracks() {
    check(
        &refuse("[1, 2]"),
        None,
        None,
        &["expected an animation document", "an array of 2 numbers"],
    );
    check(
        &refuse(r#"{"inbetween": 1}"#),
        None,
        Some("tracks"),
        &["missing"],
    );
    check(
        &refuse(r#"{"inbetween": 1, "tracks": {}}"#),
        None,
        Some("tracks"),
        &["an object"],
    );
    let e = refuse(r#"{"inbetween": 1, "tracks": []}"#);
    assert!(matches!(e.error.kind, ErrorKind::NoTracks));
}

#[test]
fn fps_must_be_positive() {
    for bad in ["0", "-24", "\"60\"", "null"] {
        let e = refuse(&format!(
            r#"{{"inbetween": 1, "fps": {bad}, "tracks": [{{"name": "a", "type": "scalar", "keys": [{{"frame": 0, "value": 1}}]}}]}}"#
        ));
        check(&e, None, Some("fps"), &["a positive number"]);
    }
}

#[test]
fn track_fields_are_checked() {
    let e = refuse(&with_track(r#"{"type": "scalar", "keys": []}"#));
    check(&e, None, Some("name"), &["track #0", "missing"]);
    let e = refuse(&with_track(r#"{"name": 3, "type": "scalar", "keys": []}"#));
    check(
        &e,
        None,
        Some("name"),
        &["expected a string", "the number 3"],
    );
    let e = refuse(&with_track(r#"{"name": "a", "type": "vec5", "keys": []}"#));
    check(
        &e,
        None,
        Some("type"),
        &["track \"a\" (#0)", "\"vec2\"", "the string \"vec5\""],
    );
    let e = refuse(&with_track(r#"{"name": "a", "keys": []}"#));
    check(&e, None, Some("type"), &["missing"]);
    let e = refuse(&with_track(
        r#"{"name": "a", "type": "scalar", "wrap": "bounce", "keys": [{"frame": 0, "value": 0}]}"#,
    ));
    check(
        &e,
        None,
        Some("wrap"),
        &["\"ping_pong\"", "the string \"bounce\""],
    );
    let e = refuse(&with_track(
        r#"{"name": "a", "type": "scalar", "path": "spline", "keys": [{"frame": 0, "value": 0}]}"#,
    ));
    check(&e, None, Some("path"), &["\"arclength\""]);
    let e = refuse(&with_track(r#"{"name": "a", "type": "scalar"}"#));
    check(&e, None, Some("keys"), &["missing"]);
    let e = refuse(&with_track(
        r#"{"name": "a", "type": "scalar", "keys": []}"#,
    ));
    assert!(matches!(e.error.kind, ErrorKind::NoKeys));
    check(&e, None, Some("keys"), &["at least one key"]);
}

#[test]
fn duplicate_track_names_are_refused() {
    let e = refuse(
        r#"{"inbetween": 1, "tracks": [
        {"name": "a", "type": "scalar", "keys": [{"frame": 0, "value": 0}]},
        {"name": "a", "type": "vec2", "keys": [{"frame": 0, "value": [0, 0]}]}]}"#,
    );
    assert!(
        matches!(&e.error.kind, ErrorKind::DuplicateTrackName { name, first: 0 } if name == "a")
    );
    assert_eq!(e.error.location.track_index, Some(1));
}

#[test]
fn key_frames_must_be_finite_and_strictly_increasing() {
    let e = refuse(&with_keys(
        "scalar",
        r#"{"frame": 0, "value": 0}, {"frame": 5, "value": 1}, {"frame": 5, "value": 2}"#,
    ));
    assert!(
        matches!(e.error.kind, ErrorKind::UnsortedKeys { previous, found } if previous == 5.0 && found == 5.0)
    );
    check(
        &e,
        Some(2),
        Some("frame"),
        &["track \"t\" (#0), key 2", "greater than 5"],
    );
    let e = refuse(&with_keys(
        "scalar",
        r#"{"frame": 3, "value": 0}, {"frame": 1, "value": 1}"#,
    ));
    check(&e, Some(1), Some("frame"), &["greater than 3", "found 1"]);
    let e = refuse(&with_keys("scalar", r#"{"frame": "0", "value": 0}"#));
    check(&e, Some(0), Some("frame"), &["a finite number"]);
    let e = refuse(&with_keys("scalar", r#"{"value": 0}"#));
    check(&e, Some(0), Some("frame"), &["missing"]);
    // 1e999 is out of f64 range: the JSON parser refuses it.
    let e = refuse(&with_keys("scalar", r#"{"frame": 1e999, "value": 0}"#));
    assert!(matches!(e.error.kind, ErrorKind::Syntax { .. }));
}

#[test]
fn values_must_match_the_type() {
    let e = refuse(&with_keys("vec2", r#"{"frame": 0, "value": [1, 2, 3]}"#));
    check(
        &e,
        Some(0),
        Some("value"),
        &[
            "an array of 2 numbers for a vec2 track",
            "found an array of 3 numbers",
        ],
    );
    let e = refuse(&with_keys("scalar", r#"{"frame": 0, "value": [1]}"#));
    check(&e, Some(0), Some("value"), &["a number for a scalar track"]);
    let e = refuse(&with_keys(
        "color",
        r#"{"frame": 0, "value": [1, 2, "x", 4]}"#,
    ));
    check(
        &e,
        Some(0),
        Some("value[2]"),
        &["a finite number", "the string \"x\""],
    );
    let e = refuse(&with_keys("vec3", r#"{"frame": 0}"#));
    check(&e, Some(0), Some("value"), &["missing"]);
    let e = refuse(&with_keys("quat", r#"{"frame": 0, "value": [0, 0, 0, 0]}"#));
    assert!(matches!(e.error.kind, ErrorKind::ZeroQuaternion));
    check(&e, Some(0), Some("value"), &["length zero"]);
}

#[test]
fn interps_are_checked() {
    // (track type, the first key's interp, the field named, what the message says).
    let cases: [(&str, &str, &str, &[&str]); 10] = [
        (
            "scalar",
            r#""cubic""#,
            "interp",
            &["\"catmull_rom\"", "the string \"cubic\""],
        ),
        (
            "vec2",
            r#""slerp""#,
            "interp",
            &["slerp is for quat tracks only"],
        ),
        (
            "scalar",
            r#"{"hermite": {"out": 1}}"#,
            "interp.hermite.in",
            &["missing"],
        ),
        (
            "vec2",
            r#"{"bezier": {"out": [1, 2], "in": [1]}}"#,
            "interp.bezier.in",
            &["an array of 2 numbers", "an array of 1 number"],
        ),
        (
            "scalar",
            r#"{"polynomial": {"keys": 3}}"#,
            "interp.polynomial.keys",
            &["from 2 to the number of keys (2)", "found 3"],
        ),
        (
            "scalar",
            r#"{"polynomial": {"keys": 2.5}}"#,
            "interp.polynomial.keys",
            &["an integer"],
        ),
        (
            "scalar",
            r#"{"hermite": {"out": 1, "in": 1}, "bezier": {}}"#,
            "interp",
            &["exactly one"],
        ),
        (
            "vec2",
            r#"{"expr": ["u"]}"#,
            "interp.expr",
            &["an array of 2 expression strings"],
        ),
        (
            "vec2",
            r#"{"expr": ["u", "2 +"]}"#,
            "interp.expr[1]",
            &["expression \"2 +\"", "column"],
        ),
        ("scalar", r#"{"expr": "foo(u)"}"#, "interp.expr", &["foo"]),
    ];
    for (ty, interp, field, message_has) in cases {
        let (v0, v1) = if ty == "vec2" {
            ("[0, 0]", "[1, 1]")
        } else {
            ("0", "1")
        };
        let e = refuse(&with_keys(
            ty,
            &format!(
                r#"{{"frame": 0, "value": {v0}, "interp": {interp}}}, {{"frame": 1, "value": {v1}}}"#
            ),
        ));
        check(&e, Some(0), Some(field), message_has);
        if message_has.iter().any(|m| m.starts_with("expression")) {
            assert!(matches!(e.error.kind, ErrorKind::Expr { .. }), "{interp}");
        }
    }
}

#[test]
fn eases_are_checked() {
    let e = refuse(&with_keys(
        "scalar",
        r#"{"frame": 0, "value": 0, "ease": "in_out_wobble"}, {"frame": 1, "value": 1}"#,
    ));
    check(
        &e,
        Some(0),
        Some("ease"),
        &["an ease name", "the string \"in_out_wobble\""],
    );
    let e = refuse(&with_keys(
        "scalar",
        r#"{"frame": 0, "value": 0, "ease": {"cubic_bezier": [1.5, 0, 0.5, 1]}}, {"frame": 1, "value": 1}"#,
    ));
    check(&e, Some(0), Some("ease.cubic_bezier"), &["[0, 1]", "1.5"]);
    let e = refuse(&with_keys(
        "scalar",
        r#"{"frame": 0, "value": 0, "ease": {"cubic_bezier": [0.5, 0, 0.5]}}, {"frame": 1, "value": 1}"#,
    ));
    check(&e, Some(0), Some("ease.cubic_bezier"), &["4 numbers"]);
    let e = refuse(&with_keys(
        "scalar",
        r#"{"frame": 0, "value": 0, "ease": {"steps": [1, "jump_none"]}}, {"frame": 1, "value": 1}"#,
    ));
    check(&e, Some(0), Some("ease.steps"), &["2"]);
    let e = refuse(&with_keys(
        "scalar",
        r#"{"frame": 0, "value": 0, "ease": {"steps": [0, "jump_end"]}}, {"frame": 1, "value": 1}"#,
    ));
    check(&e, Some(0), Some("ease.steps[0]"), &["positive integer"]);
    let e = refuse(&with_keys(
        "scalar",
        r#"{"frame": 0, "value": 0, "ease": {"steps": [3, "sideways"]}}, {"frame": 1, "value": 1}"#,
    ));
    check(&e, Some(0), Some("ease.steps[1]"), &["jump_both"]);
}

#[test]
fn tcb_must_be_three_finite_numbers() {
    let e = refuse(&with_keys(
        "scalar",
        r#"{"frame": 0, "value": 0, "tcb": [0, 0]}"#,
    ));
    check(
        &e,
        Some(0),
        Some("tcb"),
        &["an array of 3 numbers", "an array of 2 numbers"],
    );
    let e = refuse(&with_keys(
        "scalar",
        r#"{"frame": 0, "value": 0, "tcb": [0, null, 0]}"#,
    ));
    check(&e, Some(0), Some("tcb[1]"), &["a finite number", "null"]);
}

#[test]
fn track_ease_needs_arclength_and_arclength_needs_a_spatial_type() {
    let e = refuse(&with_track(
        r#"{"name": "a", "type": "vec2", "ease": "linear", "keys": [{"frame": 0, "value": [0, 0]}]}"#,
    ));
    assert!(matches!(e.error.kind, ErrorKind::TrackEaseWithoutArclength));
    check(&e, None, Some("ease"), &["only allowed"]);
    let e = refuse(&with_track(
        r#"{"name": "a", "type": "scalar", "path": "arclength", "keys": [{"frame": 0, "value": 0}]}"#,
    ));
    assert!(matches!(
        e.error.kind,
        ErrorKind::ArclengthType { found: "scalar" }
    ));
    check(&e, None, Some("path"), &["vec2 or vec3"]);
}

#[test]
fn extra_fields_are_accepted() {
    let ok = Document::from_json_str(
        r#"{"inbetween": 1, "comment": "hi", "tracks": [{"name": "a", "type": "scalar", "color": "red",
            "keys": [{"frame": 0, "value": 0, "note": 1}]}]}"#,
        "anim.json",
    );
    assert!(ok.is_ok());
}
