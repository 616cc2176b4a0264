//! Walking a Lottie file: compositions, layers and shape items, their track names, and each precomposition's time map to root frames.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value as Json};

use super::keys::{parse_orientation, parse_property, Orientation, Parsed, PropTrack, Shape};
use super::{
    found, LottieError, LottieImport, Skipped, TrackOrigin, Where, MAX_BAKED_KEYS, MAX_LAYERS,
    MAX_LOTTIE_FRAMES, MAX_PRECOMP_DEPTH,
};
use crate::document::Document;
use crate::track::{Track, TrackBuilder};
use crate::value::{Value, ValueType};

/// A precomposition layer between the root and a property: its visible range and how its
/// composition's frames follow from its parent composition's frame R.
#[derive(Clone, Debug)]
struct Level {
    /// In point, in the parent composition's frames.
    ip: f64,
    /// Out point (excluded), in the parent composition's frames.
    op: f64,
    /// Start time: the inner frame is (R − st) / sr.
    st: f64,
    /// Time stretch (> 0).
    sr: f64,
    /// Time remap (seconds, keyed in the parent composition's frames): the inner frame is
    /// tm(R) · fr (and `op − 1` where that equals `op`, as lottie-web does).
    tm: Option<Track>,
}

/// Where a composition sits: the name prefix of its layers, the indices of the precomposition
/// layers leading to it, and the chain of time maps.
#[derive(Clone, Debug)]
struct Scope {
    prefix: String,
    layers: Vec<usize>,
    chain: Vec<Level>,
}

/// One layer being walked: its scope entry and visible range (its own composition's frames).
struct LayerAt<'s> {
    scope: &'s Scope,
    index: usize,
}

/// Everything gathered while walking.
struct Ctx<'a> {
    source_name: &'a str,
    fps: f64,
    root_ip: f64,
    root_op: f64,
    assets: BTreeMap<&'a str, &'a [Json]>,
    /// Precomposition ids being walked (a composition inside itself is refused).
    stack: Vec<&'a str>,
    /// Layers walked so far (each precomposition use counted again).
    layers_seen: usize,
    /// Keys of baked tracks so far.
    baked_keys: usize,
    tracks: Vec<TrackBuilder>,
    origins: Vec<TrackOrigin>,
    skipped: Vec<Skipped>,
}

/// Reads the whole file (see [`super::import_lottie`]).
pub(super) fn import(root: &Json, source_name: &str) -> Result<LottieImport, LottieError> {
    let top = Where {
        source_name: source_name.to_string(),
        ..Where::default()
    };
    let Some(obj) = root.as_object() else {
        return Err(top.invalid("", "a Lottie JSON object", found(root)));
    };
    let fps = required_number(obj, "fr", &top)?;
    if fps <= 0.0 {
        return Err(top.invalid("fr", "a positive frame rate", format!("{fps}")));
    }
    let (root_ip, root_op) = (
        required_number(obj, "ip", &top)?,
        required_number(obj, "op", &top)?,
    );
    if !(root_op > root_ip && root_op - root_ip <= MAX_LOTTIE_FRAMES) {
        return Err(top.invalid(
            "op",
            &format!("an out point after ip ({root_ip}) by at most {MAX_LOTTIE_FRAMES} frames"),
            format!("{root_op}"),
        ));
    }
    let layers = array(obj, "layers", &top)?;
    let mut ctx = Ctx {
        source_name,
        fps,
        root_ip,
        root_op,
        assets: read_assets(obj, &top)?,
        stack: Vec::new(),
        layers_seen: 0,
        baked_keys: 0,
        tracks: Vec::new(),
        origins: Vec::new(),
        skipped: Vec::new(),
    };
    let scope = Scope {
        prefix: String::new(),
        layers: Vec::new(),
        chain: Vec::new(),
    };
    walk_comp(&mut ctx, layers, &scope)?;
    if ctx.tracks.is_empty() {
        return Err(LottieError::NothingAnimated {
            source_name: source_name.to_string(),
        });
    }
    let mut builder = Document::builder().fps(fps);
    for track in ctx.tracks {
        builder = builder.track(track);
    }
    let document = builder.build().map_err(|error| LottieError::Document {
        source_name: source_name.to_string(),
        error,
    })?;
    Ok(LottieImport {
        document,
        skipped: ctx.skipped,
        origins: ctx.origins,
    })
}

