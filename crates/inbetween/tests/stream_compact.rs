//! Format version 3 (the compact piece table): plays every value to the same bits as the version-1/2 encoding of the same pieces, old streams still read, and every malformed field is refused with its own error.

use proptest::prelude::*;
use serde_json::Value as Json;

use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::compact::{
    StartCode, BLOCK, CHECKPOINT_SIZE, DEGREE_FLAG_ORIGIN, DEGREE_FLAG_WIDE,
};
use inbetween::stream::layout::*;
use inbetween::stream::{
    fix_checksum, reencode, write_stream, write_stream_as, PieceData, PieceNumbers, Precision,
    Stream, StreamError, StreamTrack, StreamValueType, StreamWrap, TableLayout, TrackData,
};
use inbetween::Document;

#[allow(dead_code)]
#[path = "common/random_documents.rs"]
mod random_documents;
mod stream_support;
use random_documents::{document_strategy, precision_strategy};
use stream_support::corrupt;

/// Frames every comparison plays: integer, fractional, outside the keys, far out.
const SEEKS: [f64; 9] = [-20.0, -0.5, 0.0, 0.25, 3.0, 7.5, 31.0, 90.0, 1e6];
/// Steps every comparison plays at: forward, backward, a display rate, a slow fraction.
const STEPS: [f64; 4] = [1.0, -1.0, 60.0 / 144.0, 0.3];

/// Every played value's bits of `track`: from each seek, 40 frames at each step.
fn played_bits(track: StreamTrack<'_>) -> Vec<u64> {
    let mut out = Vec::new();
    let mut player = TrackPlayer::new(track);
    for seek in SEEKS {
        for step in STEPS {
            player.seek(seek).expect("finite frame");
            player.set_step(step).expect("valid step");
            for _ in 0..40 {
                out.extend(player.value().iter().map(|v| v.to_bits()));
                player.advance();
            }
        }
    }
    out
}

/// The pieces of a track as plain fields (`Piece` also compares its private data offset,
/// which differs between layouts).
fn piece_fields(track: &StreamTrack<'_>) -> Vec<(u64, u64, u64, u8, i8, bool)> {
    track
        .pieces()
        .map(|p| {
            let (start, end, origin) = (p.start.to_bits(), p.end.to_bits(), p.origin.to_bits());
            (start, end, origin, p.degree, p.exponent, p.wide)
        })
        .collect()
}

/// Both streams hold the same tracks, pieces and numbers and play the same bits.
fn assert_same_playback(a: &Stream<'_>, b: &Stream<'_>) {
    assert_eq!(a.track_count(), b.track_count());
    for (ta, tb) in a.tracks().zip(b.tracks()) {
        assert_eq!(ta.name(), tb.name());
        assert_eq!(piece_fields(&ta), piece_fields(&tb), "track {}", ta.name());
        for (pa, pb) in ta.pieces().zip(tb.pieces()) {
            for c in 0..ta.components() {
                for k in 0..=usize::from(pa.degree) {
                    let (x, y) = (ta.number(&pa, c, k), tb.number(&pb, c, k));
                    assert_eq!(
                        x.to_bits(),
                        y.to_bits(),
                        "track {} piece {}",
                        ta.name(),
                        pa.index
                    );
                    assert_eq!(ta.fixed_number(&pa, c, k), tb.fixed_number(&pb, c, k));
                }
            }
        }
        assert!(
            played_bits(ta) == played_bits(tb),
            "track {} plays differently",
            ta.name()
        );
    }
}

/// The piece that `piece_at(w)` must find: the last whose start is ≤ w, else piece 0.
fn linear_piece_at(track: &StreamTrack<'_>, w: f64) -> usize {
    track
        .pieces()
        .filter(|p| p.start <= w)
        .last()
        .map_or(0, |p| p.index as usize)
}

