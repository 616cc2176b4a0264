//! `inbetween plot` as a user runs it: the pictures' content, filtering, formats and failures.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

const SHOWCASE: &str = "../../examples/showcase.json";

fn inbetween() -> Command {
    Command::cargo_bin("inbetween").expect("the binary is built")
}

/// The showcase's tracks as (name, type, keys) read straight from its JSON.
fn showcase_tracks() -> Vec<(String, String, Vec<serde_json::Value>)> {
    let text = fs::read_to_string(SHOWCASE).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["type"].as_str().unwrap().to_string(),
                t["keys"].as_array().unwrap().clone(),
            )
        })
        .collect()
}

/// The integer frames `sample` prints for the showcase: ⌈earliest key⌉ ..= ⌊latest key⌋.
fn showcase_frame_count() -> usize {
    let frames: Vec<f64> = showcase_tracks()
        .iter()
        .flat_map(|(_, _, keys)| keys.iter().map(|k| k["frame"].as_f64().unwrap()))
        .collect();
    let first = frames.iter().copied().fold(f64::INFINITY, f64::min).ceil();
    let last = frames
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
        .floor();
    (last - first) as usize + 1
}

/// One panel of the SVG: its class (`curves` or `path`), track name and inner markup.
struct Panel {
    class: String,
    track: String,
    body: String,
}

/// The value of attribute `name` in the tag text `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = start + tag[start..].find('"')?;
    Some(&tag[start..end])
}

/// The panels (`<g class="panel ..." data-track="...">` ... `</g>`) of the picture.
fn panels(svg: &str) -> Vec<Panel> {
    svg.split("<g class=\"panel ")
        .skip(1)
        .map(|chunk| {
            let open_end = chunk.find('>').unwrap();
            let tag = format!(" class=\"{}", &chunk[..open_end]);
            let body_end = chunk.find("</g>").unwrap();
            Panel {
                class: attr(&tag, "class").unwrap().to_string(),
                track: attr(&tag, "data-track").unwrap().to_string(),
                body: chunk[open_end + 1..body_end].to_string(),
            }
        })
        .collect()
}

/// The trimmed contents of every `<text>` element.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .map(|chunk| {
            let start = chunk.find('>').unwrap() + 1;
            let end = chunk.find("</text>").unwrap();
            chunk[start..end].trim().to_string()
        })
        .collect()
}

/// The radius of every `<circle>`.
fn circle_radii(svg: &str) -> Vec<f64> {
    svg.split("<circle")
        .skip(1)
        .map(|chunk| attr(chunk, "r").unwrap().parse().unwrap())
        .collect()
}

fn render_showcase(dir: &Path, name: &str, track: Option<&str>) -> String {
    let out = dir.join(name);
    let mut cmd = inbetween();
    cmd.arg("plot").arg(SHOWCASE).arg("-q").arg("-o").arg(&out);
    if let Some(t) = track {
        cmd.args(["--track", t]);
    }
    cmd.assert().success().stdout("");
    fs::read_to_string(&out).unwrap()
}

#[test]
fn svg_has_a_titled_panel_per_track_and_labels_every_segment_kind() {
    let dir = tempfile::tempdir().unwrap();
    let svg = render_showcase(dir.path(), "all.svg", None);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    for (open, close) in [("<svg", "</svg>"), ("<g ", "</g>"), ("<text", "</text>")] {
        assert_eq!(
            svg.matches(open).count(),
            svg.matches(close).count(),
            "{open} balanced"
        );
    }

    let tracks = showcase_tracks();
    let panels = panels(&svg);
    let curve_tracks: Vec<&str> = panels
        .iter()
        .filter(|p| p.class == "curves")
        .map(|p| p.track.as_str())
        .collect();
    let names: Vec<&str> = tracks.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(curve_tracks, names, "one curve panel per track, in order");
    for panel in panels.iter().filter(|p| p.class == "curves") {
        assert_eq!(texts(&panel.body)[0], panel.track, "titled with its name");
    }
    let path_tracks: Vec<&str> = panels
        .iter()
        .filter(|p| p.class == "path")
        .map(|p| p.track.as_str())
        .collect();
    let spatial: Vec<&str> = tracks
        .iter()
        .filter(|(_, ty, _)| ty == "vec2" || ty == "vec3")
        .map(|(n, _, _)| n.as_str())
        .collect();
    assert_eq!(
        path_tracks, spatial,
        "a path panel for every vec2/vec3 track"
    );
    check_segment_labels(&svg, &panels, &tracks);
}

