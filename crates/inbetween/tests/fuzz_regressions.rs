//! The fuzz corpus kept as tests: every input a fuzz target once failed on (a named test each)
//! and a few interesting inputs of each target, run through the same code as the fuzz targets
//! (`fuzz_regressions/harness.rs`, shared with `fuzz/fuzz_targets/*`). See docs/reliability.md.

#[path = "fuzz_regressions/harness.rs"]
mod harness;

use std::path::{Path, PathBuf};

/// The folder of one target's saved inputs.
fn folder(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target)
}

/// The bytes of one saved input.
fn input(target: &str, name: &str) -> Vec<u8> {
    let path = folder(target).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Runs `run` on every saved input of `target`; returns how many there were.
fn run_all(target: &str, run: fn(&[u8])) -> usize {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(folder(target))
        .unwrap_or_else(|e| panic!("cannot list the {target} inputs: {e}"))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    paths.sort();
    for path in &paths {
        let bytes = std::fs::read(path).expect("saved input");
        println!("{}", path.display());
        run(&bytes);
    }
    paths.len()
}

/// Found while seeding the fuzzer with hostile documents: `{"steps": [1000000000, ...]}` on a
/// 100-frame segment made the compiler list a span per step (out of memory, > 2 GB). Now
/// refused before any work with `CompileError::TooManySpans` (per track, issue 18; it was
/// `TooManyPieces`, checked on `Document::compile` only).
#[test]
fn document_steps_ease_with_a_billion_steps() {
    let bytes = input("document_json", "steps_ease_with_a_billion_steps.json");
    harness::document_json(&bytes);
    let doc = inbetween::Document::from_json_slice(&bytes, "steps.json").unwrap();
    assert!(matches!(
        doc.compile(&Default::default()),
        Err(inbetween::compile::CompileError::TooManySpans { .. })
    ));
}

/// Found in the limits audit: a loop or ping-pong track with keys beyond 2^53 made the wrap
/// check loop forever (`k += 1.0` no longer changes k there). Now refused before any work with
/// `CompileError::FrameOutOfRange` (frames beyond ±2^32).
#[test]
fn document_loop_keys_beyond_two_to_the_53() {
    for name in [
        "loop_keys_near_1e17_hung_the_compiler.json",
        "loop_keys_just_below_2p53_hung_the_compiler.json",
    ] {
        let bytes = input("document_json", name);
        harness::document_json(&bytes);
        let doc = inbetween::Document::from_json_slice(&bytes, name).unwrap();
        assert!(matches!(
            doc.compile(&Default::default()),
            Err(inbetween::compile::CompileError::FrameOutOfRange { .. })
        ));
    }
}

/// Found by the `gltf` target (2.5 minutes in): a mesh primitive whose POSITION attribute names
/// an accessor that does not exist made gltf-json 1.4.1's own validation index out of bounds
/// (a panic inside `Root::validate`). Now refused as `GltfImportError::Invalid`.
#[cfg(feature = "gltf")]
#[test]
fn gltf_mesh_position_accessor_out_of_range() {
    use inbetween::gltf_import::{import_gltf_slice, GltfImportError, ImportOptions};
    let bytes = input("gltf", "crash_mesh_position_accessor_out_of_range.gltf");
    harness::gltf(&bytes);
    let error = import_gltf_slice(&bytes, None, &ImportOptions::default()).unwrap_err();
    assert!(
        matches!(&error, GltfImportError::Invalid { problems }
            if problems.iter().any(|p| p.contains("attributes.POSITION: Index out of range"))),
        "{error}"
    );
}

/// Found by the `gltf` target (second run, 3 minutes in): a channel whose target node does not
/// exist reached the `unwrap` in the `gltf` crate's `Target::node` (gltf-json 1.4.1 never
/// validates channel targets); an unknown target path (`channel_target_path_unknown.gltf`,
/// written by hand after reading that code) reached the one in `Target::property`. Now both
/// are refused as `GltfImportError::Invalid`.
#[cfg(feature = "gltf")]
#[test]
fn gltf_channel_target_node_out_of_range_or_path_unknown() {
    use inbetween::gltf_import::{import_gltf_slice, GltfImportError, ImportOptions};
    for (name, problem) in [
        (
            "crash_channel_target_node_out_of_range.gltf",
            "animations[0].channels[1].target.node",
        ),
        (
            "channel_target_path_unknown.gltf",
            "animations[0].channels[0].target.path",
        ),
    ] {
        let bytes = input("gltf", name);
        harness::gltf(&bytes);
        let error = import_gltf_slice(&bytes, None, &ImportOptions::default()).unwrap_err();
        assert!(
            matches!(&error, GltfImportError::Invalid { problems }
                if problems.iter().any(|p| p.starts_with(problem))),
            "{name}: {error}"
        );
    }
}

/// Found by the `stream` target (checksum fixed up, 65 s in; saved here with its checksum made
/// right, as the harness plays it): a track whose last frame is
/// 1.1e21 made `Track::summary` overflow `u64` counting its frames (`integer_frames`
/// saturates at u64::MAX, then + 1; a panic with overflow checks, a count of 0 without).
#[test]
fn stream_summary_frame_count_overflow() {
    let bytes = input("stream", "crash_summary_frame_count_overflow.ibs");
    harness::stream(&bytes);
    let stream = inbetween::stream::Stream::from_bytes(&bytes).unwrap();
    let track = stream.track(0).unwrap();
    assert!(track.last_frame() > 1e21);
    assert_eq!(track.summary().frames, u64::MAX);
}

/// A fixed-point piece whose differences are all zero passes the value bound at any length; its
/// length then made the replay's frame count overflow (`u64::MAX + 1`) in validation.
#[test]
fn stream_fixed_replay_count_overflow() {
    let bytes = input("stream", "crash_fixed_replay_count_overflow.ibs");
    harness::stream(&bytes);
    let sealed = harness::with_length_and_checksum(&bytes);
    let error = inbetween::stream::Stream::from_bytes(&sealed).unwrap_err();
    assert!(
        matches!(
            error,
            inbetween::stream::StreamError::FixedReplayTooLong { .. }
        ),
        "{error}"
    );
}

/// Compiles the saved document input `name` with the default options and requires at most
/// `bound` pieces, and every integer frame within the tolerance.
fn compiles_in_at_most(name: &str, bound: usize) {
    let bytes = input("document_json", name);
    let doc = inbetween::Document::from_json_slice(&bytes, name).unwrap();
    let compiled = doc
        .compile(&inbetween::compile::CompileOptions::default())
        .unwrap();
    let pieces: u64 = compiled
        .reports
        .iter()
        .map(|r| r.summary.pieces as u64)
        .sum();
    assert!(
        pieces <= bound as u64,
        "{name}: {pieces} pieces, more than {bound}"
    );
    let stream = inbetween::stream::Stream::from_bytes(&compiled.bytes).unwrap();
    let track = stream.track(0).unwrap();
    assert!(track.summary().max_error <= track.summary().tolerance);
}

/// `0.401 sin(100000 u)` over 10 frames (one span) oscillates 1 600 times a frame: every halving
/// below a sixteenth of a frame reduced the error between frames, so the compiler split on to
/// 18 364 pieces (2.4 s; past the fuzzer's 10 s with sanitizers). `DEEP_SPLIT_WORK` bounds the
/// deep splits of a span; the integer frames still hold the tolerance.
#[test]
fn document_expression_oscillating_faster_than_frames_compiles_in_bounded_pieces() {
    compiles_in_at_most(
        "slow_expr_oscillating_faster_than_frames.json",
        2 * inbetween::compile::DEEP_SPLIT_WORK + 16 * 10,
    );
}

/// `floor(1020 frame)` over 2 000 frames: a staircase of 2 million steps. The integer frames
/// hold with any piece, but the error between frames sent every frame into sixteen pieces
/// (7 911 pieces, 1.0 s). Splits made only for the error between frames share
/// `DEEP_SPLIT_WORK`.
#[test]
fn document_expression_staircase_faster_than_frames_compiles_in_bounded_pieces() {
    compiles_in_at_most(
        "slow_expr_staircase_faster_than_frames.json",
        inbetween::compile::DEEP_SPLIT_WORK + 2_000,
    );
}

#[test]
fn every_saved_document_input_runs_clean() {
    assert!(run_all("document_json", harness::document_json) >= 3);
}

#[test]
fn every_saved_expression_input_runs_clean() {
    assert!(run_all("expression", harness::expression) >= 3);
}

#[test]
fn every_saved_stream_input_runs_clean() {
    assert!(run_all("stream", harness::stream) >= 3);
}

#[cfg(feature = "gltf")]
#[test]
fn every_saved_gltf_input_runs_clean() {
    assert!(run_all("gltf", harness::gltf) >= 3);
}
