//! Hostile input II through the command: outputs that are not regular files, `-o -`, other
//! people's temporaries, input and output caps, plots of extreme numbers, messages that name the
//! file, negative option values.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;

/// Every run here must end well within this (the bugs fixed were endless loops and reads).
const TIMEOUT: Duration = Duration::from_secs(120);

fn run(args: &[&str]) -> Output {
    Command::cargo_bin("inbetween")
        .expect("the binary is built")
        .args(args)
        .timeout(TIMEOUT)
        .output()
        .expect("the binary runs")
}

fn run_stdin(args: &[&str], stdin: &[u8]) -> Output {
    Command::cargo_bin("inbetween")
        .expect("the binary is built")
        .args(args)
        .write_stdin(stdin.to_vec())
        .timeout(TIMEOUT)
        .output()
        .expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[track_caller]
fn assert_exit(out: &Output, code: i32, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in: {err}");
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A document of one track named `name`, type `ty`, with `keys` (the JSON array).
fn doc(ty: &str, keys: &str) -> String {
    format!(r#"{{"inbetween": 1, "tracks": [{{"name": "t", "type": "{ty}", "keys": {keys}}}]}}"#)
}

const LINE: &str = r#"{"inbetween": 1, "tracks": [{"name": "p", "type": "vec3", "keys": [{"frame": 0, "value": [0, 0, 0], "interp": "step"}, {"frame": 4, "value": [4, 8, 12]}]}]}"#;

// ---------------------------------------------------------------- output safety

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn outputs_that_are_not_regular_files_are_refused_with_exit_3_and_kept() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "a.json", LINE);
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let folder = dir.path().join("folder");
    fs::create_dir(&folder).unwrap();
    // A link to the null device: were the check missing, the rename would replace the link, not
    // the device, so this test cannot harm the machine.
    let link = dir.path().join("null-link");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    for (target, kind) in [
        (&fifo, "a FIFO"),
        (&folder, "a directory"),
        (&link, "a character device"),
    ] {
        for args in [
            vec!["sample", s(&input), "-o", s(target)],
            vec!["compile", s(&input), "-o", s(target), "-q"],
            vec!["export", s(&input), "-o", s(target), "-q"],
        ] {
            let out = run(&args);
            assert_exit(&out, 3, &[kind, "only regular files", "-o -"]);
        }
    }
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(folder.is_dir());
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        4,
        "nothing else written"
    );
}

#[test]
fn dash_writes_the_same_bytes_to_standard_output_and_reports_to_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "a.json", LINE);
    let cases: [(&[&str], &str); 5] = [
        (&["sample", s(&input)], "out.csv"),
        (&["compile", s(&input)], "out.ibs"),
        (&["export", s(&input)], "out.gltf"),
        (&["plot", s(&input)], "out.svg"),
        (&["preview", s(&input)], "out.html"),
    ];
    for (args, name) in cases {
        let file = dir.path().join(name);
        let mut to_file = args.to_vec();
        to_file.extend(["-o", s(&file)]);
        let ran = run(&to_file);
        assert!(ran.status.success(), "{args:?}: {}", stderr(&ran));
        let mut to_stdout = args.to_vec();
        to_stdout.extend(["-o", "-"]);
        let out = run(&to_stdout);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(out.stdout, fs::read(&file).unwrap(), "{args:?}");
        assert!(!dir.path().join("-").exists());
    }
    // compile's table goes to standard error when the stream goes to standard output.
    let out = run(&["compile", s(&input), "-o", "-"]);
    assert!(stderr(&out).contains("max error"), "{}", stderr(&out));
    // play too.
    let stream = dir.path().join("out.ibs");
    let out = run(&["play", s(&stream), "-o", "-"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("frame,p.x,p.y,p.z\n0,0,0,0\n"));
}

#[test]
fn files_named_like_temporaries_are_never_removed() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "a.json", LINE);
    let mine = write(dir.path(), ".inbetween-notes.tmp", "the user's own file");
    let also = write(dir.path(), ".inbetween-XXXXXX.tmp", "and this one");
    for args in [
        vec!["sample", s(&input), "-o"],
        vec!["compile", s(&input), "-q", "-o"],
        vec!["export", s(&input), "-q", "-o"],
    ] {
        let mut args = args.clone();
        let out = dir.path().join("out");
        args.push(s(&out));
        assert!(run(&args).status.success());
    }
    assert_eq!(fs::read_to_string(&mine).unwrap(), "the user's own file");
    assert_eq!(fs::read_to_string(&also).unwrap(), "and this one");
}

// ---------------------------------------------------------------- limits

