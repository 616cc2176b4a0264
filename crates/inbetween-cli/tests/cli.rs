//! The `inbetween` command as a user runs it: output, files, errors and exit codes.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn inbetween() -> Command {
    Command::cargo_bin("inbetween").expect("the binary is built")
}

/// The compile tolerance of each CSV value column: 1e-6 × the track's scale.
fn column_tolerances(doc: &inbetween::Document) -> Vec<f64> {
    doc.tracks()
        .iter()
        .flat_map(|t| std::iter::repeat(1e-6 * t.scale()).take(t.components()))
        .collect()
}

/// Two CSV outputs with the same header and frames whose values differ by at most the column's
/// tolerance.
#[track_caller]
fn assert_csv_within(played: &str, sampled: &str, tolerances: &[f64], context: &str) {
    assert_eq!(
        played.lines().next(),
        sampled.lines().next(),
        "{context}: same header"
    );
    assert_eq!(
        played.lines().count(),
        sampled.lines().count(),
        "{context}: same rows"
    );
    for (p, s) in played.lines().zip(sampled.lines()).skip(1) {
        let p: Vec<f64> = p.split(',').map(|c| c.parse().unwrap()).collect();
        let s: Vec<f64> = s.split(',').map(|c| c.parse().unwrap()).collect();
        assert_eq!(p[0], s[0], "{context}: same frame");
        for (col, ((a, b), tol)) in p[1..].iter().zip(&s[1..]).zip(tolerances).enumerate() {
            assert!(
                (a - b).abs() <= *tol,
                "{context} frame {} column {col}: {a} vs {b}",
                p[0]
            );
        }
    }
}

/// `run_ok!("play", &path, "--rate", "0.5")`: [`stdout_of`] with arguments of mixed types.
macro_rules! run_ok {
    ($($arg:expr),* $(,)?) => {
        stdout_of([$(OsString::from($arg)),*])
    };
}

/// Runs `inbetween` with `args`, requires success, and returns its standard output.
fn stdout_of<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = inbetween()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).expect("UTF-8 output")
}

fn showcase() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/showcase.json")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

const SIMPLE: &str = r#"{"inbetween": 1, "fps": 30, "tracks": [
  {"name": "x", "type": "scalar", "keys": [{"frame": 0.5, "value": 0}, {"frame": 4, "value": 7}]},
  {"name": "c", "type": "color", "wrap": "loop", "keys": [{"frame": 1, "value": [0, 0, 0, 1], "interp": "step"}, {"frame": 3, "value": [1, 1, 1, 1]}]}
]}"#;

#[test]
fn sample_prints_the_spec_csv() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "a.json", SIMPLE);
    let out = run_ok!("sample", &input);
    let text = out;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "frame,x,c.r,c.g,c.b,c.a");
    // ⌈0.5⌉ = 1 to ⌊4⌋ = 4. x = 2·(f − 0.5); c holds black on [1, 3), loops after 3.
    assert_eq!(lines[1], "1,1,0,0,0,1");
    assert_eq!(lines[2], "2,3,0,0,0,1");
    assert_eq!(lines[3], "3,5,1,1,1,1");
    assert_eq!(lines[4], "4,7,0,0,0,1");
    assert_eq!(lines.len(), 5);
}

