//! The compiler's last check: each compiled track written and played by `TrackPlayer` as `play` plays it, against exact evaluation, at every integer frame.

use alloc::string::ToString;

use super::seek::{prove_track, TrackProof};
use super::source::MAX_COMPONENTS;
use super::span::compile_track_in_precision;
use super::{non_finite, CompileError, CompileOptions, TrackInput, WRAP_WINDOW};
use crate::player::TrackPlayer;
use crate::stream::{write_stream, Stream, StreamTrack, TrackData};

/// The integer frames the final measurement plays, as (first, count): from ⌈first⌉ to ⌊last⌋,
/// widened by [`WRAP_WINDOW`] on each side for `loop` and `ping_pong` (where the player folds
/// and re-enters pieces) and by one frame for `clamp` (the held values). Frames beyond
/// ±[`MAX_COMPILE_FRAME`] + the window are never reached: `check_frame_limits` ran first.
fn measured_frames(moves: bool, first: f64, last: f64) -> (f64, u64) {
    let margin = if !moves || last <= first {
        1.0
    } else {
        WRAP_WINDOW
    };
    let from = crate::math::ceil(first) - margin;
    let to = crate::math::floor(last) + margin;
    (from, (to - from) as u64 + 1)
}

/// A compiled and measured track: its data, its span count, `TrackReport::kept_in_f64` and
/// `TrackReport::proof`.
pub(super) type MeasuredTrack = (TrackData, usize, Option<f64>, TrackProof);

/// Compiles one track (`span::compile_track_in_precision`, counting `pieces_before` pieces of the tracks
/// before it), writes it alone into a stream at `fps`, and measures that stream with
/// [`measure_track`], then proves or plays its seeks and bounds its frames between integer
/// frames (`seek::prove_track`): the largest error and its frame stored in the returned data
/// are what the player does.
///
/// # Errors
/// As `compile_tracks`; `ToleranceExceeded` when the player misses the tolerance.
pub(super) fn compile_and_measure(
    input: &TrackInput<'_>,
    fps: f64,
    options: &CompileOptions,
    pieces_before: usize,
) -> Result<MeasuredTrack, CompileError> {
    let compiled = compile_track_in_precision(input, options, pieces_before)?;
    let (mut data, spans, kept_in_f64) =
        (compiled.data, compiled.spans.len(), compiled.kept_in_f64);
    let bytes = write_stream(fps, core::slice::from_ref(&data))?;
    let stream = Stream::from_bytes(&bytes)?;
    let Some(track) = stream.track(0) else {
        return Ok((data, spans, kept_in_f64, TrackProof::default()));
    };
    let (error, frame) = measure_track(track, input, &compiled.exact)?;
    data.max_error = error;
    data.max_error_frame = frame;
    let (proof, error, frame) = prove_track(&data, &compiled.spans, track, &compiled.exact);
    if error > data.tolerance {
        return Err(CompileError::ToleranceExceeded {
            track: input.name.to_string(),
            frame,
            error,
            tolerance: data.tolerance,
            precision: data.precision,
            max_degree: options.max_degree,
        });
    }
    data.max_error = error;
    data.max_error_frame = frame;
    Ok((data, spans, kept_in_f64, proof))
}

/// Plays `track` over [`measured_frames`] — through the keys and, for wrapping tracks, across
/// [`WRAP_WINDOW`] folds on each side, with the same cursor logic (`TrackPlayer`) that `play`
/// uses — forward at step +1 from a seek to the first of them, then backward at step −1 from a
/// seek to the last (entering every piece from its end, as any backward play enters it), and
/// returns the largest |played − exact| of both passes and its frame (the forward pass's on a
/// tie). Inside its keys the exact value at integer frame `⌈first⌉ + m` is `exact[m]`, the value
/// its piece was checked against; at the last frame and outside the keys it is the source's
/// where the stream's wrap or outside record sends it (`outside::played`).
fn measure_track(
    track: StreamTrack<'_>,
    input: &TrackInput<'_>,
    exact_inside: &[[f64; MAX_COMPONENTS]],
) -> Result<(f64, f64), CompileError> {
    let outside = track.outside();
    let (from, count) = measured_frames(
        super::outside::moves(input.wrap, outside.as_ref()),
        track.first_frame(),
        track.last_frame(),
    );
    let forward = play_measured(track, input, exact_inside, (from, count, 1.0))?;
    let last = from + count.saturating_sub(1) as f64;
    let backward = play_measured(track, input, exact_inside, (last, count, -1.0))?;
    Ok(if backward.0 > forward.0 {
        backward
    } else {
        forward
    })
}

/// One pass of [`measure_track`]: `count` integer frames from a seek to `start`, `step` (±1)
/// apart. Returns the largest error (infinite for a NaN) and its frame (`first` when every
/// error is 0).
fn play_measured(
    track: StreamTrack<'_>,
    input: &TrackInput<'_>,
    exact_inside: &[[f64; MAX_COMPONENTS]],
    (start, count, step): (f64, u64, f64),
) -> Result<(f64, f64), CompileError> {
    let (first, last) = (track.first_frame(), track.last_frame());
    let outside = track.outside();
    let first_integer = crate::math::ceil(first);
    let mut worst = (0.0f64, first);
    let mut player = TrackPlayer::new(track);
    let mut exact = [0.0; MAX_COMPONENTS];
    let components = track.components();
    // `start` is finite and `step` is ±1: validated, so neither call can fail.
    let _ = player.seek(start);
    let _ = player.set_step(step);
    for m in 0..count {
        let frame = start + step * m as f64;
        let inside = (frame >= first && frame < last)
            .then(|| exact_inside.get((frame - first_integer) as usize))
            .flatten();
        let truth = match inside {
            Some(value) => value,
            None => {
                let played =
                    super::outside::played(input.wrap, outside.as_ref(), frame, first, last);
                super::outside::exact(input.source, played, &mut exact)
                    .map_err(|e| non_finite(input.name, e))?;
                &exact
            }
        };
        let (e, nan) = frame_error(&player, truth, components);
        if e > worst.0 || nan {
            worst = (e, frame);
        }
        player.advance();
    }
    Ok(worst)
}

/// The largest |played − exact| over the components at the player's current frame (a NaN
/// error counts as infinite), and whether one was NaN (which takes the frame even from an
/// earlier infinite error).
#[inline]
fn frame_error(
    player: &TrackPlayer<'_>,
    truth: &[f64; MAX_COMPONENTS],
    components: usize,
) -> (f64, bool) {
    let (mut largest, mut nan) = (0.0f64, false);
    for (c, exact) in truth.iter().enumerate().take(components) {
        let e = crate::math::abs(player.component(c) - exact);
        if e.is_nan() {
            (largest, nan) = (f64::INFINITY, true);
        } else if e > largest {
            largest = e;
        }
    }
    (largest, nan)
}
