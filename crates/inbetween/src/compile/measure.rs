//! The compiler's last check: each compiled track written and played by `TrackPlayer` as `play` plays it, against exact evaluation, at every integer frame.

// Index loops over small fixed arrays read like the formulas they implement.
#![allow(clippy::needless_range_loop)]

use alloc::string::ToString;

use super::seek::{prove_track, TrackProof};
use super::source::{NonFiniteValue, MAX_COMPONENTS};
use super::span::compile_track_in_precision;
use super::verify::{binomials_to, by_degree, shifted};
use super::{non_finite, CompileError, CompileOptions, TrackInput, WRAP_WINDOW};
use crate::player::{RawState, TrackPlayer};
use crate::stream::layout::MAX_TERMS;
use crate::stream::{
    write_stream_unvalidated, OwnedStream, PieceNumbers, StreamTrack, TrackData, TrackSummary,
};

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

/// A compiled and measured track: its stream alone, validated, its measured error and frame
/// stored (`OwnedStream::set_max_error`), its piece count, report summary, span count,
/// `TrackReport::kept_in_f64` and `TrackReport::proof`. Its pieces are dropped on the thread
/// that made them; the whole stream is joined from these (`assemble`).
pub(super) struct MeasuredTrack {
    pub(super) stream: OwnedStream,
    pub(super) pieces: usize,
    pub(super) summary: TrackSummary,
    pub(super) spans: usize,
    pub(super) kept_in_f64: Option<f64>,
    pub(super) proof: TrackProof,
}

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
    // Validated once, here (`write_stream` would validate the same bytes first).
    let bytes = write_stream_unvalidated(fps, core::slice::from_ref(&data))?;
    let mut owned = OwnedStream::from_vec(bytes)?;
    let stream = owned.stream();
    // A stream written from one track holds it.
    let Some(track) = stream.track(0) else {
        return Err(super::assemble::no_track(stream.as_bytes()).into());
    };
    // The pieces' own replay of the integer frames inside the keys (module `verify`): the
    // largest error and its first frame, which the forward pass takes over (`forward_pass`).
    let replayed = (data.max_error, data.max_error_frame);
    let (error, frame) = measure_track(track, (input, &data), &compiled.exact, replayed)?;
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
    let mut summary = super::parallel::summary_of(track, &data);
    (summary.max_error, summary.max_error_frame) = (error, frame);
    owned.set_max_error(0, error, frame)?;
    let pieces = data.pieces.len();
    Ok(MeasuredTrack {
        stream: owned,
        pieces,
        summary,
        spans,
        kept_in_f64,
        proof,
    })
}

