//! glTF export: files that load with the gltf crate, pass the Khronos validator, and import back
//! to the same values.
#![cfg(feature = "gltf")]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use inbetween::gltf_export::{export_gltf, export_gltf_with, ExportOptions, ExportedAs};
use inbetween::gltf_import::{
    import_gltf_path, import_gltf_path_with_scene, import_gltf_slice, import_gltf_slice_with_scene,
    load_gltf_model, ImportOptions,
};
use inbetween::gltf_scene::{GltfScene, SCENE_FIELD};
use inbetween::{Document, Interp, Track, ValueType};

mod gltf_validator;
use gltf_validator::{khronos_validator_passes, validator_reports};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/gltf")
        .join(name)
}

/// Every exported track, imported back, matches the original at every integer frame (values
/// and times go through f32, so within 1e-5 of the track's scale plus slope × time rounding).
fn assert_round_trip(doc: &Document, glb: bool) {
    let (bytes, report) = export_gltf(doc, glb).unwrap();
    gltf::Gltf::from_slice(&bytes).expect("the gltf crate loads the export");
    let back = import_gltf_slice(
        &bytes,
        None,
        &ImportOptions {
            fps: doc.fps(),
            animation: None,
            ..ImportOptions::default()
        },
    )
    .unwrap();
    assert_eq!(back.tracks().len(), report.channels.len());
    for (name, node, path, _) in &report.channels {
        let original = doc.track(name).unwrap();
        let again = back
            .track(&format!("{node}/{path}"))
            .unwrap_or_else(|| panic!("{node}/{path} not imported"));
        let (from, to) = (
            original.first_frame().ceil() as i64,
            original.last_frame().floor() as i64,
        );
        for f in from..=to {
            let (a, b) = (original.eval(f as f64), again.eval(f as f64));
            let sign = if original.value_type() == inbetween::ValueType::Quat
                && a.iter().zip(b.iter()).map(|(x, y)| x * y).sum::<f64>() < 0.0
            {
                -1.0
            } else {
                1.0
            };
            for (x, y) in a.iter().zip(b.iter()) {
                assert!(
                    (x - sign * y).abs() <= 2e-5 * original.scale(),
                    "{name} frame {f}: {x} vs {y}"
                );
            }
        }
    }
}

#[test]
fn corpus_files_round_trip_through_export() {
    for file in [
        "character_walk.gltf",
        "interpolation_test.gltf",
        "box_animated.gltf",
        "cubicspline.gltf",
        "AnimatedTriangle.gltf",
    ] {
        let doc = import_gltf_path(&corpus(file), &ImportOptions::default()).unwrap();
        assert_round_trip(&doc, false);
        assert_round_trip(&doc, true);
    }
}

#[test]
fn samplers_are_exact_where_gltf_can_say_it() {
    let doc = Document::builder()
        .fps(24.0)
        .track(
            Track::vec3("a/translation")
                .key(0.0, [0.0, 0.0, 0.0])
                .interp(Interp::Step)
                .key(10.0, [1.0, 2.0, 3.0]),
        )
        .track(
            Track::quat("a/rotation")
                .key(0.0, [0.0, 0.0, 0.0, 1.0])
                .key(12.0, [0.0, 0.0, 1.0, 0.0]),
        )
        .track(
            Track::vec3("b")
                .key(0.0, [0.0, 0.0, 0.0])
                .interp(Interp::CatmullRom)
                .key(5.0, [1.0, 4.0, 0.0])
                .bezier([2.0, 4.0, 0.0], [3.0, 0.0, 1.0])
                .key(9.0, [4.0, 0.0, 0.0])
                .interp(Interp::Linear)
                .key(20.0, [0.0, 0.0, 2.0]),
        )
        .track(
            Track::vec3("c")
                .key(0.0, [0.0, 0.0, 0.0])
                .ease(inbetween::Ease::Smoothstep)
                .key(10.0, [1.0, 1.0, 1.0]),
        )
        .track(Track::scalar("n/weights/0").key(0.0, 1.0))
        .build()
        .unwrap();
    let (_, report) = export_gltf(&doc, false).unwrap();
    let how: Vec<&ExportedAs> = report.channels.iter().map(|c| &c.3).collect();
    assert_eq!(how[0], &ExportedAs::Exact("STEP"));
    assert_eq!(how[1], &ExportedAs::Exact("LINEAR"));
    assert_eq!(how[2], &ExportedAs::Exact("CUBICSPLINE"));
    assert!(matches!(how[3], ExportedAs::Baked(_)));
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].0, "n/weights/0");
    assert_eq!(report.channels[0].1, "a");
    assert_eq!(report.channels[0].2, "translation");
    assert_round_trip(&doc, false);
    // The exact cubic matches between frames too, not only at them.
    let (bytes, _) = export_gltf(&doc, true).unwrap();
    let back = import_gltf_slice(
        &bytes,
        None,
        &ImportOptions {
            fps: 24.0,
            animation: None,
            ..ImportOptions::default()
        },
    )
    .unwrap();
    let (a, b) = (
        doc.track("b").unwrap(),
        back.track("b/translation").unwrap(),
    );
    for k in 0..200 {
        let f = f64::from(k) * 0.1;
        for (x, y) in a.eval(f).iter().zip(b.eval(f).iter()) {
            assert!((x - y).abs() <= 1e-5, "frame {f}: {x} vs {y}");
        }
    }
}

