//! The tracks of a large stream validated across threads (feature `rayon`), with the result of validating them one after another.

use rayon::prelude::*;

use super::bound::MAX_FIXED_REPLAY_FRAMES;
use super::layout::*;
use super::validate::validate_track_entry;

/// Streams with at least this many tracks have their tracks validated across threads.
pub(super) const PARALLEL_TRACKS: u64 = 64;

/// Where track `t`'s piece sections end by its entry's own fields: its data offset plus data
/// length, plus an outside record when its entry says one follows (what `validate_track_entry`
/// returns for a valid track).
fn stated_end(bytes: &[u8], t: u64) -> u64 {
    let entry = HEADER_SIZE + usize::try_from(t).unwrap_or(usize::MAX / 2) * TRACK_ENTRY_SIZE;
    let data = u64::from(read_u32(bytes, entry + T_DATA_OFFSET));
    let length = u64::from(read_u32(bytes, entry + T_DATA_LENGTH));
    let outside = read_u16(bytes, H_VERSION) >= FORMAT_VERSION_OUTSIDE
        && read_u8(bytes, entry + T_OUTSIDE) == 1;
    let record = if outside {
        super::outside::OUTSIDE_RECORD_SIZE as u64
    } else {
        0
    };
    data + length + record
}

/// `validate`'s loop over the `track_count` tracks (each `validate_track_entry`), across
/// threads: `Some((end, replayed))`, the offset after the last track's sections and the
/// fixed-point frames replayed, when every track is valid; `None` when one is not, or when anything differs from the loop's conditions below —
/// the caller then runs the loop itself, which finds the error (and names it as it always did).
///
/// Why `Some` means the loop passes with the same end. The loop validates track `t` from the
/// cursor track `t − 1` returned, counting the fixed-point frames replayed so far. Here track
/// `t` is validated from track `t − 1`'s [`stated_end`] with its own count from 0, and `Some`
/// needs every track valid, every returned end equal to its stated end — so each cursor is the
/// loop's, by induction from the first (`first_cursor`, the loop's too) — and the counts' sum
/// within `MAX_FIXED_REPLAY_FRAMES`, so every running total the loop checks (a partial sum of
/// these counts) is within it. A track's checks read nothing else that depends on the others.
pub(super) fn validate_tracks(
    bytes: &[u8],
    track_count: u64,
    names: (u64, u32),
    first_cursor: u64,
    body: u64,
) -> Option<(u64, u64)> {
    let last = track_count.checked_sub(1)?;
    let replayed = (0..track_count)
        .into_par_iter()
        .map(|t| {
            let cursor = match t.checked_sub(1) {
                Some(before) => stated_end(bytes, before),
                None => first_cursor,
            };
            let track = u32::try_from(t).ok()?;
            let mut replayed = 0u64;
            let at = (cursor, body, true);
            let end = validate_track_entry(bytes, track, names, at, &mut replayed).ok()?;
            (end == stated_end(bytes, t)).then_some(replayed)
        })
        .try_reduce(|| 0u64, |a, b| Some(a.saturating_add(b)))?;
    (replayed <= MAX_FIXED_REPLAY_FRAMES).then(|| (stated_end(bytes, last), replayed))
}

#[cfg(all(test, feature = "write"))]
mod tests {
    use alloc::vec::Vec;

    use super::*;
    use crate::stream::outside::{Beyond, Outside};
    use crate::stream::{
        write_stream, PieceData, PieceNumbers, Precision, StreamError, StreamValueType, StreamWrap,
        TrackData,
    };