/// Every segment kind and the showcase's eases are labelled, each label in its own track's
/// panel, and every key of `ball` has its markers.
fn check_segment_labels(
    svg: &str,
    panels: &[Panel],
    tracks: &[(String, String, Vec<serde_json::Value>)],
) {
    let all_texts = texts(svg);
    for kind in [
        "step",
        "linear",
        "hermite",
        "bezier",
        "catmull_rom",
        "tcb",
        "slerp",
        "polynomial",
        "expr",
    ] {
        assert!(all_texts.iter().any(|t| t == kind), "{kind} labelled");
    }
    for ease in [
        "ease in_out_sine",
        "ease smoothstep",
        "ease out_bounce",
        "ease steps(4, jump_end)",
        "ease cubic_bezier(0.25, 0.1, 0.25, 1)",
    ] {
        assert!(all_texts.iter().any(|t| t == ease), "{ease} labelled");
    }
    // Segment labels sit in their own track's panel: `slide` is linear then bezier.
    let slide = panels
        .iter()
        .find(|p| p.class == "curves" && p.track == "slide")
        .unwrap();
    let slide_texts = texts(&slide.body);
    assert!(slide_texts.iter().any(|t| t == "linear"));
    assert!(slide_texts.iter().any(|t| t == "bezier"));
    assert!(!slide_texts.iter().any(|t| t == "tcb"));
    // The key markers: one pair of circles (fill and ring, radius 5) per key and component.
    let ball_keys = tracks.iter().find(|(n, _, _)| n == "ball").unwrap().2.len();
    let ball = panels
        .iter()
        .find(|p| p.class == "curves" && p.track == "ball")
        .unwrap();
    let rings = circle_radii(&ball.body)
        .iter()
        .filter(|&&r| r == 5.0)
        .count();
    assert_eq!(rings, ball_keys * 2 * 2);
}

#[test]
fn path_panel_has_one_dot_per_frame() {
    let dir = tempfile::tempdir().unwrap();
    let svg = render_showcase(dir.path(), "all.svg", None);
    let frames = showcase_frame_count();
    assert_eq!(frames, 121);
    let tracks = showcase_tracks();
    let mut checked = 0;
    for panel in panels(&svg).iter().filter(|p| p.class == "path") {
        let keys = &tracks.iter().find(|(n, _, _)| *n == panel.track).unwrap().2;
        let radii = circle_radii(&panel.body);
        let dots = radii.iter().filter(|&&r| r <= 3.0).count();
        let rings = radii.iter().filter(|&&r| r == 7.0).count();
        assert_eq!(dots, frames, "{}: a dot at every frame", panel.track);
        assert!(
            rings >= 1 && rings <= keys.len(),
            "{}: {rings} key rings for {} keys",
            panel.track,
            keys.len()
        );
        checked += 1;
    }
    assert_eq!(
        checked, 6,
        "ball, lissajous, wobble, glide_keys, glide, glide_eased"
    );
}

#[test]
fn track_option_plots_only_that_track() {
    let dir = tempfile::tempdir().unwrap();
    let svg = render_showcase(dir.path(), "ball.svg", Some("ball"));
    let panels = panels(&svg);
    let kinds: Vec<(&str, &str)> = panels
        .iter()
        .map(|p| (p.class.as_str(), p.track.as_str()))
        .collect();
    assert_eq!(kinds, vec![("curves", "ball"), ("path", "ball")]);
    assert!(!texts(&svg).iter().any(|t| t == "lissajous"));
    // One row: the picture is one row tall.
    assert!(svg.contains("height=\"360\" viewBox=\"0 0 1280 360\""));

    let svg = render_showcase(dir.path(), "SLIDE.SVG", Some("slide"));
    let kinds: Vec<(String, String)> = panels_of(&svg);
    assert_eq!(kinds, vec![("curves".to_string(), "slide".to_string())]);
}

