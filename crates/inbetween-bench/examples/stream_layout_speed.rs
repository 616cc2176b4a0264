//! Cost of the version-3 compact piece table against the version-1 layout on the benchmark's scalar f32 workload: size, validation, seeks and `TrackPlayer` playback, both layouts of the same compile in one run.
//!
//! `cargo run --release -p inbetween-bench --example stream_layout_speed [CHANNELS [v1|v3]]`
//! (default 1000, both layouts twice; `v1` or `v3` times that layout once, for
//! `perf stat -e instructions`). Playback: one `TrackPlayer` per channel forward over 1 000 frames from frame 64
//! (about 28 piece changes per channel), median of 7 runs, ns per channel-frame. Seeks: every
//! channel sought to 64 frames spread over its keys, ns per seek. `Bank::new`: ms to build a
//! bank of the stream (median of 3).

use std::hint::black_box;
use std::time::Instant;

use inbetween::batch::Bank;
use inbetween::player::TrackPlayer;
use inbetween::stream::{reencode, Precision, Stream, TableLayout};
use inbetween_bench::{compile, time, workload_document, workload_keys, PlayerMethod};

/// Median ns of `runs` calls of `f`, divided by `per`.
fn median_ns(runs: usize, per: usize, mut f: impl FnMut()) -> f64 {
    let mut samples: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_nanos() as f64 / per.max(1) as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// ns per seek: every track sought to 64 frames over its keys.
fn seek_ns(stream: &Stream<'_>) -> f64 {
    let mut players: Vec<TrackPlayer<'_>> = stream.tracks().map(TrackPlayer::new).collect();
    let seeks = players.len() * 64;
    median_ns(7, seeks, || {
        for p in &mut players {
            let (first, last) = (p.track().first_frame(), p.track().last_frame());
            for i in 0..64 {
                let _ = p.seek(first + (last - first) * f64::from(i) / 64.0);
                black_box(p.value());
            }
        }
    })
}

fn main() -> Result<(), String> {
    let channels: usize = std::env::args()
        .nth(1)
        .map_or(Ok(1000), |a| a.parse())
        .map_err(|e| format!("channels: {e}"))?;
    let keys = workload_keys(channels, 5);
    let key_count: usize = keys.iter().map(Vec::len).sum();
    let doc = workload_document(&keys, None)?;
    let compact = compile(&doc, Precision::F32)?;
    let stream = Stream::from_bytes(&compact).map_err(|e| e.to_string())?;
    let legacy = reencode(&stream, TableLayout::Legacy).map_err(|e| e.to_string())?;
    println!("{channels} channels, {key_count} keys");
    println!("layout   B/key  validate ns/B  seek ns  player ns/channel-frame  Bank::new ms");
    let only = std::env::args().nth(2);
    let runs = [
        ("v3", &compact),
        ("v1", &legacy),
        ("v3", &compact),
        ("v1", &legacy),
    ];
    let runs = runs
        .iter()
        .filter(|(name, _)| only.as_deref().map_or(true, |o| o == *name))
        .take(if only.is_some() { 1 } else { 4 });
    for &(name, bytes) in runs {
        let validate = median_ns(7, bytes.len(), || {
            black_box(Stream::from_bytes(black_box(bytes)).is_ok());
        });
        let s = Stream::from_bytes(bytes).map_err(|e| e.to_string())?;
        let play = time(&mut PlayerMethod::new(s), channels, channels, 1000, 7);
        let build = median_ns(3, 1_000_000, || {
            black_box(Bank::new(std::slice::from_ref(&s)).is_ok());
        });
        println!(
            "{name}       {:5.2}  {validate:13.3}  {:7.1}  {play:23.2}  {build:.1}",
            bytes.len() as f64 / key_count as f64,
            seek_ns(&s)
        );
    }
    Ok(())
}
