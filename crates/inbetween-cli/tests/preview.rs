//! `inbetween preview`: the page is self-contained, embeds exactly what the stream plays, is safe
//! against hostile names, and plays correctly in a real (headless chromium) browser.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use inbetween::Document;
use serde_json::Value as Json;

/// The element holding the page's data (see assets/preview.html).
const DATA_OPEN: &str = r#"<script id="preview-data" type="application/json">"#;

fn inbetween() -> Command {
    Command::cargo_bin("inbetween").expect("the binary is built")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn showcase() -> PathBuf {
    repo().join("examples/showcase.json")
}

fn walk() -> PathBuf {
    repo().join("examples/gltf/character_walk.gltf")
}

fn load(path: &Path) -> Document {
    if path.extension().is_some_and(|e| e == "gltf") {
        inbetween::gltf_import::import_gltf_path(path, &Default::default()).unwrap()
    } else {
        Document::from_json_str(&std::fs::read_to_string(path).unwrap(), "doc").unwrap()
    }
}

/// Runs `inbetween preview INPUT -o DIR/preview.html ARGS…` and returns the page.
fn preview(input: &Path, dir: &Path, args: &[&str]) -> String {
    let out = dir.join("preview.html");
    inbetween()
        .arg("preview")
        .arg(input)
        .arg("-o")
        .arg(&out)
        .args(args)
        .arg("--quiet")
        .assert()
        .success();
    std::fs::read_to_string(out).unwrap()
}

/// The JSON embedded in the page.
fn embedded(html: &str) -> Json {
    let start = html.find(DATA_OPEN).expect("data element") + DATA_OPEN.len();
    let len = html[start..]
        .find("</script>")
        .expect("data element closed");
    serde_json::from_str(&html[start..start + len]).expect("the embedded data is JSON")
}

fn numbers(v: &Json) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// Each track's played values by component: `[track][component][frame index]`.
fn played_values(data: &Json) -> Vec<Vec<Vec<f64>>> {
    data["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(numbers)
                .collect()
        })
        .collect()
}

/// Each track's played values read from the page's text with Rust's correctly rounded
/// `str::parse` (serde_json's default float parser may be 1 ulp off). `"values":[` cannot occur
/// inside a JSON string, where `"` is escaped.
fn played_values_exact(html: &str) -> Vec<Vec<Vec<f64>>> {
    html.match_indices("\"values\":[")
        .map(|(at, key)| {
            let rest = &html[at + key.len()..];
            let end = rest.find("]]").expect("values end");
            rest[..end]
                .trim_start_matches('[')
                .split("],[")
                .map(|column| column.split(',').map(|v| v.parse().unwrap()).collect())
                .collect()
        })
        .collect()
}

