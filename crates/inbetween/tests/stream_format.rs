//! Stream format tests: a round trip, and every field corrupted or truncated is refused with the right error.

mod stream_support;

use inbetween::compile::{compile_tracks, CompileOptions, TrackInput};
use inbetween::player::TrackPlayer;
use inbetween::stream::layout::*;
use inbetween::stream::{
    fix_checksum, reencode, Precision, Stream, StreamError, StreamValueType, StreamWrap,
    TableLayout,
};
use stream_support::*;

/// Two tracks: an f64 vec2 with several pieces, then a fixed scalar, in the version-1 layout
/// (24-byte piece entries) that this file's offsets address; `stream_compact.rs` tests
/// version 3.
fn sample_stream(precision: Precision) -> Vec<u8> {
    let smooth = FnSource {
        components: 2,
        breaks: vec![0.0, 10.0, 40.0],
        f: |f: f64| [(f / 5.0).sin(), f / 40.0, 0.0, 0.0],
    };
    let line = PolySource::scalar(0.0, 30.0, &[1.0, 4.0, -1.0]);
    let inputs = [
        TrackInput {
            name: "wave",
            value_type: StreamValueType::Vec2,
            wrap: StreamWrap::Loop,
            source: &smooth,
        },
        TrackInput {
            name: "line",
            value_type: StreamValueType::Scalar,
            wrap: StreamWrap::PingPong,
            source: &line,
        },
    ];
    let options = CompileOptions {
        precision,
        ..CompileOptions::default()
    };
    let bytes = compile_tracks(&inputs, 60.0, &options).unwrap().bytes;
    reencode(&Stream::from_bytes(&bytes).unwrap(), TableLayout::Legacy).unwrap()
}

fn track_entry(track: usize) -> usize {
    HEADER_SIZE + track * TRACK_ENTRY_SIZE
}

fn piece_entry(bytes: &[u8], track: usize, piece: usize) -> usize {
    read_u32(bytes, track_entry(track) + T_PIECE_TABLE_OFFSET) as usize + piece * PIECE_ENTRY_SIZE
}

#[test]
fn a_compiled_stream_reads_back() {
    let bytes = sample_stream(Precision::F64);
    let stream = Stream::from_bytes(&bytes).unwrap();
    assert_eq!(stream.track_count(), 2);
    let wave = stream.track(0).unwrap();
    assert_eq!(wave.name(), "wave");
    assert_eq!(wave.value_type(), StreamValueType::Vec2);
    assert_eq!(wave.wrap(), StreamWrap::Loop);
    assert_eq!(wave.precision(), Precision::F64);
    assert_eq!((wave.first_frame(), wave.last_frame()), (0.0, 40.0));
    assert!(wave.piece_count() >= 2);
    assert!(wave.max_error() <= wave.tolerance());
    let line = stream.track_by_name("line").unwrap();
    assert_eq!(line.wrap(), StreamWrap::PingPong);
    assert_eq!(line.end_value(), [4.0, 0.0, 0.0, 0.0]);
    assert!(stream.track(2).is_none());
    assert!(wave.piece(wave.piece_count()).is_none());
}

#[test]
fn header_fields_are_validated() {
    let bytes = sample_stream(Precision::F64);
    assert!(matches!(
        corrupt(&bytes, H_MAGIC, b"IBT\x1a"),
        StreamError::BadMagic { .. }
    ));
    assert_eq!(
        corrupt(&bytes, H_VERSION, &4u16.to_le_bytes()),
        StreamError::UnsupportedVersion {
            found: 4,
            supported: 3
        }
    );
    assert_eq!(
        corrupt(&bytes, H_BYTE_ORDER, &[0xFE, 0xFF]),
        StreamError::ByteOrder { found: 0xFFFE }
    );
    assert!(matches!(
        corrupt(&bytes, H_FLAGS, &1u32.to_le_bytes()),
        StreamError::ReservedNotZero { field: "flags", .. }
    ));
    for fps in [0.0, -60.0, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(
                corrupt(&bytes, H_FPS, &fps.to_le_bytes()),
                StreamError::BadNumber { field: "fps", .. }
            ),
            "{fps}"
        );
    }
    assert_eq!(
        corrupt(&bytes, H_TOTAL_LENGTH, &7u64.to_le_bytes()),
        StreamError::LengthMismatch {
            declared: 7,
            actual: bytes.len() as u64
        }
    );
    assert!(matches!(
        corrupt(&bytes, H_TRACK_COUNT, &3u32.to_le_bytes()),
        StreamError::LayoutMismatch {
            field: "names offset",
            ..
        }
    ));
    assert!(matches!(
        corrupt(&bytes, H_NAMES_OFFSET, &41u32.to_le_bytes()),
        StreamError::LayoutMismatch {
            field: "names offset",
            ..
        }
    ));
    assert!(matches!(
        corrupt(&bytes, H_NAMES_LENGTH, &9u32.to_le_bytes()),
        StreamError::LayoutMismatch {
            track: Some(0),
            field: "piece table offset",
            ..
        }
    ));
}

