//! Frames between integer frames under oscillating eases (elastic): the documents whose fits once played beyond the tolerance there, and random ones, played at other rates and fractional seeks against exact evaluation at 1 × tolerance.
//!
//! The compiler samples fits between frames; the samples are played values, so their rounding
//! was sampled too, and a fit under an elastic ease (pieces of 1/8 frame, degree 8, unit-step
//! differences up to 3e13 for values near 100) played up to 1.17 × the tolerance between them.
//! The compiler now adds twice the player's rounding bound of such a piece to the error it
//! samples (`compile::seek::entry_rounding`), on fits shorter than 1/16 frame too (with the
//! sharper position term of `entry_rounding_sharp`, splitting under `MARGIN_SPLIT_BUDGET`).
//! The documents below were found by `crates/inbetween-bench/examples/between_search.rs` or
//! the proptest below (a seed and a count each); each failed before its fix at the frame named.

use proptest::prelude::*;
use serde_json::{json, Value as Json};

use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream};
use inbetween::{Document, Track};

/// A scalar of five keys under `in_elastic`, `in_out_elastic` and `out_elastic` (search of 10 000
/// documents, seed 2, document 816): 1.07 × the tolerance at frame 34.6 (rate 0.3 from frame
/// 10), inside a 1/8-frame degree-8 piece of the 2.5-frame `in_out_elastic` segment.
const SCALAR_ELASTIC: &str = r#"{"inbetween":1,"fps":24.0,"tracks":[{"name":"t","type":"scalar","wrap":"clamp","keys":[{"frame":9.25,"value":-57.458197745489684,"interp":{"hermite":{"out":-4.313154230163513,"in":-4.236171123440626}},"ease":"in_elastic"},{"frame":33.25,"value":14.510327261173806,"interp":"catmull_rom","ease":"in_out_elastic"},{"frame":35.75,"value":3.963556372372956,"interp":{"hermite":{"out":-0.4913694881509989,"in":0.5972558314988885}},"ease":"in_out_elastic"},{"frame":63.0,"value":-94.55334502131394,"interp":"catmull_rom","ease":"in_out_elastic"},{"frame":71.5,"value":-63.22594280544289,"interp":{"bezier":{"out":-40.70283035433471,"in":13.760875155507591}},"ease":"out_elastic"}]}]}"#;

/// A rotation (normalized playback) with a Hermite segment under `in_elastic` (seed 2,
/// document 6438): 1.05 × the tolerance at frame 37.1 (rate 0.3 from frame 5).
const QUAT_ELASTIC: &str = r#"{"inbetween":1,"fps":24.0,"tracks":[{"name":"t","type":"quat","wrap":"clamp","keys":[{"frame":5.0,"value":[5.687607885467494,33.48810538580318,-30.871838787060945,8.965839305791201],"interp":{"hermite":{"out":[0.7718767035740193,1.0791079297346529,-1.0308725653704998,2.248600998974112],"in":[3.276548997631296,0.5017382496192457,4.211461624682645,-3.6075571519572334]}},"ease":"in_out_circ"},{"frame":18.0,"value":[42.26716678542542,-84.61790868333661,-66.40134856872,-6.545252341840535],"interp":{"hermite":{"out":[2.538494326788505,-0.4589824294415801,0.24835457993314658,4.983522444406372],"in":[-1.73981713642673,-3.5216706441763845,2.27030523944469,-2.118945727081395]}},"ease":"in_elastic"},{"frame":42.75,"value":[9.076593036347802,0.7558314618503204,51.20114509666087,11.150795117740353],"interp":"slerp","ease":"in_back"}]}]}"#;

