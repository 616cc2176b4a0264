//! Writing the animations into a whole model (`export --onto model.gltf`): the model's JSON and buffers are kept, its animations replaced by the document's.
//!
//! The model's buffers are merged into one (each at a 4-byte aligned offset, its buffer views
//! moved with it) and the animation data is appended after them, so that the output is one
//! self-contained `.gltf` (a `data:` URI) or `.glb` (the binary chunk). Meshes, skins,
//! materials, cameras, scenes and extensions stay as the model has them; image URIs are kept
//! as written (relative to the output). The accessors the model's own animations used stay in
//! the file, unused.

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{json, Value as Json};

use super::plan::Plan;
use super::{Data, GltfExportError};
use crate::gltf_import::GltfModel;
use crate::gltf_scene::GltfScene;

/// The record's nodes must be the model's (same count, same names at the same indices), so
/// that a recorded node index means the same node.
pub(super) fn check_record(model: &GltfModel, scene: &GltfScene) -> Result<(), GltfExportError> {
    let model_scene = GltfScene::from_gltf_root(&model.root);
    let (ours, theirs) = (scene.node_names(), model_scene.node_names());
    if ours.len() != theirs.len() {
        return Err(GltfExportError::OtherModel(format!(
            "the document records {} nodes, the model has {}",
            ours.len(),
            theirs.len()
        )));
    }
    match ours.iter().zip(&theirs).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(GltfExportError::OtherModel(format!(
            "node {i} is {} in the document's record and {} in the model",
            shown(ours[i]),
            shown(theirs[i])
        ))),
    }
}

fn shown(name: Option<&str>) -> String {
    name.map_or_else(|| "unnamed".to_string(), |n| format!("\"{n}\""))
}

/// The model's buffers merged into one, its buffer views moved onto it and its accessors as
/// they are; the animation data is appended to this.
pub(super) fn merged_data(model: &GltfModel) -> Data {
    let mut buffer: Vec<u8> = Vec::new();
    let mut bases = Vec::with_capacity(model.buffers.len());
    for bytes in &model.buffers {
        buffer.resize(buffer.len().next_multiple_of(4), 0);
        bases.push(buffer.len());
        buffer.extend_from_slice(bytes);
    }
    buffer.resize(buffer.len().next_multiple_of(4), 0);
    let views = array(&model.root, "bufferViews")
        .into_iter()
        .map(|mut view| {
            let b = view.get("buffer").and_then(Json::as_u64).unwrap_or(0);
            let base = usize::try_from(b)
                .ok()
                .and_then(|b| bases.get(b))
                .copied()
                .unwrap_or(0);
            let offset = view.get("byteOffset").and_then(Json::as_u64).unwrap_or(0);
            view["buffer"] = json!(0);
            view["byteOffset"] = json!(offset + base as u64);
            view
        })
        .collect();
    Data {
        buffer,
        views,
        accessors: array(&model.root, "accessors"),
        written_keys: 0,
    }
}

fn array(root: &Json, key: &str) -> Vec<Json> {
    root.get(key)
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The model's JSON with the document's animations, the planned nodes (new ones joining the
/// default scene's roots), materials and `extras`, the merged buffer, and `extensionsUsed`
/// joined with the export's.
pub(super) fn asset_json(
    plan: &Plan<'_>,
    model: &GltfModel,
    animations: Vec<Json>,
    data: &Data,
    used: Vec<String>,
) -> Json {
    let mut gltf = model.root.clone();
    let Some(root) = gltf.as_object_mut() else {
        return gltf;
    };
    root.remove("animations");
    if !animations.is_empty() {
        root.insert("animations".into(), Json::Array(animations));
    }
    root.insert(
        "nodes".into(),
        plan.nodes.iter().cloned().map(Json::Object).collect(),
    );
    add_new_roots(root, &plan.new_nodes);
    for (key, value) in &plan.assets {
        root.insert(key.clone(), value.clone());
    }
    root.insert("buffers".into(), json!([{"byteLength": data.buffer.len()}]));
    root.insert("bufferViews".into(), Json::Array(data.views.clone()));
    root.insert("accessors".into(), Json::Array(data.accessors.clone()));
    let mut all: Vec<String> = array(&model.root, "extensionsUsed")
        .iter()
        .filter_map(|e| e.as_str().map(String::from))
        .chain(used)
        .collect();
    all.sort();
    all.dedup();
    if !all.is_empty() {
        root.insert("extensionsUsed".into(), json!(all));
    }
    gltf
}

/// Nodes made for tracks the model lacks join the default scene (`scene`, else scene 0) as
/// roots; a model without scenes gets one.
fn add_new_roots(root: &mut serde_json::Map<String, Json>, new_nodes: &[usize]) {
    if new_nodes.is_empty() {
        return;
    }
    let default = root.get("scene").and_then(Json::as_u64).unwrap_or(0);
    let scenes = root
        .entry("scenes")
        .or_insert_with(|| json!([{}]))
        .as_array_mut();
    let Some(scene) = scenes.and_then(|s| s.get_mut(usize::try_from(default).unwrap_or(0))) else {
        return;
    };
    if let Some(scene) = scene.as_object_mut() {
        let nodes = scene.entry("nodes").or_insert_with(|| json!([]));
        if let Some(nodes) = nodes.as_array_mut() {
            nodes.extend(new_nodes.iter().map(|n| json!(n)));
        }
    }
}
