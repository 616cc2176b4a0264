//! The compiler: any `CurveSource` → verified forward-difference pieces → a `.ibs` stream, with a report per track.
//!
//! Per span of the source, the candidates for an interval `[a, b)` are tried in order:
//! - for `SpanShape::Polynomial` of degree ≤ `max_degree` (after dropping top coefficients whose
//!   sum of magnitudes is below `1e-3 × tolerance`): its exact differences, computed from the
//!   coefficients (`convert::power_to_differences`) — the true degree, error ~0;
//! - then (and only for `Smooth` spans and polynomials above `max_degree`, first)
//!   Chebyshev–Lobatto interpolation over the closed `[a, b]` (`eval_in_span` at
//!   `a + (1 − cos(πj/d))/2 · (b − a)`, so both ends — the keys — are hit), converted exactly to
//!   differences, for d = 1, 2, …, `max_degree` (lower degrees are better conditioned on pieces
//!   shorter than a frame).
//!
//! The first candidate whose stored numbers replay, as the player plays them, within
//! `ACCEPT_FRACTION × tolerance` of `CurveSource::eval` at every integer frame, and within
//! `BETWEEN_FRACTION` of that at the fractional frames checked (`between_values`), is kept;
//! otherwise the interval is split in two and each half compiled again (see `MIN_FRAME_PIECE_FRAMES`
//! and `MIN_PIECE_FRAMES` for where splitting stops). An integer frame that no piece of 1/16 frame
//! holds is a `ToleranceExceeded` error naming the track and frame. Finally the whole stream is
//! played by `player::TrackPlayer` from the first integer frame and compared again; the measured
//! maximum error and its frame are stored in the track table.

// Index loops over small fixed arrays read like the formulas they implement.
#![allow(clippy::needless_range_loop)]

mod convert;
pub(crate) mod outside;
pub mod source;
mod verify;

use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub use convert::{lobatto_interpolant, lobatto_node, power_to_differences};
pub use source::{CurveSource, NonFiniteValue, SourceSpan, SpanShape, MAX_COMPONENTS};

use crate::player::TrackPlayer;
use crate::stream::layout::{MAX_DEGREE, MAX_TERMS};
use crate::stream::{
    integer_frames, write_stream, PieceData, Precision, Stream, StreamError, StreamValueType,
    StreamWrap, TrackData, TrackSummary,
};
use verify::{origin_of, store_and_check, Candidate, Checked};

/// Default tolerance relative to the track's scale: `1e-6 × scale` (absolute, value units).
pub const DEFAULT_RELATIVE_TOLERANCE: f64 = 1e-6;
/// Default highest piece degree.
pub const DEFAULT_MAX_DEGREE: u8 = 8;
/// A piece is accepted when its error is at most this fraction of the tolerance, leaving room
/// for an independent evaluator's own rounding; pieces of one frame are accepted up to the full
/// tolerance.
pub const ACCEPT_FRACTION: f64 = 0.99;

/// Pieces must also be within this fraction of the acceptance limit at the fractional frames
/// checked (a sample of a continuum, so it keeps a margin).
pub const BETWEEN_FRACTION: f64 = 0.97;

/// The shortest piece (in frames) made by splitting while a piece holds the tolerance at its
/// integer frames but not between them (near a jump or an infinite slope inside a span); below
/// it the candidate within tolerance at its integer frame (if any) that comes closest between
/// frames is kept. A square-root singularity needs ~2^-20 frame to come within 1e-6 of scale.
pub const MIN_PIECE_FRAMES: f64 = 1.0 / 1_048_576.0;

/// The shortest piece (in frames) made by splitting when an integer frame does not hold the
/// tolerance: below it that is an error (`ToleranceExceeded`), or for f32 a wide piece.
pub const MIN_FRAME_PIECE_FRAMES: f64 = 1.0 / 16.0;

/// Splits below `MIN_FRAME_PIECE_FRAMES` that do not reduce the error between frames allowed
/// per span: enough to resolve a few steep transitions or jumps (about 20 levels each, one failing
/// interval a level), bounded when the tolerance is beyond the precision everywhere.
pub const DEEP_SPLIT_BUDGET: usize = 256;

/// Splits allowed per span in all that are below `MIN_FRAME_PIECE_FRAMES` or made only for the
/// error between frames (the integer frames already hold), reducing that error or not: a curve
/// that oscillates faster than the frames (`sin(100000 u)`) reduces it at every halving and once
/// made one 10-frame span 18 000 pieces; `floor(1020 frame)` over 2 000 frames was split sixteen
/// ways a frame (seconds of compiling each, found by fuzzing). Past it the best piece within
/// tolerance at its integer frames is kept, as for `DEEP_SPLIT_BUDGET`.
pub const DEEP_SPLIT_WORK: usize = 4096;

/// Integer frames this far outside a loop or ping-pong track's keys have their wrapped
/// (fractional) positions checked like frames between.
pub const WRAP_WINDOW: f64 = 256.0;

/// The largest |frame| of a track's first and last frames the compiler accepts: 2^32 (about
/// 4.3e9; 2.3 years at 60 fps). Up to it an f64 frame still resolves [`MIN_PIECE_FRAMES`]
/// (its spacing there is 2^-20), so every split and every integer-frame step stays exact;
/// beyond it the compiler refuses the track with [`CompileError::FrameOutOfRange`].
pub const MAX_COMPILE_FRAME: f64 = 4_294_967_296.0;

