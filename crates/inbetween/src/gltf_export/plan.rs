//! Where each track goes in the exported glTF: which animation, and which node property or `KHR_animation_pointer`, from the `"x-gltf"` record when the document has one and from the track's name otherwise.

use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{json, Map, Value as Json};

use crate::document::Document;
use crate::gltf_import::{escape_pointer_token, GltfModel, EXTRAS_PREFIX};
use crate::gltf_scene::{GltfScene, TrackTarget};
use crate::track::Track;
use crate::value::ValueType;

/// What a channel animates.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Dest {
    /// A node property (`translation`, `rotation`, `scale`).
    Node { node: usize, path: &'static str },
    /// A node's morph target weights (one channel for all targets).
    Weights { node: usize },
    /// A `KHR_animation_pointer` JSON pointer.
    Pointer(String),
}

impl Dest {
    /// The glTF channel path: `translation`, `rotation`, `scale`, `weights` or `pointer`.
    pub fn path(&self) -> &'static str {
        match self {
            Dest::Node { path, .. } => path,
            Dest::Weights { .. } => "weights",
            Dest::Pointer(_) => "pointer",
        }
    }
}

/// One track and where it goes.
pub(super) struct Planned<'d> {
    pub track: &'d Track,
    /// Index into [`Plan::animations`].
    pub animation: usize,
    pub dest: Dest,
    /// The node's label (for the report), or the pointer.
    pub label: String,
    /// For [`Dest::Weights`], the track of each morph target in order (`track` is the first).
    pub group: Vec<&'d Track>,
}

/// Every track's destination and the objects the export writes besides the animations.
pub(super) struct Plan<'d> {
    /// The output's nodes: the record's (same order, same indices) then those made for tracks.
    pub nodes: Vec<Map<String, Json>>,
    /// Nodes made for tracks (they join the scene as roots).
    pub new_nodes: Vec<usize>,
    /// The output animations' names, in order.
    pub animations: Vec<Option<String>>,
    pub tracks: Vec<Planned<'d>>,
    /// (track, why it was not exported).
    pub skipped: Vec<(String, &'static str)>,
    /// The `materials` and `extras` that pointers animate (see [`super::pointer`]).
    pub assets: Map<String, Json>,
}

/// The name of the animation that holds tracks without a recorded one.
pub(super) const DEFAULT_ANIMATION: &str = "inbetween";

struct Planner<'d, 's> {
    scene: Option<&'s GltfScene>,
    /// The model written into, whose objects pointers may name.
    model: Option<&'s GltfModel>,
    /// Node label (as the importer names nodes) → output node.
    nodes_by_label: BTreeMap<String, usize>,
    /// Animation label (as the importer prefixes names) → output animation.
    animations_by_label: Vec<(String, usize)>,
    /// The output animation for tracks the record does not place, once made.
    fallback: Option<usize>,
    /// Morph-weight tracks by (animation, node): target → track.
    weights: BTreeMap<(usize, usize), BTreeMap<usize, &'d Track>>,
    plan: Plan<'d>,
}

/// Plans where every track of `doc` goes; `scene` is the document's `"x-gltf"` record, `model`
/// the model written into (`--onto`), whose nodes, materials and `extras` the output starts from.
pub(super) fn plan<'d>(
    doc: &'d Document,
    scene: Option<&GltfScene>,
    model: Option<&GltfModel>,
) -> Plan<'d> {
    let mut planner = Planner::new(scene, model);
    for track in doc.tracks() {
        planner.place(track);
    }
    planner.group_weights();
    planner.plan
}

impl<'d, 's> Planner<'d, 's> {
    fn new(scene: Option<&'s GltfScene>, model: Option<&'s GltfModel>) -> Self {
        let mut plan = Plan {
            nodes: Vec::new(),
            new_nodes: Vec::new(),
            animations: Vec::new(),
            tracks: Vec::new(),
            skipped: Vec::new(),
            assets: Map::new(),
        };
        if let Some(model) = model {
            plan.nodes = model_nodes(&model.root);
            for key in ["materials", "extras"] {
                if let Some(v) = model.root.get(key) {
                    plan.assets.insert(key.to_string(), v.clone());
                }
            }
        } else if let Some(scene) = scene {
            plan.nodes.clone_from(&scene.nodes);
        }
        let names = plan
            .nodes
            .iter()
            .map(|n| n.get("name").and_then(Json::as_str));
        let labels = crate::gltf_import::labels(names);
        let nodes_by_label = labels
            .into_iter()
            .enumerate()
            .map(|(i, l)| (l, i))
            .collect();
        let mut animations_by_label = Vec::new();
        if let Some(scene) = scene {
            let names = scene.animations.iter().map(|a| a.name.as_deref());
            let anim_labels = crate::gltf_import::labels(names);
            animations_by_label.extend(anim_labels.into_iter().enumerate().map(|(i, l)| (l, i)));
            plan.animations = scene.animations.iter().map(|a| a.name.clone()).collect();
        }
        Planner {
            scene,
            model,
            nodes_by_label,
            animations_by_label,
            fallback: None,
            weights: BTreeMap::new(),
            plan,
        }
    }

