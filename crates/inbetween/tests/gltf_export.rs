//! glTF export: files that load with the gltf crate, pass the Khronos validator, and import back
//! to the same values.
#![cfg(feature = "gltf")]

use std::path::{Path, PathBuf};

use inbetween::gltf_export::{export_gltf, ExportedAs};
use inbetween::gltf_import::{import_gltf_path, import_gltf_slice, ImportOptions};
use inbetween::{Document, Interp, Track};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/gltf")
        .join(name)
}

/// Every exported track, imported back, matches the original at every integer frame (values
/// and times go through f32, so within 1e-5 of the track's scale plus slope × time rounding).
fn assert_round_trip(doc: &Document, glb: bool) {
    let (bytes, report) = export_gltf(doc, glb).unwrap();
    gltf::Gltf::from_slice(&bytes).expect("the gltf crate loads the export");
    let back = import_gltf_slice(
        &bytes,
        None,
        &ImportOptions {
            fps: doc.fps(),
            animation: None,
            ..ImportOptions::default()
        },
    )
    .unwrap();
    assert_eq!(back.tracks().len(), report.channels.len());
    for (name, node, path, _) in &report.channels {
        let original = doc.track(name).unwrap();
        let again = back
            .track(&format!("{node}/{path}"))
            .unwrap_or_else(|| panic!("{node}/{path} not imported"));
        let (from, to) = (
            original.first_frame().ceil() as i64,
            original.last_frame().floor() as i64,
        );
        for f in from..=to {
            let (a, b) = (original.eval(f as f64), again.eval(f as f64));
            let sign = if original.value_type() == inbetween::ValueType::Quat
                && a.iter().zip(b.iter()).map(|(x, y)| x * y).sum::<f64>() < 0.0
            {
                -1.0
            } else {
                1.0
            };
            for (x, y) in a.iter().zip(b.iter()) {
                assert!(
                    (x - sign * y).abs() <= 2e-5 * original.scale(),
                    "{name} frame {f}: {x} vs {y}"
                );
            }
        }
    }
}

#[test]
fn corpus_files_round_trip_through_export() {
    for file in [
        "character_walk.gltf",
        "interpolation_test.gltf",
        "box_animated.gltf",
        "cubicspline.gltf",
        "AnimatedTriangle.gltf",
    ] {
        let doc = import_gltf_path(&corpus(file), &ImportOptions::default()).unwrap();
        assert_round_trip(&doc, false);
        assert_round_trip(&doc, true);
    }
}

#[test]
fn samplers_are_exact_where_gltf_can_say_it() {
    let doc = Document::builder()
        .fps(24.0)
        .track(
            Track::vec3("a/translation")
                .key(0.0, [0.0, 0.0, 0.0])
                .interp(Interp::Step)
                .key(10.0, [1.0, 2.0, 3.0]),
        )
        .track(
            Track::quat("a/rotation")
                .key(0.0, [0.0, 0.0, 0.0, 1.0])
                .key(12.0, [0.0, 0.0, 1.0, 0.0]),
        )
        .track(
            Track::vec3("b")
                .key(0.0, [0.0, 0.0, 0.0])
                .interp(Interp::CatmullRom)
                .key(5.0, [1.0, 4.0, 0.0])
                .bezier([2.0, 4.0, 0.0], [3.0, 0.0, 1.0])
                .key(9.0, [4.0, 0.0, 0.0])
                .interp(Interp::Linear)
                .key(20.0, [0.0, 0.0, 2.0]),
        )
        .track(
            Track::vec3("c")
                .key(0.0, [0.0, 0.0, 0.0])
                .ease(inbetween::Ease::Smoothstep)
                .key(10.0, [1.0, 1.0, 1.0]),
        )
        .track(Track::color("skipped").key(0.0, [1.0, 0.0, 0.0, 1.0]))
        .build()
        .unwrap();
    let (_, report) = export_gltf(&doc, false).unwrap();
    let how: Vec<&ExportedAs> = report.channels.iter().map(|c| &c.3).collect();
    assert_eq!(how[0], &ExportedAs::Exact("STEP"));
    assert_eq!(how[1], &ExportedAs::Exact("LINEAR"));
    assert_eq!(how[2], &ExportedAs::Exact("CUBICSPLINE"));
    assert!(matches!(how[3], ExportedAs::Baked(_)));
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.channels[0].1, "a");
    assert_eq!(report.channels[0].2, "translation");
    assert_round_trip(&doc, false);
    // The exact cubic matches between frames too, not only at them.
    let (bytes, _) = export_gltf(&doc, true).unwrap();
    let back = import_gltf_slice(
        &bytes,
        None,
        &ImportOptions {
            fps: 24.0,
            animation: None,
            ..ImportOptions::default()
        },
    )
    .unwrap();
    let (a, b) = (
        doc.track("b").unwrap(),
        back.track("b/translation").unwrap(),
    );
    for k in 0..200 {
        let f = f64::from(k) * 0.1;
        for (x, y) in a.eval(f).iter().zip(b.eval(f).iter()) {
            assert!((x - y).abs() <= 1e-5, "frame {f}: {x} vs {y}");
        }
    }
}