fn compile_doc(doc: &Json, precision: Precision, max_degree: u8) -> Option<Vec<u8>> {
    let d = Document::from_json_str(&doc.to_string(), "compact.json").ok()?;
    let options = CompileOptions {
        precision,
        max_degree,
        ..CompileOptions::default()
    };
    Some(d.compile(&options).ok()?.bytes)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A random document compiles to version 3; its version-1/2 re-encoding holds the same
    /// pieces and plays the same bits at every seek and step; re-encoding back gives the
    /// compiler's bytes.
    #[test]
    fn compiled_version_3_plays_the_same_bits_as_its_version_2_encoding(
        doc in document_strategy(),
        precision in precision_strategy(),
        max_degree in 0u8..=8,
    ) {
        let Some(bytes) = compile_doc(&doc, precision, max_degree) else {
            return Ok(());
        };
        prop_assert_eq!(read_u16(&bytes, H_VERSION), FORMAT_VERSION_COMPACT);
        let compact = Stream::from_bytes(&bytes).unwrap();
        let legacy_bytes = reencode(&compact, TableLayout::Legacy).unwrap();
        prop_assert!(read_u16(&legacy_bytes, H_VERSION) < FORMAT_VERSION_COMPACT);
        let legacy = Stream::from_bytes(&legacy_bytes).unwrap();
        assert_same_playback(&compact, &legacy);
        prop_assert!(reencode(&legacy, TableLayout::Compact).unwrap() == bytes);
        for track in compact.tracks() {
            let (first, last) = (track.first_frame(), track.last_frame());
            for i in 0..=64 {
                let w = first - 1.0 + (last - first + 2.0) * f64::from(i) / 64.0;
                let found = track.piece_at(w).map(|p| p.index as usize);
                prop_assert_eq!(found, (track.piece_count() > 0).then(|| linear_piece_at(&track, w)));
            }
        }
    }

    /// Hand-made tracks with starts on integer, half, quarter or no grid, every degree, wide
    /// and stored-origin pieces: both layouts hold the same pieces and play the same bits, and
    /// `piece_at` agrees with a linear scan.
    #[test]
    fn written_version_3_tracks_read_back_as_written(
        grid in 0usize..4,
        lengths in prop::collection::vec(1u32..400, 1..60),
        degrees in prop::collection::vec(0u8..=8, 60),
        precision in precision_strategy(),
        origin_shift in prop::collection::vec(prop::bool::weighted(0.2), 60),
        first in prop_oneof![Just(0.0), Just(-12.0), Just(0.3), -500.0..500.0f64],
    ) {
        let unit = [1.0, 0.5, 0.25, 0.0][grid];
        let track = synthetic_track(first, &lengths, unit, &degrees, &origin_shift, precision);
        let compact_bytes = write_stream(60.0, std::slice::from_ref(&track)).unwrap();
        let legacy_bytes = write_stream_as(60.0, std::slice::from_ref(&track), TableLayout::Legacy).unwrap();
        let (compact, legacy) = (Stream::from_bytes(&compact_bytes).unwrap(), Stream::from_bytes(&legacy_bytes).unwrap());
        assert_same_playback(&compact, &legacy);
        let t = compact.track(0).unwrap();
        for (piece, written) in t.pieces().zip(&track.pieces) {
            prop_assert_eq!(piece.start.to_bits(), written.start.to_bits());
            prop_assert_eq!(piece.origin.to_bits(), written.origin.to_bits());
        }
        for i in 0..200 {
            let w = t.first_frame() - 2.0 + (t.last_frame() - t.first_frame() + 4.0) * f64::from(i) / 200.0;
            prop_assert_eq!(t.piece_at(w).map(|p| p.index as usize), Some(linear_piece_at(&t, w)));
        }
        for p in t.pieces() {
            prop_assert_eq!(t.piece_at(p.start).map(|q| q.index), Some(p.index));
        }
        prop_assert!(compact_bytes.len() < legacy_bytes.len());
    }
}