/// The precompositions: `assets` entries with an `id` and `layers` (image assets have none).
fn read_assets<'a>(
    obj: &'a Map<String, Json>,
    top: &Where,
) -> Result<BTreeMap<&'a str, &'a [Json]>, LottieError> {
    let mut assets = BTreeMap::new();
    let Some(list) = obj.get("assets") else {
        return Ok(assets);
    };
    let Some(list) = list.as_array() else {
        return Err(top.invalid("assets", "an array", found(list)));
    };
    for asset in list {
        let (Some(id), Some(layers)) = (
            asset.get("id").and_then(Json::as_str),
            asset.get("layers").and_then(Json::as_array),
        ) else {
            continue;
        };
        assets.insert(id, layers.as_slice());
    }
    Ok(assets)
}

/// A finite number that must be there.
fn required_number(obj: &Map<String, Json>, field: &str, at: &Where) -> Result<f64, LottieError> {
    match obj.get(field) {
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(at.invalid(field, "a finite number", found(v))),
        },
        None => Err(at.invalid(field, "a number", "nothing".to_string())),
    }
}

/// An optional finite number with a default.
fn number_or(
    obj: &Map<String, Json>,
    field: &str,
    default: f64,
    at: &Where,
) -> Result<f64, LottieError> {
    if obj.contains_key(field) {
        required_number(obj, field, at)
    } else {
        Ok(default)
    }
}

/// An array that must be there.
fn array<'a>(
    obj: &'a Map<String, Json>,
    field: &str,
    at: &Where,
) -> Result<&'a [Json], LottieError> {
    match obj.get(field) {
        Some(Json::Array(items)) => Ok(items),
        Some(v) => Err(at.invalid(field, "an array", found(v))),
        None => Err(at.invalid(field, "an array", "nothing".to_string())),
    }
}

/// A whole number as names show it (`3`, not `3.0`); other numbers as JSON writes them.
fn index_text(v: Option<&Json>, fallback: usize) -> String {
    match v.and_then(Json::as_f64) {
        Some(x) if crate::math::floor(x) == x && x.abs() < 1e15 => format!("{}", x as i64),
        Some(_) => v.map_or_else(|| fallback.to_string(), Json::to_string),
        None => fallback.to_string(),
    }
}

/// Names of a list's entries: `nm`, or `#{id}` when unnamed, or `{nm}#{id}` when two share
/// the name; `id` is the layer's `ind` (layers) or the 0-based position (shape items).
fn names(items: &[Json], id_field: Option<&str>) -> Vec<String> {
    let named: Vec<Option<&str>> = items
        .iter()
        .map(|item| {
            item.get("nm")
                .and_then(Json::as_str)
                .filter(|s| !s.is_empty())
        })
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for nm in named.iter().flatten() {
        *counts.entry(nm).or_insert(0) += 1;
    }
    items
        .iter()
        .zip(&named)
        .enumerate()
        .map(|(i, (item, nm))| {
            let id = index_text(id_field.and_then(|f| item.get(f)), i);
            match nm {
                Some(nm) if counts.get(nm).copied().unwrap_or(0) > 1 => format!("{nm}#{id}"),
                Some(nm) => (*nm).to_string(),
                None => format!("#{id}"),
            }
        })
        .collect()
}

/// Walks one composition's layers.
fn walk_comp<'a>(ctx: &mut Ctx<'a>, layers: &'a [Json], scope: &Scope) -> Result<(), LottieError> {
    let names = names(layers, Some("ind"));
    for (index, layer) in layers.iter().enumerate() {
        let name = format!("{}{}", scope.prefix, names[index]);
        let at = Where {
            source_name: ctx.source_name.to_string(),
            layer: Some(name.clone()),
            ..Where::default()
        };
        let Some(obj) = layer.as_object() else {
            return Err(at.invalid("", "a layer object", found(layer)));
        };
        ctx.layers_seen += 1;
        if ctx.layers_seen > MAX_LAYERS {
            let expected = format!(
                "at most {MAX_LAYERS} layers walked (a precomposition's layers count at each use)"
            );
            return Err(at.invalid("", &expected, "more".to_string()));
        }
        let here = LayerAt { scope, index };
        // Pointers start at the layer object (lottie-web copies a precomposition's layers for
        // each use after the first, so only the layer element's own data is reliable).
        let pointer = "";
        let (ip, op) = (
            required_number(obj, "ip", &at)?,
            required_number(obj, "op", &at)?,
        );
        if obj.get("hd").and_then(Json::as_bool) == Some(true) {
            note(ctx, &name, "hidden layer (hd), not drawn by lottie-web");
            continue;
        }
        if let Some(ks) = obj.get("ks") {
            walk_transform(ctx, &here, ks, &name, &format!("{pointer}/ks"), &at)?;
        }
        note_layer_extras(ctx, obj, &name);
        match obj.get("ty").and_then(Json::as_f64) {
            Some(4.0) => {
                if let Some(shapes) = obj.get("shapes") {
                    let Some(items) = shapes.as_array() else {
                        return Err(at.invalid("shapes", "an array", found(shapes)));
                    };
                    walk_shapes(
                        ctx,
                        &here,
                        items,
                        &format!("{name}/"),
                        &format!("{pointer}/shapes"),
                        &at,
                    )?;
                }
            }
            Some(0.0) => walk_precomp(ctx, &here, obj, &name, ip, op, &at)?,
            _ => {}
        }
    }
    Ok(())
}