fn panels_of(svg: &str) -> Vec<(String, String)> {
    panels(svg)
        .into_iter()
        .map(|p| (p.class, p.track))
        .collect()
}

/// Width, height and RGB pixels of a PNG file.
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(3)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, pixels)
}

#[test]
fn png_is_a_real_picture_with_text_and_curves() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all.PNG");
    inbetween()
        .args(["plot", SHOWCASE, "-o"])
        .arg(&out)
        .assert()
        .success();
    let bytes = fs::read(&out).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let (w, h, pixels) = decode_png(&bytes);
    let rows = showcase_tracks().len() as u32;
    assert_eq!((w, h), (1280, 360 * rows), "one 360-pixel row per track");
    let at = |x: u32, y: u32| pixels[(y * w + x) as usize];

    let mut colours: Vec<[u8; 3]> = pixels.clone();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 50, "{} colours", colours.len());
    // The x curve of `ball` (red) and the per-frame dots of its path (near black) are drawn.
    let first_row = &pixels[..(w * 360) as usize];
    assert!(first_row.contains(&[214, 39, 40]));
    assert!(first_row.contains(&[33, 37, 41]));
    // The title `ball` is rasterised: dark pixels in the top-left corner of the first panel.
    let dark_in_title = (12..60)
        .flat_map(|x| (6..32).map(move |y| (x, y)))
        .filter(|&(x, y)| at(x, y).iter().all(|&c| c < 120))
        .count();
    assert!(
        dark_in_title > 20,
        "{dark_in_title} dark pixels in the title"
    );
}

#[test]
fn bad_extension_is_a_usage_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["curves.jpg", "curves", "curves.svg.txt"] {
        let out = dir.path().join(name);
        inbetween()
            .args(["plot", SHOWCASE, "-o"])
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(".svg or .png"));
        assert!(!out.exists());
    }
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no stray files"
    );
}

#[test]
fn unknown_track_names_the_tracks_and_keeps_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("curves.svg");
    fs::write(&out, "OLD").unwrap();
    inbetween()
        .args(["plot", SHOWCASE, "--track", "nope", "-o"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nope"))
        .stderr(predicate::str::contains("ball, lissajous, spin"));
    assert_eq!(fs::read_to_string(&out).unwrap(), "OLD");
}

#[test]
fn refused_input_exits_1_and_keeps_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("curves.png");
    fs::write(&out, "OLD").unwrap();
    let bad = dir.path().join("bad.json");
    fs::write(
        &bad,
        r#"{"inbetween": 1, "fps": 60, "tracks": [ {"name": "a""#,
    )
    .unwrap();
    inbetween()
        .arg("plot")
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1);
    inbetween()
        .arg("plot")
        .arg(dir.path().join("missing.json"))
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("missing.json"));
    assert_eq!(fs::read_to_string(&out).unwrap(), "OLD");
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
}

#[test]
fn unwritable_output_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("no-such-folder").join("curves.svg");
    inbetween()
        .args(["plot", SHOWCASE, "-o"])
        .arg(&out)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("curves.svg"));
}

#[test]
fn gltf_input_is_plotted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("walk.svg");
    inbetween()
        .args(["plot", "../../examples/gltf/character_walk.gltf", "-o"])
        .arg(&out)
        .assert()
        .success();
    let svg = fs::read_to_string(&out).unwrap();
    let panels = panels_of(&svg);
    let curves = panels.iter().filter(|(c, _)| c == "curves").count();
    assert!(curves > 10, "{curves} curve panels");
    // Rotation channels are quaternions: their panels carry the x, y, z, w legend.
    assert!(panels.iter().any(|(_, t)| t.ends_with("/rotation")));
}
