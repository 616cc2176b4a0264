//! Validation and playback allocate nothing, whatever counts a hostile stream declares.
//!
//! A counting global allocator (test-only, the one `unsafe` it needs is the `GlobalAlloc`
//! contract forwarded to `System`) counts the allocations made on this thread.

mod stream_support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use inbetween::player::{Player, TrackPlayer};
use inbetween::stream::layout::{HEADER_SIZE, H_TRACK_COUNT, T_PIECE_COUNT};
use inbetween::stream::{fix_checksum, Stream, StreamValueType, StreamWrap};
use stream_support::*;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: forwards every call unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn validation_and_playback_do_not_allocate() {
    // The counter sees allocations.
    assert!(allocations_during(|| drop(std::hint::black_box(vec![1u8]))) >= 1);
    let source = FnSource {
        components: 3,
        breaks: vec![0.0, 30.0, 90.5],
        f: |f: f64| [(f / 9.0).sin(), (f / 13.0).cos(), f / 90.0, 0.0],
    };
    for precision in PRECISIONS {
        let compiled = compile_one(
            &source,
            StreamValueType::Vec3,
            StreamWrap::PingPong,
            precision,
            None,
        );
        let bytes = compiled.bytes;
        let mut slots = [TrackPlayer::default(); 2];
        let mut row = [0.0; 8];
        let count = allocations_during(|| {
            let stream = Stream::from_bytes(&bytes).unwrap_or_else(|_| panic!("valid"));
            let mut player = Player::new(&stream, &mut slots).unwrap_or_else(|_| panic!("slots"));
            player.seek(-7.5).unwrap_or(());
            for _ in 0..300 {
                player.advance();
                player.write(&mut row);
            }
            player.set_step(-60.0 / 144.0).unwrap_or(());
            for _ in 0..300 {
                player.advance();
                player.write(&mut row);
            }
        });
        assert_eq!(count, 0, "{precision}");

        // Hostile counts: refused without allocating.
        let mut hostile = bytes.clone();
        hostile[H_TRACK_COUNT..H_TRACK_COUNT + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        fix_checksum(&mut hostile);
        let mut pieces = bytes.clone();
        let at = HEADER_SIZE + T_PIECE_COUNT;
        pieces[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        fix_checksum(&mut pieces);
        let count = allocations_during(|| {
            assert!(Stream::from_bytes(&hostile).is_err());
            assert!(Stream::from_bytes(&pieces).is_err());
        });
        assert_eq!(count, 0, "{precision}: hostile counts");
    }
}