/// Follows a precomposition layer into its composition.
fn walk_precomp<'a>(
    ctx: &mut Ctx<'a>,
    here: &LayerAt<'_>,
    obj: &'a Map<String, Json>,
    name: &str,
    ip: f64,
    op: f64,
    at: &Where,
) -> Result<(), LottieError> {
    let Some(id) = obj.get("refId").and_then(Json::as_str) else {
        return Err(at.invalid(
            "refId",
            "the id of a precomposition asset",
            found(obj.get("refId").unwrap_or(&Json::Null)),
        ));
    };
    let Some(&layers) = ctx.assets.get(id) else {
        return Err(at.invalid(
            "refId",
            "the id of a precomposition in \"assets\"",
            format!("\"{id}\""),
        ));
    };
    if ctx.stack.contains(&id) || ctx.stack.len() >= MAX_PRECOMP_DEPTH {
        return Err(at.invalid(
            "refId",
            "a precomposition that does not contain itself",
            format!("\"{id}\""),
        ));
    }
    let sr = number_or(obj, "sr", 1.0, at)?;
    if sr <= 0.0 {
        return Err(at.invalid(
            "sr",
            "a positive time stretch (reversed layers are not imported)",
            format!("{sr}"),
        ));
    }
    let tm = match obj.get("tm") {
        None => None,
        Some(prop) => time_remap(ctx, prop, name, at)?,
    };
    let mut chain = here.scope.chain.clone();
    chain.push(Level {
        ip,
        op,
        st: number_or(obj, "st", 0.0, at)?,
        sr,
        tm,
    });
    let mut layer_path = here.scope.layers.clone();
    layer_path.push(here.index);
    let inner = Scope {
        prefix: format!("{name}/"),
        layers: layer_path,
        chain,
    };
    ctx.stack.push(id);
    let result = walk_comp(ctx, layers, &inner);
    ctx.stack.pop();
    result
}

/// A precomposition's time remap as a track in its parent's frames (values in seconds), or
/// `None` when it is static (lottie-web then plays the constant frame tm · fr).
fn time_remap(
    ctx: &mut Ctx<'_>,
    prop: &Json,
    name: &str,
    at: &Where,
) -> Result<Option<Track>, LottieError> {
    let at = Where {
        property: Some("time_remap".to_string()),
        ..at.clone()
    };
    let static_value = |k: &Json| match k {
        Json::Number(n) => n.as_f64(),
        Json::Array(a) => a.first().and_then(Json::as_f64),
        _ => None,
    };
    match parse_property(prop, Shape::Scalar, &at)? {
        Parsed::Animated(tracks) => match tracks.first() {
            Some(t) => t
                .builder(format!("{name}/time_remap"), |f| f)
                .build()
                .map(Some)
                .map_err(|error| LottieError::Document {
                    source_name: ctx.source_name.to_string(),
                    error,
                }),
            None => Ok(None),
        },
        Parsed::Static => {
            let seconds = prop.get("k").and_then(static_value).unwrap_or(0.0);
            TrackBuilder::new(
                format!("{name}/time_remap"),
                crate::value::ValueType::Scalar,
            )
            .key(0.0, seconds)
            .build()
            .map(Some)
            .map_err(|error| LottieError::Document {
                source_name: ctx.source_name.to_string(),
                error,
            })
        }
        Parsed::Expression => {
            note(
                ctx,
                &format!("{name}/time_remap"),
                "expression (the precomposition is imported without time remap)",
            );
            Ok(None)
        }
    }
}