#[test]
fn huge_counts_are_refused_before_anything_is_read() {
    let bytes = sample_stream(Precision::F64);
    assert!(matches!(
        corrupt(&bytes, H_TRACK_COUNT, &u32::MAX.to_le_bytes()),
        StreamError::Truncated {
            region: "track table",
            ..
        }
    ));
    assert!(matches!(
        corrupt(&bytes, H_NAMES_LENGTH, &u32::MAX.to_le_bytes()),
        StreamError::Truncated {
            region: "names area",
            ..
        }
    ));
    let entry = track_entry(0);
    assert!(matches!(
        corrupt(&bytes, entry + T_PIECE_COUNT, &u32::MAX.to_le_bytes()),
        StreamError::Truncated {
            region: "piece table",
            ..
        }
    ));
    assert!(matches!(
        corrupt(&bytes, entry + T_DATA_LENGTH, &u32::MAX.to_le_bytes()),
        StreamError::Truncated {
            region: "piece numbers",
            ..
        }
    ));
}

#[test]
fn track_fields_are_validated() {
    let bytes = sample_stream(Precision::F64);
    let e = track_entry(1);
    let f = |field: usize, patch: &[u8]| corrupt(&bytes, e + field, patch);
    assert!(matches!(
        f(T_NAME_OFFSET, &100u32.to_le_bytes()),
        StreamError::NameOutOfBounds { track: 1, .. }
    ));
    assert!(matches!(
        f(T_NAME_LENGTH, &5u32.to_le_bytes()),
        StreamError::NameOutOfBounds { track: 1, .. }
    ));
    let names = read_u32(&bytes, H_NAMES_OFFSET) as usize;
    assert_eq!(
        corrupt(&bytes, names + 4, &[0xFF]),
        StreamError::NameNotUtf8 { track: 1 }
    );
    assert!(matches!(
        f(T_VALUE_TYPE, &[0]),
        StreamError::UnknownCode {
            track: 1,
            field: "value type",
            found: 0,
            ..
        }
    ));
    assert!(matches!(
        f(T_VALUE_TYPE, &[7]),
        StreamError::UnknownCode {
            track: 1,
            field: "value type",
            found: 7,
            ..
        }
    ));
    assert_eq!(
        f(T_VALUE_TYPE, &[3]),
        StreamError::ComponentMismatch {
            track: 1,
            components: 1,
            expected: 3
        }
    );
    assert_eq!(
        f(T_COMPONENTS, &[2]),
        StreamError::ComponentMismatch {
            track: 1,
            components: 2,
            expected: 1
        }
    );
    assert!(matches!(
        f(T_PRECISION, &[0]),
        StreamError::UnknownCode {
            field: "precision",
            ..
        }
    ));
    assert!(matches!(
        f(T_WRAP, &[3]),
        StreamError::UnknownCode {
            field: "wrap",
            found: 3,
            ..
        }
    ));
    assert_eq!(
        f(T_MAX_DEGREE, &[9]),
        StreamError::DegreeTooHigh {
            track: 1,
            piece: None,
            found: 9,
            max: 8
        }
    );
    assert!(matches!(
        f(T_MAX_DEGREE, &[1]),
        StreamError::DegreeTooHigh {
            track: 1,
            piece: Some(0),
            found: 2,
            max: 1
        }
    ));
    assert!(matches!(
        f(T_RESERVED + 1, &[1]),
        StreamError::ReservedNotZero { track: Some(1), .. }
    ));
    assert!(matches!(
        f(T_PIECE_COUNT, &0u32.to_le_bytes()),
        StreamError::PieceCount {
            track: 1,
            found: 0,
            ..
        }
    ));
    assert!(matches!(
        f(T_PIECE_COUNT, &2u32.to_le_bytes()),
        StreamError::LayoutMismatch {
            track: Some(1),
            field: "data offset",
            ..
        } | StreamError::Truncated { .. }
    ));
    assert!(matches!(
        f(T_PIECE_TABLE_OFFSET, &8u32.to_le_bytes()),
        StreamError::LayoutMismatch {
            track: Some(1),
            field: "piece table offset",
            ..
        }
    ));
    assert!(matches!(
        f(T_DATA_OFFSET, &8u32.to_le_bytes()),
        StreamError::LayoutMismatch {
            track: Some(1),
            field: "data offset",
            ..
        }
    ));
    assert!(matches!(
        f(T_DATA_LENGTH, &8u32.to_le_bytes()),
        StreamError::Truncated {
            region: "piece numbers",
            ..
        } | StreamError::LayoutMismatch { .. }
    ));
    for (field, name) in [
        (T_FIRST_FRAME, "first frame"),
        (T_LAST_FRAME, "last frame"),
        (T_MAX_ERROR_FRAME, "max error frame"),
    ] {
        assert!(
            matches!(f(field, &f64::NAN.to_le_bytes()), StreamError::BadNumber { track: Some(1), field: n, .. } if n == name),
            "{name}"
        );
    }
    assert!(matches!(
        f(T_FIRST_FRAME, &50.0f64.to_le_bytes()),
        StreamError::BadNumber {
            field: "last frame",
            ..
        }
    ));
    assert!(matches!(
        f(T_FIRST_FRAME, &(-1.0f64).to_le_bytes()),
        StreamError::PieceOrder {
            track: 1,
            piece: 0,
            ..
        }
    ));
    assert!(matches!(
        f(T_LAST_FRAME, &0.0f64.to_le_bytes()),
        StreamError::PieceCount { track: 1, .. }
    ));
    assert!(matches!(
        f(T_TOLERANCE, &(-1.0f64).to_le_bytes()),
        StreamError::BadNumber {
            field: "tolerance",
            ..
        }
    ));
    assert!(matches!(
        f(T_MAX_ERROR, &f64::INFINITY.to_le_bytes()),
        StreamError::BadNumber {
            field: "max error",
            ..
        }
    ));
    assert!(matches!(
        f(T_END_VALUE, &f64::NAN.to_le_bytes()),
        StreamError::BadNumber {
            field: "end value",
            ..
        }
    ));
    assert!(matches!(
        f(T_END_VALUE + 8, &1.0f64.to_le_bytes()),
        StreamError::BadNumber {
            field: "end value (unused component)",
            ..
        }
    ));
}