/// `sample --format json` as `[track][component][frame index]`, with its frames.
fn sampled(input: &Path) -> (Vec<f64>, Vec<Vec<Vec<f64>>>) {
    let out = inbetween()
        .arg("sample")
        .arg(input)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: Json = serde_json::from_slice(&out.stdout).unwrap();
    let frames = numbers(&json["frames"]);
    let tracks = json["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let rows = t["values"].as_array().unwrap();
            let width = rows.first().and_then(Json::as_array).map_or(1, Vec::len);
            (0..width)
                .map(|c| {
                    rows.iter()
                        .map(|r| match r {
                            Json::Array(v) => v[c].as_f64().unwrap(),
                            v => v.as_f64().unwrap(),
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    (frames, tracks)
}

/// The embedded values are within each track's default compile tolerance (1e-6 × scale) of the
/// exact values `sample` prints, at every frame; names, types and columns are the document's.
fn assert_embedded_matches_sample(input: &Path, args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let doc = load(input);
    let data = embedded(&preview(input, dir.path(), args));
    let (frames, exact) = sampled(input);
    let (from, to) = doc.frame_range().unwrap();
    assert_eq!(data["from"].as_i64(), Some(from));
    assert_eq!(data["to"].as_i64(), Some(to));
    assert_eq!(frames.len() as i64, to - from + 1);
    let played = played_values(&data);
    let tracks = data["tracks"].as_array().unwrap();
    assert_eq!(tracks.len(), doc.tracks().len());
    for ((track, info), (played, exact)) in doc
        .tracks()
        .iter()
        .zip(tracks)
        .zip(played.iter().zip(&exact))
    {
        assert_eq!(info["name"].as_str(), Some(track.name()));
        assert_eq!(info["type"].as_str(), Some(track.value_type().name()));
        assert_eq!(info["keys"].as_array().unwrap().len(), track.keys().len());
        let columns: Vec<&str> = info["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let expected_columns: Vec<String> = match track.value_type().component_names() {
            [] => vec![track.name().to_string()],
            names => names
                .iter()
                .map(|c| format!("{}.{c}", track.name()))
                .collect(),
        };
        assert_eq!(columns, expected_columns);
        assert_eq!(played.len(), track.components(), "{}", track.name());
        let tolerance = 1e-6 * track.scale();
        for (c, (p, e)) in played.iter().zip(exact).enumerate() {
            assert_eq!(p.len(), frames.len(), "{} component {c}", track.name());
            for ((frame, p), e) in frames.iter().zip(p).zip(e) {
                assert!(
                    (p - e).abs() <= tolerance,
                    "{} component {c} frame {frame}: embedded {p}, sample {e}, tolerance {tolerance:e}",
                    track.name()
                );
            }
        }
    }
}

#[test]
fn embedded_values_equal_sample_at_every_frame() {
    assert_embedded_matches_sample(&showcase(), &[]);
}

#[test]
fn embedded_values_equal_sample_for_gltf_input() {
    assert_embedded_matches_sample(&walk(), &[]);
}

#[test]
fn embedded_values_equal_sample_in_fixed_precision() {
    assert_embedded_matches_sample(&showcase(), &["--precision", "fixed"]);
}

/// What the page holds is what ships: bit for bit the values `inbetween play` prints for the
/// stream `inbetween compile` writes with the same options.
#[test]
fn embedded_values_are_the_compiled_streams_played_values() {
    let dir = tempfile::tempdir().unwrap();
    for precision in ["f64", "f32"] {
        let html = preview(&showcase(), dir.path(), &["--precision", precision]);
        assert_eq!(embedded(&html)["precision"].as_str(), Some(precision));
        let ibs = dir.path().join("showcase.ibs");
        inbetween()
            .arg("compile")
            .arg(showcase())
            .arg("-o")
            .arg(&ibs)
            .args(["--precision", precision, "--quiet"])
            .assert()
            .success();
        let out = inbetween()
            .args(["play", "--exact"])
            .arg(&ibs)
            .output()
            .unwrap();
        assert!(out.status.success());
        let csv = String::from_utf8(out.stdout).unwrap();
        let played = played_values_exact(&html);
        assert_eq!(played.len(), load(&showcase()).tracks().len());
        let columns: Vec<&Vec<f64>> = played.iter().flatten().collect();
        let mut rows = 0;
        for (i, line) in csv.lines().skip(1).enumerate() {
            let fields: Vec<f64> = line.split(',').map(|f| f.parse().unwrap()).collect();
            assert_eq!(fields.len(), columns.len() + 1);
            for (column, value) in columns.iter().zip(&fields[1..]) {
                assert_eq!(column[i].to_bits(), value.to_bits(), "{precision} row {i}");
            }
            rows += 1;
        }
        assert_eq!(rows, columns[0].len());
    }
}

/// Nothing is fetched: no http(s) URL anywhere, every src/href is a data: URL, both scripts
/// are inline.
#[test]
fn page_is_self_contained() {
    let dir = tempfile::tempdir().unwrap();
    let html = preview(&showcase(), dir.path(), &[]);
    let lower = html.to_ascii_lowercase();
    assert!(!lower.contains("http://") && !lower.contains("https://"));
    assert!(!lower.contains("@import") && !lower.contains("url("));
    for attr in ["src=", "href="] {
        for (at, _) in lower.match_indices(attr) {
            let value = lower[at + attr.len()..].trim_start_matches(['"', '\'']);
            assert!(
                value.starts_with("data:"),
                "{attr} at byte {at}: {}",
                &html[at..at + 40]
            );
        }
    }
    let scripts: Vec<&str> = lower.split("<script").skip(1).collect();
    assert_eq!(scripts.len(), 2, "the data and the player");
    for s in scripts {
        let tag = &s[..s.find('>').unwrap()];
        assert!(!tag.contains("src"), "external script: <script{tag}>");
    }
    // The controls the browser test drives.
    for id in ["play", "scrubber", "frame", "speed", "loop", "values"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "#{id}");
    }
}

/// A hostile document: names that would end the script element, open a comment or break CSV.
fn hostile_document(dir: &Path) -> PathBuf {
    let path = dir.join("hostile.json");
    std::fs::write(
        &path,
        r#"{"inbetween": 1, "fps": 24, "tracks": [
            {"name": "</script><script>document.body.dataset.pwned='1'</script>", "type": "vec2",
             "keys": [{"frame": 0, "value": [0, 0]}, {"frame": 12, "value": [10, -5]}]},
            {"name": "<!-- \"quoted\", & <SCRIPT>", "type": "scalar",
             "keys": [{"frame": 0, "value": 1, "interp": "step"}, {"frame": 6, "value": 2}, {"frame": 12, "value": 0}]}
        ]}"#,
    )
    .unwrap();
    path
}

#[test]
fn track_names_cannot_break_out_of_the_data_element() {
    let dir = tempfile::tempdir().unwrap();
    let input = hostile_document(dir.path());
    let html = preview(&input, dir.path(), &[]);
    let template_html = preview(&showcase(), dir.path(), &[]);
    let count = |h: &str, s: &str| h.to_ascii_lowercase().matches(s).count();
    for needle in ["</script", "<script", "<!--"] {
        assert_eq!(
            count(&html, needle),
            count(&template_html, needle),
            "{needle}"
        );
    }
    let data = embedded(&html);
    assert_eq!(
        data["tracks"][0]["name"].as_str(),
        Some("</script><script>document.body.dataset.pwned='1'</script>")
    );
    assert_eq!(
        data["tracks"][1]["name"].as_str(),
        Some("<!-- \"quoted\", & <SCRIPT>")
    );
}

#[test]
fn refuses_more_frames_than_a_page_holds_and_empty_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join("long.json");
    // 2 000 001 frames × 1 column: above the 1 000 000 values a page embeds.
    std::fs::write(
        &long,
        r#"{"inbetween": 1, "fps": 60, "tracks": [{"name": "s", "type": "scalar",
            "keys": [{"frame": 0, "value": 0}, {"frame": 2000000, "value": 1}]}]}"#,
    )
    .unwrap();
    let out = dir.path().join("p.html");
    inbetween()
        .arg("preview")
        .arg(&long)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("2000001 frames × 1 columns"))
        .stderr(predicates::str::contains("--from/--to"));
    assert!(!out.exists(), "nothing written");
    // Narrowed, it is fine: frames 1000..=1100.
    let html = preview(&long, dir.path(), &["--from", "1000", "--to", "1100"]);
    let data = embedded(&html);
    let values = played_values(&data);
    assert_eq!(values[0][0].len(), 101);
    assert!((values[0][0][0] - 1000.0 / 2_000_000.0).abs() < 1e-9);
    // A range without integer frames.
    inbetween()
        .arg("preview")
        .arg(&long)
        .arg("-o")
        .arg(&out)
        .args(["--from", "10.2", "--to", "10.8"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no integer frame"));
}

/// Where the browser test keeps its screenshot: CARGO_TARGET_TMPDIR (target/tmp).
fn screenshot_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Whether chromium, node and playwright-core are installed; when not, the browser test is
/// skipped, unless INBETWEEN_REQUIRE_BROWSER=1 (as in CI), where that is a failure.
fn browser_available(tools: &Path) -> bool {
    let chromium = Path::new("/usr/bin/chromium").exists();
    let playwright = tools.join("node_modules/playwright-core").exists();
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if chromium && playwright && node {
        return true;
    }
    let missing = format!(
        "chromium at /usr/bin/chromium: {chromium}, node: {node}, playwright-core in {}: {playwright}",
        tools.display()
    );
    assert!(
        std::env::var("INBETWEEN_REQUIRE_BROWSER").map_or(true, |v| v != "1"),
        "INBETWEEN_REQUIRE_BROWSER=1 but the browser test cannot run ({missing})"
    );
    eprintln!(
        "browser test skipped ({missing}); apt-get install chromium and npm install --prefix tools/browser-test"
    );
    false
}

/// Runs tools/browser-test/preview.mjs on the page of `input`, comparing the values shown with
/// `sample`'s CSV within 1e-6 × each track's scale (the default compile tolerance).
fn run_in_browser(tools: &Path, input: &Path, screenshot: &Path) {
    let dir = tempfile::tempdir().unwrap();
    preview(input, dir.path(), &[]);
    let csv = dir.path().join("sample.csv");
    inbetween()
        .arg("sample")
        .arg(input)
        .arg("-o")
        .arg(&csv)
        .assert()
        .success();
    let doc = load(input);
    let mut tolerances = serde_json::Map::new();
    for track in doc.tracks() {
        let names = track.value_type().component_names();
        let columns: Vec<String> = if names.is_empty() {
            vec![track.name().to_string()]
        } else {
            names
                .iter()
                .map(|c| format!("{}.{c}", track.name()))
                .collect()
        };
        for column in columns {
            tolerances.insert(column, Json::from(1e-6 * track.scale()));
        }
    }
    let tolerance_file = dir.path().join("tolerances.json");
    std::fs::write(&tolerance_file, Json::Object(tolerances).to_string()).unwrap();
    let _ = std::fs::remove_file(screenshot);
    let out = std::process::Command::new("node")
        .arg(tools.join("preview.mjs"))
        .arg("--page")
        .arg(dir.path().join("preview.html"))
        .arg("--expected")
        .arg(&csv)
        .arg("--tolerances")
        .arg(&tolerance_file)
        .arg("--screenshot")
        .arg(screenshot)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the browser test failed:\n{text}");
    assert!(text.contains("PASS:"), "{text}");
    let png = std::fs::read(screenshot).expect("the screenshot was written");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    eprintln!("screenshot: {}", screenshot.display());
}

/// In headless chromium: loads without console errors or network requests, play advances and
/// pause holds, the scrubber (keys and drag events) shows frames whose values equal `sample`,
/// loop off stops at the end and loop on wraps; keeps a screenshot of the showcase page as
/// target/tmp/preview-screenshot.png. The hostile-names page must behave the same (a name that
/// escaped the data element would make the page fail to load).
#[test]
fn preview_plays_in_headless_chromium() {
    let tools = repo().join("tools/browser-test");
    if !browser_available(&tools) {
        return;
    }
    run_in_browser(
        &tools,
        &showcase(),
        &screenshot_path("preview-screenshot.png"),
    );
    let dir = tempfile::tempdir().unwrap();
    let hostile = hostile_document(dir.path());
    run_in_browser(
        &tools,
        &hostile,
        &screenshot_path("preview-hostile-screenshot.png"),
    );
}
