//! Lottie files against lottie-web (npm lottie-web 5.13 in headless Debian chromium): every imported property at every whole frame where its layer is visible, as `inbetween sample` prints it and as the compiled stream plays it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use inbetween::lottie_import::{import_lottie, LottieImport};
use serde_json::{json, Value as Json};

/// Agreement asked of every property but spatial Bezier positions: 1e-5 × max(1, value range).
const TOLERANCE: f64 = 1e-5;

/// Bound for spatial-Bezier positions (`path: segment_arclength`), × max(1, value range):
/// lottie-web places the point by a 150-point polyline table of each segment (its
/// `defaultCurveSegments`) and linear interpolation in it, where we solve the exact arc length.
/// The largest difference measured over the corpus and fixtures is 4.85e-5 of the value range
/// (tests/lottie/transforms.json, Box/Shapes/Ellipse/position.y at frame 17; docs/lottie.md);
/// this bound keeps a margin of about 2× over it.
const SPATIAL_TOLERANCE: f64 = 1e-4;

fn inbetween() -> Command {
    Command::cargo_bin("inbetween").unwrap()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The corpus's Lottie files and the generated fixtures.
fn lottie_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [
        repo().join("tests/corpus/lottie"),
        repo().join("tests/lottie"),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Whether chromium, node and the npm packages are installed; when not, the test is skipped
/// (failing instead under INBETWEEN_REQUIRE_BROWSER=1, as .ci/run sets).
fn browser_available(tools: &Path) -> bool {
    let chromium = Path::new("/usr/bin/chromium").exists();
    let packages = tools.join("node_modules/playwright-core").exists()
        && tools.join("node_modules/lottie-web").exists();
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if chromium && packages && node {
        return true;
    }
    let missing = format!("chromium: {chromium}, node: {node}, npm packages: {packages}");
    assert!(
        std::env::var_os("INBETWEEN_REQUIRE_BROWSER").is_none(),
        "INBETWEEN_REQUIRE_BROWSER=1 but the lottie-web test cannot run ({missing})"
    );
    eprintln!("lottie-web test skipped ({missing}); see .ci/run");
    false
}

/// A CSV of `frame` then value columns → column name → frame → value.
fn parse_csv(text: &str) -> BTreeMap<String, BTreeMap<i64, f64>> {
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(|c| c.trim_matches('"').to_string())
        .collect();
    let mut out: BTreeMap<String, BTreeMap<i64, f64>> = BTreeMap::new();
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        let frame: i64 = fields[0].parse().unwrap();
        for (name, field) in header.iter().zip(&fields).skip(1) {
            out.entry(name.clone())
                .or_default()
                .insert(frame, field.parse().unwrap());
        }
    }
    out
}

/// `inbetween sample` and `inbetween compile --tolerance 1e-6` + `play` of `file` over root
/// frames [from, to].
fn ours(file: &Path, dir: &Path, from: i64, to: i64) -> [BTreeMap<String, BTreeMap<i64, f64>>; 2] {
    let range = [
        "--from".to_string(),
        from.to_string(),
        "--to".to_string(),
        to.to_string(),
    ];
    let sample = inbetween()
        .arg("sample")
        .arg(file)
        .args(&range)
        .output()
        .unwrap();
    assert!(
        sample.status.success(),
        "{}",
        String::from_utf8_lossy(&sample.stderr)
    );
    let stream = dir.join("anim.ibs");
    // 1e-6 in value units for every track, so the stream's own error stays well inside the
    // 1e-5 × max(1, range) asked even for a track whose values are large but barely move.
    inbetween()
        .arg("compile")
        .arg(file)
        .args(["--tolerance", "1e-6"])
        .arg("-o")
        .arg(&stream)
        .assert()
        .success();
    let play = inbetween()
        .arg("play")
        .arg(&stream)
        .args(&range)
        .output()
        .unwrap();
    assert!(
        play.status.success(),
        "{}",
        String::from_utf8_lossy(&play.stderr)
    );
    [
        parse_csv(&String::from_utf8_lossy(&sample.stdout)),
        parse_csv(&String::from_utf8_lossy(&play.stdout)),
    ]
}

/// Runs tools/browser-test/lottie.mjs: lottie-web's values of every track's property.
fn lottie_web(tools: &Path, file: &Path, import: &LottieImport, dir: &Path) -> Json {
    let origins: Vec<Json> = import
        .origins
        .iter()
        .map(|o| {
            json!({"track": o.track, "layers": o.layers, "pointer": o.pointer, "component": o.component})
        })
        .collect();
    let origins_file = dir.join("origins.json");
    std::fs::write(&origins_file, Json::from(origins).to_string()).unwrap();
    let out_file = dir.join("values.json");
    let out = std::process::Command::new("node")
        .arg(tools.join("lottie.mjs"))
        .arg("--lottie")
        .arg(file)
        .arg("--origins")
        .arg(&origins_file)
        .arg("--out")
        .arg(&out_file)
        .output()
        .expect("node runs");
    eprintln!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "lottie.mjs failed on {}",
        file.display()
    );
    serde_json::from_str(&std::fs::read_to_string(out_file).unwrap()).unwrap()
}

