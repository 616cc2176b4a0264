//! The one-time validation of a stream: every count, offset, size, code, number and the checksum.
//!
//! Nothing here allocates: every loop is bounded by a count that was first checked against the
//! actual byte length. With feature `rayon` the tracks of a stream of many tracks are validated
//! across threads first (`validate_parallel`, rayon's own bookkeeping aside), with the same result.

use super::bound::{bound_limit, fixed_fits, newton_bound, replay_range, MAX_FIXED_REPLAY_FRAMES};
use super::compact::{self, StartCode};
use super::layout::*;
use super::{Precision, StreamError, StreamValueType, StreamWrap};

/// Fails with `Truncated` unless `[start, start + size)` lies inside the first `limit` bytes.
pub(super) fn need(
    region: &'static str,
    start: u64,
    size: u64,
    limit: u64,
) -> Result<(), StreamError> {
    let end = start.saturating_add(size);
    if end > limit {
        return Err(StreamError::Truncated {
            region,
            needed: size,
            needed_end: end,
            available: limit,
        });
    }
    Ok(())
}

/// Fails with `LayoutMismatch` unless `found == expected`.
pub(super) fn layout(
    track: Option<u32>,
    piece: Option<u32>,
    field: &'static str,
    expected: u64,
    found: u64,
) -> Result<(), StreamError> {
    if expected != found {
        return Err(StreamError::LayoutMismatch {
            track,
            piece,
            field,
            expected,
            found,
        });
    }
    Ok(())
}

/// Fails with `BadNumber` unless `value` is finite.
pub(super) fn finite(
    track: Option<u32>,
    piece: Option<u32>,
    field: &'static str,
    value: f64,
) -> Result<(), StreamError> {
    if !value.is_finite() {
        return Err(StreamError::BadNumber {
            track,
            piece,
            field,
            found: value,
            expected: "a finite number",
        });
    }
    Ok(())
}

/// Validates the whole stream; returns the frames replayed for its fixed-point pieces
/// (`check_bounds`).
pub(super) fn validate(bytes: &[u8]) -> Result<u64, StreamError> {
    validate_with(bytes, None)
}

/// [`validate`], or with `pieces_known = Some(replayed)` everything but each track's pieces
/// (`validate_track_entry` without `check_pieces`), whose checks the caller knows pass with
/// `replayed` fixed-point frames in all (`join::join_validated`).
pub(super) fn validate_with(bytes: &[u8], pieces_known: Option<u64>) -> Result<u64, StreamError> {
    let len = bytes.len() as u64;
    need("header", 0, (HEADER_SIZE + CHECKSUM_SIZE) as u64, len)?;
    check_header(bytes, len)?;
    // Everything below must end before the checksum.
    let body = len - CHECKSUM_SIZE as u64;
    let track_count = u64::from(read_u32(bytes, H_TRACK_COUNT));
    need(
        "track table",
        HEADER_SIZE as u64,
        track_count.saturating_mul(TRACK_ENTRY_SIZE as u64),
        body,
    )?;
    let names_offset = u64::from(read_u32(bytes, H_NAMES_OFFSET));
    let names_expected = HEADER_SIZE as u64 + track_count * TRACK_ENTRY_SIZE as u64;
    layout(None, None, "names offset", names_expected, names_offset)?;
    let names_length = read_u32(bytes, H_NAMES_LENGTH);
    need("names area", names_offset, u64::from(names_length), body)?;

    let mut cursor = names_offset + u64::from(names_length);
    let names = (names_offset, names_length);
    // Many tracks: across threads first; the loop below when that does not pass them all.
    #[cfg(feature = "rayon")]
    let parallel = (pieces_known.is_none()
        && track_count >= super::validate_parallel::PARALLEL_TRACKS)
        .then(|| super::validate_parallel::validate_tracks(bytes, track_count, names, cursor, body))
        .flatten();
    #[cfg(not(feature = "rayon"))]
    let parallel = None;
    let replayed = if let Some((end, replayed)) = parallel {
        cursor = end;
        replayed
    } else {
        let mut replayed = pieces_known.unwrap_or(0);
        let check_pieces = pieces_known.is_none();
        for t in 0..track_count {
            // `t < track_count <= u32::MAX`.
            let track = u32::try_from(t).unwrap_or(u32::MAX);
            let at = (cursor, body, check_pieces);
            cursor = validate_track_entry(bytes, track, names, at, &mut replayed)?;
        }
        replayed
    };
    layout(None, None, "end of data (checksum offset)", body, cursor)?;

    let stored = read_u32(bytes, to_usize_u64(body));
    let computed = crc32fast::hash(bytes.get(..to_usize_u64(body)).unwrap_or(&[]));
    if stored != computed {
        return Err(StreamError::Checksum { stored, computed });
    }
    Ok(replayed)
}