#[test]
fn piece_fields_are_validated() {
    for precision in PRECISIONS {
        let bytes = sample_stream(precision);
        let p0 = piece_entry(&bytes, 0, 0);
        let p1 = piece_entry(&bytes, 0, 1);
        assert!(matches!(
            corrupt(&bytes, p1 + P_START, &f64::NAN.to_le_bytes()),
            StreamError::BadNumber {
                field: "piece start",
                ..
            }
        ));
        assert!(matches!(
            corrupt(&bytes, p1 + P_START, &0.0f64.to_le_bytes()),
            StreamError::PieceOrder {
                track: 0,
                piece: 1,
                ..
            }
        ));
        assert!(matches!(
            corrupt(&bytes, p1 + P_START, &99.0f64.to_le_bytes()),
            StreamError::PieceOrder {
                track: 0,
                piece: 1,
                ..
            }
        ));
        assert!(matches!(
            corrupt(&bytes, p0 + P_START, &0.5f64.to_le_bytes()),
            StreamError::PieceOrder {
                track: 0,
                piece: 0,
                ..
            }
        ));
        assert!(matches!(
            corrupt(&bytes, p0 + P_ORIGIN, &(-3.0f64).to_le_bytes()),
            StreamError::BadNumber {
                field: "piece origin",
                piece: Some(0),
                ..
            }
        ));
        assert!(matches!(
            corrupt(&bytes, p0 + P_ORIGIN, &f64::INFINITY.to_le_bytes()),
            StreamError::BadNumber {
                field: "piece origin",
                ..
            }
        ));
        assert!(matches!(
            corrupt(&bytes, p1 + P_DATA_OFFSET, &0u32.to_le_bytes()),
            StreamError::LayoutMismatch {
                track: Some(0),
                piece: Some(1),
                field: "piece data offset",
                ..
            }
        ));
        assert!(matches!(
            corrupt(&bytes, p0 + P_DEGREE, &[9]),
            StreamError::DegreeTooHigh {
                track: 0,
                piece: Some(0),
                found: 9,
                ..
            }
        ));
        assert!(matches!(
            corrupt(&bytes, p0 + P_RESERVED, &[1]),
            StreamError::ReservedNotZero { piece: Some(0), .. }
        ));
        assert!(matches!(
            corrupt(&bytes, p0 + P_FLAGS, &[2]),
            StreamError::ReservedNotZero { piece: Some(0), .. }
        ));
        if precision != Precision::F32 {
            // Wide pieces exist only in f32 tracks.
            assert!(matches!(
                corrupt(&bytes, p0 + P_FLAGS, &[PIECE_FLAG_WIDE]),
                StreamError::ReservedNotZero { piece: Some(0), .. }
            ));
        } else {
            // A wide flag on an f32 piece changes its size: the next offset no longer matches.
            assert!(matches!(
                corrupt(&bytes, p0 + P_FLAGS, &[PIECE_FLAG_WIDE]),
                StreamError::LayoutMismatch { .. } | StreamError::Truncated { .. }
            ));
        }
        let bad_exponent: i8 = if precision == Precision::Fixed {
            127
        } else {
            1
        };
        assert!(matches!(
            corrupt(&bytes, p0 + P_EXPONENT, &bad_exponent.to_le_bytes()),
            StreamError::BadNumber {
                field: "fixed exponent",
                ..
            }
        ));
        let data = read_u32(&bytes, track_entry(0) + T_DATA_OFFSET) as usize;
        match precision {
            Precision::F32 => assert!(matches!(
                corrupt(&bytes, data + 4, &f32::NAN.to_le_bytes()),
                StreamError::BadNumber {
                    field: "difference",
                    ..
                }
            )),
            Precision::F64 => assert!(matches!(
                corrupt(&bytes, data + 8, &f64::NEG_INFINITY.to_le_bytes()),
                StreamError::BadNumber {
                    field: "difference",
                    ..
                }
            )),
            Precision::Fixed => {} // every i64 is a valid number
        }
    }
}

