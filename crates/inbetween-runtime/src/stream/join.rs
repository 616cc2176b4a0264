//! Streams joined into one by copying: the track entries, names and piece sections of version-3 streams laid out as `write_stream` lays out all their tracks together, and validated streams joined without checking their pieces again.

use alloc::vec::Vec;

use super::bound::MAX_FIXED_REPLAY_FRAMES;
use super::layout::*;
use super::validate::{validate, validate_with};
use super::write::{finish, fit_u32, fix_checksum};
use super::{Stream, StreamError};

/// A validated stream that owns its bytes: `Stream::from_bytes` for a `Vec<u8>`, which can be
/// kept, moved between threads and joined with others ([`join_validated`]).
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedStream {
    bytes: Vec<u8>,
    /// The frames validation replayed for the fixed-point pieces (`validate::check_bounds`).
    replayed: u64,
}

impl OwnedStream {
    /// Validates `bytes` as `Stream::from_bytes` does and keeps them.
    ///
    /// # Errors
    /// As `Stream::from_bytes`.
    pub fn from_vec(bytes: Vec<u8>) -> Result<Self, StreamError> {
        let replayed = validate(&bytes)?;
        Ok(Self { bytes, replayed })
    }
    /// The stream.
    #[must_use]
    pub fn stream(&self) -> Stream<'_> {
        Stream {
            bytes: &self.bytes,
            track_count: read_u32(&self.bytes, H_TRACK_COUNT),
            fps: read_f64(&self.bytes, H_FPS),
        }
    }
    /// The bytes.
    #[must_use]
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
    /// Stores `error` and `frame` as track `track`'s measured largest error and its frame (the
    /// compiler measures them by playing the stream) and updates the checksum.
    ///
    /// # Errors
    /// `BadNumber` (and nothing changed) for an error that is not finite and ≥ 0 or a frame that
    /// is not finite, as validation refuses them; `Truncated` for a track past the last.
    pub fn set_max_error(
        &mut self,
        track: usize,
        error: f64,
        frame: f64,
    ) -> Result<(), StreamError> {
        let index = u32::try_from(track).unwrap_or(u32::MAX);
        if index >= read_u32(&self.bytes, H_TRACK_COUNT) {
            return Err(StreamError::Truncated {
                region: "track table",
                needed: TRACK_ENTRY_SIZE as u64,
                needed_end: (HEADER_SIZE + (track + 1) * TRACK_ENTRY_SIZE) as u64,
                available: self.bytes.len() as u64,
            });
        }
        let bad = |field, found, expected| StreamError::BadNumber {
            track: Some(index),
            piece: None,
            field,
            found,
            expected,
        };
        if !(error.is_finite() && error >= 0.0) {
            return Err(bad("max error", error, "a finite number ≥ 0"));
        }
        if !frame.is_finite() {
            return Err(bad("max error frame", frame, "a finite number"));
        }
        let entry = HEADER_SIZE + track * TRACK_ENTRY_SIZE;
        for (field, value) in [(T_MAX_ERROR, error), (T_MAX_ERROR_FRAME, frame)] {
            if let Some(slot) = self.bytes.get_mut(entry + field..entry + field + 8) {
                slot.copy_from_slice(&value.to_le_bytes());
            }
        }
        fix_checksum(&mut self.bytes);
        Ok(())
    }
}