/// A track of `lengths.len()` pieces from `first`, piece `i` `lengths[i] · unit` frames long
/// (`unit` 0: lengths of `lengths[i] / 7` frames, on no grid), degree `degrees[i]`, small
/// numbers; `shift[i]` moves the origin off the implied one (half-way into the piece). On f32
/// tracks every third piece is wide.
fn synthetic_track(
    first: f64,
    lengths: &[u32],
    unit: f64,
    degrees: &[u8],
    shift: &[bool],
    precision: Precision,
) -> TrackData {
    let mut start = first;
    let mut pieces = Vec::new();
    for (i, &length) in lengths.iter().enumerate() {
        let end = if unit > 0.0 {
            start + f64::from(length) * unit
        } else {
            start + f64::from(length) / 7.0
        };
        let implied = if start.ceil() < end {
            start.ceil()
        } else {
            start
        };
        let origin = if shift[i] {
            start + (end - start) / 2.0
        } else {
            implied
        };
        let degree = degrees[i];
        let terms = usize::from(degree) + 1;
        let value = |k: usize| 0.75f64.powi(k as i32) * if (i + k) % 2 == 0 { 1.0 } else { -0.5 };
        let numbers = match precision {
            Precision::F32 if i % 3 == 2 => PieceNumbers::F64((0..terms).map(value).collect()),
            Precision::F32 => PieceNumbers::F32((0..terms).map(|k| value(k) as f32).collect()),
            Precision::F64 => PieceNumbers::F64((0..terms).map(value).collect()),
            Precision::Fixed => {
                PieceNumbers::Fixed((0..terms).map(|k| (value(k) * 1024.0) as i64).collect())
            }
        };
        pieces.push(PieceData {
            start,
            origin,
            degree,
            exponent: if precision == Precision::Fixed { 10 } else { 0 },
            numbers,
        });
        start = end;
    }
    TrackData {
        name: "synthetic".into(),
        value_type: StreamValueType::Scalar,
        wrap: StreamWrap::Loop,
        precision,
        first_frame: first,
        last_frame: start,
        tolerance: 1e-6,
        max_error: 0.0,
        max_error_frame: first,
        end_value: [0.25, 0.0, 0.0, 0.0],
        pieces,
        outside: None,
        normalize: false,
    }
}

/// Outside records (version 2's, kept as they are in version 3) play the same bits in both
/// layouts: a loop with an offset before the track, a line after it.
#[test]
fn outside_records_play_the_same_bits_in_both_layouts() {
    use inbetween::stream::outside::{Beyond, Outside};
    let lengths = [4, 9, 2, 30];
    let degrees = [3, 2, 0, 1];
    let mut track = synthetic_track(2.0, &lengths, 1.0, &degrees, &[false; 4], Precision::F32);
    track.wrap = StreamWrap::Clamp;
    track.outside = Some(Outside {
        before: Beyond::Loop {
            period: 6.5,
            offset: [0.75, 0.0, 0.0, 0.0],
        },
        after: Beyond::Line {
            value: [1.5, 0.0, 0.0, 0.0],
            slope: [-0.125, 0.0, 0.0, 0.0],
        },
    });
    let compact_bytes = write_stream(30.0, std::slice::from_ref(&track)).unwrap();
    let legacy_bytes =
        write_stream_as(30.0, std::slice::from_ref(&track), TableLayout::Legacy).unwrap();
    assert_eq!(read_u16(&compact_bytes, H_VERSION), FORMAT_VERSION_COMPACT);
    assert_eq!(read_u16(&legacy_bytes, H_VERSION), FORMAT_VERSION_OUTSIDE);
    let compact = Stream::from_bytes(&compact_bytes).unwrap();
    assert_eq!(compact.track(0).unwrap().outside(), track.outside);
    assert_same_playback(&compact, &Stream::from_bytes(&legacy_bytes).unwrap());
}

