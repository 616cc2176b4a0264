//! What a new user sees (issue 15): typos warned with the nearest name, `--strict`, numbers rounded to the tolerance, messages that say what to do, a clean showcase, and commands that agree.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use assert_cmd::Command;

fn inbetween() -> Command {
    Command::cargo_bin("inbetween").expect("the binary is built")
}

fn run(args: &[&str]) -> Output {
    inbetween().args(args).output().expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("UTF-8 output")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn showcase() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/showcase.json")
}

/// A scalar track from 0 to 1 over frames 0..=10, with `key0` spliced into the first key.
fn scalar_doc(key0: &str) -> String {
    format!(
        r#"{{"inbetween": 1, "tracks": [{{"name": "a", "type": "scalar", "keys": [
        {{"frame": 0, "value": 0{key0}}}, {{"frame": 10, "value": 1}}]}}]}}"#
    )
}

// ---------------------------------------------------------------- 2. typos

#[test]
fn misspelled_fields_are_warned_with_the_nearest_name_and_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "typo.json",
        r#"{"inbetween": 1, "Fps": 30, "tracks": [{"name": "a", "type": "scalar", "keys": [
        {"frame": 0, "value": 0, "interpolation": "step"}, {"frame": 10, "value": 1}]}]}"#,
    );
    let out = run(&["sample", s(&input), "--to", "1"]);
    assert!(out.status.success());
    let name = input.display();
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {name}: field \"Fps\": unknown field, ignored; did you mean \"fps\"?\n\
             warning: {name}: track \"a\" (#0), key 0, field \"interpolation\": unknown field, \
             ignored; did you mean \"interp\"?\n"
        )
    );
    // Ignored: linear, not step.
    assert_eq!(stdout(&out), "frame,a\n0,0\n1,0.1\n");
}

#[test]
fn strict_refuses_a_document_with_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "typo.json",
        &scalar_doc(r#", "Ease": "in_quad""#),
    );
    let out = run(&["--strict", "sample", s(&input)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing printed");
    let err = stderr(&out);
    assert!(
        err.ends_with(&format!(
            "error: {}: 1 warning, refused by --strict\n",
            input.display()
        )),
        "{err}"
    );
    assert!(err.contains("did you mean \"ease\"?"), "{err}");
}

#[test]
fn fields_kept_on_purpose_are_silent_even_when_strict() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "extra.json",
        r#"{"inbetween": 1, "comment": "made by hand", "x-editor": {"zoom": 2}, "tracks": [
        {"name": "a", "type": "scalar", "x-color": "red", "keys": [
        {"frame": 0, "value": 0, "comment": "start"}, {"frame": 10, "value": 1}]}]}"#,
    );
    let out = run(&["--strict", "sample", s(&input), "--to", "0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn a_field_far_from_any_name_says_how_to_keep_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "odd.json", &scalar_doc(r#", "banana": 3"#));
    let out = run(&["sample", s(&input), "--to", "0"]);
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {}: track \"a\" (#0), key 0, field \"banana\": unknown field, ignored \
             (name a field kept on purpose \"comment\" or start it with \"x-\")\n",
            input.display()
        )
    );
}

#[test]
fn bad_names_suggest_the_nearest_allowed_one() {
    let dir = tempfile::tempdir().unwrap();
    for (key0, field, found, suggestion) in [
        (
            r#", "interp": "catmull-rom""#,
            "interp",
            "catmull-rom",
            "catmull_rom",
        ),
        (
            r#", "ease": "in_out_sin""#,
            "ease",
            "in_out_sin",
            "in_out_sine",
        ),
        (
            r#", "interp": {"hermit": {"out": 0, "in": 0}}"#,
            "interp",
            "",
            "hermite",
        ),
    ] {
        let input = write(dir.path(), "bad.json", &scalar_doc(key0));
        let out = run(&["sample", s(&input)]);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!(
                "error: {}: track \"a\" (#0), key 0, field \"{field}\": expected ",
                input.display()
            )),
            "{err}"
        );
        assert!(
            err.ends_with(&format!("; did you mean \"{suggestion}\"?\n")),
            "{err}"
        );
        assert!(err.contains(found), "{err}");
    }
    let input = write(
        dir.path(),
        "wrap.json",
        r#"{"inbetween": 1, "tracks": [{"name": "a", "type": "colour", "wrap": "pingpong", "keys": [{"frame": 0, "value": [0, 0, 0, 1]}]}]}"#,
    );
    let err = stderr(&run(&["sample", s(&input)]));
    assert!(
        err.ends_with("found the string \"colour\"; did you mean \"color\"?\n"),
        "{err}"
    );
}

