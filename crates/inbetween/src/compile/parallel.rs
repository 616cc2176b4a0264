//! Tracks compiled and measured independently: one after another, or across threads with feature `rayon`, with the same results and errors in input order.

use alloc::vec::Vec;

use super::measure::{compile_and_measure as compile_track, MeasuredTrack};
use super::span::piece_ends;
#[cfg(feature = "rayon")]
use super::MAX_PIECES;
use super::{CompileError, CompileOptions, TrackInput};
use crate::stream::{StreamTrack, TrackData, TrackSummary};

/// Tracks compiled together across threads before the piece count is checked in order.
#[cfg(feature = "rayon")]
const CHUNK: usize = 256;

/// Compiles and measures every track (`measure::compile_and_measure`), in input order: each
/// track's own stream, summary and figures; `progress(done,
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
                Ok(track) => pieces_before.saturating_add(track.pieces) > MAX_PIECES,
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
            pieces_before = pieces_before.saturating_add(track.pieces);
            out.push(track);
            progress(out.len(), tracks.len());
        }
    }
    #[cfg(not(feature = "rayon"))]
    for input in tracks {
        let track = compile_track(input, fps, options, pieces_before)?;
        pieces_before = pieces_before.saturating_add(track.pieces);
        out.push(track);
        progress(out.len(), tracks.len());
    }
    Ok(out)
}

/// `track.summary()` for a track written from `data`: the pieces' starts, ends and degrees
/// from `data` (the stream holds them to the same bits) instead of decoding each piece from
/// the stream's table (`StreamTrack::summary_of`). `tests::summaries_from_the_data_are_the_streams`
/// compares them.
pub(super) fn summary_of(track: StreamTrack<'_>, data: &TrackData) -> TrackSummary {
    let pieces = data
        .pieces
        .iter()
        .zip(piece_ends(data))
        .map(|(p, end)| (p.start, end, p.degree));
    track.summary_of(pieces)
}

#[cfg(test)]
pub(super) mod tests {
    use crate::compile::CompileOptions;
    use crate::stream::Precision;
    use crate::stream::Stream;
    use crate::Document;

    /// Example and fuzz-regression documents with loops, outside records, sub-frame pieces,
    /// wide f32 pieces, constant tracks and rotations.
    pub(in crate::compile) const DOCUMENTS: [&str; 4] = [
        include_str!("../../../../examples/showcase.json"),
        include_str!("../../tests/fuzz_regressions/document_json/hostile_loop_tiny_span.json"),
        include_str!(
            "../../tests/fuzz_regressions/document_json/hostile_pingpong_sub_frame_span.json"
        ),
        include_str!("../../../../tests/blender/case3.json"),
    ];

    /// The compiler's reports hold `StreamTrack::summary` of the stream it returns ([`summary_of`])
    /// for every track of the example and fuzz-regression documents in every precision at degrees
    /// 8 and 3 (loops, outside records, sub-frame pieces, wide f32 pieces, constant tracks).
    #[test]
    fn summaries_from_the_data_are_the_streams() {
        let mut checked = 0;
        for text in DOCUMENTS {
            let doc = Document::from_json_str(text, "test.json").unwrap();
            for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
                for max_degree in [8, 3] {
                    let options = CompileOptions {
                        precision,
                        max_degree,
                        ..CompileOptions::default()
                    };
                    let Ok(compiled) = doc.compile(&options) else {
                        continue;
                    };
                    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
                    for (track, report) in stream.tracks().zip(&compiled.reports) {
                        assert_eq!(report.summary, track.summary(), "{}", track.name());
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 30, "{checked}");
    }
}