/// The header's fixed fields: magic, byte order, a version this crate reads, the total length
/// (`len`, the stream's), flags 0 and a finite positive fps.
fn check_header(bytes: &[u8], len: u64) -> Result<(), StreamError> {
    let magic = [
        read_u8(bytes, 0),
        read_u8(bytes, 1),
        read_u8(bytes, 2),
        read_u8(bytes, 3),
    ];
    if magic != MAGIC {
        return Err(StreamError::BadMagic {
            found: magic,
            expected: MAGIC,
        });
    }
    let bom = read_u16(bytes, H_BYTE_ORDER);
    if bom != BYTE_ORDER_MARK {
        return Err(StreamError::ByteOrder { found: bom });
    }
    let version = read_u16(bytes, H_VERSION);
    if !(FORMAT_VERSION..=FORMAT_VERSION_COMPACT).contains(&version) {
        return Err(StreamError::UnsupportedVersion {
            found: version,
            supported: FORMAT_VERSION_COMPACT,
        });
    }
    let declared = read_u64(bytes, H_TOTAL_LENGTH);
    if declared != len {
        return Err(StreamError::LengthMismatch {
            declared,
            actual: len,
        });
    }
    let flags = read_u32(bytes, H_FLAGS);
    if flags != 0 {
        return Err(StreamError::ReservedNotZero {
            track: None,
            piece: None,
            field: "flags",
            found: u64::from(flags),
        });
    }
    let fps = read_f64(bytes, H_FPS);
    if !(fps.is_finite() && fps > 0.0) {
        return Err(StreamError::BadNumber {
            track: None,
            piece: None,
            field: "fps",
            found: fps,
            expected: "a finite positive number",
        });
    }
    Ok(())
}