#[test]
fn a_bad_ease_lists_every_ease_name() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "bad.json", &scalar_doc(r#", "ease": "wobbly""#));
    let err = stderr(&run(&["sample", s(&input)]));
    for name in inbetween::Ease::names() {
        assert!(
            err.contains(&format!("\"{name}\"")),
            "{name} missing: {err}"
        );
    }
    assert!(!err.contains("..."), "{err}");
    assert!(!err.contains("did you mean"), "{err}");
}

// ---------------------------------------------------------------- 4. rotations (warning)

#[test]
fn a_quaternion_written_as_angles_is_warned() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "q.json",
        r#"{"inbetween": 1, "tracks": [{"name": "r", "type": "quat", "keys": [
        {"frame": 0, "value": [0, 0, 0, 1]}, {"frame": 10, "value": [0, 90, 0, 1]}]}]}"#,
    );
    let out = run(&["sample", s(&input), "--to", "0"]);
    assert!(out.status.success());
    // |q| = √8101 = 90.00556; the normalized turn is 2·acos(1/|q|) = 178.7268°.
    let length = 8101f64.sqrt();
    let degrees = 2.0 * (1.0 / length).acos().to_degrees();
    assert_eq!(format!("{length:.5} {degrees:.4}"), "90.00556 178.7268");
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {}: track \"r\" (#0), key 1, field \"value\": quaternion of length \
             90.00556 normalized to a turn of 178.7268°; is it (x, y, z, w) and not angles?\n",
            input.display()
        )
    );
}

// ---------------------------------------------------------------- 1. numbers

/// Compiles `doc` into `dir` and returns the stream's path.
fn compiled(dir: &Path, doc: &str) -> PathBuf {
    let input = write(dir, "doc.json", doc);
    let ibs = dir.join("doc.ibs");
    let out = run(&["compile", s(&input), "-q", "-o", s(&ibs)]);
    assert!(out.status.success(), "{}", stderr(&out));
    ibs
}

#[test]
fn played_noise_prints_as_round_numbers() {
    let dir = tempfile::tempdir().unwrap();
    // sin(2πu) is 0 at both keys; exactly it is 1.2246e-16 at frame 5 (sin π in f64), which
    // `sample` prints in full and `play` rounds to the tolerance 1e-6 (8 decimals).
    let ibs = compiled(
        dir.path(),
        r#"{"inbetween": 1, "tracks": [{"name": "a", "type": "scalar", "keys": [
        {"frame": 0, "value": 0, "interp": {"expr": "sin(2*pi*u)"}}, {"frame": 10, "value": 0}]}]}"#,
    );
    let exact = stdout(&run(&[
        "sample",
        s(&dir.path().join("doc.json")),
        "--from",
        "5",
        "--to",
        "5",
    ]));
    assert_eq!(exact, "frame,a\n5,0.00000000000000012246467991473532\n");
    let played = stdout(&run(&["play", s(&ibs)]));
    let rows: Vec<&str> = played.lines().collect();
    assert_eq!(rows[6], "5,0");
    // sin(2π/10) = 0.58778525229247...: at most 8 decimals, within the tolerance.
    let (frame, value) = rows[2].split_once(',').unwrap();
    assert_eq!(frame, "1");
    assert!(value.len() <= "0.".len() + 8, "{value}");
    let exact = (std::f64::consts::TAU / 10.0).sin();
    assert!(
        (value.parse::<f64>().unwrap() - exact).abs() <= 1e-6,
        "{value}"
    );
    let short = stdout(&run(&["play", s(&ibs), "--digits", "2", "--to", "1"]));
    assert_eq!(short, "frame,a\n0,0\n1,0.59\n");
    let sampled = stdout(&run(&[
        "sample",
        s(&dir.path().join("doc.json")),
        "--digits",
        "3",
        "--to",
        "1",
    ]));
    assert_eq!(sampled, "frame,a\n0,0\n1,0.588\n");
}