#[test]
fn negative_times_are_shifted_and_nothing_exportable_is_an_error() {
    let doc = Document::builder()
        .track(
            Track::vec3("p")
                .key(-30.0, [0.0, 0.0, 0.0])
                .key(30.0, [1.0, 1.0, 1.0]),
        )
        .build()
        .unwrap();
    let (_, report) = export_gltf(&doc, false).unwrap();
    assert_eq!(report.time_shift, 0.5);
    let none = Document::builder()
        .track(Track::scalar("s/weights/0").key(0.0, 1.0))
        .build()
        .unwrap();
    let e = export_gltf(&none, false).unwrap_err();
    assert!(e.to_string().contains("\"s/weights/0\""), "{e}");
}

/// Writes `bytes` as `dir/name` and returns the path.
fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Exports of the showcase and of imported corpus files (flat, without a record) pass the
/// Khronos validator with no errors and no warnings.
#[test]
fn exports_pass_the_khronos_validator() {
    let dir = tempfile_dir("flat");
    let mut files = Vec::new();
    let showcase = Document::from_json_str(
        include_str!("../../../examples/showcase.json"),
        "showcase.json",
    )
    .unwrap();
    let walk = import_gltf_path(&corpus("character_walk.gltf"), &ImportOptions::default()).unwrap();
    let interp = import_gltf_path(
        &corpus("interpolation_test.gltf"),
        &ImportOptions::default(),
    )
    .unwrap();
    for (name, doc) in [
        ("showcase", &showcase),
        ("walk", &walk),
        ("interpolation", &interp),
    ] {
        for glb in [false, true] {
            let (bytes, _) = export_gltf(doc, glb).unwrap();
            let ext = if glb { "glb" } else { "gltf" };
            files.push(write_file(&dir, &format!("{name}.{ext}"), &bytes));
        }
    }
    khronos_validator_passes(&files);
}

fn tempfile_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "inbetween-gltf-export-{}-{test}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The source file's JSON.
fn source_json(file: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(corpus(file)).unwrap()).unwrap()
}

/// Imports `file` with its record and passes both through the document's JSON text, as
/// `inbetween import` writes it and `inbetween export` reads it back.
fn import_through_json(file: &str) -> (Document, GltfScene) {
    let import = import_gltf_path_with_scene(&corpus(file), &ImportOptions::default()).unwrap();
    let mut fields = serde_json::Map::new();
    fields.insert(SCENE_FIELD.into(), import.scene.to_json());
    let text = import.document.to_json_string_with_fields(fields);
    let (doc, warnings) = Document::from_json_str_with_warnings(&text, file).unwrap();
    assert!(warnings.is_empty(), "{file}: {warnings:?}");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let scene = GltfScene::from_document_json(&json).unwrap().unwrap();
    assert_eq!(
        scene, import.scene,
        "{file}: the record reads back as written"
    );
    (doc, scene)
}

/// An animation's name and the (node, path) targets of its channels.
type AnimationTargets = (Option<String>, BTreeSet<(u64, String)>);

/// The (node, path) targets of each animation's channels, by animation, weights left out.
fn node_targets(root: &serde_json::Value) -> Vec<AnimationTargets> {
    let animations = root["animations"].as_array().cloned().unwrap_or_default();
    animations
        .iter()
        .map(|a| {
            let targets = a["channels"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["target"]["path"] != "weights" && c["target"]["node"].is_u64())
                .map(|c| {
                    let t = &c["target"];
                    (
                        t["node"].as_u64().unwrap(),
                        t["path"].as_str().unwrap().into(),
                    )
                })
                .collect();
            (a["name"].as_str().map(String::from), targets)
        })
        .collect()
}

