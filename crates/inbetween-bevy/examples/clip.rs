//! One walking skeleton played by Bevy's `AnimationPlayer` from the corpus walk cycle, headless.
//!
//! `cargo run --release --manifest-path crates/inbetween-bevy/Cargo.toml --example clip`: loads
//! `gltf/character_walk.gltf` through `InbetweenPlugin` (compiled at load, 30 fps), builds an
//! `AnimationClip` of `TrackCurve`s with `transform_clip`, plays it (repeating) on 23 bone
//! entities at 60 updates per second of simulated time, and prints the left thigh's rotation and
//! the root's translation every 10 updates.

// The crowd bench's setup: a headless app, the walk cycle, walkers played by `AnimationPlayer`.
#[allow(dead_code)]
#[path = "../benches/common/mod.rs"]
mod common;

use bevy_ecs::name::Name;
use bevy_transform::components::Transform;
use inbetween_bevy::transform_clip;

fn main() -> Result<(), common::Error> {
    let mut app = common::app(60.0);
    let (_, stream) = common::load_walk(&mut app)?;
    let (clip, nodes) = transform_clip(&stream)?;
    println!(
        "{} tracks on {} bones, {:.3} s",
        stream.stream().track_count(),
        nodes.len(),
        clip.duration()
    );
    common::spawn_player_crowd(&mut app, clip, &nodes, 1);
    let shown = ["Bip001 L Thigh", "SkeletonRoot"];
    for update in 1..=60 {
        app.update();
        if update % 10 == 0 {
            let world = app.world_mut();
            let mut bones = world.query::<(&Name, &Transform)>();
            for (name, t) in bones
                .iter(world)
                .filter(|(n, _)| shown.contains(&n.as_str()))
            {
                println!(
                    "update {update:2}: {name} translation {:?} rotation {:?}",
                    t.translation, t.rotation
                );
            }
        }
    }
    Ok(())
}