/// Three tracks covering each start encoding: f32 on the integer grid (one-byte steps,
/// 40 pieces: three checkpoints, a wide piece, a stored origin), f64 vec2 on the half-frame
/// grid with steps up to 300 frames (two-byte steps), fixed with starts on no grid (f64 starts).
fn fixture() -> (Vec<TrackData>, Vec<u8>) {
    let degrees: Vec<u8> = (0..60).map(|i| (i % 4) as u8).collect();
    let mut origins = vec![false; 60];
    origins[7] = true;
    let lengths: Vec<u32> = (0..40).map(|i| 1 + i % 3).collect();
    let grid = synthetic_track(0.0, &lengths, 1.0, &degrees, &origins, Precision::F32);
    let mut half = synthetic_track(
        0.5,
        &[600, 3, 5, 1, 2],
        0.5,
        &degrees,
        &origins,
        Precision::F64,
    );
    half.value_type = StreamValueType::Vec2;
    for piece in &mut half.pieces {
        let PieceNumbers::F64(n) = &piece.numbers else {
            unreachable!()
        };
        piece.numbers = PieceNumbers::F64(n.iter().chain(n.iter()).copied().collect());
    }
    let float = synthetic_track(
        0.1,
        &[3, 9, 20, 4],
        0.0,
        &degrees,
        &origins,
        Precision::Fixed,
    );
    let tracks = vec![grid, half, float];
    let bytes = write_stream(60.0, &tracks).unwrap();
    (tracks, bytes)
}

/// Where the fields of track `t`'s compact table are.
struct Located {
    entry: usize,
    table: usize,
    entries: usize,
    entry_size: usize,
    start_size: usize,
    data: usize,
}

fn locate(bytes: &[u8], t: usize) -> Located {
    let entry = HEADER_SIZE + t * TRACK_ENTRY_SIZE;
    let table = read_u32(bytes, entry + T_PIECE_TABLE_OFFSET) as usize;
    let count = read_u32(bytes, entry + T_PIECE_COUNT) as usize;
    let code = StartCode::from_byte(bytes[entry + T_START_CODE]).unwrap();
    let fixed = bytes[entry + T_PRECISION] == Precision::Fixed.code();
    Located {
        entry,
        table,
        entries: table + count.div_ceil(BLOCK) * CHECKPOINT_SIZE,
        entry_size: code.start_size() + 1 + usize::from(fixed),
        start_size: code.start_size(),
        data: read_u32(bytes, entry + T_DATA_OFFSET) as usize,
    }
}

impl Located {
    fn piece(&self, i: usize) -> usize {
        self.entries + i * self.entry_size
    }
    fn degree_byte(&self, i: usize) -> usize {
        self.piece(i) + self.start_size
    }
}

#[test]
fn the_fixture_uses_every_start_encoding() {
    let (tracks, bytes) = fixture();
    let stream = Stream::from_bytes(&bytes).unwrap();
    let codes: Vec<StartCode> = (0..3)
        .map(|t| StartCode::from_byte(bytes[locate(&bytes, t).entry + T_START_CODE]).unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            StartCode::Grid {
                exponent: 0,
                width: 1
            },
            StartCode::Grid {
                exponent: 1,
                width: 2
            },
            StartCode::Float
        ]
    );
    let g = locate(&bytes, 0);
    assert_ne!(bytes[g.degree_byte(7)] & DEGREE_FLAG_ORIGIN, 0);
    assert_ne!(bytes[g.degree_byte(2)] & DEGREE_FLAG_WIDE, 0);
    // 40 pieces: checkpoints at pieces 0, 16 and 32, each (grid index, data offset).
    let track = stream.track(0).unwrap();
    let piece32 = track.piece(32).unwrap();
    assert_eq!(
        read_u32(&bytes, g.table + 2 * CHECKPOINT_SIZE) as f64,
        piece32.start
    );
    let legacy = write_stream_as(60.0, &tracks, TableLayout::Legacy).unwrap();
    assert_same_playback(&stream, &Stream::from_bytes(&legacy).unwrap());
}