/// A vec3 of short elastic segments (`FOCUS=1 GRID=1`, 300 documents, seed 8, document 80):
/// 1.17 × the tolerance at the fractional seek to frame 0.21484375.
const VEC3_ELASTIC: &str = r#"{"inbetween":1,"fps":60.0,"tracks":[{"name":"t","type":"vec3","wrap":"clamp","keys":[{"frame":-4.25,"value":[-19.902008587786526,68.81441843437838,-49.0556874298278],"interp":"linear","ease":"in_out_elastic"},{"frame":-1.75,"value":[54.01590725191849,-68.4260607738679,50.49299564172449],"interp":"catmull_rom","ease":"in_out_elastic"},{"frame":1.75,"value":[3.1021838978561256,93.31556884252224,37.26806110479532],"interp":"linear","ease":"out_elastic"},{"frame":5.0,"value":[-60.21521665103889,-45.92686398245254,-68.90251442980431],"interp":{"hermite":{"out":[-4.610211358874679,2.0375160190036223,-2.024374740728315],"in":[0.43366486268343607,2.7862356021976886,0.68593031041145]}},"ease":"in_out_elastic"}]}]}"#;

/// A rotation whose Bezier segment under `in_out_elastic` passes near a zero-norm quaternion,
/// so its pieces are shorter than 1/16 frame (found by the proptest below after the margin
/// was added from 1/16 frame on; piece 306: frames 2.8828125 .. 2.921875, degree 7, unit-step
/// differences up to 7e11 for components near 1). The seek to frame 2.91796875 played 1.015 ×
/// the tolerance (rounding noise of ±0.7 × it between the samples) before the margin covered
/// pieces that short.
const QUAT_NEAR_ZERO_NORM: &str = r#"{"inbetween": 1, "fps": 60.0, "tracks": [{"name": "t", "type": "quat", "wrap": "clamp", "keys": [{"frame": -5.0, "value": [0.0, 0.0, 0.0, 1.0], "interp": "linear", "ease": "in_elastic"}, {"frame": -2.25, "value": [0.0, 0.0, 0.0, 1.0], "interp": "linear", "ease": "in_elastic"}, {"frame": 1.25, "value": [70.81923651774802, 19.117880231381857, 26.773680329453967, -40.23939504942352], "interp": {"bezier": {"out": [80.52197488024711, -60.485258707693276, -16.208422103709125, -95.19486621321431], "in": [95.59407720588905, -66.46149081041838, 20.778688449875006, -31.901767656528833]}}, "ease": "in_out_elastic"}, {"frame": 3.5, "value": [87.41249730940908, -80.65841183041445, -84.27756673991739, 96.4537212330299], "interp": "linear", "ease": "in_elastic"}]}]}"#;

/// The same on a vec3 (found by the proptest below with seed 11): a Catmull-Rom segment under
/// `in_out_elastic` in pieces of 0.055 frame (piece 90: frames −4.234375 .. −4.1796875, degree
/// 7, unit-step differences up to 2e13 for values near 50); the seek to frame −4.1953125
/// played 1.16 × the tolerance before the margin covered pieces that short.
const VEC3_SHORT_PIECES: &str = r#"{"inbetween":1,"fps":60.0,"tracks":[{"name":"t","type":"vec3","wrap":"clamp","keys":[{"frame":-7.0,"value":[0.0,0.0,0.0],"interp":"linear","ease":"in_elastic"},{"frame":-5.75,"value":[-29.97276678154663,0.0,0.0],"interp":"linear","ease":"in_elastic"},{"frame":-5.0,"value":[47.42269311427928,0.0,0.0],"interp":"catmull_rom","ease":"in_out_elastic"},{"frame":-3.25,"value":[-84.96390674724294,0.0,0.0],"interp":"linear","ease":"in_elastic"}]}]}"#;

/// The largest |played − exact| / tolerance of the value `player` plays at `frame`, or
/// `None` where the exact curve jumps within 1e-7 frame (an elastic ease's value at its end
/// key is 1, not the limit of its formula).
fn ratio_at(track: &Track, player: &TrackPlayer<'_>, frame: f64, tol: f64) -> Option<f64> {
    let h = 1e-7;
    let (lo, hi) = (track.eval(frame - h), track.eval(frame + h));
    let components = track.components();
    if (0..components).any(|c| (lo[c] - hi[c]).abs() > tol) {
        return None;
    }
    let exact = track.eval(frame);
    let played = player.value();
    Some(
        (0..components)
            .map(|c| (played[c] - exact[c]).abs() / tol)
            .fold(0.0, f64::max),
    )
}