/// `a` and `b` agree at every integer frame of `a`'s keyed span, within f32 rounding (2e-5 of
/// the track's scale; quaternions up to sign).
fn assert_same_at_every_frame(a: &Track, b: &Track, context: &str) {
    let (from, to) = (a.first_frame().ceil() as i64, a.last_frame().floor() as i64);
    for f in from..=to {
        let (x, y) = (a.eval(f as f64), b.eval(f as f64));
        let dot: f64 = x.iter().zip(y.iter()).map(|(p, q)| p * q).sum();
        let sign = if a.value_type() == ValueType::Quat && dot < 0.0 {
            -1.0
        } else {
            1.0
        };
        for (p, q) in x.iter().zip(y.iter()) {
            assert!(
                (p - sign * q).abs() <= 2e-5 * a.scale().max(1.0),
                "{context} {} frame {f}: {p} vs {q}",
                a.name()
            );
        }
    }
}

/// Corpus files imported (with their record), written to JSON and exported come back with the
/// source's nodes (names, children, rest TRS as written, same indices), scenes, animation names
/// and channel targets, and import to the same values at every frame; the Khronos validator
/// passes every export.
#[test]
fn corpus_files_export_onto_their_own_nodes_and_animations() {
    let dir = tempfile_dir("onto");
    let mut files = Vec::new();
    for file in [
        "character_walk.gltf",
        "rigged_simple.gltf",
        "cubicspline.gltf",
        "interpolation_test.gltf",
        "box_animated.gltf",
        "SimpleSkin.gltf",
        "AnimatedTriangle.gltf",
    ] {
        let source = source_json(file);
        let (doc, scene) = import_through_json(file);
        let original = import_gltf_path(&corpus(file), &ImportOptions::default()).unwrap();
        for glb in [false, true] {
            let options = ExportOptions {
                glb,
                scene: Some(&scene),
                ..ExportOptions::default()
            };
            let (bytes, report) = export_gltf_with(&doc, &options).unwrap();
            assert!(report.skipped.is_empty(), "{file}: {:?}", report.skipped);
            let ext = if glb { "glb" } else { "gltf" };
            files.push(write_file(&dir, &format!("{file}.{ext}"), &bytes));
            let back = import_gltf_slice(&bytes, None, &ImportOptions::default()).unwrap();
            assert_eq!(back.tracks().len(), original.tracks().len(), "{file}");
            for track in original.tracks() {
                let again = back
                    .track(track.name())
                    .unwrap_or_else(|| panic!("{file}: {} not exported", track.name()));
                assert_same_at_every_frame(track, again, file);
            }
            if !glb {
                let out: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                assert_same_hierarchy(&source, &out, file);
            }
        }
    }
    khronos_validator_passes(&files);
}

/// The exported nodes, scenes and animations are the source's.
fn assert_same_hierarchy(source: &serde_json::Value, out: &serde_json::Value, file: &str) {
    let (src_nodes, out_nodes) = (
        source["nodes"].as_array().unwrap(),
        out["nodes"].as_array().unwrap(),
    );
    assert_eq!(src_nodes.len(), out_nodes.len(), "{file}");
    for (i, (a, b)) in src_nodes.iter().zip(out_nodes).enumerate() {
        for field in [
            "name",
            "children",
            "translation",
            "rotation",
            "scale",
            "matrix",
        ] {
            assert_eq!(a.get(field), b.get(field), "{file} node {i} {field}");
        }
    }
    for (i, s) in source["scenes"].as_array().unwrap().iter().enumerate() {
        assert_eq!(
            s.get("nodes"),
            out["scenes"][i].get("nodes"),
            "{file} scene {i}"
        );
    }
    assert_eq!(source.get("scene"), out.get("scene"), "{file}");
    assert_eq!(node_targets(source), node_targets(out), "{file}");
}

