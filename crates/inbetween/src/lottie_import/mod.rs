//! Lottie (Bodymovin JSON from After Effects) to an animation document, with After Effects' and lottie-web's keyframe semantics.
//!
//! [`import_lottie`] reads a Lottie file's root composition and every precomposition it uses, and
//! makes one track per animated property, in Lottie's own stored units, keyed in the root
//! composition's frames (the document's fps is the Lottie `fr`). The mapping, what is not
//! imported and every known difference from lottie-web are in `docs/lottie.md`:
//!
//! - names `{layer}/{property}`, `{layer}/{group}/…/{item}/{property}` for shape items, and
//!   `{precomp layer}/{inner layer}/…` through precompositions;
//! - hold keys (`h`) become `step` segments; `o`/`i` handles a `cubic_bezier` ease per segment
//!   (per component: where the components' eases differ the property is split into scalar
//!   tracks `name.x`, `name.y`, … or `name.r`, …);
//! - spatial tangents `to`/`ti` make Bezier segments timed by their own arc length
//!   (`path: "segment_arclength"`, [`crate::PathMode::SegmentArclength`]);
//! - precomposition timing (`st`, `sr`) maps key times exactly; a time-remapped (`tm`)
//!   precomposition's layers, and 3-D orientations (which lottie-web slerps), are baked to one
//!   linear key per whole root frame where they are visible (exact at whole frames).
//!
//! Animated path vertices, expressions, effects and properties with no track name (gradients,
//! masks, text, ...) are listed in [`LottieImport::skipped`], never silently dropped.

mod keys;
mod walk;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::Value as Json;

use crate::document::Document;
use crate::error::DocumentError;

/// The most root frames (`op − ip`) a Lottie file may span: 10⁶, 4.6 hours at 60 fps. Baking a
/// time-remapped precomposition makes one key per frame, so a huge `op` is refused up front.
pub const MAX_LOTTIE_FRAMES: f64 = 1_000_000.0;

/// The most layers walked, each use of a precomposition counting its layers again: a file of a
/// few kilobytes can nest ten uses of a precomposition ten deep (10¹⁰ layers), refused here.
pub const MAX_LAYERS: usize = 100_000;

/// The most keys all baked tracks (time remap, orientation) may have together: 4 × 10⁶, about
/// half a gigabyte while the document is built.
pub const MAX_BAKED_KEYS: usize = 4_000_000;

/// The deepest nesting of precompositions followed (a composition that contains itself is
/// refused before this).
pub const MAX_PRECOMP_DEPTH: usize = 64;

/// A Lottie file refused, with where: the layer (its track-name path), the property, the
/// keyframe index and the field.
#[derive(Debug, thiserror::Error)]
pub enum LottieError {
    /// Not JSON at all.
    #[error("{source_name}: not valid JSON: {message}")]
    Json {
        /// The file.
        source_name: String,
        /// serde_json's message (line and column).
        message: String,
    },
    /// Something of the wrong type or value.
    #[error("{source_name}: {location}: expected {expected}, found {found}")]
    Invalid {
        /// The file.
        source_name: String,
        /// Layer, property, keyframe and field.
        location: String,
        /// What the field must hold.
        expected: String,
        /// What it holds.
        found: String,
    },
    /// Nothing in the file is animated.
    #[error(
        "{source_name}: no animated property to import (every property is static, or skipped)"
    )]
    NothingAnimated {
        /// The file.
        source_name: String,
    },
    /// A track made from the file was refused by the document's own rules.
    #[error("{source_name}: {error}")]
    Document {
        /// The file.
        source_name: String,
        /// The document error (names the track).
        error: DocumentError,
    },
}

/// Something in the file that is not imported, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The property or item, named like a track (`Layer/Group/Path 1/path`).
    pub path: String,
    /// Why (`expression`, `animated path vertices`, `effects`, ...).
    pub reason: String,
}

