//! `KHR_animation_pointer` targets of an export: which pointers it writes, and the materials and `extras` it creates so that every pointer names a property defined in the file.
//!
//! The extension (KhronosGroup/glTF, `extensions/2.0/Khronos/KHR_animation_pointer`) requires a
//! pointer to name a property "defined in the asset": present, or with a default value inside
//! an object that is present. The export writes pointers into `/materials/M/…` (creating
//! materials up to M and the objects on the way; the animated factor keeps its glTF default
//! until played) and `/extras/…` (creating the objects and setting the leaf to the track's first
//! value, since `extras` have no defaults). Other roots (`/cameras`, `/nodes/N/weights`, …)
//! need the model's own objects and are refused.

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Map, Value as Json};

use crate::gltf_import::unescape_pointer_token;
use crate::track::Track;

/// The most materials an export creates for pointers (`/materials/M/…` with M below this).
pub const MAX_POINTER_MATERIALS: usize = 1024;

/// Components of the properties of the glTF 2.0 Asset Object Model (and common material
/// extensions) that tracks most often animate, by the pointer's last tokens.
const KNOWN: [(&str, usize); 14] = [
    ("/baseColorFactor", 4),
    ("/emissiveFactor", 3),
    ("/metallicFactor", 1),
    ("/roughnessFactor", 1),
    ("/alphaCutoff", 1),
    ("/normalTexture/scale", 1),
    ("/occlusionTexture/strength", 1),
    ("/KHR_texture_transform/offset", 2),
    ("/KHR_texture_transform/scale", 2),
    ("/KHR_texture_transform/rotation", 1),
    ("/KHR_materials_emissive_strength/emissiveStrength", 1),
    ("/KHR_materials_ior/ior", 1),
    ("/KHR_materials_transmission/transmissionFactor", 1),
    ("/KHR_materials_specular/specularColorFactor", 3),
];

/// The tokens of a pointer (RFC 6901), unescaped; `None` unless it starts with `/`.
fn tokens(pointer: &str) -> Option<Vec<String>> {
    let rest = pointer.strip_prefix('/')?;
    Some(rest.split('/').map(unescape_pointer_token).collect())
}

/// Makes `pointer` name a defined property of `assets` (the output's `materials` and
/// `extras`), creating what is missing; `track` gives the number of components and, for
/// `extras`, the leaf's value.
pub(super) fn ensure(
    assets: &mut Map<String, Json>,
    pointer: &str,
    track: &Track,
) -> Result<(), &'static str> {
    let tokens = tokens(pointer).ok_or("a pointer starts with /")?;
    if let Some((_, n)) = KNOWN.iter().find(|(end, _)| pointer.ends_with(end)) {
        if *n != track.components() {
            return Err("its number of components does not fit the property its pointer names");
        }
    }
    let (mut at, rest) = match tokens.first().map(String::as_str) {
        Some("materials") => (material(assets, tokens.get(1))?, tokens.get(2..)),
        Some("extras") => (
            assets
                .entry("extras")
                .or_insert_with(|| Json::Object(Map::new())),
            tokens.get(1..),
        ),
        _ => return Err(
            "pointers outside /materials and /extras need the model's own objects; not exported",
        ),
    };
    let rest = rest
        .filter(|r| !r.is_empty())
        .ok_or("its pointer names an object, not a property")?;
    let in_extras = tokens.iter().any(|t| t == "extras");
    let (leaf, path) = rest
        .split_last()
        .ok_or("its pointer names an object, not a property")?;
    for token in path {
        let object = at
            .as_object_mut()
            .ok_or("its pointer runs through a value that is not an object")?;
        at = object
            .entry(token.clone())
            .or_insert_with(|| Json::Object(Map::new()));
    }
    let object = at
        .as_object_mut()
        .ok_or("its pointer runs through a value that is not an object")?;
    if in_extras && !object.contains_key(leaf) {
        object.insert(leaf.clone(), first_value(track));
    }
    Ok(())
}