#[test]
fn sample_range_and_json_format() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "a.json", SIMPLE);
    inbetween()
        .args(["sample", "--from", "-1", "--to", "0"])
        .arg(&input)
        .assert()
        .success()
        .stdout("frame,x,c.r,c.g,c.b,c.a\n-1,0,0,0,0,1\n0,0,0,0,0,1\n");
    // Loop: f₀ = 1, S = 2, so −1 → 1 and 0 → 2 (both black). An empty range prints only the
    // header; --from after --to is a usage error (tests/trust.rs).
    inbetween()
        .args(["sample", "--from", "2.2", "--to", "2.8"])
        .arg(&input)
        .assert()
        .success()
        .stdout("frame,x,c.r,c.g,c.b,c.a\n");
    let out = run_ok!("sample", "--format", "json", "--to", "2", &input);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["frames"], serde_json::json!([1, 2]));
    let numbers = |x: &serde_json::Value| -> Vec<f64> {
        x.as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_f64().unwrap())
            .collect()
    };
    assert_eq!(numbers(&v["tracks"][0]["values"]), [1.0, 3.0]);
    assert_eq!(numbers(&v["tracks"][1]["values"][0]), [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(v["tracks"][1]["type"], "color");
}

#[test]
fn sample_writes_the_output_file_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "a.json", SIMPLE);
    let out = dir.path().join("out.csv");
    inbetween()
        .arg("sample")
        .arg(&input)
        .arg("-q")
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout("");
    let first = fs::read_to_string(&out).unwrap();
    assert!(first.starts_with("frame,x,"));
    // A refused document leaves the previous output untouched and no temporary file behind.
    let bad = write(
        dir.path(),
        "bad.json",
        r#"{"inbetween": 1, "tracks": [{"name": "x", "type": "scalar", "keys": []}]}"#,
    );
    inbetween()
        .arg("sample")
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1);
    assert_eq!(fs::read_to_string(&out).unwrap(), first);
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn refused_documents_name_file_track_key_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "bad.json",
        r#"{"inbetween": 1, "tracks": [{"name": "ball", "type": "vec2", "keys": [{"frame": 0, "value": [1, 2, 3]}]}]}"#,
    );
    inbetween().arg("sample").arg(&bad).assert().code(1).stderr(
        predicate::str::contains("bad.json")
            .and(predicate::str::contains(
                "track \"ball\" (#0), key 0, field \"value\"",
            ))
            .and(predicate::str::contains(
                "expected an array of 2 numbers for a vec2 track, found an array of 3 numbers",
            )),
    );
    let syntax = write(
        dir.path(),
        "syntax.json",
        "{\n  \"inbetween\": 1,\n  \"tracks\": [,]\n}",
    );
    inbetween()
        .arg("sample")
        .arg(&syntax)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("line 3, column 14").and(predicate::str::contains(
                "3 |   \"tracks\": [,]\n                 ^",
            )),
        );
    inbetween()
        .arg("sample")
        .arg(dir.path().join("missing.json"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot read"));
}

#[test]
fn non_finite_expression_values_are_errors_naming_the_frame() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "e.json",
        r#"{"inbetween": 1, "tracks": [{"name": "e", "type": "scalar", "keys": [
            {"frame": 0, "value": 0, "interp": {"expr": "1/(u - 0.5)"}}, {"frame": 10, "value": 0}]}]}"#,
    );
    let out = dir.path().join("e.csv");
    inbetween()
        .arg("sample")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("track \"e\", key 0").and(predicate::str::contains("frame 5")),
        );
    assert!(!out.exists(), "nothing is written when sampling fails");
}

#[test]
fn usage_errors_exit_with_2() {
    inbetween().args(["sample"]).assert().code(2);
    inbetween().args(["frobnicate"]).assert().code(2);
    inbetween()
        .arg("sample")
        .arg(showcase())
        .args(["--format", "xml"])
        .assert()
        .code(2);
}

#[test]
fn demo_prints_its_table_and_writes_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_ok!("demo", "--out-dir", dir.path());
    let text = out;
    for kind in [
        "tcb",
        "expr",
        "slerp",
        "catmull_rom",
        "hermite",
        "bezier",
        "polynomial",
        "step",
        "linear",
    ] {
        assert!(text.contains(kind), "demo table lacks {kind}:\n{text}");
    }
    let csv = fs::read_to_string(dir.path().join("showcase.csv")).unwrap();
    assert!(text.contains(&dir.path().join("showcase.csv").display().to_string()));
    assert_eq!(csv.lines().count(), 122);
    for (file, marker) in [("showcase.svg", "<svg"), ("showcase.html", "<html")] {
        let path = dir.path().join(file);
        assert!(
            text.contains(&path.display().to_string()),
            "demo does not print {file}"
        );
        let body = fs::read_to_string(&path).unwrap();
        assert!(body.contains(marker), "{file} is not what it says");
        assert!(body.contains("glide_eased"), "{file} lacks a track");
    }
}

#[test]
fn showcase_sample_matches_the_library() {
    let out = run_ok!("sample", showcase());
    let text = out;
    let doc = inbetween::Document::from_json_str(
        &fs::read_to_string(showcase()).unwrap(),
        "showcase.json",
    )
    .unwrap();
    for line in text.lines().skip(1) {
        let cells: Vec<f64> = line.split(',').map(|c| c.parse().unwrap()).collect();
        let frame = cells[0];
        let mut col = 1;
        for t in doc.tracks() {
            let v = t.eval(frame);
            for c in v.iter() {
                // Printed values read back to the same f64.
                assert_eq!(
                    cells[col].to_bits(),
                    c.to_bits(),
                    "track {} frame {frame}",
                    t.name()
                );
                col += 1;
            }
        }
    }
}