/// A document of `tracks` vec4 tracks over frames 0..=1 (4 columns each).
fn wide(tracks: usize) -> String {
    let list: Vec<String> = (0..tracks)
        .map(|i| {
            format!(
                r#"{{"name": "v{i}", "type": "vec4", "keys": [{{"frame": 0, "value": [0,0,0,0]}}, {{"frame": 1, "value": [1,1,1,1]}}]}}"#
            )
        })
        .collect();
    format!(r#"{{"inbetween": 1, "tracks": [{}]}}"#, list.join(","))
}

#[test]
fn sample_and_play_cap_values_not_rows() {
    let dir = tempfile::tempdir().unwrap();
    // 32 columns: 3 125 001 rows are 100 000 032 values, just over the 10^8 cap.
    let input = write(dir.path(), "wide.json", &wide(8));
    let out = run(&["sample", s(&input), "--from", "0", "--to", "3125000"]);
    assert_exit(
        &out,
        2,
        &[
            "3125001 rows × 32 columns = 100000032 values",
            "100000000",
            "--from/--to",
        ],
    );
    let stream = dir.path().join("wide.ibs");
    assert!(run(&["compile", s(&input), "-q", "-o", s(&stream)])
        .status
        .success());
    // 0..=40 000 at rate 0.01: 4 000 001 rows.
    let out = run(&[
        "play",
        s(&stream),
        "--from",
        "0",
        "--to",
        "40000",
        "--rate",
        "0.01",
    ]);
    assert_exit(
        &out,
        2,
        &["rows × 32 columns", "100000000 values", "--rate"],
    );
    // Within the cap it plays.
    let out = run(&["play", s(&stream), "--to", "1", "--rate", "0.5"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 4);
}

#[test]
fn endless_and_oversized_inputs_are_refused_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "a.json", LINE);
    let len = LINE.len().to_string();
    let short = (LINE.len() - 1).to_string();
    // Exactly the cap reads; one byte less is refused, naming the file and the cap.
    assert!(run(&["sample", s(&input), "--max-input-bytes", &len])
        .status
        .success());
    let out = run(&["sample", s(&input), "--max-input-bytes", &short]);
    assert_exit(&out, 1, &[s(&input), &short, "--max-input-bytes"]);
    // An input that never ends stops at the cap.
    #[cfg(target_os = "linux")]
    {
        let out = run(&["sample", "/dev/zero", "--max-input-bytes", "100000"]);
        assert_exit(&out, 1, &["/dev/zero", "100000"]);
        let out = run(&["play", "/dev/zero", "--max-input-bytes", "100000"]);
        assert_exit(&out, 1, &["/dev/zero", "100000"]);
    }
    // Standard input and FIFOs still work, and are capped too.
    let out = run_stdin(&["sample", "-", "--to", "1"], LINE.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "frame,p.x,p.y,p.z\n0,0,0,0\n1,0,0,0\n"
    );
    let out = run_stdin(&["sample", "-", "--max-input-bytes", "10"], LINE.as_bytes());
    assert_exit(&out, 1, &["<standard input>", "10 bytes"]);
    #[cfg(unix)]
    {
        let fifo = dir.path().join("in.pipe");
        mkfifo(&fifo);
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::write(fifo, LINE))
        };
        let out = run(&["sample", s(&fifo), "--to", "0"]);
        writer.join().unwrap().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "frame,p.x,p.y,p.z\n0,0,0,0\n"
        );
    }
}

#[test]
fn export_refuses_unbounded_baking_and_times_beyond_f32() {
    let dir = tempfile::tempdir().unwrap();
    let eased = doc(
        "vec3",
        r#"[{"frame": 0, "value": [0,0,0], "ease": "in_quad"}, {"frame": 1e300, "value": [1,1,1]}]"#,
    );
    let input = write(dir.path(), "eased.json", &eased);
    let out_file = dir.path().join("x.glb");
    let out = run(&["export", s(&input), "-o", s(&out_file)]);
    assert_exit(
        &out,
        1,
        &["eased.json: cannot export", "1e300 keys", "1000000"],
    );
    let far = doc(
        "vec3",
        r#"[{"frame": 0, "value": [0,0,0]}, {"frame": 1e300, "value": [1,1,1]}]"#,
    );
    let input = write(dir.path(), "far.json", &far);
    let out = run(&["export", s(&input), "-o", s(&out_file)]);
    assert_exit(&out, 1, &["far.json: cannot export", "time at frame 1e300"]);
    assert!(!out_file.exists());
}

