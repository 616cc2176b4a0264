//! Every limit of docs/limits.md hit once: the input just past it is refused with the typed
//! error that names the place, and (where it is cheap) the input at the limit is accepted.

use inbetween::arclength::{ArcLengthError, ArcLengthTable, ParamCurve, MAX_TABLE_LEAVES};
use inbetween::compile::{
    CompileError, CompileOptions, MAX_COMPILE_FRAME, MAX_PIECES, MAX_SPANS_PER_TRACK,
    MAX_VERIFIED_FRAMES, MAX_VERIFIED_FRAMES_PER_TRACK,
};
use inbetween::expr::{ExprErrorKind, MAX_EXPR_DEPTH, MAX_EXPR_LEN};
use inbetween::player::TrackPlayer;
use inbetween::stream::Stream;
use inbetween::track::{MAX_KEYS_PER_TRACK, MAX_POLYNOMIAL_KEYS, MAX_TRACKS};
use inbetween::{Document, ErrorKind, Interp, Track, Wrap};

/// A one-track scalar document from JSON keys.
fn scalar_doc(keys: &str) -> Result<Document, inbetween::LoadError> {
    Document::from_json_str(
        &format!(
            r#"{{"inbetween": 1, "fps": 24, "tracks": [{{"name": "x", "type": "scalar", "keys": [{keys}]}}]}}"#
        ),
        "limits.json",
    )
}

#[test]
fn keys_beyond_the_limit_are_refused_naming_the_track() {
    let mut builder = Track::scalar("long");
    for i in 0..=MAX_KEYS_PER_TRACK {
        builder = builder.key(i as f64, 0.0);
    }
    let error = builder.build().unwrap_err();
    assert_eq!(
        error.kind,
        ErrorKind::TooManyKeys {
            found: MAX_KEYS_PER_TRACK + 1,
            max: MAX_KEYS_PER_TRACK
        }
    );
    assert_eq!(error.location.track_name.as_deref(), Some("long"));
    assert_eq!(error.location.field.as_deref(), Some("keys"));
}

#[test]
fn tracks_beyond_the_limit_are_refused() {
    let mut builder = Document::builder();
    for i in 0..=MAX_TRACKS {
        builder = builder.track(Track::scalar(format!("t{i}")).key(0.0, 1.0));
    }
    let error = builder.build().unwrap_err();
    assert_eq!(
        error.kind,
        ErrorKind::TooManyTracks {
            found: MAX_TRACKS + 1,
            max: MAX_TRACKS
        }
    );
    assert_eq!(error.location.field.as_deref(), Some("tracks"));
}