/// Material `index` of `assets`, created (with those before it) when missing.
fn material<'a>(
    assets: &'a mut Map<String, Json>,
    index: Option<&String>,
) -> Result<&'a mut Json, &'static str> {
    let index: usize = index
        .and_then(|i| i.parse().ok())
        .filter(|&i| i < MAX_POINTER_MATERIALS)
        .ok_or("its pointer names a material by an index that is not a whole number below 1024")?;
    let materials = assets
        .entry("materials")
        .or_insert_with(|| Json::Array(Vec::new()))
        .as_array_mut()
        .ok_or("materials is not an array")?;
    while materials.len() <= index {
        materials.push(Json::Object(Map::new()));
    }
    Ok(&mut materials[index])
}

/// The track's first key value: a number for a scalar, else an array.
fn first_value(track: &Track) -> Json {
    let v = track
        .keys()
        .first()
        .map(|k| k.value.to_array())
        .unwrap_or_default();
    let parts: Vec<Json> = v
        .iter()
        .take(track.components())
        .map(|x| Json::from(f64::from(*x as f32)))
        .collect();
    match parts.as_slice() {
        [one] => one.clone(),
        _ => Json::Array(parts),
    }
}

/// The extensions a pointer reaches into (`…/extensions/NAME/…`), for `extensionsUsed`.
pub(super) fn extensions(pointer: &str) -> Vec<String> {
    let tokens = tokens(pointer).unwrap_or_default();
    tokens
        .windows(2)
        .filter(|w| w[0] == "extensions")
        .map(|w| w[1].to_string())
        .collect()
}

/// Whether `pointer` names a property of the model (`--onto`) outside `/materials`, `/extras`
/// and `/nodes` (which the export manages itself): every object on the way exists, and the
/// leaf exists or its object does (glTF's defaults make it defined).
pub(super) fn in_model(root: &Json, pointer: &str) -> bool {
    let Some(tokens) = tokens(pointer) else {
        return false;
    };
    if matches!(
        tokens.first().map(String::as_str),
        Some("materials" | "extras" | "nodes") | None
    ) {
        return false;
    }
    let Some((_, path)) = tokens.split_last() else {
        return false;
    };
    let mut at = root;
    for token in path {
        let next = match at {
            Json::Object(o) => o.get(token),
            Json::Array(a) => token.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        };
        match next {
            Some(n) => at = n,
            None => return false,
        }
    }
    at.is_object()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A pointer into a model resolves when every object on the way exists (the leaf may take
    /// its default); the roots the export manages itself never count as the model's.
    #[test]
    fn pointers_into_the_model_resolve_through_existing_objects() {
        let root = json!({"cameras": [{"type": "perspective",
            "perspective": {"yfov": 0.8, "znear": 0.1}}],
            "extensions": {"KHR_lights_punctual": {"lights": [{"type": "point"}]}}});
        assert!(in_model(&root, "/cameras/0/perspective/yfov"));
        assert!(in_model(&root, "/cameras/0/perspective/zfar"));
        assert!(in_model(
            &root,
            "/extensions/KHR_lights_punctual/lights/0/intensity"
        ));
        assert!(!in_model(&root, "/cameras/1/perspective/yfov"));
        assert!(!in_model(&root, "/cameras/0/orthographic/xmag"));
        assert!(!in_model(&root, "/materials/0/emissiveFactor"));
        assert!(!in_model(&root, "cameras/0/perspective/yfov"));
    }

    /// Tokens are unescaped as RFC 6901 says, and `extensions/NAME` is found on the way.
    #[test]
    fn extensions_on_a_pointer_are_listed() {
        assert_eq!(
            extensions("/materials/0/extensions/KHR_texture_transform/offset"),
            ["KHR_texture_transform"]
        );
        assert_eq!(
            tokens("/extras/a~1b~0c"),
            Some(vec!["extras".into(), "a/b~c".into()])
        );
    }
}
