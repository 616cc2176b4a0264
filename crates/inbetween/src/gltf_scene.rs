//! The glTF node hierarchy and animation list an import records in a document (`"x-gltf"`), so that `export` writes the tracks back onto the same nodes.
//!
//! A document keeps only tracks; a glTF file also has nodes (names, parents, rest pose) and
//! several named animations. [`GltfScene`] is what the importer saw of them, written in the
//! document as the top-level field `"x-gltf"` (fields starting `x-` are the format's reserved
//! place for extra data: loaded without a warning, ignored by evaluation):
//!
//! ```json
//! "x-gltf": {
//!   "scene": 0, "scenes": [[0]],
//!   "nodes": [{"name": "Hips", "children": [1], "translation": [0, 1, 0]}, {"name": "Leg"}],
//!   "animations": [{"index": 0, "name": "Walk"}],
//!   "tracks": [{"track": "Hips/rotation", "animation": 0, "node": 0, "path": "rotation"}]
//! }
//! ```
//!
//! `nodes` holds, per source node in its order, the fields that place it — `name`, `children`,
//! `translation`, `rotation`, `scale`, `matrix` — as the source wrote them (absent stays absent:
//! glTF's defaults apply). `animations[i]` is the source animation (`index` in the source file,
//! `name`); a track's `animation` indexes this list. A track's target is a node property
//! (`node`, `path`: `translation` | `rotation` | `scale` | `weights`, `weight` the morph target)
//! or a `KHR_animation_pointer` (`pointer`).

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{json, Map, Value as Json};

/// The top-level document field that holds a [`GltfScene`].
pub const SCENE_FIELD: &str = "x-gltf";

/// Where a track came from in the source file.
#[derive(Clone, Debug, PartialEq)]
pub enum TrackTarget {
    /// A node property: `path` is `translation`, `rotation`, `scale` or `weights` (then
    /// `weight` is the morph target).
    Node {
        /// Index into [`GltfScene::nodes`].
        node: usize,
        /// The glTF channel path.
        path: String,
        /// The morph target, for `weights`.
        weight: Option<usize>,
    },
    /// A `KHR_animation_pointer` JSON pointer (RFC 6901) into the asset.
    Pointer(String),
}

/// One recorded track: its name in the document, its source animation and its target.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedTrack {
    /// The track's name.
    pub track: String,
    /// Index into [`GltfScene::animations`].
    pub animation: usize,
    /// What it animates.
    pub target: TrackTarget,
}

/// A source animation: its index in the source file and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedAnimation {
    /// Index in the source file's `animations`.
    pub index: usize,
    /// Its `name`, when it has one.
    pub name: Option<String>,
}

/// What an import saw of the source's nodes and animations (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GltfScene {
    /// Per source node, the fields that place it (`name`, `children`, `translation`,
    /// `rotation`, `scale`, `matrix`) as written in the source.
    pub nodes: Vec<Map<String, Json>>,
    /// Root nodes of each scene.
    pub scenes: Vec<Vec<usize>>,
    /// The default scene, when the source names one.
    pub scene: Option<usize>,
    /// The imported animations, in import order.
    pub animations: Vec<RecordedAnimation>,
    /// Every imported track's origin.
    pub tracks: Vec<RecordedTrack>,
}

/// Why an `"x-gltf"` record cannot be read: the JSON path and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("\"x-gltf\"{path}: expected {expected}")]
pub struct SceneError {
    /// Where, as `.nodes[3].children[0]`.
    pub path: String,
    /// What the field must hold.
    pub expected: String,
}

/// The node fields a record keeps.
const NODE_FIELDS: [&str; 6] = [
    "name",
    "children",
    "translation",
    "rotation",
    "scale",
    "matrix",
];

impl GltfScene {
    /// The record as the JSON value of the `"x-gltf"` field.
    #[must_use]
    pub fn to_json(&self) -> Json {
        let tracks: Vec<Json> = self.tracks.iter().map(track_json).collect();
        let animations: Vec<Json> = self
            .animations
            .iter()
            .map(|a| match &a.name {
                Some(n) => json!({"index": a.index, "name": n}),
                None => json!({"index": a.index}),
            })
            .collect();
        let mut out = Map::new();
        if let Some(s) = self.scene {
            out.insert("scene".into(), json!(s));
        }
        out.insert("scenes".into(), json!(self.scenes));
        out.insert("nodes".into(), Json::from(self.nodes_json()));
        out.insert("animations".into(), Json::from(animations));
        out.insert("tracks".into(), Json::from(tracks));
        Json::Object(out)
    }