/// [`join_streams`] of validated streams, validated: everything `Stream::from_bytes` checks
/// but the pieces, whose checks passed in the parts.
///
/// Why that is `Stream::from_bytes`'s verdict. A track's piece checks
/// (`compact_check::validate_pieces`) read its entry's value type, components, precision,
/// start code, piece count, frames and data length, and its own piece table and numbers at
/// their offsets from its table and data offsets; `join_streams` copies every entry and every
/// track's sections byte for byte, moving both offsets by the same amount (the bytes are
/// `write_stream`'s, compared by the compiler's `assemble` tests), so each check computes what it
/// computed in the part: it passes, its numbers fill the data length, and it replays the part's
/// fixed-point frames. Everything else — the header, every entry's fields, the names, the
/// sections tiling the stream, the outside records and the checksum — is checked on the joined
/// bytes, and the fixed-point frames of all parts against `MAX_FIXED_REPLAY_FRAMES`; over it the
/// whole stream is validated as `from_bytes` validates it, which names the error.
/// (`tests::joined_validation_is_full_validation` compares the verdicts.)
///
/// # Errors
/// As [`join_streams`] and `Stream::from_bytes`.
pub fn join_validated(fps: f64, parts: &[OwnedStream]) -> Result<OwnedStream, StreamError> {
    let slices: Vec<&[u8]> = parts.iter().map(|p| p.bytes.as_slice()).collect();
    let bytes = join_streams(fps, &slices)?;
    let known = parts
        .iter()
        .try_fold(0u64, |sum, p| sum.checked_add(p.replayed))
        .filter(|&sum| sum <= MAX_FIXED_REPLAY_FRAMES);
    let replayed = match known {
        Some(sum) => validate_with(&bytes, Some(sum))?,
        None => validate(&bytes)?,
    };
    Ok(OwnedStream { bytes, replayed })
}

/// Where one part's regions are: its track count, names area `[names, body)` and piece
/// sections `[body, end)` (everything between the names and the checksum).
struct Part<'a> {
    bytes: &'a [u8],
    tracks: usize,
    names: usize,
    body: usize,
    end: usize,
}

impl<'a> Part<'a> {
    /// The regions of `bytes`, a version-3 stream; `UnsupportedVersion` for another version.
    fn new(bytes: &'a [u8]) -> Result<Self, StreamError> {
        let version = read_u16(bytes, H_VERSION);
        if version != FORMAT_VERSION_COMPACT {
            return Err(StreamError::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION_COMPACT,
            });
        }
        let end = bytes.len().saturating_sub(CHECKSUM_SIZE);
        let names = to_usize(read_u32(bytes, H_NAMES_OFFSET)).min(end);
        let body = names
            .saturating_add(to_usize(read_u32(bytes, H_NAMES_LENGTH)))
            .min(end);
        let tracks = to_usize(read_u32(bytes, H_TRACK_COUNT));
        // The track table must lie before the names: no more tracks than the bytes hold.
        let table = tracks.saturating_mul(TRACK_ENTRY_SIZE);
        if HEADER_SIZE.saturating_add(table) > names {
            return Err(StreamError::Truncated {
                region: "track table",
                needed: table as u64,
                needed_end: HEADER_SIZE.saturating_add(table) as u64,
                available: names as u64,
            });
        }
        Ok(Self {
            bytes,
            tracks,
            names,
            body,
            end,
        })
    }

    fn region(&self, from: usize, to: usize) -> &'a [u8] {
        self.bytes.get(from..to).unwrap_or(&[])
    }
}