/// Where a track's values come from in the Lottie file: what lottie-web's property object is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackOrigin {
    /// The track's name.
    pub track: String,
    /// Indices into the `layers` arrays from the root composition down to the layer that owns
    /// the property (through precomposition layers).
    pub layers: Vec<usize>,
    /// RFC 6901 JSON pointer to the property object from the layer object that owns it
    /// (`/ks/p`, `/shapes/0/it/2/c`).
    pub pointer: String,
    /// For a property split into scalar tracks: the component.
    pub component: Option<usize>,
    /// True when the property has spatial Bezier segments (placed by arc length; lottie-web's
    /// own placement differs by its length table, see docs/lottie.md).
    pub spatial: bool,
    /// True when the track was baked (one linear key per whole frame: time-remapped
    /// precompositions, orientations).
    pub baked: bool,
}

/// A Lottie file imported.
#[derive(Clone, Debug)]
pub struct LottieImport {
    /// The document: fps = `fr`, frames = the root composition's frame numbers.
    pub document: Document,
    /// What was not imported.
    pub skipped: Vec<Skipped>,
    /// One entry per track, in the document's order.
    pub origins: Vec<TrackOrigin>,
}

/// True when `bytes` look like a Lottie file rather than an animation document: a JSON object
/// whose top level has `layers` and `fr` and no `inbetween`. Bytes without the text `"layers"`
/// are not parsed at all; a file that is not a JSON object gives false.
#[must_use]
pub fn is_lottie(bytes: &[u8]) -> bool {
    // A cheap first look: without the word no file can be Lottie.
    if !bytes.windows(8).any(|w| w == b"\"layers\"") {
        return false;
    }
    match serde_json::from_slice::<Json>(bytes) {
        Ok(Json::Object(top)) => {
            top.contains_key("layers") && top.contains_key("fr") && !top.contains_key("inbetween")
        }
        _ => false,
    }
}

/// Imports a Lottie file (`bytes`; `source_name` names it in errors).
///
/// # Errors
///
/// [`LottieError`] naming the layer, property, keyframe and field of anything malformed: wrong
/// types, a missing `k`, `t` or `s`, keyframes out of order, values of different lengths, ease
/// handles with x outside [0, 1], `op − ip` past [`MAX_LOTTIE_FRAMES`], a precomposition that
/// contains itself, more than [`MAX_LAYERS`] layers walked or [`MAX_BAKED_KEYS`] baked keys; or
/// nothing animated. Nothing is returned but the error.
pub fn import_lottie(bytes: &[u8], source_name: &str) -> Result<LottieImport, LottieError> {
    let root: Json = serde_json::from_slice(bytes).map_err(|e| LottieError::Json {
        source_name: source_name.to_string(),
        message: e.to_string(),
    })?;
    walk::import(&root, source_name)
}

/// Where in the file an error is, as the message says it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Where {
    pub(crate) source_name: String,
    pub(crate) layer: Option<String>,
    pub(crate) property: Option<String>,
    pub(crate) key: Option<usize>,
}

impl Where {
    /// The same place at keyframe `index`.
    pub(crate) fn key(&self, index: usize) -> Where {
        Where {
            key: Some(index),
            ..self.clone()
        }
    }

    /// An error at `field` (empty: the object itself).
    pub(crate) fn invalid(&self, field: &str, expected: &str, found: String) -> LottieError {
        let mut parts: Vec<String> = Vec::new();
        if let Some(layer) = &self.layer {
            parts.push(format!("layer \"{layer}\""));
        }
        if let Some(property) = &self.property {
            parts.push(format!("property \"{property}\""));
        }
        if let Some(key) = self.key {
            parts.push(format!("keyframe {key}"));
        }
        if !field.is_empty() {
            parts.push(format!("field \"{field}\""));
        }
        if parts.is_empty() {
            parts.push("top level".to_string());
        }
        LottieError::Invalid {
            source_name: self.source_name.clone(),
            location: parts.join(", "),
            expected: expected.to_string(),
            found,
        }
    }
}

/// A JSON value as an error message shows it: its text, cut at 60 characters.
pub(crate) fn found(v: &Json) -> String {
    let text = v.to_string();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
