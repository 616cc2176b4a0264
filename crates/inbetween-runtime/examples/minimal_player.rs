//! The smallest useful game-side player: load a compiled `.ibs` stream and play every track from
//! its first to its last frame, depending on `inbetween-runtime` alone.
//!
//! `cargo run --release -p inbetween-runtime --example minimal_player -- anim.ibs`
//! prints the frame count and the sum of every played component (a checksum a reader can compare
//! with `inbetween play`). Its stripped size is the figure README quotes for a minimal player.

use inbetween_runtime::player::{Player, TrackPlayer};
use inbetween_runtime::stream::Stream;

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: minimal_player STREAM.ibs");
        return std::process::ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("{}: {e}", path.to_string_lossy());
            return std::process::ExitCode::FAILURE;
        }
    };
    let stream = match Stream::from_bytes(&bytes) {
        Ok(stream) => stream,
        Err(e) => {
            eprintln!("{}: {e}", path.to_string_lossy());
            return std::process::ExitCode::FAILURE;
        }
    };
    let (first, last) = stream.frame_range().unwrap_or((0.0, -1.0));
    let mut slots = vec![TrackPlayer::default(); stream.track_count()];
    let mut row = vec![0.0; stream.total_components()];
    let Ok(mut player) = Player::new(&stream, &mut slots) else {
        return std::process::ExitCode::FAILURE;
    };
    let frames = if last >= first {
        (last - first).floor() as u64 + 1
    } else {
        0
    };
    if player.seek(first).is_err() {
        return std::process::ExitCode::FAILURE;
    }
    let mut sum = 0.0;
    for _ in 0..frames {
        player.write(&mut row);
        sum += row.iter().sum::<f64>();
        player.advance();
    }
    println!("{frames} frames, sum of played values {sum}");
    std::process::ExitCode::SUCCESS
}
