//! Crowd setup shared by the `crowd` example and bench: a headless app, the corpus walk cycle, and walkers spawned for the bank path or for Bevy's `AnimationPlayer`.

use std::time::Duration;

use bevy_animation::animated_field;
use bevy_animation::animation_curves::{AnimatableCurve, AnimatableKeyframeCurve};
use bevy_animation::graph::{AnimationGraph, AnimationGraphHandle, AnimationNodeIndex};
use bevy_animation::{
    AnimatedBy, AnimationClip, AnimationPlayer, AnimationPlugin, AnimationTargetId,
};
use bevy_app::App;
use bevy_asset::{AssetServer, Assets, Handle, LoadState};
use bevy_ecs::name::Name;
use bevy_math::{Quat, Vec3};
use bevy_time::TimeUpdateStrategy;
use bevy_transform::components::Transform;
use inbetween::gltf_import::{import_gltf_path, ImportOptions};
use inbetween_bevy::{
    BankAnimation, DocumentSettings, HeadlessPlugins, InbetweenPlugin, InbetweenStream,
};

/// The corpus folder (the asset root).
pub const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus");
/// The walk cycle, relative to [`ASSETS`].
pub const WALK: &str = "gltf/character_walk.gltf";
/// Its keys are 30 fps.
pub const FPS: f64 = 30.0;

pub type Error = Box<dyn std::error::Error>;

/// A headless app (no window, no renderer) whose `Time` advances `1 / hz` s per update.
pub fn app(hz: f64) -> App {
    let mut app = App::new();
    app.add_plugins(HeadlessPlugins {
        asset_root: ASSETS.into(),
    })
    .add_plugins((AnimationPlugin, InbetweenPlugin))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / hz,
    )));
    app.finish();
    app.cleanup();
    // Bevy's first update starts the clock (delta 0): spawn after it so every crowd moves alike.
    app.update();
    app
}

