//! Sharing across threads: the runtime types are `Send`/`Sync`, one compiled stream played by many threads at once gives bit-identical results, and compiling on many threads gives identical bytes.

use std::sync::Barrier;

use inbetween::batch::Bank;
use inbetween::compile::{CompileError, CompileOptions, CompiledStream, TrackReport};
use inbetween::player::{Player, TrackPlayer};
use inbetween::stream::{Precision, Stream, StreamError};
use inbetween::{Document, DocumentError, LoadError, Track};

const SHOWCASE: &str = include_str!("../../../examples/showcase.json");
const PRECISIONS: [Precision; 3] = [Precision::F64, Precision::F32, Precision::Fixed];
const THREADS: usize = 8;

fn assert_send_sync<T: Send + Sync>() {}
fn assert_send<T: Send>() {}

// Checked when the test crate compiles: a type that stops being Send or Sync fails the build.
const _: fn() = || {
    // Immutable data: shareable by reference between threads.
    assert_send_sync::<Stream<'static>>();
    assert_send_sync::<inbetween::stream::StreamTrack<'static>>();
    assert_send_sync::<Document>();
    assert_send_sync::<Track>();
    assert_send_sync::<CompiledStream>();
    assert_send_sync::<TrackReport>();
    // Cursors hold only plain numbers and a borrowed stream: each thread owns its own, and they
    // can be moved to (or read from) another thread.
    assert_send_sync::<TrackPlayer<'static>>();
    assert_send::<Bank<'static>>();
    assert_send::<Player<'static, 'static>>();
    // Errors can cross threads (and go into `Box<dyn Error + Send + Sync>`).
    assert_send_sync::<LoadError>();
    assert_send_sync::<DocumentError>();
    assert_send_sync::<CompileError>();
    assert_send_sync::<StreamError>();
};

fn showcase() -> Document {
    Document::from_json_str(SHOWCASE, "showcase.json").expect("the showcase loads")
}

fn compile(d: &Document, precision: Precision) -> Vec<u8> {
    let options = CompileOptions {
        precision,
        ..CompileOptions::default()
    };
    d.compile(&options).expect("the showcase compiles").bytes
}

/// Plays every track of `stream` with its own cursor through forward play at step 1, a seek to a
/// fractional frame at another rate, and backward play; returns every value's bits in order.
fn play_cursors(stream: &Stream<'_>) -> Vec<u64> {
    let mut bits = Vec::new();
    for track in stream.tracks() {
        let mut p = TrackPlayer::new(track);
        p.seek(-10.0).expect("finite frame");
        for _ in 0..300 {
            bits.extend(p.value().iter().map(|x| x.to_bits()));
            p.advance();
        }
        p.seek(17.25).expect("finite frame");
        p.set_step(0.4).expect("valid step");
        for _ in 0..200 {
            bits.extend(p.value().iter().map(|x| x.to_bits()));
            p.advance();
        }
        p.seek(250.0).expect("finite frame");
        p.set_step(-1.0).expect("valid step");
        for _ in 0..300 {
            bits.extend(p.value().iter().map(|x| x.to_bits()));
            p.advance();
        }
    }
    bits
}

/// Plays the whole stream with a batch `Bank` from frame −10, then from a seek at half rate;
/// returns every channel's bits (f64 and f32 outputs) in order.
fn play_bank(stream: &Stream<'_>) -> Vec<u64> {
    let mut bank = Bank::new(std::slice::from_ref(stream)).expect("a small bank");
    let width = bank.channels();
    let mut out = vec![0.0; width];
    let mut out32 = vec![0.0f32; width];
    let mut bits = Vec::new();
    let mut record = |bank: &Bank<'_>, bits: &mut Vec<u64>| {
        bank.write_f64(&mut out).expect("buffer fits");
        bank.write_f32(&mut out32).expect("buffer fits");
        bits.extend(out.iter().map(|x| x.to_bits()));
        bits.extend(out32.iter().map(|x| u64::from(x.to_bits())));
    };
    bank.seek(-10.0).expect("finite frame");
    for _ in 0..300 {
        record(&bank, &mut bits);
        bank.advance();
    }
    bank.seek(33.5).expect("finite frame");
    bank.set_step(0.5).expect("valid step");
    for _ in 0..200 {
        record(&bank, &mut bits);
        bank.advance();
    }
    bits
}

#[test]
fn many_threads_playing_one_stream_match_a_single_thread_bit_for_bit() {
    let d = showcase();
    for precision in PRECISIONS {
        let bytes = compile(&d, precision);
        let stream = Stream::from_bytes(&bytes).expect("a valid stream");
        let cursors = play_cursors(&stream);
        let bank = play_bank(&stream);
        assert!(!cursors.is_empty() && !bank.is_empty());
        // The results are not trivially constant (a test that cannot fail would be useless).
        assert!(cursors.iter().any(|&b| b != cursors[0]));
        let barrier = Barrier::new(THREADS);
        let results: Vec<(Vec<u64>, Vec<u64>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..THREADS)
                .map(|i| {
                    let (stream, barrier) = (&stream, &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        // Half the threads start with the bank, half with the cursors, so the
                        // two kinds of playback overlap in time.
                        if i % 2 == 0 {
                            let c = play_cursors(stream);
                            (c, play_bank(stream))
                        } else {
                            let b = play_bank(stream);
                            (play_cursors(stream), b)
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a playing thread panicked"))
                .collect()
        });
        for (i, (c, b)) in results.iter().enumerate() {
            assert!(
                *c == cursors,
                "{precision}: thread {i}: cursor values differ"
            );
            assert!(*b == bank, "{precision}: thread {i}: bank values differ");
        }
    }
}

#[test]
fn compiling_on_many_threads_gives_identical_bytes() {
    let d = showcase();
    for precision in PRECISIONS {
        let single = compile(&d, precision);
        let results: Vec<Vec<u8>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    let d = &d;
                    scope.spawn(move || compile(d, precision))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a compiling thread panicked"))
                .collect()
        });
        for (i, bytes) in results.iter().enumerate() {
            assert!(
                *bytes == single,
                "{precision}: thread {i} compiled {} bytes that differ from the single-thread {}",
                bytes.len(),
                single.len()
            );
        }
    }
}
