//! glTF import against the corpus: every channel checked with expectations decoded and evaluated
//! here, independently of the importer (the `gltf` crate's reader for the accessors, the glTF 2.0
//! Appendix C formulas for the interpolation), plus malformed files built in the test.
#![cfg(feature = "gltf")]

use std::path::{Path, PathBuf};

use inbetween::gltf_import::{
    import_gltf_path, import_gltf_slice, AccessorProblem, AnimationSelector, GltfImportError,
    ImportOptions, SNAP_RELATIVE,
};
use inbetween::{Document, ValueType};

const TOL: f64 = 1e-9;

fn corpus(name: &str) -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/gltf"
    ))
    .join(name)
}

// ---------------------------------------------------------------------------------------------
// Independent reference: base64 by hand, accessors by the gltf crate's reader, Appendix C formulas.

fn b64_value(c: u8) -> u32 {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    ALPHABET.iter().position(|&a| a == c).unwrap() as u32
}

fn b64_decode(s: &str) -> Vec<u8> {
    let clean: Vec<u8> = s.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= b64_value(c) << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    out
}

fn b64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let mut n = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            n |= u32::from(b) << (16 - 8 * i);
        }
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Step,
    Linear,
    Cubic,
}

struct RefChannel {
    track: String,
    times: Vec<f64>,
    /// One entry per output element (for weights: the element of one target only).
    elems: Vec<Vec<f64>>,
    kind: Kind,
    rotation: bool,
}

struct Reference {
    channels: Vec<RefChannel>,
}