/// Plays `track` over [`measured_frames`] — through the keys and, for wrapping tracks, across
/// [`WRAP_WINDOW`] folds on each side, with the same cursor logic (`TrackPlayer`) that `play`
/// uses — forward at step +1 from a seek to the first of them, then backward at step −1 from a
/// seek to the last (entering every piece from its end, as any backward play enters it), and
/// returns the largest |played − exact| of both passes and its frame (the forward pass's on a
/// tie). Inside its keys the exact value at integer frame `⌈first⌉ + m` is `exact[m]`, the value
/// its piece was checked against; at the last frame and outside the keys it is the source's
/// where the stream's wrap or outside record sends it (`outside::played`).
///
/// `replayed` is the largest error of the compiler's own replay of the pieces at the integer
/// frames inside the keys and its first frame (`(0, first)` when every error there is 0): the
/// forward pass takes it over instead of playing those frames again where [`forward_pass`]
/// shows the values are the same.
fn measure_track(
    track: StreamTrack<'_>,
    (input, data): (&TrackInput<'_>, &TrackData),
    exact_inside: &[[f64; MAX_COMPONENTS]],
    replayed: (f64, f64),
) -> Result<(f64, f64), CompileError> {
    let outside = track.outside();
    let (from, count) = measured_frames(
        super::outside::moves(input.wrap, outside.as_ref()),
        track.first_frame(),
        track.last_frame(),
    );
    let forward = forward_pass(track, input, exact_inside, (from, count), replayed)?;
    let backward = backward_pass(track, (input, data), exact_inside, (from, count))?;
    Ok(if backward.0 > forward.0 {
        backward
    } else {
        forward
    })
}

/// One pass of [`measure_track`]: `count` integer frames from a seek to `start`, `step` (±1)
/// apart, played by [`play_runs`]. Returns the largest error (infinite for a NaN) and its frame
/// (`first` when every error is 0).
fn play_measured(
    track: StreamTrack<'_>,
    input: &TrackInput<'_>,
    exact_inside: &[[f64; MAX_COMPONENTS]],
    (start, count, step): (f64, u64, f64),
) -> Result<(f64, f64), CompileError> {
    let mut pass = Measured::new(track, input, exact_inside, step);
    pass.play(track, (start, count))?;
    Ok(pass.worst)
}

/// The forward pass of [`measure_track`] over the `count` integer frames from `from`: the
/// frames before the keys and from the last frame on played by [`play_runs`], the integer
/// frames inside the keys, `[⌈first⌉, last)`, taken from the pieces' replay (`replayed`), on
/// scalar and normalized tracks; other tracks are played whole ([`play_measured`]).
///
/// Why the values are the same, bit for bit. At a whole frame `f` of `[first, last)` the
/// player (`TrackPlayer::place`) takes the piece whose `[start, end)` holds `f` — the stream
/// holds the compiler's starts and origins to the same bits (`stream::write_compact`), so it
/// is the compiler's piece, whose interval's integer frames hold `f` — on fold 0 with nothing
/// added to the value. Going forward at step 1 a run ends where the next position leaves the
/// piece (`run_length`), so each piece's run is entered by a seek to its first integer frame,
/// which is its origin (`compact::implied_origin`, the compiler's `verify::origin_of`): offset
/// `t = 0`, where `load_piece` takes the stored numbers unchanged (`shift_differences`
/// copies them at `t = 0`; a fixed piece's integers times `C(0, 0) = 1`), and the run adds
/// `W_i += W_{i+1}` in the order `verify`'s replay adds them (wrapping integers for fixed
/// pieces, whose replay from offset −n passes through the same integers). The values and the
/// exact values (`exact_inside`, the pieces' own) are the same, so are the errors: the
/// pieces' replay measured them, frame by frame in increasing order on a scalar or normalized
/// track (the largest of a frame's components for a normalized one, as [`frame_error`]), its
/// largest and that one's first frame kept as the forward pass keeps them. (A raw vector's
/// replay goes component by component and can name another frame on a tie: played whole.) The
/// kept pieces hold the tolerance there, so no value inside is NaN. The region changes at
/// `⌈first⌉` and at the first frame from `last` on, so runs start there, as a seek starts
/// them. `tests::passes_by_pieces_are_playing_every_frame` compares the result with
/// frame-by-frame play.
fn forward_pass(
    track: StreamTrack<'_>,
    input: &TrackInput<'_>,
    exact_inside: &[[f64; MAX_COMPONENTS]],
    (from, count): (f64, u64),
    replayed: (f64, f64),
) -> Result<(f64, f64), CompileError> {
    if track.components() != 1 && !track.normalizes() {
        return play_measured(track, input, exact_inside, (from, count, 1.0));
    }
    let first_integer = crate::math::ceil(track.first_frame());
    // Whole frames below 2^53 (`check_frame_limits`): exact.
    let before = ((first_integer - from).max(0.0) as u64).min(count);
    let inside = (exact_inside.len() as u64).min(count - before);
    let mut pass = Measured::new(track, input, exact_inside, 1.0);
    pass.play(track, (from, before))?;
    if replayed.0 > pass.worst.0 {
        pass.worst = replayed;
    }
    let after = first_integer + inside as f64;
    pass.play(track, (after, count - before - inside))?;
    Ok(pass.worst)
}

/// What one pass of [`play_measured`] compares the played values with, and the largest
/// error so far and its frame.
struct Measured<'m, 'i> {
    input: &'m TrackInput<'i>,
    outside: Option<crate::stream::outside::Outside>,
    exact_inside: &'m [[f64; MAX_COMPONENTS]],
    /// The track's first and last frames.
    range: (f64, f64),
    first_integer: f64,
    worst: (f64, f64),
    components: usize,
    /// The pass's step (±1).
    step: f64,
}

/// The backward pass of [`measure_track`] over the `count` integer frames from `from`, from
/// the last down: the frames from the last frame on and those before the keys played by
/// [`play_runs`], the integer frames inside the keys, `[⌈first⌉, last)`, by
/// [`play_pieces_backward`] — each piece's run entered where and as `TrackPlayer` enters it
/// going backward, without its search and wrap mapping.
///
/// Why that is the player's play. At a whole frame `f` of `[first, last)` the player takes the
/// compiler's piece holding `f`, on fold 0 with nothing added (as for [`forward_pass`]); going
/// backward at step −1 a run lasts while the position stays in the piece, `⌊f − start⌋ + 1`
/// steps (`run_length`), so each piece's run is entered by a seek to its last integer frame
/// `origin + c − 1` (`c` integer frames) and ends at its origin: offset `t = c − 1`, whole.
/// There `load_piece` enters a float piece with `player::enter_float` (shift to `t`, then
/// `REVERSE_STEP`) and a fixed one with `player::enter_int` (`integer_binomials(t)`, then the
/// integer step −1), and plays `c` frames with its additions — the same functions
/// [`play_pieces_backward`] calls on the same numbers (the stream holds the compiler's
/// numbers, starts and origins to the same bits), and the same additions ([`float_run`],
/// [`int_run`]). The region changes at the first frame before `last` and before `⌈first⌉`, so
/// runs start there. `tests::passes_by_pieces_are_playing_every_frame` compares the result
/// with frame-by-frame play.
fn backward_pass(
    track: StreamTrack<'_>,
    (input, data): (&TrackInput<'_>, &TrackData),
    exact_inside: &[[f64; MAX_COMPONENTS]],
    (from, count): (f64, u64),
) -> Result<(f64, f64), CompileError> {
    let first_integer = crate::math::ceil(track.first_frame());
    // Whole frames below 2^53 (`check_frame_limits`): exact.
    let before = ((first_integer - from).max(0.0) as u64).min(count);
    let inside = (exact_inside.len() as u64).min(count - before);
    let last = from + count.saturating_sub(1) as f64;
    let mut pass = Measured::new(track, input, exact_inside, -1.0);
    pass.play(track, (last, count - before - inside))?;
    let top = first_integer + inside as f64 - 1.0;
    play_pieces_backward(data, (top, inside), &mut pass).map_err(|e| non_finite(input.name, e))?;
    pass.play(track, (first_integer - 1.0, before))?;
    Ok(pass.worst)
}

/// The `inside` integer frames of `data`'s pieces from `top` down, piece by piece from the
/// last, each entered at its last integer frame at step −1 with the player's own entry
/// (`player::enter_float`, `player::enter_int`) and played by [`float_run`] / [`int_run`] into
/// `visit` (module docs of [`backward_pass`]).
///
/// # Errors
/// The first error `visit` returns.
fn play_pieces_backward<E, V: Visit<Error = E>>(
    data: &TrackData,
    (top, inside): (f64, u64),
    visit: &mut V,
) -> Result<(), E> {
    let components = data.value_type.components().min(MAX_COMPONENTS);
    let mut batch = Batch {
        values: &mut [[0.0; MAX_COMPONENTS]; BATCH],
        len: 0,
        done: 0,
        start: top,
        step: -1.0,
        visit,
    };
    let mut left = inside;
    for (index, piece) in data.pieces.iter().enumerate().rev() {
        let end = data
            .pieces
            .get(index + 1)
            .map_or(data.last_frame, |next| next.start);
        let run = crate::stream::integer_frames(piece.start, end).min(left);
        if run == 0 {
            continue;
        }
        left -= run;
        let n = usize::from(piece.degree).min(MAX_TERMS - 1);
        let terms = n + 1;
        let shape = (n, components, data.normalize);
        // Offset of the last integer frame from the origin (the first): whole, below 2^53.
        let t = run - 1;
        match &piece.numbers {
            PieceNumbers::Fixed(v) => {
                let mut int = [[0i64; MAX_TERMS]; MAX_COMPONENTS];
                let binomials = run_binomials(t);
                for (c, state) in int.iter_mut().enumerate().take(components) {
                    let stored = v.get(c * terms..(c + 1) * terms).unwrap_or(&[0]);
                    crate::player::enter_int(stored, &binomials, true, state);
                }
                let scale = crate::math::powi(2.0, -i32::from(piece.exponent));
                int_run(&mut int, scale, shape, run, &mut batch)?;
            }
            numbers => {
                let mut stored = [[0.0f64; MAX_TERMS]; MAX_COMPONENTS];
                for (c, row) in stored.iter_mut().enumerate().take(components) {
                    for (k, s) in row.iter_mut().enumerate().take(terms) {
                        *s = match numbers {
                            PieceNumbers::F32(v) => {
                                v.get(c * terms + k).map_or(0.0, |x| f64::from(*x))
                            }
                            PieceNumbers::F64(v) => v.get(c * terms + k).copied().unwrap_or(0.0),
                            PieceNumbers::Fixed(_) => 0.0,
                        };
                    }
                }
                let mut float = [[0.0f64; MAX_TERMS]; MAX_COMPONENTS];
                by_degree!(n, enter_backward(&stored, components, t as f64, &mut float));
                float_run(&mut float, shape, run, &mut batch)?;
            }
        }
    }
    batch.flush()
}

/// `player::integer_binomials(m)`, `C(m, k)` modulo 2^64 for `k` to 8, by the exact recurrence
/// `C(m, k) = C(m, k − 1) · (m − k + 1) / k`: in u64 below `m = 256` and in u128 to `m = 2^15`
/// (each product is at most `C(m, 7) · m ≤ m^8`, below 2^64 and 2^128), the player's own
/// (which divides out `k!` prime by prime, thousands of instructions) beyond
/// (`tests::run_binomials_are_the_players`).
fn run_binomials(m: u64) -> [i64; MAX_TERMS] {
    let mut out = [0i64; MAX_TERMS];
    out[0] = 1;
    if m < 256 {
        let mut c = 1u64;
        for (k, slot) in (1u64..).zip(out.iter_mut().skip(1)) {
            if m < k {
                break;
            }
            c = c * (m - k + 1) / k;
            *slot = c as i64;
        }
    } else if m <= 1 << 15 {
        let mut c = 1u128;
        for (k, slot) in (1u128..).zip(out.iter_mut().skip(1)) {
            c = c * (u128::from(m) - k + 1) / k;
            *slot = c as u64 as i64;
        }
    } else {
        out = crate::player::integer_binomials(m);
    }
    out
}

/// `player::enter_float(&stored[c][..=N], t, Some(&REVERSE_STEP), 0.0, ..)` for each of the
/// first `components` rows of a float piece of degree `N`, into `out`: the same operations in the same
/// order (the copy at `t = 0`, else `Σ_{j≥k} C(t, j−k) d_j` highest order first, then the
/// step −1 matrix the same way, then `+ 0.0`), so the same bits, with the binomials made once
/// a piece instead of once a component and loops of fixed length
/// (`tests::backward_entry_is_the_players_bit_for_bit`).
fn enter_backward<const N: usize>(
    stored: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
    components: usize,
    t: f64,
    out: &mut [[f64; MAX_TERMS]; MAX_COMPONENTS],
) {
    let b = binomials_to::<N>(t);
    let m = &crate::player::REVERSE_STEP;
    for (row, state) in stored.iter().zip(out.iter_mut()).take(components) {
        let shifted = if t == 0.0 {
            *row
        } else {
            shifted::<N>(row, &b)
        };
        for k in 0..N + 1 {
            let mut sum = 0.0;
            for j in (k..N + 1).rev() {
                sum += m[k][j] * shifted[j];
            }
            state[k] = sum;
        }
        state[0] += 0.0;
    }
}

impl<'m, 'i> Measured<'m, 'i> {
    /// A pass at `step` (±1) over `track`, nothing measured yet (largest error 0 at `first`).
    fn new(
        track: StreamTrack<'_>,
        input: &'m TrackInput<'i>,
        exact_inside: &'m [[f64; MAX_COMPONENTS]],
        step: f64,
    ) -> Self {
        let (first, last) = (track.first_frame(), track.last_frame());
        Self {
            input,
            outside: track.outside(),
            exact_inside,
            range: (first, last),
            first_integer: crate::math::ceil(first),
            worst: (0.0f64, first),
            components: track.components(),
            step,
        }
    }

    /// Plays `count` frames from a seek to `start` at the pass's step ([`play_runs`]),
    /// raising the largest error.
    fn play(
        &mut self,
        track: StreamTrack<'_>,
        (start, count): (f64, u64),
    ) -> Result<(), CompileError> {
        if count == 0 {
            return Ok(());
        }
        let name = self.input.name;
        play_runs(track, (start, count, self.step), self).map_err(|e| non_finite(name, e))
    }
}

impl Visit for Measured<'_, '_> {
    type Error = NonFiniteValue;

    fn values(
        &mut self,
        mut frame: f64,
        values: &[[f64; MAX_COMPONENTS]],
    ) -> Result<(), NonFiniteValue> {
        let (first, last) = self.range;
        if self.components == 1 {
            let len = values.len();
            if let Some(truth) = inside_run(self.exact_inside, self.range, frame, self.step, len) {
                scalar_errors(values, truth, (frame, self.step), &mut self.worst);
                return Ok(());
            }
        }
        for played in values {
            // A whole frame in `[⌈first⌉, last)`: its offset is a small non-negative integer,
            // converted exactly (through i64, the cheaper conversion).
            let inside = (frame >= first && frame < last)
                .then(|| {
                    self.exact_inside
                        .get((frame - self.first_integer) as i64 as usize)
                })
                .flatten();
            let outside_value;
            let truth = match inside {
                Some(value) => value,
                None => {
                    outside_value =
                        outside_truth(self.input, self.outside.as_ref(), frame, self.range)?;
                    &outside_value
                }
            };
            // Rotations (four components) get a copy of fixed length: the same comparisons.
            let (e, nan) = if self.components == 4 {
                frame_error(played, truth, 4)
            } else {
                frame_error(played, truth, self.components)
            };
            if e > self.worst.0 || nan {
                self.worst = (e, frame);
            }
            // Whole frames below 2^53: exact.
            frame += self.step;
        }
        Ok(())
    }

    /// A scalar run inside the keys: each value compared as it is played (as
    /// [`scalar_errors`] compares it), without handing it over.
    fn scalar_run(&mut self, frame: f64, w: &mut [f64; MAX_TERMS], n: usize, run: u64) -> bool {
        if self.components != 1 {
            return false;
        }
        let len = usize::try_from(run).unwrap_or(usize::MAX);
        let Some(truth) = inside_run(self.exact_inside, self.range, frame, self.step, len) else {
            return false;
        };
        let step = self.step;
        let mut note = |k: usize, exact: &[f64; MAX_COMPONENTS], w: &mut [f64; MAX_TERMS]| {
            raise(&mut self.worst, w[0] - exact[0], (frame, step, k));
            for i in 0..n {
                w[i] += w[i + 1];
            }
        };
        if step > 0.0 {
            for (k, exact) in truth.iter().enumerate() {
                note(k, exact, w);
            }
        } else {
            for (k, exact) in truth.iter().rev().enumerate() {
                note(k, exact, w);
            }
        }
        true
    }
}

/// The exact values of `len` whole frames from `frame`, `step` (±1) apart, when all are inside
/// the keys (`[⌈first⌉, last)`, `exact_inside[m]` at frame `⌈first⌉ + m`): in the order of the
/// frames after `reverse` for a negative step.
fn inside_run(
    exact_inside: &[[f64; MAX_COMPONENTS]],
    (first, last): (f64, f64),
    frame: f64,
    step: f64,
    len: usize,
) -> Option<&[[f64; MAX_COMPONENTS]]> {
    let end = frame + step * len.saturating_sub(1) as f64;
    let (low, high) = if step > 0.0 {
        (frame, end)
    } else {
        (end, frame)
    };
    if !(low >= first && high < last) {
        return None;
    }
    let from = (low - crate::math::ceil(first)) as i64 as usize;
    exact_inside.get(from..from.checked_add(len)?)
}

/// Raises `worst` (largest error, its frame) to the errors of scalar `values` played at `frame`,
/// `frame + step`, … against `truth` (in increasing frame order: reversed for a negative step)
/// as [`frame_error`] and `play_measured` do: a NaN counts as infinite and takes the frame.
fn scalar_errors(
    values: &[[f64; MAX_COMPONENTS]],
    truth: &[[f64; MAX_COMPONENTS]],
    (frame, step): (f64, f64),
    worst: &mut (f64, f64),
) {
    let mut note = |k: usize, played: &[f64; MAX_COMPONENTS], exact: &[f64; MAX_COMPONENTS]| {
        raise(worst, played[0] - exact[0], (frame, step, k));
    };
    if step > 0.0 {
        for (k, (played, exact)) in values.iter().zip(truth).enumerate() {
            note(k, played, exact);
        }
    } else {
        for (k, (played, exact)) in values.iter().zip(truth.iter().rev()).enumerate() {
            note(k, played, exact);
        }
    }
}

/// Raises `worst` (largest error, its frame) to |`difference`| at frame `frame + step · k`, as
/// [`frame_error`] and `play_measured` do: a NaN counts as infinite and takes the frame.
#[inline]
fn raise(worst: &mut (f64, f64), difference: f64, (frame, step, k): (f64, f64, usize)) {
    let e = crate::math::abs(difference);
    if e > worst.0 || e.is_nan() {
        let e = if e.is_nan() { f64::INFINITY } else { e };
        // Whole frames below 2^53: exact.
        *worst = (e, frame + step * k as f64);
    }
}

/// The exact value of an integer `frame` at the last frame or outside the keys: the source's
/// where the stream's wrap or outside record sends it (`outside::played`). Kept out of the
/// per-frame loop (out of line, cold: it is rare, and inlined it slows every frame).
#[cold]
#[inline(never)]
fn outside_truth(
    input: &TrackInput<'_>,
    outside: Option<&crate::stream::outside::Outside>,
    frame: f64,
    (first, last): (f64, f64),
) -> Result<[f64; MAX_COMPONENTS], NonFiniteValue> {
    let mut exact = [0.0; MAX_COMPONENTS];
    let at = super::outside::played(input.wrap, outside, frame, first, last);
    super::outside::exact(input.source, at, &mut exact)?;
    Ok(exact)
}

/// Plays `count` integer frames from a seek to `start`, `step` (±1) apart, calling
/// `visit(frame, values)` with the values of up to [`BATCH`] frames at a time from `frame` on,
/// `step` apart, in order, each as `TrackPlayer` plays it (`value()`: raw, or
/// normalized on tracks that say so), bit for bit: the player enters each run (`seek` to its
/// first frame, which enters the same run as `advance` would: `TrackPlayer::run_left`), and the
/// run's frames are played here from the state it entered (`TrackPlayer::raw_state`) with the
/// player's own additions, `W_i += W_{i+1}` for i in 0..n in order (wrapping for integers) —
/// without the player's per-frame bookkeeping. `tests::runs_play_the_players_values_bit_for_bit`
/// compares every value with `TrackPlayer::advance`'s.
///
/// # Errors
/// The first error `visit` returns.
pub(super) fn play_runs<E, V>(
    track: StreamTrack<'_>,
    (start, count, step): (f64, u64, f64),
    visit: &mut V,
) -> Result<(), E>
where
    V: Visit<Error = E>,
{
    let components = track.components().min(MAX_COMPONENTS);
    let normalize = track.normalizes();
    // `start` is finite and `step` is ±1: the default is never taken.
    let mut player = TrackPlayer::starting_at(track, start, step).unwrap_or_default();
    let (mut short, mut full);
    let values: &mut [[f64; MAX_COMPONENTS]] = if count <= SHORT_BATCH as u64 {
        short = [[0.0; MAX_COMPONENTS]; SHORT_BATCH];
        &mut short
    } else {
        full = [[0.0; MAX_COMPONENTS]; BATCH];
        &mut full
    };
    let mut batch = Batch {
        values,
        len: 0,
        done: 0,
        start,
        step,
        visit,
    };
    let mut m = 0u64;
    while m < count {
        let run = player.run_left().clamp(1, count - m);
        let mut float = [[0.0f64; MAX_TERMS]; MAX_COMPONENTS];
        let mut int = [[0i64; MAX_TERMS]; MAX_COMPONENTS];
        let (mut terms, mut scale) = (1, None);
        for c in 0..components {
            match player.raw_state(c) {
                RawState::Float(w) => {
                    terms = w.len().min(MAX_TERMS);
                    float[c][..terms].copy_from_slice(&w[..terms]);
                }
                RawState::Int(w, s) => {
                    terms = w.len().min(MAX_TERMS);
                    int[c][..terms].copy_from_slice(&w[..terms]);
                    scale = Some(s);
                }
            }
        }
        let n = terms.saturating_sub(1);
        match scale {
            None => float_run(&mut float, (n, components, normalize), run, &mut batch)?,
            Some(s) => int_run(&mut int, s, (n, components, normalize), run, &mut batch)?,
        }
        m += run;
        if m < count {
            let _ = player.seek(start + step * m as f64);
        }
    }
    batch.flush()
}

/// What [`play_runs`] hands the played values to: every value, a batch at a time (any
/// `FnMut(frame, values)` is one), or a whole scalar run at once where the visitor can take it.
pub(super) trait Visit {
    /// What the visitor may fail with.
    type Error;

    /// The values of consecutive frames from `frame` on, the pass's step apart, in order.
    ///
    /// # Errors
    /// The visitor's.
    fn values(&mut self, frame: f64, values: &[[f64; MAX_COMPONENTS]]) -> Result<(), Self::Error>;

    /// A run of `run` frames from `frame` of a scalar float state `w` (degree `n`, not
    /// normalized), played by the visitor itself with the player's additions
    /// (`W_i += W_{i+1}` for i in 0..n after each value); false (the default) when it does not
    /// take it, and the values are handed over by [`Visit::values`].
    fn scalar_run(&mut self, frame: f64, w: &mut [f64; MAX_TERMS], n: usize, run: u64) -> bool {
        let _ = (frame, w, n, run);
        false
    }
}

impl<E, F: FnMut(f64, &[[f64; MAX_COMPONENTS]]) -> Result<(), E>> Visit for F {
    type Error = E;

    fn values(&mut self, frame: f64, values: &[[f64; MAX_COMPONENTS]]) -> Result<(), E> {
        self(frame, values)
    }
}

/// Frames whose values [`play_runs`] hands to its visitor together (so that the visitor's
/// loop over them is compiled as one).
pub(super) const BATCH: usize = 64;

/// Plays of at most this many frames (a clamped track's frames outside its keys) hand their
/// values over in a batch of this size instead of [`BATCH`] (less to clear: the same values,
/// frames and order).
const SHORT_BATCH: usize = 4;

/// Values waiting for the visitor: `len` of them, the first at frame `start + step · done`,
/// handed over when `values` is full.
struct Batch<'b, 'v, V> {
    values: &'b mut [[f64; MAX_COMPONENTS]],
    len: usize,
    done: u64,
    start: f64,
    step: f64,
    visit: &'v mut V,
}

impl<E, V: Visit<Error = E>> Batch<'_, '_, V> {
    /// Adds the next frame's value, handing the batch over when it is full.
    #[inline]
    fn push(&mut self, value: [f64; MAX_COMPONENTS]) -> Result<(), E> {
        if let Some(slot) = self.values.get_mut(self.len) {
            *slot = value;
        }
        self.len += 1;
        if self.len >= self.values.len() {
            self.flush()?;
        }
        Ok(())
    }

    /// Hands the values waiting to the visitor. Whole frames below 2^53: the frame
    /// `start + step · done` is exact.
    fn flush(&mut self) -> Result<(), E> {
        if self.len > 0 {
            let frame = self.start + self.step * self.done as f64;
            let values = self.values.get(..self.len).unwrap_or(&[]);
            self.visit.values(frame, values)?;
            self.done += self.len as u64;
            self.len = 0;
        }
        Ok(())
    }
}

/// `run` frames of a float state ([`play_runs`]): the value `W_0` per component (normalized
/// when the track says so), then `W_i += W_{i+1}`.
fn float_run<E, V: Visit<Error = E>>(
    state: &mut [[f64; MAX_TERMS]; MAX_COMPONENTS],
    (n, components, normalize): (usize, usize, bool),
    run: u64,
    batch: &mut Batch<'_, '_, V>,
) -> Result<(), E> {
    if components == 1 && !normalize {
        // A scalar: the same values and additions without the per-component loops; the
        // visitor plays the run itself if it can (the values before it handed over first, so
        // it sees every frame in order).
        batch.flush()?;
        let frame = batch.start + batch.step * batch.done as f64;
        let w = &mut state[0];
        if batch.visit.scalar_run(frame, w, n, run) {
            batch.done += run;
            return Ok(());
        }
        for _ in 0..run {
            batch.push([w[0], 0.0, 0.0, 0.0])?;
            for i in 0..n {
                w[i] += w[i + 1];
            }
        }
        return Ok(());
    }
    if normalize && components == 4 {
        // A rotation: the same values, normalizations and additions by degree.
        return match n {
            0 => rotation_run::<0, E, V>(state, run, batch),
            1 => rotation_run::<1, E, V>(state, run, batch),
            2 => rotation_run::<2, E, V>(state, run, batch),
            3 => rotation_run::<3, E, V>(state, run, batch),
            4 => rotation_run::<4, E, V>(state, run, batch),
            5 => rotation_run::<5, E, V>(state, run, batch),
            6 => rotation_run::<6, E, V>(state, run, batch),
            7 => rotation_run::<7, E, V>(state, run, batch),
            _ => rotation_run::<8, E, V>(state, run, batch),
        };
    }
    for _ in 0..run {
        let mut value = [0.0; MAX_COMPONENTS];
        for c in 0..components {
            value[c] = state[c][0];
        }
        if normalize {
            value = crate::math::normalize4(value);
        }
        batch.push(value)?;
        for w in state.iter_mut().take(components) {
            for i in 0..n {
                w[i] += w[i + 1];
            }
        }
    }
    Ok(())
}

/// [`float_run`] of a normalized four-component state at degree `N` (loops of fixed length:
/// the same operations in the same order). The state is held by term, components 0 and 1 in
/// one `math::Pair` and 2 and 3 in another: each lane adds as its component's row does, so
/// the same bits (`tests::passes_by_pieces_are_playing_every_frame`); it is written back to
/// `state` at the end.
fn rotation_run<const N: usize, E, V: Visit<Error = E>>(
    state: &mut [[f64; MAX_TERMS]; MAX_COMPONENTS],
    run: u64,
    batch: &mut Batch<'_, '_, V>,
) -> Result<(), E> {
    use crate::math::Pair;
    let mut low = [Pair::splat(0.0); MAX_TERMS];
    let mut high = [Pair::splat(0.0); MAX_TERMS];
    for j in 0..N + 1 {
        low[j] = Pair::new(state[0][j], state[1][j]);
        high[j] = Pair::new(state[2][j], state[3][j]);
    }
    let mut result = Ok(());
    for _ in 0..run {
        let ([q0, q1], [q2, q3]) = (low[0].lanes(), high[0].lanes());
        result = batch.push(crate::math::normalize4([q0, q1, q2, q3]));
        if result.is_err() {
            break;
        }
        for i in 0..N {
            low[i] = low[i] + low[i + 1];
            high[i] = high[i] + high[i + 1];
        }
    }
    for j in 0..N + 1 {
        [state[0][j], state[1][j]] = low[j].lanes();
        [state[2][j], state[3][j]] = high[j].lanes();
    }
    result
}

/// [`float_run`] for an integer state with the scale `2^-exponent`: the value
/// `W_0 as f64 · scale`, wrapping additions.
fn int_run<E, V: Visit<Error = E>>(
    state: &mut [[i64; MAX_TERMS]; MAX_COMPONENTS],
    scale: f64,
    (n, components, normalize): (usize, usize, bool),
    run: u64,
    batch: &mut Batch<'_, '_, V>,
) -> Result<(), E> {
    if normalize && components == 4 {
        // A rotation: the same values, normalizations and additions by degree.
        return match n {
            0 => int_rotation_run::<0, E, V>(state, scale, run, batch),
            1 => int_rotation_run::<1, E, V>(state, scale, run, batch),
            2 => int_rotation_run::<2, E, V>(state, scale, run, batch),
            3 => int_rotation_run::<3, E, V>(state, scale, run, batch),
            4 => int_rotation_run::<4, E, V>(state, scale, run, batch),
            5 => int_rotation_run::<5, E, V>(state, scale, run, batch),
            6 => int_rotation_run::<6, E, V>(state, scale, run, batch),
            7 => int_rotation_run::<7, E, V>(state, scale, run, batch),
            _ => int_rotation_run::<8, E, V>(state, scale, run, batch),
        };
    }
    for _ in 0..run {
        let mut value = [0.0; MAX_COMPONENTS];
        for c in 0..components {
            value[c] = state[c][0] as f64 * scale;
        }
        if normalize {
            value = crate::math::normalize4(value);
        }
        batch.push(value)?;
        for w in state.iter_mut().take(components) {
            for i in 0..n {
                w[i] = w[i].wrapping_add(w[i + 1]);
            }
        }
    }
    Ok(())
}

/// [`int_run`] of a normalized four-component integer state at degree `N`: the same values
/// (`W_0 as f64 · scale`, normalized), pushes and wrapping additions, the state held by term
/// (the four components side by side) and written back at the end
/// (`tests::passes_by_pieces_are_playing_every_frame`).
fn int_rotation_run<const N: usize, E, V: Visit<Error = E>>(
    state: &mut [[i64; MAX_TERMS]; MAX_COMPONENTS],
    scale: f64,
    run: u64,
    batch: &mut Batch<'_, '_, V>,
) -> Result<(), E> {
    let mut by_term: [[i64; 4]; MAX_TERMS] =
        core::array::from_fn(|k| core::array::from_fn(|c| state[c][k]));
    let mut result = Ok(());
    for _ in 0..run {
        let value = by_term[0].map(|x| x as f64 * scale);
        result = batch.push(crate::math::normalize4(value));
        if result.is_err() {
            break;
        }
        for i in 0..N {
            for c in 0..4 {
                by_term[i][c] = by_term[i][c].wrapping_add(by_term[i + 1][c]);
            }
        }
    }
    for (k, term) in by_term.iter().enumerate().take(N + 1) {
        for c in 0..4 {
            state[c][k] = term[c];
        }
    }
    result
}

/// The largest |played − exact| over the components of a frame (a NaN error counts as
/// infinite), and whether one was NaN (which takes the frame even from an earlier infinite
/// error).
#[inline]
fn frame_error(
    played: &[f64; MAX_COMPONENTS],
    truth: &[f64; MAX_COMPONENTS],
    components: usize,
) -> (f64, bool) {
    let (mut largest, mut nan) = (0.0f64, false);
    for (played, exact) in played.iter().zip(truth).take(components) {
        let e = crate::math::abs(played - exact);
        if e.is_nan() {
            (largest, nan) = (f64::INFINITY, true);
        } else if e > largest {
            largest = e;
        }
    }
    (largest, nan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::span::CompiledTrack;
    use crate::compile::CompileOptions;
    use crate::stream::{Precision, Stream};
    use crate::{Document, Interp, Track, Wrap};
    use alloc::format;
    use alloc::vec::Vec;

    /// `enter_backward` gives `player::enter_float`'s bits (step −1, nothing added) on 20 000
    /// random float pieces: 1–4 components, degrees 0–8, numbers of mixed signs and sizes (some
    /// −0.0, some beyond f32's range), offsets 0 (the copy), whole (the backward pass's) and
    /// fractional, small and large. Summing a row lowest order first, or dropping the final
    /// `+ 0.0` (−0.0 becomes +0.0), makes it fail.
    #[test]
    fn backward_entry_is_the_players_bit_for_bit() {
        use crate::compile::verify::tests::Random;
        let mut random = Random(0x51a7_e0ff_c0de_2024);
        for case in 0..20_000 {
            let components = 1 + case % 4;
            let n = (random.unit() * 9.0) as usize;
            let mut stored = [[0.0f64; MAX_TERMS]; MAX_COMPONENTS];
            for row in stored.iter_mut().take(components) {
                for (k, d) in row.iter_mut().enumerate().take(n + 1) {
                    let size = crate::math::powi(10.0, (random.unit() * 80.0) as i32 - 40);
                    *d = match (random.unit() * 16.0) as usize {
                        0 => -0.0,
                        1 => random.symmetric(1e300),
                        _ => random.symmetric(size) * crate::math::powi(0.5, k as i32),
                    };
                }
            }
            let t = match case % 4 {
                0 => 0.0,
                1 => (random.unit() * 200.0) as u64 as f64,
                2 => random.symmetric(40.0),
                _ => (random.unit() * 1e9) as u64 as f64,
            };
            let mut got = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
            by_degree!(n, enter_backward(&stored, components, t, &mut got));
            for c in 0..components {
                let mut want = [0.0; MAX_TERMS];
                let matrix = Some(&crate::player::REVERSE_STEP);
                crate::player::enter_float(&stored[c][..=n], t, matrix, 0.0, &mut want);
                for k in 0..=n {
                    assert_eq!(
                        got[c][k].to_bits(),
                        want[k].to_bits(),
                        "case {case}: degree {n}, t {t}, component {c}, term {k}"
                    );
                }
            }
        }
    }

    /// Long pieces (runs of many frames): scalar tracks of cubic and linear keys 7..40 frames
    /// apart in each wrap, and slerp rotations (normalized on output).
    fn long_pieces() -> Document {
        let mut builder = Document::builder().fps(60.0);
        for (i, wrap) in [Wrap::Clamp, Wrap::Loop, Wrap::PingPong]
            .into_iter()
            .enumerate()
        {
            let mut track = Track::scalar(format!("s{i}")).wrap(wrap);
            let mut quat = Track::quat(format!("q{i}")).wrap(wrap);
            let mut frame = 0.0;
            for k in 0..12u32 {
                let x = f64::from(k * 37 % 11);
                let kind = match k % 3 {
                    0 => Interp::CatmullRom,
                    1 => Interp::bezier(x + 2.0, x - 1.0),
                    _ => Interp::Linear,
                };
                track = track.key(frame, x * 9.5 - 40.0).interp(kind);
                let angle = 0.3 * x;
                let q = [crate::math::cos(angle), 0.0, crate::math::sin(angle), 0.0];
                quat = quat.key(frame, q).interp(Interp::Slerp);
                frame += f64::from(7 + k * 13 % 34);
            }
            builder = builder.track(track).track(quat);
        }
        builder.build().unwrap()
    }

    /// Documents with every wrap (clamp, loop, ping-pong, Blender outside records), scalars,
    /// vectors, colours and normalized quaternions, sub-frame and tiny spans.
    const DOCUMENTS: [&str; 4] = [
        include_str!("../../../../examples/showcase.json"),
        include_str!("../../tests/fuzz_regressions/document_json/hostile_loop_tiny_span.json"),
        include_str!(
            "../../tests/fuzz_regressions/document_json/hostile_pingpong_sub_frame_span.json"
        ),
        include_str!("../../../../tests/blender/case3.json"),
    ];

    /// The measurement as it was before [`play_runs`]: `TrackPlayer` advanced frame by frame,
    /// each component read with `component`, against the same exact values.
    fn measured_frame_by_frame(
        track: StreamTrack<'_>,
        input: &TrackInput<'_>,
        exact_inside: &[[f64; MAX_COMPONENTS]],
        (start, count, step): (f64, u64, f64),
    ) -> (f64, f64) {
        let (first, last) = (track.first_frame(), track.last_frame());
        let mut worst = (0.0f64, first);
        let mut player = TrackPlayer::new(track);
        player.seek(start).unwrap();
        player.set_step(step).unwrap();
        for m in 0..count {
            let frame = start + step * m as f64;
            let truth = match (frame >= first && frame < last)
                .then(|| exact_inside.get((frame - crate::math::ceil(first)) as usize))
                .flatten()
            {
                Some(value) => *value,
                None => {
                    outside_truth(input, track.outside().as_ref(), frame, (first, last)).unwrap()
                }
            };
            let played = core::array::from_fn(|c| player.component(c));
            let (e, nan) = frame_error(&played, &truth, track.components());
            if e > worst.0 || nan {
                worst = (e, frame);
            }
            player.advance();
        }
        worst
    }

    /// Every track of the documents compiled alone (`compile_track_in_precision`) in every
    /// precision at each of `degrees`, written into a stream of its own: `check(input, compiled,
    /// track, what)` for each that compiles.
    fn each_compiled_track(
        degrees: &[u8],
        mut check: impl FnMut(&TrackInput<'_>, &CompiledTrack, StreamTrack<'_>, &str),
    ) {
        let documents = DOCUMENTS.map(|text| Document::from_json_str(text, "test.json").unwrap());
        for doc in documents.iter().chain([&long_pieces()]) {
            for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
                for &max_degree in degrees {
                    let options = CompileOptions {
                        precision,
                        max_degree,
                        ..CompileOptions::default()
                    };
                    for t in doc.tracks() {
                        let input = TrackInput {
                            name: t.name(),
                            value_type: crate::stream_value_type(t.value_type()),
                            wrap: crate::stream_wrap(t.wrap()),
                            source: t,
                        };
                        let Ok(compiled) = compile_track_in_precision(&input, &options, 0) else {
                            continue;
                        };
                        let data = core::slice::from_ref(&compiled.data);
                        let bytes = crate::stream::write_stream(60.0, data).unwrap();
                        let stream = Stream::from_bytes(&bytes).unwrap();
                        let what = format!("{} {precision} degree {max_degree}", t.name());
                        check(&input, &compiled, stream.track(0).unwrap(), &what);
                    }
                }
            }
        }
    }

    /// `play_measured` finds the largest error and its frame that playing frame by frame finds,
    /// forward and backward, for every track of the documents in every precision.
    #[test]
    fn measured_errors_are_those_of_playing_frame_by_frame() {
        let mut passes = 0;
        each_compiled_track(&[8], |input, compiled, track, what| {
            let (from, count) = measured_frames(true, track.first_frame(), track.last_frame());
            let last = from + (count - 1) as f64;
            for pass in [(from, count, 1.0), (last, count, -1.0)] {
                let exact = &compiled.exact;
                assert_eq!(
                    play_measured(track, input, exact, pass).unwrap(),
                    measured_frame_by_frame(track, input, exact, pass),
                    "{what} {pass:?}"
                );
                passes += 1;
            }
        });
        assert!(passes > 100, "{passes}");
    }

    /// The forward pass that takes the pieces' replay for the frames inside the keys, and the
    /// backward pass that enters the pieces there itself, find the largest error and its
    /// frame that playing every frame finds, for every track of the documents (scalars,
    /// normalized quaternions, vectors, every wrap) in every precision and at degrees 8 and 3
    /// (over ten thousand frames taken over).
    #[test]
    fn passes_by_pieces_are_playing_every_frame() {
        let (mut passes, mut taken) = (0, 0u64);
        each_compiled_track(&[8, 3], |input, compiled, track, what| {
            let replayed = (compiled.data.max_error, compiled.data.max_error_frame);
            let moves = super::super::outside::moves(input.wrap, track.outside().as_ref());
            let (from, count) = measured_frames(moves, track.first_frame(), track.last_frame());
            let last = from + (count - 1) as f64;
            let exact = &compiled.exact;
            assert_eq!(
                forward_pass(track, input, exact, (from, count), replayed).unwrap(),
                measured_frame_by_frame(track, input, exact, (from, count, 1.0)),
                "forward {what}"
            );
            assert_eq!(
                backward_pass(track, (input, &compiled.data), exact, (from, count)).unwrap(),
                measured_frame_by_frame(track, input, exact, (last, count, -1.0)),
                "backward {what}"
            );
            passes += 1;
            taken += exact.len() as u64;
        });
        assert!(passes > 200 && taken > 10_000, "{passes} {taken}");
    }

    /// `TrackPlayer`'s values, advanced frame by frame as `play` plays them.
    fn advanced(track: StreamTrack<'_>, (start, count, step): (f64, u64, f64)) -> Vec<u64> {
        let mut player = TrackPlayer::new(track);
        player.seek(start).unwrap();
        player.set_step(step).unwrap();
        let mut out = Vec::new();
        for _ in 0..count {
            out.extend(player.value().map(f64::to_bits));
            player.advance();
        }
        out
    }

    /// `TrackPlayer::starting_at` is `new`, `seek` and `set_step`: the same values, bit for
    /// bit, over 40 steps from starts before, inside and after every compiled track of the test
    /// documents at steps ±1, 0.5 and −2.75 (fractional starts too, and −0.0); and the same
    /// errors.
    #[test]
    fn starting_at_is_new_seek_and_set_step() {
        let mut compared = 0;
        each_compiled_track(&[8, 3], |_, _, track, what| {
            let (first, last) = (track.first_frame(), track.last_frame());
            for start in [
                first - 3.0,
                -0.0,
                first,
                (first + last) / 2.0 + 0.3,
                last,
                last + 2.5,
            ] {
                for step in [1.0, -1.0, 0.5, -2.75] {
                    let mut old = TrackPlayer::new(track);
                    old.seek(start).unwrap();
                    old.set_step(step).unwrap();
                    let mut new = TrackPlayer::starting_at(track, start, step).unwrap();
                    for k in 0..40 {
                        for c in 0..MAX_COMPONENTS {
                            let (a, b) = (old.component(c), new.component(c));
                            assert_eq!(a.to_bits(), b.to_bits(), "{what} {start} {step} {k}");
                        }
                        old.advance();
                        new.advance();
                    }
                    compared += 1;
                }
            }
            assert!(TrackPlayer::starting_at(track, f64::NAN, 1.0).is_err());
            assert!(TrackPlayer::starting_at(track, 0.0, 0.0).is_err());
        });
        assert!(compared > 1000, "{compared}");
    }

    /// [`play_runs`] gives the values `TrackPlayer::advance` gives, at the frames it plays them, bit for bit, forward and
    /// backward over the frames the compiler measures and 300 more on each side, in every
    /// precision (fixed tracks play integer states).
    #[test]
    fn runs_play_the_players_values_bit_for_bit() {
        let (mut checked, mut long_runs) = (0, 0);
        let documents = DOCUMENTS.map(|text| Document::from_json_str(text, "test.json").unwrap());
        for doc in documents.iter().chain([&long_pieces()]) {
            for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
                let options = CompileOptions {
                    precision,
                    ..CompileOptions::default()
                };
                // The hostile documents hold values fixed point cannot (refused, nothing to play).
                let compiled = match doc.compile(&options) {
                    Err(CompileError::OutOfRange { .. }) if precision == Precision::Fixed => {
                        continue
                    }
                    compiled => compiled.unwrap(),
                };
                let stream = Stream::from_bytes(&compiled.bytes).unwrap();
                for track in stream.tracks() {
                    let (from, count) =
                        measured_frames(true, track.first_frame(), track.last_frame());
                    let (from, count) = (from - 300.0, count + 600);
                    let last = from + (count - 1) as f64;
                    for pass in [(from, count, 1.0), (last, count, -1.0)] {
                        let mut runs = Vec::new();
                        let mut player = TrackPlayer::new(track);
                        player.seek(pass.0).unwrap();
                        player.set_step(pass.2).unwrap();
                        play_runs(
                            track,
                            pass,
                            &mut |mut frame, values: &[[f64; MAX_COMPONENTS]]| {
                                for v in values {
                                    let k = (runs.len() / MAX_COMPONENTS) as f64;
                                    assert_eq!(frame, pass.0 + pass.2 * k);
                                    player.seek(frame).unwrap();
                                    long_runs += usize::from(player.run_left() > 8);
                                    runs.extend(v.map(f64::to_bits));
                                    frame += pass.2;
                                }
                                Ok::<(), ()>(())
                            },
                        )
                        .unwrap();
                        assert_eq!(runs, advanced(track, pass), "{} {precision}", track.name());
                        checked += count;
                    }
                }
            }
        }
        assert!(
            checked > 10_000 && long_runs > 1_000,
            "{checked} {long_runs}"
        );
    }

    /// `run_binomials` is `player::integer_binomials` at every `m` to 70 000 (both sides of the
    /// u64 / u128 / player boundaries at 256 and 2^15) and at large `m` up to 2^53, where the
    /// binomials wrap modulo 2^64. A product that overflowed, or a boundary one too far, makes
    /// it fail.
    #[test]
    fn run_binomials_are_the_players() {
        let large = (0..40).map(|i| (1u64 << 16) + 977 * i * i * i * i * i);
        for m in (0..70_000u64).chain(large).chain([1 << 40, (1 << 53) - 1]) {
            assert_eq!(
                run_binomials(m),
                crate::player::integer_binomials(m),
                "m {m}"
            );
        }
    }
}