    fn skip(&mut self, track: &Track, why: &'static str) {
        self.plan.skipped.push((track.name().to_string(), why));
    }

    fn push(&mut self, track: &'d Track, animation: usize, dest: Dest) {
        let label = match &dest {
            Dest::Node { node, .. } | Dest::Weights { node } => self
                .plan
                .nodes
                .get(*node)
                .and_then(|n| n.get("name"))
                .and_then(Json::as_str)
                .map_or_else(|| node.to_string(), str::to_string),
            Dest::Pointer(p) => p.clone(),
        };
        self.plan.tracks.push(Planned {
            track,
            animation,
            dest,
            label,
            group: Vec::new(),
        });
    }

    /// Places one track: by its record, else by its name.
    fn place(&mut self, track: &'d Track) {
        let recorded = self.scene.and_then(|s| s.track(track.name()));
        match recorded.map(|r| (r.animation, &r.target)) {
            Some((
                animation,
                TrackTarget::Node {
                    node,
                    weight: Some(k),
                    ..
                },
            )) => {
                self.weight(track, animation, *node, *k);
            }
            Some((animation, TrackTarget::Node { node, path, .. })) => {
                match node_path(path, track.value_type()) {
                    Ok(path) => self.node_dest(track, animation, *node, path),
                    Err(why) => self.skip(track, why),
                }
            }
            Some((animation, TrackTarget::Pointer(p))) => self.pointer_dest(track, animation, p),
            None => self.place_by_name(track),
        }
    }

    fn node_dest(&mut self, track: &'d Track, animation: usize, node: usize, path: &'static str) {
        let has_matrix = self
            .plan
            .nodes
            .get(node)
            .is_some_and(|n| n.contains_key("matrix"));
        if has_matrix {
            self.skip(
                track,
                "its node is placed by a matrix, which glTF does not animate",
            );
        } else {
            self.push(track, animation, Dest::Node { node, path });
        }
    }

    /// A pointer to a node's TRS is written as that node's channel (glTF forbids both in one
    /// animation); other pointers as they are.
    fn pointer_dest(&mut self, track: &'d Track, animation: usize, pointer: &str) {
        if let Some((node, path)) = node_trs_pointer(pointer) {
            if node >= self.plan.nodes.len() {
                return self.skip(
                    track,
                    "its pointer names a node the document does not record",
                );
            }
            return match node_path(path, track.value_type()) {
                Ok(path) => self.node_dest(track, animation, node, path),
                Err(why) => self.skip(track, why),
            };
        }
        if let Some(model) = self.model {
            if super::pointer::in_model(&model.root, pointer) {
                return self.push(track, animation, Dest::Pointer(pointer.to_string()));
            }
        }
        match super::pointer::ensure(&mut self.plan.assets, pointer, track) {
            Ok(()) => self.push(track, animation, Dest::Pointer(pointer.to_string())),
            Err(why) => self.skip(track, why),
        }
    }

    /// A track the record does not place: `[ANIMATION/]NODE/PATH`, a pointer, or a made-up
    /// target for its type.
    fn place_by_name(&mut self, track: &'d Track) {
        let (animation, rest) = self.animation_of(track.name());
        if rest.starts_with('/') {
            return self.pointer_dest(track, animation, rest);
        }
        match super::target(track, rest) {
            Ok((node_name, path)) => {
                let node = self.node_named(&node_name);
                self.node_dest(track, animation, node, path);
            }
            Err(why) if track.value_type() == ValueType::Scalar && rest.contains("/weights/") => {
                match weight_target(rest).and_then(|(n, k)| Some((*self.nodes_by_label.get(n)?, k)))
                {
                    Some((node, k)) => self.weight(track, animation, node, k),
                    None => self.skip(track, why),
                }
            }
            Err(_) if track.value_type() == ValueType::Color => {
                let materials = self
                    .plan
                    .assets
                    .entry("materials")
                    .or_insert_with(|| Json::Array(Vec::new()));
                let Some(materials) = materials.as_array_mut() else {
                    return self.skip(track, "materials is not an array");
                };
                materials.push(json!({"name": track.name(), "pbrMetallicRoughness": {}}));
                let p = format!(
                    "/materials/{}/pbrMetallicRoughness/baseColorFactor",
                    materials.len() - 1
                );
                self.pointer_dest(track, animation, &p);
            }
            Err(_) => {
                let p = format!("{EXTRAS_PREFIX}{}", escape_pointer_token(track.name()));
                self.pointer_dest(track, animation, &p);
            }
        }
    }

