//! glTF 2.0 export: tracks written as animation channels on the imported node hierarchy (or on nodes named after the tracks), others through `KHR_animation_pointer` (.gltf with an embedded buffer, or .glb).
//!
//! Where each track goes is planned in [`plan`]: with the document's `"x-gltf"` record
//! ([`GltfScene`]) the output keeps the source's nodes (names, children, rest TRS, same indices)
//! and writes one animation per recorded animation, each recorded track on the node property it
//! was imported from; without one, a track named `NODE/translation|rotation|scale` animates that
//! property of node `NODE`, any other `vec3` track the translation of a node named after it and
//! any other `quat` track its rotation. Scalar, vec2, vec4 and colour tracks go through
//! `KHR_animation_pointer` ([`pointer`]): a track named as a pointer into `/materials/…` or
//! `/extras/…` there, a colour track to the base colour of a material made for it, others to
//! `/extras/inbetween/NAME`. Morph weights need the model's mesh: they are written ([`weights`],
//! one channel per node) only into a model (`--onto`), else skipped and listed.
//!
//! Samplers are exact where glTF 2.0 (Appendix C) can say it: all-`step` tracks become `STEP`;
//! all-`linear` tracks (shortest-arc slerp on rotations, as glTF's) become `LINEAR`; tracks whose
//! segments are all cubic (`hermite`, `bezier`, `catmull_rom`, `tcb`, and `linear` on vectors)
//! without eases become `CUBICSPLINE` with glTF tangents b_k = m_0 / Δt and a_{k+1} = m_1 / Δt
//! (m the per-segment Hermite tangents, Δt the segment's length in seconds). Everything else
//! (eases, expressions, Lagrange windows, slerp mixed with cubic kinds, arclength timing) is
//! baked: sampled at every integer frame and at the keys, played back `LINEAR` — exact at every
//! frame, linear in between. Values and times are stored as f32, as glTF requires. Times are in
//! seconds (frame / fps) and must not be negative in glTF: a document whose first key is before
//! frame 0 is shifted to start at 0 (reported). See `docs/gltf.md`, "Export".

use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{json, Value as Json};

use crate::document::Document;
use crate::gltf_import::GltfModel;
use crate::gltf_scene::GltfScene;
use crate::track::{Interp, SegmentForm, Track};

mod onto;
mod plan;
mod pointer;
mod weights;

use crate::value::ValueType;
use crate::Ease;
use plan::Dest;

/// The most keys one channel may get: the document's and our importer's limit per track
/// ([`crate::track::MAX_KEYS_PER_TRACK`], 1 000 000), so that what `export` writes reads back.
/// A baked track gets a key per integer frame of its span; checked before baking.
pub const MAX_EXPORT_KEYS_PER_TRACK: usize = crate::track::MAX_KEYS_PER_TRACK;

/// The most keys in all channels of one export: 2^25 = 33 554 432 (at most about 1 GB of f32
/// times, values and tangents, and within GLB's 4 GiB).
pub const MAX_EXPORT_KEYS: usize = 1 << 25;

