//! Tracks compiled and measured independently: one after another, or across threads with feature `rayon`, with the same results and errors in input order.

use alloc::vec::Vec;

use super::measure::{compile_and_measure as compile_track, MeasuredTrack};
#[cfg(feature = "rayon")]
use super::MAX_PIECES;
use super::{CompileError, CompileOptions, TrackInput};
use crate::stream::{Stream, TrackSummary};

/// Tracks compiled together across threads before the piece count is checked in order.
#[cfg(feature = "rayon")]
const CHUNK: usize = 256;

/// Compiles and measures every track (`measure::compile_and_measure`), in input order:
/// `(data, span count, kept in f64)` per track; `progress(done,
/// total)` after each. The first track (in input order) that fails gives the error, and
/// [`MAX_PIECES`] counts the pieces of the tracks before it as when they are compiled one
/// after another.
///
/// # Errors
/// As `compile_tracks`.
pub(super) fn compile_each(
    tracks: &[TrackInput<'_>],
    fps: f64,
    options: &CompileOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<MeasuredTrack>, CompileError> {
    let mut out = Vec::with_capacity(tracks.len());
    // Pieces of the tracks compiled so far (a running total: summing them again for every
    // track made a million-track compile quadratic).
    let mut pieces_before = 0usize;
    #[cfg(feature = "rayon")]
    for chunk in tracks.chunks(CHUNK) {
        use rayon::prelude::*;
        // Each track of the chunk counts only the pieces before the chunk (so a runaway track
        // still stops early); the exact count is checked below, in order.
        let results: Vec<_> = chunk
            .par_iter()
            .map(|input| compile_track(input, fps, options, pieces_before))
            .collect();
        for (input, result) in chunk.iter().zip(results) {
            let over = match &result {
                Ok((data, _, _, _)) => pieces_before.saturating_add(data.pieces.len()) > MAX_PIECES,
                Err(e) => matches!(e, CompileError::TooManyPieces { .. }),
            };
            // Over the limit with the tracks before it in this chunk: compiled again with the
            // exact count, for the error (and frame) one after another gives.
            let result = if over {
                compile_track(input, fps, options, pieces_before)
            } else {
                result
            };
            let track = result?;
            pieces_before = pieces_before.saturating_add(track.0.pieces.len());
            out.push(track);
            progress(out.len(), tracks.len());
        }
    }
    #[cfg(not(feature = "rayon"))]
    for input in tracks {
        let track = compile_track(input, fps, options, pieces_before)?;
        pieces_before = pieces_before.saturating_add(track.0.pieces.len());
        out.push(track);
        progress(out.len(), tracks.len());
    }
    Ok(out)
}

/// Every track's `StreamTrack::summary` of the compiled stream, in order (across threads with
/// feature `rayon`: each decodes every piece of its track, and the whole stream is written
/// and validated on one thread).
pub(super) fn summaries(stream: &Stream<'_>) -> Vec<TrackSummary> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        let tracks: Vec<_> = stream.tracks().collect();
        tracks.par_iter().map(|t| t.summary()).collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        stream.tracks().map(|t| t.summary()).collect()
    }
}
