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
//! `ACCEPT_FRACTION × tolerance` of the exact value (a polynomial span's polynomial, else
//! `CurveSource::eval`) at every integer frame, and within
//! `BETWEEN_FRACTION` of that at the fractional frames checked (`between_values`; for a fit,
//! with twice the player's rounding bound of its values added, `seek::entry_rounding`), is
//! kept; otherwise the interval is split in two and each half compiled again (see
//! `MIN_FRAME_PIECE_FRAMES`, `MIN_PIECE_FRAMES` and `MARGIN_SPLIT_BUDGET` for where splitting
//! stops). An integer frame that no piece of 1/16 frame
//! holds is a `ToleranceExceeded` error naming the track and frame. Finally each track is
//! written alone, played by `player::TrackPlayer` from before its first integer frame and
//! compared again (`measure.rs`); the measured maximum error and its frame are stored in the
//! track table. Tracks are compiled across threads with feature `rayon` (`parallel.rs`); the
//! steps of one track are in `span.rs`, the replay in `verify.rs`.
//!
//! An `F32` compile keeps a track in f64 rather than split it below a frame because f32 cannot
//! hold the tolerance (`TrackReport::kept_in_f64`).

// Index loops over small fixed arrays read like the formulas they implement.
#![allow(clippy::needless_range_loop)]

mod assemble;
mod convert;
mod measure;
pub mod normalized;
pub(crate) mod outside;
mod parallel;
pub mod seek;
pub mod source;
mod span;
mod verify;

use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub use convert::{lobatto_interpolant, lobatto_node, power_to_differences};
pub use seek::{TrackProof, MAX_PROVEN_STEP, MIN_PROVEN_STEP};
pub use source::{
    Coefficients, CurveSource, MaybeSync, NonFiniteValue, SourceSpan, SpanShape, MAX_COMPONENTS,
};

use crate::stream::layout::MAX_DEGREE;
use crate::stream::{
    integer_frames, Precision, StreamError, StreamValueType, StreamWrap, TrackSummary,
};

/// Default tolerance relative to the track's scale: `1e-6 × scale` (absolute, value units).
pub const DEFAULT_RELATIVE_TOLERANCE: f64 = 1e-6;
/// Default highest piece degree.
pub const DEFAULT_MAX_DEGREE: u8 = 8;
/// Default highest piece degree of quaternion tracks compiled for normalized playback
/// ([`CompileOptions::rotation_max_degree`]): 8, no cap beyond [`DEFAULT_MAX_DEGREE`]. The
/// batch player's Horner lanes read `4 (D + 1)` numbers a rotation-frame for a track whose
/// highest piece degree is `D`, so a lower cap trades compile time and stream bytes for
/// playback: at 5 the benchmark's rotations play 24 numbers a rotation-frame instead of 28,
/// 10–15 % faster in the bank, for about 18 % more pieces, 15 % more stream bytes and a
/// rotation compile 14 % slower by instructions (20–25 % timed in fixed point), which took
/// the fixed-point rotation compile below 2·10^5 keys/s; so the default keeps every degree
/// and a caller who plays many rotations per frame chooses 5
/// (docs/benchmarks-history.md, *Rotations at 10 000: normalized quaternions at degree 5 by
/// default (session 16)*, and docs/benchmarks.md, *Missed targets*).
pub const DEFAULT_ROTATION_MAX_DEGREE: u8 = 8;
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

/// Splits allowed per span of intervals shorter than `MIN_FRAME_PIECE_FRAMES` whose first fit
/// the samples between frames accept but not with the player's rounding bound added (its
/// unit-step differences too large for so short a piece: `seek::entry_rounding_sharp`); the
/// halves' fits are shorter and of lower degree, so they round less. Spends no other budget,
/// so it cannot leave a steep transition elsewhere in the span unresolved; past it such a fit
/// is kept as the samples accept it.
pub const MARGIN_SPLIT_BUDGET: usize = 256;

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
/// is evaluated exactly, kept while its piece is checked (about 80 bytes a frame) and while its
/// track is played back (32 bytes a frame), and played,
/// so the count bounds the compile's time and memory (measured: 0.4 s and 82 MB for 10^6
/// frames of one polynomial piece, 4.4 s for a fitted expression; see docs/limits.md); more is
/// refused with [`CompileError::TooManyFrames`].
pub const MAX_VERIFIED_FRAMES_PER_TRACK: u64 = 1 << 22;