/// `u64` to `usize`, saturating (offsets were checked against the slice length already).
pub(super) fn to_usize_u64(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

/// Validates track `track` whose piece table must start at `cursor`; returns the offset after
/// its numbers (and its outside record), in named steps: name, codes, reserved bytes, frames
/// and summary numbers, piece count, table and data location, each piece (unless not
/// `check_pieces`: then their numbers are taken to fill the data length), outside record.
pub(super) fn validate_track_entry(
    bytes: &[u8],
    track: u32,
    names: (u64, u32),
    (cursor, body, check_pieces): (u64, u64, bool),
    replayed: &mut u64,
) -> Result<u64, StreamError> {
    let entry = HEADER_SIZE + to_usize(track) * TRACK_ENTRY_SIZE;
    check_track_name(bytes, entry, track, names)?;
    let codes = track_codes(bytes, entry, track)?;
    // Versions 2 and 3: the first reserved byte says whether an outside record follows (0 or
    // 1), the second holds the track flags (bit 0: normalize); version 3: the last one is the
    // start code.
    let version = read_u16(bytes, H_VERSION);
    let version2 = version >= FORMAT_VERSION_OUTSIDE;
    let has_outside = version2 && read_u8(bytes, entry + T_OUTSIDE) == 1;
    let normalize = version2 && read_u8(bytes, entry + T_FLAGS) == TRACK_FLAG_NORMALIZE;
    let start_code = if version == FORMAT_VERSION_COMPACT {
        Some(start_code(bytes, entry, track)?)
    } else {
        None
    };
    check_track_reserved(
        bytes,
        entry,
        track,
        (has_outside, normalize, start_code.is_some()),
    )?;
    check_track_flags(bytes, entry, track, normalize)?;
    let (first, last) = track_numbers(bytes, entry, track, codes.components)?;
    let piece_count = read_u32(bytes, entry + T_PIECE_COUNT);
    check_piece_count(track, piece_count, first, last)?;
    let t = Some(track);
    let table = u64::from(read_u32(bytes, entry + T_PIECE_TABLE_OFFSET));
    layout(t, None, "piece table offset", cursor, table)?;
    let table_size = match start_code {
        Some(code) => {
            let count = u64::from(piece_count);
            let entries = compact::entry_size(code, codes.precision) as u64;
            count.div_ceil(compact::BLOCK as u64) * compact::CHECKPOINT_SIZE as u64
                + count * entries
        }
        None => u64::from(piece_count) * PIECE_ENTRY_SIZE as u64,
    };
    need("piece table", table, table_size, body)?;
    let data = u64::from(read_u32(bytes, entry + T_DATA_OFFSET));
    layout(t, None, "data offset", table + table_size, data)?;
    let data_length = u64::from(read_u32(bytes, entry + T_DATA_LENGTH));
    need("piece numbers", data, data_length, body)?;
    let pieces = PieceTable {
        bytes,
        track,
        codes: &codes,
        table,
        count: piece_count,
        data: (data, data_length),
        frames: (first, last),
    };
    let expected_data = match start_code {
        _ if !check_pieces => data_length,
        Some(_) => super::compact_check::validate_pieces(&pieces, replayed)?,
        None => {
            let mut expected_data = 0u64;
            for p in 0..piece_count {
                expected_data += pieces.validate_piece(p, expected_data, replayed)?;
            }
            expected_data
        }
    };
    layout(t, None, "data length", expected_data, data_length)?;
    let end = data + data_length;
    if !has_outside {
        return Ok(end);
    }
    check_outside_record(bytes, track, &codes, (first, last), end, body)
}

/// A version-3 track's start code (byte 15), known.
fn start_code(bytes: &[u8], entry: usize, track: u32) -> Result<StartCode, StreamError> {
    let found = read_u8(bytes, entry + T_START_CODE);
    StartCode::from_byte(found).ok_or(StreamError::UnknownCode {
        track,
        field: "start code",
        found,
        expected: "0 (f64 starts), or a grid: width code 1, 2, 3 in bits 0-1, exponent 0..=32 in bits 2-7",
    })
}

/// The codes of a track entry, checked.
pub(super) struct TrackCodes {
    pub(super) components: u8,
    pub(super) precision: Precision,
    wrap_code: u8,
    pub(super) max_degree: u8,
}

/// The track's name lies inside the names area and is UTF-8.
fn check_track_name(
    bytes: &[u8],
    entry: usize,
    track: u32,
    (names_offset, names_length): (u64, u32),
) -> Result<(), StreamError> {
    let name_offset = read_u32(bytes, entry + T_NAME_OFFSET);
    let name_length = read_u32(bytes, entry + T_NAME_LENGTH);
    if u64::from(name_offset) + u64::from(name_length) > u64::from(names_length) {
        return Err(StreamError::NameOutOfBounds {
            track,
            offset: name_offset,
            length: name_length,
            names_length,
        });
    }
    let name_start = to_usize_u64(names_offset + u64::from(name_offset));
    let name = bytes
        .get(name_start..name_start + to_usize(name_length))
        .unwrap_or(&[]);
    if core::str::from_utf8(name).is_err() {
        return Err(StreamError::NameNotUtf8 { track });
    }
    Ok(())
}

/// Value type, component count, precision, wrap and maximum degree: known codes that agree.
fn track_codes(bytes: &[u8], entry: usize, track: u32) -> Result<TrackCodes, StreamError> {
    let type_code = read_u8(bytes, entry + T_VALUE_TYPE);
    let Some(value_type) = StreamValueType::from_code(type_code) else {
        return Err(StreamError::UnknownCode {
            track,
            field: "value type",
            found: type_code,
            expected: "1 scalar, 2 vec2, 3 vec3, 4 vec4, 5 color, 6 quat",
        });
    };
    let components = read_u8(bytes, entry + T_COMPONENTS);
    let expected_components = value_type.components() as u8;
    if components != expected_components {
        return Err(StreamError::ComponentMismatch {
            track,
            components,
            expected: expected_components,
        });
    }
    let precision_code = read_u8(bytes, entry + T_PRECISION);
    let Some(precision) = Precision::from_code(precision_code) else {
        return Err(StreamError::UnknownCode {
            track,
            field: "precision",
            found: precision_code,
            expected: "1 f32, 2 f64, 3 fixed",
        });
    };
    let wrap_code = read_u8(bytes, entry + T_WRAP);
    if StreamWrap::from_code(wrap_code).is_none() {
        return Err(StreamError::UnknownCode {
            track,
            field: "wrap",
            found: wrap_code,
            expected: "0 clamp, 1 loop, 2 ping_pong",
        });
    }
    let max_degree = read_u8(bytes, entry + T_MAX_DEGREE);
    if usize::from(max_degree) > MAX_DEGREE {
        return Err(StreamError::DegreeTooHigh {
            track,
            piece: None,
            found: max_degree,
            max: MAX_DEGREE as u8,
        });
    }
    Ok(TrackCodes {
        components,
        precision,
        wrap_code,
        max_degree,
    })
}

/// The track entry's reserved bytes are 0 (in versions 2 and 3 the first one is the outside
/// flag and the second the track flags, bit 0 of which may be set; in version 3 the last one is
/// the start code).
fn check_track_reserved(
    bytes: &[u8],
    entry: usize,
    track: u32,
    (has_outside, normalize, compact): (bool, bool, bool),
) -> Result<(), StreamError> {
    for r in usize::from(has_outside)..3 - usize::from(compact) {
        if r == 1 && normalize {
            continue;
        }
        let found = read_u8(bytes, entry + T_RESERVED + r);
        if found != 0 {
            return Err(StreamError::ReservedNotZero {
                track: Some(track),
                piece: None,
                field: "track reserved bytes",
                found: u64::from(found),
            });
        }
    }
    Ok(())
}

/// The normalize flag (track flags bit 0, version 2) only on a quat track.
fn check_track_flags(
    bytes: &[u8],
    entry: usize,
    track: u32,
    normalize: bool,
) -> Result<(), StreamError> {
    let type_code = read_u8(bytes, entry + T_VALUE_TYPE);
    if normalize && StreamValueType::from_code(type_code) != Some(StreamValueType::Quat) {
        return Err(StreamError::UnknownCode {
            track,
            field: "value type (with the normalize flag)",
            found: type_code,
            expected: "6 quat",
        });
    }
    Ok(())
}

/// First and last frames (finite, in order), tolerance and max error (finite, ≥ 0), the max
/// error's frame and the end value (finite; unused components 0). Returns (first, last).
fn track_numbers(
    bytes: &[u8],
    entry: usize,
    track: u32,
    components: u8,
) -> Result<(f64, f64), StreamError> {
    let t = Some(track);
    let first = read_f64(bytes, entry + T_FIRST_FRAME);
    let last = read_f64(bytes, entry + T_LAST_FRAME);
    finite(t, None, "first frame", first)?;
    finite(t, None, "last frame", last)?;
    if last < first {
        return Err(StreamError::BadNumber {
            track: t,
            piece: None,
            field: "last frame",
            found: last,
            expected: "a frame not before the first frame",
        });
    }
    for (field, offset) in [("tolerance", T_TOLERANCE), ("max error", T_MAX_ERROR)] {
        let value = read_f64(bytes, entry + offset);
        if !(value.is_finite() && value >= 0.0) {
            return Err(StreamError::BadNumber {
                track: t,
                piece: None,
                field,
                found: value,
                expected: "a finite number ≥ 0",
            });
        }
    }
    finite(
        t,
        None,
        "max error frame",
        read_f64(bytes, entry + T_MAX_ERROR_FRAME),
    )?;
    for c in 0..MAX_COMPONENTS {
        let value = read_f64(bytes, entry + T_END_VALUE + 8 * c);
        finite(t, None, "end value", value)?;
        if c >= usize::from(components) && value != 0.0 {
            return Err(StreamError::BadNumber {
                track: t,
                piece: None,
                field: "end value (unused component)",
                found: value,
                expected: "0",
            });
        }
    }
    Ok((first, last))
}

/// A constant track (first = last) has no pieces; any other at least one.
fn check_piece_count(track: u32, count: u32, first: f64, last: f64) -> Result<(), StreamError> {
    let constant = first == last;
    if (count == 0) == constant {
        return Ok(());
    }
    Err(StreamError::PieceCount {
        track,
        found: count,
        first_frame: first,
        last_frame: last,
        expected: if constant {
            "0 (a constant track)"
        } else {
            "at least 1"
        },
    })
}

/// A track's piece table and numbers, located and bounded by the steps before.
pub(super) struct PieceTable<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) track: u32,
    pub(super) codes: &'a TrackCodes,
    /// Offset of the piece table.
    pub(super) table: u64,
    pub(super) count: u32,
    /// Offset and length of the numbers.
    pub(super) data: (u64, u64),
    /// The track's first and last frames.
    pub(super) frames: (f64, f64),
}