/// One stream at `fps` holding the tracks of `parts`, in order: the bytes `write_stream_unvalidated`
/// gives for all their tracks at once, made by copying instead of encoding every piece again.
///
/// Each part must be a version-3 stream as `write_stream_unvalidated` lays it out (the compiler's
/// per-track streams); its checksum is not read, and its track entries are copied as they are
/// but for the name, piece-table and data offsets, moved to where the names and piece sections
/// land. Why the bytes are `write_stream`'s: that writer puts the header, the track entries,
/// the names one after another and then each track's piece table, numbers and outside record one
/// after another, every offset absolute (names relative to the names area), and a track's
/// piece table and numbers depend only on that track (`TablePlan`, `write_compact_table`); so
/// a part's piece sections are the joined stream's for its tracks, shifted by a constant. The
/// result is not validated: callers validate it with `Stream::from_bytes` before reading it
/// (the compiler's `assemble::tests::joined_streams_are_the_stream_of_all_tracks` compares it
/// with `write_stream` on the example documents' tracks).
///
/// A part that is not such a stream gives bytes that `Stream::from_bytes` refuses, or an error
/// here; never a panic.
///
/// # Errors
/// `UnsupportedVersion` for a part that is not version 3, `Truncated` for one whose track
/// table does not end before its names; `StreamError::TooLarge` when a count or offset of the
/// joined stream exceeds u32 (as `write_stream`, in its order).
pub fn join_streams(fps: f64, parts: &[&[u8]]) -> Result<Vec<u8>, StreamError> {
    let parts = parts
        .iter()
        .map(|bytes| Part::new(bytes))
        .collect::<Result<Vec<_>, _>>()?;
    let tracks: usize = parts.iter().map(|p| p.tracks).sum();
    let names_length: usize = parts.iter().map(|p| p.body - p.names).sum();
    let bodies: usize = parts.iter().map(|p| p.end - p.body).sum();
    let names_offset = HEADER_SIZE + tracks * TRACK_ENTRY_SIZE;
    let mut out = Vec::with_capacity(names_offset + names_length + bodies + CHECKSUM_SIZE);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION_COMPACT.to_le_bytes());
    out.extend_from_slice(&BYTE_ORDER_MARK.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&fit_u32("track count", tracks)?.to_le_bytes());
    out.extend_from_slice(&fps.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes()); // total length, set by `finish`
    out.extend_from_slice(&fit_u32("names offset", names_offset)?.to_le_bytes());
    out.extend_from_slice(&fit_u32("names length", names_length)?.to_le_bytes());
    let (mut name_cursor, mut body_cursor) = (0usize, names_offset + names_length);
    for part in &parts {
        for k in 0..part.tracks {
            let at = HEADER_SIZE + k * TRACK_ENTRY_SIZE;
            let mut entry = [0u8; TRACK_ENTRY_SIZE];
            // Always there: the table lies before the names (`Part::new`).
            if let Some(bytes) = part.bytes.get(at..at + TRACK_ENTRY_SIZE) {
                entry.copy_from_slice(bytes);
            }
            // A part's sections start at `part.body`; in the joined stream at `body_cursor`.
            let moved =
                |offset: usize| offset.saturating_add(body_cursor).saturating_sub(part.body);
            let name = to_usize(read_u32(&entry, T_NAME_OFFSET)).saturating_add(name_cursor);
            let table = moved(to_usize(read_u32(&entry, T_PIECE_TABLE_OFFSET)));
            let data = moved(to_usize(read_u32(&entry, T_DATA_OFFSET)));
            let name = fit_u32("name offset", name)?;
            let table = fit_u32("piece table offset", table)?;
            let data = fit_u32("data offset", data)?;
            for (field, value) in [
                (T_NAME_OFFSET, name),
                (T_PIECE_TABLE_OFFSET, table),
                (T_DATA_OFFSET, data),
            ] {
                entry[field..field + 4].copy_from_slice(&value.to_le_bytes());
            }
            out.extend_from_slice(&entry);
        }
        name_cursor += part.body - part.names;
        body_cursor += part.end - part.body;
    }
    for part in &parts {
        out.extend_from_slice(part.region(part.names, part.body));
    }
    for part in &parts {
        out.extend_from_slice(part.region(part.body, part.end));
    }
    finish(out)
}