#[test]
fn malformed_version_3_tables_are_refused_with_their_error() {
    let (_, bytes) = fixture();
    let (g, h, f) = (locate(&bytes, 0), locate(&bytes, 1), locate(&bytes, 2));
    let layout_field = |e: StreamError| match e {
        StreamError::LayoutMismatch { field, .. } => field,
        other => panic!("expected a layout mismatch, got {other:?}"),
    };
    // Start codes: width code 0 with an exponent, an exponent past 32.
    for code in [4u8, (33 << 2) | 1] {
        assert!(matches!(
            corrupt(&bytes, g.entry + T_START_CODE, &[code]),
            StreamError::UnknownCode { track: 0, field: "start code", found, .. } if found == code
        ));
    }
    // The track-flags byte (14): bit 0 (normalize) only on quat tracks, other bits reserved.
    assert!(matches!(
        corrupt(&bytes, g.entry + 14, &[1]),
        StreamError::UnknownCode { track: 0, field: "value type (with the normalize flag)", .. }
    ));
    assert!(matches!(
        corrupt(&bytes, g.entry + 14, &[2]),
        StreamError::ReservedNotZero { track: Some(0), .. }
    ));
    // Checkpoints.
    assert_eq!(
        layout_field(corrupt(&bytes, g.table + CHECKPOINT_SIZE, &[99, 0, 0, 0])),
        "checkpoint grid index"
    );
    assert_eq!(
        layout_field(corrupt(
            &bytes,
            g.table + CHECKPOINT_SIZE + 4,
            &[1, 0, 0, 0]
        )),
        "checkpoint data offset"
    );
    assert_eq!(
        layout_field(corrupt(&bytes, g.table, &[1, 0, 0, 0])),
        "checkpoint grid index"
    );
    assert_eq!(
        layout_field(corrupt(&bytes, f.table, &[1, 0, 0, 0])),
        "checkpoint grid index"
    );
    // Start steps: piece 0's must be 0; a zero step repeats a start; a huge one passes the end.
    assert_eq!(
        layout_field(corrupt(&bytes, g.piece(0), &[1])),
        "piece start step"
    );
    assert!(matches!(
        corrupt(&bytes, g.piece(3), &[0]),
        StreamError::PieceOrder {
            track: 0,
            piece: 3,
            expected: "a frame after the previous piece's start",
            ..
        }
    ));
    assert!(matches!(
        corrupt(&bytes, h.piece(4), &[0xFF, 0xFF]),
        StreamError::PieceOrder {
            track: 1,
            piece: 4,
            expected: "a frame before the track's last frame",
            ..
        }
    ));
    // The step of a block's first piece must agree with its checkpoint (the reader ends the
    // piece before at the checkpoint's start); a step past the next checkpoint's start puts
    // the piece's implied origin after its end.
    assert_eq!(
        layout_field(corrupt(&bytes, g.piece(16), &[9])),
        "checkpoint grid index"
    );
    assert!(matches!(
        corrupt(&bytes, g.piece(15), &[9]),
        StreamError::BadNumber {
            track: Some(0),
            piece: Some(15),
            field: "piece origin",
            ..
        }
    ));
    // f64 starts: not finite, out of order, piece 0 not at the first frame.
    assert!(matches!(
        corrupt(&bytes, f.piece(1), &f64::NAN.to_le_bytes()),
        StreamError::BadNumber {
            track: Some(2),
            piece: Some(1),
            field: "piece start",
            ..
        }
    ));
    // Piece 2 starting where piece 1 starts (an earlier frame would first put piece 1's
    // implied origin outside it).
    let start1 = Stream::from_bytes(&bytes)
        .unwrap()
        .track(2)
        .unwrap()
        .piece(1)
        .unwrap()
        .start;
    assert!(matches!(
        corrupt(&bytes, f.piece(2), &start1.to_le_bytes()),
        StreamError::PieceOrder {
            track: 2,
            piece: 2,
            ..
        }
    ));
    assert!(matches!(
        corrupt(&bytes, f.piece(0), &0.0f64.to_le_bytes()),
        StreamError::PieceOrder {
            track: 2,
            piece: 0,
            expected: "the track's first frame",
            ..
        }
    ));
    degree_byte_errors(&bytes, &g, &h, &f);
    origin_and_region_errors(&bytes, &g, &f);
}

