//! Streams joined into one by copying: the track entries, names and piece sections of version-3 streams laid out as `write_stream` lays out all their tracks together.

use alloc::vec::Vec;

use super::layout::*;
use super::write::{finish, fit_u32};
use super::StreamError;

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
        Ok(Self {
            bytes,
            tracks: to_usize(read_u32(bytes, H_TRACK_COUNT)),
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
/// # Errors
/// `UnsupportedVersion` for a part that is not version 3; `StreamError::TooLarge` when a count
/// or offset of the joined stream exceeds u32 (as `write_stream`, in its order).
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
            entry.copy_from_slice(part.region(at, at + TRACK_ENTRY_SIZE));
            // A part's sections start at `part.body`; in the joined stream at `body_cursor`.
            let moved = |offset: usize| (offset + body_cursor).saturating_sub(part.body);
            let name = to_usize(read_u32(&entry, T_NAME_OFFSET)) + name_cursor;
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