/// Loads the walk cycle through the plugin (compiled at load at [`FPS`]).
pub fn load_walk(app: &mut App) -> Result<(Handle<InbetweenStream>, InbetweenStream), Error> {
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load_builder()
        .with_settings(|s: &mut DocumentSettings| s.gltf_fps = FPS)
        .load(WALK);
    for _ in 0..100_000 {
        app.update();
        match app.world().resource::<AssetServer>().load_state(&handle) {
            LoadState::Loaded => break,
            LoadState::Failed(e) => return Err(e.to_string().into()),
            _ => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    let stream = app
        .world()
        .resource::<Assets<InbetweenStream>>()
        .get(&handle)
        .ok_or("not loaded")?
        .clone();
    Ok((handle, stream))
}

/// `App::update` times in ms over `updates` updates, sorted.
pub fn frame_times(app: &mut App, updates: usize) -> Vec<f64> {
    let mut times: Vec<f64> = (0..updates)
        .map(|_| {
            let t = std::time::Instant::now();
            app.update();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times
}

/// Node names of the walk cycle's tracks (`NODE/translation` …), in track order.
pub fn nodes(stream: &InbetweenStream) -> Vec<String> {
    let mut nodes: Vec<String> = Vec::new();
    for track in stream.stream().tracks() {
        if let Some((node, _)) = track.name().rsplit_once('/') {
            if !nodes.iter().any(|n| n == node) {
                nodes.push(node.to_owned());
            }
        }
    }
    nodes
}

/// Whole-frame phases in `[0, 25)` from a fixed xorshift sequence, one per walker.
pub fn phases(walkers: usize) -> Vec<f64> {
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    (0..walkers)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 25) as f64
        })
        .collect()
}

/// Spawns `walkers` skeletons whose bones play the stream through `BankAnimation`, looping,
/// each walker from its phase; `whole`: in whole frames (`BankAnimation::whole_frames`).
pub fn spawn_bank_crowd(
    app: &mut App,
    handle: &Handle<InbetweenStream>,
    stream: &InbetweenStream,
    walkers: usize,
    whole: bool,
) {
    let nodes = nodes(stream);
    let world = app.world_mut();
    for phase in phases(walkers) {
        let bones: Vec<_> = nodes
            .iter()
            .map(|node| {
                let anim = BankAnimation::new(handle.clone(), phase)
                    .transform_node(stream, node)
                    .repeating();
                let anim = if whole { anim.in_whole_frames() } else { anim };
                (Transform::default(), anim)
            })
            .collect();
        world.spawn_batch(bones);
    }
}

/// An `AnimationClip` of Bevy's own `AnimatableKeyframeCurve`s built from the same glTF keys
/// (all LINEAR: lerp for translation and scale, `Quat::slerp` for rotation).
pub fn bevy_clip() -> Result<AnimationClip, Error> {
    let path = std::path::Path::new(ASSETS).join(WALK);
    let doc = import_gltf_path(
        &path,
        &ImportOptions {
            fps: FPS,
            ..ImportOptions::default()
        },
    )?;
    let mut clip = AnimationClip::default();
    for track in doc.tracks() {
        let Some((node, field)) = track.name().rsplit_once('/') else {
            continue;
        };
        let target = AnimationTargetId::from_name(&Name::new(node.to_owned()));
        let time = |f: f64| (f / FPS) as f32;
        let v =
            |k: &inbetween::Key, i: usize| k.value.as_slice().get(i).copied().unwrap_or(0.0) as f32;
        let vec3s = track
            .keys()
            .iter()
            .map(|k| (time(k.frame), Vec3::new(v(k, 0), v(k, 1), v(k, 2))));
        match field {
            "translation" => clip.add_curve_to_target(
                target,
                AnimatableCurve::new(
                    animated_field!(Transform::translation),
                    AnimatableKeyframeCurve::new(vec3s)?,
                ),
            ),
            "scale" => clip.add_curve_to_target(
                target,
                AnimatableCurve::new(
                    animated_field!(Transform::scale),
                    AnimatableKeyframeCurve::new(vec3s)?,
                ),
            ),
            "rotation" => {
                let quats = track.keys().iter().map(|k| {
                    (
                        time(k.frame),
                        Quat::from_xyzw(v(k, 0), v(k, 1), v(k, 2), v(k, 3)),
                    )
                });
                clip.add_curve_to_target(
                    target,
                    AnimatableCurve::new(
                        animated_field!(Transform::rotation),
                        AnimatableKeyframeCurve::new(quats)?,
                    ),
                );
            }
            _ => {}
        }
    }
    Ok(clip)
}

/// Spawns `walkers` skeletons played by Bevy's `AnimationPlayer` (one per walker, repeating,
/// seeked to the walker's phase), all sharing `clip`.
pub fn spawn_player_crowd(app: &mut App, clip: AnimationClip, nodes: &[String], walkers: usize) {
    let world = app.world_mut();
    let clip = world.resource_mut::<Assets<AnimationClip>>().add(clip);
    let (graph, node): (AnimationGraph, AnimationNodeIndex) = AnimationGraph::from_clip(clip);
    let graph = world.resource_mut::<Assets<AnimationGraph>>().add(graph);
    let targets: Vec<(Name, AnimationTargetId)> = nodes
        .iter()
        .map(|n| {
            let name = Name::new(n.clone());
            let id = AnimationTargetId::from_name(&name);
            (name, id)
        })
        .collect();
    for phase in phases(walkers) {
        let mut player = AnimationPlayer::default();
        player.play(node).repeat().seek_to((phase / FPS) as f32);
        let player = world
            .spawn((player, AnimationGraphHandle(graph.clone())))
            .id();
        let bones: Vec<_> = targets
            .iter()
            .map(|(name, id)| (name.clone(), *id, AnimatedBy(player), Transform::default()))
            .collect();
        world.spawn_batch(bones);
    }
}