fn degree_byte_errors(bytes: &[u8], g: &Located, h: &Located, f: &Located) {
    let degree = |l: &Located, i: usize| bytes[l.degree_byte(i)];
    assert!(matches!(
        corrupt(bytes, g.degree_byte(1), &[9]),
        StreamError::DegreeTooHigh {
            track: 0,
            piece: Some(1),
            found: 9,
            max: 3
        }
    ));
    for bit in [0x40u8, 0x80] {
        assert!(matches!(
            corrupt(bytes, g.degree_byte(1), &[degree(g, 1) | bit]),
            StreamError::ReservedNotZero {
                track: Some(0),
                piece: Some(1),
                ..
            }
        ));
    }
    // Wide only on f32 tracks.
    assert!(matches!(
        corrupt(bytes, h.degree_byte(0), &[degree(h, 0) | DEGREE_FLAG_WIDE]),
        StreamError::ReservedNotZero {
            track: Some(1),
            piece: Some(0),
            ..
        }
    ));
    // A different degree changes the piece's size: the next checkpoint or the data length
    // (pieces 14 to 16 and 39 are f32, so the shifted numbers are still f32 numbers).
    assert!(matches!(
        corrupt(bytes, g.degree_byte(39), &[degree(g, 39) ^ 1]),
        StreamError::LayoutMismatch {
            track: Some(0),
            field: "data length",
            ..
        }
    ));
    assert!(matches!(
        corrupt(bytes, g.degree_byte(14), &[degree(g, 14) ^ 1]),
        StreamError::LayoutMismatch {
            track: Some(0),
            piece: Some(16),
            field: "checkpoint data offset",
            ..
        }
    ));
    // Fixed exponents.
    for bad in [-101i8, 121] {
        assert!(matches!(
            corrupt(bytes, f.degree_byte(1) + 1, &bad.to_le_bytes()),
            StreamError::BadNumber {
                track: Some(2),
                piece: Some(1),
                field: "fixed exponent",
                ..
            }
        ));
    }
}

fn origin_and_region_errors(bytes: &[u8], g: &Located, f: &Located) {
    let stream = Stream::from_bytes(bytes).unwrap();
    let piece7 = stream.track(0).unwrap().piece(7).unwrap();
    // Piece 7's stored origin is the 8 bytes before its numbers.
    let origin_at = read_u32(bytes, g.table + 4) as usize + g.data;
    let origin_at = origin_at
        + (0..7)
            .map(|i| stream.track(0).unwrap().piece(i).unwrap())
            .map(|p| (usize::from(p.degree) + 1) * if p.wide { 8 } else { 4 })
            .sum::<usize>();
    assert_eq!(read_f64(bytes, origin_at), piece7.origin);
    for (bad, field) in [
        (f64::NAN, "piece origin"),
        (piece7.start - 0.5, "piece origin"),
        (piece7.end + 0.5, "piece origin"),
    ] {
        assert!(matches!(
            corrupt(bytes, origin_at, &bad.to_le_bytes()),
            StreamError::BadNumber { track: Some(0), piece: Some(7), field: f, .. } if f == field
        ));
    }
    // Setting the flag on a piece without a stored origin reads its first two f32 numbers
    // (-0.5, 0.75) as the origin: about 2^-11, before the piece's start.
    let degree = bytes[g.degree_byte(1)];
    assert!(matches!(
        corrupt(bytes, g.degree_byte(1), &[degree | DEGREE_FLAG_ORIGIN]),
        StreamError::BadNumber {
            track: Some(0),
            piece: Some(1),
            field: "piece origin",
            ..
        }
    ));
    let fields = [
        (T_PIECE_TABLE_OFFSET, "piece table offset"),
        (T_DATA_OFFSET, "data offset"),
        (T_DATA_LENGTH, "data length"),
    ];
    for (at, field) in fields {
        let value = read_u32(bytes, f.entry + at) + 1;
        let error = corrupt(bytes, f.entry + at, &value.to_le_bytes());
        assert!(
            matches!(error, StreamError::LayoutMismatch { field: found, .. } if found == field)
                || matches!(error, StreamError::Truncated { .. }),
            "{field}: {error:?}"
        );
    }
    assert!(matches!(
        corrupt(bytes, f.entry + T_PIECE_COUNT, &u32::MAX.to_le_bytes()),
        StreamError::Truncated {
            region: "piece table",
            ..
        }
    ));
    assert_eq!(
        corrupt(bytes, H_VERSION, &4u16.to_le_bytes()),
        StreamError::UnsupportedVersion {
            found: 4,
            supported: 3
        }
    );
}

