//! inbetween: keyframe animation — exact evaluation of every interpolation kind, compiled to forward-difference streams.
//!
//! An animator sets keys; inbetween draws everything between them. Load a document
//! ([`Document::from_json_str`]) or build tracks in code ([`Track::vec2`] and friends), validate
//! once, then evaluate any track at any fractional frame ([`Track::eval`]) with no failure path
//! left.
#![forbid(unsafe_code)]
#![cfg_attr(not(feature = "std"), no_std)]
#![warn(missing_docs)]

extern crate alloc;

pub use inbetween_runtime::{batch, math, player, stream};

pub mod arclength;
pub mod compile;
pub mod curve;
pub mod document;
pub mod ease;
pub mod error;
pub mod expr;
pub mod fcurve;
#[cfg(feature = "gltf")]
pub mod gltf_export;
#[cfg(feature = "gltf")]
pub mod gltf_import;
#[cfg(feature = "gltf")]
pub mod gltf_scene;
#[cfg(feature = "json")]
pub mod json;
#[cfg(feature = "json")]
pub mod lint;
#[cfg(feature = "lottie")]
pub mod lottie_import;
#[cfg(feature = "ozz")]
pub mod ozz_import;
pub mod quat;
pub mod rotation;
pub mod sample;
mod segment_arclength;
pub mod track;
mod track_source;
mod validate;
pub mod value;
pub use track_source::{stream_value_type, stream_wrap};

pub use document::{Document, DocumentBuilder};
pub use ease::Ease;
pub use error::{DocumentError, ErrorKind, EvalError, LoadError, Location};
pub use track::{Interp, Key, PathMode, Tcb, Track, TrackBuilder, Wrap};
pub use value::{Value, ValueType};