#[test]
fn played_quaternions_have_unit_length() {
    let dir = tempfile::tempdir().unwrap();
    let ibs = compiled(
        dir.path(),
        r#"{"inbetween": 1, "tracks": [{"name": "r", "type": "quat", "keys": [
        {"frame": 0, "value": [0, 0, 0, 1], "interp": "tcb"},
        {"frame": 7, "value": [0, 0.7071067811865476, 0, 0.7071067811865476], "interp": "tcb"},
        {"frame": 19, "value": [0.5, 0.5, 0.5, 0.5], "interp": "tcb"},
        {"frame": 30, "value": [1, 0, 0, 0]}]}]}"#,
    );
    for precision_digits in ["17", "8"] {
        let played = stdout(&run(&["play", s(&ibs), "--digits", precision_digits]));
        // Rounding each of 4 components to d decimals moves |q| by at most 2·0.5·10^-d.
        let allowed = if precision_digits == "17" {
            4e-16
        } else {
            1.1e-8
        };
        for row in played.lines().skip(1) {
            let q: Vec<f64> = row.split(',').skip(1).map(|c| c.parse().unwrap()).collect();
            let length = q.iter().map(|c| c * c).sum::<f64>().sqrt();
            assert!((length - 1.0).abs() <= allowed, "{row}: |q| = {length}");
        }
    }
}

#[test]
fn sample_rate_steps_like_play_rate() {
    let dir = tempfile::tempdir().unwrap();
    let ibs = compiled(dir.path(), &scalar_doc(""));
    let doc = dir.path().join("doc.json");
    let sampled = stdout(&run(&["sample", s(&doc), "--rate", "0.25", "--to", "1"]));
    assert_eq!(
        sampled,
        "frame,a\n0,0\n0.25,0.025\n0.5,0.05\n0.75,0.075\n1,0.1\n"
    );
    let played = stdout(&run(&["play", s(&ibs), "--rate", "0.25", "--to", "1"]));
    assert_eq!(played, sampled);
    // As typed: a negative rate, and a fraction.
    let back = stdout(&run(&["play", s(&ibs), "--rate", "-1", "--from", "8"]));
    assert_eq!(back, "frame,a\n10,1\n9,0.9\n8,0.8\n");
    let third = stdout(&run(&[
        "sample",
        s(&doc),
        "--rate",
        "1/3",
        "--to",
        "1",
        "--digits",
        "4",
    ]));
    assert_eq!(
        third,
        "frame,a\n0,0\n0.333333333,0.0333\n0.666666667,0.0667\n1,0.1\n"
    );
    let json = stdout(&run(&[
        "sample",
        s(&doc),
        "--rate",
        "0.5",
        "--to",
        "1",
        "--format",
        "json",
    ]));
    assert_eq!(
        json,
        "{\"fps\":60,\"frames\":[0,0.5,1],\"tracks\":[{\"name\":\"a\",\"type\":\"scalar\",\"values\":[0,0.05,0.1]}]}\n"
    );
}

// ---------------------------------------------------------------- 6. messages

#[test]
fn a_stream_given_to_sample_and_a_document_given_to_play_say_which_command() {
    let dir = tempfile::tempdir().unwrap();
    let ibs = compiled(dir.path(), &scalar_doc(""));
    let doc = dir.path().join("doc.json");
    let out = run(&["sample", s(&ibs)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {0}: this is a compiled stream, not an animation document; use `inbetween \
             play {0}` (or `inbetween inspect {0}`)\n",
            ibs.display()
        )
    );
    let out = run(&["play", s(&doc)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {0}: this is an animation document, not a compiled stream; compile it \
             first: `inbetween compile {0} -o anim.ibs`, then play anim.ibs (`inbetween sample \
             {0}` prints its exact values)\n",
            doc.display()
        )
    );
}

#[test]
fn an_output_in_a_missing_folder_names_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(dir.path(), "doc.json", &scalar_doc(""));
    let missing = dir.path().join("no-such-folder");
    for (command, name) in [
        ("sample", "out.csv"),
        ("compile", "out.ibs"),
        ("plot", "out.svg"),
        ("preview", "out.html"),
        ("export", "out.glb"),
    ] {
        let target = missing.join(name);
        let out = run(&[command, s(&doc), "-o", s(&target)]);
        assert_eq!(out.status.code(), Some(3), "{command}");
        assert_eq!(
            stderr(&out),
            format!(
                "error: cannot write {}: the folder {} does not exist; create it first\n",
                target.display(),
                missing.display()
            ),
            "{command}"
        );
    }
}