/// The most frames the compiler verifies for one track (its integer frames plus the
/// 2 × [`WRAP_WINDOW`] frames checked outside its keys when it loops): 2^22 = 4 194 304, 19.4
/// hours at 60 fps, four times the piece of 10^6 frames the format is meant to hold. Every one
/// is evaluated exactly, kept while its piece is checked (about 80 bytes a frame) and played,
/// so the count bounds the compile's time and memory (measured: 0.4 s and 82 MB for 10^6
/// frames of one polynomial piece, 4.4 s for a fitted expression; see docs/limits.md); more is
/// refused with [`CompileError::TooManyFrames`].
pub const MAX_VERIFIED_FRAMES_PER_TRACK: u64 = 1 << 22;

/// The most frames one compile verifies over all its tracks: 2^31 = 2 147 483 648 — a million
/// channels of 2 000 frames, the batch player's largest benchmark bank (issue 5: banks of
/// 1 000 000 channels must compile). Time grows linearly with it (about 0.3 µs a frame for
/// polynomial segments, 20 µs for the slowest fitted curves), memory does not (each track's
/// frames are dropped once it is verified); more is refused with
/// [`CompileError::TooManyFrames`] naming the track that crosses the limit.
pub const MAX_VERIFIED_FRAMES: u64 = 1 << 31;

/// The most pieces one compile makes over all its tracks: 2^26 = 67 108 864, twice what a
/// bank of a million channels of 32 keys needs (about 31 million pieces, the batch player's
/// largest benchmark). A piece takes about 80 bytes in memory while the stream is assembled
/// (more for high degrees and four components), and the stream format's u32 offsets cap a
/// stream at 4 GiB anyway; the count is checked as pieces are made, so a curve that splits
/// without end is refused early with [`CompileError::TooManyPieces`].
pub const MAX_PIECES: usize = 1 << 26;

/// The most spans one track of a document may have, counting a `steps(n)` ease as n spans
/// (`Document::compile`): 2^22 = 4 194 304, as many as the frames verified per track
/// ([`MAX_VERIFIED_FRAMES_PER_TRACK`]). Every span is listed (about 100 bytes) and becomes at
/// least one verified piece, so the count bounds the work and memory of a track whatever
/// number a `steps` ease names; more is refused before any work with
/// [`CompileError::TooManySpans`].
pub const MAX_SPANS_PER_TRACK: u64 = 1 << 22;

/// How to compile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompileOptions {
    /// Largest allowed |played − exact| per component at every integer frame, in value units.
    /// `None`: `DEFAULT_RELATIVE_TOLERANCE × scale` with the track's `CurveSource::scale`.
    pub tolerance: Option<f64>,
    /// Precision the stream stores and plays.
    pub precision: Precision,
    /// Highest piece degree, 0..=8.
    pub max_degree: u8,
}

impl Default for CompileOptions {
    fn default() -> Self {
        Self {
            tolerance: None,
            precision: Precision::F64,
            max_degree: DEFAULT_MAX_DEGREE,
        }
    }
}

/// One track to compile.
#[derive(Clone, Copy)]
pub struct TrackInput<'a> {
    /// Name stored in the stream.
    pub name: &'a str,
    /// Value type (its component count must equal the source's).
    pub value_type: StreamValueType,
    /// Wrap mode stored in the stream.
    pub wrap: StreamWrap,
    /// The curve.
    pub source: &'a dyn CurveSource,
}

/// A compiled stream and what the compiler measured.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledStream {
    /// The `.ibs` bytes (already validated).
    pub bytes: Vec<u8>,
    /// One report per track, in input order.
    pub reports: Vec<TrackReport>,
}

/// What the compiler made of one track.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackReport {
    /// Track name.
    pub name: String,
    /// Number of source spans.
    pub spans: usize,
    /// Pieces, degrees, bytes, tolerance, measured error (as stored in the stream).
    pub summary: TrackSummary,
}

