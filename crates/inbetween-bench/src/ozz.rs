//! The ozz workload of `inbetween bench`: N character instances playing ozz-animation-rs's "playback" sample clip (67 joints), imported from its `.ozz` archive.
//!
//! The clip (`tests/corpus/ozz/playback/animation.ozz`, 8.6 s, built in) is imported at
//! [`OZZ_FPS`] with [`inbetween::ozz_import::import_ozz`] (translation and scale linear,
//! rotation as ozz's nlerp), compiled once in f32 within [`OZZ_TOLERANCE`], and played by one
//! `Bank` over N copies of the stream — every instance at the same frame. The reference for the check is exact evaluation
//! of the imported keys (N copies of the document's tracks). A channel is one joint: its
//! translation, rotation and scale, ten f32 values per joint-frame.
//!
//! ozz-animation-rs's own `SamplingJob` (crate 0.11) is not among the methods: that release
//! needs `#![feature(portable_simd)]` and calls `Mask::to_int`, which today's standard library
//! no longer has, so it builds with neither the stable nor the nightly toolchain as published.
//! `tools/ozz-compare/run.sh` builds it with those four calls renamed and times it against the
//! bank on this workload (docs/ozz.md).

use inbetween::ozz_import::import_ozz;
use inbetween::stream::{Precision, Stream};
use inbetween::{Document, TrackBuilder};

use super::{
    check_and_time, compile_all, BatchMethod, BenchReport, ExactMethod, Method, StreamingCeiling,
};

/// The playback sample's animation archive.
const ANIMATION: &[u8] = include_bytes!("../../../tests/corpus/ozz/playback/animation.ozz");
/// Its skeleton (joint names).
const SKELETON: &[u8] = include_bytes!("../../../tests/corpus/ozz/playback/skeleton.ozz");

/// Frames per second the clip is imported and played at (8.6 s → 516 frames, so the played
/// window `START_FRAME..START_FRAME + 300` lies inside the clip).
pub const OZZ_FPS: f64 = 60.0;

/// The compile tolerance of the ozz workload, absolute (value units: metres, quaternion
/// components, scale factors): the bank's error against exact evaluation (tolerance plus f32
/// output rounding) then stays below ozz-animation-rs's own, 3.6e-7 on this clip
/// (`tools/ozz-compare/run.sh`).
pub const OZZ_TOLERANCE: f64 = 2e-7;

/// The imported clip.
///
/// # Errors
/// The importer's message (not expected for the built-in clip).
pub fn ozz_clip() -> Result<Document, String> {
    import_ozz(ANIMATION, Some(SKELETON), OZZ_FPS).map_err(|e| e.to_string())
}

/// `instances` copies of the clip's tracks (named `iK/JOINT/kind`), the reference for the
/// check and what `inbetween-exact` plays.
///
/// # Errors
/// The document builder's message (not expected).
pub fn instanced(clip: &Document, instances: usize) -> Result<Document, String> {
    let mut builder = Document::builder().fps(clip.fps());
    for i in 0..instances {
        for t in clip.tracks() {
            let mut b = TrackBuilder::new(format!("i{i}/{}", t.name()), t.value_type());
            for k in t.keys() {
                b = b.key(k.frame, k.value).interp(k.interp.clone());
            }
            builder = builder.track(b);
        }
    }
    builder.build().map_err(|e| e.to_string())
}

/// Times the ozz workload at `instances` characters: `inbetween-batch-f32` (one bank over
/// `instances` copies of the compiled clip), `inbetween-exact` and `streaming-ceiling` over the
/// same ten values per joint.
///
/// # Errors
/// As [`super::run_bench_with_status`].
pub fn bench_ozz(
    instances: usize,
    shape: (usize, usize),
    report: &mut BenchReport,
    status: &mut dyn FnMut(&str),
) -> Result<(), String> {
    let clip = ozz_clip()?;
    let joints = clip.tracks().len() / 3;
    status(&format!("compiling the ozz clip ({joints} joints)"));
    let at = ("ozz", Some(OZZ_TOLERANCE));
    let bytes = compile_all(&clip, at, &[Precision::F32], &mut report.compile);
    let (_, f32_bytes) = bytes
        .first()
        .ok_or("the ozz clip does not compile in f32")?;
    let stream = Stream::from_bytes(f32_bytes).map_err(|e| e.to_string())?;
    let doc = instanced(&clip, instances)?;
    let mut methods: Vec<Box<dyn Method + '_>> = vec![
        Box::new(BatchMethod::new_many(
            "inbetween-batch-f32",
            &vec![stream; instances],
        )?),
        Box::new(ExactMethod::new(&doc)),
        Box::new(StreamingCeiling::new(super::width(&doc))),
    ];
    let at = ("ozz", joints * instances);
    let reference = super::Reference::for_check(&doc, shape.0)?;
    check_and_time(
        &mut methods,
        reference,
        at,
        shape,
        &mut report.results,
        status,
    )
}
