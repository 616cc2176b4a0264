//! Compiled tracks as Bevy curves: `TrackCurve<T>` implements `Curve<T>` so `AnimatableCurve` and `AnimationPlayer` play it.

use core::marker::PhantomData;

use bevy_animation::animated_field;
use bevy_animation::animation_curves::AnimatableCurve;
use bevy_animation::{AnimationClip, AnimationTargetId};
use bevy_curve::{Curve, Interval};
use bevy_ecs::name::Name;
use bevy_math::{Quat, Vec2, Vec3, Vec4};
use bevy_reflect::{Reflect, TypePath};
use bevy_transform::components::Transform;
use inbetween::player::TrackPlayer;
use inbetween::stream::StreamValueType;

use crate::asset::InbetweenStream;

/// A value type a track can be played as: its component count and which stream value types
/// carry it.
pub trait TrackValue: Send + Sync + TypePath + 'static {
    /// Number of components (1 to 4).
    const COMPONENTS: usize;
    /// Whether a track of `value_type` plays as `Self`.
    fn accepts(value_type: StreamValueType) -> bool;
    /// The value from the first `COMPONENTS` components.
    fn from_components(c: &[f64; 4]) -> Self;
}

impl TrackValue for f32 {
    const COMPONENTS: usize = 1;
    fn accepts(value_type: StreamValueType) -> bool {
        value_type == StreamValueType::Scalar
    }
    fn from_components(c: &[f64; 4]) -> Self {
        c[0] as f32
    }
}

impl TrackValue for Vec2 {
    const COMPONENTS: usize = 2;
    fn accepts(value_type: StreamValueType) -> bool {
        value_type == StreamValueType::Vec2
    }
    fn from_components(c: &[f64; 4]) -> Self {
        Vec2::new(c[0] as f32, c[1] as f32)
    }
}

impl TrackValue for Vec3 {
    const COMPONENTS: usize = 3;
    fn accepts(value_type: StreamValueType) -> bool {
        value_type == StreamValueType::Vec3
    }
    fn from_components(c: &[f64; 4]) -> Self {
        Vec3::new(c[0] as f32, c[1] as f32, c[2] as f32)
    }
}

impl TrackValue for Vec4 {
    const COMPONENTS: usize = 4;
    fn accepts(value_type: StreamValueType) -> bool {
        matches!(value_type, StreamValueType::Vec4 | StreamValueType::Color)
    }
    fn from_components(c: &[f64; 4]) -> Self {
        Vec4::new(c[0] as f32, c[1] as f32, c[2] as f32, c[3] as f32)
    }
}

/// `[x, y, z, w]` as the player gives them: normalized when the track has the normalize flag
/// (the compiler's default), else as stored, each component within the track's tolerance of the
/// unit quaternion (see docs/stream-format.md).
impl TrackValue for Quat {
    const COMPONENTS: usize = 4;
    fn accepts(value_type: StreamValueType) -> bool {
        value_type == StreamValueType::Quat
    }
    fn from_components(c: &[f64; 4]) -> Self {
        Quat::from_xyzw(c[0] as f32, c[1] as f32, c[2] as f32, c[3] as f32)
    }
}

/// Why a track cannot be played as a curve of the asked type.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CurveError {
    /// No track has this name.
    #[error("the stream has no track named {name:?}")]
    NoSuchTrack {
        /// The name asked for.
        name: String,
    },
    /// The track's value type does not match the curve's.
    #[error("track {name:?} is a {found:?} track; expected one that plays as {expected}")]
    WrongType {
        /// The track.
        name: String,
        /// The curve's value type.
        expected: &'static str,
        /// The track's value type.
        found: StreamValueType,
    },
}

/// One track of a compiled stream as a Bevy [`Curve`], in **seconds** of the stream's clock:
/// `sample(t)` plays frame `t · fps` exactly as `TrackPlayer::seek` does (any real frame, the
/// track's wrap outside its keys). Cheap to clone (the stream is shared).
///
/// The domain is the stream's span ([`InbetweenStream::span`]) in seconds, `[min(0, first key),
/// last key] / fps` over all its tracks (one clock for the clip, as in glTF), at least one frame.
#[derive(Reflect)]
#[reflect(opaque, Debug, Clone)]
pub struct TrackCurve<T: TrackValue> {
    stream: InbetweenStream,
    track: usize,
    fps: f64,
    domain: Interval,
    marker: PhantomData<fn() -> T>,
}

