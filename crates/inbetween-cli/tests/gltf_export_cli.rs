//! `inbetween import` then `inbetween export`: a glTF clip goes back onto its own nodes and animations (`--flat` ignores the record), other tracks go through `KHR_animation_pointer`, and every file written passes the Khronos validator.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

#[path = "../../inbetween/tests/gltf_validator/mod.rs"]
mod gltf_validator;

fn inbetween() -> Command {
    Command::cargo_bin("inbetween").expect("the binary is built")
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/gltf")
        .join(name)
}

fn json_of(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `inbetween export DOC -o OUT ARGS…`, ready to assert on.
fn export(doc: &Path, out: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    inbetween()
        .arg("export")
        .arg(doc)
        .arg("-o")
        .arg(out)
        .args(args)
        .assert()
}

fn assert_khronos_valid(files: &[PathBuf]) {
    gltf_validator::khronos_validator_passes(files);
}

/// The walk cycle, imported to JSON and exported, keeps the model's node names, parents and
/// rest TRS and its animation name; `--flat` writes one animation on nodes named after the
/// tracks instead.
#[test]
fn an_imported_walk_exports_onto_its_own_skeleton() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("walk.json");
    inbetween()
        .args(["import", "-q"])
        .arg(corpus("character_walk.gltf"))
        .arg("-o")
        .arg(&doc)
        .assert()
        .success();
    let written = json_of(&doc);
    assert!(written["x-gltf"]["nodes"].is_array());
    let out = dir.path().join("walk.gltf");
    let source = json_of(&corpus("character_walk.gltf"));
    let name = source["animations"][0]["name"]
        .as_str()
        .unwrap()
        .to_string();
    export(&doc, &out, &[])
        .success()
        .stderr("")
        .stdout(predicate::str::contains(
            "SkeletonRoot/translation     → node \"SkeletonRoot\" translation  LINEAR (exact)\n",
        ))
        .stdout(predicate::str::contains(format!(
            "animations: \"{name}\"\n"
        )));
    let exported = json_of(&out);
    let (src, got) = (
        source["nodes"].as_array().unwrap(),
        exported["nodes"].as_array().unwrap(),
    );
    assert_eq!(src.len(), got.len());
    for (a, b) in src.iter().zip(got) {
        for field in ["name", "children", "translation", "rotation", "scale"] {
            assert_eq!(a.get(field), b.get(field), "{field}");
        }
    }
    assert_eq!(exported["animations"][0]["name"], name.as_str());
    let flat = dir.path().join("flat.glb");
    export(&doc, &flat, &["--flat", "-q"]).success().stdout("");
    let flat_gltf = dir.path().join("flat.gltf");
    export(&doc, &flat_gltf, &["--flat", "-q"]).success();
    let flat_json = json_of(&flat_gltf);
    assert_eq!(flat_json["animations"][0]["name"], "inbetween");
    assert!(flat_json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n.get("children").is_none()));
    assert_khronos_valid(&[out, flat, flat_gltf]);
}

/// Scalar, vec2 and colour tracks are written through `KHR_animation_pointer`, reported with
/// their pointer, and `sample` reads them back from the glTF.
#[test]
fn scalar_vec2_and_colour_tracks_export_through_animation_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("ui.json");
    std::fs::write(
        &doc,
        r#"{"inbetween": 1, "fps": 60, "tracks": [
 {"name": "tint", "type": "color", "keys": [{"frame": 0, "value": [1, 0, 0, 1]}, {"frame": 60, "value": [0, 0, 1, 1]}]},
 {"name": "uv", "type": "vec2", "keys": [{"frame": 0, "value": [0, 0]}, {"frame": 60, "value": [1, 2]}]},
 {"name": "fade", "type": "scalar", "keys": [{"frame": 0, "value": 0, "interp": "step"}, {"frame": 30, "value": 1}]}
]}"#,
    )
    .unwrap();
    let out = dir.path().join("ui.glb");
    export(&doc, &out, &[])
        .success()
        .stdout(predicate::str::contains(
            "tint                         → pointer /materials/0/pbrMetallicRoughness/baseColorFactor LINEAR (exact)\n\
             uv                           → pointer /extras/inbetween/uv LINEAR (exact)\n\
             fade                         → pointer /extras/inbetween/fade STEP (exact)\n",
        ));
    let csv = inbetween()
        .arg("sample")
        .arg(&out)
        .args(["--from", "30", "--to", "30"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let csv = String::from_utf8(csv).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "frame,/materials/0/pbrMetallicRoughness/baseColorFactor.r,/materials/0/pbrMetallicRoughness/baseColorFactor.g,/materials/0/pbrMetallicRoughness/baseColorFactor.b,/materials/0/pbrMetallicRoughness/baseColorFactor.a,uv.x,uv.y,fade"
    );
    assert_eq!(lines.next().unwrap(), "30,0.5,0,0.5,1,0.5,1,1");
    assert_khronos_valid(&[out]);
}

