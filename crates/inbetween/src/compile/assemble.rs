//! The whole stream made from the tracks' own validated streams by copying (`stream::join_validated`), with the reports the tracks' threads made.

use alloc::string::ToString;
use alloc::vec::Vec;

use super::measure::MeasuredTrack;
use super::{CompileError, CompiledStream, TrackInput, TrackReport};
use crate::stream::layout::{HEADER_SIZE, TRACK_ENTRY_SIZE};
use crate::stream::{join_validated, StreamError};

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
/// tracks' validated streams joined and validated without checking their pieces again
/// (`join_validated`; its docs say why that is `Stream::from_bytes`'s verdict) — the bytes
/// `write_stream` writes from all the tracks' data, since each track's stream was written from
/// its data and only its measured-error fields changed since.
///
/// # Errors
/// `Stream` when the joined stream exceeds the format's limits or fails validation.
pub(super) fn assemble(
    inputs: &[TrackInput<'_>],
    fps: f64,
    tracks: Vec<MeasuredTrack>,
) -> Result<CompiledStream, CompileError> {
    let mut parts = Vec::with_capacity(tracks.len());
    let mut reports = Vec::with_capacity(tracks.len());
    for (input, track) in inputs.iter().zip(tracks) {
        parts.push(track.stream);
        reports.push(TrackReport {
            name: input.name.to_string(),
            spans: track.spans,
            summary: track.summary,
            kept_in_f64: track.kept_in_f64,
            proof: track.proof,
        });
    }
    let bytes = join_validated(fps, &parts)?.into_bytes();
    Ok(CompiledStream { bytes, reports })
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use crate::compile::CompileOptions;
    use crate::stream::{
        join_streams, join_validated, write_stream, write_stream_as, write_stream_unvalidated,
        OwnedStream, Precision, Stream, StreamError, TableLayout, TrackData,
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

    /// Validated streams of one track each, their measured errors changed, joined and validated
    /// without their pieces (`join_validated`) are the bytes `write_stream` writes from all the
    /// tracks with those errors, which `Stream::from_bytes` (every check) accepts.
    #[test]
    fn joined_validation_is_full_validation() {
        for (fps, mut tracks) in compiled_tracks() {
            let mut parts = Vec::new();
            for (i, track) in tracks.iter_mut().enumerate() {
                let bytes = write_stream_unvalidated(fps, core::slice::from_ref(track)).unwrap();
                let mut part = OwnedStream::from_vec(bytes).unwrap();
                (track.max_error, track.max_error_frame) = (i as f64 * 0.25, -(i as f64));
                part.set_max_error(0, track.max_error, track.max_error_frame)
                    .unwrap();
                parts.push(part);
            }
            let joined = join_validated(fps, &parts).unwrap().into_bytes();
            assert!(Stream::from_bytes(&joined).is_ok());
            assert_eq!(joined, write_stream(fps, &tracks).unwrap());
        }
    }

    /// A measured error that validation would refuse is refused and leaves the stream as it
    /// was; one it accepts is read back, with a checksum that validates.
    #[test]
    fn measured_errors_are_stored_only_when_valid() {
        let (fps, tracks) = compiled_tracks().swap_remove(0);
        let bytes = write_stream_unvalidated(fps, &tracks[..1]).unwrap();
        let mut part = OwnedStream::from_vec(bytes).unwrap();
        let before = part.clone();
        for (error, frame) in [(f64::NAN, 0.0), (-1e-9, 0.0), (1.0, f64::INFINITY)] {
            let err = part.set_max_error(0, error, frame).unwrap_err();
            assert!(matches!(err, StreamError::BadNumber { .. }), "{err}");
            assert_eq!(part, before);
        }
        assert!(part.set_max_error(1, 0.0, 0.0).is_err());
        part.set_max_error(0, 0.125, 7.0).unwrap();
        let bytes = part.into_bytes();
        let track = Stream::from_bytes(&bytes).unwrap().track(0).unwrap();
        assert_eq!((track.max_error(), track.max_error_frame()), (0.125, 7.0));
    }

    /// Parts that are not streams laid out by the writer — cut short anywhere, or claiming
    /// u32::MAX tracks — give an error from `join_streams` or bytes `Stream::from_bytes`
    /// refuses, never a panic.
    #[test]
    fn broken_parts_are_refused() {
        let (fps, tracks) = compiled_tracks().swap_remove(0);
        let bytes = write_stream_unvalidated(fps, &tracks[..2]).unwrap();
        for cut in 0..bytes.len() {
            let part = &bytes[..cut];
            if let Ok(joined) = join_streams(fps, &[part, &bytes]) {
                assert!(Stream::from_bytes(&joined).is_err(), "cut at {cut}");
            }
        }
        let mut many = bytes.clone();
        many[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = join_streams(fps, &[&many]).unwrap_err();
        assert!(matches!(err, StreamError::Truncated { .. }), "{err}");
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
