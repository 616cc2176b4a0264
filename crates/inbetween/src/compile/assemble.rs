//! The whole stream made from the tracks' own streams by copying (`stream::join_streams`), validated once, with the reports the tracks' threads made.

use alloc::string::ToString;
use alloc::vec::Vec;

use super::measure::MeasuredTrack;
use super::{CompileError, CompiledStream, TrackInput, TrackReport};
use crate::stream::layout::{HEADER_SIZE, TRACK_ENTRY_SIZE, T_MAX_ERROR, T_MAX_ERROR_FRAME};
use crate::stream::{join_streams, Stream, StreamError};

/// Writes the measured largest error and its frame into the track entry of `stream`, a stream
/// of one track (its checksum is left as it was: `join_streams` does not read it).
pub(super) fn set_measured_error(stream: &mut [u8], error: f64, frame: f64) {
    for (field, value) in [(T_MAX_ERROR, error), (T_MAX_ERROR_FRAME, frame)] {
        let at = HEADER_SIZE + field;
        if let Some(slot) = stream.get_mut(at..at + 8) {
            slot.copy_from_slice(&value.to_le_bytes());
        }
    }
}

/// The error for a validated stream written from one track that holds none (never: the
/// writer writes every track it is given).
pub(super) fn no_track(stream: &[u8]) -> StreamError {
    StreamError::Truncated {
        region: "track table",
        needed: TRACK_ENTRY_SIZE as u64,
        needed_end: (HEADER_SIZE + TRACK_ENTRY_SIZE) as u64,
        available: stream.len() as u64,
    }
}

/// The stream of `tracks` (compiled from `inputs`, in order) at `fps` and its reports: the
/// tracks' streams joined (`join_streams`: the bytes `write_stream_unvalidated` writes from
/// all the tracks' data, since the tracks' streams were written from their data and only their
/// measured-error fields changed since) and validated once, here.
///
/// # Errors
/// `Stream` when the joined stream exceeds the format's limits or fails validation.
pub(super) fn assemble(
    inputs: &[TrackInput<'_>],
    fps: f64,
    tracks: Vec<MeasuredTrack>,
) -> Result<CompiledStream, CompileError> {
    let parts: Vec<&[u8]> = tracks.iter().map(|t| t.stream.as_slice()).collect();
    let bytes = join_streams(fps, &parts)?;
    Stream::from_bytes(&bytes)?;
    let reports = inputs
        .iter()
        .zip(tracks)
        .map(|(input, track)| TrackReport {
            name: input.name.to_string(),
            spans: track.spans,
            summary: track.summary,
            kept_in_f64: track.kept_in_f64,
            proof: track.proof,
        })
        .collect();
    Ok(CompiledStream { bytes, reports })
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use crate::compile::CompileOptions;
    use crate::stream::{
        join_streams, write_stream, write_stream_as, write_stream_unvalidated, Precision, Stream,
        StreamError, TableLayout, TrackData,
    };
    use crate::Document;

    /// The tracks of the compiled example and fuzz-regression documents (loops, outside
    /// records, normalized and raw quats, vectors, sub-frame and wide f32 pieces) in every
    /// precision, as data (`TrackData::from_track`), with their stream's fps.
    fn compiled_tracks() -> Vec<(f64, Vec<TrackData>)> {
        let mut out = Vec::new();
        for text in crate::compile::parallel::tests::DOCUMENTS {
            let doc = Document::from_json_str(text, "test.json").unwrap();
            for precision in [Precision::F32, Precision::F64, Precision::Fixed] {
                for normalize in [true, false] {
                    let options = CompileOptions {
                        precision,
                        normalize,
                        ..CompileOptions::default()
                    };
                    let Ok(compiled) = doc.compile(&options) else {
                        continue;
                    };
                    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
                    let tracks = stream.tracks().map(|t| TrackData::from_track(&t)).collect();
                    out.push((stream.fps(), tracks));
                }
            }
        }
        out
    }

    /// Streams of consecutive tracks joined are `write_stream`'s bytes of all the tracks,
    /// byte for byte, for parts of one track, of two and of all; no tracks give the empty
    /// stream. Moving any offset by one byte, or dropping a section, makes them differ.
    #[test]
    fn joined_streams_are_the_stream_of_all_tracks() {
        let mut tracks_seen = 0;
        for (fps, tracks) in compiled_tracks() {
            let whole = write_stream(fps, &tracks).unwrap();
            for size in [1, 2, tracks.len()] {
                let parts: Vec<Vec<u8>> = tracks
                    .chunks(size)
                    .map(|c| write_stream_unvalidated(fps, c).unwrap())
                    .collect();
                let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
                assert_eq!(join_streams(fps, &parts).unwrap(), whole, "parts of {size}");
            }
            tracks_seen += tracks.len();
        }
        assert!(tracks_seen > 60, "{tracks_seen}");
        let empty = write_stream(24.0, &[]).unwrap();
        assert_eq!(join_streams(24.0, &[]).unwrap(), empty);
    }

    /// A part in the legacy layout (versions 1 and 2) is refused, not misread.
    #[test]
    fn a_legacy_part_is_not_joined() {
        let (fps, tracks) = compiled_tracks().swap_remove(0);
        let legacy = write_stream_as(fps, &tracks, TableLayout::Legacy).unwrap();
        let err = join_streams(fps, &[&legacy]).unwrap_err();
        assert!(
            matches!(err, StreamError::UnsupportedVersion { found: 1 | 2, .. }),
            "{err}"
        );
    }
}