#[test]
fn plots_of_extreme_numbers_end_and_explain() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("p.svg");
    let png = dir.path().join("p.png");
    // A constant at the largest f64 once looped forever; keys at ±1.7e308 panicked.
    for (name, keys, what) in [
        (
            "max.json",
            r#"[{"frame": 0, "value": 1.7976931348623157e308}, {"frame": 5, "value": 1.7976931348623157e308}]"#,
            ["value 1.7976931348623157e308", "beyond ±1e300"],
        ),
        (
            "both.json",
            r#"[{"frame": 0, "value": -1.7e308}, {"frame": 5, "value": 1.7e308}]"#,
            ["value -1.7e308", "beyond ±1e300"],
        ),
        // Keys this far apart are refused when the document is loaded (their span overflows).
        (
            "frames.json",
            r#"[{"frame": -1.7e308, "value": 0}, {"frame": 1.7e308, "value": 1}]"#,
            ["frame -1.7e308", "more than the limit"],
        ),
    ] {
        let input = write(dir.path(), name, &doc("scalar", keys));
        for out_path in [&svg, &png] {
            let out = run(&["plot", s(&input), "-o", s(out_path)]);
            assert_exit(&out, 1, &[name, what[0], what[1]]);
        }
    }
    // Values that overflow between keys (exp(709u) reaches 8e307): drawn without them, said so.
    let input = write(
        dir.path(),
        "over.json",
        &doc(
            "scalar",
            r#"[{"frame": 0, "value": 0, "interp": {"expr": "exp(709*u)"}}, {"frame": 5, "value": 1}]"#,
        ),
    );
    let out = run(&["plot", s(&input), "-o", s(&svg)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::read_to_string(&svg)
        .unwrap()
        .contains("values not finite or beyond ±1e300 left out"));
    // Values 1e300 apart draw.
    let input = write(
        dir.path(),
        "wide.json",
        &doc(
            "vec2",
            r#"[{"frame": 0, "value": [1e300, -1e300]}, {"frame": 5, "value": [-1e300, 1e300]}]"#,
        ),
    );
    for out_path in [&svg, &png] {
        let out = run(&["plot", s(&input), "-o", s(out_path)]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

#[test]
fn plot_caps_the_tracks_per_picture_and_suggests_track() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("p.svg");
    let many = |n: usize| {
        let list: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"name": "s{i}", "type": "scalar", "keys": [{{"frame": 0, "value": 0}}, {{"frame": 1, "value": {i}}}]}}"#))
            .collect();
        format!(r#"{{"inbetween": 1, "tracks": [{}]}}"#, list.join(","))
    };
    let input = write(dir.path(), "many.json", &many(101));
    let out = run(&["plot", s(&input), "-o", s(&svg)]);
    assert_exit(&out, 2, &["101 tracks", "(100)", "--track"]);
    assert!(!svg.exists());
    let out = run(&["plot", s(&input), "-o", s(&svg), "--track", "s7"]);
    assert!(out.status.success());
    let input = write(dir.path(), "hundred.json", &many(100));
    assert!(run(&["plot", s(&input), "-o", s(&svg)]).status.success());
}

// ---------------------------------------------------------------- messages

#[test]
fn every_refusal_of_sample_compile_and_export_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let expressions = [
        "1/(u-u)",
        "ln(-1)",
        "sqrt(-1)",
        "asin(2)",
        "exp(1000)",
        "1e308*10*u",
        // A pole between frames 5 and 6: sampling and baking integer frames never meet it (and
        // succeed); compiling, which checks the curve between frames, is refused.
        "1/(u-0.55)",
    ];
    for (i, expr) in expressions.iter().enumerate() {
        let name = format!("domain{i}.json");
        let input = write(
            dir.path(),
            &name,
            &doc(
                "vec3",
                &format!(
                    r#"[{{"frame": 0, "value": [0,0,0], "interp": {{"expr": ["{expr}", "u", "u"]}}}}, {{"frame": 10, "value": [1,1,1]}}]"#
                ),
            ),
        );
        let out_file = dir.path().join("out.bin");
        for args in [
            vec!["sample", s(&input)],
            vec!["compile", s(&input), "-o", s(&out_file)],
            vec![
                "export",
                s(&input),
                "-o",
                s(&out_file.with_extension("glb")),
            ],
        ] {
            if expr.contains("0.55") && args[0] != "compile" {
                continue;
            }
            let out = run(&args);
            // Warnings (the expression ends away from its next key) come first.
            let err = stderr(&out);
            let err = err.lines().last().unwrap_or_default();
            assert_eq!(out.status.code(), Some(1), "{expr} {args:?}: {err}");
            assert!(
                err.starts_with(&format!("error: {}: ", input.display())),
                "{expr} {:?}: {err}",
                args[0]
            );
        }
    }
}