impl PieceTable<'_> {
    /// Validates piece `p`, whose numbers must start `expected_data` bytes into the data;
    /// returns their size.
    fn validate_piece(
        &self,
        p: u32,
        expected_data: u64,
        replayed: &mut u64,
    ) -> Result<u64, StreamError> {
        let (track, bytes) = (self.track, self.bytes);
        let (t, pi) = (Some(track), Some(p));
        let pe = to_usize_u64(self.table) + to_usize(p) * PIECE_ENTRY_SIZE;
        let (start, end, origin) = self.piece_frames(p, pe)?;
        let degree = read_u8(bytes, pe + P_DEGREE);
        self.check_degree(p, degree)?;
        let (exponent, wide) = self.piece_codes(p, pe)?;
        let offset = u64::from(read_u32(bytes, pe + P_DATA_OFFSET));
        layout(t, pi, "piece data offset", expected_data, offset)?;
        let shape = PieceShape {
            degree,
            exponent,
            wide,
        };
        self.check_numbers(
            p,
            self.data.0 + offset,
            shape,
            (start, end, origin),
            replayed,
        )
    }

    /// Piece `p`'s degree is at most the track's maximum.
    pub(super) fn check_degree(&self, p: u32, degree: u8) -> Result<(), StreamError> {
        if degree > self.codes.max_degree {
            return Err(StreamError::DegreeTooHigh {
                track: self.track,
                piece: Some(p),
                found: degree,
                max: self.codes.max_degree,
            });
        }
        Ok(())
    }

    /// Piece `p`'s numbers, at absolute offset `at`, lie inside the track's numbers, are
    /// finite (float precisions) and bounded (`check_bounds`). Returns their size.
    pub(super) fn check_numbers(
        &self,
        p: u32,
        at: u64,
        PieceShape {
            degree,
            exponent,
            wide,
        }: PieceShape,
        (start, end, origin): (f64, f64, f64),
        replayed: &mut u64,
    ) -> Result<u64, StreamError> {
        let (track, bytes) = (self.track, self.bytes);
        let (t, pi) = (Some(track), Some(p));
        let (data, data_length) = self.data;
        let precision = self.codes.precision;
        let count = (u64::from(degree) + 1) * u64::from(self.codes.components);
        let number_size = if wide {
            8
        } else {
            precision.number_size() as u64
        };
        let size = count * number_size;
        need("piece numbers", at, size, data + data_length)?;
        let numbers = PieceAt {
            bytes,
            at: to_usize_u64(at),
            size: to_usize_u64(number_size),
            precision: if wide { Precision::F64 } else { precision },
            exponent,
            terms: usize::from(degree) + 1,
        };
        if precision != Precision::Fixed {
            for k in 0..to_usize_u64(count) {
                finite(t, pi, "difference", numbers.float(k))?;
            }
        }
        // Unless `end` lies in `(start, last]`, the next piece's order checks fail: leave the
        // error to them.
        if end > start && end <= self.frames.1 {
            let components = usize::from(self.codes.components);
            check_bounds(
                &numbers,
                components,
                (start, end, origin),
                (track, p),
                replayed,
            )?;
        }
        Ok(size)
    }

    /// Piece `p`'s start (finite; the first at the track's first frame, then increasing, all
    /// before its last frame), its end (the next start, or the last frame) and its origin
    /// (within the piece).
    fn piece_frames(&self, p: u32, pe: usize) -> Result<(f64, f64, f64), StreamError> {
        let bytes = self.bytes;
        let last = self.frames.1;
        let (t, pi) = (Some(self.track), Some(p));
        let start = read_f64(bytes, pe + P_START);
        let origin = read_f64(bytes, pe + P_ORIGIN);
        finite(t, pi, "piece start", start)?;
        finite(t, pi, "piece origin", origin)?;
        let previous = (p > 0).then(|| read_f64(bytes, pe - PIECE_ENTRY_SIZE + P_START));
        self.check_start(p, start, previous)?;
        let end = if p + 1 < self.count {
            read_f64(bytes, pe + PIECE_ENTRY_SIZE + P_START)
        } else {
            last
        };
        self.check_origin(p, origin, start, end)?;
        Ok((start, end, origin))
    }

    /// Piece `p`'s start: the track's first frame for piece 0, then after the `previous`
    /// piece's start, and before the last frame (`start` is finite).
    pub(super) fn check_start(
        &self,
        p: u32,
        start: f64,
        previous: Option<f64>,
    ) -> Result<(), StreamError> {
        let (first, last) = self.frames;
        let order = |expected| StreamError::PieceOrder {
            track: self.track,
            piece: p,
            start,
            expected,
        };
        if p == 0 && start != first {
            return Err(order("the track's first frame"));
        }
        if previous.is_some_and(|previous| start <= previous) {
            return Err(order("a frame after the previous piece's start"));
        }
        if start >= last {
            return Err(order("a frame before the track's last frame"));
        }
        Ok(())
    }

    /// Piece `p`'s origin lies in `[start, end]` (`end` is validated as the next start; a
    /// non-finite end fails there).
    pub(super) fn check_origin(
        &self,
        p: u32,
        origin: f64,
        start: f64,
        end: f64,
    ) -> Result<(), StreamError> {
        if !(origin >= start && (origin <= end || !end.is_finite())) {
            return Err(StreamError::BadNumber {
                track: Some(self.track),
                piece: Some(p),
                field: "piece origin",
                found: origin,
                expected: "a frame within the piece",
            });
        }
        Ok(())
    }

    /// Piece `p`'s fixed exponent (0 for floats, in range for fixed), its flags (only `wide`,
    /// on f32 tracks) and reserved byte (0). Returns (exponent, wide).
    fn piece_codes(&self, p: u32, pe: usize) -> Result<(i8, bool), StreamError> {
        let bytes = self.bytes;
        let (t, pi) = (Some(self.track), Some(p));
        let precision = self.codes.precision;
        let exponent = read_i8(bytes, pe + P_EXPONENT);
        self.check_exponent(p, exponent)?;
        let flags = read_u8(bytes, pe + P_FLAGS);
        let wide = flags == PIECE_FLAG_WIDE;
        if !(flags == 0 || (wide && precision == Precision::F32)) {
            return Err(StreamError::ReservedNotZero {
                track: t,
                piece: pi,
                field: "piece flags (only bit 0, wide, on f32 tracks)",
                found: u64::from(flags),
            });
        }
        let reserved = read_u8(bytes, pe + P_RESERVED);
        if reserved != 0 {
            return Err(StreamError::ReservedNotZero {
                track: t,
                piece: pi,
                field: "piece reserved bytes",
                found: u64::from(reserved),
            });
        }
        Ok((exponent, wide))
    }

    /// Piece `p`'s fixed exponent: in range on fixed tracks, 0 on float ones.
    pub(super) fn check_exponent(&self, p: u32, exponent: i8) -> Result<(), StreamError> {
        let exponent_ok = match self.codes.precision {
            Precision::Fixed => {
                (FIXED_EXPONENT_RANGE.0..=FIXED_EXPONENT_RANGE.1).contains(&exponent)
            }
            _ => exponent == 0,
        };
        if !exponent_ok {
            return Err(StreamError::BadNumber {
                track: Some(self.track),
                piece: Some(p),
                field: "fixed exponent",
                found: f64::from(exponent),
                expected: "0 for float precisions, -100..=120 for fixed",
            });
        }
        Ok(())
    }
}