/// An edited import: a removed track loses its channel, a new `NODE/PATH` track for a node the
/// source lacks gets a new root node, a new scalar goes through `KHR_animation_pointer`, and the
/// source's nodes and animation stay as they were.
#[test]
fn edited_imports_keep_the_source_hierarchy() {
    let import =
        import_gltf_path_with_scene(&corpus("character_walk.gltf"), &ImportOptions::default())
            .unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(&import.document.to_json_string()).unwrap();
    let tracks = json["tracks"].as_array_mut().unwrap();
    let removed = tracks.remove(0)["name"].as_str().unwrap().to_string();
    tracks.push(
        serde_json::json!({"name": "prop/translation", "type": "vec3",
        "keys": [{"frame": 0, "value": [0, 0, 0]}, {"frame": 10, "value": [1, 2, 3]}]}),
    );
    tracks.push(serde_json::json!({"name": "glow", "type": "scalar",
        "keys": [{"frame": 0, "value": 0}, {"frame": 10, "value": 1}]}));
    let doc = Document::from_json_str(&json.to_string(), "edited.json").unwrap();
    let options = ExportOptions {
        glb: false,
        scene: Some(&import.scene),
        ..ExportOptions::default()
    };
    let (bytes, report) = export_gltf_with(&doc, &options).unwrap();
    let out: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let source = source_json("character_walk.gltf");
    let count = source["nodes"].as_array().unwrap().len();
    assert_eq!(out["nodes"][count]["name"], "prop");
    let roots = out["scenes"][0]["nodes"].as_array().unwrap();
    assert!(roots.contains(&serde_json::json!(count)), "{roots:?}");
    assert_eq!(out["animations"].as_array().unwrap().len(), 1);
    assert_eq!(
        out["animations"][0]["name"],
        source["animations"][0]["name"]
    );
    let glow = report.channels.iter().find(|c| c.0 == "glow").unwrap();
    assert_eq!(
        (glow.1.as_str(), glow.2),
        ("/extras/inbetween/glow", "pointer")
    );
    assert!(report.channels.iter().all(|c| c.0 != removed));
    for (i, node) in source["nodes"].as_array().unwrap().iter().enumerate() {
        assert_eq!(node.get("name"), out["nodes"][i].get("name"));
        assert_eq!(node.get("children"), out["nodes"][i].get("children"));
    }
    let back = import_gltf_slice(&bytes, None, &ImportOptions::default()).unwrap();
    assert!(back.track(&removed).is_none());
    assert_same_at_every_frame(
        doc.track("prop/translation").unwrap(),
        back.track("prop/translation").unwrap(),
        "edited",
    );
}

/// A document of vec2, scalar, colour and pointer-named tracks: written through
/// `KHR_animation_pointer` (listed in `extensionsUsed`, not required), validator-clean, and read
/// back to the same values at every frame and between frames for the exact samplers; the read
/// back's record exports to the same pointers again.
#[test]
fn vec2_scalar_and_colour_tracks_go_through_animation_pointer_and_come_back() {
    let doc = Document::from_json_str(
        r#"{"inbetween": 1, "fps": 24, "tracks": [
 {"name": "tint", "type": "color", "keys": [{"frame": 0, "value": [1, 0, 0, 1]}, {"frame": 24, "value": [0, 0, 1, 1]}]},
 {"name": "uv", "type": "vec2", "keys": [{"frame": 0, "value": [0, 0], "interp": {"bezier": {"out": [0.2, 0], "in": [0.8, 1]}}}, {"frame": 24, "value": [1, 1]}]},
 {"name": "fade", "type": "scalar", "keys": [{"frame": 0, "value": 0, "interp": "step"}, {"frame": 12, "value": 1}]},
 {"name": "/materials/0/emissiveFactor", "type": "vec3", "keys": [{"frame": 0, "value": [0, 0, 0]}, {"frame": 24, "value": [1, 0.5, 0]}]},
 {"name": "/materials/0/extensions/KHR_materials_emissive_strength/emissiveStrength", "type": "scalar", "keys": [{"frame": 0, "value": 1, "ease": "in_out_sine"}, {"frame": 24, "value": 4}]}
]}"#,
        "pointers.json",
    )
    .unwrap();
    let dir = tempfile_dir("pointer");
    let mut files = Vec::new();
    for glb in [false, true] {
        let (bytes, report) = export_gltf(&doc, glb).unwrap();
        assert!(report.skipped.is_empty(), "{:?}", report.skipped);
        assert!(report.channels.iter().all(|c| c.2 == "pointer"));
        let ext = if glb { "glb" } else { "gltf" };
        files.push(write_file(&dir, &format!("pointers.{ext}"), &bytes));
        let options = ImportOptions {
            fps: 24.0,
            ..ImportOptions::default()
        };
        let back = import_gltf_slice_with_scene(&bytes, None, &options).unwrap();
        for (name, again, ty) in [
            (
                "tint",
                "/materials/0/pbrMetallicRoughness/baseColorFactor",
                ValueType::Color,
            ),
            ("uv", "uv", ValueType::Vec2),
            ("fade", "fade", ValueType::Scalar),
            (
                "/materials/0/emissiveFactor",
                "/materials/0/emissiveFactor",
                ValueType::Vec3,
            ),
        ] {
            let (a, b) = (
                doc.track(name).unwrap(),
                back.document.track(again).unwrap(),
            );
            assert_eq!(b.value_type(), ty, "{again}");
            for k in 0..=96 {
                let f = f64::from(k) * 0.25;
                for (x, y) in a.eval(f).iter().zip(b.eval(f).iter()) {
                    assert!((x - y).abs() <= 1e-6, "{name} frame {f}: {x} vs {y}");
                }
            }
        }
        let eased = doc.tracks()[4].name();
        assert_same_at_every_frame(
            doc.track(eased).unwrap(),
            back.document.track(eased).unwrap(),
            "eased",
        );
        let again = ExportOptions {
            glb,
            scene: Some(&back.scene),
            ..ExportOptions::default()
        };
        let (_, report_again) = export_gltf_with(&back.document, &again).unwrap();
        let pointers = |r: &inbetween::gltf_export::ExportReport| {
            r.channels.iter().map(|c| c.1.clone()).collect::<Vec<_>>()
        };
        assert_eq!(pointers(&report_again), pointers(&report));
    }
    let (bytes, _) = export_gltf(&doc, false).unwrap();
    let out: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        out["extensionsUsed"],
        serde_json::json!(["KHR_animation_pointer", "KHR_materials_emissive_strength"])
    );
    assert!(out.get("extensionsRequired").is_none());
    assert_eq!(out["materials"][0]["name"], "tint");
    assert_eq!(
        out["extras"]["inbetween"]["uv"],
        serde_json::json!([0.0, 0.0])
    );
    let channel = &out["animations"][0]["channels"][1];
    assert!(channel["target"].get("node").is_none());
    assert_eq!(
        channel["target"]["extensions"]["KHR_animation_pointer"]["pointer"],
        "/extras/inbetween/uv"
    );
    khronos_validator_passes(&files);
}

