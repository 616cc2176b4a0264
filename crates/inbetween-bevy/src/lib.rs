//! inbetween in Bevy: `.ibs` streams and documents as assets, played through Bevy's `AnimationPlayer` or, for crowds, by one batch `Bank` per stream and clock.
//!
//! ```ignore
//! app.add_plugins(InbetweenPlugin);                       // after AssetPlugin and TimePlugin
//! let walk: Handle<InbetweenStream> = asset_server.load("walk.ibs");   // or .json, .gltf, .glb
//! ```
//!
//! - [`InbetweenStream`]: a compiled stream, validated once. [`IbsLoader`] loads `.ibs`;
//!   [`DocumentLoader`] loads inbetween JSON documents and glTF animations and compiles them
//!   with its [`DocumentSettings`] (tolerance, precision, degree; fps and animation for glTF).
//!   A malformed file is the asset's load error ([`LoadError`]'s message), never a panic.
//! - **With Bevy's animation system**: [`TrackCurve<T>`] is a Bevy `Curve<T>` (seconds of the
//!   stream's clock) for `AnimatableCurve`; [`transform_clip`] builds an `AnimationClip` of every
//!   `NODE/translation|rotation|scale` track. `AnimationPlayer` then seeks, scales speed and
//!   blends as usual; each sample is a `TrackPlayer` seek (`O(log pieces + degree²)`).
//! - **At scale**: [`BankAnimation<T>`] binds fields of an entity's `T` ([`Transform`] or any
//!   [`BankTarget`]) to tracks, with its own start frame, speed and pause; [`play_banks`] plays
//!   one `Bank` per stream and clock each frame and copies the values out.

mod asset;
mod crowd;
mod curve;

use core::marker::PhantomData;

use bevy_app::{App, Plugin, PostUpdate, TaskPoolPlugin};
use bevy_asset::{AssetApp, AssetPlugin};
use bevy_ecs::schedule::{IntoScheduleConfigs, SystemSet};
use bevy_time::TimePlugin;
use bevy_transform::components::Transform;
use bevy_transform::TransformSystems;

pub use asset::{
    DocumentLoader, DocumentSettings, IbsLoader, InbetweenStream, LoadError, StreamPrecision,
};
pub use crowd::{play_banks, BankAnimation, BankPool, BankTarget, BindError, TransformField};
pub use curve::{transform_clip, CurveError, TrackCurve, TrackValue};

/// The systems that write bound entities (in `PostUpdate`, before transform propagation).
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct InbetweenSystems;

/// Registers [`InbetweenStream`] with its loaders (`.ibs`, `.json`, `.gltf`, `.glb`) and plays
/// [`BankAnimation<Transform>`]. Needs Bevy's `AssetPlugin` and `TimePlugin` (in
/// `MinimalPlugins` with `AssetPlugin`, or `DefaultPlugins`).
#[derive(Debug, Default, Clone, Copy)]
pub struct InbetweenPlugin;

impl Plugin for InbetweenPlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<InbetweenStream>()
            .register_asset_loader(IbsLoader)
            .register_asset_loader(DocumentLoader)
            .add_plugins(BankPlugin::<Transform>::default());
    }
}

/// What a headless app needs besides [`InbetweenPlugin`], from Bevy's sub-crates: the task
/// pools, `TimePlugin` and `AssetPlugin` reading files under `asset_root` (Bevy's
/// `MinimalPlugins` less the schedule runner: the caller drives `App::update`, or adds
/// `ScheduleRunnerPlugin`).
#[derive(Debug, Clone)]
pub struct HeadlessPlugins {
    /// Folder the asset server reads (`AssetPlugin::file_path`).
    pub asset_root: String,
}

impl Plugin for HeadlessPlugins {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            TaskPoolPlugin::default(),
            TimePlugin,
            AssetPlugin {
                file_path: self.asset_root.clone(),
                ..AssetPlugin::default()
            },
        ));
    }
}

/// Plays [`BankAnimation<T>`] for another [`BankTarget`] `T` (added for `Transform` by
/// [`InbetweenPlugin`]).
#[derive(Debug)]
pub struct BankPlugin<T>(PhantomData<fn() -> T>);

impl<T> Default for BankPlugin<T> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<T: BankTarget> Plugin for BankPlugin<T> {
    fn build(&self, app: &mut App) {
        app.init_resource::<BankPool<T>>().add_systems(
            PostUpdate,
            play_banks::<T>
                .in_set(InbetweenSystems)
                .before(TransformSystems::Propagate),
        );
    }
}