/// The largest |ours − lottie-web| / max(1, range) of one file, per kind (plain, spatial).
#[derive(Default, Debug)]
struct Worst {
    plain: (f64, String),
    spatial: (f64, String),
}

/// Compares one file; returns the worst relative differences.
fn check_file(tools: &Path, file: &Path) -> Worst {
    let bytes = std::fs::read(file).unwrap();
    let import = import_lottie(&bytes, &file.display().to_string()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let web = lottie_web(tools, file, &import, dir.path());
    assert_eq!(
        web["missing"],
        json!([]),
        "{}: properties lottie-web does not have",
        file.display()
    );
    assert_eq!(
        web["factorProblems"],
        json!([]),
        "{}: v ≠ pv × mult",
        file.display()
    );
    let (ip, op) = (web["ip"].as_f64().unwrap(), web["op"].as_f64().unwrap());
    let (from, to) = (ip.ceil() as i64, (op - 1.0).ceil() as i64);
    let [sampled, played] = ours(file, dir.path(), from, to);
    let mut worst = Worst::default();
    for (track, origin) in import.document.tracks().iter().zip(&import.origins) {
        let rows = web["tracks"][track.name()].as_array().unwrap_or_else(|| {
            panic!(
                "{}: lottie-web never showed {}",
                file.display(),
                track.name()
            )
        });
        let spatial = origin.spatial;
        let components = track.value_type().component_names();
        for c in 0..track.components() {
            let column = match components.get(c) {
                Some(axis) => format!("{}.{axis}", track.name()),
                None => track.name().to_string(),
            };
            let theirs: Vec<(i64, f64)> = rows
                .iter()
                .map(|r| (r[0].as_f64().unwrap() as i64, r[c + 1].as_f64().unwrap()))
                .collect();
            let (lo, hi) = theirs
                .iter()
                .fold((f64::MAX, f64::MIN), |(lo, hi), (_, v)| {
                    (lo.min(*v), hi.max(*v))
                });
            let scale = (hi - lo).max(1.0);
            let bound = if spatial {
                SPATIAL_TOLERANCE
            } else {
                TOLERANCE
            };
            for (source, values) in [("sample", &sampled), ("stream", &played)] {
                for (frame, want) in &theirs {
                    let got = values[&column][frame];
                    let relative = (got - want).abs() / scale;
                    assert!(
                        relative <= bound,
                        "{}: {column} at frame {frame}: {source} {got}, lottie-web {want} ({relative:.2e} of the range, bound {bound:.0e})",
                        file.display()
                    );
                    let slot = if spatial {
                        &mut worst.spatial
                    } else {
                        &mut worst.plain
                    };
                    if relative > slot.0 {
                        *slot = (relative, format!("{column} at {frame} ({source})"));
                    }
                }
            }
        }
    }
    worst
}

/// Every corpus Lottie file and every generated fixture: our `sample` and compiled stream
/// agree with lottie-web at every whole frame where each property's layer is visible.
#[test]
fn sample_and_stream_agree_with_lottie_web_on_every_file() {
    let tools = repo().join("tools/browser-test");
    if !browser_available(&tools) {
        return;
    }
    let files = lottie_files();
    assert!(files.len() >= 6, "the corpus and fixtures: {files:?}");
    for file in files {
        let worst = check_file(&tools, &file);
        eprintln!(
            "{}: worst plain {:.2e} ({}), spatial {:.2e} ({})",
            file.file_name().unwrap().to_string_lossy(),
            worst.plain.0,
            worst.plain.1,
            worst.spatial.0,
            worst.spatial.1
        );
    }
}

/// The differences docs/lottie.md states are what lottie-web does (tests/lottie/differences/):
/// where a spatial segment's ease is below 0 lottie-web shows the segment's end and we its
/// start; on a hold keyframe with tangents lottie-web moves along the segment and we hold.
#[test]
fn documented_differences_are_what_lottie_web_does() {
    let tools = repo().join("tools/browser-test");
    if !browser_available(&tools) {
        return;
    }
    let file = repo().join("tests/lottie/differences/differences.json");
    let import = import_lottie(&std::fs::read(&file).unwrap(), "differences.json").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let web = lottie_web(&tools, &file, &import, dir.path());
    let row = |track: &str, frame: usize| -> (f64, f64) {
        let r = &web["tracks"][track][frame];
        assert_eq!(r[0].as_f64(), Some(frame as f64));
        (r[1].as_f64().unwrap(), r[2].as_f64().unwrap())
    };
    let under = import.document.track("Under/position").unwrap();
    let hold = import.document.track("Hold/position").unwrap();
    // Ease (0.6, −0.8, 0.6, 1) is below 0 for the first frames of the 20-frame segment.
    for frame in 1..=5 {
        assert_eq!(
            row("Under/position", frame),
            (100.0, 0.0),
            "lottie-web: the end"
        );
        assert_eq!(
            under.eval(frame as f64).as_slice(),
            &[0.0, 0.0],
            "ours: the start"
        );
        let (x, y) = row("Hold/position", frame);
        assert!(
            x > 0.0 && y > 0.0,
            "lottie-web moves on a hold key with tangents"
        );
        assert_eq!(
            hold.eval(frame as f64).as_slice(),
            &[0.0, 0.0],
            "ours: held"
        );
    }
}
