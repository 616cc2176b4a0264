//! Determinism of fixed-point playback: golden hashes of the showcase (every segment kind and ease family) played by cursors and by a bank, identical across runs, threads, build profiles and float libraries.
//!
//! Two promises, tested apart:
//! - **Playing** a fixed-point stream is integer arithmetic: the committed stream
//!   `determinism/showcase-fixed.ibs` plays to the same bits in every profile, on every thread
//!   and with either float library (`std` or `libm`).
//! - **Compiling** is deterministic for one float library: twice, or on 4 threads, the same
//!   bytes; with `std` exactly the committed stream (committed in the version-1/2 layout, so the
//!   compiler's version-3 bytes are compared through `stream::reencode` both ways, and they play
//!   the same golden hash). `libm`'s transcendental functions may differ from the platform's in
//!   the last ulp, so a `libm` build compiles its own (pinned) bytes.
//!
//! CI runs this file in the release profile (with the workspace), at opt-level 0 with `std`
//! and at opt-level 0 with `libm` (`cargo test -p inbetween-determinism [--no-default-features
//! --features libm]`: the same file, built by `crates/determinism` without the library's
//! dev-dependencies).
//!
//! After a deliberate change to the showcase or the compiler, regenerate the stream with
//! `cargo run --release -- compile examples/showcase.json --precision fixed -o
//! crates/inbetween/tests/determinism/showcase-fixed.ibs`, re-encode it in the version-1/2
//! layout (`stream::reencode(.., TableLayout::Legacy)`), and pin the new hashes the failures
//! print.

use inbetween::batch::Bank;
use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::{reencode, Precision, Stream, TableLayout};
use inbetween::Document;

const SHOWCASE: &str = include_str!("../../../examples/showcase.json");

/// The fixed-point showcase as `inbetween compile --precision fixed` writes it with `std` math.
const COMMITTED: &[u8] = include_bytes!("determinism/showcase-fixed.ibs");

/// FNV-1a (64-bit) of every played value's bits, as computed by [`played_hash`], for
/// [`COMMITTED`]: the same with every float library, profile and thread. (Pinned again when
/// the i32 lanes of a chunk came to share one exponent, `batch/fixed32/shared.rs`: the bank's
/// fixed lanes whose own exponent was larger play in their chunk's coarser unit; and when
/// F-curve tracks came to play their keys' values within Blender's key tolerance, session 13:
/// the showcase's `blender` track has a constant piece around each key; and when the bank's
/// i32 lanes came to play Newton coefficients in finer units, session 18,
/// `batch/fixed32.rs`.)
const PLAYBACK_GOLDEN: &str = "800b7649590f8c37";

/// FNV-1a of the bytes (format version 3) the showcase compiles to with `libm` math (without
/// `std`).
const LIBM_COMPILE_GOLDEN: &str = "029ae1d566696abd";

/// FNV-1a of the same compile re-encoded in the version-1 layout. (All three pinned again when
/// the compiler's exact slerp values became `quat::Arc::closed_form`: the fixed integers of the
/// showcase's slerp tracks moved by their last units; and in session 13, when its `blender`
/// F-curve track came to hold each key's value within Blender's key tolerance.)
const LIBM_COMPILE_GOLDEN_V1: &str = "632a2a1f395cc30d";

/// FNV-1a, 64-bit: offset basis and prime.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn value(&mut self, x: f64) {
        self.bytes(&x.to_bits().to_le_bytes());
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
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

fn profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

fn float_library() -> &'static str {
    if cfg!(feature = "std") {
        "std"
    } else {
        "libm"
    }
}

#[test]
fn playing_the_fixed_point_stream_gives_the_same_bits_in_every_run_thread_profile_and_float_library(
) {
    let stream = Stream::from_bytes(COMMITTED).expect("the committed stream is valid");
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
    assert_eq!(
        first,
        PLAYBACK_GOLDEN,
        "fixed-point playback changed ({} profile, {} float math)",
        profile(),
        float_library()
    );
}

#[test]
fn compiling_the_fixed_point_showcase_gives_the_same_bytes_in_every_run_and_thread() {
    let bytes = fixed_stream_bytes();
    assert!(
        fixed_stream_bytes() == bytes,
        "compiling twice gave different streams"
    );
    let threads: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4).map(|_| scope.spawn(fixed_stream_bytes)).collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a compiling thread panicked"))
            .collect()
    });
    for (i, b) in threads.iter().enumerate() {
        assert!(*b == bytes, "thread {i} compiled different bytes");
    }
    let mut h = Fnv::new();
    h.bytes(&bytes);
    let hash = format!("{:016x}", h.0);
    if cfg!(feature = "std") {
        let compiled = Stream::from_bytes(&bytes).expect("the compiled stream is valid");
        assert_eq!(played_hash(&compiled), PLAYBACK_GOLDEN);
        let committed = Stream::from_bytes(COMMITTED).expect("the committed stream is valid");
        assert!(
            reencode(&committed, TableLayout::Compact).expect("re-encodes") == bytes,
            "the committed stream re-encoded in version 3 is not what the compiler writes"
        );
        let bytes = reencode(&compiled, TableLayout::Legacy).expect("re-encodes");
        assert!(
            bytes == COMMITTED,
            "the showcase no longer compiles to determinism/showcase-fixed.ibs ({} profile; \
             bytes hash {hash}): regenerate it (see the module docs)",
            profile()
        );
    } else {
        assert_eq!(
            hash,
            LIBM_COMPILE_GOLDEN,
            "the libm compile of the showcase changed ({} profile)",
            profile()
        );
        let compiled = Stream::from_bytes(&bytes).expect("the compiled stream is valid");
        let mut v1 = Fnv::new();
        v1.bytes(&reencode(&compiled, TableLayout::Legacy).expect("re-encodes"));
        assert_eq!(format!("{:016x}", v1.0), LIBM_COMPILE_GOLDEN_V1);
    }
}