    /// The output animation of an unrecorded track and its name without an animation prefix:
    /// the recorded animation whose label prefixes the name, the only recorded animation, or
    /// [`DEFAULT_ANIMATION`].
    fn animation_of<'n>(&mut self, name: &'n str) -> (usize, &'n str) {
        if self.animations_by_label.len() > 1 {
            for (label, index) in &self.animations_by_label {
                if let Some(rest) = name
                    .strip_prefix(label.as_str())
                    .and_then(|r| r.strip_prefix('/'))
                {
                    return (*index, rest);
                }
            }
        }
        if self.animations_by_label.len() == 1 {
            return (0, name);
        }
        let index = *self.fallback.get_or_insert_with(|| {
            self.plan
                .animations
                .push(Some(DEFAULT_ANIMATION.to_string()));
            self.plan.animations.len() - 1
        });
        (index, name)
    }

    /// Collects the track of morph target `k` of `node`; only a node with a mesh of the model
    /// (`--onto`) can take weights.
    fn weight(&mut self, track: &'d Track, animation: usize, node: usize, k: usize) {
        if self.morph_targets(node).is_none() {
            return self.skip(track, super::WEIGHTS_NEED_THE_MESH);
        }
        let group = self.weights.entry((animation, node)).or_default();
        if group.contains_key(&k) {
            return self.skip(track, "another track already animates this morph target");
        }
        group.insert(k, track);
    }

    /// The number of morph targets of the mesh of `node` in the model, when it has some.
    fn morph_targets(&self, node: usize) -> Option<usize> {
        let root = &self.model?.root;
        let mesh = root["nodes"].get(node)?.get("mesh")?.as_u64()?;
        let mesh = root["meshes"].get(usize::try_from(mesh).ok()?)?;
        let targets = mesh["primitives"].get(0)?.get("targets")?.as_array()?.len();
        (targets > 0).then_some(targets)
    }

    /// One weights channel per (animation, node) whose tracks cover every morph target of the
    /// mesh; the tracks of an incomplete group are skipped.
    fn group_weights(&mut self) {
        for ((animation, node), group) in core::mem::take(&mut self.weights) {
            let targets = self.morph_targets(node).unwrap_or(0);
            let complete = group.len() == targets && group.keys().copied().eq(0..targets);
            let tracks: Vec<&'d Track> = group.into_values().collect();
            if !complete {
                for track in tracks {
                    self.skip(track, "a weights channel animates every morph target of the mesh; give each target a track");
                }
                continue;
            }
            self.push(tracks[0], animation, Dest::Weights { node });
            if let Some(last) = self.plan.tracks.last_mut() {
                last.group = tracks;
            }
        }
    }

    /// The recorded node with this label, or a new node with this name.
    fn node_named(&mut self, label: &str) -> usize {
        if let Some(&i) = self.nodes_by_label.get(label) {
            return i;
        }
        let mut node = Map::new();
        node.insert("name".into(), Json::String(label.to_string()));
        self.plan.nodes.push(node);
        let i = self.plan.nodes.len() - 1;
        self.plan.new_nodes.push(i);
        self.nodes_by_label.insert(label.to_string(), i);
        i
    }
}

/// The glTF path of a recorded node property, if a track of this type can animate it.
fn node_path(path: &str, ty: ValueType) -> Result<&'static str, &'static str> {
    match (path, ty) {
        ("translation", ValueType::Vec3) => Ok("translation"),
        ("scale", ValueType::Vec3) => Ok("scale"),
        ("rotation", ValueType::Quat) => Ok("rotation"),
        ("weights", _) => Err(super::WEIGHTS_NEED_THE_MESH),
        _ => Err("its type does not fit the node property it was imported from"),
    }
}

/// `(node, path)` for a pointer `/nodes/N/translation|rotation|scale`.
fn node_trs_pointer(pointer: &str) -> Option<(usize, &str)> {
    let rest = pointer.strip_prefix("/nodes/")?;
    let (index, path) = rest.split_once('/')?;
    let node = index.parse().ok()?;
    matches!(path, "translation" | "rotation" | "scale").then_some((node, path))
}

/// A model's nodes as JSON objects (a node that is not an object becomes an empty one; the
/// model passed the import's checks, so there is none).
fn model_nodes(root: &Json) -> Vec<Map<String, Json>> {
    root.get("nodes")
        .and_then(Json::as_array)
        .map(|nodes| {
            nodes
                .iter()
                .map(|n| n.as_object().cloned().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}

/// `(NODE, K)` for a name `NODE/weights/K`.
fn weight_target(name: &str) -> Option<(&str, usize)> {
    let (node, k) = name.rsplit_once("/weights/")?;
    Some((node, k.parse().ok()?))
}