#[test]
fn a_non_finite_expression_names_the_file_key_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(
        dir.path(),
        "ln.json",
        r#"{"inbetween": 1, "tracks": [{"name": "a", "type": "scalar", "keys": [
        {"frame": 0, "value": 0, "interp": {"expr": "ln(u)"}}, {"frame": 10, "value": 0}]}]}"#,
    );
    let out = run(&["sample", s(&doc), "--from", "0", "--to", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).ends_with(&format!(
            "error: {}: track \"a\", key 0, field \"interp.expr\": the value at frame 0 is not \
             finite ([-inf])\n",
            doc.display()
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn from_after_to_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(dir.path(), "doc.json", &scalar_doc(""));
    let ibs = compiled(dir.path(), &scalar_doc(""));
    for args in [
        vec!["sample", s(&doc), "--from", "5", "--to", "2"],
        vec!["play", s(&ibs), "--from", "5", "--to", "2"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            stderr(&out),
            "error: --from 5 is after --to 2; give --from ≤ --to (--reverse or a negative --rate \
             plays backward)\n"
        );
    }
}

#[test]
fn dash_reads_standard_input() {
    let out = inbetween()
        .args(["sample", "-", "--to", "1"])
        .write_stdin(scalar_doc(""))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "frame,a\n0,0\n1,0.1\n");
}

/// Runs `inbetween ARGS`, reads the first 10 bytes of its output and closes the pipe, as
/// `| head -c 10` does; returns those bytes and what the command left.
fn closed_pipe(args: &[&str]) -> ([u8; 10], Output) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("inbetween"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    (first, child.wait_with_output().unwrap())
}

#[test]
fn a_closed_pipe_ends_quietly_with_status_0() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(dir.path(), "doc.json", &scalar_doc(""));
    // About 1.5 MB of CSV, far beyond a pipe's buffer: the reader takes 10 bytes and goes.
    let (first, out) = closed_pipe(&["sample", s(&doc), "--to", "100000"]);
    assert_eq!(&first, b"frame,a\n0,");
    assert_eq!(stderr(&out), "");
    assert_eq!(out.status.code(), Some(0));
    // The demo prints its report line by line (and takes a while: the pipe is closed early).
    let (first, out) = closed_pipe(&["demo", "--out-dir", s(&dir.path().join("demo"))]);
    assert_eq!(&first, b"inbetween ");
    assert_eq!(stderr(&out), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn export_refuses_an_extension_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(dir.path(), "doc.json", &scalar_doc(""));
    let target = dir.path().join("out.fbx");
    let out = run(&["export", s(&doc), "-o", s(&target)]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "error: cannot tell the glTF container of {}: the output must end in .gltf or .glb\n",
            target.display()
        )
    );
    assert!(!target.exists());
}

// ---------------------------------------------------------------- 7. showcase

#[test]
fn the_showcase_loads_without_warnings() {
    let out = run(&["--strict", "sample", s(&showcase()), "--to", "0"]);
    assert!(out.status.success());
    assert_eq!(stderr(&out), "");
}

#[test]
fn an_expression_ending_away_from_its_next_key_is_warned() {
    let dir = tempfile::tempdir().unwrap();
    // 5·u ends at 5; the next key holds 1: a jump of 4 at frame 10 (tolerance 1e-6 × scale 1).
    let doc = write(
        dir.path(),
        "jump.json",
        r#"{"inbetween": 1, "tracks": [{"name": "a", "type": "scalar", "keys": [
        {"frame": 0, "value": 0, "interp": {"expr": "5*u"}}, {"frame": 10, "value": 1}]}]}"#,
    );
    let out = run(&["sample", s(&doc), "--from", "9", "--to", "10"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "frame,a\n9,4.5\n10,1\n");
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {}: track \"a\" (#0), key 0, field \"interp.expr\": the expression ends 4 \
             away from the next key's value, more than the tolerance 0.000001: the track jumps \
             at frame 10\n",
            doc.display()
        )
    );
}

// ---------------------------------------------------------------- 10. consistent commands

#[test]
fn writing_commands_default_beside_the_input_and_say_what_they_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(
        dir.path(),
        "walk.json",
        r#"{"inbetween": 1, "tracks": [{"name": "hips/translation", "type": "vec3", "keys": [
        {"frame": 0, "value": [0, 0, 0]}, {"frame": 10, "value": [1, 0, 0]}]}]}"#,
    );
    for (command, extension) in [
        ("compile", "ibs"),
        ("plot", "svg"),
        ("preview", "html"),
        ("export", "glb"),
    ] {
        let expected = dir.path().join(format!("walk.{extension}"));
        let out = run(&[command, s(&doc)]);
        assert!(out.status.success(), "{command}: {}", stderr(&out));
        let bytes = fs::metadata(&expected).unwrap().len();
        let report = stdout(&out);
        assert!(
            report.ends_with(&format!("{bytes} bytes → {}\n", expected.display())),
            "{command}: {report}"
        );
        fs::remove_file(&expected).unwrap();
        let quiet = run(&[command, s(&doc), "-q"]);
        assert!(quiet.status.success());
        assert!(quiet.stdout.is_empty(), "{command} -q");
        assert!(expected.is_file());
    }
}

