//! Blender F-curve tracks against Blender 3.4's own `fcurve.evaluate`: committed fixtures always, fresh random curves when Blender is installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use inbetween::Document;
use serde_json::Value as Json;

/// Blender evaluates in float32: values must agree within this × max(1, |value|).
const TOLERANCE: f64 = 2e-5;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/blender")
}

/// Compares every sample of `values` (generate.py's output) with the document's tracks;
/// returns (samples compared, mismatches described).
fn compare(doc: &Document, values: &Json) -> (usize, Vec<String>) {
    let mut count = 0;
    let mut bad = Vec::new();
    let tracks = values["tracks"].as_object().expect("values file has tracks");
    for (name, samples) in tracks {
        let Some(track) = doc.tracks().iter().find(|t| t.name() == name) else {
            bad.push(format!("{name}: not in the exported document"));
            continue;
        };
        let start = samples["start"].as_f64().expect("start");
        let step = samples["step"].as_f64().expect("step");
        for (i, v) in samples["values"].as_array().expect("values").iter().enumerate() {
            let expected = v.as_f64().expect("a number");
            let frame = start + step * i as f64;
            let got = track.eval(frame)[0];
            count += 1;
            if (got - expected).abs() > TOLERANCE * expected.abs().max(1.0) {
                bad.push(format!("{name} frame {frame}: ours {got}, Blender {expected}"));
            }
        }
    }
    (count, bad)
}

fn check_case(document: &Path, values: &Path) -> usize {
    let text = std::fs::read_to_string(document).expect("document readable");
    let doc = Document::from_json_str(&text, &document.display().to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    let values: Json =
        serde_json::from_str(&std::fs::read_to_string(values).expect("values readable"))
            .expect("values are JSON");
    let (count, bad) = compare(&doc, &values);
    assert!(
        bad.is_empty(),
        "{}: {} of {count} samples differ from Blender, first ones:\n{}",
        document.display(),
        bad.len(),
        bad.iter().take(25).cloned().collect::<Vec<_>>().join("\n")
    );
    count
}

#[test]
fn committed_fixtures_match_blenders_values() {
    let mut cases = 0;
    let mut samples = 0;
    for entry in std::fs::read_dir(fixtures_dir()).expect("tests/blender exists") {
        let path = entry.expect("dir entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(stem) = name.strip_suffix(".values.json") {
            samples += check_case(&path.with_file_name(format!("{stem}.json")), &path);
            cases += 1;
        }
    }
    assert!(cases >= 1, "no fixtures in tests/blender");
    println!("{cases} Blender fixtures, {samples} samples agree within {TOLERANCE} relative");
}