/// The worst ratio (and its frame and how it was played) of the first track of `text`
/// compiled in `precision` at the default tolerance: played from its first integer frame at
/// each of `rates`, and seeked to every 1/256 frame more than 1/64 frame from a key.
fn worst_between(text: &str, precision: Precision, rates: &[f64]) -> (f64, f64, String) {
    let doc = Document::from_json_str(text, "between.json").expect("a valid document");
    let options = CompileOptions {
        precision,
        ..CompileOptions::default()
    };
    let compiled = doc.compile(&options).expect("compiles");
    let stream = Stream::from_bytes(&compiled.bytes).expect("a valid stream");
    let track = &doc.tracks()[0];
    let tol = 1e-6 * track.scale();
    let played = stream.track(0).expect("one track");
    let (first, last) = (track.first_frame(), track.last_frame());
    let mut worst = (0.0, first, String::new());
    let mut note = |ratio: Option<f64>, frame: f64, how: &dyn Fn() -> String| {
        if let Some(r) = ratio.filter(|r| *r > worst.0) {
            // The piece played there, for the message.
            let piece = played.piece_at(frame).map_or(String::new(), |p| {
                format!(
                    ", piece {} of {} frames, degree {}",
                    p.index,
                    p.end - p.start,
                    p.degree
                )
            });
            worst = (r, frame, how() + &piece);
        }
    };
    for &rate in rates {
        let mut player = TrackPlayer::new(played);
        let start = first.ceil();
        player.seek(start).expect("seek");
        player.set_step(rate).expect("rate");
        let mut k = 0.0;
        while start + k * rate <= last {
            let frame = start + k * rate;
            note(ratio_at(track, &player, frame, tol), frame, &|| {
                format!("rate {rate}")
            });
            player.advance();
            k += 1.0;
        }
    }
    let keys: Vec<f64> = track.keys().iter().map(|k| k.frame).collect();
    let mut player = TrackPlayer::new(played);
    let mut frame = first.ceil();
    while frame <= last {
        if keys.iter().all(|k| (frame - k).abs() > 1.0 / 64.0) {
            player.seek(frame).expect("seek");
            note(ratio_at(track, &player, frame, tol), frame, &|| {
                "seek".into()
            });
        }
        frame += 1.0 / 256.0;
    }
    worst
}

/// Each found document, compiled in f64 as it was, plays within the tolerance at the rate
/// and seeks that found it (and at the other rates of `stream_documents.rs`).
#[test]
fn found_elastic_documents_play_within_tolerance_between_frames() {
    let rates = [0.3, 0.5, 60.0 / 144.0, 2.0, 2.5];
    for (name, text) in [
        ("scalar", SCALAR_ELASTIC),
        ("quat", QUAT_ELASTIC),
        ("vec3", VEC3_ELASTIC),
    ] {
        let (ratio, frame, how) = worst_between(text, Precision::F64, &rates);
        assert!(
            ratio <= 1.0,
            "{name}: {ratio} × the tolerance at frame {frame} ({how})"
        );
    }
}

/// The frames that failed, one by one: the value played there at rate 0.3 from the first
/// integer frame and after a seek.
#[test]
fn found_elastic_frames_play_within_tolerance() {
    for (text, frame) in [
        (SCALAR_ELASTIC, 34.599999999999994),
        (QUAT_ELASTIC, 37.1),
        (VEC3_ELASTIC, 0.21484375),
    ] {
        let doc = Document::from_json_str(text, "between.json").unwrap();
        let compiled = doc.compile(&CompileOptions::default()).unwrap();
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let track = &doc.tracks()[0];
        let tol = 1e-6 * track.scale();
        let mut player = TrackPlayer::new(stream.track(0).unwrap());
        player.seek(frame).unwrap();
        let ratio = ratio_at(track, &player, frame, tol).expect("continuous there");
        assert!(ratio <= 1.0, "seek to {frame}: {ratio} × the tolerance");
    }
}