/// A version-2 track's outside record: only on `clamp` tracks, inside the body, valid
/// (`outside::check`). Returns the offset after it.
fn check_outside_record(
    bytes: &[u8],
    track: u32,
    codes: &TrackCodes,
    range: (f64, f64),
    end: u64,
    body: u64,
) -> Result<u64, StreamError> {
    if codes.wrap_code != StreamWrap::Clamp.code() {
        return Err(StreamError::UnknownCode {
            track,
            field: "wrap (with an outside record)",
            found: codes.wrap_code,
            expected: "0 clamp",
        });
    }
    let size = super::outside::OUTSIDE_RECORD_SIZE as u64;
    need("outside record", end, size, body)?;
    super::outside::check(
        bytes,
        to_usize_u64(end),
        track,
        range,
        usize::from(codes.components),
    )?;
    Ok(end + size)
}

/// What a piece's numbers are: degree, fixed exponent, stored as f64 on an f32 track.
#[derive(Clone, Copy)]
pub(super) struct PieceShape {
    pub(super) degree: u8,
    pub(super) exponent: i8,
    pub(super) wide: bool,
}

/// The stored numbers of one piece, read in place.
struct PieceAt<'a> {
    bytes: &'a [u8],
    at: usize,
    size: usize,
    precision: Precision,
    exponent: i8,
    terms: usize,
}