/// A record that does not fit its own nodes is refused naming the field, and nothing is
/// written.
#[test]
fn a_broken_record_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("bad.json");
    std::fs::write(
        &doc,
        r#"{"inbetween": 1, "tracks": [{"name": "a/translation", "type": "vec3", "keys": [{"frame": 0, "value": [0, 0, 0]}]}],
 "x-gltf": {"scenes": [[0]], "nodes": [{"name": "a", "children": [3]}], "animations": [{"index": 0}], "tracks": []}}"#,
    )
    .unwrap();
    let out = dir.path().join("bad.gltf");
    export(&doc, &out, &[])
        .code(1)
        .stderr(predicate::str::contains(
            "bad.json: \"x-gltf\".nodes[0].children[0]: expected an index below 1; fix the record, or export with --flat to ignore it",
        ));
    assert!(!out.exists());
    export(&doc, &out, &["--flat", "-q"]).success();
}

/// `export --onto MODEL` writes the whole model (its mesh and skin kept, its animation replaced
/// by the document's, in .gltf and .glb), with no validator error and no warning the model does
/// not have itself; onto another model it is refused, saying which.
#[test]
fn export_onto_writes_the_whole_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = corpus("rigged_simple.gltf");
    let doc = dir.path().join("rig.json");
    inbetween()
        .args(["import", "-q"])
        .arg(&model)
        .arg("-o")
        .arg(&doc)
        .assert()
        .success();
    let (gltf, glb) = (dir.path().join("rig.gltf"), dir.path().join("rig.glb"));
    let onto = model.to_str().unwrap();
    export(&doc, &gltf, &["--onto", onto, "-q"]).success();
    export(&doc, &glb, &["--onto", onto, "-q"]).success();
    let (source, out) = (json_of(&model), json_of(&gltf));
    for key in ["meshes", "skins", "materials", "nodes", "scenes"] {
        assert_eq!(source.get(key), out.get(key), "{key}");
    }
    assert_eq!(out["buffers"].as_array().unwrap().len(), 1);
    if let Some(reports) = gltf_validator::validator_reports(&[gltf, glb, model.clone()]) {
        for report in &reports[..2] {
            assert_eq!(report["numErrors"], 0, "{report}");
            assert_eq!(report["numWarnings"], reports[2]["numWarnings"], "{report}");
        }
    }
    let out = dir.path().join("other.glb");
    export(&doc, &out, &["--onto", corpus("character_walk.gltf").to_str().unwrap()])
        .code(1)
        .stderr(predicate::str::contains(
            "rig.json: cannot export: the document was imported from another model: the document records 5 nodes, the model has 31; export onto the model it came from, or with --flat",
        ));
    assert!(!out.exists());
}

/// `--onto` reads the model's buffers under the import's rules: a buffer URI that leaves the
/// model's folder is refused naming the buffer and the rule, and nothing is written.
#[test]
fn export_onto_refuses_a_model_buffer_outside_its_folder() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("model")).unwrap();
    std::fs::write(root.path().join("secret.bin"), [0u8; 16]).unwrap();
    let model = root.path().join("model/model.gltf");
    std::fs::write(
        &model,
        r#"{"asset": {"version": "2.0"}, "nodes": [{"name": "n"}],
            "buffers": [{"byteLength": 16, "uri": "../secret.bin"}]}"#,
    )
    .unwrap();
    let doc = root.path().join("doc.json");
    std::fs::write(
        &doc,
        r#"{"inbetween": 1, "tracks": [{"name": "n/translation", "type": "vec3", "keys": [{"frame": 0, "value": [0, 0, 0]}]}]}"#,
    )
    .unwrap();
    let out = root.path().join("out.glb");
    export(&doc, &out, &["--onto", model.to_str().unwrap()])
        .code(1)
        .stderr(predicate::str::contains("model.gltf"))
        .stderr(predicate::str::contains(
            "buffer 0 \"../secret.bin\" of the model: refused",
        ))
        .stderr(predicate::str::contains("outside the model's folder"));
    assert!(!out.exists());
}