/// Why compilation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompileError {
    /// A Blender F-curve track whose frames outside its keys no stream wrap plays.
    #[error("track {track:?}: {reason} (docs/blender.md)")]
    OutsideKeys {
        /// Track name.
        track: String,
        /// What the stream cannot play.
        reason: &'static str,
    },
    /// An option out of range.
    #[error("invalid compile option `{option}`: {found}, expected {expected}")]
    InvalidOption {
        /// Option name.
        option: &'static str,
        /// Value given.
        found: f64,
        /// What is allowed.
        expected: &'static str,
    },
    /// The source breaks the `CurveSource` contract.
    #[error("track {track:?}: invalid source: {problem}")]
    InvalidSource {
        /// Track name.
        track: String,
        /// What is wrong.
        problem: SourceProblem,
    },
    /// The exact curve is not finite somewhere.
    #[error("track {track:?}: value not finite at frame {frame} (segment of key {key})")]
    NonFinite {
        /// Track name.
        track: String,
        /// Frame.
        frame: f64,
        /// Key starting the segment.
        key: usize,
    },
    /// No piece down to one frame plays within tolerance.
    #[error("track {track:?}: played value is off by {error:e} at frame {frame}, beyond the tolerance {tolerance:e} even with pieces of one frame ({precision}, degree ≤ {max_degree})")]
    ToleranceExceeded {
        /// Track name.
        track: String,
        /// Frame of the error.
        frame: f64,
        /// |played − exact|.
        error: f64,
        /// Tolerance.
        tolerance: f64,
        /// Precision.
        precision: Precision,
        /// Maximum degree.
        max_degree: u8,
    },
    /// A value too large for the precision.
    #[error("track {track:?}: values near frame {frame} do not fit the {precision} precision")]
    OutOfRange {
        /// Track name.
        track: String,
        /// Frame.
        frame: f64,
        /// Precision.
        precision: Precision,
    },
    /// A track's first or last frame is beyond ±[`MAX_COMPILE_FRAME`].
    #[error("track {track:?}: frame {frame} is beyond ±{max}, the largest frame the compiler accepts (docs/limits.md)")]
    FrameOutOfRange {
        /// Track name.
        track: String,
        /// The first or last frame.
        frame: f64,
        /// The limit.
        max: f64,
    },
    /// Verifying the track would check more frames than [`MAX_VERIFIED_FRAMES_PER_TRACK`], or
    /// all tracks up to this one more than [`MAX_VERIFIED_FRAMES`].
    #[error("track {track:?}: compiling would verify {frames} frames{}, more than the limit of {max} (docs/limits.md); split the animation or shorten the track", if *.total { " in all tracks up to this one" } else { "" })]
    TooManyFrames {
        /// Track name.
        track: String,
        /// Frames that would be verified (of this track, or of all tracks up to it).
        frames: u64,
        /// The limit crossed.
        max: u64,
        /// Whether the count is of all tracks so far (`MAX_VERIFIED_FRAMES`).
        total: bool,
    },
    /// The tracks need more than [`MAX_PIECES`] pieces in all.
    #[error("track {track:?}: the stream needs more than {max} pieces by frame {frame} (docs/limits.md); loosen the tolerance or split the animation")]
    TooManyPieces {
        /// Track name.
        track: String,
        /// Start frame of the piece past the limit.
        frame: f64,
        /// The limit.
        max: usize,
    },
    /// A track's `steps` eases ask for more than [`MAX_SPANS_PER_TRACK`] constant spans.
    #[error("track {track:?}: the ease of key {key} (frame {frame}) takes the track to {spans} spans (a steps(n) ease is n spans), more than the limit of {max} spans per track (docs/limits.md); use fewer steps")]
    TooManySpans {
        /// Track name.
        track: String,
        /// The key whose ease crosses the limit.
        key: usize,
        /// Its frame.
        frame: f64,
        /// Spans counted up to and including that key's segment.
        spans: u64,
        /// The limit.
        max: u64,
    },
    /// The stream could not be written.
    #[error("cannot write the stream: {0}")]
    Stream(#[from] StreamError),
}

/// How a source breaks the `CurveSource` contract.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SourceProblem {
    /// Components differ from the value type's.
    #[error("{found} components, but the value type has {expected}")]
    Components {
        /// Components of the source.
        found: usize,
        /// Components of the value type.
        expected: usize,
    },
    /// First or last frame not finite, or last before first.
    #[error("frames {first}..{last} are not a finite increasing range")]
    Frames {
        /// First frame.
        first: f64,
        /// Last frame.
        last: f64,
    },
    /// Spans do not tile `[first, last)` contiguously with increasing frames.
    #[error("span {span} ({start}..{end}) does not continue the spans before it (expected start {expected})")]
    Spans {
        /// Span index.
        span: usize,
        /// Its start.
        start: f64,
        /// Its end.
        end: f64,
        /// Where it should start.
        expected: f64,
    },
    /// Spans end before or after the last frame.
    #[error("spans end at {found}, expected the last frame {expected}")]
    SpansEnd {
        /// Where they end.
        found: f64,
        /// The last frame.
        expected: f64,
    },
}