impl PieceAt<'_> {
    /// Number `index` as the player's float path reads it.
    fn float(&self, index: usize) -> f64 {
        let at = self.at + index * self.size;
        match self.precision {
            Precision::F32 => f64::from(read_f32(self.bytes, at)),
            Precision::F64 => read_f64(self.bytes, at),
            Precision::Fixed => {
                (read_i64(self.bytes, at) as f64)
                    * crate::math::powi(2.0, -i32::from(self.exponent))
            }
        }
    }
}

/// Refuses a piece whose values the player could compute beyond f64 (`PieceUnbounded`) or,
/// for fixed point, whose integer state leaves i64 (`FixedOverflow`); see `stream::bound`.
fn check_bounds(
    numbers: &PieceAt<'_>,
    components: usize,
    (start, end, origin): (f64, f64, f64),
    (track, piece): (u32, u32),
    replayed: &mut u64,
) -> Result<(), StreamError> {
    let terms = numbers.terms.min(MAX_TERMS);
    let length = end - start;
    let limit = bound_limit(terms - 1);
    for c in 0..components {
        let mut d = [0.0; MAX_TERMS];
        for (k, slot) in d.iter_mut().enumerate().take(terms) {
            *slot = numbers.float(c * numbers.terms + k);
        }
        let bound = newton_bound(&d[..terms], length);
        // `newton_bound` is never NaN (an overflow is ∞).
        if bound > limit {
            return Err(StreamError::PieceUnbounded {
                track,
                piece,
                length,
                bound,
                limit,
            });
        }
    }
    // A constant piece's integer state never changes: nothing to replay.
    if numbers.precision != Precision::Fixed || terms == 1 {
        return Ok(());
    }
    let (low, high) = replay_range(start, end, origin, terms - 1);
    // Both are whole; a piece whose differences are all zero passes the bound above at any
    // length, so the count saturates (a length beyond u64 is then refused just below).
    let frames = ((high - low) as u64).saturating_add(1);
    *replayed = replayed.saturating_add(frames);
    if *replayed > MAX_FIXED_REPLAY_FRAMES {
        return Err(StreamError::FixedReplayTooLong {
            track,
            piece,
            frames: *replayed,
            max: MAX_FIXED_REPLAY_FRAMES,
        });
    }
    for c in 0..components {
        let mut stored = [0i64; MAX_TERMS];
        for (k, slot) in stored.iter_mut().enumerate().take(terms) {
            *slot = read_i64(
                numbers.bytes,
                numbers.at + (c * numbers.terms + k) * numbers.size,
            );
        }
        fixed_fits(&stored[..terms], low as i64, high as i64).map_err(|offset| {
            StreamError::FixedOverflow {
                track,
                piece,
                component: c as u32,
                offset,
            }
        })?;
    }
    Ok(())
}
