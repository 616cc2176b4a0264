//! Hostile documents II: duplicate keys, a byte order mark, long expressions in messages, the
//! `steps` cap in its message, and exports that would bake without bound or write non-f32 numbers.

use inbetween::error::{excerpt, EXCERPT_CHARS};
use inbetween::{Document, ErrorKind};

fn refusal(json: &str) -> inbetween::LoadError {
    match Document::from_json_str(json, "anim.json") {
        Ok(_) => panic!("accepted: {json}"),
        Err(e) => e,
    }
}

#[test]
fn a_duplicate_key_is_refused_with_both_positions() {
    // The second "value" of key 1 starts at line 3, column 52; the first at column 28 (bytes).
    let json = "{\"inbetween\": 1, \"tracks\": [\n{\"name\": \"x\", \"type\": \"scalar\", \"keys\": [\n{\"frame\": 0, \"value\": 0}, {\"value\": 1, \"frame\": 2, \"value\": 3}]}]}";
    let e = refusal(json);
    assert_eq!(
        e.error.kind,
        ErrorKind::DuplicateKey {
            key: "value".into(),
            first_line: 3,
            first_column: 28,
            line: 3,
            column: 52,
        }
    );
    let text = e.to_string();
    assert!(text.starts_with("anim.json: "), "{text}");
    assert!(
        text.contains("duplicate key \"value\" at line 3, column 52; first at line 3, column 28"),
        "{text}"
    );
}