#[test]
fn negative_times_are_shifted_and_nothing_exportable_is_an_error() {
    let doc = Document::builder()
        .track(
            Track::vec3("p")
                .key(-30.0, [0.0, 0.0, 0.0])
                .key(30.0, [1.0, 1.0, 1.0]),
        )
        .build()
        .unwrap();
    let (_, report) = export_gltf(&doc, false).unwrap();
    assert_eq!(report.time_shift, 0.5);
    let none = Document::builder()
        .track(Track::scalar("s").key(0.0, 1.0))
        .build()
        .unwrap();
    let e = export_gltf(&none, false).unwrap_err();
    assert!(e.to_string().contains("\"s\""), "{e}");
}

/// The Khronos glTF validator (npm `gltf-validator`, installed by .ci/run into
/// tools/gltf-validate) reports no errors and no warnings. Where it is not installed the test
/// says so and passes, unless INBETWEEN_REQUIRE_GLTF_VALIDATOR is set (as in CI).
#[test]
fn exports_pass_the_khronos_validator() {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/gltf-validate");
    if !tools.join("node_modules/gltf-validator").exists() {
        assert!(
            std::env::var_os("INBETWEEN_REQUIRE_GLTF_VALIDATOR").is_none(),
            "gltf-validator is not installed in {}",
            tools.display()
        );
        eprintln!(
            "gltf-validator not installed (npm install --prefix tools/gltf-validate): skipped"
        );
        return;
    }
    let dir = tempfile_dir();
    let mut files = Vec::new();
    let showcase = Document::from_json_str(
        include_str!("../../../examples/showcase.json"),
        "showcase.json",
    )
    .unwrap();
    let walk = import_gltf_path(&corpus("character_walk.gltf"), &ImportOptions::default()).unwrap();
    let interp = import_gltf_path(
        &corpus("interpolation_test.gltf"),
        &ImportOptions::default(),
    )
    .unwrap();
    for (name, doc) in [
        ("showcase", &showcase),
        ("walk", &walk),
        ("interpolation", &interp),
    ] {
        for glb in [false, true] {
            let (bytes, _) = export_gltf(doc, glb).unwrap();
            let path = dir.join(format!("{name}.{}", if glb { "glb" } else { "gltf" }));
            std::fs::write(&path, bytes).unwrap();
            files.push(path);
        }
    }
    let out = std::process::Command::new("node")
        .arg(tools.join("validate.mjs"))
        .args(&files)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "validator found errors:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in text.lines() {
        let report: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(report["numErrors"], 0, "{line}");
        assert_eq!(report["numWarnings"], 0, "{line}");
    }
    assert_eq!(text.lines().count(), files.len());
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("inbetween-gltf-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