/// `x` as written in messages: in full below 1e15, else in scientific notation (1e300).
fn short(x: f64) -> String {
    if x.abs() < 1e15 {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// How one track was written.
#[derive(Clone, Debug, PartialEq)]
pub enum ExportedAs {
    /// Exactly, with this glTF interpolation (`STEP`, `LINEAR` or `CUBICSPLINE`).
    Exact(&'static str),
    /// Sampled at every frame and played back `LINEAR` (the reason is why it could not be exact).
    Baked(&'static str),
}

/// What the export did with each track.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExportReport {
    /// (track, node label or pointer, glTF path (`pointer` for a `KHR_animation_pointer`),
    /// how).
    pub channels: Vec<(String, String, &'static str, ExportedAs)>,
    /// The names of the animations written, in order (empty for an unnamed one).
    pub animations: Vec<String>,
    /// (track, why it was not exported).
    pub skipped: Vec<(String, &'static str)>,
    /// Seconds added to every time so that none is negative (0 when none was).
    pub time_shift: f64,
}

/// Why an export failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GltfExportError {
    /// No track can be animated on a node.
    #[error("no track can be exported to glTF: {0}")]
    NothingToExport(String),
    /// Two keys of a track fall on the same f32 time.
    #[error("track \"{track}\": keys at frames {a} and {b} round to the same f32 time in seconds; glTF needs strictly increasing times")]
    TimesCollide {
        /// The track.
        track: String,
        /// One frame.
        a: f64,
        /// The next frame.
        b: f64,
    },
    /// A value is not finite (an expression outside its domain).
    #[error("track \"{track}\": value at frame {frame} is not finite")]
    NotFinite {
        /// The track.
        track: String,
        /// The frame.
        frame: f64,
    },
    /// Baking (or writing) the track would make more keys than the export allows.
    #[error("track \"{track}\": exporting would write {} keys{}, more than the limit of {max} (docs/limits.md); shorten the track or use exact segment kinds (step, linear, hermite, bezier)", short(*.keys), if *.total { " in all tracks up to this one" } else { "" })]
    TooManyKeys {
        /// The track.
        track: String,
        /// Keys it (or all tracks up to it) would write; `f64` as a baked span may hold more
        /// frames than any integer type.
        keys: f64,
        /// The limit ([`MAX_EXPORT_KEYS_PER_TRACK`] or [`MAX_EXPORT_KEYS`]).
        max: usize,
        /// Whether the count is of all tracks up to this one.
        total: bool,
    },
    /// A time, value or tangent is beyond what glTF's f32 can hold.
    #[error("track \"{track}\": the {what} at frame {} is {found:e}, beyond the f32 numbers glTF stores (±3.4e38)", short(*.frame))]
    NotF32 {
        /// The track.
        track: String,
        /// `time` (seconds), `value` or `tangent`.
        what: &'static str,
        /// The frame.
        frame: f64,
        /// The number that does not fit.
        found: f64,
    },
    /// The document's record is of another model than the one given to write into.
    #[error("the document was imported from another model: {0}; export onto the model it came from, or with --flat")]
    OtherModel(String),
    /// The GLB output would be larger than its u32 length field can say.
    #[error("the output would take {bytes} bytes, more than a GLB file can hold (4 GiB)")]
    TooLarge {
        /// The bytes the file would take.
        bytes: usize,
    },
    /// Two tracks animate the same property of the same node.
    #[error("tracks \"{first}\" and \"{second}\" both animate {path} of node \"{node}\"")]
    DuplicateTarget {
        /// The node.
        node: String,
        /// The property.
        path: &'static str,
        /// The first track.
        first: String,
        /// The second track.
        second: String,
    },
}

/// Why morph weights without the model's mesh are not exported.
const WEIGHTS_NEED_THE_MESH: &str =
    "morph target weights need the model's mesh (export --onto MODEL); not exported";

/// Where a track named `name` goes without a record: (node name, glTF path), or why it cannot
/// be a node channel.
fn target(track: &Track, name: &str) -> Result<(String, &'static str), &'static str> {
    for (suffix, path, ty) in [
        ("/translation", "translation", ValueType::Vec3),
        ("/rotation", "rotation", ValueType::Quat),
        ("/scale", "scale", ValueType::Vec3),
    ] {
        if let Some(node) = name.strip_suffix(suffix) {
            if track.value_type() == ty && !node.is_empty() {
                return Ok((node.to_string(), path));
            }
        }
    }
    match track.value_type() {
        ValueType::Vec3 => Ok((name.to_string(), "translation")),
        ValueType::Quat => Ok((name.to_string(), "rotation")),
        ValueType::Scalar if name.contains("/weights/") => Err(WEIGHTS_NEED_THE_MESH),
        _ => Err("glTF animates only node translation (vec3), rotation (quat) and scale (vec3)"),
    }
}

/// A sampler's data: times in seconds and output values (with tangents for CUBICSPLINE).
struct Sampler {
    interpolation: &'static str,
    times: Vec<f64>,
    outputs: Vec<[f64; 4]>,
}

/// The per-u Hermite tangents (m0, m1) of segment `i`, if it is a cubic (or a vector line).
fn cubic_tangents(track: &Track, i: usize) -> Option<([f64; 4], [f64; 4])> {
    let (k0, k1) = (track.keys().get(i)?, track.keys().get(i + 1)?);
    let (p0, p1) = (k0.value.to_array(), k1.value.to_array());
    let segment = track.segment(i)?;
    let mut m0 = [0.0; 4];
    let mut m1 = [0.0; 4];
    match &segment.form {
        SegmentForm::Lerp => {
            for c in 0..4 {
                m0[c] = p1[c] - p0[c];
                m1[c] = m0[c];
            }
        }
        SegmentForm::Hermite { m0: a, m1: b } => {
            m0 = a.to_array();
            m1 = b.to_array();
        }
        SegmentForm::Bezier { c1, c2 } => {
            let (c1, c2) = (c1.to_array(), c2.to_array());
            for c in 0..4 {
                m0[c] = 3.0 * (c1[c] - p0[c]);
                m1[c] = 3.0 * (p1[c] - c2[c]);
            }
        }
        _ => return None,
    }
    Some((m0, m1))
}

fn exact_sampler(track: &Track, fps: f64) -> Result<Sampler, &'static str> {
    let keys = track.keys();
    let segments = keys.len().saturating_sub(1);
    let times: Vec<f64> = keys.iter().map(|k| k.frame / fps).collect();
    let values: Vec<[f64; 4]> = keys.iter().map(|k| k.value.to_array()).collect();
    if track.arclength().is_some() {
        return Err("arclength timing");
    }
    if keys[..segments].iter().any(|k| k.ease != Ease::Linear) {
        return Err("eased segments");
    }
    let kinds: Vec<&Interp> = keys[..segments].iter().map(|k| &k.interp).collect();
    let quat = track.value_type() == ValueType::Quat;
    if kinds.iter().all(|i| matches!(i, Interp::Step)) {
        return Ok(Sampler {
            interpolation: "STEP",
            times,
            outputs: values,
        });
    }
    if kinds
        .iter()
        .all(|i| matches!(i, Interp::Linear) || (quat && matches!(i, Interp::Slerp)))
    {
        return Ok(Sampler {
            interpolation: "LINEAR",
            times,
            outputs: values,
        });
    }
    if quat
        && kinds
            .iter()
            .any(|i| matches!(i, Interp::Linear | Interp::Slerp))
    {
        return Err("slerp mixed with cubic segments");
    }
    // CUBICSPLINE: per key, in-tangent a_k, value v_k, out-tangent b_k (units per second).
    let mut outputs = Vec::with_capacity(keys.len() * 3);
    let mut incoming = [0.0; 4];
    for (k, value) in values.iter().enumerate() {
        let mut outgoing = [0.0; 4];
        let mut next_incoming = [0.0; 4];
        if k < segments {
            let (m0, m1) = cubic_tangents(track, k).ok_or("segments glTF cannot draw")?;
            let dt = times[k + 1] - times[k];
            for c in 0..4 {
                outgoing[c] = m0[c] / dt;
                next_incoming[c] = m1[c] / dt;
            }
        }
        outputs.push(incoming);
        outputs.push(*value);
        outputs.push(outgoing);
        incoming = next_incoming;
    }
    Ok(Sampler {
        interpolation: "CUBICSPLINE",
        times,
        outputs,
    })
}

/// The keys a baked span gets: its first and last frame and every integer frame between, as
/// f64 (a span of 1e300 frames is counted, not enumerated).
fn baked_key_count(first: f64, last: f64) -> f64 {
    if last <= first {
        return 1.0;
    }
    let between = (last.ceil() - first.floor() - 1.0).max(0.0);
    between + 2.0
}

/// The frames a bake samples from `first` to `last`: both ends and every integer frame between;
/// refused beyond [`MAX_EXPORT_KEYS_PER_TRACK`] (checked before enumerating).
fn baked_frames(track: &str, first: f64, last: f64) -> Result<Vec<f64>, GltfExportError> {
    let keys = baked_key_count(first, last);
    // Never NaN: the frames are finite (a span beyond f64 counts as +∞, which is refused).
    if keys > MAX_EXPORT_KEYS_PER_TRACK as f64 {
        return Err(GltfExportError::TooManyKeys {
            track: track.to_string(),
            keys,
            max: MAX_EXPORT_KEYS_PER_TRACK,
            total: false,
        });
    }
    let mut frames: Vec<f64> = Vec::new();
    frames.push(first);
    let mut f = first.floor() + 1.0;
    while f < last {
        frames.push(f);
        f += 1.0;
    }
    if last > first {
        frames.push(last);
    }
    Ok(frames)
}

/// `track`'s value at `frame`, refused when not finite.
fn finite_value(track: &Track, frame: f64) -> Result<[f64; 4], GltfExportError> {
    let v = track.eval(frame);
    if v.is_finite() {
        Ok(v.to_array())
    } else {
        Err(GltfExportError::NotFinite {
            track: track.name().to_string(),
            frame,
        })
    }
}

fn baked_sampler(track: &Track, fps: f64) -> Result<Sampler, GltfExportError> {
    let frames = baked_frames(track.name(), track.first_frame(), track.last_frame())?;
    let outputs = frames
        .iter()
        .map(|f| finite_value(track, *f))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Sampler {
        interpolation: "LINEAR",
        times: frames.iter().map(|f| f / fps).collect(),
        outputs,
    })
}

/// Refuses a sampler whose times (seconds, shifted) or outputs become infinite as f32: our
/// importer, like any glTF reader, refuses a non-finite key time.
fn check_f32(
    track: &Track,
    sampler: &Sampler,
    times: &[f64],
    fps: f64,
    shift_frames: f64,
) -> Result<(), GltfExportError> {
    let fits = |v: f64| (v as f32).is_finite();
    let per_key = sampler.outputs.len() / times.len().max(1);
    let bad = |what: &'static str, key: usize, found: f64| GltfExportError::NotF32 {
        track: track.name().to_string(),
        what,
        frame: times.get(key).map_or(f64::NAN, |t| t * fps - shift_frames),
        found,
    };
    if let Some(k) = times.iter().position(|t| !fits(*t)) {
        return Err(bad("time", k, times[k]));
    }
    for (i, out) in sampler.outputs.iter().enumerate() {
        if let Some(v) = out.iter().find(|v| !fits(**v)) {
            let what = if per_key == 3 && i % 3 != 1 {
                "tangent"
            } else {
                "value"
            };
            return Err(bad(what, i / per_key.max(1), *v));
        }
    }
    Ok(())
}

/// Appends `values` as little-endian f32 to `buffer` (4-byte aligned) and returns the byte
/// range.
fn push_f32(buffer: &mut Vec<u8>, values: impl Iterator<Item = f64>) -> (usize, usize) {
    let start = buffer.len();
    for v in values {
        buffer.extend_from_slice(&(v as f32).to_le_bytes());
    }
    (start, buffer.len() - start)
}

/// How to export.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExportOptions<'a> {
    /// The binary container (`.glb`); otherwise `.gltf` JSON with the buffer embedded as a
    /// base64 `data:` URI.
    pub glb: bool,
    /// The document's `"x-gltf"` record ([`GltfScene::from_document_json`]): when given, the
    /// output keeps the source's nodes (names, parents, rest TRS, same indices) and writes one
    /// animation per source animation, each track on the node property it was imported from.
    pub scene: Option<&'a GltfScene>,
    /// A whole model to write into (`export --onto`, [`crate::gltf_import::load_gltf_model`]):
    /// the output is the model — meshes, skins, materials, buffers — with its animations
    /// replaced by the document's, on its nodes. With a `scene` too, the record's nodes must
    /// be the model's.
    pub onto: Option<&'a GltfModel>,
}

/// Writes `doc`'s tracks as one glTF animation on nodes named after the tracks (no record).
/// `glb` selects the binary container; otherwise the buffer is embedded as a base64 `data:`
/// URI. See [`export_gltf_with`].
///
/// # Errors
/// As [`export_gltf_with`].
pub fn export_gltf(doc: &Document, glb: bool) -> Result<(Vec<u8>, ExportReport), GltfExportError> {
    let options = ExportOptions {
        glb,
        ..ExportOptions::default()
    };
    export_gltf_with(doc, &options)
}

/// Writes `doc`'s tracks as glTF animations: on the recorded nodes and animations when
/// `options.scene` is given, else on nodes named after the tracks; tracks that are not node
/// transforms through `KHR_animation_pointer` (module docs).
///
/// # Errors
/// When no track can be exported, two tracks target the same property in one animation, two
/// keys collide in f32 seconds, a value or time does not fit f32, a baked value is not finite,
/// or the keys exceed [`MAX_EXPORT_KEYS_PER_TRACK`] / [`MAX_EXPORT_KEYS`].
pub fn export_gltf_with(
    doc: &Document,
    options: &ExportOptions<'_>,
) -> Result<(Vec<u8>, ExportReport), GltfExportError> {
    if let (Some(model), Some(scene)) = (options.onto, options.scene) {
        onto::check_record(model, scene)?;
    }
    let plan = plan::plan(doc, options.scene, options.onto);
    check_duplicates(&plan)?;
    let earliest = doc
        .tracks()
        .iter()
        .map(Track::first_frame)
        .fold(f64::INFINITY, f64::min);
    let shift_frames = if earliest < 0.0 { -earliest } else { 0.0 };
    let mut report = ExportReport {
        time_shift: shift_frames / doc.fps(),
        skipped: plan.skipped.clone(),
        ..ExportReport::default()
    };
    let mut data = options.onto.map(onto::merged_data).unwrap_or_default();
    let animations = write_channels(&plan, &mut data, doc.fps(), shift_frames, &mut report)?;
    if report.channels.is_empty() {
        let reasons: Vec<String> = report
            .skipped
            .iter()
            .map(|(t, r)| format!("\"{t}\": {r}"))
            .collect();
        return Err(GltfExportError::NothingToExport(reasons.join("; ")));
    }
    let animations = animations_json(&plan, animations, &mut report);
    let mut gltf = match options.onto {
        Some(model) => onto::asset_json(&plan, model, animations, &data, extensions_used(&plan)),
        None => asset_json(&plan, options.scene, animations, &data),
    };
    if !options.glb {
        gltf["buffers"][0]["uri"] = Json::String(format!(
            "data:application/octet-stream;base64,{}",
            base64(&data.buffer)
        ));
    }
    let text = serde_json::to_string(&gltf).unwrap_or_default();
    if !options.glb {
        return Ok((text.into_bytes(), report));
    }
    // The GLB header counts bytes in a u32: the JSON, the binary chunk and 28 bytes of headers.
    let total = text.len() + data.buffer.len() + 28 + 6;
    if u32::try_from(total).is_err() {
        return Err(GltfExportError::TooLarge { bytes: total });
    }
    Ok((glb_container(text.as_bytes(), &data.buffer), report))
}

/// One output animation's channels and samplers, as JSON.
type AnimationParts = (Vec<Json>, Vec<Json>);

/// Writes every planned track's sampler into `data` and returns each output animation's
/// (channels, samplers); the report gets a line per track.
fn write_channels(
    plan: &plan::Plan<'_>,
    data: &mut Data,
    fps: f64,
    shift_frames: f64,
    report: &mut ExportReport,
) -> Result<Vec<AnimationParts>, GltfExportError> {
    let mut animations = vec![(Vec::new(), Vec::new()); plan.animations.len()];
    for planned in &plan.tracks {
        let (sampler, how) = match planned.dest {
            Dest::Weights { .. } => data.write_weights(&planned.group, fps, shift_frames)?,
            _ => data.write_track(planned.track, fps, shift_frames)?,
        };
        let Some((channels, samplers)) = animations.get_mut(planned.animation) else {
            continue;
        };
        samplers.push(sampler);
        channels.push(channel_json(&planned.dest, samplers.len() - 1));
        let path = planned.dest.path();
        let tracks = if planned.group.is_empty() {
            core::slice::from_ref(&planned.track)
        } else {
            planned.group.as_slice()
        };
        for track in tracks {
            let line = (
                track.name().to_string(),
                planned.label.clone(),
                path,
                how.clone(),
            );
            report.channels.push(line);
        }
    }
    Ok(animations)
}

/// Two tracks may not animate the same property in one animation (glTF 2.0 §3.11, and the
/// `KHR_animation_pointer` rule for pointers).
fn check_duplicates(plan: &plan::Plan<'_>) -> Result<(), GltfExportError> {
    let mut seen: BTreeMap<(usize, &Dest), &str> = BTreeMap::new();
    for p in &plan.tracks {
        if let Some(first) = seen.insert((p.animation, &p.dest), p.track.name()) {
            return Err(GltfExportError::DuplicateTarget {
                node: p.label.clone(),
                path: p.dest.path(),
                first: first.to_string(),
                second: p.track.name().to_string(),
            });
        }
    }
    Ok(())
}

/// A channel's JSON: a node target, or a `KHR_animation_pointer` target without `node`.
fn channel_json(dest: &Dest, sampler: usize) -> Json {
    match dest {
        Dest::Node { node, path } => {
            json!({"sampler": sampler, "target": {"node": node, "path": path}})
        }
        Dest::Weights { node } => {
            json!({"sampler": sampler, "target": {"node": node, "path": "weights"}})
        }
        Dest::Pointer(p) => json!({"sampler": sampler, "target": {"path": "pointer",
            "extensions": {"KHR_animation_pointer": {"pointer": p}}}}),
    }
}

/// The animations that received channels (glTF requires at least one per animation); the
/// report lists their names.
fn animations_json(
    plan: &plan::Plan<'_>,
    animations: Vec<AnimationParts>,
    report: &mut ExportReport,
) -> Vec<Json> {
    let mut out = Vec::new();
    for ((channels, samplers), name) in animations.into_iter().zip(&plan.animations) {
        if channels.is_empty() {
            continue;
        }
        let mut animation = json!({"channels": channels, "samplers": samplers});
        if let Some(name) = name {
            animation["name"] = Json::String(name.clone());
        }
        report.animations.push(name.clone().unwrap_or_default());
        out.push(animation);
    }
    out
}

/// The scenes: the record's, with the nodes made for tracks added to the default scene as
/// roots; without a record, one scene of all nodes.
fn scenes_json(plan: &plan::Plan<'_>, scene: Option<&GltfScene>) -> (Vec<Json>, usize) {
    let mut scenes: Vec<Vec<usize>> = scene.map(|s| s.scenes.clone()).unwrap_or_default();
    let default = scene.and_then(|s| s.scene).unwrap_or(0);
    if scenes.is_empty() {
        let children: std::collections::BTreeSet<u64> = plan
            .nodes
            .iter()
            .filter_map(|n| n.get("children").and_then(Json::as_array))
            .flatten()
            .filter_map(Json::as_u64)
            .collect();
        let roots = (0..plan.nodes.len()).filter(|i| !children.contains(&(*i as u64)));
        scenes.push(roots.collect());
    } else if let Some(roots) = scenes.get_mut(default) {
        roots.extend(&plan.new_nodes);
    }
    let scenes = scenes
        .into_iter()
        .map(|nodes| {
            if nodes.is_empty() {
                json!({})
            } else {
                json!({"nodes": nodes})
            }
        })
        .collect();
    (scenes, default)
}

/// The whole glTF JSON of an animation file (no `--onto`); the buffer's URI is added by the
/// caller for `.gltf`.
fn asset_json(
    plan: &plan::Plan<'_>,
    scene: Option<&GltfScene>,
    animations: Vec<Json>,
    data: &Data,
) -> Json {
    let mut gltf = json!({
        "asset": {"version": "2.0", "generator": concat!("inbetween ", env!("CARGO_PKG_VERSION"))},
        "animations": animations,
        "buffers": [{"byteLength": data.buffer.len()}],
        "bufferViews": data.views,
        "accessors": data.accessors,
    });
    if !plan.nodes.is_empty() {
        let (scenes, default) = scenes_json(plan, scene);
        gltf["nodes"] = plan.nodes.iter().cloned().map(Json::Object).collect();
        gltf["scenes"] = Json::Array(scenes);
        gltf["scene"] = json!(default);
    }
    for (key, value) in &plan.assets {
        gltf[key.as_str()] = value.clone();
    }
    let used = extensions_used(plan);
    if !used.is_empty() {
        gltf["extensionsUsed"] = json!(used);
    }
    gltf
}

/// `KHR_animation_pointer` when a channel uses it, and the extensions its pointers reach into.
fn extensions_used(plan: &plan::Plan<'_>) -> Vec<String> {
    let mut used: Vec<String> = plan
        .tracks
        .iter()
        .filter_map(|p| match &p.dest {
            Dest::Pointer(ptr) => Some(ptr),
            Dest::Node { .. } | Dest::Weights { .. } => None,
        })
        .flat_map(|ptr| {
            let mut e = pointer::extensions(ptr);
            e.push("KHR_animation_pointer".to_string());
            e
        })
        .collect();
    used.sort();
    used.dedup();
    used
}

/// The binary data written so far: buffer bytes, buffer views, accessors.
#[derive(Default)]
struct Data {
    buffer: Vec<u8>,
    views: Vec<Json>,
    accessors: Vec<Json>,
    written_keys: usize,
}

impl Data {
    /// Writes one track's sampler (input times, output values) and returns the sampler's JSON
    /// and how the track was written.
    fn write_track(
        &mut self,
        track: &Track,
        fps: f64,
        shift_frames: f64,
    ) -> Result<(Json, ExportedAs), GltfExportError> {
        let (sampler, how) = match exact_sampler(track, fps) {
            Ok(s) => {
                let kind = s.interpolation;
                (s, ExportedAs::Exact(kind))
            }
            Err(reason) => (baked_sampler(track, fps)?, ExportedAs::Baked(reason)),
        };
        let json = self.write_sampler(track, &sampler, track.components(), fps, shift_frames)?;
        Ok((json, how))
    }

    /// Writes the morph weights of one node (`tracks[t]` is target t) as one sampler.
    fn write_weights(
        &mut self,
        tracks: &[&Track],
        fps: f64,
        shift_frames: f64,
    ) -> Result<(Json, ExportedAs), GltfExportError> {
        let (sampler, how) = weights::sampler(tracks, fps)?;
        let Some(first) = tracks.first() else {
            return Err(GltfExportError::NothingToExport("no morph target".into()));
        };
        let json = self.write_sampler(first, &sampler, 1, fps, shift_frames)?;
        Ok((json, how))
    }

    /// Checks and writes a sampler: its input (times shifted by `shift_frames`) and output
    /// (`components` numbers per element) accessors.
    fn write_sampler(
        &mut self,
        track: &Track,
        sampler: &Sampler,
        components: usize,
        fps: f64,
        shift_frames: f64,
    ) -> Result<Json, GltfExportError> {
        let shift = shift_frames / fps;
        let times: Vec<f64> = sampler.times.iter().map(|t| t + shift).collect();
        self.written_keys += times.len();
        if self.written_keys > MAX_EXPORT_KEYS {
            return Err(GltfExportError::TooManyKeys {
                track: track.name().to_string(),
                keys: self.written_keys as f64,
                max: MAX_EXPORT_KEYS,
                total: true,
            });
        }
        check_f32(track, sampler, &times, fps, shift_frames)?;
        check_increasing(track, &times, fps, shift_frames)?;
        let input = self.push_times(&times);
        let values = sampler
            .outputs
            .iter()
            .flat_map(|v| v.iter().take(components).copied().collect::<Vec<_>>());
        let output = self.push_accessor(values, sampler.outputs.len(), components);
        Ok(json!({"input": input, "output": output, "interpolation": sampler.interpolation}))
    }

    /// The input accessor (SCALAR f32 seconds, with the `min`/`max` glTF requires).
    fn push_times(&mut self, times: &[f64]) -> usize {
        let input = self.push_accessor(times.iter().copied(), times.len(), 1);
        let (min, max) = (
            times.first().map_or(0.0, |t| f64::from(*t as f32)),
            times.last().map_or(0.0, |t| f64::from(*t as f32)),
        );
        self.accessors[input]["min"] = json!([min]);
        self.accessors[input]["max"] = json!([max]);
        input
    }

    /// A buffer view and a float accessor of `count` elements of `components` numbers.
    fn push_accessor(
        &mut self,
        values: impl Iterator<Item = f64>,
        count: usize,
        components: usize,
    ) -> usize {
        let (offset, length) = push_f32(&mut self.buffer, values);
        self.views
            .push(json!({"buffer": 0, "byteOffset": offset, "byteLength": length}));
        let ty = ["SCALAR", "VEC2", "VEC3", "VEC4"][components.clamp(1, 4) - 1];
        self.accessors.push(json!({
            "bufferView": self.views.len() - 1, "componentType": 5126, "count": count, "type": ty
        }));
        self.accessors.len() - 1
    }
}

/// Key times strictly increasing once rounded to f32 (glTF's rule).
fn check_increasing(
    track: &Track,
    times: &[f64],
    fps: f64,
    shift_frames: f64,
) -> Result<(), GltfExportError> {
    for pair in times.windows(2) {
        if (pair[1] as f32) <= (pair[0] as f32) {
            return Err(GltfExportError::TimesCollide {
                track: track.name().to_string(),
                a: pair[0] * fps - shift_frames,
                b: pair[1] * fps - shift_frames,
            });
        }
    }
    Ok(())
}

/// The GLB container: header, JSON chunk padded with spaces, BIN chunk padded with zeros.
fn glb_container(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| (4 - n % 4) % 4;
    let json_len = json.len() + pad(json.len());
    let bin_len = bin.len() + pad(bin.len());
    let total = 12 + 8 + json_len + 8 + bin_len;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(out.len() + pad(json.len()), b' ');
    out.extend_from_slice(&(bin_len as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out.resize(out.len() + pad(bin.len()), 0);
    out
}

/// Standard base64 with padding (RFC 4648).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