#[test]
fn compile_play_and_inspect_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let ibs = dir.path().join("show.ibs");
    for precision in ["f32", "f64", "fixed"] {
        inbetween()
            .arg("compile")
            .arg(showcase())
            .arg("-o")
            .arg(&ibs)
            .args(["--precision", precision])
            .assert()
            .success()
            .stdout(predicate::str::contains("max error").and(predicate::str::contains("bytes →")));
        let played = run_ok!("play", &ibs);
        let sampled = run_ok!("sample", showcase());
        let doc =
            inbetween::Document::from_json_str(&fs::read_to_string(showcase()).unwrap(), "s.json")
                .unwrap();
        assert_csv_within(&played, &sampled, &column_tolerances(&doc), precision);
        inbetween()
            .arg("inspect")
            .arg(&ibs)
            .arg("--pieces")
            .assert()
            .success()
            .stdout(
                predicate::str::contains("lissajous")
                    .and(predicate::str::contains("piece"))
                    .and(predicate::str::contains(precision)),
            );
    }
    // Reverse play prints the same rows backward.
    let fwd = run_ok!("play", &ibs, "--from", "10", "--to", "20");
    let back = run_ok!("play", &ibs, "--from", "10", "--to", "20", "--reverse");
    let fwd: Vec<String> = fwd.lines().skip(1).map(String::from).collect();
    let mut back: Vec<String> = back.lines().skip(1).map(String::from).collect();
    back.reverse();
    assert_eq!(fwd.len(), 11);
    for (f, b) in fwd.iter().zip(&back) {
        let f: Vec<f64> = f.split(',').map(|c| c.parse().unwrap()).collect();
        let b: Vec<f64> = b.split(',').map(|c| c.parse().unwrap()).collect();
        assert_eq!(f[0], b[0]);
        for (x, y) in f.iter().zip(&b) {
            assert!(
                (x - y).abs() <= 1e-6 * x.abs().max(1.0) * 10.0,
                "{x} vs {y}"
            );
        }
    }
    // Half rate: 21 rows from 10 to 20, at fractional frames.
    let half = run_ok!("play", &ibs, "--from", "10", "--to", "20", "--rate", "0.5");
    assert_eq!(half.lines().count(), 22);
    assert!(half.lines().nth(2).unwrap().starts_with("10.5,"));
}

#[test]
fn corrupt_streams_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ibs = dir.path().join("s.ibs");
    inbetween()
        .arg("compile")
        .arg(showcase())
        .arg("-o")
        .arg(&ibs)
        .arg("-q")
        .assert()
        .success()
        .stdout("");
    let mut bytes = fs::read(&ibs).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    let bad = dir.path().join("bad.ibs");
    fs::write(&bad, &bytes).unwrap();
    inbetween()
        .arg("play")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not a valid stream"));
    fs::write(&bad, &bytes[..100]).unwrap();
    inbetween()
        .arg("inspect")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not a valid stream"));
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/gltf")
        .join(name)
}

#[test]
fn gltf_import_writes_a_document_that_samples_like_the_gltf() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("walk.json");
    inbetween()
        .arg("import")
        .arg(corpus("character_walk.gltf"))
        .arg("-o")
        .arg(&json)
        .args(["--fps", "30"])
        .assert()
        .success()
        .stdout(predicate::str::contains("69 tracks"));
    let from_json = run_ok!("sample", &json);
    // Sampling the glTF directly uses 60 fps; the imported document at 30 fps has half the frames.
    let direct = run_ok!("sample", corpus("character_walk.gltf"));
    assert_eq!(from_json.lines().next(), direct.lines().next());
    let rows_json: Vec<&str> = from_json.lines().skip(1).collect();
    let rows_direct: Vec<&str> = direct.lines().skip(1).collect();
    // Frame k at 30 fps is frame 2k at 60 fps: the same instant, the same values.
    for (k, row) in rows_json.iter().enumerate() {
        let a: Vec<f64> = row.split(',').skip(1).map(|c| c.parse().unwrap()).collect();
        let b: Vec<f64> = rows_direct[2 * k]
            .split(',')
            .skip(1)
            .map(|c| c.parse().unwrap())
            .collect();
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() <= 1e-9, "row {k}: {x} vs {y}");
        }
    }
}

