//! Commands that read glTF: a model's buffer URIs stay inside its folder (`--allow-path DIR`
//! opens another folder, a refusal names the file, the buffer and the rule), and key frames
//! within float32 rounding of a whole frame land on it (`--no-snap` keeps them as they are).

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

fn inbetween() -> Command {
    Command::cargo_bin("inbetween").expect("the binary is built")
}

/// `root/model/model.gltf` reading its buffer from `uri`, and `root/shared/keys.bin` beside it.
fn scratch(uri: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("model")).unwrap();
    std::fs::create_dir(root.path().join("shared")).unwrap();
    let bytes: Vec<u8> = [0.0f32, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(root.path().join("shared/keys.bin"), bytes).unwrap();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "nodes": [{"name": "n"}],
        "buffers": [{"byteLength": 32, "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 8},
            {"buffer": 0, "byteOffset": 8, "byteLength": 24}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"}
        ],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
            "samplers": [{"input": 0, "output": 1, "interpolation": "LINEAR"}]}]
    });
    std::fs::write(root.path().join("model/model.gltf"), gltf.to_string()).unwrap();
    root
}

fn model(root: &Path) -> std::path::PathBuf {
    root.join("model/model.gltf")
}

#[test]
fn every_gltf_command_refuses_a_buffer_outside_the_model_folder() {
    let root = scratch("../shared/keys.bin");
    let out = root.path().join("out.json");
    let commands: [&[&str]; 4] = [
        &["import", "-o"],
        &["sample", "-o"],
        &["compile", "-o"],
        &["export", "-o"],
    ];
    for args in commands {
        let target = if args[0] == "export" {
            root.path().join("out.glb")
        } else {
            out.clone()
        };
        inbetween()
            .arg(args[0])
            .arg(model(root.path()))
            .arg(args[1])
            .arg(&target)
            .assert()
            .code(1)
            .stderr(predicate::str::contains("model.gltf"))
            .stderr(predicate::str::contains("buffer 0 \"../shared/keys.bin\""))
            .stderr(predicate::str::contains("outside the model's folder"))
            .stderr(predicate::str::contains("--allow-path"));
        assert!(!target.exists(), "{}: nothing is written", args[0]);
    }
}

#[test]
fn allow_path_lets_a_command_read_a_buffer_kept_elsewhere() {
    let root = scratch("../shared/keys.bin");
    let shared = root.path().join("shared");
    // Before or after the subcommand: the option is global.
    let csv = inbetween()
        .arg("--allow-path")
        .arg(&shared)
        .arg("sample")
        .arg(model(root.path()))
        .arg("--to")
        .arg("30")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let csv = String::from_utf8(csv).unwrap();
    assert_eq!(csv.lines().last(), Some("30,4,5,6"), "{csv}");
    let out = root.path().join("anim.json");
    inbetween()
        .arg("import")
        .arg(model(root.path()))
        .arg("-o")
        .arg(&out)
        .arg("--allow-path")
        .arg(&shared)
        .assert()
        .success();
    assert!(out.exists());
}

#[test]
fn an_absolute_or_file_uri_is_refused_with_its_rule() {
    for (uri, rule) in [
        ("/etc/passwd", "is an absolute path"),
        ("%2Fetc%2Fpasswd", "is an absolute path"),
        ("file:///etc/passwd", "refused: a \"file:\" URI"),
    ] {
        let root = scratch(uri);
        inbetween()
            .arg("import")
            .arg(model(root.path()))
            .assert()
            .code(1)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(rule))
            .stderr(predicate::str::contains("root:").not());
    }
}

/// The last row's frame of `inbetween sample FILE`.
fn last_sampled_frame(file: &Path) -> String {
    let out = inbetween().arg("sample").arg(file).assert().success();
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let last = csv.lines().last().unwrap_or_default().to_string();
    last.split(',').next().unwrap_or_default().to_string()
}

#[test]
fn an_imported_clip_keeps_its_last_pose_unless_told_not_to_snap() {
    // character_walk at 30 fps: its last key is at 0.8333333 s in float32, frame 24.99999…
    let walk =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/gltf/character_walk.gltf");
    let dir = tempfile::tempdir().unwrap();
    let snapped = dir.path().join("walk.json");
    let raw = dir.path().join("walk-raw.json");
    for (out, extra) in [(&snapped, None), (&raw, Some("--no-snap"))] {
        let mut cmd = inbetween();
        cmd.arg("import")
            .arg(&walk)
            .arg("--fps")
            .arg("30")
            .arg("-o")
            .arg(out);
        if let Some(flag) = extra {
            cmd.arg(flag);
        }
        cmd.assert().success();
    }
    assert_eq!(last_sampled_frame(&snapped), "25");
    assert_eq!(last_sampled_frame(&raw), "24");
}