/// Penner's elastic eases jump at keys: the spec's `in_elastic` is exactly 0 at u = 0 (and 1 at
/// u = 1) while its formula tends to −2⁻¹¹ ≈ −4.9e-4 as u → 0⁺, so `in_elastic` and
/// `in_out_elastic` jump right after their key and `out_elastic` and `in_out_elastic` right
/// before the next one, by 4.9e-4 × the segment's change (× ½ for `in_out`). A stream cannot
/// hold the key's value at one frame and the formula's limit just past it: the compiler splits
/// toward the jump down to `MIN_PIECE_FRAMES` (2⁻²⁰ frame) and keeps the last piece as a
/// fallback (docs/limits.md). Checked here in f32 and f64: the key's own value at each key,
/// within the tolerance from 2e-6 frame on each side of it, and closer than that within the
/// jump (plus the tolerance) of the exact value.
#[test]
fn elastic_jumps_at_keys_stay_within_two_millionths_of_a_frame() {
    const DOC: &str = r#"{"inbetween":1,"fps":30,"tracks":[{"name":"e","type":"scalar","keys":[
        {"frame":0,"value":0,"interp":"linear","ease":"in_elastic"},
        {"frame":10,"value":100,"interp":"linear","ease":"out_elastic"},
        {"frame":20,"value":0,"interp":"linear","ease":"in_out_elastic"},
        {"frame":30,"value":100}]}]}"#;
    let doc = Document::from_json_str(DOC, "elastic.json").unwrap();
    let track = &doc.tracks()[0];
    let tol = 1e-6 * track.scale();
    let jump = 100.0 * 0.5f64.powi(11) * 1.001;
    let mut offsets: Vec<f64> = (1..=200).map(|k| f64::from(k) * 1e-8).collect();
    let mut far = 2e-6;
    while far < 1.0 / 64.0 {
        offsets.push(far);
        far *= 1.25;
    }
    let mut inside_window = 0.0_f64;
    for precision in [Precision::F32, Precision::F64] {
        let options = CompileOptions {
            precision,
            ..CompileOptions::default()
        };
        let compiled = doc.compile(&options).unwrap();
        let stream = Stream::from_bytes(&compiled.bytes).unwrap();
        let mut player = TrackPlayer::new(stream.track(0).unwrap());
        for key in [0.0, 10.0, 20.0, 30.0] {
            for (side, offset) in [-1.0, 1.0].iter().flat_map(|s| {
                core::iter::once(0.0)
                    .chain(offsets.iter().copied())
                    .map(move |o| (*s, o))
            }) {
                let frame = key + side * offset;
                if !(0.0..=30.0).contains(&frame) {
                    continue;
                }
                player.seek(frame).unwrap();
                let error = (player.value()[0] - track.eval(frame)[0]).abs();
                let bound = if offset == 0.0 || offset >= 2e-6 {
                    tol
                } else {
                    inside_window = inside_window.max(error / tol);
                    jump + tol
                };
                assert!(
                    error <= bound,
                    "{precision:?}: frame {frame} ({offset} from the key at {key}): {} × the tolerance",
                    error / tol
                );
            }
        }
    }
    // The window is real: the stream does play off the exact value inside it.
    assert!(
        inside_window > 10.0,
        "{inside_window} × the tolerance at most"
    );
}

/// One key of a random document of short segments (0.5–4 frames) under elastic eases.
fn key_strategy(dims: usize) -> impl Strategy<Value = (f64, Vec<f64>, usize, usize, Vec<f64>)> {
    (
        0.5f64..4.0,
        prop::collection::vec(-100.0f64..100.0, dims),
        0usize..4,
        0usize..3,
        prop::collection::vec(-5.0f64..5.0, 2 * dims),
    )
}