/// Transform property keys, their track names and shapes; `rz` is the rotation of a 3-D layer.
const TRANSFORM: [(&str, &str, Shape); 10] = [
    ("a", "anchor", Shape::Vector),
    ("p", "position", Shape::Vector),
    ("s", "scale", Shape::Vector),
    ("r", "rotation", Shape::Scalar),
    ("rz", "rotation", Shape::Scalar),
    ("rx", "rotation.x", Shape::Scalar),
    ("ry", "rotation.y", Shape::Scalar),
    ("o", "opacity", Shape::Scalar),
    ("sk", "skew", Shape::Scalar),
    ("sa", "skew_axis", Shape::Scalar),
];

/// A layer's `ks` or a group's `tr`: its properties as `{prefix}/{name}`.
fn walk_transform(
    ctx: &mut Ctx<'_>,
    here: &LayerAt<'_>,
    ks: &Json,
    prefix: &str,
    pointer: &str,
    at: &Where,
) -> Result<(), LottieError> {
    let Some(obj) = ks.as_object() else {
        return Err(at.invalid("ks", "a transform object", found(ks)));
    };
    let three_d = obj.contains_key("rx");
    for (key, name, shape) in TRANSFORM {
        // lottie-web reads `rz` for 3-D layers (those with `rx`) and `r` otherwise.
        if (key == "rz" && !three_d) || (key == "r" && three_d) {
            continue;
        }
        let Some(prop) = obj.get(key) else { continue };
        let separated = key == "p" && prop.get("s").and_then(Json::as_bool) == Some(true);
        if separated {
            for axis in ["x", "y", "z"] {
                if let Some(inner) = prop.get(axis) {
                    let track = format!("{prefix}/position.{axis}");
                    property(
                        ctx,
                        here,
                        inner,
                        Shape::Scalar,
                        &track,
                        &format!("{pointer}/p/{axis}"),
                        at,
                    )?;
                }
            }
            continue;
        }
        property(
            ctx,
            here,
            prop,
            shape,
            &format!("{prefix}/{name}"),
            &format!("{pointer}/{key}"),
            at,
        )?;
    }
    if let Some(or) = obj.get("or") {
        let name = format!("{prefix}/orientation");
        if or.get("x").is_some_and(Json::is_string) {
            note(ctx, &name, "expression");
        } else if let Some(orientation) = parse_orientation(
            or,
            &Where {
                property: Some(name.clone()),
                ..at.clone()
            },
        )? {
            add_orientation(ctx, here, &orientation, name, &format!("{pointer}/or"))?;
        }
    }
    Ok(())
}

/// Adds an animated orientation, baked at whole root frames (see [`Orientation`]).
fn add_orientation(
    ctx: &mut Ctx<'_>,
    here: &LayerAt<'_>,
    orientation: &Orientation,
    name: String,
    pointer: &str,
) -> Result<(), LottieError> {
    let eval = |r: f64| Value::new(orientation.at(r));
    let Some(builder) = bake(ctx, &here.scope.chain, ValueType::Vec3, &eval, &name)? else {
        note(ctx, &name, "never visible in the root composition's frames");
        return Ok(());
    };
    ctx.tracks.push(builder);
    ctx.origins.push(TrackOrigin {
        track: name,
        layers: layer_path(here),
        pointer: pointer.to_string(),
        component: None,
        spatial: false,
        baked: true,
    });
    Ok(())
}

/// The indices of the layers from the root composition down to `here`.
fn layer_path(here: &LayerAt<'_>) -> Vec<usize> {
    let mut l = here.scope.layers.clone();
    l.push(here.index);
    l
}

/// Shape item types and their imported properties.
fn item_properties(ty: &str) -> Option<&'static [(&'static str, &'static str, Shape)]> {
    Some(match ty {
        "fl" => &[
            ("c", "color", Shape::Color),
            ("o", "opacity", Shape::Scalar),
        ],
        "st" => &[
            ("c", "color", Shape::Color),
            ("o", "opacity", Shape::Scalar),
            ("w", "width", Shape::Scalar),
        ],
        "tm" => &[
            ("s", "start", Shape::Scalar),
            ("e", "end", Shape::Scalar),
            ("o", "offset", Shape::Scalar),
        ],
        "rc" => &[
            ("s", "size", Shape::Vector),
            ("p", "position", Shape::Vector),
            ("r", "roundness", Shape::Scalar),
        ],
        "el" => &[
            ("s", "size", Shape::Vector),
            ("p", "position", Shape::Vector),
        ],
        _ => return None,
    })
}