// ---------------------------------------------------------------- 4. rotations for humans

/// Blender's own quaternions (`mathutils`, float32) for `angles` in every Euler order and for
/// the axis-angle `axis`, `angle`; `None` when Blender is not installed.
fn blender_quaternions(angles: [f64; 3], axis: [f64; 3], angle: f64) -> Option<Vec<[f64; 4]>> {
    let script = format!(
        "import mathutils, math\n\
         a = [math.radians(x) for x in {angles:?}]\n\
         for order in ['XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX']:\n\
         \x20   q = mathutils.Euler(a, order).to_quaternion()\n\
         \x20   print('Q', q.x, q.y, q.z, q.w)\n\
         q = mathutils.Quaternion(mathutils.Vector({axis:?}).normalized(), math.radians({angle}))\n\
         print('Q', q.x, q.y, q.z, q.w)\n"
    );
    let out = std::process::Command::new("blender")
        .args([
            "--background",
            "--factory-startup",
            "--python-expr",
            &script,
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let quats: Vec<[f64; 4]> = text
        .lines()
        .filter_map(|l| l.strip_prefix("Q "))
        .map(|l| {
            let v: Vec<f64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2], v[3]]
        })
        .collect();
    (quats.len() == 7).then_some(quats)
}

#[test]
fn euler_and_axis_angle_keys_give_blenders_quaternions() {
    let (angles, axis, angle) = ([30.0, -45.0, 160.0], [1.0, 2.0, -0.5], 75.0);
    let orders = ["xyz", "xzy", "yxz", "yzx", "zxy", "zyx"];
    let mut keys: Vec<String> = orders
        .iter()
        .enumerate()
        .map(|(i, o)| {
            format!(r#"{{"frame": {i}, "value": {{"euler": {angles:?}, "order": "{o}"}}, "interp": "step"}}"#)
        })
        .collect();
    keys.push(format!(
        r#"{{"frame": 6, "value": {{"axis": {axis:?}, "angle": {angle}}}}}"#
    ));
    let dir = tempfile::tempdir().unwrap();
    let doc = write(
        dir.path(),
        "euler.json",
        &format!(
            r#"{{"inbetween": 1, "tracks": [{{"name": "r", "type": "quat", "keys": [{}]}}]}}"#,
            keys.join(",")
        ),
    );
    let out = run(&["--strict", "sample", s(&doc)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let ours: Vec<[f64; 4]> = stdout(&out)
        .lines()
        .skip(1)
        .map(|l| {
            let v: Vec<f64> = l.split(',').skip(1).map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2], v[3]]
        })
        .collect();
    let Some(theirs) = blender_quaternions(angles, axis, angle) else {
        eprintln!("Blender not installed: the Euler test is skipped");
        return;
    };
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        // q and −q are the same rotation; Blender computes in float32.
        let same = |sign: f64| a.iter().zip(b).all(|(x, y)| (x - sign * y).abs() < 2e-6);
        assert!(
            same(1.0) || same(-1.0),
            "key {i}: ours {a:?}, Blender {b:?}"
        );
    }
}

#[test]
fn a_rotation_object_with_a_bad_order_suggests_the_nearest() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(
        dir.path(),
        "bad.json",
        r#"{"inbetween": 1, "tracks": [{"name": "r", "type": "quat", "keys": [
        {"frame": 0, "value": {"euler": [0, 90, 0], "order": "XZY"}}]}]}"#,
    );
    let out = run(&["sample", s(&doc)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "error: {}: track \"r\" (#0), key 0, field \"value.order\": expected one of \"xyz\", \
             \"xzy\", \"yxz\", \"yzx\", \"zxy\", \"zyx\", found the string \"XZY\"; did you mean \
             \"xzy\"?\n",
            doc.display()
        )
    );
}

