//! `inbetween sample` on documents exported from Blender prints Blender's own values (tests/blender fixtures).

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value as Json;

/// Blender evaluates in float32; see crates/inbetween/tests/blender_fcurves.rs for the bound
/// used where its own rounding exceeds this.
const TOLERANCE: f64 = 2e-5;

/// Runs `inbetween` with `args`, requiring success; its standard output.
fn run(args: &[&std::ffi::OsStr]) -> Vec<u8> {
    let out = Command::cargo_bin("inbetween")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn sample_prints_blenders_values_for_an_exported_document() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/blender");
    let document = dir.join("case2.json");
    let values: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case2.values.json")).unwrap())
            .unwrap();
    let stdout = run(&[
        "sample".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "--from".as_ref(),
        "-60".as_ref(),
        "--to".as_ref(),
        "90".as_ref(),
        document.as_os_str(),
    ]);
    let printed: Json = serde_json::from_slice(&stdout).unwrap();
    let frames: Vec<f64> = printed["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_f64().unwrap())
        .collect();
    let (mut compared, mut within) = (0, 0);
    for track in printed["tracks"].as_array().unwrap() {
        let blender = &values["tracks"][track["name"].as_str().unwrap()];
        let start = blender["start"].as_f64().unwrap();
        let step = blender["step"].as_f64().unwrap();
        let samples = blender["values"].as_array().unwrap();
        for (frame, ours) in frames.iter().zip(track["values"].as_array().unwrap()) {
            let index = (frame - start) / step;
            let Some(expected) = samples.get(index as usize).filter(|_| index >= 0.0) else {
                continue;
            };
            let (expected, ours) = (expected.as_f64().unwrap(), ours.as_f64().unwrap());
            compared += 1;
            if (ours - expected).abs() <= TOLERANCE * expected.abs().max(1.0) {
                within += 1;
            }
        }
    }
    // The library test accounts for each sample past 2e-5 (Blender's float32 rounding); here
    // all but a handful must be within 2e-5 outright.
    assert!(compared > 1000, "only {compared} frames compared");
    assert!(
        compared - within <= compared / 500,
        "{within} of {compared} within {TOLERANCE}"
    );
}

#[test]
fn plot_draws_the_handles_of_bezier_2d_keys() {
    let dir = tempfile_dir();
    let svg = dir.join("blender.svg");
    let showcase = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/showcase.json");
    run(&[
        "plot".as_ref(),
        showcase.as_os_str(),
        "--track".as_ref(),
        "blender".as_ref(),
        "-o".as_ref(),
        svg.as_os_str(),
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    // Keys 0..3 of the showcase's `blender` track: segments 0 and 1 are bezier_2d, segment 2 an
    // easing, so key 0's right handle, both of key 1's and key 2's left one are drawn (radius 3).
    let handles = text.matches("r=\"3\"").count();
    assert_eq!(handles, 4, "handle markers in\n{text}");
    assert!(text.contains("bezier_2d") && text.contains("elastic out"));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("inbetween-blender-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `inspect` names what each side of a track with an outside record plays, not a wrap the
/// stream does not use: the showcase's `blender` track holds before its keys and, past its two
/// counted cycles, plays the keys' extrapolation (a line).
#[test]
fn inspect_names_each_side_of_an_outside_record() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let showcase = root.join("examples/showcase.json");
    let out = Command::cargo_bin("inbetween")
        .expect("the binary is built")
        .arg("inspect")
        .arg(&showcase)
        .output()
        .expect("inspect runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.starts_with("blender "))
        .expect("a blender row");
    assert!(row.contains(" hold|line "), "{row}");
    let ball = text
        .lines()
        .find(|l| l.starts_with("ball "))
        .expect("a ball row");
    assert!(!ball.contains('|'), "{ball}");
}