#[cfg(all(test, feature = "write"))]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::stream::{
        write_stream, PieceData, PieceNumbers, Precision, StreamValueType, StreamWrap, TrackData,
    };

    /// A one-track fixed-point stream (units 2^-2) of two linear pieces over frames 0..`frames`
    /// (`frames` even), named `name`.
    fn fixed_part(name: &str, frames: u32) -> OwnedStream {
        let half = f64::from(frames / 2);
        let piece = |start: f64, value: i64| PieceData {
            start,
            origin: start,
            degree: 1,
            exponent: 2,
            numbers: PieceNumbers::Fixed([value, 3].to_vec()),
        };
        let track = TrackData {
            name: name.into(),
            value_type: StreamValueType::Scalar,
            wrap: StreamWrap::Clamp,
            precision: Precision::Fixed,
            first_frame: 0.0,
            last_frame: f64::from(frames),
            tolerance: 1e-3,
            max_error: 0.0,
            max_error_frame: 0.0,
            end_value: [(3.0 * half * 2.0) / 4.0, 0.0, 0.0, 0.0],
            pieces: [piece(0.0, 0), piece(half, 3 * half as i64)].to_vec(),
            outside: None,
            normalize: false,
        };
        OwnedStream::from_vec(write_stream(24.0, &[track]).unwrap()).unwrap()
    }

    /// Parts whose stated replays add up past `MAX_FIXED_REPLAY_FRAMES` (or past `u64`) are
    /// joined by the fallback: the whole stream validated as `from_bytes` does, its pieces
    /// replayed again. The result is the bytes and the replay count of full validation, not
    /// the parts' stated sum — which a fallback that trusted the parts would keep.
    #[test]
    fn joined_parts_past_the_replay_budget_are_validated_whole() {
        let parts = [fixed_part("a", 16), fixed_part("b", 40), fixed_part("c", 8)];
        let slices: Vec<&[u8]> = parts.iter().map(|p| p.bytes.as_slice()).collect();
        let whole = OwnedStream::from_vec(join_streams(24.0, &slices).unwrap()).unwrap();
        let real: u64 = parts.iter().map(|p| p.replayed).sum();
        assert!(real > 0, "fixed pieces replay frames");
        assert_eq!(
            whole.replayed, real,
            "full validation counts the parts' replays"
        );

        // Within the budget: the parts' sum is taken as it is.
        let joined = join_validated(24.0, &parts).unwrap();
        assert_eq!(joined, whole);

        let stated = |claims: [u64; 3]| -> Vec<OwnedStream> {
            parts
                .iter()
                .zip(claims)
                .map(|(p, replayed)| OwnedStream {
                    bytes: p.bytes.clone(),
                    replayed,
                })
                .collect()
        };
        let over = MAX_FIXED_REPLAY_FRAMES / 2 + 1;
        for claims in [
            [over, over, 0],
            [u64::MAX, 1, 1],
            [MAX_FIXED_REPLAY_FRAMES + 1, 0, 0],
        ] {
            let joined = join_validated(24.0, &stated(claims)).unwrap();
            assert_eq!(joined.bytes, whole.bytes, "claims {claims:?}");
            assert_eq!(joined.replayed, real, "claims {claims:?}: recounted");
        }
        // Under the budget a stated sum is trusted (the fast path really skips the replays).
        let trusted = join_validated(24.0, &stated([5, 6, 7])).unwrap();
        assert_eq!(trusted.replayed, 18);
    }

    /// The fallback's verdict on a broken joined stream is `from_bytes`'s: a part whose
    /// fixed-point state overflows i64 inside its frames (written unvalidated, then claimed
    /// validated with a replay count past the budget) makes the whole validation name the
    /// piece (the fast path would not replay it, which is why only validated parts may be
    /// joined).
    #[test]
    fn the_fallback_names_a_broken_piece() {
        let good = fixed_part("a", 16);
        let mut track = Stream::from_bytes(&fixed_part("b", 16).bytes)
            .map(|s| {
                s.tracks()
                    .map(|t| TrackData::from_track(&t))
                    .collect::<Vec<_>>()
            })
            .unwrap();
        track[0].pieces[1].numbers = PieceNumbers::Fixed([i64::MAX / 2, i64::MAX / 4].to_vec());
        let broken = crate::stream::write_stream_unvalidated(24.0, &track).unwrap();
        let slices: Vec<&[u8]> = [good.bytes.as_slice(), broken.as_slice()].to_vec();
        let joined = join_streams(24.0, &slices).unwrap();
        let expected = validate(&joined).map(|_| ());
        assert!(
            matches!(
                expected,
                Err(StreamError::FixedOverflow {
                    track: 1,
                    piece: 1,
                    ..
                })
            ),
            "{expected:?}"
        );
        let parts = [
            good,
            OwnedStream {
                bytes: broken,
                replayed: u64::MAX,
            },
        ];
        assert_eq!(
            join_validated(24.0, &parts).map(|_| ()),
            expected,
            "over the budget the whole stream is validated and its error named"
        );
    }
}
