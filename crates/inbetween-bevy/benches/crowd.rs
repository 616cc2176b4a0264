//! Per-frame cost of a crowd: `BankAnimation` (banks of the compiled walk cycle) against Bevy's `AnimationPlayer` playing the same keys as Bevy curves, same walkers, one run.
//!
//! `cargo bench --manifest-path crates/inbetween-bevy/Cargo.toml --bench crowd -- [WALKERS]
//! [UPDATES]` (defaults 10 000, 200). For 30 Hz and 60 Hz updates (`Time` advancing 1/30 s or
//! 1/60 s, in whole nanoseconds: 0.99999999 and 0.49999998 stream frames) it times `App::update`
//! of apps that differ only in who animates the 23 × WALKERS bones — `BankAnimation` playing the
//! clock's exact frames, `BankAnimation` in whole frames, Bevy's `AnimationPlayer` — and a floor: a
//! system writing the same 10 floats into every bone's `Transform` — three rounds alternating,
//! and prints the medians; then the largest difference between the exact-frame
//! crowd's and the `AnimationPlayer` crowd's transforms after the same updates (compiled stream vs
//! Bevy's lerp/slerp of the same keys).

#[path = "common/mod.rs"]
mod common;

use bevy_animation::AnimatedBy;
use bevy_app::{App, PostUpdate};
use bevy_ecs::component::Component;
use bevy_ecs::query::With;
use bevy_ecs::system::{Query, Res};
use bevy_math::{Quat, Vec3};
use bevy_time::Time;
use bevy_transform::components::Transform;
use inbetween_bevy::BankAnimation;

fn arg(i: usize, default: usize) -> usize {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

/// Median `App::update` time in ms over `updates` updates.
fn time_updates(app: &mut App, updates: usize) -> f64 {
    let times = common::frame_times(app, updates);
    times[times.len() / 2]
}

/// The transforms of the entities with an `F`, in spawn order.
fn transforms<F: bevy_ecs::component::Component>(app: &mut App) -> Vec<Transform> {
    let world = app.world_mut();
    let mut q = world.query_filtered::<(bevy_ecs::entity::Entity, &Transform), With<F>>();
    let mut all: Vec<_> = q.iter(world).map(|(e, t)| (e.index(), *t)).collect();
    all.sort_by_key(|(e, _)| *e);
    all.into_iter().map(|(_, t)| t).collect()
}

/// Marks the floor app's bones.
#[derive(Component)]
struct Floor;

/// The floor: writes 10 floats (from `Time`) into every marked bone's `Transform`.
fn write_floor(time: Res<Time>, mut bones: Query<&mut Transform, With<Floor>>) {
    let x = time.elapsed_secs();
    for mut t in &mut bones {
        t.translation = Vec3::splat(x);
        t.rotation = Quat::from_xyzw(0.0, 0.0, x.sin(), x.cos());
        t.scale = Vec3::splat(1.0 + x);
    }
}

/// An app whose `bones` bones are written by [`write_floor`].
fn floor_app(hz: f64, bones: usize) -> App {
    let mut app = common::app(hz);
    app.add_systems(PostUpdate, write_floor);
    app.world_mut()
        .spawn_batch((0..bones).map(|_| (Transform::default(), Floor)));
    app
}

fn main() -> Result<(), common::Error> {
    let walkers = arg(0, 10_000);
    let updates = arg(1, 200);
    for hz in [30.0, 60.0] {
        let mut bank = common::app(hz);
        let (handle, stream) = common::load_walk(&mut bank)?;
        let nodes = common::nodes(&stream);
        common::spawn_bank_crowd(&mut bank, &handle, &stream, walkers, false);
        let mut whole = common::app(hz);
        let (handle, stream) = common::load_walk(&mut whole)?;
        common::spawn_bank_crowd(&mut whole, &handle, &stream, walkers, true);
        let mut player = common::app(hz);
        common::spawn_player_crowd(&mut player, common::bevy_clip()?, &nodes, walkers);
        let floor = floor_app(hz, walkers * nodes.len());
        let mut apps = [bank, whole, player, floor];
        let mut medians = [vec![], vec![], vec![], vec![]];
        for app in &mut apps {
            app.update();
        }
        for _ in 0..3 {
            for (app, m) in apps.iter_mut().zip(&mut medians) {
                m.push(time_updates(app, updates));
            }
        }
        let bones = (walkers * nodes.len()) as f64;
        println!("{hz} Hz, {walkers} walkers ({bones} bones), ms per update (median of 3 rounds of {updates}; ns per bone):");
        for (name, m) in [
            "BankAnimation",
            "BankAnimation, whole frames",
            "AnimationPlayer",
            "floor: write 10 floats",
        ]
        .iter()
        .zip(&mut medians)
        {
            m.sort_by(f64::total_cmp);
            println!(
                "  {name:28} {:7.2} ms ({:5.1} ns/bone)  rounds {m:.2?}",
                m[1],
                m[1] * 1e6 / bones
            );
        }
        let [bank, _, player, _] = &mut apps;
        let (tb, tp) = (
            transforms::<BankAnimation>(bank),
            transforms::<AnimatedBy>(player),
        );
        let worst = tb.iter().zip(&tp).fold(0f32, |m, (a, b)| {
            let r = a.rotation.dot(b.rotation).abs().min(1.0);
            m.max(a.translation.distance(b.translation))
                .max(a.scale.distance(b.scale))
                .max(1.0 - r)
        });
        println!("  {} bones compared: largest difference, exact-frame banks vs AnimationPlayer: {worst:.2e}", tb.len());
    }
    Ok(())
}
