//! 10 000 walkers of the corpus walk cycle played by `BankAnimation` (one bank per stream and phase), headless, printing the frame time.
//!
//! `cargo run --release --manifest-path crates/inbetween-bevy/Cargo.toml --example crowd --
//! [WALKERS] [UPDATES] [HZ] [whole]` (defaults 10 000, 300, 60): each walker is 23 bone entities
//! bound to the `NODE/translation|rotation|scale` tracks, looping from a whole-frame phase in
//! `[0, 25)`; `Time` advances `1 / HZ` s per update and the banks play the clock's fractional
//! frames, or with `whole` its whole frames (the pose changes at the stream's 30 fps; forward
//! play on the bank's Horner fast path).

// The bench's setup; this example spawns only the bank crowd.
#[allow(dead_code)]
#[path = "../benches/common/mod.rs"]
mod common;

use std::time::Instant;

use inbetween_bevy::BankPool;

fn arg(i: usize, default: f64) -> Result<f64, common::Error> {
    match std::env::args().nth(i) {
        Some(a) => a
            .parse::<f64>()
            .map_err(|e| format!("argument {i} {a:?}: {e}").into()),
        None => Ok(default),
    }
}

fn main() -> Result<(), common::Error> {
    let walkers = arg(1, 10_000.0)? as usize;
    let updates = arg(2, 300.0)? as usize;
    let hz = arg(3, 60.0)?;
    let whole = std::env::args().nth(4).is_some_and(|a| a == "whole");
    let mut app = common::app(hz);
    let (handle, stream) = common::load_walk(&mut app)?;
    let start = Instant::now();
    common::spawn_bank_crowd(&mut app, &handle, &stream, walkers, whole);
    app.update();
    let bones = common::nodes(&stream).len();
    println!(
        "{walkers} walkers × {bones} bones spawned, first update (banks built) in {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    let times = common::frame_times(&mut app, updates);
    let pool = app
        .world()
        .resource::<BankPool<bevy_transform::components::Transform>>();
    println!(
        "{updates} updates at {hz} Hz{}: frame time median {:.2} ms, min {:.2} ms, max {:.2} ms; {} banks for {} clocks",
        if whole { " (whole frames)" } else { "" },
        times[times.len() / 2],
        times[0],
        times[times.len() - 1],
        pool.banks(),
        pool.groups()
    );
    Ok(())
}
