//! The CLI takes Lottie files directly: `import` (fps from `fr`), `sample`, `compile`, `inspect`, `plot`, `preview`; skipped parts on stderr; bad files refused with where, nothing written.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value as Json;

fn inbetween() -> Command {
    Command::cargo_bin("inbetween").expect("the binary is built")
}

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

/// `import` writes a document whose fps is the Lottie `fr` and whose keys are the Lottie's
/// frames; `sample` of the Lottie file prints exactly what `sample` of that document prints.
#[test]
fn import_writes_the_document_that_sample_reads_from_the_lottie_directly() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("doc.json");
    inbetween()
        .arg("import")
        .arg(corpus("scalar-ease.json"))
        .arg("-o")
        .arg(&doc)
        .assert()
        .success()
        .stdout(predicate::str::contains("1 tracks, 2 keys at 60 fps"));
    let json: Json = serde_json::from_str(&std::fs::read_to_string(&doc).unwrap()).unwrap();
    assert_eq!(json["fps"], 60.0);
    assert_eq!(json["tracks"][0]["name"], "Shape Layer 1/rotation");
    assert_eq!(json["tracks"][0]["keys"][1]["frame"], 60.0);
    assert_eq!(json["tracks"][0]["keys"][1]["value"], 360.0);
    let from_doc = inbetween().arg("sample").arg(&doc).output().unwrap();
    let from_lottie = inbetween()
        .arg("sample")
        .arg(corpus("scalar-ease.json"))
        .output()
        .unwrap();
    assert!(from_doc.status.success() && from_lottie.status.success());
    assert_eq!(from_doc.stdout, from_lottie.stdout);
    let text = String::from_utf8_lossy(&from_lottie.stdout);
    assert!(
        text.starts_with("frame,Shape Layer 1/rotation\n0,0\n"),
        "{text}"
    );
    assert!(text.contains("\n60,360\n"), "{text}");
}

/// What is not imported is listed on stderr, one line each, for every command.
#[test]
fn skipped_properties_are_listed_on_stderr() {
    inbetween()
        .arg("sample")
        .arg(fixture("transforms.json"))
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "skipped Box/Shapes/Path: animated path vertices",
        ))
        .stderr(predicate::str::contains(
            "skipped Box/Shapes/#5/opacity: expression",
        ));
}

/// `compile`, `inspect`, `plot` and `preview` accept the Lottie file as they accept glTF.
#[test]
fn compile_inspect_plot_and_preview_take_lottie_files() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("precomps.json");
    let stream = dir.path().join("a.ibs");
    inbetween()
        .arg("compile")
        .arg(&input)
        .arg("-o")
        .arg(&stream)
        .assert()
        .success();
    assert!(std::fs::metadata(&stream).unwrap().len() > 0);
    inbetween()
        .arg("inspect")
        .arg(&input)
        .assert()
        .success()
        .stdout(predicate::str::contains("Pre/Dot/position"));
    let svg = dir.path().join("a.svg");
    inbetween()
        .arg("plot")
        .arg(&input)
        .arg("-o")
        .arg(&svg)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    let html = dir.path().join("a.html");
    inbetween()
        .arg("preview")
        .arg(&input)
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("Remap/Nest/Leaf/rotation"));
}

/// A bad Lottie file: exit 1, a message naming the file, layer, property and keyframe, and
/// no output file.
#[test]
fn bad_lottie_is_refused_with_where_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    let text = std::fs::read_to_string(corpus("scalar-ease.json"))
        .unwrap()
        .replacen("\"t\": 60", "\"t\": -5", 1);
    assert!(text.contains("\"t\": -5"));
    std::fs::write(&bad, text).unwrap();
    let out = dir.path().join("out.json");
    inbetween()
        .arg("import")
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bad.json"))
        .stderr(predicate::str::contains(
            "layer \"Shape Layer 1\", property \"Shape Layer 1/rotation\", keyframe 1, field \"t\"",
        ));
    assert!(!out.exists(), "nothing written");
    let csv = dir.path().join("out.csv");
    inbetween()
        .arg("sample")
        .arg(&bad)
        .arg("-o")
        .arg(&csv)
        .assert()
        .code(1);
    assert!(!csv.exists());
}