#[test]
fn gltf_compiles_and_plays_within_tolerance() {
    let dir = tempfile::tempdir().unwrap();
    let ibs = dir.path().join("i.ibs");
    for file in [
        "interpolation_test.gltf",
        "character_walk.gltf",
        "box_animated.gltf",
        "cubicspline.gltf",
    ] {
        for precision in ["f32", "fixed"] {
            inbetween()
                .arg("compile")
                .arg(corpus(file))
                .arg("-o")
                .arg(&ibs)
                .args(["--precision", precision, "-q"])
                .assert()
                .success();
            let played = run_ok!("play", &ibs);
            let sampled = run_ok!("sample", corpus(file));
            let doc = inbetween::gltf_import::import_gltf_path(&corpus(file), &Default::default())
                .unwrap();
            assert_csv_within(
                &played,
                &sampled,
                &column_tolerances(&doc),
                &format!("{file} {precision}"),
            );
        }
    }
    inbetween()
        .arg("inspect")
        .arg(corpus("box_animated.gltf"))
        .assert()
        .success()
        .stdout(predicate::str::contains("rotation").and(predicate::str::contains("translation")));
}

#[test]
fn bad_gltf_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "bad.gltf",
        r#"{"asset": {"version": "2.0"}, "animations": []}"#,
    );
    let out = dir.path().join("out.json");
    inbetween()
        .arg("import")
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bad.gltf"));
    assert!(!out.exists());
    inbetween()
        .arg("import")
        .arg(corpus("interpolation_test.gltf"))
        .args(["--animation", "No Such Animation"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("No Such Animation"));
}

#[test]
fn help_shows_an_example_for_every_subcommand_and_completions_work() {
    for sub in [
        "sample",
        "compile",
        "play",
        "inspect",
        "import",
        "export",
        "completions",
        "demo",
    ] {
        let help = run_ok!("help", sub);
        assert!(
            help.contains("Example: inbetween"),
            "{sub} help lacks an example:\n{help}"
        );
    }
    assert!(run_ok!("--help").contains("Exit codes"));
    assert!(run_ok!("completions", "bash").contains("_inbetween"));
}

#[test]
fn bench_json_reports_every_method() {
    // `--smoke` runs every workload and method of `--quick` at tiny sizes (the quick run itself
    // compiles 100 000 channels three times: minutes, too long for a test).
    let text = run_ok!("bench", "--smoke", "--json");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(v["machine"].is_string());
    check_bench_results(v["results"].as_array().unwrap());
    check_bench_compile(v["compile"].as_array().unwrap());
}

/// `inbetween bench --json`'s playback rows: every method of both workloads with consistent
/// rates, the smoke sizes, and every checked method's error against exact evaluation.
fn check_bench_results(results: &[serde_json::Value]) {
    for method in [
        "inbetween-batch-f32",
        "inbetween-batch-f64",
        "inbetween-batch-fixed",
        "inbetween-player-f32",
        "inbetween-exact",
        "hermite-soa-script",
        "streaming-ceiling",
    ] {
        let row = results
            .iter()
            .find(|r| r["method"] == method)
            .unwrap_or_else(|| panic!("{method} missing"));
        let ns = row["ns_per_channel_frame"]
            .as_f64()
            .unwrap_or_else(|| panic!("{method} failed its check"));
        assert!(ns > 0.0 && row["channels"].as_u64().unwrap() > 0);
        let per_s = row["channel_frames_per_s"].as_f64().unwrap();
        assert!(
            (per_s * ns / 1e9 - 1.0).abs() < 1e-6,
            "{method}: inconsistent rates"
        );
    }
    for method in [
        "inbetween-batch-f32",
        "inbetween-batch-f32-degree4",
        "inbetween-batch-fixed",
        "slerp-soa-script",
        "streaming-ceiling",
    ] {
        let row = results
            .iter()
            .find(|r| r["method"] == method && r["workload"] == "quaternion")
            .unwrap_or_else(|| panic!("quaternion {method} missing"));
        assert!(row["ns_per_channel_frame"]
            .as_f64()
            .is_some_and(|ns| ns > 0.0));
    }
    // Smoke covers 1 000 scalar channels and 2 characters of the ozz clip (67 joints each);
    // every checked method reports its error against exact evaluation.
    for (workload, channels) in [("scalar", 1_000), ("ozz", 134)] {
        for method in ["inbetween-batch-f32", "streaming-ceiling"] {
            assert!(
                results.iter().any(|r| r["method"] == method
                    && r["workload"] == workload
                    && r["channels"] == channels),
                "{workload} {channels} {method} missing"
            );
        }
    }
    for row in results {
        let error = row["max_error"].as_f64();
        if row["method"] == "streaming-ceiling" {
            assert!(error.is_none());
        } else {
            assert!(error.is_some_and(|e| e <= 2e-4), "{row}");
        }
    }
}

