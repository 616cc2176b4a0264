//! Determinism of fixed-point playback: a golden hash of the showcase (every segment kind and ease family) played by cursors and by a bank, identical across runs, threads and build profiles.
//!
//! CI runs this file in both profiles: `cargo test --release` (with the workspace) and
//! `cargo test -p inbetween-determinism` (debug: the same file, built by `crates/determinism`
//! without the library's dev-dependencies). Fixed-point tracks play i64 states with
//! wrapping additions, so the values are exact and cannot depend on the optimizer; the hash
//! also covers the compiler, whose float work is plain IEEE arithmetic (no fused operations)
//! and evaluates the same in both profiles.

use inbetween::batch::Bank;
use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream};
use inbetween::Document;

const SHOWCASE: &str = include_str!("../../../examples/showcase.json");

/// FNV-1a (64-bit) of every played value's bits, as computed by [`played_hash`] for the
/// fixed-point showcase.
const GOLDEN: &str = "92351e56e8bdfc9d";

/// FNV-1a, 64-bit: offset basis and prime.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn value(&mut self, x: f64) {
        for b in x.to_bits().to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

fn fixed_stream_bytes() -> Vec<u8> {
    let doc = Document::from_json_str(SHOWCASE, "showcase.json").expect("the showcase loads");
    let options = CompileOptions {
        precision: Precision::Fixed,
        ..CompileOptions::default()
    };
    doc.compile(&options).expect("the showcase compiles").bytes
}

/// Hashes the fixed-point playback of every track: forward from frame −10 for 300 frames (the
/// wraps on both sides included), a seek into the middle, and backward play at step −1 — all
/// integer frames, where fixed tracks play their integers exactly — then the same frames from
/// a batch `Bank`.
fn played_hash(stream: &Stream<'_>) -> String {
    let mut h = Fnv::new();
    for track in stream.tracks() {
        assert_eq!(track.precision(), Precision::Fixed);
        let mut p = TrackPlayer::new(track);
        p.seek(-10.0).expect("finite frame");
        for _ in 0..300 {
            p.value().into_iter().for_each(|x| h.value(x));
            p.advance();
        }
        p.seek(77.0).expect("finite frame");
        p.set_step(-1.0).expect("valid step");
        for _ in 0..150 {
            p.value().into_iter().for_each(|x| h.value(x));
            p.advance();
        }
    }
    let mut bank = Bank::new(std::slice::from_ref(stream)).expect("a small bank");
    let mut out = vec![0.0; bank.channels()];
    bank.seek(-10.0).expect("finite frame");
    for _ in 0..300 {
        bank.write_f64(&mut out).expect("buffer fits");
        out.iter().for_each(|&x| h.value(x));
        bank.advance();
    }
    format!("{:016x}", h.0)
}

#[test]
fn fixed_point_playback_matches_the_golden_hash_in_every_run_and_thread() {
    let bytes = fixed_stream_bytes();
    // Two compiles give the same bytes.
    assert!(
        fixed_stream_bytes() == bytes,
        "compiling twice gave different streams"
    );
    let stream = Stream::from_bytes(&bytes).expect("a valid stream");
    let first = played_hash(&stream);
    // Two runs in one process agree, and so do threads sharing the stream.
    assert_eq!(played_hash(&stream), first);
    let threads: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let stream = &stream;
                scope.spawn(move || played_hash(stream))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a playing thread panicked"))
            .collect()
    });
    for (i, h) in threads.iter().enumerate() {
        assert_eq!(*h, first, "thread {i}");
    }
    // And every build profile, on every run, matches the value pinned here.
    assert_eq!(
        first,
        GOLDEN,
        "fixed-point playback changed ({} profile)",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );
}
