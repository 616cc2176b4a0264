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