/// `inbetween bench --json`'s compile rows: one per workload and precision, with sizes per key
/// that agree with each other.
fn check_bench_compile(compile: &[serde_json::Value]) {
    for workload in ["scalar", "quaternion"] {
        for precision in ["f32", "f64", "fixed"] {
            let row = compile
                .iter()
                .find(|r| r["workload"] == workload && r["precision"] == precision)
                .unwrap_or_else(|| panic!("no compile figure for {workload} {precision}"));
            let keys = row["keys"].as_f64().unwrap();
            let bytes = row["stream_bytes"].as_f64().unwrap();
            assert!(keys >= 32.0 * 100.0);
            assert!((row["stream_bytes_per_key"].as_f64().unwrap() - bytes / keys).abs() < 1e-9);
            assert!(row["keys_per_s"].as_f64().unwrap() > 0.0);
            // The JSON spells each key out; raw f32 keys are 4 bytes × (1 + components).
            let raw = if workload == "scalar" { 8.0 } else { 20.0 };
            assert_eq!(row["raw_f32_bytes_per_key"].as_f64().unwrap(), raw);
            assert!(row["json_bytes_per_key"].as_f64().unwrap() > raw);
        }
    }
}

/// Progress bars go to a terminal only: with standard error piped (as here, or in a script), a
/// compile and an import print nothing there; `--quiet` also silences standard output.
#[test]
fn progress_is_silent_off_a_terminal_and_quiet_is_silent() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.ibs");
    let run = inbetween()
        .args([OsString::from("compile"), showcase().into(), "-o".into()])
        .arg(&out)
        .assert()
        .success();
    assert!(
        run.get_output().stderr.is_empty(),
        "compile wrote to stderr"
    );
    assert!(String::from_utf8_lossy(&run.get_output().stdout).contains("bytes →"));
    let quiet = inbetween()
        .args([
            OsString::from("compile"),
            showcase().into(),
            "-q".into(),
            "-o".into(),
        ])
        .arg(&out)
        .assert()
        .success();
    assert!(quiet.get_output().stdout.is_empty() && quiet.get_output().stderr.is_empty());
    let walk =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/gltf/character_walk.gltf");
    let import = inbetween()
        .args([OsString::from("import"), walk.into(), "-o".into()])
        .arg(dir.path().join("walk.json"))
        .assert()
        .success();
    assert!(
        import.get_output().stderr.is_empty(),
        "import wrote to stderr"
    );
}

fn ozz_corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/ozz")
        .join(name)
}

/// `import animation.ozz --skeleton skeleton.ozz` writes the library's import of the clip
/// (joint-named tracks, the same keys); without the skeleton the joints are numbered; a skeleton
/// given as the animation is refused with exit code 1 and the archive's tag.
#[test]
fn ozz_import_writes_joint_tracks_and_refuses_a_skeleton_as_clip() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("crossarms.json");
    let (anim, skel) = (
        ozz_corpus("playback/animation.ozz"),
        ozz_corpus("playback/skeleton.ozz"),
    );
    inbetween()
        .arg("import")
        .arg(&anim)
        .arg("--skeleton")
        .arg(&skel)
        .arg("-o")
        .arg(&json)
        .args(["--fps", "30"])
        .assert()
        .success()
        .stdout(predicate::str::contains("201 tracks"));
    let written =
        inbetween::Document::from_json_str(&fs::read_to_string(&json).unwrap(), "x").unwrap();
    let expected = inbetween::ozz_import::import_ozz(
        &fs::read(&anim).unwrap(),
        Some(&fs::read(&skel).unwrap()),
        30.0,
    )
    .unwrap();
    assert_eq!(written.tracks().len(), expected.tracks().len());
    for (w, e) in written.tracks().iter().zip(expected.tracks()) {
        assert_eq!(w.name(), e.name());
        assert_eq!(w.keys().len(), e.keys().len());
        for f in [0.0, 12.5, 100.0, 257.0] {
            for (a, b) in w.eval(f).as_slice().iter().zip(e.eval(f).as_slice()) {
                assert!((a - b).abs() <= 1e-12, "{} at {f}: {a} vs {b}", w.name());
            }
        }
    }
    assert!(written.track("Hips/rotation").is_some());
    let numbered = run_ok!("import", &anim);
    assert!(numbered.contains("\"0/rotation\""));
    inbetween()
        .arg("import")
        .arg(&skel)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("tag \"ozz-skeleton\""));
}