/// The most frames one compile verifies over all its tracks: 2^31 = 2 147 483 648 — a million
/// channels of 2 000 frames, the batch player's largest benchmark bank (issue 5: banks of
/// 1 000 000 channels must compile). Time grows linearly with it (about 0.1 µs of CPU a frame
/// for polynomial segments, 20 µs for the slowest fitted curves), memory does not (each track's
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
    /// Highest piece degree of quat tracks compiled for normalized playback (`normalize`),
    /// 0..=8; such a track's pieces are at most `min(max_degree, rotation_max_degree)`.
    /// Default [`DEFAULT_ROTATION_MAX_DEGREE`]; `8` compiles them as any other track.
    pub rotation_max_degree: u8,
    /// Quat tracks are fitted for normalized playback and carry the stream's normalize flag
    /// (the player divides each value by its norm; `compile::normalized`). `false` fits the
    /// components themselves, played as stored (the behaviour before the flag).
    pub normalize: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        Self {
            tolerance: None,
            precision: Precision::F64,
            max_degree: DEFAULT_MAX_DEGREE,
            rotation_max_degree: DEFAULT_ROTATION_MAX_DEGREE,
            normalize: true,
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
    /// `Some(error)` when an `F32` compile kept this track in f64: f32 could not hold the
    /// tolerance without splitting pieces below one frame, which f64 does not need (docs/
    /// stream-format.md, Precisions). `error` is the largest |played − exact| (at integer
    /// frames and the fractional frames checked) of its f64 pieces stored in f32 instead: the
    /// finest tolerance f32 reaches with pieces of a frame or more, as measured.
    pub kept_in_f64: Option<f64>,
    /// What the compiler proved, or played, of seeks and of frames between integer frames
    /// (`seek` module; docs/stream-format.md, What the compiler guarantees).
    pub proof: TrackProof,
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
    for (option, degree) in [
        ("max_degree", options.max_degree),
        ("rotation_max_degree", options.rotation_max_degree),
    ] {
        if usize::from(degree) > MAX_DEGREE {
            return Err(CompileError::InvalidOption {
                option,
                found: f64::from(degree),
                expected: "0..=8",
            });
        }
    }
    check_frame_limits(tracks)?;
    let compiled = parallel::compile_each(tracks, fps, options, progress)?;
    assemble::assemble(tracks, fps, compiled)
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

pub(super) fn non_finite(track: &str, e: NonFiniteValue) -> CompileError {
    CompileError::NonFinite {
        track: track.to_string(),
        frame: e.frame,
        key: e.key,
    }
}

/// Checks the source's contract; returns its spans.
pub(super) fn checked_spans(input: &TrackInput<'_>) -> Result<Vec<SourceSpan>, CompileError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::Stream;
    use crate::{Interp, Track};
    use span::compile_track;

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
            compile_track(&input, &options, MAX_PIECES - 5)
                .map(|t| t.data)
                .unwrap_err(),
            CompileError::TooManyPieces {
                track: "steps".into(),
                frame: 5.0,
                max: MAX_PIECES,
            }
        );
        let data = compile_track(&input, &options, MAX_PIECES - 19)
            .unwrap()
            .data;
        assert_eq!(data.pieces.len(), 19);
    }

    /// Below the per-track choice of f64: an f32 piece of a sub-frame span whose unit-step
    /// differences f32 cannot hold is stored wide (its numbers in f64), and plays within the
    /// tolerance at fractional frames (checked against the polynomial by Horner's rule).
    #[test]
    fn sub_frame_pieces_too_steep_for_f32_are_stored_wide() {
        let coeffs = [0.0, 30.0, -20.0, 10.0, 40.0, -60.0, 35.0, -20.0, 9.0];
        let source = Poly(coeffs);
        let input = TrackInput {
            name: "steep",
            value_type: StreamValueType::Scalar,
            wrap: StreamWrap::Clamp,
            source: &source,
        };
        let options = CompileOptions {
            tolerance: Some(1e-7),
            precision: Precision::F32,
            ..CompileOptions::default()
        };
        let data = compile_track(&input, &options, 0).unwrap().data;
        let wide: Vec<_> = data
            .pieces
            .iter()
            .filter(|p| matches!(p.numbers, crate::stream::PieceNumbers::F64(_)))
            .collect();
        assert!(!wide.is_empty(), "{:?}", data.pieces);
        let bytes = crate::stream::write_stream(60.0, &[data]).unwrap();
        let stream = Stream::from_bytes(&bytes).unwrap();
        let mut player = crate::player::TrackPlayer::new(stream.track(0).unwrap());
        for k in 0..=40 {
            let frame = 3.3 + f64::from(k) * 0.01;
            player.seek(frame).unwrap();
            let v = (frame - 3.3) / 0.4;
            let exact = coeffs.iter().rev().fold(0.0, |acc, c| acc * v + c);
            assert!((player.component(0) - exact).abs() <= 1e-7, "frame {frame}");
        }
    }

    /// One polynomial span in `v` over frames 3.3..3.7.
    struct Poly([f64; 9]);

    impl CurveSource for Poly {
        fn components(&self) -> usize {
            1
        }
        fn spans(&self) -> Vec<SourceSpan> {
            let coeffs = Vec::from_iter(self.0.iter().map(|c| [*c, 0.0, 0.0, 0.0])).into();
            alloc::vec![SourceSpan {
                start: 3.3,
                end: 3.7,
                key: 0,
                shape: SpanShape::Polynomial { coeffs },
            }]
        }
        fn first_frame(&self) -> f64 {
            3.3
        }
        fn last_frame(&self) -> f64 {
            3.7
        }
        fn eval(&self, frame: f64, out: &mut [f64]) -> Result<(), NonFiniteValue> {
            let v = ((frame - 3.3) / 0.4).clamp(0.0, 1.0);
            out[0] = self.0.iter().rev().fold(0.0, |acc, c| acc * v + c);
            Ok(())
        }
        fn eval_in_span(
            &self,
            _: &SourceSpan,
            frame: f64,
            out: &mut [f64],
        ) -> Result<(), NonFiniteValue> {
            out[0] = self
                .0
                .iter()
                .rev()
                .fold(0.0, |acc, c| acc * ((frame - 3.3) / 0.4) + c);
            Ok(())
        }
    }
}