#[test]
fn the_demo_tables_keep_their_columns_for_every_track_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["demo", "--out-dir", s(&dir.path().join("demo"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let mut tables = 0;
    for table in text
        .split("\n\n")
        .filter(|t| t.contains("\ntrack ") || t.starts_with("track "))
    {
        let lines: Vec<&str> = table
            .lines()
            .skip_while(|l| !l.starts_with("track "))
            .collect();
        // The second column starts where the header's does, in every row.
        let column = |line: &str| {
            let name_end = line.find(' ').unwrap();
            name_end + line[name_end..].find(|c: char| c != ' ').unwrap()
        };
        let header = column(lines[0]);
        for row in lines[1..].iter().take_while(|l| !l.starts_with('→')) {
            assert_eq!(column(row), header, "{row}");
        }
        tables += 1;
    }
    assert!(tables >= 4, "{text}");
}

// ---------------------------------------------------------------- 5. plot options

#[test]
fn plot_takes_repeated_tracks_and_patterns_and_says_what_it_drew() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("some.svg");
    let out = run(&[
        "plot",
        s(&showcase()),
        "--track",
        "glide*",
        "--track",
        "ball",
        "-o",
        s(&out_file),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = fs::read_to_string(&out_file).unwrap();
    let drawn: Vec<&str> = svg
        .split("data-track=\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect();
    let mut names: Vec<&str> = drawn.clone();
    names.dedup();
    // Document order, each once (a vec2 track has a curve panel and a path panel).
    assert_eq!(names, ["ball", "glide_keys", "glide", "glide_eased"]);
    assert_eq!(
        stdout(&out),
        format!(
            "plot of 4 tracks (SVG): {} bytes → {}\n",
            svg.len(),
            out_file.display()
        )
    );
    let none = run(&[
        "plot",
        s(&showcase()),
        "--track",
        "nothing*",
        "-o",
        s(&out_file),
    ]);
    assert_eq!(none.status.code(), Some(2));
    assert!(stderr(&none).starts_with(
        "error: --track \"nothing*\": no such track; the document has ball, lissajous"
    ));
}

#[test]
fn sample_and_play_into_a_file_say_what_they_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let ibs = compiled(dir.path(), &scalar_doc(""));
    let doc = dir.path().join("doc.json");
    let csv = dir.path().join("out.csv");
    for args in [
        vec!["sample", s(&doc), "-o", s(&csv)],
        vec!["play", s(&ibs), "-o", s(&csv)],
    ] {
        let out = run(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let bytes = fs::metadata(&csv).unwrap().len();
        // Frames 0..=10: 11 rows of one value.
        assert_eq!(
            stdout(&out),
            format!("11 rows × 1 columns, {bytes} bytes → {}\n", csv.display()),
            "{args:?}"
        );
        let mut quiet = args.clone();
        quiet.push("-q");
        assert!(run(&quiet).stdout.is_empty(), "{args:?} -q");
    }
}

#[test]
fn plot_width_height_and_plane_shape_the_picture() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("w.svg");
    let out = run(&[
        "plot",
        s(&showcase()),
        "--track",
        "wobble",
        "--width",
        "800",
        "--height",
        "300",
        "--plane",
        "yz",
        "-q",
        "-o",
        s(&out_file),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = fs::read_to_string(&out_file).unwrap();
    // One row: the picture is 800 × 300.
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"300\""),
        "{}",
        &svg[..120]
    );
    assert!(
        svg.contains("wobble (y, z)"),
        "the path panel names its plane"
    );
    let small = run(&["plot", s(&showcase()), "--width", "10", "-o", s(&out_file)]);
    assert_eq!(small.status.code(), Some(2));
}

#[test]
fn a_colour_track_gets_a_strip_of_its_colours() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("fade.svg");
    let out = run(&[
        "plot",
        s(&showcase()),
        "--track",
        "fade",
        "-q",
        "-o",
        s(&out_file),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = fs::read_to_string(&out_file).unwrap();
    // Key 1 of `fade` (frame 45) is [1, 0.8, 0.1, 1]: (255, 204, 26) opaque. Key 3 (frame 120)
    // is [0.1, 0.4, 1, 0]: fully transparent, so white.
    let cells = |fill: &str| {
        svg.matches(&format!("fill=\"{fill}\" stroke=\"none\"/>"))
            .count()
    };
    assert!(cells("#FFCC1A") >= 1, "frame 45's colour");
    assert!(cells("#FFFFFF") >= 1, "frame 120, transparent");
    // One cell per integer frame 0..=120.
    let strip = svg
        .split("<rect")
        .skip(1)
        .filter(|r| r.contains("height=\"10\"") && r.contains("stroke=\"none\""))
        .count();
    assert_eq!(strip, 121);
}
