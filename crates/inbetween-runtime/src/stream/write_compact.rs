//! Writing version 3's compact piece table: the start code a track's starts fit, checkpoints and entries.

use alloc::vec::Vec;

use super::compact::{
    self, StartCode, BLOCK, DEGREE_FLAG_ORIGIN, DEGREE_FLAG_WIDE, MAX_GRID_EXPONENT,
};
use super::write::{fit_u32, PieceData, TrackData};
use super::{Precision, StreamError};

/// Whether piece `i` of `track` is an f32 track's piece stored in f64.
pub(super) fn is_wide(track: &TrackData, piece: &PieceData) -> bool {
    track.precision == Precision::F32 && piece.numbers.precision() == Precision::F64
}

/// Where piece `i` of `track` ends: the next start, or the last frame.
fn end_of(track: &TrackData, i: usize) -> f64 {
    track
        .pieces
        .get(i + 1)
        .map_or(track.last_frame, |next| next.start)
}

/// Whether piece `i`'s origin must be stored: it is not the one the reader implies (same bits).
pub(super) fn stores_origin(track: &TrackData, i: usize) -> bool {
    track.pieces.get(i).is_some_and(|piece| {
        let implied = compact::implied_origin(piece.start, end_of(track, i));
        implied.to_bits() != piece.origin.to_bits()
    })
}

/// The first grid (smallest exponent, then narrowest step) on which the reader computes every
/// start to the same bits, else f64 starts.
pub(super) fn start_code(track: &TrackData) -> StartCode {
    (0..=MAX_GRID_EXPONENT)
        .find_map(|exponent| grid_width(track, exponent).map(|width| (exponent, width)))
        .map_or(StartCode::Float, |(exponent, width)| StartCode::Grid {
            exponent,
            width,
        })
}

/// The step width (1, 2 or 4 bytes) when every start is `first + G / 2^exponent` with
/// `0 = G_0 < G_1 < …` whole numbers up to u32::MAX, as the reader computes it.
fn grid_width(track: &TrackData, exponent: u8) -> Option<u8> {
    let probe = StartCode::Grid { exponent, width: 4 };
    let scale = (1u64 << exponent) as f64;
    let (mut previous, mut widest) = (0u64, 0u64);
    for (i, piece) in track.pieces.iter().enumerate() {
        let g = (piece.start - track.first_frame) * scale;
        if !(g >= 0.0 && g <= f64::from(u32::MAX) && crate::math::floor(g) == g) {
            return None;
        }
        let g = g as u64;
        let ordered = if i == 0 { g == 0 } else { g > previous };
        if !ordered || probe.grid_start(track.first_frame, g).to_bits() != piece.start.to_bits() {
            return None;
        }
        widest = widest.max(g - previous);
        previous = g;
    }
    Some(match widest {
        0..=0xFF => 1,
        0x100..=0xFFFF => 2,
        _ => 4,
    })
}

/// The checkpoints (grid index and data offset of every 16th piece) and the entries (start
/// field, degree byte, exponent on fixed tracks) of `track` with start code `code`.
pub(super) fn write_compact_table(
    out: &mut Vec<u8>,
    track: &TrackData,
    code: StartCode,
) -> Result<(), StreamError> {
    let scale = match code {
        StartCode::Grid { exponent, .. } => (1u64 << exponent) as f64,
        StartCode::Float => 0.0,
    };
    let grid = |piece: &PieceData| ((piece.start - track.first_frame) * scale) as u64;
    let mut offset = 0usize;
    let mut entries =
        Vec::with_capacity(track.pieces.len() * compact::entry_size(code, track.precision));
    for (i, piece) in track.pieces.iter().enumerate() {
        if i % BLOCK == 0 {
            out.extend_from_slice(
                &fit_u32("checkpoint grid index", grid(piece) as usize)?.to_le_bytes(),
            );
            out.extend_from_slice(&fit_u32("piece data offset", offset)?.to_le_bytes());
        }
        let previous = i
            .checked_sub(1)
            .and_then(|p| track.pieces.get(p))
            .map_or(0, grid);
        let step = grid(piece).saturating_sub(previous);
        match code {
            StartCode::Float => entries.extend_from_slice(&piece.start.to_le_bytes()),
            StartCode::Grid { width, .. } => {
                entries.extend_from_slice(&step.to_le_bytes()[..usize::from(width)]);
            }
        }
        let origin = stores_origin(track, i);
        let mut byte = piece.degree;
        if is_wide(track, piece) {
            byte |= DEGREE_FLAG_WIDE;
        }
        if origin {
            byte |= DEGREE_FLAG_ORIGIN;
        }
        entries.push(byte);
        if track.precision == Precision::Fixed {
            entries.extend_from_slice(&piece.exponent.to_le_bytes());
        } else if piece.exponent != 0 {
            // Float tracks store no exponent: refuse what version 1 would refuse.
            return Err(StreamError::BadNumber {
                track: None,
                piece: u32::try_from(i).ok(),
                field: "fixed exponent",
                found: f64::from(piece.exponent),
                expected: "0 for float precisions, -100..=120 for fixed",
            });
        }
        offset += usize::from(origin) * compact::ORIGIN_SIZE
            + piece.numbers.len() * piece.numbers.precision().number_size();
    }
    out.extend_from_slice(&entries);
    Ok(())
}