#[test]
fn a_syntax_error_deep_in_a_long_line_shows_a_window_with_the_caret_under_it() {
    let dir = tempfile::tempdir().unwrap();
    // One line: 20 000 spaces, then a stray `]` where a value should be.
    let text = format!(r#"{{"inbetween": 1,{} "tracks": ]}}"#, " ".repeat(20_000));
    let input = write(dir.path(), "long.json", &text);
    let out = run(&["sample", s(&input)]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    let (snippet, caret) = (lines[1], lines[2]);
    assert!(snippet.chars().count() < 100, "{snippet}");
    assert!(snippet.starts_with("1 | …"), "{snippet}");
    let at = caret.chars().count() - 1;
    assert!(caret.ends_with('^'));
    assert_eq!(snippet.chars().nth(at), Some(']'), "{snippet}\n{caret}");
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "bom.json", &format!("\u{FEFF}{LINE}"));
    let out = run(&["sample", s(&input), "--to", "0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "frame,p.x,p.y,p.z\n0,0,0,0\n"
    );
}

#[test]
fn duplicate_keys_are_refused_naming_both_positions() {
    let dir = tempfile::tempdir().unwrap();
    let text = LINE.replace(r#""interp": "step""#, r#""interp": "step", "frame": 5"#);
    let input = write(dir.path(), "dup.json", &text);
    let out = run(&["sample", s(&input)]);
    assert_exit(
        &out,
        1,
        &[
            "dup.json",
            "duplicate key \"frame\"",
            "line 1, column",
            "first at line 1",
        ],
    );
    // The snippet's caret is under the repeated key.
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    let at = lines[2].chars().count() - 1;
    let from_caret: String = lines[1].chars().skip(at).take(7).collect();
    assert_eq!(from_caret, "\"frame\"", "{err}");
}

// ---------------------------------------------------------------- negative option values

#[test]
fn negative_option_values_are_numbers_then_validated() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "a.json", LINE);
    let stream = dir.path().join("a.ibs");
    assert!(run(&["compile", s(&input), "-q", "-o", s(&stream)])
        .status
        .success());
    // --rate -1 plays backward: the rows of --reverse.
    let backward = run(&["play", s(&stream), "--rate", "-1"]);
    let reverse = run(&["play", s(&stream), "--reverse"]);
    assert!(backward.status.success(), "{}", stderr(&backward));
    assert_eq!(backward.stdout, reverse.stdout);
    let text = String::from_utf8_lossy(&backward.stdout).into_owned();
    assert!(
        text.starts_with("frame,p.x,p.y,p.z\n4,4,8,12\n3,0,0,0\n"),
        "{text}"
    );
    // --rate -0.5 is --reverse --rate 0.5.
    let a = run(&["play", s(&stream), "--rate", "-0.5"]);
    let b = run(&["play", s(&stream), "--rate", "0.5", "--reverse"]);
    assert_eq!(a.stdout, b.stdout);
    // Negative frames are frames.
    let out = run(&["sample", s(&input), "--from", "-3e0", "--to", "-2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "frame,p.x,p.y,p.z\n-3,0,0,0\n-2,0,0,0\n"
    );
    // Negative tolerance and fps: clear usage errors.
    let out = run(&["compile", s(&input), "--tolerance", "-1", "-o", s(&stream)]);
    assert_exit(&out, 2, &["--tolerance must be a positive number", "-1"]);
    let html = dir.path().join("a.html");
    let out = run(&["preview", s(&input), "--tolerance", "-1e-3", "-o", s(&html)]);
    assert_exit(&out, 2, &["--tolerance must be a positive number"]);
    let gltf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/gltf/box_animated.gltf");
    let out = run(&["import", s(&gltf), "--fps", "-30"]);
    assert_exit(&out, 2, &["--fps must be a positive", "-30"]);
    let out = run(&["play", s(&stream), "--rate", "0"]);
    assert_exit(&out, 2, &["--rate must be a finite non-zero number"]);
}

#[test]
fn a_default_range_beyond_two_to_the_53_is_refused_not_printed_empty() {
    let dir = tempfile::tempdir().unwrap();
    let far = write(
        dir.path(),
        "far.json",
        &doc(
            "scalar",
            r#"[{"frame": 0, "value": 0}, {"frame": 1e300, "value": 1}]"#,
        ),
    );
    // Once: a header alone and status 0.
    let out = run(&["sample", s(&far)]);
    assert_exit(
        &out,
        1,
        &["far.json", "track \"t\"", "2^53", "give an explicit range"],
    );
    assert!(out.stdout.is_empty());
    // With an explicit range the same document samples.
    let out = run(&["sample", s(&far), "--from", "0", "--to", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 4);
}