/// Walks a shape layer's (or group's) items; `prefix` ends with `/`.
fn walk_shapes(
    ctx: &mut Ctx<'_>,
    here: &LayerAt<'_>,
    items: &[Json],
    prefix: &str,
    pointer: &str,
    at: &Where,
) -> Result<(), LottieError> {
    let names = names(items, None);
    for (i, item) in items.iter().enumerate() {
        let Some(obj) = item.as_object() else {
            return Err(at.invalid("shapes", "shape item objects", found(item)));
        };
        let path = format!("{prefix}{}", names[i]);
        let ptr = format!("{pointer}/{i}");
        if obj.get("hd").and_then(Json::as_bool) == Some(true) {
            if has_animation(obj) {
                note(
                    ctx,
                    &path,
                    "hidden shape item (hd), not drawn by lottie-web",
                );
            }
            continue;
        }
        let ty = obj.get("ty").and_then(Json::as_str).unwrap_or("");
        match ty {
            "gr" => {
                if let Some(list) = obj.get("it").and_then(Json::as_array) {
                    walk_shapes(
                        ctx,
                        here,
                        list,
                        &format!("{path}/"),
                        &format!("{ptr}/it"),
                        at,
                    )?;
                }
            }
            "tr" => walk_transform(ctx, here, item, prefix.trim_end_matches('/'), &ptr, at)?,
            _ => match item_properties(ty) {
                Some(props) => {
                    for (key, name, shape) in props {
                        if let Some(prop) = obj.get(*key) {
                            property(
                                ctx,
                                here,
                                prop,
                                *shape,
                                &format!("{path}/{name}"),
                                &format!("{ptr}/{key}"),
                                at,
                            )?;
                        }
                    }
                    if ty == "st" && obj.get("d").is_some_and(has_animation_in) {
                        note(ctx, &format!("{path}/dashes"), "animated stroke dashes");
                    }
                }
                None if has_animation(obj) => {
                    let reason = match ty {
                        "sh" => "animated path vertices".to_string(),
                        "gf" | "gs" => "animated gradient".to_string(),
                        other => format!("animated shape item of type \"{other}\" (not imported)"),
                    };
                    note(ctx, &path, &reason);
                }
                None => {}
            },
        }
    }
    Ok(())
}

/// Reads one property and adds its tracks (or notes it skipped).
fn property(
    ctx: &mut Ctx<'_>,
    here: &LayerAt<'_>,
    prop: &Json,
    shape: Shape,
    track: &str,
    pointer: &str,
    at: &Where,
) -> Result<(), LottieError> {
    let at = Where {
        property: Some(track.to_string()),
        ..at.clone()
    };
    match parse_property(prop, shape, &at)? {
        Parsed::Static => Ok(()),
        Parsed::Expression => {
            note(ctx, track, "expression");
            Ok(())
        }
        Parsed::Animated(parts) => {
            for part in &parts {
                let name = match part.component {
                    Some(c) => {
                        let axes: &[&str] = if shape == Shape::Color {
                            &["r", "g", "b", "a"]
                        } else {
                            &["x", "y", "z", "w"]
                        };
                        format!("{track}.{}", axes.get(c).copied().unwrap_or("w"))
                    }
                    None => track.to_string(),
                };
                add_track(ctx, here, part, name, pointer)?;
            }
            Ok(())
        }
    }
}

/// Adds one track in root frames: key times mapped exactly through the precompositions'
/// `st`/`sr`, or baked at whole root frames under a time remap.
fn add_track(
    ctx: &mut Ctx<'_>,
    here: &LayerAt<'_>,
    part: &PropTrack,
    name: String,
    pointer: &str,
) -> Result<(), LottieError> {
    let chain = &here.scope.chain;
    let baked = chain.iter().any(|level| level.tm.is_some());
    let builder = if baked {
        let own =
            part.builder(name.clone(), |f| f)
                .build()
                .map_err(|error| LottieError::Document {
                    source_name: ctx.source_name.to_string(),
                    error,
                })?;
        match bake(ctx, chain, own.value_type(), &|r| own.eval(r), &name)? {
            Some(b) => b,
            None => {
                note(ctx, &name, "never visible in the root composition's frames");
                return Ok(());
            }
        }
    } else {
        // Root frame F = a·R + b for a frame R of this composition.
        let (mut a, mut b) = (1.0, 0.0);
        for level in chain {
            b += a * level.st;
            a *= level.sr;
        }
        part.builder(name.clone(), |t| a * t + b)
    };
    ctx.tracks.push(builder);
    ctx.origins.push(TrackOrigin {
        track: name,
        layers: layer_path(here),
        pointer: pointer.to_string(),
        component: part.component,
        spatial: part.segment_arclength,
        baked,
    });
    Ok(())
}