impl<T: TrackValue> core::fmt::Debug for TrackCurve<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let name = self.stream.stream().track(self.track).map(|t| t.name());
        f.debug_struct("TrackCurve")
            .field("track", &name)
            .field("as", &T::short_type_path())
            .field("fps", &self.fps)
            .field("domain", &self.domain)
            .finish()
    }
}

impl<T: TrackValue> Clone for TrackCurve<T> {
    fn clone(&self) -> Self {
        Self {
            stream: self.stream.clone(),
            track: self.track,
            fps: self.fps,
            domain: self.domain,
            marker: PhantomData,
        }
    }
}

impl<T: TrackValue> TrackCurve<T> {
    /// The track named `name` of `stream`, played as `T`.
    ///
    /// # Errors
    /// `NoSuchTrack`, or `WrongType` when the track's value type does not play as `T`.
    pub fn new(stream: &InbetweenStream, name: &str) -> Result<Self, CurveError> {
        let s = stream.stream();
        let track = s
            .track_by_name(name)
            .ok_or_else(|| CurveError::NoSuchTrack {
                name: name.to_owned(),
            })?;
        if !T::accepts(track.value_type()) {
            return Err(CurveError::WrongType {
                name: name.to_owned(),
                expected: T::short_type_path(),
                found: track.value_type(),
            });
        }
        Ok(Self {
            stream: stream.clone(),
            track: track.index(),
            fps: s.fps(),
            domain: stream_domain(stream),
            marker: PhantomData,
        })
    }
}

/// The stream's span (`InbetweenStream::span`) in seconds.
fn stream_domain(stream: &InbetweenStream) -> Interval {
    let (first, last) = stream.span();
    let fps = stream.fps();
    Interval::new((first / fps) as f32, (last / fps) as f32).unwrap_or(Interval::UNIT)
}

impl<T: TrackValue> Curve<T> for TrackCurve<T> {
    fn domain(&self) -> Interval {
        self.domain
    }

    /// Plays frame `t · fps`; a non-finite `t` gives the value at the track's first frame.
    fn sample_unchecked(&self, t: f32) -> T {
        let stream = self.stream.stream();
        let mut player = stream
            .track(self.track)
            .map(TrackPlayer::new)
            .unwrap_or_default();
        // `seek` refuses only a non-finite frame, leaving the player at the first frame.
        let _ = player.seek(f64::from(t) * self.fps);
        T::from_components(&player.value())
    }
}

/// An [`AnimationClip`] playing every `NODE/translation`, `NODE/rotation` and `NODE/scale`
/// track of `stream` (the names `inbetween::gltf_import` gives) on the entity whose
/// [`AnimationTargetId`] is `AnimationTargetId::from_name(&Name::new(NODE))`. Other tracks are
/// left out; returns the clip and the node names it targets, in track order.
///
/// # Errors
/// `WrongType` when such a track has another value type (a `vec4` `translation`, say).
pub fn transform_clip(
    stream: &InbetweenStream,
) -> Result<(AnimationClip, Vec<String>), CurveError> {
    let mut clip = AnimationClip::default();
    let mut nodes: Vec<String> = Vec::new();
    for track in stream.stream().tracks() {
        let name = track.name();
        let Some((node, field)) = name.rsplit_once('/') else {
            continue;
        };
        let target = AnimationTargetId::from_name(&Name::new(node.to_owned()));
        match field {
            "translation" => clip.add_curve_to_target(
                target,
                AnimatableCurve::new(
                    animated_field!(Transform::translation),
                    TrackCurve::<Vec3>::new(stream, name)?,
                ),
            ),
            "rotation" => clip.add_curve_to_target(
                target,
                AnimatableCurve::new(
                    animated_field!(Transform::rotation),
                    TrackCurve::<Quat>::new(stream, name)?,
                ),
            ),
            "scale" => clip.add_curve_to_target(
                target,
                AnimatableCurve::new(
                    animated_field!(Transform::scale),
                    TrackCurve::<Vec3>::new(stream, name)?,
                ),
            ),
            _ => continue,
        }
        if !nodes.iter().any(|n| n == node) {
            nodes.push(node.to_owned());
        }
    }
    Ok((clip, nodes))
}