#[test]
fn every_truncation_and_byte_flip_of_a_version_3_stream_is_refused_or_plays() {
    let (_, bytes) = fixture();
    for len in 0..bytes.len() {
        let mut cut = bytes[..len].to_vec();
        fix_checksum(&mut cut);
        assert!(
            Stream::from_bytes(&cut).is_err(),
            "truncated to {len} bytes accepted"
        );
    }
    for at in 0..bytes.len() - CHECKSUM_SIZE {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut copy = bytes.clone();
            copy[at] ^= flip;
            fix_checksum(&mut copy);
            if let Ok(stream) = Stream::from_bytes(&copy) {
                for track in stream.tracks() {
                    let _ = played_bits(track);
                    let _ = track.summary();
                }
            }
        }
    }
}

/// The committed streams (the fixed-point showcase and the fuzz corpus's valid seeds, versions
/// 1 and 2) still validate, and play the same bits as their version-3 re-encoding.
#[test]
fn version_1_and_2_streams_still_read_and_play_as_their_version_3_encoding() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = vec![root.join("determinism/showcase-fixed.ibs")];
    for name in [
        "seed_ball_tcb_pingpong_f32.ibs",
        "seed_ball_tcb_pingpong_f64.ibs",
        "seed_ball_tcb_pingpong_fixed.ibs",
    ] {
        files.push(root.join("fuzz_regressions/stream").join(name));
    }
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            read_u16(&bytes, H_VERSION) < FORMAT_VERSION_COMPACT,
            "{}",
            path.display()
        );
        let old = Stream::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let compact_bytes = reencode(&old, TableLayout::Compact).unwrap();
        let compact = Stream::from_bytes(&compact_bytes).unwrap();
        assert_same_playback(&old, &compact);
        assert!(
            reencode(&compact, TableLayout::Legacy).unwrap() == bytes,
            "{}",
            path.display()
        );
        assert!(compact_bytes.len() < bytes.len(), "{}", path.display());
        let saved_v3 = path.with_file_name(format!(
            "{}_v3.ibs",
            path.file_stem().unwrap().to_str().unwrap()
        ));
        if let Ok(saved) = std::fs::read(&saved_v3) {
            assert!(saved == compact_bytes, "{}", saved_v3.display());
        }
    }
}

/// The fuzz corpus's hand-made version-3 inputs (the f64 seed with one field changed, sealed)
/// are refused where they were changed.
#[test]
fn the_corpus_hostile_version_3_inputs_are_refused_naming_the_field() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions/stream");
    let error =
        |name: &str| Stream::from_bytes(&std::fs::read(dir.join(name)).unwrap()).unwrap_err();
    assert!(matches!(
        error("hostile_v3_piece_count_u32_max.ibs"),
        StreamError::Truncated {
            region: "piece table",
            ..
        }
    ));
    assert!(matches!(
        error("hostile_v3_checkpoint_data_offset_8.ibs"),
        StreamError::LayoutMismatch {
            track: Some(0),
            piece: Some(0),
            field: "checkpoint data offset",
            expected: 0,
            found: 8
        }
    ));
    // Exponent 32 with 4-byte steps: a valid code, but 4-byte entries move the numbers.
    assert!(matches!(
        error("hostile_v3_start_code_exponent_32_width_4.ibs"),
        StreamError::LayoutMismatch {
            track: Some(0),
            field: "data offset",
            ..
        }
    ));
}

/// A float track's piece with a fixed exponent is refused by both layouts' writers (version 3
/// has no exponent byte on float tracks, so it could not be kept).
#[test]
fn a_float_piece_with_an_exponent_is_refused_in_both_layouts() {
    let mut track = synthetic_track(0.0, &[4, 4], 1.0, &[1, 1], &[false; 2], Precision::F64);
    track.pieces[1].exponent = 3;
    for layout in [TableLayout::Compact, TableLayout::Legacy] {
        let error = write_stream_as(60.0, std::slice::from_ref(&track), layout).unwrap_err();
        assert!(
            matches!(error, StreamError::BadNumber { piece: Some(1), field: "fixed exponent", found, .. } if found == 3.0),
            "{layout:?}: {error:?}"
        );
    }
}