/// The composition frame that root frame `frame` shows through `chain`, or `None` where a
/// precomposition layer on the way is outside its in/out range (lottie-web's rules).
fn comp_frame(chain: &[Level], fps: f64, frame: f64) -> Option<f64> {
    let mut r = frame;
    for level in chain {
        if !(level.ip <= r && r < level.op) {
            return None;
        }
        r = match &level.tm {
            Some(tm) => {
                let remapped = tm.eval(r)[0] * fps;
                if remapped == level.op {
                    level.op - 1.0
                } else {
                    remapped
                }
            }
            None => (r - level.st) / level.sr,
        };
    }
    Some(r)
}

/// One linear key per whole root frame in [ip, op) where the chain is visible.
fn bake(
    ctx: &mut Ctx<'_>,
    chain: &[Level],
    value_type: ValueType,
    own: &dyn Fn(f64) -> Value,
    name: &str,
) -> Result<Option<TrackBuilder>, LottieError> {
    let frames = (ctx.root_op - crate::math::ceil(ctx.root_ip)).max(0.0) as usize;
    ctx.baked_keys = ctx.baked_keys.saturating_add(frames);
    if ctx.baked_keys > MAX_BAKED_KEYS {
        let at = Where {
            source_name: ctx.source_name.to_string(),
            property: Some(name.to_string()),
            ..Where::default()
        };
        let expected = format!("at most {MAX_BAKED_KEYS} baked keys in all (time remap, orientation: one per frame of op − ip)");
        return Err(at.invalid("", &expected, "more".to_string()));
    }
    let mut builder = TrackBuilder::new(name.to_string(), value_type);
    let mut any = false;
    let mut frame = crate::math::ceil(ctx.root_ip);
    while frame < ctx.root_op {
        if let Some(r) = comp_frame(chain, ctx.fps, frame) {
            builder = builder.key(frame, own(r));
            any = true;
        }
        frame += 1.0;
    }
    Ok(any.then_some(builder))
}

/// Records something not imported.
fn note(ctx: &mut Ctx<'_>, path: &str, reason: &str) {
    ctx.skipped.push(Skipped {
        path: path.to_string(),
        reason: reason.to_string(),
    });
}

/// True for a property object whose `k` holds keyframes, or that has an expression.
fn is_animated(prop: &Json) -> bool {
    let keyframed = prop
        .get("k")
        .and_then(Json::as_array)
        .and_then(|k| k.first())
        .is_some_and(Json::is_object);
    keyframed || prop.get("x").is_some_and(Json::is_string)
}

/// True when any property of `obj` (one level down, or in an array of objects) is animated.
fn has_animation(obj: &Map<String, Json>) -> bool {
    obj.values().any(has_animation_in)
}

/// True when `v` is an animated property, or an array or object holding one (two levels).
fn has_animation_in(v: &Json) -> bool {
    match v {
        Json::Object(_) if is_animated(v) => true,
        Json::Object(o) => o.values().any(is_animated),
        Json::Array(items) => items
            .iter()
            .any(|i| is_animated(i) || i.as_object().is_some_and(|o| o.values().any(is_animated))),
        _ => false,
    }
}

/// Layer parts that are never tracks: effects, animated masks, animated text.
fn note_layer_extras(ctx: &mut Ctx<'_>, obj: &Map<String, Json>, name: &str) {
    if obj
        .get("ef")
        .and_then(Json::as_array)
        .is_some_and(|e| !e.is_empty())
    {
        note(ctx, &format!("{name}/effects"), "effects");
    }
    if obj.get("masksProperties").is_some_and(has_animation_in) {
        note(
            ctx,
            &format!("{name}/masks"),
            "animated mask (path vertices, opacity or expansion)",
        );
    }
    if let Some(text) = obj.get("t") {
        let animated_document = text
            .get("d")
            .and_then(|d| d.get("k"))
            .and_then(Json::as_array)
            .is_some_and(|k| k.len() > 1);
        let animators = text
            .get("a")
            .and_then(Json::as_array)
            .is_some_and(|a| !a.is_empty());
        if animated_document || animators {
            note(ctx, &format!("{name}/text"), "animated text");
        }
    }
}
