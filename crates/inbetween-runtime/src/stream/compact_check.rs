//! Validation of a version-3 compact piece table: checkpoints, start steps, degree bytes, origins, then the shared number checks.
//!
//! The walk here is the reader's own (`CompactTable::next`, `start`, `end`, `size`), so what is
//! checked is what `StreamTrack::piece` returns; every checkpoint must equal the running sums.

use super::compact::{
    CompactTable, Walk, BLOCK, DEGREE_FLAG_ORIGIN, DEGREE_FLAG_WIDE, DEGREE_MASK, ORIGIN_SIZE,
};
use super::layout::*;
use super::validate::{finite, layout, need, to_usize_u64, PieceShape, PieceTable};
use super::{Precision, StreamError};

/// Validates every piece of a version-3 track whose table and numbers `pieces` located (the
/// whole table was checked to fit, the start code is known); returns the length its numbers
/// must have.
pub(super) fn validate_pieces(
    pieces: &PieceTable<'_>,
    replayed: &mut u64,
) -> Result<u64, StreamError> {
    let entry = HEADER_SIZE + to_usize(pieces.track) * TRACK_ENTRY_SIZE;
    // The entry's fields were validated before the pieces (codes, frames, offsets).
    let Some(compact) = CompactTable::new(pieces.bytes, entry) else {
        return Ok(0);
    };
    let mut walk = Walk {
        index: 0,
        grid: 0,
        offset: 0,
    };
    let mut previous = None;
    for p in 0..pieces.count {
        if p > 0 {
            walk = compact.next(walk);
        }
        check_walk(pieces, &compact, walk)?;
        let start = compact.start(walk);
        validate_piece(pieces, &compact, walk, previous, replayed)?;
        previous = Some(start);
    }
    if pieces.count == 0 {
        return Ok(0);
    }
    Ok(walk.offset.saturating_add(compact.size(walk.index)))
}

/// At a block's first piece, the checkpoint equals the running grid index and data offset;
/// piece 0's start step is 0.
fn check_walk(
    pieces: &PieceTable<'_>,
    compact: &CompactTable<'_>,
    walk: Walk,
) -> Result<(), StreamError> {
    let (t, pi) = (Some(pieces.track), u32::try_from(walk.index).ok());
    if walk.index == 0 {
        layout(t, pi, "piece start step", 0, compact.step(0))?;
    }
    if walk.index % BLOCK != 0 {
        return Ok(());
    }
    let (grid, offset) = compact.checkpoint(walk.index / BLOCK);
    layout(t, pi, "checkpoint grid index", walk.grid, u64::from(grid))?;
    layout(
        t,
        pi,
        "checkpoint data offset",
        walk.offset,
        u64::from(offset),
    )
}

/// Piece `walk.index`: its start (finite, in order), degree byte (known bits, degree within the
/// track's, wide only on f32 tracks), exponent, origin (stored: finite, within the piece), and
/// its numbers (the shared checks).
fn validate_piece(
    pieces: &PieceTable<'_>,
    compact: &CompactTable<'_>,
    walk: Walk,
    previous: Option<f64>,
    replayed: &mut u64,
) -> Result<(), StreamError> {
    let p = u32::try_from(walk.index).unwrap_or(u32::MAX);
    let (t, pi) = (Some(pieces.track), Some(p));
    let start = compact.start(walk);
    finite(t, pi, "piece start", start)?;
    pieces.check_start(p, start, previous)?;
    let byte = compact.degree_byte(walk.index);
    let known = DEGREE_MASK | DEGREE_FLAG_ORIGIN | DEGREE_FLAG_WIDE;
    let wide = byte & DEGREE_FLAG_WIDE != 0;
    if byte & !known != 0 || (wide && pieces.codes.precision != Precision::F32) {
        return Err(StreamError::ReservedNotZero {
            track: t,
            piece: pi,
            field: "degree byte flags (bit 4 wide on f32 tracks, bit 5 stored origin)",
            found: u64::from(byte & !DEGREE_MASK),
        });
    }
    let degree = byte & DEGREE_MASK;
    pieces.check_degree(p, degree)?;
    let exponent = compact.exponent(walk.index);
    pieces.check_exponent(p, exponent)?;
    let (data, data_length) = pieces.data;
    let mut at = data.saturating_add(walk.offset);
    let end = compact.end(walk);
    let origin = if byte & DEGREE_FLAG_ORIGIN != 0 {
        need("piece origin", at, ORIGIN_SIZE as u64, data + data_length)?;
        let origin = read_f64(pieces.bytes, to_usize_u64(at));
        finite(t, pi, "piece origin", origin)?;
        at += ORIGIN_SIZE as u64;
        origin
    } else {
        super::compact::implied_origin(start, end)
    };
    pieces.check_origin(p, origin, start, end)?;
    let shape = PieceShape {
        degree,
        exponent,
        wide,
    };
    pieces.check_numbers(p, at, shape, (start, end, origin), replayed)?;
    Ok(())
}
