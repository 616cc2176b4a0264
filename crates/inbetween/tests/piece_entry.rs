//! Piece entry through the player's piece cursor: in order, backward, after seeks and across wraps, the same state bits and run lengths as a player that finds its piece by search.

mod stream_support;

use inbetween::player::{RawState, TrackPlayer};
use inbetween::stream::{
    reencode, Precision, Stream, StreamTrack, StreamValueType, StreamWrap, TableLayout,
};
use stream_support::*;

/// A fresh player with `step`, seeked to `frame`: it finds its piece by search
/// (`StreamTrack::piece_index_at`, then `StreamTrack::piece`), not from a neighbour.
fn from_scratch<'s>(track: StreamTrack<'s>, frame: f64, step: f64) -> TrackPlayer<'s> {
    let mut player = TrackPlayer::new(track);
    player.set_step(step).unwrap();
    player.seek(frame).unwrap();
    player
}

/// The state's bits: per component the degree's numbers (floats as bits, or integers and
/// their scale's bits).
fn state_bits(player: &TrackPlayer<'_>) -> Vec<u64> {
    let mut bits = Vec::new();
    for c in 0..player.track().components() {
        match player.raw_state(c) {
            RawState::Float(w) => bits.extend(w.iter().map(|x| x.to_bits())),
            RawState::Int(w, scale) => {
                bits.extend(w.iter().map(|x| *x as u64));
                bits.push(scale.to_bits());
            }
        }
        bits.push(u64::MAX); // separator
    }
    bits
}

/// `played` and `reference` hold the same state bits, value bits and run length.
fn assert_same(played: &TrackPlayer<'_>, reference: &TrackPlayer<'_>, what: &str) {
    let bits = |p: &TrackPlayer<'_>| p.value().map(f64::to_bits);
    assert_eq!(state_bits(played), state_bits(reference), "state, {what}");
    assert_eq!(bits(played), bits(reference), "value, {what}");
    assert_eq!(played.run_left(), reference.run_left(), "run, {what}");
}

/// Plays `count` steps of ±1 from the whole frame `start`: at each step the same bits as a
/// reference re-created from scratch wherever the player enters a run and advanced inside it.
/// Returns how many runs were entered.
fn play_against_scratch(track: StreamTrack<'_>, start: f64, step: f64, count: usize) -> usize {
    let mut played = TrackPlayer::new(track);
    played.seek(start).unwrap();
    played.set_step(step).unwrap();
    let mut reference = from_scratch(track, start, step);
    let mut entered = 0;
    for i in 0..count {
        let what = format!("track {}, from {start} step {step}, step {i}", track.name());
        assert_same(&played, &reference, &what);
        let entering = played.run_left() == 1;
        played.advance();
        if entering {
            entered += 1;
            reference = from_scratch(track, played.frame(), step);
        } else {
            reference.advance();
        }
    }
    entered
}

/// Every seek of one long-lived player (whose cursor holds the piece of the previous seek)
/// gives the state of a fresh player seeked there.
fn seeks_against_scratch(track: StreamTrack<'_>, frames: &[f64], step: f64) {
    let mut played = TrackPlayer::new(track);
    played.set_step(step).unwrap();
    for &f in frames {
        played.seek(f).unwrap();
        let what = format!("track {}, seek {f} step {step}", track.name());
        assert_same(&played, &from_scratch(track, f, step), &what);
    }
}

/// Frames around and beyond `[first, last]`: a sweep by quarter frames forward and back, and
/// scattered frames (a fixed LCG) up to three spans outside.
fn seek_frames(first: f64, last: f64) -> Vec<f64> {
    let span = last - first;
    let mut frames: Vec<f64> = (0..=(4.0 * (span + 4.0)) as usize)
        .map(|i| first - 2.0 + i as f64 * 0.25)
        .collect();
    let back: Vec<f64> = frames.iter().rev().copied().collect();
    frames.extend(back);
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..300 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        frames.push(first - 3.0 * span + u * 7.0 * span);
    }
    frames
}

/// Every check on every track of a stream; returns the runs entered while playing.
fn check_stream(bytes: &[u8]) -> usize {
    let stream = Stream::from_bytes(bytes).unwrap();
    let mut entered = 0;
    for track in stream.tracks() {
        let (first, last) = (track.first_frame(), track.last_frame());
        let (lo, hi) = (first.floor() - 5.0, last.ceil() + 5.0);
        let span = (hi - lo) as usize;
        entered += play_against_scratch(track, lo, 1.0, span + 1);
        entered += play_against_scratch(track, hi, -1.0, span + 1);
        // Across wraps: three periods out and back.
        let far = (3.0 * (last - first)).ceil();
        entered += play_against_scratch(track, lo - far, 1.0, 2 * far as usize + span);
        entered += play_against_scratch(track, hi + far, -1.0, 2 * far as usize + span);
        for step in [1.0, -1.0, 0.5, -0.25, 60.0 / 144.0] {
            seeks_against_scratch(track, &seek_frames(first, last), step);
        }
    }
    entered
}

/// A smooth curve compiled finely enough for dozens of pieces (several checkpoint blocks), in
/// both table layouts.
fn fine_streams(wrap: StreamWrap, precision: Precision) -> [Vec<u8>; 2] {
    // Spans of 3.5 frames (starts between whole frames), 60 of them.
    let source = FnSource {
        components: 2,
        breaks: (0..=60).map(|i| f64::from(i) * 3.5).collect(),
        f: |f: f64| {
            [
                10.0 * (f / 9.0).sin() + f * 0.05,
                (f / 31.0).cos() * 4.0,
                0.0,
                0.0,
            ]
        },
    };
    let compiled = compile_one(&source, StreamValueType::Vec2, wrap, precision, Some(1e-9));
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let legacy = reencode(&stream, TableLayout::Legacy).unwrap();
    [compiled.bytes, legacy]
}

#[test]
fn pieces_entered_in_order_backward_after_seeks_and_across_wraps_match_a_search() {
    for wrap in [StreamWrap::Clamp, StreamWrap::Loop, StreamWrap::PingPong] {
        for precision in PRECISIONS {
            for bytes in fine_streams(wrap, precision) {
                let stream = Stream::from_bytes(&bytes).unwrap();
                let pieces = stream.track(0).unwrap().piece_count();
                assert!(pieces > 32, "{wrap:?} {precision}: only {pieces} pieces");
                // Each pass enters every piece at least once.
                let entered = check_stream(&bytes);
                assert!(
                    entered >= 4 * pieces,
                    "{wrap:?} {precision}: {entered} runs"
                );
            }
        }
    }
}

#[test]
fn showcase_pieces_entered_through_the_cursor_match_a_search() {
    for precision in PRECISIONS {
        let (_, compiled) = compiled_showcase(precision);
        assert!(check_stream(&compiled.bytes) > 0);
    }
}