/// The documents whose pieces under 1/16 frame played beyond the tolerance
/// (`QUAT_NEAR_ZERO_NORM`, `VEC3_SHORT_PIECES`: 1.015 and 1.16 × before the margin covered
/// them) play within it at rates 0.3 and 2.5 and at every 1/256-frame seek.
#[test]
fn pieces_under_a_sixteenth_of_a_frame_play_within_tolerance_between_frames() {
    let (ratio, frame, how) = worst_between(VEC3_SHORT_PIECES, Precision::F64, &[0.3, 2.5]);
    assert!(
        ratio <= 1.0,
        "vec3: {ratio} × the tolerance at frame {frame} ({how})"
    );
    let (ratio, frame, how) = worst_between(QUAT_NEAR_ZERO_NORM, Precision::F64, &[0.3, 2.5]);
    assert!(
        ratio <= 1.0,
        "quat: {ratio} × the tolerance at frame {frame} ({how})"
    );
}

/// A one-track document (scalar, vec3 or quat) of 2–5 keys 0.5–4 frames apart, on quarter
/// frames, with linear, slerp or Catmull-Rom, Hermite and Bezier segments under `in_elastic`,
/// `out_elastic` or `in_out_elastic`.
fn elastic_document() -> impl Strategy<Value = Json> {
    (0usize..3)
        .prop_flat_map(|ty| {
            let dims = [1, 3, 4][ty];
            (Just(ty), prop::collection::vec(key_strategy(dims), 2..6))
        })
        .prop_map(|(ty, keys)| {
            let (name, dims) = [("scalar", 1), ("vec3", 3), ("quat", 4)][ty];
            let value = |v: &[f64]| if dims == 1 { json!(v[0]) } else { json!(v) };
            let mut frame = -7.5;
            let list: Vec<Json> = keys
                .into_iter()
                .map(|(gap, mut v, kind, ease, extra)| {
                    frame += gap;
                    if dims == 4 && v.iter().all(|c| c.abs() < 1e-3) {
                        v[3] = 1.0;
                    }
                    let scaled: Vec<f64> = extra.iter().map(|x| x * 20.0).collect();
                    let interp = match kind {
                        0 => json!("linear"),
                        1 if dims == 4 => json!("slerp"),
                        1 => json!("catmull_rom"),
                        2 => json!({"hermite": {"out": value(&extra[..dims]), "in": value(&extra[dims..])}}),
                        _ => json!({"bezier": {"out": value(&scaled[..dims]), "in": value(&scaled[dims..])}}),
                    };
                    let ease = ["in_elastic", "out_elastic", "in_out_elastic"][ease];
                    json!({"frame": (frame * 4.0_f64).round() / 4.0, "value": value(&v), "interp": interp, "ease": ease})
                })
                .collect();
            json!({"inbetween": 1, "fps": 60.0, "tracks": [{"name": "t", "type": name, "wrap": "clamp", "keys": list}]})
        })
}

proptest! {
    // About 0.3 % of these documents played beyond the tolerance before the margin (6 of 2 000
    // in `FOCUS=1 GRID=1 between_search 2000 9`), and about one in 1 000 with the margin on
    // pieces of 1/16 frame or longer only (in shorter pieces: `VEC3_SHORT_PIECES`, found with
    // this seed); some 20 s in release. Every frame is counted. The seed is fixed so that CI
    // is the same run each time (random seeds were run by hand: docs/stream-format.md).
    #![proptest_config(ProptestConfig {
        cases: 1000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(11),
        ..ProptestConfig::default()
    })]

    /// Random elastic documents compiled in f64 play within the tolerance at rates 0.3 and
    /// 2.5 and at fractional seeks every 1/256 frame away from the keys.
    #[test]
    fn elastic_documents_play_within_tolerance_between_frames(doc in elastic_document()) {
        let text = doc.to_string();
        let (ratio, frame, how) = worst_between(&text, Precision::F64, &[0.3, 2.5]);
        prop_assert!(ratio <= 1.0, "{ratio} × the tolerance at frame {frame} ({how})\n{text}");
    }
}