fn reference(name: &str) -> Reference {
    let path = corpus(name);
    let bytes = std::fs::read(&path).unwrap();
    let gltf = gltf::Gltf::from_slice(&bytes).unwrap();
    let buffers: Vec<Vec<u8>> = gltf
        .buffers()
        .map(|b| match b.source() {
            gltf::buffer::Source::Uri(uri) => match uri.split_once(";base64,") {
                Some((_, data)) => b64_decode(data),
                None => std::fs::read(path.parent().unwrap().join(uri)).unwrap(),
            },
            gltf::buffer::Source::Bin => gltf.blob.clone().unwrap(),
        })
        .collect();
    let animations = gltf.animations().count();
    let mut channels = Vec::new();
    for anim in gltf.animations() {
        for ch in anim.channels() {
            let reader = ch.reader(|b| Some(&buffers[b.index()][..]));
            let times: Vec<f64> = reader.read_inputs().unwrap().map(f64::from).collect();
            let kind = match ch.sampler().interpolation() {
                gltf::animation::Interpolation::Step => Kind::Step,
                gltf::animation::Interpolation::Linear => Kind::Linear,
                gltf::animation::Interpolation::CubicSpline => Kind::Cubic,
            };
            let node = ch.target().node();
            let node_label = node
                .name()
                .map_or_else(|| node.index().to_string(), String::from);
            let anim_label = anim
                .name()
                .map_or_else(|| anim.index().to_string(), String::from);
            let prefix = if animations > 1 {
                format!("{anim_label}/")
            } else {
                String::new()
            };
            use gltf::animation::util::ReadOutputs;
            let (path, rotation, elems): (&str, bool, Vec<Vec<f64>>) =
                match reader.read_outputs().unwrap() {
                    ReadOutputs::Translations(it) => (
                        "translation",
                        false,
                        it.map(|v| v.iter().map(|&c| f64::from(c)).collect())
                            .collect(),
                    ),
                    ReadOutputs::Scales(it) => (
                        "scale",
                        false,
                        it.map(|v| v.iter().map(|&c| f64::from(c)).collect())
                            .collect(),
                    ),
                    ReadOutputs::Rotations(r) => (
                        "rotation",
                        true,
                        r.into_f32()
                            .map(|v| v.iter().map(|&c| f64::from(c)).collect())
                            .collect(),
                    ),
                    ReadOutputs::MorphTargetWeights(w) => {
                        let all: Vec<f64> = w.into_f32().map(f64::from).collect();
                        let per = if kind == Kind::Cubic { 3 } else { 1 };
                        let targets = all.len() / (times.len() * per);
                        for t in 0..targets {
                            channels.push(RefChannel {
                                track: format!("{prefix}{node_label}/weights/{t}"),
                                times: times.clone(),
                                elems: all
                                    .iter()
                                    .skip(t)
                                    .step_by(targets)
                                    .map(|&x| vec![x])
                                    .collect(),
                                kind,
                                rotation: false,
                            });
                        }
                        continue;
                    }
                };
            channels.push(RefChannel {
                track: format!("{prefix}{node_label}/{path}"),
                times,
                elems,
                kind,
                rotation,
            });
        }
    }
    Reference { channels }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn normalize(a: &[f64]) -> Vec<f64> {
    let n = dot(a, a).sqrt();
    a.iter().map(|x| x / n).collect()
}

/// Shortest-arc slerp (Appendix C, "Spherical Linear Interpolation").
fn slerp(a: &[f64], b: &[f64], u: f64) -> Vec<f64> {
    let a = normalize(a);
    let mut b = normalize(b);
    let mut d = dot(&a, &b);
    if d < 0.0 {
        b.iter_mut().for_each(|x| *x = -*x);
        d = -d;
    }
    if 1.0 - d < 1e-12 {
        return normalize(
            &a.iter()
                .zip(&b)
                .map(|(x, y)| x + (y - x) * u)
                .collect::<Vec<_>>(),
        );
    }
    let theta = d.min(1.0).acos();
    let s = theta.sin();
    let wa = ((1.0 - u) * theta).sin() / s;
    let wb = (u * theta).sin() / s;
    a.iter().zip(&b).map(|(x, y)| wa * x + wb * y).collect()
}

/// The glTF value at `t` seconds (clamped outside the keys), per Appendix C.
fn gltf_eval(ch: &RefChannel, t: f64) -> Vec<f64> {
    let n = ch.times.len();
    let value = |k: usize| -> Vec<f64> {
        match ch.kind {
            Kind::Cubic => ch.elems[3 * k + 1].clone(),
            _ => ch.elems[k].clone(),
        }
    };
    let fix = |v: Vec<f64>| if ch.rotation { normalize(&v) } else { v };
    if t <= ch.times[0] {
        return fix(value(0));
    }
    if t >= ch.times[n - 1] {
        return fix(value(n - 1));
    }
    let k = ch.times.iter().rposition(|&tk| tk <= t).unwrap();
    let dt = ch.times[k + 1] - ch.times[k];
    let u = (t - ch.times[k]) / dt;
    match ch.kind {
        Kind::Step => fix(value(k)),
        Kind::Linear if ch.rotation => slerp(&value(k), &value(k + 1), u),
        Kind::Linear => value(k)
            .iter()
            .zip(value(k + 1))
            .map(|(a, b)| a + (b - a) * u)
            .collect(),
        Kind::Cubic => {
            let (u2, u3) = (u * u, u * u * u);
            let vk = &ch.elems[3 * k + 1];
            let bk = &ch.elems[3 * k + 2];
            let vk1 = &ch.elems[3 * (k + 1) + 1];
            let ak1 = &ch.elems[3 * (k + 1)];
            let p: Vec<f64> = (0..vk.len())
                .map(|i| {
                    (2.0 * u3 - 3.0 * u2 + 1.0) * vk[i]
                        + (u3 - 2.0 * u2 + u) * bk[i] * dt
                        + (-2.0 * u3 + 3.0 * u2) * vk1[i]
                        + (u3 - u2) * ak1[i] * dt
                })
                .collect();
            fix(p)
        }
    }
}

fn assert_close(what: &str, got: &[f64], want: &[f64], rotation: bool) {
    assert_close_tol(what, got, want, rotation, TOL);
}

fn assert_close_tol(what: &str, got: &[f64], want: &[f64], rotation: bool, tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let diff = |sign: f64| {
        got.iter()
            .zip(want)
            .map(|(g, w)| (g - sign * w).abs())
            .fold(0.0, f64::max)
    };
    let err = if rotation {
        diff(1.0).min(diff(-1.0))
    } else {
        diff(1.0)
    };
    assert!(
        err <= tol,
        "{what}: got {got:?}, expected {want:?}, difference {err:e}"
    );
}

/// Checks every channel of `file` at key times, between keys, on the frame grid and outside the
/// keys, at 60 and 24 fps; returns the 60 fps document.
fn check_file(file: &str, expected_tracks: usize) -> Document {
    let reference = reference(file);
    assert_eq!(
        reference.channels.len(),
        expected_tracks,
        "{file}: reference track count"
    );
    let mut first_doc = None;
    for fps in [60.0, 24.0] {
        // The reference evaluates glTF's own key times: compare without snapping, then check
        // what snapping changes on its own.
        let options = ImportOptions {
            fps,
            snap_to_frames: false,
            ..ImportOptions::default()
        };
        let doc = import_gltf_path(&corpus(file), &options).unwrap();
        let snapped = ImportOptions {
            fps,
            ..ImportOptions::default()
        };
        check_snapping(&doc, &import_gltf_path(&corpus(file), &snapped).unwrap());
        assert_eq!(doc.fps(), fps);
        assert_eq!(doc.tracks().len(), expected_tracks, "{file}: track count");
        for ch in &reference.channels {
            let track = doc
                .track(&ch.track)
                .unwrap_or_else(|| panic!("{file}: no track {}", ch.track));
            assert_eq!(track.keys().len(), ch.times.len(), "{}: keys", ch.track);
            let mut samples: Vec<f64> = Vec::new();
            for (k, &t) in ch.times.iter().enumerate() {
                samples.push(t);
                if let Some(&t1) = ch.times.get(k + 1) {
                    for f in [0.1, 0.25, 0.5, 0.75, 0.9] {
                        samples.push(t + (t1 - t) * f);
                    }
                }
            }
            let first = ch.times[0];
            let end = ch.times[ch.times.len() - 1];
            samples.push(first - 0.5);
            samples.push(end + 0.5);
            let from = (first * fps).floor() as i64 - 1;
            let to = (end * fps).ceil() as i64 + 1;
            for i in from..=to {
                let t = i as f64 / fps;
                // STEP jumps at a key: a grid time within 1e-6 s of one (float32 key times,
                // the corpus README) is sampled at the key itself instead.
                if ch.kind == Kind::Step && ch.times.iter().any(|&tk| (tk - t).abs() < 1e-6) {
                    continue;
                }
                samples.push(t);
            }
            // Our quat tracks normalize their keys on load while glTF's CUBICSPLINE blends the keys
            // as stored and normalizes the result, so there the two may differ by about the keys'
            // distance from unit length (float32 keys: ~1e-8). Everything else: TOL.
            let tol = if ch.rotation && ch.kind == Kind::Cubic {
                TOL + 4.0
                    * ch.elems
                        .iter()
                        .skip(1)
                        .step_by(3)
                        .map(|v| (dot(v, v).sqrt() - 1.0).abs())
                        .fold(0.0, f64::max)
            } else {
                TOL
            };
            for t in samples {
                let got = track.eval(t * fps);
                let want = gltf_eval(ch, t);
                assert_close_tol(
                    &format!("{file} {} at t = {t} s, fps {fps}", ch.track),
                    got.as_slice(),
                    &want,
                    ch.rotation,
                    tol,
                );
            }
        }
        if first_doc.is_none() {
            first_doc = Some(doc);
        }
    }
    first_doc.unwrap()
}

/// Snapping moves a key only onto a whole frame, by at most `|frame| · 2^-21`, and changes the
/// value at every other integer frame by no more than such a shift can (within 1e-6; rotations
/// compared as rotations, q = −q). At the frame a key moved onto, a `step` key now takes effect:
/// that is what snapping is for.
fn check_snapping(exact: &Document, snapped: &Document) {
    for (e, s) in exact.tracks().iter().zip(snapped.tracks()) {
        assert_eq!(e.name(), s.name());
        let mut moved_onto = Vec::new();
        for (ke, ks) in e.keys().iter().zip(s.keys()) {
            if ke.frame != ks.frame {
                assert_eq!(
                    ks.frame,
                    ks.frame.round(),
                    "{}: snapped to a whole frame",
                    s.name()
                );
                assert!(
                    (ke.frame - ks.frame).abs() <= ke.frame.abs() * SNAP_RELATIVE,
                    "{}: {} moved to {}",
                    s.name(),
                    ke.frame,
                    ks.frame
                );
                moved_onto.push(ks.frame);
            }
        }
        let first = e.keys()[0].frame.floor() as i64;
        let last = e.keys()[e.keys().len() - 1].frame.ceil() as i64;
        for frame in (first..=last).filter(|&f| !moved_onto.contains(&(f as f64))) {
            let (a, b) = (e.eval(frame as f64), s.eval(frame as f64));
            let (a, b) = (a.as_slice(), b.as_slice());
            let sign = if s.value_type() == ValueType::Quat && dot(a, b) < 0.0 {
                -1.0
            } else {
                1.0
            };
            for (x, y) in a.iter().zip(b) {
                assert!(
                    (x - sign * y).abs() <= 1e-6,
                    "{} frame {frame}: {x} vs {y}",
                    s.name()
                );
            }
        }
    }
}

#[test]
fn the_last_pose_of_a_clip_lands_on_a_whole_frame() {
    // character_walk at 30 fps: f32 seconds × 30 put its keys just below whole frames
    // (…999990463), so every integer-frame sampling dropped the final pose.
    let raw = ImportOptions {
        fps: 30.0,
        snap_to_frames: false,
        ..ImportOptions::default()
    };
    let exact = import_gltf_path(&corpus("character_walk.gltf"), &raw).unwrap();
    let off_grid = exact
        .tracks()
        .iter()
        .flat_map(|t| t.keys())
        .filter(|k| k.frame != k.frame.round())
        .count();
    assert!(off_grid > 0, "the corpus file has keys off the frame grid");
    let options = ImportOptions {
        fps: 30.0,
        ..ImportOptions::default()
    };
    let doc = import_gltf_path(&corpus("character_walk.gltf"), &options).unwrap();
    for track in doc.tracks() {
        for key in track.keys() {
            assert_eq!(
                key.frame,
                key.frame.round(),
                "{} key at {}",
                track.name(),
                key.frame
            );
        }
    }
}

#[test]
fn snapping_never_makes_two_keys_meet() {
    // Two key times one f32 step apart around 100/60 s: both are within the snapping distance
    // of frame 100, only the first may take it.
    let t0 = (100.0f32 / 60.0).next_down();
    let t1 = 100.0f32 / 60.0;
    let mut json = one_channel(
        "translation",
        "LINEAR",
        &[t0, t1],
        &f32_bytes(&[0.0, 1.0, 2.0, 10.0, 11.0, 12.0]),
        "VEC3",
        5126,
        2,
    );
    json["animations"][0]["name"] = serde_json::json!("near");
    let doc = import_json(&json).unwrap();
    let keys = doc.tracks()[0].keys();
    assert!(
        keys[0].frame < keys[1].frame,
        "{} {}",
        keys[0].frame,
        keys[1].frame
    );
    assert!(keys[0].frame == 100.0 || keys[1].frame == 100.0);
}

// ---------------------------------------------------------------------------------------------
// The corpus, file by file.

#[test]
fn animated_triangle_keeps_turning_across_the_negative_dot_segment() {
    let doc = check_file("AnimatedTriangle.gltf", 1);
    let track = doc.track("0/rotation").unwrap();
    // At t = 1 s the stored key (0,0,0,1); just before it the short path is near (0,0,0,-1).
    assert_close(
        "t=1",
        track.eval(60.0).as_slice(),
        &[0.0, 0.0, 0.0, 1.0],
        true,
    );
    let before = track.eval(59.9);
    let q = before.as_slice();
    // Short way from (0,0,.707,-.707) to -(0,0,0,1): z stays positive and w negative.
    assert!(q[2] > 0.0 && q[2] < 0.01 && q[3] < -0.999, "{q:?}");
}

#[test]
fn simple_skin() {
    check_file("SimpleSkin.gltf", 1);
}

#[test]
fn simple_morph_has_one_scalar_track_per_target() {
    let doc = check_file("SimpleMorph.gltf", 2);
    assert_eq!(doc.track("0/weights/0").unwrap().components(), 1);
    assert_eq!(doc.track("0/weights/1").unwrap().components(), 1);
}

#[test]
fn box_animated_tiny_negative_dot_flip() {
    let doc = check_file("box_animated.gltf", 2);
    // The rotation channel starts at 1.25 s and clamps before it.
    let rot = doc.track("2/rotation").unwrap();
    assert_close(
        "clamped before 1.25 s",
        rot.eval(0.0).as_slice(),
        rot.eval(1.25 * 60.0).as_slice(),
        true,
    );
}

#[test]
fn rigged_simple() {
    check_file("rigged_simple.gltf", 3);
}

#[test]
fn cubicspline_zero_tangents_are_normalized() {
    let doc = check_file("cubicspline.gltf", 2);
    for track in doc.tracks() {
        assert_eq!(track.kinds_used(), vec!["hermite"]);
        let mid = track.eval((track.first_frame() + track.last_frame()) / 2.0);
        assert!((dot(mid.as_slice(), mid.as_slice()) - 1.0).abs() < 1e-12);
    }
}

#[test]
fn interpolation_test_all_nine_animations() {
    let doc = check_file("interpolation_test.gltf", 9);
    // Upstream quirk: "Linear Scale" is CUBICSPLINE (zero tangents), imported as hermite.
    let linear_scale = doc.track("Linear Scale/Cube.001/scale").unwrap();
    assert_eq!(linear_scale.kinds_used(), vec!["hermite"]);
    assert_eq!(
        doc.track("Step Scale/Cube/scale").unwrap().kinds_used(),
        vec!["step"]
    );
    assert_eq!(
        doc.track("Linear Rotation/Cube.005/rotation")
            .map(|t| t.kinds_used()),
        Some(vec!["linear"])
    );
}

#[test]
fn interpolation_test_select_one_animation() {
    let path = corpus("interpolation_test.gltf");
    for selector in [
        AnimationSelector::Index(1),
        AnimationSelector::Name("Linear Scale".into()),
    ] {
        let options = ImportOptions {
            fps: 24.0,
            animation: Some(selector),
            ..ImportOptions::default()
        };
        let doc = import_gltf_path(&path, &options).unwrap();
        let names: Vec<&str> = doc.tracks().iter().map(|t| t.name()).collect();
        assert_eq!(names, ["Cube.001/scale"]);
    }
    let options = ImportOptions {
        animation: Some(AnimationSelector::Name("Nope".into())),
        ..ImportOptions::default()
    };
    let err = import_gltf_path(&path, &options).unwrap_err();
    assert!(
        matches!(err, GltfImportError::AnimationNotFound { .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("#8 \"Linear Translation\""),
        "{err}"
    );
    let options = ImportOptions {
        animation: Some(AnimationSelector::Index(9)),
        ..ImportOptions::default()
    };
    assert!(matches!(
        import_gltf_path(&path, &options),
        Err(GltfImportError::AnimationNotFound { .. })
    ));
}

#[test]
fn character_walk_short_way_on_twelve_negative_dot_segments() {
    let doc = check_file("character_walk.gltf", 69);
    let reference = reference("character_walk.gltf");
    let mut negative = 0;
    for ch in reference.channels.iter().filter(|c| c.rotation) {
        let track = doc.track(&ch.track).unwrap();
        for k in 0..ch.times.len() - 1 {
            let a = normalize(&ch.elems[k]);
            let b = normalize(&ch.elems[k + 1]);
            let d = dot(&a, &b);
            if d >= 0.0 {
                continue;
            }
            negative += 1;
            // Half of the short arc, π − acos(d), from key k: |q_mid · q_k| = cos((π − φ)/2).
            let mid = track.eval((ch.times[k] + ch.times[k + 1]) / 2.0 * 60.0);
            let want = ((std::f64::consts::PI - d.acos()) / 2.0).cos();
            let got = dot(mid.as_slice(), &a).abs();
            assert!(
                (got - want).abs() < 1e-9,
                "{} segment {k}: {got} vs {want}",
                ch.track
            );
        }
    }
    assert_eq!(negative, 12);
}

// ---------------------------------------------------------------------------------------------
// Files built here: data: URIs, GLB, sparse and normalized accessors, and malformed files.

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A one-channel file: node "n", animation "walk", times in view 0, values in view 1.
fn one_channel(
    path: &str,
    interpolation: &str,
    times: &[f32],
    values: &[u8],
    out_type: &str,
    out_component: u32,
    out_count: usize,
) -> serde_json::Value {
    let mut bin = f32_bytes(times);
    let t_len = bin.len();
    bin.extend_from_slice(values);
    serde_json::json!({
        "asset": {"version": "2.0"},
        "nodes": [{"name": "n"}],
        "buffers": [{"byteLength": bin.len(),
                     "uri": format!("data:application/octet-stream;base64,{}", b64_encode(&bin))}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": t_len},
            {"buffer": 0, "byteOffset": t_len, "byteLength": values.len()}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": times.len(), "type": "SCALAR"},
            {"bufferView": 1, "componentType": out_component, "count": out_count, "type": out_type}
        ],
        "animations": [{"name": "walk",
            "channels": [{"sampler": 0, "target": {"node": 0, "path": path}}],
            "samplers": [{"input": 0, "output": 1, "interpolation": interpolation}]}]
    })
}

fn import_json(json: &serde_json::Value) -> Result<Document, GltfImportError> {
    import_gltf_slice(
        &serde_json::to_vec(json).unwrap(),
        None,
        &ImportOptions::default(),
    )
}

fn translation_file() -> serde_json::Value {
    one_channel(
        "translation",
        "LINEAR",
        &[0.0, 0.5],
        &f32_bytes(&[0.0, 1.0, 2.0, 10.0, 11.0, 12.0]),
        "VEC3",
        5126,
        2,
    )
}

#[test]
fn built_file_imports() {
    let doc = import_json(&translation_file()).unwrap();
    let t = doc.track("n/translation").unwrap();
    assert_eq!(t.keys()[1].frame, 30.0);
    assert_close("mid", t.eval(15.0).as_slice(), &[5.0, 6.0, 7.0], false);
}

#[test]
fn glb_with_binary_chunk() {
    let mut json = translation_file();
    let uri = json["buffers"][0]["uri"].as_str().unwrap().to_string();
    let bin = b64_decode(uri.split_once(";base64,").unwrap().1);
    json["buffers"][0] = serde_json::json!({"byteLength": bin.len()});
    let mut text = serde_json::to_vec(&json).unwrap();
    text.resize(text.len().div_ceil(4) * 4, b' ');
    let mut bin_chunk = bin.clone();
    bin_chunk.resize(bin.len().div_ceil(4) * 4, 0);
    let total = 12 + 8 + text.len() + 8 + bin_chunk.len();
    let mut glb = Vec::new();
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    glb.extend_from_slice(&(bin_chunk.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin_chunk);
    let doc = import_gltf_slice(&glb, None, &ImportOptions::default()).unwrap();
    let t = doc.track("n/translation").unwrap();
    assert_close("glb mid", t.eval(15.0).as_slice(), &[5.0, 6.0, 7.0], false);
}

#[test]
fn normalized_byte_rotations_decode_by_the_gltf_rule() {
    // i8 normalized: max(c / 127, −1); -128 → −1.
    let values: Vec<u8> = [0i8, 0, 0, 127, 0, 0, -128, 0]
        .iter()
        .map(|&c| c as u8)
        .collect();
    let json = one_channel("rotation", "STEP", &[0.0, 1.0], &values, "VEC4", 5120, 2);
    let mut json = json;
    json["accessors"][1]["normalized"] = serde_json::json!(true);
    let doc = import_json(&json).unwrap();
    let t = doc.track("n/rotation").unwrap();
    assert_close(
        "key 1",
        t.eval(60.0).as_slice(),
        &[0.0, 0.0, -1.0, 0.0],
        true,
    );
    // Not normalized: refused.
    json["accessors"][1]["normalized"] = serde_json::json!(false);
    let err = import_json(&json).unwrap_err();
    assert!(
        matches!(
            &err,
            GltfImportError::Accessor {
                role: "output",
                accessor: 1,
                problem: AccessorProblem::WrongType { .. },
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn normalized_u16_weights() {
    let values: Vec<u8> = [0u16, 65535, 32768, 0]
        .iter()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let mut json = one_channel("weights", "LINEAR", &[0.0, 1.0], &values, "SCALAR", 5123, 4);
    json["accessors"][1]["normalized"] = serde_json::json!(true);
    let doc = import_json(&json).unwrap();
    assert_close(
        "w0",
        doc.track("n/weights/0").unwrap().eval(60.0).as_slice(),
        &[32768.0 / 65535.0],
        false,
    );
    assert_close(
        "w1",
        doc.track("n/weights/1").unwrap().eval(0.0).as_slice(),
        &[1.0],
        false,
    );
}

#[test]
fn sparse_output_replaces_elements() {
    // Base values all zero (no bufferView); the sparse part sets element 1 to (3, 4, 5).
    let mut json = one_channel("scale", "LINEAR", &[0.0, 1.0], &[], "VEC3", 5126, 2);
    let times = f32_bytes(&[0.0, 1.0]);
    let mut bin = times.clone();
    bin.extend_from_slice(&1u16.to_le_bytes());
    bin.extend_from_slice(&[0, 0]);
    bin.extend_from_slice(&f32_bytes(&[3.0, 4.0, 5.0]));
    json["buffers"][0] = serde_json::json!({"byteLength": bin.len(),
        "uri": format!("data:application/gltf-buffer;base64,{}", b64_encode(&bin))});
    json["bufferViews"] = serde_json::json!([
        {"buffer": 0, "byteOffset": 0, "byteLength": 8},
        {"buffer": 0, "byteOffset": 8, "byteLength": 2},
        {"buffer": 0, "byteOffset": 12, "byteLength": 12}
    ]);
    json["accessors"][1] = serde_json::json!({"componentType": 5126, "count": 2, "type": "VEC3",
        "sparse": {"count": 1,
                   "indices": {"bufferView": 1, "componentType": 5123},
                   "values": {"bufferView": 2}}});
    let doc = import_json(&json).unwrap();
    let t = doc.track("n/scale").unwrap();
    assert_close(
        "sparse key 0",
        t.eval(0.0).as_slice(),
        &[0.0, 0.0, 0.0],
        false,
    );
    assert_close(
        "sparse key 1",
        t.eval(60.0).as_slice(),
        &[3.0, 4.0, 5.0],
        false,
    );
}

#[test]
fn unknown_extensions_and_missing_images_are_tolerated() {
    let mut json = translation_file();
    json["extensionsUsed"] = serde_json::json!(["VENDOR_unknown"]);
    json["extensionsRequired"] = serde_json::json!(["VENDOR_unknown"]);
    json["nodes"][0]["extensions"] = serde_json::json!({"VENDOR_unknown": {"x": 1}});
    json["images"] = serde_json::json!([{"uri": "does-not-exist.png"}]);
    json["textures"] = serde_json::json!([{"source": 0}]);
    import_json(&json).unwrap();
    json["extensionsRequired"] = serde_json::json!(["EXT_meshopt_compression"]);
    assert!(matches!(
        import_json(&json),
        Err(GltfImportError::UnsupportedExtension(_))
    ));
}

#[test]
fn several_animations_get_a_prefix_and_shared_node_names_an_index() {
    let mut json = translation_file();
    json["nodes"] = serde_json::json!([{"name": "n"}, {"name": "n"}]);
    let anim = json["animations"][0].clone();
    let mut second = anim.clone();
    second["name"] = serde_json::json!(null);
    second["channels"][0]["target"]["node"] = serde_json::json!(1);
    json["animations"] = serde_json::json!([anim, second]);
    let doc = import_json(&json).unwrap();
    let names: Vec<&str> = doc.tracks().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["walk/n#0/translation", "1/n#1/translation"]);
}

#[test]
fn a_made_up_name_never_takes_a_real_node_name() {
    // Node 0 is really named "n#1"; nodes 1 and 2 share "n", so node 1's made-up label would be
    // "n#1" too. The two channels drive different nodes and must both import.
    let mut json = translation_file();
    json["nodes"] = serde_json::json!([{"name": "n#1"}, {"name": "n"}, {"name": "n"}]);
    let mut channel = json["animations"][0]["channels"][0].clone();
    channel["target"]["node"] = serde_json::json!(1);
    json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(channel);
    let doc = import_json(&json).unwrap();
    let names: Vec<&str> = doc.tracks().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["n#1/translation", "n#1#1/translation"]);
}

#[test]
fn slashes_in_names_cannot_make_two_tracks_one() {
    // Animation "a/b" driving node "c" and animation "a" driving node "b/c" both spell
    // "a/b/c/translation"; the second gets its node index after its label.
    let mut json = translation_file();
    json["nodes"] = serde_json::json!([{"name": "c"}, {"name": "b/c"}]);
    let mut first = json["animations"][0].clone();
    first["name"] = serde_json::json!("a/b");
    let mut second = first.clone();
    second["name"] = serde_json::json!("a");
    second["channels"][0]["target"]["node"] = serde_json::json!(1);
    json["animations"] = serde_json::json!([first, second]);
    let doc = import_json(&json).unwrap();
    let names: Vec<&str> = doc.tracks().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["a/b/c/translation", "a/b/c#1/translation"]);
}

#[test]
fn two_channels_on_one_node_property_are_still_refused() {
    let mut json = translation_file();
    let channel = json["animations"][0]["channels"][0].clone();
    json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(channel);
    let err = import_json(&json).unwrap_err();
    assert!(
        matches!(err, GltfImportError::DuplicateTarget { first: 0, .. }),
        "{err}"
    );
}

#[test]
fn a_missing_animation_lists_twenty_and_counts_the_rest() {
    let mut json = translation_file();
    let anim = json["animations"][0].clone();
    json["animations"] = serde_json::Value::Array(
        (0..20_000)
            .map(|i| {
                let mut a = anim.clone();
                a["name"] = serde_json::json!(format!("clip{i}"));
                a
            })
            .collect(),
    );
    let options = ImportOptions {
        animation: Some(AnimationSelector::Name("nope".into())),
        ..ImportOptions::default()
    };
    let bytes = serde_json::to_vec(&json).unwrap();
    let err = import_gltf_slice(&bytes, None, &options).unwrap_err();
    let m = message(&err);
    assert!(
        m.contains("#19 \"clip19\", and 19980 more (select by index: 0 to 19999)"),
        "{m}"
    );
    assert!(!m.contains("clip20\""), "{m}");
    assert!(m.len() < 600, "{} bytes: {m}", m.len());
}

fn message(err: &GltfImportError) -> String {
    err.to_string()
}

#[test]
fn missing_buffer_names_buffer_animation_channel_and_accessor() {
    let mut json = translation_file();
    json["buffers"][0]["uri"] = serde_json::json!("missing.bin");
    let bytes = serde_json::to_vec(&json).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("no-such-folder");
    let err = import_gltf_slice(&bytes, Some(&dir), &ImportOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            GltfImportError::Buffer {
                buffer: 0,
                accessor: 0,
                ..
            }
        ),
        "{err}"
    );
    let m = message(&err);
    for part in [
        "buffer 0",
        "missing.bin",
        "animation #0 \"walk\"",
        "channel 0",
        "accessor 0",
    ] {
        assert!(m.contains(part), "{m} lacks {part}");
    }
    // Without a base folder, a relative URI cannot be read either.
    assert!(matches!(
        import_json(&json),
        Err(GltfImportError::Buffer { .. })
    ));
    // A buffer shorter than its byteLength.
    let mut json = translation_file();
    json["buffers"][0]["byteLength"] = serde_json::json!(1000);
    json["bufferViews"][1]["byteLength"] = serde_json::json!(24);
    assert!(matches!(
        import_json(&json),
        Err(GltfImportError::Buffer { .. })
    ));
}

#[test]
fn wrong_accessor_type() {
    let json = one_channel(
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &f32_bytes(&[0.0, 1.0, 2.0, 3.0]),
        "VEC2",
        5126,
        2,
    );
    let err = import_json(&json).unwrap_err();
    assert!(
        matches!(
            &err,
            GltfImportError::Accessor {
                role: "output",
                accessor: 1,
                problem: AccessorProblem::WrongType { .. },
                ..
            }
        ),
        "{err}"
    );
    let m = message(&err);
    for part in [
        "animation #0 \"walk\"",
        "channel 0",
        "output accessor 1",
        "VEC3 of FLOAT",
        "VEC2",
    ] {
        assert!(m.contains(part), "{m} lacks {part}");
    }
}

#[test]
fn index_out_of_range() {
    let mut json = translation_file();
    json["animations"][0]["samplers"][0]["input"] = serde_json::json!(7);
    let err = import_json(&json).unwrap_err();
    assert!(matches!(err, GltfImportError::Invalid { .. }), "{err}");
    assert!(
        message(&err).contains("animations[0].samplers[0].input"),
        "{err}"
    );
    // A view that runs past its buffer.
    let mut json = translation_file();
    json["bufferViews"][1]["byteLength"] = serde_json::json!(400);
    let err = import_json(&json).unwrap_err();
    assert!(
        matches!(
            &err,
            GltfImportError::Accessor {
                problem: AccessorProblem::OutOfBounds { .. },
                ..
            }
        ),
        "{err}"
    );
    // An accessor that reads past its view.
    let mut json = translation_file();
    json["accessors"][1]["count"] = serde_json::json!(3);
    let err = import_json(&json).unwrap_err();
    assert!(
        matches!(
            &err,
            GltfImportError::Accessor {
                accessor: 1,
                problem: AccessorProblem::OutOfBounds { .. },
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn non_increasing_times() {
    let json = one_channel(
        "translation",
        "LINEAR",
        &[0.0, 1.0, 1.0],
        &f32_bytes(&[0.0; 9]),
        "VEC3",
        5126,
        3,
    );
    let err = import_json(&json).unwrap_err();
    assert!(
        matches!(
            &err,
            GltfImportError::Accessor {
                role: "input",
                accessor: 0,
                problem: AccessorProblem::NotIncreasing { element: 2, .. },
                ..
            }
        ),
        "{err}"
    );
    assert!(message(&err).contains("input accessor 0"), "{err}");
}

#[test]
fn nan_and_infinity_are_refused() {
    let json = one_channel(
        "scale",
        "LINEAR",
        &[0.0, 1.0],
        &f32_bytes(&[1.0, 1.0, 1.0, 1.0, f32::NAN, 1.0]),
        "VEC3",
        5126,
        2,
    );
    let err = import_json(&json).unwrap_err();
    assert!(
        matches!(
            &err,
            GltfImportError::Accessor {
                role: "output",
                accessor: 1,
                problem: AccessorProblem::NotFinite {
                    element: 1,
                    component: 1,
                    ..
                },
                ..
            }
        ),
        "{err}"
    );
    let json = one_channel(
        "scale",
        "LINEAR",
        &[0.0, f32::INFINITY],
        &f32_bytes(&[1.0; 6]),
        "VEC3",
        5126,
        2,
    );
    assert!(matches!(
        import_json(&json),
        Err(GltfImportError::Accessor {
            role: "input",
            problem: AccessorProblem::NotFinite { .. },
            ..
        })
    ));
}

#[test]
fn count_mismatch() {
    let json = one_channel(
        "translation",
        "CUBICSPLINE",
        &[0.0, 1.0],
        &f32_bytes(&[0.0; 6]),
        "VEC3",
        5126,
        2,
    );
    let err = import_json(&json).unwrap_err();
    assert!(
        matches!(
            &err,
            GltfImportError::CountMismatch {
                keys: 2,
                found: 2,
                ..
            }
        ),
        "{err}"
    );
    assert!(message(&err).contains("in-tangent"), "{err}");
}

#[test]
fn zero_rotation_key_and_bad_fps_and_no_animations() {
    let json = one_channel(
        "rotation",
        "LINEAR",
        &[0.0, 1.0],
        &f32_bytes(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
        "VEC4",
        5126,
        2,
    );
    assert!(matches!(
        import_json(&json),
        Err(GltfImportError::Accessor {
            problem: AccessorProblem::ZeroQuaternion { element: 1 },
            ..
        })
    ));
    let bytes = serde_json::to_vec(&translation_file()).unwrap();
    for fps in [0.0, -1.0, f64::NAN] {
        let options = ImportOptions {
            fps,
            animation: None,
            ..ImportOptions::default()
        };
        assert!(matches!(
            import_gltf_slice(&bytes, None, &options),
            Err(GltfImportError::Fps(_))
        ));
    }
    let json = serde_json::json!({"asset": {"version": "2.0"}, "nodes": [{}]});
    assert!(matches!(
        import_json(&json),
        Err(GltfImportError::NoAnimations)
    ));
    assert!(matches!(
        import_gltf_slice(b"not json", None, &ImportOptions::default()),
        Err(GltfImportError::Parse(_))
    ));
    // A GLB header that declares fewer bytes than itself.
    let mut glb = b"glTF".to_vec();
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&4u32.to_le_bytes());
    assert!(matches!(
        import_gltf_slice(&glb, None, &ImportOptions::default()),
        Err(GltfImportError::Glb(_))
    ));
    // A huge count without a buffer view is refused before anything is allocated.
    let mut json = translation_file();
    json["accessors"][1] = serde_json::json!({"componentType": 5126, "count": 1u64 << 40, "type": "VEC3",
        "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": 5125},
                   "values": {"bufferView": 1}}});
    assert!(matches!(
        import_json(&json),
        Err(GltfImportError::Accessor {
            problem: AccessorProblem::TooLarge { .. },
            ..
        })
    ));
}

/// A `KHR_animation_pointer` channel before a node channel: the pointer becomes a track of the
/// output's type (normalized UNSIGNED_BYTE decoded as c / 255), named by its pointer, and errors
/// in the node channel still give its index in the file (1), not its place among node channels.
#[test]
fn pointer_channels_import_and_keep_the_file_channel_indices() {
    let mut json = translation_file();
    let bin_uri = json["buffers"][0]["uri"].as_str().unwrap().to_string();
    let mut bin = b64_decode(bin_uri.split_once(";base64,").unwrap().1);
    let colour_at = bin.len();
    bin.extend_from_slice(&[255, 0, 51, 255, 0, 255, 102, 255]);
    json["buffers"][0] = serde_json::json!({"byteLength": bin.len(),
        "uri": format!("data:application/octet-stream;base64,{}", b64_encode(&bin))});
    json["bufferViews"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"buffer": 0, "byteOffset": colour_at, "byteLength": 8}));
    json["accessors"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!(
        {"bufferView": 2, "componentType": 5121, "normalized": true, "count": 2, "type": "VEC4"}));
    let animation = &mut json["animations"][0];
    animation["samplers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"input": 0, "output": 2}));
    let pointer = "/materials/0/pbrMetallicRoughness/baseColorFactor";
    animation["channels"].as_array_mut().unwrap().insert(
        0,
        serde_json::json!({"sampler": 1, "target": {"path": "pointer",
            "extensions": {"KHR_animation_pointer": {"pointer": pointer}}}}),
    );
    let doc = import_json(&json).unwrap();
    let colour = doc.track(pointer).unwrap();
    assert_eq!(colour.value_type(), inbetween::ValueType::Color);
    assert_close(
        "mid",
        colour.eval(15.0).as_slice(),
        &[0.5, 0.5, 0.3, 1.0],
        false,
    );
    assert!(doc.track("n/translation").is_some());
    json["animations"][0]["samplers"][0]["output"] = serde_json::json!(0);
    let e = import_json(&json).unwrap_err().to_string();
    assert!(
        e.starts_with("animation #0 \"walk\", channel 1 (sampler 0), output accessor 0:"),
        "{e}"
    );
}