#[test]
fn the_checksum_catches_any_unfixed_change() {
    let bytes = sample_stream(Precision::F32);
    let data = read_u32(&bytes, track_entry(0) + T_DATA_OFFSET) as usize;
    let mut copy = bytes.clone();
    copy[data + 1] ^= 0x10;
    assert!(matches!(
        Stream::from_bytes(&copy),
        Err(StreamError::Checksum { .. })
    ));
    let mut copy = bytes.clone();
    let last = copy.len() - 1;
    copy[last] ^= 1;
    assert!(matches!(
        Stream::from_bytes(&copy),
        Err(StreamError::Checksum { .. })
    ));
}

#[test]
fn every_truncation_and_extension_is_refused() {
    let bytes = sample_stream(Precision::Fixed);
    for len in 0..bytes.len() {
        assert!(Stream::from_bytes(&bytes[..len]).is_err(), "length {len}");
    }
    assert!(matches!(
        Stream::from_bytes(&bytes[..10]),
        Err(StreamError::Truncated {
            region: "header",
            ..
        })
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        Stream::from_bytes(&longer),
        Err(StreamError::LengthMismatch { .. })
    ));
    // Declared length patched too: the checksum position moves, so the layout check fires.
    let len = longer.len() as u64;
    longer[H_TOTAL_LENGTH..H_TOTAL_LENGTH + 8].copy_from_slice(&len.to_le_bytes());
    fix_checksum(&mut longer);
    assert!(matches!(
        Stream::from_bytes(&longer),
        Err(StreamError::LayoutMismatch {
            field: "end of data (checksum offset)",
            ..
        })
    ));
}

#[test]
fn any_single_byte_change_is_refused_or_plays_without_panicking() {
    let bytes = sample_stream(Precision::Fixed);
    for offset in 0..bytes.len() - CHECKSUM_SIZE {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut copy = bytes.clone();
            copy[offset] ^= flip;
            fix_checksum(&mut copy);
            if let Ok(stream) = Stream::from_bytes(&copy) {
                for track in stream.tracks() {
                    let mut player = TrackPlayer::new(track);
                    for frame in [-3.0, 0.0, 7.5, 29.0, 1e9] {
                        player.seek(frame).unwrap();
                        player.advance();
                        let _ = player.value();
                    }
                    player.set_step(-0.5).unwrap();
                    for _ in 0..5 {
                        player.advance();
                    }
                }
            }
        }
    }
}
