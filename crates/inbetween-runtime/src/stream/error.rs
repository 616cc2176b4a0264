//! Why a stream was refused: typed errors that name the track, piece and field.

/// A stream that `Stream::from_bytes` refuses. Tracks and pieces are 0-based indices.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StreamError {
    /// Fewer bytes than a region needs.
    #[error("stream truncated: the {region} needs {needed} bytes up to offset {needed_end}, but the stream has {available}")]
    Truncated {
        /// What was being read (header, track table, piece table of a track, ...).
        region: &'static str,
        /// Bytes the region needs.
        needed: u64,
        /// Offset where the region would end.
        needed_end: u64,
        /// Bytes in the stream.
        available: u64,
    },
    /// The first four bytes are not `IBS\x1a`.
    #[error("not an inbetween stream: magic bytes {found:02x?}, expected {expected:02x?}")]
    BadMagic {
        /// The bytes found.
        found: [u8; 4],
        /// The bytes expected.
        expected: [u8; 4],
    },
    /// A version this crate does not read.
    #[error("unsupported stream version {found}, this build reads version {supported}")]
    UnsupportedVersion {
        /// Version in the stream.
        found: u16,
        /// Version this build reads.
        supported: u16,
    },
    /// The byte-order mark is not 0xFEFF read little-endian.
    #[error("byte-order mark reads 0x{found:04x}, expected 0xfeff (the stream is little-endian; 0xfffe means it was byte-swapped)")]
    ByteOrder {
        /// The mark as read.
        found: u16,
    },
    /// The length in the header is not the stream's length.
    #[error("header declares {declared} bytes but the stream has {actual}")]
    LengthMismatch {
        /// Length declared in the header.
        declared: u64,
        /// Actual length.
        actual: u64,
    },
    /// A reserved field or flag is not zero.
    #[error("{}reserved field `{field}` is {found}, expected 0", location(*track, *piece))]
    ReservedNotZero {
        /// Track, if the field is in the track table or a piece.
        track: Option<u32>,
        /// Piece, if the field is in a piece table.
        piece: Option<u32>,
        /// Field name.
        field: &'static str,
        /// Value found.
        found: u64,
    },
    /// A number is not finite or out of its allowed range.
    #[error("{}field `{field}` is {found}, expected {expected}", location(*track, *piece))]
    BadNumber {
        /// Track, if any.
        track: Option<u32>,
        /// Piece, if any.
        piece: Option<u32>,
        /// Field name.
        field: &'static str,
        /// Value found.
        found: f64,
        /// What was expected.
        expected: &'static str,
    },
    /// An offset or length differs from where the layout puts that region.
    #[error("{}field `{field}` is {found}, expected {expected}", location(*track, *piece))]
    LayoutMismatch {
        /// Track, if any.
        track: Option<u32>,
        /// Piece, if any.
        piece: Option<u32>,
        /// Field name.
        field: &'static str,
        /// Value expected from the layout.
        expected: u64,
        /// Value found.
        found: u64,
    },
    /// A track's name lies outside the names area.
    #[error("track {track}: name at {offset}+{length} lies outside the names area of {names_length} bytes")]
    NameOutOfBounds {
        /// Track.
        track: u32,
        /// Offset in the names area.
        offset: u32,
        /// Length in bytes.
        length: u32,
        /// Size of the names area.
        names_length: u32,
    },
    /// A track's name is not UTF-8.
    #[error("track {track}: name is not valid UTF-8")]
    NameNotUtf8 {
        /// Track.
        track: u32,
    },
    /// An enum code that means nothing.
    #[error("track {track}: unknown {field} code {found} (expected one of {expected})")]
    UnknownCode {
        /// Track.
        track: u32,
        /// Field name (value type, precision, wrap).
        field: &'static str,
        /// Code found.
        found: u8,
        /// The codes allowed.
        expected: &'static str,
    },
    /// The component count disagrees with the value type.
    #[error("track {track}: {components} components, but its value type needs {expected}")]
    ComponentMismatch {
        /// Track.
        track: u32,
        /// Components found.
        components: u8,
        /// Components the value type has.
        expected: u8,
    },
    /// A degree beyond the maximum (the format's or the track's own).
    #[error("{}degree {found} exceeds the maximum {max}", location(Some(*track), *piece))]
    DegreeTooHigh {
        /// Track.
        track: u32,
        /// Piece, or `None` for the track's declared maximum.
        piece: Option<u32>,
        /// Degree found.
        found: u8,
        /// Maximum allowed.
        max: u8,
    },
    /// The pieces do not tile `[first_frame, last_frame)` in increasing order.
    #[error("track {track} piece {piece}: starts at frame {start}, expected {expected}")]
    PieceOrder {
        /// Track.
        track: u32,
        /// Piece.
        piece: u32,
        /// Its start frame.
        start: f64,
        /// What the start must satisfy.
        expected: &'static str,
    },
    /// The number of pieces does not fit the track's frame range.
    #[error(
        "track {track}: {found} pieces for frames {first_frame}..{last_frame}, expected {expected}"
    )]
    PieceCount {
        /// Track.
        track: u32,
        /// Pieces found.
        found: u32,
        /// First frame.
        first_frame: f64,
        /// Last frame.
        last_frame: f64,
        /// What was expected.
        expected: &'static str,
    },
    /// A piece's differences could make the player compute a value beyond f64 (see
    /// `validate::newton_bound`): `bound` = Σ_k |D_k| · C(X + k, k), X = (degree + 1)(length + 2).
    #[error("track {track} piece {piece}: its differences bound its values over its {length} frames (at every position and playback rate) by {bound:e}, beyond {limit:e}; a valid stream plays only finite values")]
    PieceUnbounded {
        /// Track.
        track: u32,
        /// Piece.
        piece: u32,
        /// Its length in frames.
        length: f64,
        /// The bound computed (may be ∞).
        bound: f64,
        /// The largest bound allowed.
        limit: f64,
    },
    /// A fixed-point piece's integer state leaves i64 at a whole frame it can be played at.
    #[error("track {track} piece {piece}: component {component}'s integer state overflows i64 {offset} frames from the piece's origin, inside the frames it plays")]
    FixedOverflow {
        /// Track.
        track: u32,
        /// Piece.
        piece: u32,
        /// Component.
        component: u32,
        /// Whole frames from the origin (negative: before it).
        offset: i64,
    },
    /// Checking the fixed-point pieces' integer states would replay more frames than
    /// `bound::MAX_FIXED_REPLAY_FRAMES`.
    #[error("track {track} piece {piece}: proving the fixed-point state fits i64 would replay {frames} frames in all, more than the limit of {max} (docs/limits.md)")]
    FixedReplayTooLong {
        /// Track.
        track: u32,
        /// Piece.
        piece: u32,
        /// Frames counted up to this piece.
        frames: u64,
        /// The limit.
        max: u64,
    },
    /// The CRC-32 of the bytes before it differs from the stored one.
    #[error("checksum mismatch: stored 0x{stored:08x}, computed 0x{computed:08x} (the stream is corrupted)")]
    Checksum {
        /// Value stored in the stream.
        stored: u32,
        /// Value computed over the stream.
        computed: u32,
    },
    /// The writer was given more than the format can hold.
    #[error("cannot write the stream: {what} ({found}) exceeds the format's limit {limit}")]
    TooLarge {
        /// What is too large.
        what: &'static str,
        /// Size found.
        found: u64,
        /// Limit.
        limit: u64,
    },
}

/// "track T piece P: " prefix of a message.
fn location(track: Option<u32>, piece: Option<u32>) -> LocationPrefix {
    LocationPrefix { track, piece }
}

/// Displays "track T piece P: " (or less).
struct LocationPrefix {
    track: Option<u32>,
    piece: Option<u32>,
}

impl core::fmt::Display for LocationPrefix {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.track, self.piece) {
            (Some(t), Some(p)) => write!(f, "track {t} piece {p}: "),
            (Some(t), None) => write!(f, "track {t}: "),
            (None, _) => write!(f, "header: "),
        }
    }
}