    /// `PARALLEL_TRACKS + 36` tracks of two linear pieces each, in every precision, some with
    /// an outside record.
    fn stream() -> Vec<u8> {
        let tracks: Vec<TrackData> = (0..PARALLEL_TRACKS as usize + 36)
            .map(|i| {
                let precision = [Precision::F32, Precision::F64, Precision::Fixed][i % 3];
                let numbers = |a: f64| match precision {
                    Precision::F32 => PieceNumbers::F32([a as f32, 0.5].to_vec()),
                    Precision::F64 => PieceNumbers::F64([a, 0.5].to_vec()),
                    Precision::Fixed => PieceNumbers::Fixed([(a * 4.0) as i64, 2].to_vec()),
                };
                let piece = |start: f64, a: f64| PieceData {
                    start,
                    origin: start,
                    degree: 1,
                    exponent: if precision == Precision::Fixed { 2 } else { 0 },
                    numbers: numbers(a),
                };
                let outside = (i % 7 == 3).then_some(Outside {
                    before: Beyond::Hold,
                    after: Beyond::Hold,
                });
                TrackData {
                    name: alloc::format!("t{i}"),
                    value_type: StreamValueType::Scalar,
                    wrap: StreamWrap::Clamp,
                    precision,
                    first_frame: 0.0,
                    last_frame: 8.0,
                    tolerance: 1e-3,
                    max_error: 0.0,
                    max_error_frame: 0.0,
                    end_value: [4.0, 0.0, 0.0, 0.0],
                    pieces: [piece(0.0, 0.0), piece(4.0, 2.0)].to_vec(),
                    outside,
                    normalize: false,
                }
            })
            .collect();
        write_stream(30.0, &tracks).unwrap()
    }

    /// `validate`'s loop over the tracks, one after another: the end and the frames replayed, or
    /// the first error.
    fn one_after_another(bytes: &[u8]) -> Result<(u64, u64), StreamError> {
        let count = u64::from(read_u32(bytes, H_TRACK_COUNT));
        let names = (
            u64::from(read_u32(bytes, H_NAMES_OFFSET)),
            read_u32(bytes, H_NAMES_LENGTH),
        );
        let body = bytes.len() as u64 - CHECKSUM_SIZE as u64;
        let mut cursor = names.0 + u64::from(names.1);
        let mut replayed = 0;
        for t in 0..count as u32 {
            cursor = validate_track_entry(bytes, t, names, (cursor, body, true), &mut replayed)?;
        }
        Ok((cursor, replayed))
    }

    fn across_threads(bytes: &[u8]) -> Option<(u64, u64)> {
        let count = u64::from(read_u32(bytes, H_TRACK_COUNT));
        let names = (
            u64::from(read_u32(bytes, H_NAMES_OFFSET)),
            read_u32(bytes, H_NAMES_LENGTH),
        );
        let body = bytes.len() as u64 - CHECKSUM_SIZE as u64;
        validate_tracks(bytes, count, names, names.0 + u64::from(names.1), body)
    }

    /// Across threads the tracks pass exactly when they pass one after another, with the same
    /// end: on a valid stream, and with each byte of the track table and the tracks' sections
    /// changed in turn (two ways), which also changes offsets, lengths, outside flags and
    /// records, so that later tracks' cursors move.
    #[test]
    fn tracks_pass_across_threads_exactly_when_they_pass_in_order() {
        let bytes = stream();
        let end = one_after_another(&bytes).unwrap();
        assert_eq!(across_threads(&bytes), Some(end));
        let names = usize::try_from(read_u32(&bytes, H_NAMES_OFFSET)).unwrap();
        let (mut refused, mut passed) = (0, 0);
        for at in (HEADER_SIZE..bytes.len() - CHECKSUM_SIZE).filter(|&at| at < names || at % 3 == 0)
        {
            for flip in [0x01u8, 0x80] {
                let mut changed = bytes.clone();
                changed[at] ^= flip;
                let expected = one_after_another(&changed);
                match across_threads(&changed) {
                    Some(end) => {
                        assert_eq!(expected, Ok(end), "byte {at} ^ {flip:#x}");
                        passed += 1;
                    }
                    None => {
                        assert!(expected.is_err(), "byte {at} ^ {flip:#x}: {expected:?}");
                        refused += 1;
                    }
                }
            }
        }
        assert!(
            refused > 1000 && passed > 1000,
            "{refused} refused, {passed} passed"
        );
    }
}
