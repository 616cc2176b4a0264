//! The code paths the fuzz targets drive, shared by `fuzz/fuzz_targets/*` and the regression test.
//!
//! Each function takes arbitrary bytes, must never panic, hang or allocate without bound, and
//! checks a few invariants that hold for every accepted input (an `Ok` document compiles to a
//! stream that loads again, an exported document reads back).

use inbetween::compile::CompileOptions;
use inbetween::expr::{Expr, ExprVars};
use inbetween::player::TrackPlayer;
use inbetween::stream::Stream;
use inbetween::{Document, Track};

/// Integer and fractional frames sampled per track (bounded so that one input runs in
/// bounded time whatever its frame range).
const SAMPLES_PER_TRACK: usize = 24;

/// Steps played from each seek position.
const ADVANCES: usize = 16;

/// Largest total key count of an imported glTF document that is compiled as well.
#[cfg(feature = "gltf")]
const GLTF_COMPILE_KEYS: usize = 2_000;

/// Loads a JSON document; when accepted, evaluates every track at a bounded set of frames
/// (inside, between and outside the keys), reads its arc length, writes it back to JSON and
/// reads that again, then compiles it with the default options and plays the stream.
pub fn document_json(data: &[u8]) {
    let Ok(doc) = Document::from_json_slice(data, "fuzz.json") else {
        return;
    };
    let _ = doc.frame_range();
    for track in doc.tracks() {
        sample_track(track);
    }
    let text = doc.to_json_string();
    let again = Document::from_json_str(&text, "roundtrip.json");
    assert!(
        again.is_ok(),
        "an accepted document written back to JSON is refused: {:?}\n{text}",
        again.err()
    );
    if let Ok(compiled) = doc.compile(&CompileOptions::default()) {
        let stream = Stream::from_bytes(&compiled.bytes);
        assert!(
            stream.is_ok(),
            "the compiler wrote a stream it cannot load: {:?}",
            stream.err()
        );
        if let Ok(stream) = stream {
            play_stream(&stream);
        }
    }
}

/// Evaluates `track` at frames spread over its key range, just outside it and far outside it.
fn sample_track(track: &Track) {
    let first = track.first_frame();
    let last = track.last_frame();
    let span = last - first;
    let mut out = [0.0; 4];
    for i in 0..SAMPLES_PER_TRACK {
        let t = i as f64 / (SAMPLES_PER_TRACK - 1) as f64;
        let frame = first + span * (t * 1.5 - 0.25);
        let _ = track.eval(frame);
        let _ = track.try_eval(frame);
        track.eval_into(frame, &mut out[..track.components()]);
        let _ = track.arclength_at(frame);
    }
    for frame in [
        f64::NAN,
        f64::INFINITY,
        -1e300,
        1e300,
        first.floor(),
        last.ceil(),
    ] {
        let _ = track.try_eval(frame);
    }
    if let Some(length) = track.arclength() {
        for s in [-1.0, 0.0, 0.3 * length, length, 2.0 * length, f64::NAN] {
            let _ = track.at_distance(s);
        }
    }
    let _ = track.kinds_used();
}

/// Parses a UTF-8 expression; when accepted, evaluates it (and its derivative) at a few points.
pub fn expression(data: &[u8]) {
    let Ok(source) = core::str::from_utf8(data) else {
        return;
    };
    let Ok(expr) = Expr::parse(source) else {
        return;
    };
    assert_eq!(expr.source(), source);
    for (u, frame) in [
        (0.0, 0.0),
        (0.5, 12.5),
        (1.0, 24.0),
        (-1.0, -1e9),
        (1e300, f64::NAN),
    ] {
        let vars = ExprVars {
            u,
            frame,
            time: frame / 24.0,
        };
        let value = expr.eval(&vars);
        let rates = ExprVars {
            u: 1.0,
            frame: 24.0,
            time: 1.0,
        };
        let (again, _) = expr.eval_with_derivative(&vars, &rates);
        assert!(
            value.to_bits() == again.to_bits() || (value.is_nan() && again.is_nan()),
            "eval and eval_with_derivative disagree on {source:?} at {vars:?}: {value} vs {again}"
        );
    }
    for name in ["u", "frame", "time"] {
        let _ = expr.uses_variable(name);
    }
}

/// Loads a stream as given and again with its length field and checksum made right (so that
/// mutations reach the validation past the checksum and the players); when accepted, plays
/// every track (seeks, forward, backward, other rates) and the tracks together in a batch bank.
pub fn stream(data: &[u8]) {
    if let Ok(stream) = Stream::from_bytes(data) {
        play_stream(&stream);
    }
    let sealed = with_length_and_checksum(data);
    if let Ok(stream) = Stream::from_bytes(&sealed) {
        play_stream(&stream);
    }
}

