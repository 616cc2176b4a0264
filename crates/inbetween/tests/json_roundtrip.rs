//! Documents written back to JSON load again into the same animation.

use proptest::prelude::*;

use inbetween::Document;

mod common;
use common::random_documents::document_strategy;

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    #[test]
    fn written_documents_reload_to_the_same_animation(doc in document_strategy(), arclength in any::<bool>(), probes in prop::collection::vec(-20.0f64..120.0, 16)) {
        let mut doc = doc;
        if arclength {
            for t in doc["tracks"].as_array_mut().unwrap() {
                if t["type"] == "vec2" || t["type"] == "vec3" {
                    t["path"] = serde_json::json!("arclength");
                    t["ease"] = serde_json::json!({"cubic_bezier": [0.3, 0.1, 0.7, 1.2]});
                }
            }
        }
        let first = Document::from_json_str(&doc.to_string(), "a.json").map_err(|e| TestCaseError::fail(e.to_string()))?;
        let text = first.to_json_string();
        prop_assert_eq!(first.json_len(), text.len(), "json_len against the text's length");
        let second = Document::from_json_str(&text, "b.json").map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(first.fps(), second.fps());
        prop_assert_eq!(first.tracks().len(), second.tracks().len());
        for (a, b) in first.tracks().iter().zip(second.tracks()) {
            prop_assert_eq!(a.name(), b.name());
            prop_assert_eq!(a.value_type(), b.value_type());
            prop_assert_eq!(a.wrap(), b.wrap());
            prop_assert_eq!(a.path(), b.path());
            prop_assert_eq!(a.keys().len(), b.keys().len());
            for (ka, kb) in a.keys().iter().zip(b.keys()) {
                prop_assert_eq!(ka.frame, kb.frame);
                prop_assert_eq!(&ka.interp, &kb.interp);
                prop_assert_eq!(ka.ease, kb.ease);
                prop_assert_eq!(ka.tcb, kb.tcb);
                for (x, y) in ka.value.iter().zip(kb.value.iter()) {
                    // Quaternions are normalized again on load: equal to the last bits or so.
                    prop_assert!((x - y).abs() <= 1e-15 * x.abs().max(1.0), "{} vs {}", x, y);
                }
            }
            for f in &probes {
                let (va, vb) = (a.eval(*f), b.eval(*f));
                for (x, y) in va.iter().zip(vb.iter()) {
                    prop_assert!((x - y).abs() <= 1e-12 * a.scale(), "{} frame {}: {} vs {}", a.name(), f, x, y);
                }
            }
        }
    }
}

#[test]
fn the_showcase_round_trips() {
    let text = include_str!("../../../examples/showcase.json");
    let a = Document::from_json_str(text, "showcase.json").unwrap();
    let b = Document::from_json_str(&a.to_json_string(), "again.json").unwrap();
    for (ta, tb) in a.tracks().iter().zip(b.tracks()) {
        for f in -10..130 {
            assert_eq!(
                ta.eval(f64::from(f)),
                tb.eval(f64::from(f)),
                "{} frame {f}",
                ta.name()
            );
        }
    }
}

#[test]
fn json_len_is_the_texts_length_for_the_showcase_and_a_one_track_document() {
    let text = include_str!("../../../examples/showcase.json");
    let showcase = Document::from_json_str(text, "showcase.json").unwrap();
    assert!(showcase.tracks().len() > 2);
    assert_eq!(showcase.json_len(), showcase.to_json_string().len());
    let one = r#"{"inbetween": 1, "tracks": [{"name": "x", "type": "scalar", "keys": [{"frame": 0, "value": 1}, {"frame": 4, "value": 2}]}]}"#;
    let one = Document::from_json_str(one, "one.json").unwrap();
    assert_eq!(one.json_len(), one.to_json_string().len());
}
