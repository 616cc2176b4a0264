//! Byte offsets and sizes of the `.ibs` layout (all little-endian), shared by the reader and the writer.

/// The four bytes every stream starts with.
pub const MAGIC: [u8; 4] = *b"IBS\x1a";
/// The format version this crate writes for streams without outside records (and reads).
pub const FORMAT_VERSION: u16 = 1;
/// The format version of a stream with one or more outside records (`stream::outside`); this
/// crate reads versions 1 and 2 and writes 2 only when a track needs a record.
pub const FORMAT_VERSION_OUTSIDE: u16 = 2;
/// The format version of a stream with the compact piece table (`stream::compact`), which
/// this crate writes by default; versions 1 and 2 are still read (and written on request).
pub const FORMAT_VERSION_COMPACT: u16 = 3;
/// Byte-order mark: the u16 0xFEFF written little-endian (bytes `FF FE`).
pub const BYTE_ORDER_MARK: u16 = 0xFEFF;
/// The highest degree a piece may have.
pub const MAX_DEGREE: usize = 8;
/// The most components a track value has.
pub const MAX_COMPONENTS: usize = 4;
/// Numbers per component of a piece of the highest degree (value, Δ1..Δ8).
pub const MAX_TERMS: usize = MAX_DEGREE + 1;
/// Smallest and largest scale exponent of a fixed-point piece (value = integer · 2^-exponent).
pub const FIXED_EXPONENT_RANGE: (i8, i8) = (-100, 120);

/// Size of the header.
pub const HEADER_SIZE: usize = 40;
/// Size of one track-table entry.
pub const TRACK_ENTRY_SIZE: usize = 104;
/// Size of one piece-table entry.
pub const PIECE_ENTRY_SIZE: usize = 24;
/// Size of the trailing checksum.
pub const CHECKSUM_SIZE: usize = 4;

/// Header: magic bytes (4).
pub const H_MAGIC: usize = 0;
/// Header: format version (u16).
pub const H_VERSION: usize = 4;
/// Header: byte-order mark (u16).
pub const H_BYTE_ORDER: usize = 6;
/// Header: flags, reserved, 0 (u32).
pub const H_FLAGS: usize = 8;
/// Header: number of tracks (u32).
pub const H_TRACK_COUNT: usize = 12;
/// Header: frames per second (f64).
pub const H_FPS: usize = 16;
/// Header: total stream length in bytes, checksum included (u64).
pub const H_TOTAL_LENGTH: usize = 24;
/// Header: absolute offset of the names area (u32).
pub const H_NAMES_OFFSET: usize = 32;
/// Header: length of the names area (u32).
pub const H_NAMES_LENGTH: usize = 36;

/// Track entry: name offset within the names area (u32).
pub const T_NAME_OFFSET: usize = 0;
/// Track entry: name length in bytes (u32).
pub const T_NAME_LENGTH: usize = 4;
/// Track entry: value type code (u8).
pub const T_VALUE_TYPE: usize = 8;
/// Track entry: component count (u8).
pub const T_COMPONENTS: usize = 9;
/// Track entry: precision code (u8).
pub const T_PRECISION: usize = 10;
/// Track entry: wrap code (u8).
pub const T_WRAP: usize = 11;
/// Track entry: highest piece degree (u8).
pub const T_MAX_DEGREE: usize = 12;
/// Track entry: 3 reserved bytes, 0 (in version 2 the first is [`T_OUTSIDE`]).
pub const T_RESERVED: usize = 13;
/// Track entry, version 2: 1 when an outside record follows the track's numbers, else 0 (u8).
pub const T_OUTSIDE: usize = 13;
/// Track entry, version 2 and later: track flags (u8), bit 0 [`TRACK_FLAG_NORMALIZE`].
pub const T_FLAGS: usize = 14;
/// Track flag, bit 0: the player normalizes the value (quat tracks only).
pub const TRACK_FLAG_NORMALIZE: u8 = 1;
/// Track entry, version 3: how piece starts are stored (`compact::StartCode`, u8).
pub const T_START_CODE: usize = 15;
/// Track entry: number of pieces (u32).
pub const T_PIECE_COUNT: usize = 16;
/// Track entry: absolute offset of the piece table (u32).
pub const T_PIECE_TABLE_OFFSET: usize = 20;
/// Track entry: absolute offset of the piece numbers (u32).
pub const T_DATA_OFFSET: usize = 24;
/// Track entry: length of the piece numbers in bytes (u32).
pub const T_DATA_LENGTH: usize = 28;
/// Track entry: first key frame (f64).
pub const T_FIRST_FRAME: usize = 32;
/// Track entry: last key frame (f64).
pub const T_LAST_FRAME: usize = 40;
/// Track entry: tolerance compiled for (f64).
pub const T_TOLERANCE: usize = 48;
/// Track entry: largest measured error (f64).
pub const T_MAX_ERROR: usize = 56;
/// Track entry: frame of the largest measured error (f64).
pub const T_MAX_ERROR_FRAME: usize = 64;
/// Track entry: value at the last frame, 4 × f64 (unused components 0).
pub const T_END_VALUE: usize = 72;