/// `data` with the header's total length (u64 at byte 24) set to its length and the last four
/// bytes replaced by the CRC-32 of the others (docs/stream-format.md).
pub fn with_length_and_checksum(data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    if out.len() < 40 {
        return out;
    }
    let length = out.len() as u64;
    out[24..32].copy_from_slice(&length.to_le_bytes());
    let body = out.len() - 4;
    let crc = crc32(&out[..body]);
    out[body..].copy_from_slice(&crc.to_le_bytes());
    out
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Plays every track of `stream` from a few positions, forward, backward and at another rate,
/// then the whole stream in a batch bank.
fn play_stream(stream: &Stream<'_>) {
    let _ = stream.fps();
    let _ = stream.total_components();
    for track in stream.tracks() {
        let _ = track.summary();
        let _ = track.name();
        for piece in track.pieces().take(64) {
            for c in 0..track.components() {
                for order in 0..=usize::from(piece.degree) {
                    let _ = track.number(&piece, c, order);
                }
            }
        }
        let first = track.first_frame();
        let last = track.last_frame();
        let mut player = TrackPlayer::new(track);
        for frame in [
            first,
            last,
            0.5 * (first + last),
            first - 3.25,
            last + 7.5,
            -1e12,
            1e12,
        ] {
            if player.seek(frame).is_err() {
                continue;
            }
            for step in [1.0, -1.0, 0.5, -2.75] {
                if player.set_step(step).is_err() {
                    continue;
                }
                for _ in 0..ADVANCES {
                    player.advance();
                    let _ = player.value();
                }
            }
        }
        let _ = track.piece_at(0.5 * (first + last));
    }
    if let Ok(mut bank) = inbetween::batch::Bank::new(core::slice::from_ref(stream)) {
        let mut out = vec![0.0; bank.channels()];
        for frame in [0.0, 3.5, -10.0] {
            if bank.seek(frame).is_err() {
                continue;
            }
            for step in [1.0, -1.0, 0.25] {
                if bank.set_step(step).is_err() {
                    continue;
                }
                for _ in 0..ADVANCES {
                    bank.advance();
                    let _ = bank.write_f64(&mut out);
                }
            }
        }
    }
}

/// Imports glTF bytes as given (JSON or GLB by their first bytes) and wrapped in a GLB
/// container (the bytes before a `\n#BIN#\n` marker as the JSON chunk, those after it as the
/// binary chunk); compiles an accepted document when it is small.
#[cfg(feature = "gltf")]
pub fn gltf(data: &[u8]) {
    use inbetween::gltf_import::{import_gltf_slice, ImportOptions};
    let options = ImportOptions::default();
    for bytes in [data.to_vec(), glb_container(data)] {
        let Ok(doc) = import_gltf_slice(&bytes, None, &options) else {
            continue;
        };
        for track in doc.tracks() {
            sample_track(track);
        }
        let keys: usize = doc.tracks().iter().map(|t| t.keys().len()).sum();
        let frames = doc
            .frame_range()
            .map_or(0, |(a, b)| b.saturating_sub(a).unsigned_abs());
        if keys <= GLTF_COMPILE_KEYS && frames <= 100_000 {
            if let Ok(compiled) = doc.compile(&CompileOptions::default()) {
                assert!(Stream::from_bytes(&compiled.bytes).is_ok());
            }
        }
    }
}

/// A GLB file (glTF 2.0 §4.4) holding `data` split at the first `\n#BIN#\n`: JSON chunk, then
/// the binary chunk when there is a marker.
#[cfg(feature = "gltf")]
fn glb_container(data: &[u8]) -> Vec<u8> {
    const MARKER: &[u8] = b"\n#BIN#\n";
    let (json, bin) = match data.windows(MARKER.len()).position(|w| w == MARKER) {
        Some(at) => (&data[..at], Some(&data[at + MARKER.len()..])),
        None => (data, None),
    };
    let padded = |chunk: &[u8], pad: u8| {
        let mut v = chunk.to_vec();
        while v.len() % 4 != 0 {
            v.push(pad);
        }
        v
    };
    let json = padded(json, b' ');
    let bin = bin.map(|b| padded(b, 0));
    let total = 12 + 8 + json.len() + bin.as_ref().map_or(0, |b| 8 + b.len());
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    if let Some(bin) = bin {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    out
}