#[test]
fn polynomial_segments_are_limited_to_64_keys() {
    let keys = |count: usize, k: usize| {
        (0..count)
            .map(|i| {
                if i == 0 {
                    format!(r#"{{"frame": {i}, "value": {i}, "interp": {{"polynomial": {{"keys": {k}}}}}}}"#)
                } else {
                    format!(r#"{{"frame": {i}, "value": {i}}}"#)
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    // At the limit: accepted, and already far from the straight line through the keys that it
    // is in exact arithmetic (the Lebesgue constant at work); it passes through its key.
    let doc = scalar_doc(&keys(70, MAX_POLYNOMIAL_KEYS)).unwrap();
    assert_eq!(doc.tracks()[0].eval(0.0)[0], 0.0);
    println!("64-key polynomial at 0.5: {}", doc.tracks()[0].eval(0.5)[0]);
    let error = scalar_doc(&keys(70, MAX_POLYNOMIAL_KEYS + 1))
        .unwrap_err()
        .error;
    assert_eq!(error.location.key, Some(0));
    assert_eq!(
        error.location.field.as_deref(),
        Some("interp.polynomial.keys")
    );
    assert!(
        matches!(&error.kind, ErrorKind::Invalid { expected, found }
            if expected.contains("at most 64") && found == "65"),
        "{error}"
    );
}

#[test]
fn a_track_spanning_more_frames_than_the_limit_is_refused_before_any_work() {
    let span = MAX_VERIFIED_FRAMES_PER_TRACK as f64; // frames 0..=2^24: 2^24 + 1 integer frames
    let doc = scalar_doc(&format!(
        r#"{{"frame": 0, "value": 0, "interp": "linear"}}, {{"frame": {span}, "value": 1}}"#
    ))
    .unwrap();
    assert_eq!(
        doc.compile(&CompileOptions::default()).unwrap_err(),
        CompileError::TooManyFrames {
            track: "x".into(),
            frames: MAX_VERIFIED_FRAMES_PER_TRACK + 1,
            max: MAX_VERIFIED_FRAMES_PER_TRACK,
            total: false,
        }
    );
    // One frame fewer is within the limit on a clamped track, but a loop adds the 512 frames
    // checked around the keys.
    let looped = Track::scalar("loop")
        .key(0.0, 0.0)
        .interp(Interp::Linear)
        .key(span - 1.0, 1.0)
        .wrap(Wrap::Loop);
    let doc = Document::builder().track(looped).build().unwrap();
    assert!(matches!(
        doc.compile(&CompileOptions::default()),
        Err(CompileError::TooManyFrames { frames, .. }) if frames == MAX_VERIFIED_FRAMES_PER_TRACK + 512
    ));
}

#[test]
fn all_tracks_together_are_limited_and_the_track_crossing_the_limit_is_named() {
    // Each track: 4 000 001 frames, under the per-track limit; 537 cross 2^31 together.
    let per_track = 4_000_001u64;
    let mut builder = Document::builder();
    for i in 0..540 {
        builder = builder.track(
            Track::scalar(format!("t{i}"))
                .key(0.0, 0.0)
                .interp(Interp::Linear)
                .key((per_track - 1) as f64, 1.0),
        );
    }
    let doc = builder.build().unwrap();
    let error = doc.compile(&CompileOptions::default()).unwrap_err();
    assert_eq!(
        error,
        CompileError::TooManyFrames {
            track: "t536".into(),
            frames: 537 * per_track,
            max: MAX_VERIFIED_FRAMES,
            total: true,
        }
    );
    assert!(error.to_string().contains("in all tracks up to this one"));
}

#[test]
fn frames_beyond_two_to_the_32_are_refused_and_frames_near_1e9_compile() {
    let doc =
        scalar_doc(r#"{"frame": 5e9, "value": 0}, {"frame": 5000000010, "value": 1}"#).unwrap();
    assert_eq!(
        doc.compile(&CompileOptions::default()).unwrap_err(),
        CompileError::FrameOutOfRange {
            track: "x".into(),
            frame: 5e9,
            max: MAX_COMPILE_FRAME,
        }
    );
    // Near 1e9 (frames are exact there to 2^-23): compiles and plays the exact line.
    let doc = scalar_doc(
        r#"{"frame": 1000000000, "value": 0, "interp": "linear"}, {"frame": 1000000100, "value": 100}"#,
    )
    .unwrap();
    let compiled = doc.compile(&CompileOptions::default()).unwrap();
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let mut player = TrackPlayer::new(stream.track(0).unwrap());
    player.seek(1e9 + 37.0).unwrap();
    assert!((player.component(0) - 37.0).abs() < 1e-9);
}

#[test]
fn a_piece_of_a_million_frames_compiles_and_plays() {
    let doc = scalar_doc(
        r#"{"frame": 0, "value": 0, "interp": "linear"}, {"frame": 1000000, "value": 2000000}"#,
    )
    .unwrap();
    let compiled = doc.compile(&CompileOptions::default()).unwrap();
    assert_eq!(compiled.reports[0].summary.pieces, 1);
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    let mut player = TrackPlayer::new(stream.track(0).unwrap());
    player.seek(999_999.0).unwrap();
    assert_eq!(player.component(0), 1_999_998.0);
}

#[test]
fn steps_eases_asking_for_more_spans_than_the_limits_are_refused_before_any_work() {
    let keys = |n: u64| {
        format!(
            r#"{{"frame": 0, "value": 0, "interp": "linear", "ease": {{"steps": [{n}, "jump_end"]}}}},
               {{"frame": 5, "value": 1, "ease": {{"steps": [2, "jump_end"]}}}}, {{"frame": 9, "value": 2}}"#
        )
    };
    // n + 2 spans in one track: at the per-track limit with n = 2^22 − 2 (not compiled here:
    // four million pieces); one more step and the second segment crosses it.
    let error = scalar_doc(&keys(MAX_SPANS_PER_TRACK - 1))
        .unwrap()
        .compile(&CompileOptions::default())
        .unwrap_err();
    assert_eq!(
        error,
        CompileError::TooManySpans {
            track: "x".into(),
            key: 1,
            frame: 5.0,
            spans: MAX_SPANS_PER_TRACK + 1,
            max: MAX_SPANS_PER_TRACK,
        }
    );
    // steps(1 000 000 000) once made the compiler list 1e9 spans (23 GiB; found by fuzzing,
    // tests/fuzz_regressions/document_json/steps_ease_with_a_billion_steps.json, and again
    // through `compile_with_progress`, which the CLI's `compile` and `preview` call).
    let billion = scalar_doc(&keys(1_000_000_000)).unwrap();
    for error in [
        billion.compile(&CompileOptions::default()).unwrap_err(),
        billion
            .compile_with_progress(&CompileOptions::default(), &mut |_, _| {})
            .unwrap_err(),
    ] {
        assert!(
            matches!(error, CompileError::TooManySpans { key: 0, frame, .. } if frame == 0.0),
            "{error}"
        );
    }
    // Tracks each within the per-track limit, together past the piece limit: 16 tracks of
    // 2^22 spans are 2^26 = MAX_PIECES; the 17th track's first segment crosses it.
    let track = |i: usize| {
        format!(
            r#"{{"name": "t{i}", "type": "scalar", "keys": [{}]}}"#,
            keys(MAX_SPANS_PER_TRACK - 2)
        )
    };
    let tracks: Vec<String> = (0..17).map(track).collect();
    let doc = Document::from_json_str(
        &format!(r#"{{"inbetween": 1, "tracks": [{}]}}"#, tracks.join(",")),
        "many.json",
    )
    .unwrap();
    assert_eq!(MAX_PIECES as u64, 16 * MAX_SPANS_PER_TRACK);
    assert_eq!(
        doc.compile(&CompileOptions::default()).unwrap_err(),
        CompileError::TooManyPieces {
            track: "t16".into(),
            frame: 0.0,
            max: MAX_PIECES,
        }
    );
}

#[test]
fn expressions_beyond_the_length_and_depth_limits_are_refused_naming_the_key() {
    let expr_doc = |source: &str| {
        scalar_doc(&format!(
            r#"{{"frame": 0, "value": 0, "interp": {{"expr": "{source}"}}}}, {{"frame": 10, "value": 1}}"#
        ))
    };
    let at_limit = format!("u{}", "+u".repeat((MAX_EXPR_LEN - 1) / 2));
    assert_eq!(at_limit.len(), MAX_EXPR_LEN - 1);
    assert!(expr_doc(&at_limit).is_ok());
    let long = format!("{at_limit}+u");
    let error = expr_doc(&long).unwrap_err().error;
    assert_eq!(error.location.field.as_deref(), Some("interp.expr"));
    assert!(
        matches!(&error.kind, ErrorKind::Expr { error, .. }
            if error.kind == ExprErrorKind::TooLong { len: MAX_EXPR_LEN + 1, max: MAX_EXPR_LEN }),
        "{error}"
    );
    let nested = |depth: usize| format!("{}u{}", "(".repeat(depth), ")".repeat(depth));
    assert!(expr_doc(&nested(MAX_EXPR_DEPTH - 1)).is_ok());
    let error = expr_doc(&nested(MAX_EXPR_DEPTH + 1)).unwrap_err().error;
    assert!(
        matches!(&error.kind, ErrorKind::Expr { error, .. }
            if error.kind == ExprErrorKind::TooDeep { max: MAX_EXPR_DEPTH }),
        "{error}"
    );
}

/// x = u, y = a triangle wave of `teeth` teeth: every corner is a sharp turn that the
/// quadrature resolves by bisecting to its tolerance, so each segment keeps many leaves.
struct Zigzag {
    teeth: f64,
}

impl ParamCurve for Zigzag {
    fn dims(&self) -> usize {
        2
    }
    fn eval(&self, u: f64, out: &mut [f64]) {
        let t = u * self.teeth;
        out[0] = u;
        out[1] = (t - t.floor() - 0.5).abs();
    }
    fn derivative(&self, u: f64, out: &mut [f64]) {
        let t = u * self.teeth;
        out[0] = 1.0;
        out[1] = if t - t.floor() < 0.5 {
            -self.teeth
        } else {
            self.teeth
        };
    }
}

#[test]
fn an_arclength_table_keeps_at_most_the_leaf_limit() {
    let curve = Zigzag { teeth: 24.0 };
    let one = ArcLengthTable::build(&[&curve], 1e-9).unwrap();
    // Exact length of one segment: 48 legs of (1/48, 1/2).
    let leg = ((1.0f64 / 48.0).powi(2) + 0.25).sqrt();
    assert!((one.total_length() - 48.0 * leg).abs() < 1e-9 * 48.0 * leg);
    let segments: Vec<&dyn ParamCurve> = vec![&curve; 1 << 20];
    let error = ArcLengthTable::build(&segments, 1e-9).unwrap_err();
    assert!(
        matches!(error, ArcLengthError::TooManyIntervals { max: MAX_TABLE_LEAVES, segment } if segment > 0),
        "{error}"
    );
}

#[cfg(feature = "gltf")]
#[test]
fn gltf_key_counts_beyond_the_key_limit_are_refused_before_reading() {
    use inbetween::gltf_import::{
        import_gltf_slice, AccessorProblem, GltfImportError, ImportOptions,
    };
    let count = MAX_KEYS_PER_TRACK + 1;
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "nodes": [{"name": "n"}],
        "buffers": [{"byteLength": 4, "uri": "data:application/octet-stream;base64,AAAAAA=="}],
        "bufferViews": [{"buffer": 0, "byteLength": 4}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": count, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 0, "componentType": 5126, "count": count, "type": "VEC3"}
        ],
        "animations": [{
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
            "samplers": [{"input": 0, "output": 1}]
        }]
    });
    let error = import_gltf_slice(json.to_string().as_bytes(), None, &ImportOptions::default())
        .unwrap_err();
    assert!(
        matches!(
            &error,
            GltfImportError::Accessor {
                role: "input",
                accessor: 0,
                problem: AccessorProblem::TooManyKeys { count: c, limit: MAX_KEYS_PER_TRACK },
                ..
            } if *c == count
        ),
        "{error}"
    );
}

/// A one-channel glTF (translation of node 0, one key) over `buffers`; the key time is read
/// from buffer `time_buffer`, the value from buffer 0.
#[cfg(feature = "gltf")]
fn one_key_gltf(buffers: serde_json::Value, time_buffer: usize) -> serde_json::Value {
    serde_json::json!({
        "asset": {"version": "2.0"},
        "nodes": [{"name": "n"}],
        "buffers": buffers,
        "bufferViews": [{"buffer": time_buffer, "byteLength": 4},
                        {"buffer": 0, "byteOffset": 4, "byteLength": 12}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 1, "type": "SCALAR",
             "min": [0.0], "max": [0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 1, "type": "VEC3"}
        ],
        "animations": [{
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
            "samplers": [{"input": 0, "output": 1}]
        }]
    })
}

/// A GLB file (glTF 2.0 §4.4) of `json` and a binary chunk of 16 zero bytes.
#[cfg(feature = "gltf")]
fn glb_with_16_zero_bytes(json: &serde_json::Value) -> Vec<u8> {
    let mut text = json.to_string().into_bytes();
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let mut glb = b"glTF".to_vec();
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&((12 + 8 + text.len() + 8 + 16) as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    glb.extend_from_slice(&16u32.to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&[0; 16]);
    glb
}

#[cfg(all(feature = "gltf", unix))]
#[test]
fn gltf_buffer_devices_are_refused_and_files_are_read_up_to_their_byte_length_only() {
    use inbetween::gltf_import::{import_gltf_slice, BufferProblem, ImportOptions};
    // /dev/zero never ends: reading it whole once took all memory. It is not a regular file, so
    // it is not opened for reading at all now (tests/gltf_confinement.rs has every rule).
    let json = one_key_gltf(
        serde_json::json!([{"byteLength": 16, "uri": "dev/zero"}]),
        0,
    );
    let error = import_gltf_slice(
        json.to_string().as_bytes(),
        Some(std::path::Path::new("/")),
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            error.buffer_problem(),
            Some(BufferProblem::NotRegularFile {
                kind: "a character device",
                ..
            })
        ),
        "{error}"
    );
    // A regular file longer than byteLength: only byteLength bytes are read.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("long.bin"), vec![0u8; 1 << 20]).unwrap();
    let json = one_key_gltf(
        serde_json::json!([{"byteLength": 16, "uri": "long.bin"}]),
        0,
    );
    let doc = import_gltf_slice(
        json.to_string().as_bytes(),
        Some(dir.path()),
        &ImportOptions::default(),
    )
    .unwrap();
    assert_eq!(doc.tracks()[0].eval(0.0).as_slice(), &[0.0, 0.0, 0.0]);
}

#[cfg(feature = "gltf")]
#[test]
fn gltf_buffers_beyond_a_gibibyte_and_extra_glb_chunk_buffers_are_refused() {
    use inbetween::gltf_import::{
        import_gltf_slice, BufferProblem, ImportOptions, MAX_BUFFER_BYTES,
    };
    let import = |bytes: &[u8]| import_gltf_slice(bytes, None, &ImportOptions::default());
    let json = one_key_gltf(
        serde_json::json!([{"byteLength": MAX_BUFFER_BYTES + 1, "uri": "data:application/octet-stream;base64,AAAA"}]),
        0,
    );
    let error = import(json.to_string().as_bytes()).unwrap_err();
    assert!(
        matches!(
            error.buffer_problem(),
            Some(BufferProblem::TooLarge {
                limit: 1073741824,
                ..
            })
        ),
        "{error}"
    );
    // A GLB whose second buffer has no uri: each such buffer was one more copy of the binary
    // chunk in memory. glTF 2.0 §4.4.3.3 allows only the first.
    let json = one_key_gltf(
        serde_json::json!([{"byteLength": 16}, {"byteLength": 16}]),
        1,
    );
    let error = import(&glb_with_16_zero_bytes(&json)).unwrap_err();
    assert!(
        matches!(
            error.buffer_problem(),
            Some(BufferProblem::NotFirstOnBinaryChunk)
        ),
        "{error}"
    );
    // The same file with the time in buffer 0 imports.
    let json = one_key_gltf(serde_json::json!([{"byteLength": 16}]), 0);
    assert!(import(&glb_with_16_zero_bytes(&json)).is_ok());
}