/// Piece entry: start frame (f64).
pub const P_START: usize = 0;
/// Piece entry: origin frame of the differences (f64).
pub const P_ORIGIN: usize = 8;
/// Piece entry: offset of its numbers within the track's numbers (u32).
pub const P_DATA_OFFSET: usize = 16;
/// Piece entry: degree (u8).
pub const P_DEGREE: usize = 20;
/// Piece entry: fixed-point exponent (i8).
pub const P_EXPONENT: usize = 21;
/// Piece entry: flags (u8; bit 0 = wide).
pub const P_FLAGS: usize = 22;
/// Piece entry: 1 reserved byte, 0.
pub const P_RESERVED: usize = 23;

/// Piece flag: the numbers of this piece of an f32 track are stored as f64 (a piece shorter
/// than a frame whose unit-step differences f32 cannot hold within tolerance).
pub const PIECE_FLAG_WIDE: u8 = 1;

/// Reads `N` bytes at `offset`, or zeros when out of range (never after validation).
#[inline]
fn bytes_at<const N: usize>(bytes: &[u8], offset: usize) -> [u8; N] {
    offset
        .checked_add(N)
        .and_then(|end| bytes.get(offset..end))
        .and_then(|slice| <[u8; N]>::try_from(slice).ok())
        .unwrap_or([0; N])
}

/// Little-endian u8 at `offset` (0 when out of range).
#[inline]
pub fn read_u8(bytes: &[u8], offset: usize) -> u8 {
    bytes.get(offset).copied().unwrap_or(0)
}

/// Little-endian i8 at `offset` (0 when out of range).
#[inline]
pub fn read_i8(bytes: &[u8], offset: usize) -> i8 {
    i8::from_le_bytes(bytes_at::<1>(bytes, offset))
}

/// Little-endian u16 at `offset` (0 when out of range).
#[inline]
pub fn read_u16(bytes: &[u8], offset: usize) -> u16 {
    u16::from_le_bytes(bytes_at(bytes, offset))
}

/// Little-endian u32 at `offset` (0 when out of range).
#[inline]
pub fn read_u32(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(bytes_at(bytes, offset))
}

/// Little-endian u64 at `offset` (0 when out of range).
#[inline]
pub fn read_u64(bytes: &[u8], offset: usize) -> u64 {
    u64::from_le_bytes(bytes_at(bytes, offset))
}

/// Little-endian i64 at `offset` (0 when out of range).
#[inline]
pub fn read_i64(bytes: &[u8], offset: usize) -> i64 {
    i64::from_le_bytes(bytes_at(bytes, offset))
}

/// Little-endian f32 at `offset` (0 when out of range).
#[inline]
pub fn read_f32(bytes: &[u8], offset: usize) -> f32 {
    f32::from_le_bytes(bytes_at(bytes, offset))
}

/// Little-endian f64 at `offset` (0 when out of range).
#[inline]
pub fn read_f64(bytes: &[u8], offset: usize) -> f64 {
    f64::from_le_bytes(bytes_at(bytes, offset))
}

/// `u32` widened to `usize` (saturating on 16-bit targets).
#[inline]
pub fn to_usize(value: u32) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}