/// A pointer outside what the export can define, or of the wrong size, is skipped with its
/// reason; a broken record names the field.
#[test]
fn unusable_pointers_are_skipped_and_broken_records_name_the_field() {
    let doc = Document::builder()
        .track(Track::scalar("/cameras/0/perspective/yfov").key(0.0, 1.0))
        .track(
            Track::vec2("/materials/0/pbrMetallicRoughness/baseColorFactor").key(0.0, [1.0, 1.0]),
        )
        .track(Track::vec3("ok").key(0.0, [0.0, 0.0, 0.0]))
        .build()
        .unwrap();
    let (_, report) = export_gltf(&doc, false).unwrap();
    assert_eq!(
        report.skipped,
        vec![
            (
                "/cameras/0/perspective/yfov".to_string(),
                "pointers outside /materials and /extras need the model's own objects; not exported"
            ),
            (
                "/materials/0/pbrMetallicRoughness/baseColorFactor".to_string(),
                "its number of components does not fit the property its pointer names"
            ),
        ]
    );
    let record = serde_json::json!({"nodes": [{"name": "a", "children": [5]}], "scenes": [],
        "animations": [], "tracks": []});
    assert_eq!(
        GltfScene::from_json(&record).unwrap_err().to_string(),
        "\"x-gltf\".nodes[0].children[0]: expected an index below 1"
    );
}

/// The bytes of every buffer view of `root` over `buffers`.
fn view_bytes(root: &serde_json::Value, buffers: &[&[u8]]) -> Vec<Vec<u8>> {
    root["bufferViews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let buffer = buffers[v["buffer"].as_u64().unwrap() as usize];
            let offset = v["byteOffset"].as_u64().unwrap_or(0) as usize;
            let length = v["byteLength"].as_u64().unwrap() as usize;
            buffer[offset..offset + length].to_vec()
        })
        .collect()
}

