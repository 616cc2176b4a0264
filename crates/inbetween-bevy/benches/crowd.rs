//! Per-frame cost of a crowd: `BankAnimation` (banks of the compiled walk cycle) against Bevy's `AnimationPlayer` playing the same keys as Bevy curves, same walkers, one run.
//!
//! `cargo bench -p inbetween-bevy --bench crowd -- [WALKERS] [UPDATES]` (defaults 10 000, 200).
//! For each update rate (30 Hz: one stream frame per update; 60 Hz: half frames) it times
//! `App::update` of two apps that differ only in who animates the 23 × WALKERS bones, three
//! rounds alternating, and prints medians; then the largest difference between the two crowds'
//! transforms after the same updates (compiled stream vs Bevy's lerp/slerp of the keys).

#[path = "common/mod.rs"]
mod common;

use bevy_animation::AnimatedBy;
use bevy_app::App;
use bevy_ecs::query::With;
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

fn main() -> Result<(), common::Error> {
    let walkers = arg(0, 10_000);
    let updates = arg(1, 200);
    for hz in [30.0, 60.0] {
        let mut bank = common::app(hz);
        let (handle, stream) = common::load_walk(&mut bank)?;
        let nodes = common::nodes(&stream);
        common::spawn_bank_crowd(&mut bank, &handle, &stream, walkers);
        let mut player = common::app(hz);
        common::spawn_player_crowd(&mut player, common::bevy_clip()?, &nodes, walkers);
        bank.update();
        player.update();
        let (mut b, mut p) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            b.push(time_updates(&mut bank, updates));
            p.push(time_updates(&mut player, updates));
        }
        b.sort_by(f64::total_cmp);
        p.sort_by(f64::total_cmp);
        let bones = walkers * nodes.len();
        println!(
            "{hz} Hz, {walkers} walkers ({bones} bones): BankAnimation {:.2} ms/frame ({:.1} ns/bone), AnimationPlayer {:.2} ms/frame ({:.1} ns/bone), rounds {b:.2?} vs {p:.2?}",
            b[1],
            b[1] * 1e6 / bones as f64,
            p[1],
            p[1] * 1e6 / bones as f64,
        );
        let (tb, tp) = (
            transforms::<BankAnimation>(&mut bank),
            transforms::<AnimatedBy>(&mut player),
        );
        let n = tb.len();
        let worst = tb.iter().zip(&tp).fold(0f32, |m, (a, b)| {
            let r = a.rotation.dot(b.rotation).abs().min(1.0);
            m.max(a.translation.distance(b.translation))
                .max(a.scale.distance(b.scale))
                .max(1.0 - r)
        });
        println!("  {n} bound bones; largest difference between the crowds after {} updates: {worst:.2e}", 6 * updates + 1);
    }
    Ok(())
}