#[test]
fn duplicate_keys_are_found_through_escapes_and_only_within_one_object() {
    // "n\u0061me" is "name": the same key written differently.
    let escaped = r#"{"inbetween": 1, "tracks": [{"name": "x", "n\u0061me": "y", "type": "scalar", "keys": [{"frame": 0, "value": 0}]}]}"#;
    match refusal(escaped).error.kind {
        ErrorKind::DuplicateKey { key, .. } => assert_eq!(key, "name"),
        other => panic!("{other:?}"),
    }
    // The same key in sibling and nested objects, and key-like strings among values, are fine.
    let fine = r#"{"inbetween": 1, "tracks": [
        {"name": "a", "type": "scalar", "keys": [{"frame": 0, "value": 0}, {"frame": 1, "value": 1}]},
        {"name": "name", "type": "scalar", "keys": [{"frame": 0, "value": 0, "interp": {"expr": "u"}}, {"frame": 1, "value": 2}]}]}"#;
    let doc = Document::from_json_str(fine, "fine.json").unwrap();
    assert_eq!(doc.tracks().len(), 2);
    // A duplicate at the top level.
    let top = r#"{"inbetween": 1, "fps": 30, "fps": 60, "tracks": [{"name": "x", "type": "scalar", "keys": [{"frame": 0, "value": 0}]}]}"#;
    match refusal(top).error.kind {
        ErrorKind::DuplicateKey {
            key, first_column, ..
        } => {
            assert_eq!(key, "fps");
            assert_eq!(first_column, 18);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn duplicates_are_found_in_large_objects_and_after_nested_ones() {
    // 40 keys (past the linear search, into the sorted index), each value a nested object that
    // repeats its parent's key once (allowed: another object); "k3" repeated at the end.
    let members: Vec<String> = (0..40)
        .map(|i| format!(r#""k{i}": {{"k{i}": 1, "kk": 2}}"#))
        .collect();
    let json = format!(
        r#"{{"inbetween": 1, "tracks": [], "extra": {{{}, "k3": 0}}}}"#,
        members.join(", ")
    );
    let offset = json.rfind("\"k3\": 0").unwrap();
    let first = json.find("\"k3\": {").unwrap();
    match refusal(&json).error.kind {
        ErrorKind::DuplicateKey {
            key,
            first_column,
            column,
            ..
        } => {
            assert_eq!(key, "k3");
            assert_eq!((first_column, column), (first + 1, offset + 1));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let json = r#"{"inbetween": 1, "tracks": [{"name": "x", "type": "scalar", "keys": [{"frame": 0, "value": 0}, {"frame": 4, "value": 8}]}]}"#;
    let with_bom = format!("\u{FEFF}{json}");
    let a = Document::from_json_slice(with_bom.as_bytes(), "bom.json").unwrap();
    let b = Document::from_json_str(json, "plain.json").unwrap();
    assert_eq!(a.tracks()[0].eval(1.0), b.tracks()[0].eval(1.0));
    assert_eq!(a.tracks()[0].eval(1.0).as_slice(), &[2.0]);
    // Only one, and only at the start.
    assert!(Document::from_json_str(&format!("\u{FEFF}{with_bom}"), "two.json").is_err());
}

#[test]
fn the_excerpt_is_a_window_around_the_offset_with_ellipses() {
    let text: String = ('a'..='z').cycle().take(1000).collect();
    let (shown, caret) = excerpt(&text, 500, 60);
    // 30 characters before the offset, 30 from it, an ellipsis each side.
    assert_eq!(shown.chars().count(), 62);
    assert!(shown.starts_with('…') && shown.ends_with('…'));
    assert_eq!(caret, 31);
    assert_eq!(shown.chars().nth(caret), text.chars().nth(500));
    // Near the start: no leading ellipsis, the window filled from after the offset.
    let (shown, caret) = excerpt(&text, 3, 60);
    assert_eq!(caret, 3);
    assert_eq!(shown, format!("{}…", &text[..60]));
    // A short text is shown whole.
    assert_eq!(excerpt("1 +* 2", 3, 60), ("1 +* 2".to_string(), 3));
    // Multi-byte characters: an offset inside one moves back to its start.
    let (shown, caret) = excerpt("ααα", 3, 60);
    assert_eq!((shown.as_str(), caret), ("ααα", 1));
}

#[test]
fn a_long_expression_is_shown_as_a_window_around_the_error_column() {
    // 3 802 bytes (under the 4 096 limit) with an error at byte 2 000 (column 2 001).
    let expr = format!("{}*){}", "u+".repeat(1000), "+u".repeat(900));
    assert!(expr.len() < 4096);
    let json = format!(
        r#"{{"inbetween": 1, "tracks": [{{"name": "x", "type": "scalar", "keys": [{{"frame": 0, "value": 0, "interp": {{"expr": "{expr}"}}}}, {{"frame": 1, "value": 1}}]}}]}}"#
    );
    let text = refusal(&json).to_string();
    assert!(text.len() < 300, "{} bytes: {text}", text.len());
    assert!(text.contains("at column 2001"), "{text}");
    let quoted = text
        .split_once("expression \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(window, _)| window)
        .unwrap();
    assert!(quoted.starts_with('…') && quoted.ends_with('…'), "{quoted}");
    assert_eq!(quoted.chars().count(), EXCERPT_CHARS + 2);
    assert!(quoted.contains("u+*)+u"), "{quoted}");
}

#[test]
fn a_steps_count_above_the_cap_names_the_cap() {
    let json = r#"{"inbetween": 1, "tracks": [{"name": "x", "type": "scalar", "keys": [{"frame": 0, "value": 0, "ease": {"steps": [1000000001, "jump_end"]}}, {"frame": 1, "value": 1}]}]}"#;
    let text = refusal(json).to_string();
    assert!(
        text.contains("at most 1000000000, found the number 1000000001"),
        "{text}"
    );
}

#[cfg(feature = "gltf")]
mod export {
    use inbetween::gltf_export::{export_gltf, GltfExportError, MAX_EXPORT_KEYS_PER_TRACK};
    use inbetween::Document;

    fn doc(json: &str) -> Document {
        Document::from_json_str(json, "anim.json").unwrap()
    }

    #[test]
    fn baking_a_huge_span_is_refused_before_baking() {
        for (last, keys) in [(1e300, 1e300), (2_000_000.0, 2_000_001.0)] {
            let d = doc(&format!(
                r#"{{"inbetween": 1, "tracks": [{{"name": "p", "type": "vec3", "keys": [{{"frame": 0, "value": [0,0,0], "ease": "in_quad"}}, {{"frame": {last}, "value": [1,2,3]}}]}}]}}"#
            ));
            match export_gltf(&d, true) {
                Err(GltfExportError::TooManyKeys {
                    track,
                    keys: k,
                    max,
                    total: false,
                }) => {
                    assert_eq!(track, "p");
                    assert_eq!(k, keys);
                    assert_eq!(max, MAX_EXPORT_KEYS_PER_TRACK);
                }
                other => panic!("{last}: {other:?}"),
            }
        }
        // At the limit: 999 999 integer frames between 0 and 1e6, plus both ends = 1 000 001
        // keys is refused; a span of 999 999 frames (1 000 000 keys) is written.
        let d = doc(
            r#"{"inbetween": 1, "tracks": [{"name": "p", "type": "vec3", "keys": [{"frame": 0, "value": [0,0,0], "ease": "in_quad"}, {"frame": 999999, "value": [1,2,3]}]}]}"#,
        );
        assert!(export_gltf(&d, true).is_ok());
    }

    #[test]
    fn numbers_beyond_f32_are_refused_not_written_as_infinity() {
        let cases = [
            // A key time of 1e300 frames: 1.7e298 s, infinite as f32.
            (
                r#"[{"frame": 0, "value": [0,0,0]}, {"frame": 1e300, "value": [1,2,3]}]"#,
                "time",
                1e300,
            ),
            // A value of 1e300.
            (
                r#"[{"frame": 0, "value": [0,0,0]}, {"frame": 1, "value": [1e300,2,3]}]"#,
                "value",
                1.0,
            ),
        ];
        for (keys, what, frame) in cases {
            let d = doc(&format!(
                r#"{{"inbetween": 1, "tracks": [{{"name": "p", "type": "vec3", "keys": {keys}}}]}}"#
            ));
            match export_gltf(&d, false) {
                Err(GltfExportError::NotF32 {
                    what: w, frame: f, ..
                }) => assert_eq!((w, f), (what, frame)),
                other => panic!("{what}: {other:?}"),
            }
        }
    }
}

#[test]
fn a_huge_track_name_is_cut_in_messages() {
    let name = "n".repeat(1_000_000);
    let json = format!(
        r#"{{"inbetween": 1, "tracks": [{{"name": "{name}", "type": "scalar", "keys": [{{"frame": 0, "value": "zero"}}]}}]}}"#
    );
    let text = refusal(&json).to_string();
    assert!(text.len() < 400, "{} bytes", text.len());
    assert!(
        text.contains(&format!(
            "track \"{}…\" (#0), key 0, field \"value\"",
            "n".repeat(60)
        )),
        "{text}"
    );
}