/// `export --onto MODEL` of a document imported from MODEL writes the model itself — meshes,
/// skins, materials, nodes, scenes and the bytes of every buffer view as they were — with its
/// animations replaced by the document's (same names, same values at every frame, morph weights
/// included); the validator finds no error and no warning the model does not have itself.
#[test]
fn export_onto_the_whole_model_keeps_it_and_replaces_its_animations() {
    let dir = tempfile_dir("whole");
    let files = [
        "character_walk.gltf",
        "rigged_simple.gltf",
        "cubicspline.gltf",
        "box_animated.gltf",
        "SimpleSkin.gltf",
        "AnimatedTriangle.gltf",
        "SimpleMorph.gltf",
    ];
    let mut written = Vec::new();
    let mut sources = Vec::new();
    for file in files {
        let source = source_json(file);
        let model = load_gltf_model(&corpus(file), &ImportOptions::default()).unwrap();
        let (doc, scene) = import_through_json(file);
        let options = ExportOptions {
            glb: true,
            scene: Some(&scene),
            onto: Some(&model),
        };
        let (bytes, _) = export_gltf_with(&doc, &options).unwrap();
        let glb = gltf::binary::Glb::from_slice(&bytes).unwrap();
        let out: serde_json::Value = serde_json::from_slice(&glb.json).unwrap();
        for key in [
            "meshes",
            "skins",
            "materials",
            "nodes",
            "scenes",
            "scene",
            "asset",
        ] {
            assert_eq!(source.get(key), out.get(key), "{file}: {key}");
        }
        let model_buffers: Vec<&[u8]> = model.buffers.iter().map(Vec::as_slice).collect();
        let bin = glb.bin.as_deref().unwrap();
        let (before, after) = (
            view_bytes(&source, &model_buffers),
            view_bytes(&out, &[bin]),
        );
        assert_eq!(before[..], after[..before.len()], "{file}: buffer views");
        let source_accessors = source["accessors"].as_array().unwrap();
        assert_eq!(
            source_accessors[..],
            out["accessors"].as_array().unwrap()[..source_accessors.len()]
        );
        let names = |root: &serde_json::Value| -> Vec<serde_json::Value> {
            root["animations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a["name"].clone())
                .collect()
        };
        assert_eq!(names(&source), names(&out), "{file}");
        let original = import_gltf_path(&corpus(file), &ImportOptions::default()).unwrap();
        let back = import_gltf_slice(&bytes, None, &ImportOptions::default()).unwrap();
        for track in original.tracks() {
            assert_same_at_every_frame(track, back.track(track.name()).unwrap(), file);
        }
        written.push(write_file(&dir, &format!("{file}.glb"), &bytes));
        sources.push(corpus(file));
    }
    if let (Some(ours), Some(theirs)) = (validator_reports(&written), validator_reports(&sources)) {
        for (a, b) in ours.iter().zip(&theirs) {
            assert_eq!(a["numErrors"], 0, "{a}");
            assert_eq!(a["numWarnings"], b["numWarnings"], "{a}\n{b}");
        }
    }
    let (walk, walk_scene) = import_through_json("character_walk.gltf");
    let other = load_gltf_model(&corpus("rigged_simple.gltf"), &ImportOptions::default()).unwrap();
    let options = ExportOptions {
        glb: false,
        scene: Some(&walk_scene),
        onto: Some(&other),
    };
    assert_eq!(
        export_gltf_with(&walk, &options).unwrap_err().to_string(),
        "the document was imported from another model: the document records 31 nodes, the model \
         has 5; export onto the model it came from, or with --flat"
    );
}

/// Morph weights go out only onto a model whose mesh has the targets, and only with a track for
/// every target: one missing makes the others skipped, saying why.
#[test]
fn morph_weights_need_the_mesh_and_every_target() {
    let model = load_gltf_model(&corpus("SimpleMorph.gltf"), &ImportOptions::default()).unwrap();
    let (doc, scene) = import_through_json("SimpleMorph.gltf");
    let (_, report) = export_gltf_with(
        &doc,
        &ExportOptions {
            glb: true,
            scene: Some(&scene),
            onto: Some(&model),
        },
    )
    .unwrap();
    let paths: Vec<(&str, &str)> = report
        .channels
        .iter()
        .map(|c| (c.0.as_str(), c.2))
        .collect();
    assert_eq!(
        paths,
        [("0/weights/0", "weights"), ("0/weights/1", "weights")]
    );
    let one = Document::builder()
        .track(Track::scalar("0/weights/0").key(0.0, 0.0).key(10.0, 1.0))
        .build()
        .unwrap();
    let options = ExportOptions {
        glb: true,
        scene: None,
        onto: Some(&model),
    };
    assert_eq!(
        export_gltf_with(&one, &options).unwrap_err().to_string(),
        "no track can be exported to glTF: \"0/weights/0\": a weights channel animates every \
         morph target of the mesh; give each target a track"
    );
    let e = export_gltf(&doc, false).unwrap_err().to_string();
    assert!(
        e.contains("morph target weights need the model's mesh (export --onto MODEL)"),
        "{e}"
    );
}