    fn nodes_json(&self) -> Vec<Json> {
        self.nodes.iter().cloned().map(Json::Object).collect()
    }

    /// Reads the `"x-gltf"` field of a document's top-level JSON object; `Ok(None)` when the
    /// document has none.
    ///
    /// # Errors
    /// A [`SceneError`] naming the field that does not hold what the record needs (a child or
    /// track index out of range, a TRS of the wrong length, a track without a target).
    pub fn from_document_json(document: &Json) -> Result<Option<GltfScene>, SceneError> {
        match document.get(SCENE_FIELD) {
            None => Ok(None),
            Some(record) => GltfScene::from_json(record).map(Some),
        }
    }

    /// Reads a record (the value of `"x-gltf"`).
    ///
    /// # Errors
    /// As [`GltfScene::from_document_json`].
    pub fn from_json(record: &Json) -> Result<GltfScene, SceneError> {
        let nodes = read_nodes(field(record, "", "nodes")?)?;
        let count = nodes.len();
        let scenes = array(field(record, "", "scenes")?, ".scenes")?
            .iter()
            .enumerate()
            .map(|(i, s)| indices(s, &format!(".scenes[{i}]"), count))
            .collect::<Result<Vec<_>, _>>()?;
        let scene = match record.get("scene") {
            None => None,
            Some(s) => Some(index(s, ".scene", scenes.len())?),
        };
        let animations = array(field(record, "", "animations")?, ".animations")?
            .iter()
            .enumerate()
            .map(|(i, a)| read_animation(a, &format!(".animations[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        let tracks = array(field(record, "", "tracks")?, ".tracks")?
            .iter()
            .enumerate()
            .map(|(i, t)| read_track(t, &format!(".tracks[{i}]"), count, animations.len()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(GltfScene {
            nodes,
            scenes,
            scene,
            animations,
            tracks,
        })
    }

    /// The recorded origin of track `name`.
    #[must_use]
    pub fn track(&self, name: &str) -> Option<&RecordedTrack> {
        self.tracks.iter().find(|t| t.track == name)
    }

    /// Each node's `name`, when it has one.
    #[must_use]
    pub fn node_names(&self) -> Vec<Option<&str>> {
        self.nodes
            .iter()
            .map(|n| n.get("name").and_then(Json::as_str))
            .collect()
    }

    /// The record of a glTF file's nodes and scenes (no animations or tracks yet), the
    /// fields of [`NODE_FIELDS`] copied as written.
    #[must_use]
    pub fn from_gltf_root(root: &Json) -> GltfScene {
        let nodes = root
            .get("nodes")
            .and_then(Json::as_array)
            .map(|nodes| nodes.iter().map(keep_node_fields).collect())
            .unwrap_or_default();
        let scenes = root
            .get("scenes")
            .and_then(Json::as_array)
            .map(|scenes| {
                scenes
                    .iter()
                    .map(|s| {
                        s.get("nodes")
                            .and_then(Json::as_array)
                            .map(|n| n.iter().filter_map(as_index).collect())
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .unwrap_or_default();
        GltfScene {
            nodes,
            scenes,
            scene: root.get("scene").and_then(as_index),
            animations: Vec::new(),
            tracks: Vec::new(),
        }
    }
}

fn keep_node_fields(node: &Json) -> Map<String, Json> {
    let mut kept = Map::new();
    for name in NODE_FIELDS {
        if let Some(v) = node.get(name) {
            kept.insert(name.to_string(), v.clone());
        }
    }
    kept
}

fn as_index(v: &Json) -> Option<usize> {
    v.as_u64().and_then(|i| usize::try_from(i).ok())
}

fn track_json(t: &RecordedTrack) -> Json {
    let mut out = Map::new();
    out.insert("track".into(), json!(t.track));
    out.insert("animation".into(), json!(t.animation));
    match &t.target {
        TrackTarget::Node { node, path, weight } => {
            out.insert("node".into(), json!(node));
            out.insert("path".into(), json!(path));
            if let Some(w) = weight {
                out.insert("weight".into(), json!(w));
            }
        }
        TrackTarget::Pointer(p) => {
            out.insert("pointer".into(), json!(p));
        }
    }
    Json::Object(out)
}

fn bad(path: &str, expected: &str) -> SceneError {
    SceneError {
        path: path.to_string(),
        expected: expected.to_string(),
    }
}

fn field<'j>(obj: &'j Json, at: &str, name: &str) -> Result<&'j Json, SceneError> {
    obj.get(name)
        .ok_or_else(|| bad(&format!("{at}.{name}"), "this field (it is missing)"))
}

fn array<'j>(v: &'j Json, at: &str) -> Result<&'j Vec<Json>, SceneError> {
    v.as_array().ok_or_else(|| bad(at, "an array"))
}

fn index(v: &Json, at: &str, below: usize) -> Result<usize, SceneError> {
    as_index(v)
        .filter(|&i| i < below)
        .ok_or_else(|| bad(at, &format!("an index below {below}")))
}

fn indices(v: &Json, at: &str, below: usize) -> Result<Vec<usize>, SceneError> {
    array(v, at)?
        .iter()
        .enumerate()
        .map(|(i, x)| index(x, &format!("{at}[{i}]"), below))
        .collect()
}

fn numbers(v: &Json, at: &str, len: usize) -> Result<(), SceneError> {
    match v.as_array() {
        Some(a) if a.len() == len && a.iter().all(|x| x.as_f64().is_some_and(f64::is_finite)) => {
            Ok(())
        }
        _ => Err(bad(at, &format!("an array of {len} finite numbers"))),
    }
}

fn read_nodes(v: &Json) -> Result<Vec<Map<String, Json>>, SceneError> {
    let list = array(v, ".nodes")?;
    let count = list.len();
    let mut nodes = Vec::with_capacity(count);
    for (i, node) in list.iter().enumerate() {
        let at = format!(".nodes[{i}]");
        let obj = node.as_object().ok_or_else(|| bad(&at, "an object"))?;
        for (name, value) in obj {
            let at = format!("{at}.{name}");
            match name.as_str() {
                "name" if value.is_string() => {}
                "name" => return Err(bad(&at, "a string")),
                "children" => {
                    indices(value, &at, count)?;
                }
                "translation" | "scale" => numbers(value, &at, 3)?,
                "rotation" => numbers(value, &at, 4)?,
                "matrix" => numbers(value, &at, 16)?,
                _ => return Err(bad(&at, &format!("one of {}", NODE_FIELDS.join(", ")))),
            }
        }
        nodes.push(obj.clone());
    }
    Ok(nodes)
}

fn read_animation(v: &Json, at: &str) -> Result<RecordedAnimation, SceneError> {
    let index = as_index(field(v, at, "index")?)
        .ok_or_else(|| bad(&format!("{at}.index"), "a whole number"))?;
    let name = match v.get("name") {
        None => None,
        Some(n) => Some(
            n.as_str()
                .ok_or_else(|| bad(&format!("{at}.name"), "a string"))?
                .to_string(),
        ),
    };
    Ok(RecordedAnimation { index, name })
}

fn read_track(
    v: &Json,
    at: &str,
    nodes: usize,
    animations: usize,
) -> Result<RecordedTrack, SceneError> {
    let track = field(v, at, "track")?
        .as_str()
        .ok_or_else(|| bad(&format!("{at}.track"), "a string"))?
        .to_string();
    let animation = index(
        field(v, at, "animation")?,
        &format!("{at}.animation"),
        animations,
    )?;
    let target = if let Some(p) = v.get("pointer") {
        match p.as_str() {
            Some(p) if p.starts_with('/') => TrackTarget::Pointer(p.to_string()),
            _ => {
                return Err(bad(
                    &format!("{at}.pointer"),
                    "a JSON pointer starting with /",
                ))
            }
        }
    } else {
        let node = index(field(v, at, "node")?, &format!("{at}.node"), nodes)?;
        let path = match field(v, at, "path")?.as_str() {
            Some(p @ ("translation" | "rotation" | "scale" | "weights")) => p.to_string(),
            _ => {
                return Err(bad(
                    &format!("{at}.path"),
                    "translation, rotation, scale or weights",
                ))
            }
        };
        let weight = match v.get("weight") {
            None => None,
            Some(w) => {
                Some(as_index(w).ok_or_else(|| bad(&format!("{at}.weight"), "a whole number"))?)
            }
        };
        TrackTarget::Node { node, path, weight }
    };
    Ok(RecordedTrack {
        track,
        animation,
        target,
    })
}
