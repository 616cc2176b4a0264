//! Reading a glTF file's JSON with its `KHR_animation_pointer` channels set aside (the `gltf` crate requires a `node` on every channel), and naming and typing the tracks they become.

use serde_json::Value as Json;

use super::GltfImportError;
use crate::value::ValueType;

/// A channel whose target is a `KHR_animation_pointer`.
#[derive(Clone, Debug)]
pub(super) struct PointerChannel {
    /// Index in the file's `animations`.
    pub animation: usize,
    /// Index in that animation's `channels`, as written in the file.
    pub channel: usize,
    /// Its sampler index (checked against the animation's samplers by the caller).
    pub sampler: usize,
    /// The JSON pointer.
    pub pointer: String,
}

/// A parsed file: the `gltf` crate's view of it without the pointer channels, the raw JSON
/// root, the pointer channels, and per animation the file's index of each channel kept.
pub(super) struct Parsed {
    pub gltf: gltf::Gltf,
    pub root: Json,
    pub pointers: Vec<PointerChannel>,
    pub kept: Vec<Vec<usize>>,
}

impl Parsed {
    /// The file's index of channel `kept_index` of animation `animation`.
    pub fn channel_index(&self, animation: usize, kept_index: usize) -> usize {
        self.kept
            .get(animation)
            .and_then(|k| k.get(kept_index))
            .copied()
            .unwrap_or(kept_index)
    }
}

/// Parses glTF JSON or GLB bytes, setting the pointer channels aside.
pub(super) fn parse(bytes: &[u8]) -> Result<Parsed, GltfImportError> {
    let (json, blob) = if bytes.starts_with(b"glTF") {
        let glb = gltf::binary::Glb::from_slice(bytes).map_err(GltfImportError::Parse)?;
        (
            glb.json.into_owned(),
            glb.bin.map(std::borrow::Cow::into_owned),
        )
    } else {
        (bytes.to_vec(), None)
    };
    let deserialize = |e| GltfImportError::Parse(gltf::Error::Deserialize(e));
    let mut root: Json = gltf::json::deserialize::from_slice(&json).map_err(deserialize)?;
    let (pointers, kept) = take_pointer_channels(&mut root);
    let json_root: gltf::json::Root =
        gltf::json::deserialize::from_value(root.clone()).map_err(deserialize)?;
    // Put the pointer channels back in the raw root: it is what `root` describes to callers.
    restore_pointer_channels(&mut root, &pointers);
    Ok(Parsed {
        gltf: gltf::Gltf {
            document: gltf::Document::from_json_without_validation(json_root),
            blob,
        },
        root,
        pointers,
        kept,
    })
}

/// The pointer of a channel target `{"path": "pointer", "extensions": {"KHR_animation_pointer":
/// {"pointer": P}}}` without a `node`.
fn pointer_of(channel: &Json) -> Option<String> {
    let target = channel.get("target")?;
    if target.get("path")?.as_str()? != "pointer" || target.get("node").is_some() {
        return None;
    }
    let p = target
        .get("extensions")?
        .get("KHR_animation_pointer")?
        .get("pointer")?
        .as_str()?;
    Some(p.to_string())
}

fn take_pointer_channels(root: &mut Json) -> (Vec<PointerChannel>, Vec<Vec<usize>>) {
    let mut pointers = Vec::new();
    let mut kept_all = Vec::new();
    let Some(animations) = root.get_mut("animations").and_then(Json::as_array_mut) else {
        return (pointers, kept_all);
    };
    for (a, animation) in animations.iter_mut().enumerate() {
        let mut kept = Vec::new();
        if let Some(channels) = animation.get_mut("channels").and_then(Json::as_array_mut) {
            let all = core::mem::take(channels);
            for (c, channel) in all.into_iter().enumerate() {
                match pointer_of(&channel) {
                    Some(pointer) => pointers.push(PointerChannel {
                        animation: a,
                        channel: c,
                        sampler: channel
                            .get("sampler")
                            .and_then(Json::as_u64)
                            .and_then(|s| usize::try_from(s).ok())
                            .unwrap_or(usize::MAX),
                        pointer,
                    }),
                    None => {
                        kept.push(c);
                        channels.push(channel);
                    }
                }
            }
        }
        kept_all.push(kept);
    }
    (pointers, kept_all)
}

fn restore_pointer_channels(root: &mut Json, pointers: &[PointerChannel]) {
    for p in pointers {
        let channels = root
            .get_mut("animations")
            .and_then(|a| a.get_mut(p.animation))
            .and_then(|a| a.get_mut("channels"))
            .and_then(Json::as_array_mut);
        if let Some(channels) = channels {
            let at = p.channel.min(channels.len());
            channels.insert(
                at,
                serde_json::json!({"sampler": p.sampler, "target": {"path": "pointer",
                    "extensions": {"KHR_animation_pointer": {"pointer": p.pointer}}}}),
            );
        }
    }
}

/// The prefix of pointers `export` generates for tracks that have no glTF property of their
/// own: `/extras/inbetween/NAME` (NAME escaped as RFC 6901 says).
pub const EXTRAS_PREFIX: &str = "/extras/inbetween/";

/// The track name of a pointer: NAME for `/extras/inbetween/NAME` (unescaped), the pointer
/// itself otherwise.
pub(super) fn track_name(pointer: &str) -> String {
    match pointer.strip_prefix(EXTRAS_PREFIX) {
        Some(escaped) if !escaped.is_empty() && !escaped.contains('/') => unescape(escaped),
        _ => pointer.to_string(),
    }
}

/// RFC 6901 §4: `~1` is `/`, `~0` is `~`.
pub fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// RFC 6901 §3: `~` is written `~0` and `/` `~1`.
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The type of a track read through a pointer, from the output accessor's width: a node's
/// `rotation` is a `quat`, a `…ColorFactor` of 4 numbers a `color`.
pub(super) fn value_type(pointer: &str, width: usize) -> Option<ValueType> {
    Some(match width {
        1 => ValueType::Scalar,
        2 => ValueType::Vec2,
        3 => ValueType::Vec3,
        4 if pointer.starts_with("/nodes/") && pointer.ends_with("/rotation") => ValueType::Quat,
        4 if pointer.ends_with("ColorFactor") => ValueType::Color,
        4 => ValueType::Vec4,
        _ => return None,
    })
}
