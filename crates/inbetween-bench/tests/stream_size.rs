//! Stream size on the bench's scalar workload: the compiler's f32 stream holds at most 24 bytes per key (issue 12 item 5), counted field by field from the version-3 layout.

use inbetween::stream::compact::{StartCode, BLOCK, CHECKPOINT_SIZE};
use inbetween::stream::layout::{
    read_u8, CHECKSUM_SIZE, HEADER_SIZE, TRACK_ENTRY_SIZE, T_START_CODE,
};
use inbetween::stream::{reencode, Precision, Stream, TableLayout};
use inbetween_bench::{compile, workload_document, workload_keys};

/// Bytes of a version-3 stream as docs/stream-format.md lays it out: header, per track its
/// entry, name, checkpoints, entries (start field + degree byte) and numbers (f32, or f64 for
/// wide pieces; no stored origins), and the checksum.
fn counted_size(stream: &Stream<'_>) -> usize {
    let bytes = stream.as_bytes();
    let mut size = HEADER_SIZE + CHECKSUM_SIZE;
    for (i, track) in stream.tracks().enumerate() {
        let code_at = HEADER_SIZE + i * TRACK_ENTRY_SIZE + T_START_CODE;
        let code = StartCode::from_byte(read_u8(bytes, code_at)).expect("a valid start code");
        let pieces = track.piece_count();
        let numbers: usize = track
            .pieces()
            .map(|p| (usize::from(p.degree) + 1) * if p.wide { 8 } else { 4 })
            .sum();
        size += TRACK_ENTRY_SIZE
            + track.name().len()
            + pieces.div_ceil(BLOCK) * CHECKPOINT_SIZE
            + pieces * (code.start_size() + 1)
            + numbers;
    }
    size
}

#[test]
fn the_scalar_f32_workload_compiles_to_at_most_24_bytes_per_key() {
    let keys = workload_keys(1_000, 5);
    let key_count: usize = keys.iter().map(Vec::len).sum();
    let doc = workload_document(&keys, None).expect("the workload builds");
    let bytes = compile(&doc, Precision::F32).expect("the workload compiles");
    let stream = Stream::from_bytes(&bytes).expect("a valid stream");
    assert!(stream.tracks().all(|t| t.precision() == Precision::F32));
    assert_eq!(bytes.len(), counted_size(&stream));
    let per_key = bytes.len() as f64 / key_count as f64;
    let legacy = reencode(&stream, TableLayout::Legacy).expect("re-encodes");
    let legacy_per_key = legacy.len() as f64 / key_count as f64;
    let pieces: usize = stream.tracks().map(|t| t.piece_count()).sum();
    println!(
        "{key_count} keys, {pieces} pieces: {per_key:.2} B/key (versions 1-2: {legacy_per_key:.2})"
    );
    assert!(per_key <= 24.0, "{per_key:.2} bytes per key");
    // The legacy table costs 24 bytes per piece; version 3 at most 1 + 4 + 8/16 here.
    let saved = (legacy.len() - bytes.len()) as f64 / pieces as f64;
    assert!(saved >= 24.0 - 5.5, "{saved:.2} bytes saved per piece");
}