/// Compiles `tracks` into one stream at `fps` frames per second.
///
/// # Errors
/// `InvalidOption` (tolerance not finite and positive, max degree above 8, fps not finite and
/// positive), `InvalidSource`, `NonFinite`, `ToleranceExceeded` (with the track, frame and error),
/// `OutOfRange`, `FrameOutOfRange`, `TooManyFrames`, `TooManyPieces` (the limits of
/// docs/limits.md), or `Stream` (counts beyond the format's limits).
pub fn compile_tracks(
    tracks: &[TrackInput<'_>],
    fps: f64,
    options: &CompileOptions,
) -> Result<CompiledStream, CompileError> {
    compile_tracks_with_progress(tracks, fps, options, &mut |_, _| {})
}

/// [`compile_tracks`], calling `progress(done, total)` after each track is compiled (`total` =
/// `tracks.len()`; the whole-stream verification follows the last call).
///
/// # Errors
/// As [`compile_tracks`].
pub fn compile_tracks_with_progress(
    tracks: &[TrackInput<'_>],
    fps: f64,
    options: &CompileOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<CompiledStream, CompileError> {
    if !(fps.is_finite() && fps > 0.0) {
        return Err(CompileError::InvalidOption {
            option: "fps",
            found: fps,
            expected: "a finite positive number",
        });
    }
    if let Some(t) = options.tolerance {
        if !(t.is_finite() && t > 0.0) {
            return Err(CompileError::InvalidOption {
                option: "tolerance",
                found: t,
                expected: "a finite positive number (value units)",
            });
        }
    }
    if usize::from(options.max_degree) > MAX_DEGREE {
        return Err(CompileError::InvalidOption {
            option: "max_degree",
            found: f64::from(options.max_degree),
            expected: "0..=8",
        });
    }
    check_frame_limits(tracks)?;
    let mut data = Vec::with_capacity(tracks.len());
    let mut spans = Vec::with_capacity(tracks.len());
    // Pieces of the tracks compiled so far (a running total: summing them again for every
    // track made a million-track compile quadratic).
    let mut pieces_before = 0usize;
    for (done, input) in tracks.iter().enumerate() {
        let (track, span_count) = compile_track(input, options, pieces_before)?;
        pieces_before = pieces_before.saturating_add(track.pieces.len());
        data.push(track);
        spans.push(span_count);
        progress(done + 1, tracks.len());
    }
    let mut bytes = write_stream(fps, &data)?;
    // Play the stream as `play` does and measure again; store what the player really does.
    let measured = measure_stream(&bytes, tracks)?;
    let mut changed = false;
    for ((track, input), (error, frame)) in data.iter_mut().zip(tracks).zip(measured) {
        if error > track.tolerance {
            return Err(CompileError::ToleranceExceeded {
                track: input.name.to_string(),
                frame,
                error,
                tolerance: track.tolerance,
                precision: options.precision,
                max_degree: options.max_degree,
            });
        }
        if error != track.max_error || frame != track.max_error_frame {
            track.max_error = error;
            track.max_error_frame = frame;
            changed = true;
        }
    }
    if changed {
        bytes = write_stream(fps, &data)?;
    }
    let stream = Stream::from_bytes(&bytes)?;
    let reports = stream
        .tracks()
        .zip(spans)
        .map(|(t, spans)| TrackReport {
            name: t.name().to_string(),
            spans,
            summary: t.summary(),
        })
        .collect();
    Ok(CompiledStream { bytes, reports })
}

/// Refuses tracks beyond [`MAX_COMPILE_FRAME`], [`MAX_VERIFIED_FRAMES_PER_TRACK`] or (in all)
/// [`MAX_VERIFIED_FRAMES`] before any work is done. Non-finite frames are left to
/// `checked_spans`, which names them.
fn check_frame_limits(tracks: &[TrackInput<'_>]) -> Result<(), CompileError> {
    let mut total = 0u64;
    for input in tracks {
        let (first, last) = (input.source.first_frame(), input.source.last_frame());
        if !(first.is_finite() && last.is_finite()) {
            continue;
        }
        for frame in [first, last] {
            if crate::math::abs(frame) > MAX_COMPILE_FRAME {
                return Err(CompileError::FrameOutOfRange {
                    track: input.name.to_string(),
                    frame,
                    max: MAX_COMPILE_FRAME,
                });
            }
        }
        let outside = input.source.outside();
        let window = if !outside::moves(input.wrap, outside.as_ref()) || last <= first {
            0
        } else {
            2 * WRAP_WINDOW as u64
        };
        // Integer frames in [first, last] plus the wrap window; both ends are within ±2^32.
        let frames = integer_frames(first, last) + 1 + window;
        total = total.saturating_add(frames);
        let (max, over_total) = if frames > MAX_VERIFIED_FRAMES_PER_TRACK {
            (MAX_VERIFIED_FRAMES_PER_TRACK, false)
        } else if total > MAX_VERIFIED_FRAMES {
            (MAX_VERIFIED_FRAMES, true)
        } else {
            continue;
        };
        return Err(CompileError::TooManyFrames {
            track: input.name.to_string(),
            frames: if over_total { total } else { frames },
            max,
            total: over_total,
        });
    }
    Ok(())
}

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

/// Plays every track forward at step +1 from one seek over [`measured_frames`] — through the
/// keys and, for wrapping tracks, across [`WRAP_WINDOW`] folds on each side, with the same
/// cursor logic (`TrackPlayer`) that `play` uses — and returns, per track, the largest
/// |played − exact| and its frame. The exact value at a frame outside the keys is the source's
/// at the wrapped frame (`Wrap::apply`, the fold exact evaluation uses).
fn measure_stream(
    bytes: &[u8],
    tracks: &[TrackInput<'_>],
) -> Result<Vec<(f64, f64)>, CompileError> {
    let stream = Stream::from_bytes(bytes)?;
    let mut out = Vec::with_capacity(tracks.len());
    for (track, input) in stream.tracks().zip(tracks) {
        let (first, last) = (track.first_frame(), track.last_frame());
        let outside = track.outside();
        let moves = outside::moves(input.wrap, outside.as_ref());
        let (from, count) = measured_frames(moves, first, last);
        let mut worst = (0.0f64, first);
        let mut player = TrackPlayer::new(track);
        let mut exact = [0.0; MAX_COMPONENTS];
        let components = track.components();
        // `from` is finite: validated.
        let _ = player.seek(from);
        for m in 0..count {
            let frame = from + m as f64;
            let played = outside::played(input.wrap, outside.as_ref(), frame, first, last);
            outside::exact(input.source, played, &mut exact)
                .map_err(|e| non_finite(input.name, e))?;
            for c in 0..components {
                let e = crate::math::abs(player.component(c) - exact[c]);
                if e > worst.0 || e.is_nan() {
                    worst = (if e.is_nan() { f64::INFINITY } else { e }, frame);
                }
            }
            player.advance();
        }
        out.push(worst);
    }
    Ok(out)
}

fn non_finite(track: &str, e: NonFiniteValue) -> CompileError {
    CompileError::NonFinite {
        track: track.to_string(),
        frame: e.frame,
        key: e.key,
    }
}

/// Checks the source's contract; returns its spans.
fn checked_spans(input: &TrackInput<'_>) -> Result<Vec<SourceSpan>, CompileError> {
    let source = input.source;
    let problem = |problem| CompileError::InvalidSource {
        track: input.name.to_string(),
        problem,
    };
    let expected = input.value_type.components();
    if source.components() != expected {
        return Err(problem(SourceProblem::Components {
            found: source.components(),
            expected,
        }));
    }
    let (first, last) = (source.first_frame(), source.last_frame());
    if !(first.is_finite() && last.is_finite() && first <= last) {
        return Err(problem(SourceProblem::Frames { first, last }));
    }
    let spans = source.spans();
    let mut at = first;
    for (i, span) in spans.iter().enumerate() {
        if span.start != at || span.end <= span.start || !span.end.is_finite() {
            return Err(problem(SourceProblem::Spans {
                span: i,
                start: span.start,
                end: span.end,
                expected: at,
            }));
        }
        at = span.end;
    }
    if at != last {
        return Err(problem(SourceProblem::SpansEnd {
            found: at,
            expected: last,
        }));
    }
    Ok(spans)
}

/// A polynomial span's degree and per-component power coefficients, if within the maximum degree.
type ExactPolynomial = Option<(usize, [[f64; MAX_TERMS]; MAX_COMPONENTS])>;

/// What a track compiles to, before the stream is written.
struct TrackCompiler<'a> {
    input: &'a TrackInput<'a>,
    components: usize,
    tolerance: f64,
    precision: Precision,
    max_degree: usize,
    pieces: Vec<PieceData>,
    /// Pieces of the tracks compiled before this one (for [`MAX_PIECES`]).
    pieces_before: usize,
    max_error: (f64, f64),
    /// Sorted fractional frames that integer frames outside the keys wrap to (loop, ping-pong).
    wrapped_frames: Vec<f64>,
}

/// Frames a played integer frame within `WRAP_WINDOW` frames outside `[first, last]` wraps to,
/// where they are not whole frames (those are checked anyway), sorted. Empty for clamp.
fn wrapped_frames(
    wrap: StreamWrap,
    outside: Option<&crate::stream::outside::Outside>,
    first: f64,
    last: f64,
) -> Vec<f64> {
    let span = last - first;
    if !outside::moves(wrap, outside) || span <= 0.0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let before = crate::math::ceil(first) - WRAP_WINDOW;
    let after = crate::math::floor(last) + WRAP_WINDOW;
    let mut k = before;
    while k <= after {
        if k < first || k > last {
            let played = outside::played(wrap, outside, k, first, last);
            let w = match played {
                outside::Played::At(w, _) => w,
                outside::Played::Value(_) => first,
            };
            if crate::math::floor(w) != w && w < last {
                out.push(w);
            }
        }
        k += 1.0;
    }
    out.sort_by(f64::total_cmp);
    out.dedup();
    out
}

/// Compiles one track; returns its data and its span count.
fn compile_track(
    input: &TrackInput<'_>,
    options: &CompileOptions,
    pieces_before: usize,
) -> Result<(TrackData, usize), CompileError> {
    let spans = checked_spans(input)?;
    let source = input.source;
    let tolerance = options
        .tolerance
        .unwrap_or_else(|| DEFAULT_RELATIVE_TOLERANCE * source.scale());
    let mut end = [0.0; MAX_COMPONENTS];
    source
        .eval(source.last_frame(), &mut end)
        .map_err(|e| non_finite(input.name, e))?;
    let components = input.value_type.components();
    for v in end.iter_mut().skip(components) {
        *v = 0.0;
    }
    if end.iter().any(|v| !v.is_finite()) {
        return Err(CompileError::NonFinite {
            track: input.name.to_string(),
            frame: source.last_frame(),
            key: spans.len(),
        });
    }
    let mut compiler = TrackCompiler {
        input,
        components,
        tolerance,
        precision: options.precision,
        max_degree: usize::from(options.max_degree),
        pieces: Vec::new(),
        pieces_before,
        max_error: (0.0, source.first_frame()),
        wrapped_frames: wrapped_frames(
            input.wrap,
            source.outside().as_ref(),
            source.first_frame(),
            source.last_frame(),
        ),
    };
    for span in &spans {
        compiler.compile_span(span)?;
    }
    Ok((
        TrackData {
            name: input.name.to_string(),
            value_type: input.value_type,
            wrap: input.wrap,
            precision: options.precision,
            first_frame: source.first_frame(),
            last_frame: source.last_frame(),
            tolerance,
            max_error: compiler.max_error.0,
            max_error_frame: compiler.max_error.1,
            end_value: end,
            pieces: compiler.pieces,
            outside: source.outside(),
        },
        spans.len(),
    ))
}

/// The smallest degree whose dropped top coefficients sum (largest component) to ≤ `threshold`.
fn trimmed_degree(coeffs: &[[f64; MAX_COMPONENTS]], components: usize, threshold: f64) -> usize {
    let mut dropped = 0.0;
    let mut degree = coeffs.len().saturating_sub(1);
    while degree > 0 {
        let top = coeffs[degree]
            .iter()
            .take(components)
            .fold(0.0f64, |m, x| m.max(crate::math::abs(*x)));
        if dropped + top > threshold {
            break;
        }
        dropped += top;
        degree -= 1;
    }
    degree
}

/// How a piece that cannot hold the tolerance between frames ranks as a fallback (smaller is
/// better): first whether its start value (held by a clamped track before its first frame) is
/// off by more than `limit`, then its error between frames. Near a jump inside a span (an
/// `in_expo` ease at u = 0, say) every fit is poor between frames, and a steep high-degree one
/// can lose its start value to f32 or fixed-point rounding.
fn fallback_rank(checked: &Checked, limit: f64) -> (bool, f64) {
    (checked.start_error > limit, checked.between_error)
}

/// A split point of `[a, b]`: the integer nearest the middle if strictly inside, else the middle.
fn split_point(a: f64, b: f64) -> f64 {
    let middle = a + (b - a) / 2.0;
    let rounded = crate::math::round(middle);
    if rounded > a && rounded < b {
        rounded
    } else {
        middle
    }
}

impl TrackCompiler<'_> {
    fn compile_span(&mut self, span: &SourceSpan) -> Result<(), CompileError> {
        let exact_poly = match &span.shape {
            SpanShape::Polynomial { coeffs } => {
                let degree = trimmed_degree(coeffs, self.components, 1e-3 * self.tolerance);
                (degree <= self.max_degree).then(|| {
                    let mut per_component = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
                    for (k, row) in coeffs.iter().enumerate().take(degree + 1) {
                        for c in 0..self.components {
                            per_component[c][k] = row[c];
                        }
                    }
                    (degree, per_component)
                })
            }
            SpanShape::Smooth => None,
        };
        // Intervals still to compile, last = next; popped in increasing frame order.
        // Each with the error between frames of its parent's best fallback.
        let mut todo = alloc::vec![(span.start, span.end, f64::INFINITY)];
        let mut deep_budget = DEEP_SPLIT_BUDGET;
        let mut deep_work = DEEP_SPLIT_WORK;
        while let Some((a, b, parent_between)) = todo.pop() {
            let origin = origin_of(a, b);
            let exact = self.exact_values(span, a, b, origin)?;
            let between = self.between_values(span, a, b, origin, None)?;
            let single = exact.len() <= 1;
            // Where to split: at the one integer frame after the start, else near the middle;
            // intervals shorter than `min_length` are not split.
            let middle = if exact.len() == 1 && origin > a {
                origin
            } else {
                split_point(a, b)
            };
            let splittable = middle > a && middle < b;
            let limit = if single {
                self.tolerance
            } else {
                ACCEPT_FRACTION * self.tolerance
            };
            // For an interval that is not split further: the candidate within tolerance at its
            // integer frames that ranks best by `fallback_rank`.
            let mut fallback: Option<(Candidate, Checked)> = None;
            let mut best: Option<(f64, f64)> = None;
            let mut accepted = None;
            for (candidate, fitted) in self.candidates(span, &exact_poly, a, b, origin) {
                let candidate = candidate?;
                let Ok(mut checked) = store_and_check(
                    &candidate,
                    self.components,
                    self.precision,
                    &exact,
                    &between,
                ) else {
                    continue;
                };
                if fitted {
                    let near_nodes =
                        self.between_values(span, a, b, origin, Some(candidate.degree))?;
                    let Ok(node_check) = store_and_check(
                        &candidate,
                        self.components,
                        self.precision,
                        &[],
                        &near_nodes,
                    ) else {
                        continue;
                    };
                    checked.between_error = checked.between_error.max(node_check.between_error);
                }
                if self.max_degree == 0 {
                    // Constant pieces hold each frame's value; between frames they cannot follow.
                    checked.between_error = 0.0;
                }
                if checked.max_error <= limit && checked.between_error <= BETWEEN_FRACTION * limit {
                    accepted = Some((candidate, checked));
                    break;
                }
                if best.map_or(true, |(e, _)| checked.max_error < e) {
                    best = Some((checked.max_error, checked.max_error_frame));
                }
                if checked.max_error <= limit
                    && fallback.as_ref().map_or(true, |(_, f)| {
                        fallback_rank(&checked, limit) < fallback_rank(f, limit)
                    })
                {
                    fallback = Some((candidate, checked));
                }
            }
            // Split down to `MIN_FRAME_PIECE_FRAMES`; below it, down to `MIN_PIECE_FRAMES`, only
            // while the integer frames hold and either splitting keeps reducing the error
            // between frames (by 10 % a halving — near an infinite slope inside a span it falls
            // like √length) or `DEEP_SPLIT_BUDGET` allows (a steep transition or a jump fails
            // in one interval a level; a tolerance beyond the precision, everywhere); and never
            // more than `DEEP_SPLIT_WORK` times a span in all.
            let fallback_between = fallback
                .as_ref()
                .map_or(f64::INFINITY, |(_, f)| f.between_error);
            let improving = fallback_between < 0.9 * parent_between;
            let deep = b - a < MIN_FRAME_PIECE_FRAMES;
            // A curve that oscillates faster than the frames (`sin(100000 u)`) improves at every
            // halving: without `DEEP_SPLIT_WORK` one 10-frame span once became 18 000 pieces.
            // Splits made only for the error between frames (the integer frames hold: there is
            // a fallback) share that budget at any length: `floor(1020 frame)` over 2 000 frames
            // once split every frame sixteen ways.
            let between_only = fallback.is_some();
            let minimal = !splittable
                || b - a < self.min_length()
                || (deep && !improving && deep_budget == 0)
                || ((deep || between_only) && deep_work == 0);
            if accepted.is_none() && (minimal || deep) && self.precision == Precision::F32 {
                // f32 cannot hold the unit-step differences of some pieces shorter than a frame
                // (they grow like 1/length^degree): store the best such piece wide, in f64.
                if let Some(wide) =
                    self.wide_fallback(span, &exact_poly, a, b, origin, &exact, &between)?
                {
                    if wide.1.between_error <= BETWEEN_FRACTION * limit {
                        accepted = Some(wide);
                    } else if fallback.as_ref().map_or(true, |(_, f)| {
                        fallback_rank(&wide.1, limit) < fallback_rank(f, limit)
                    }) {
                        fallback = Some(wide);
                    }
                }
            }
            let accepted = accepted.or(if minimal { fallback } else { None });
            match accepted {
                Some((candidate, checked)) => {
                    if checked.max_error > self.max_error.0 {
                        self.max_error = (checked.max_error, checked.max_error_frame);
                    }
                    if self.pieces_before + self.pieces.len() >= MAX_PIECES {
                        return Err(CompileError::TooManyPieces {
                            track: self.input.name.to_string(),
                            frame: candidate.start,
                            max: MAX_PIECES,
                        });
                    }
                    self.pieces.push(PieceData {
                        start: candidate.start,
                        origin: candidate.origin,
                        degree: candidate.degree as u8,
                        exponent: checked.exponent,
                        numbers: checked.numbers,
                    });
                }
                None if minimal => {
                    return Err(match best {
                        Some((error, frame)) => CompileError::ToleranceExceeded {
                            track: self.input.name.to_string(),
                            frame,
                            error,
                            tolerance: self.tolerance,
                            precision: self.precision,
                            max_degree: self.max_degree as u8,
                        },
                        None => CompileError::OutOfRange {
                            track: self.input.name.to_string(),
                            frame: origin,
                            precision: self.precision,
                        },
                    });
                }
                None => {
                    if deep || between_only {
                        deep_work -= 1;
                    }
                    if deep && !improving {
                        deep_budget -= 1;
                    }
                    todo.push((middle, b, fallback_between));
                    todo.push((a, middle, fallback_between));
                }
            }
        }
        Ok(())
    }

    /// Pieces shorter than this are not split further: `MIN_PIECE_FRAMES`, or one frame at
    /// degree 0.
    fn min_length(&self) -> f64 {
        if self.max_degree == 0 {
            1.0
        } else {
            MIN_PIECE_FRAMES
        }
    }

    /// Exact values at the integer frames of `[a, b)`, from `origin` on.
    fn exact_values(
        &self,
        span: &SourceSpan,
        a: f64,
        b: f64,
        origin: f64,
    ) -> Result<Vec<[f64; MAX_COMPONENTS]>, CompileError> {
        let count = integer_frames(a, b);
        let mut out = Vec::new();
        let mut value = [0.0; MAX_COMPONENTS];
        for m in 0..count {
            let frame = origin + m as f64;
            self.input
                .source
                .eval(frame, &mut value)
                .map_err(|e| non_finite(self.input.name, e))?;
            if value.iter().take(self.components).any(|v| !v.is_finite()) {
                return Err(CompileError::NonFinite {
                    track: self.input.name.to_string(),
                    frame,
                    key: span.key,
                });
            }
            out.push(value);
        }
        Ok(out)
    }

    /// Exact values between the integer frames of `[a, b)`: at `a` and `b` (the span's formula
    /// there, the limit from inside), at the midpoints between its
    /// integer frames, between its start and its first integer frame, and between its last
    /// integer frame and its end (at a quarter, half and three quarters of a piece without
    /// integer frames; at 4 (n + 1) evenly spaced points of a piece shorter than 2 (n + 1)
    /// frames); with `fit_degree`, instead at k/8 (k = 1..7) of the way between consecutive
    /// Lobatto nodes of that degree, where a fit's error peaks. Checked so that rate playback
    /// and wrapped frames, which land between frames, stay within tolerance.
    fn between_values(
        &self,
        span: &SourceSpan,
        a: f64,
        b: f64,
        origin: f64,
        fit_degree: Option<usize>,
    ) -> Result<Vec<(f64, [f64; MAX_COMPONENTS])>, CompileError> {
        let mut frames = Vec::new();
        if let Some(d) = fit_degree {
            let d = d.max(1);
            for j in 0..d {
                let (v0, v1) = (lobatto_node(j, d), lobatto_node(j + 1, d));
                for k in 1..8 {
                    frames.push(a + (v0 + f64::from(k) / 8.0 * (v1 - v0)) * (b - a));
                }
            }
            return self.values_at(span, frames);
        }
        // Short pieces: 4 (n + 1) evenly spaced points for the highest degree n, so the
        // polynomial error of the stored numbers is sampled densely however short the piece.
        let even = 4 * (self.max_degree + 1);
        if b - a < even as f64 / 2.0 {
            frames.extend((1..even).map(|k| a + (b - a) * k as f64 / even as f64));
        }
        // Where integer frames outside the keys wrap to: played like integer frames.
        let from = self.wrapped_frames.partition_point(|w| *w < a);
        let to = self.wrapped_frames.partition_point(|w| *w < b);
        frames.extend(
            self.wrapped_frames
                .get(from..to)
                .unwrap_or(&[])
                .iter()
                .copied(),
        );
        let count = integer_frames(a, b);
        // The ends: a clamped track holds the value at its first frame, and frames just before
        // the end are played from this piece.
        frames.extend([a, b]);
        if count == 0 {
            frames.extend([0.25, 0.5, 0.75].map(|x| a + x * (b - a)));
        } else {
            if origin > a {
                frames.push((a + origin) / 2.0);
            }
            for m in 0..count {
                let frame = origin + m as f64;
                frames.push((frame + (frame + 1.0).min(b)) / 2.0);
            }
        }
        self.values_at(span, frames)
    }

    /// For an f32 track: the first candidate that holds the tolerance when stored in f64 (wide),
    /// or else the one within tolerance at its integer frames with the smallest error between.
    #[allow(clippy::too_many_arguments)]
    fn wide_fallback(
        &self,
        span: &SourceSpan,
        exact_poly: &ExactPolynomial,
        a: f64,
        b: f64,
        origin: f64,
        exact: &[[f64; MAX_COMPONENTS]],
        between: &[(f64, [f64; MAX_COMPONENTS])],
    ) -> Result<Option<(Candidate, Checked)>, CompileError> {
        let mut best: Option<(Candidate, Checked)> = None;
        for (candidate, fitted) in self.candidates(span, exact_poly, a, b, origin) {
            let candidate = candidate?;
            let Ok(mut checked) =
                store_and_check(&candidate, self.components, Precision::F64, exact, between)
            else {
                continue;
            };
            if fitted {
                let near_nodes = self.between_values(span, a, b, origin, Some(candidate.degree))?;
                if let Ok(c) = store_and_check(
                    &candidate,
                    self.components,
                    Precision::F64,
                    &[],
                    &near_nodes,
                ) {
                    checked.between_error = checked.between_error.max(c.between_error);
                }
            }
            if checked.max_error > self.tolerance {
                continue;
            }
            if checked.between_error <= BETWEEN_FRACTION * self.tolerance {
                return Ok(Some((candidate, checked)));
            }
            if best.as_ref().map_or(true, |(_, b)| {
                fallback_rank(&checked, self.tolerance) < fallback_rank(b, self.tolerance)
            }) {
                best = Some((candidate, checked));
            }
        }
        Ok(best)
    }

    /// The pieces to try on `[a, b)`, in order, each tagged whether it is fitted: the exact
    /// polynomial (if the span is one within the maximum degree), then Chebyshev–Lobatto fits of
    /// degree 1 (0 when the maximum is 0) up to the maximum — lower degrees are better
    /// conditioned on pieces shorter than a frame, where unit-step differences grow like
    /// 1/length^degree. Generated lazily.
    fn candidates<'c>(
        &'c self,
        span: &'c SourceSpan,
        exact_poly: &'c ExactPolynomial,
        a: f64,
        b: f64,
        origin: f64,
    ) -> impl Iterator<Item = (Result<Candidate, CompileError>, bool)> + 'c {
        let exact = exact_poly.as_ref().map(move |(degree, coeffs)| {
            (
                Ok(self.exact_candidate(span, *degree, coeffs, a, b, origin)),
                false,
            )
        });
        let fitted = (self.max_degree.min(1)..=self.max_degree)
            .map(move |d| (self.fitted_candidate(span, d, a, b, origin), true));
        exact.into_iter().chain(fitted)
    }

    /// Exact values of `span` at `frames`.
    fn values_at(
        &self,
        span: &SourceSpan,
        frames: Vec<f64>,
    ) -> Result<Vec<(f64, [f64; MAX_COMPONENTS])>, CompileError> {
        let mut out = Vec::with_capacity(frames.len());
        let mut value = [0.0; MAX_COMPONENTS];
        for frame in frames {
            self.input
                .source
                .eval_in_span(span, frame, &mut value)
                .map_err(|e| non_finite(self.input.name, e))?;
            if value.iter().take(self.components).any(|v| !v.is_finite()) {
                return Err(CompileError::NonFinite {
                    track: self.input.name.to_string(),
                    frame,
                    key: span.key,
                });
            }
            out.push((frame, value));
        }
        Ok(out)
    }

    /// The exact differences of a polynomial span on the sub-interval `[a, b)` at `origin`.
    fn exact_candidate(
        &self,
        span: &SourceSpan,
        degree: usize,
        coeffs: &[[f64; MAX_TERMS]; MAX_COMPONENTS],
        a: f64,
        b: f64,
        origin: f64,
    ) -> Candidate {
        let mut differences = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
        for c in 0..self.components {
            power_to_differences(
                &coeffs[c][..=degree],
                span.end - span.start,
                origin - span.start,
                &mut differences[c][..=degree],
            );
        }
        Candidate {
            start: a,
            end: b,
            origin,
            degree,
            differences,
        }
    }

    /// The Chebyshev–Lobatto interpolant of degree `d` over the closed `[a, b]`, as differences
    /// at `origin`.
    fn fitted_candidate(
        &self,
        span: &SourceSpan,
        d: usize,
        a: f64,
        b: f64,
        origin: f64,
    ) -> Result<Candidate, CompileError> {
        let mut nodes = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
        let mut value = [0.0; MAX_COMPONENTS];
        for j in 0..=d {
            let v = lobatto_node(j, d);
            let frame = if j == 0 {
                a
            } else if j == d {
                b
            } else {
                a + v * (b - a)
            };
            self.input
                .source
                .eval_in_span(span, frame, &mut value)
                .map_err(|e| non_finite(self.input.name, e))?;
            for c in 0..self.components {
                if !value[c].is_finite() {
                    return Err(CompileError::NonFinite {
                        track: self.input.name.to_string(),
                        frame,
                        key: span.key,
                    });
                }
                nodes[c][j] = value[c];
            }
        }
        let mut differences = [[0.0; MAX_TERMS]; MAX_COMPONENTS];
        for c in 0..self.components {
            let power = lobatto_interpolant(&nodes[c][..=d], d);
            power_to_differences(&power[..=d], b - a, origin - a, &mut differences[c][..=d]);
        }
        Ok(Candidate {
            start: a,
            end: b,
            origin,
            degree: d,
            differences,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Interp, Track};

    /// The piece limit counts the pieces of the tracks compiled before: with all but five
    /// used, the sixth piece of a track of one-frame steps (starting at frame 5) is refused.
    #[test]
    fn the_piece_limit_counts_every_track_and_names_the_frame() {
        let mut builder = Track::scalar("steps");
        for i in 0..20 {
            builder = builder
                .key(f64::from(i), f64::from(i % 3))
                .interp(Interp::Step);
        }
        let track = builder.build().unwrap();
        let input = TrackInput {
            name: "steps",
            value_type: StreamValueType::Scalar,
            wrap: StreamWrap::Clamp,
            source: &track,
        };
        let options = CompileOptions::default();
        assert_eq!(
            compile_track(&input, &options, MAX_PIECES - 5).unwrap_err(),
            CompileError::TooManyPieces {
                track: "steps".into(),
                frame: 5.0,
                max: MAX_PIECES,
            }
        );
        let (data, _) = compile_track(&input, &options, MAX_PIECES - 19).unwrap();
        assert_eq!(data.pieces.len(), 19);
    }
}
