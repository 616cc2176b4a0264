//! `.ozz` import against the corpus (ozz-animation-rs's sample archives): header figures read by hand from the files, half floats against their closed form, rotation keys against an encoder written here, and the imported document against a sampler that walks the runtime key layout the way ozz's `SamplingJob` does (its cache of right-hand keys advanced in storage order) and interpolates in f32 as it does, at every frame.
#![cfg(feature = "ozz")]

use std::path::{Path, PathBuf};

use inbetween::ozz_import::{
    decompress_quat, half_to_f32, import_ozz, rotation_tracks, KeyArray, OzzAnimation,
    OzzImportError, OzzSkeleton,
};
use inbetween::Document;

fn corpus(name: &str) -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/ozz"
    ))
    .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(corpus(name)).unwrap()
}

const CLIPS: [(&str, &str); 4] = [
    ("playback/animation.ozz", "playback/skeleton.ozz"),
    ("blend/animation1.ozz", "blend/skeleton.ozz"),
    ("blend/animation2.ozz", "blend/skeleton.ozz"),
    ("blend/animation3.ozz", "blend/skeleton.ozz"),
];

// ---------------------------------------------------------------------------------------------
// Reference sampler: the runtime's key walk and f32 interpolation, written from the layout.

/// Per padded track, the (left, right) key indices around `ratio`: starts from the first two
/// keys of every track (`i` and `i + N`) and, while the next stored key's predecessor starts at
/// or before `ratio`, makes that key the right one of the track whose right key is its
/// predecessor — `SamplingJob`'s forward update from a fresh cache.
fn walk(anim: &OzzAnimation, array: &KeyArray, ratio: f32) -> Vec<(usize, usize)> {
    let n = anim.padded_tracks();
    let mut right: Vec<usize> = (0..n).map(|i| i + n).collect();
    let mut next = 2 * n;
    let time = |k: usize| anim.timepoints[usize::from(array.ratios[k])];
    while next < array.keys.len() {
        let previous = next - usize::from(array.previouses[next]);
        if time(previous) > ratio {
            break;
        }
        let track = right.iter().position(|&r| r == previous).unwrap();
        right[track] = next;
        next += 1;
    }
    right
        .into_iter()
        .map(|r| {
            let back = if r < 2 * n {
                n
            } else {
                usize::from(array.previouses[r])
            };
            (r - back, r)
        })
        .collect()
}

/// `(ratio − r0) / (r1 − r0)` in f32, as `SamplingJob::interpolates` computes it.
fn alpha(anim: &OzzAnimation, array: &KeyArray, (l, r): (usize, usize), ratio: f32) -> f32 {
    let t = |k: usize| anim.timepoints[usize::from(array.ratios[k])];
    (ratio - t(l)) / (t(r) - t(l))
}

fn lerp3(anim: &OzzAnimation, array: &KeyArray, lr: (usize, usize), ratio: f32) -> [f32; 3] {
    let a = alpha(anim, array, lr, ratio);
    let (p, q) = (
        array.keys[lr.0].map(half_to_f32),
        array.keys[lr.1].map(half_to_f32),
    );
    std::array::from_fn(|c| (q[c] - p[c]) * a + p[c])
}

fn nlerp(anim: &OzzAnimation, lr: (usize, usize), ratio: f32) -> [f32; 4] {
    let array = &anim.rotations;
    let a = alpha(anim, array, lr, ratio);
    let (p, q) = (
        decompress_quat(array.keys[lr.0]),
        decompress_quat(array.keys[lr.1]),
    );
    let l: [f32; 4] = std::array::from_fn(|c| (q[c] - p[c]) * a + p[c]);
    let inv = 1.0 / (l.iter().map(|x| x * x).sum::<f32>()).sqrt();
    l.map(|x| x * inv)
}

/// Largest difference, over every frame of the clip at `fps` and every joint, between the
/// document's exact evaluation and the reference sampler; also the largest value seen.
fn compare(animation: &str, skeleton: &str, fps: f64) -> (f64, f64) {
    let bytes = read(animation);
    let anim = OzzAnimation::parse(&bytes).unwrap();
    let skel = OzzSkeleton::parse(&read(skeleton)).unwrap();
    let doc = import_ozz(&bytes, Some(&read(skeleton)), fps).unwrap();
    let frames = (f64::from(anim.duration) * fps).floor() as usize;
    let (mut worst, mut largest) = (0.0f64, 0.0f64);
    for frame in 0..=frames {
        let ratio = (frame as f32 / (anim.duration * fps as f32)).min(1.0);
        let t = walk(&anim, &anim.translations, ratio);
        let r = walk(&anim, &anim.rotations, ratio);
        let s = walk(&anim, &anim.scales, ratio);
        for (j, name) in skel.names.iter().enumerate() {
            let expected: [Vec<f32>; 3] = [
                lerp3(&anim, &anim.translations, t[j], ratio).to_vec(),
                nlerp(&anim, r[j], ratio).to_vec(),
                lerp3(&anim, &anim.scales, s[j], ratio).to_vec(),
            ];
            for (kind, want) in ["translation", "rotation", "scale"].iter().zip(&expected) {
                let track = doc.track(&format!("{name}/{kind}")).unwrap();
                let got = track.eval(frame as f64);
                for (g, w) in got.as_slice().iter().zip(want) {
                    worst = worst.max((g - f64::from(*w)).abs());
                    largest = largest.max(g.abs());
                }
            }
        }
    }
    (worst, largest)
}

#[test]
fn imported_clips_match_the_runtime_sampler_at_every_frame() {
    for (animation, skeleton) in CLIPS {
        for fps in [30.0, 60.0] {
            let (worst, largest) = compare(animation, skeleton, fps);
            // f32 sampling (key decompression, lerp, normalization: a few f32 ulps) against
            // f64 evaluation of keys normalized in f64. With slerp in place of the chord
            // hermite the playback clip is off by 3.4e-4 (tried once).
            assert!(
                worst <= 1e-6 * largest.max(1.0),
                "{animation} at {fps} fps: error {worst:e} (values up to {largest})"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The archives as read by hand.

#[test]
fn playback_header_and_skeleton_read_as_stored() {
    let anim = OzzAnimation::parse(&read("playback/animation.ozz")).unwrap();
    // Bytes 0x13.. of the file: duration 0x4109999a, 67 tracks, name "crossarms", then counts.
    assert_eq!(anim.duration, f32::from_bits(0x4109_999a));
    assert_eq!(anim.name, "crossarms");
    assert_eq!(anim.num_tracks, 67);
    assert_eq!(anim.padded_tracks(), 68);
    assert_eq!(anim.timepoints.len(), 252);
    assert_eq!(anim.translations.keys.len(), 178);
    assert_eq!(anim.rotations.keys.len(), 1748);
    assert_eq!(anim.scales.keys.len(), 136);
    let skel = OzzSkeleton::parse(&read("playback/skeleton.ozz")).unwrap();
    assert_eq!(skel.names.len(), 67);
    assert_eq!(&skel.names[..4], ["Hips", "Pelvis", "Spine", "Spine1"]);
    assert_eq!(skel.parents[0], -1);
    assert!(skel
        .parents
        .iter()
        .enumerate()
        .skip(1)
        .all(|(j, &p)| (0..j as i16).contains(&p)));
}

#[test]
fn every_track_starts_at_ratio_zero_and_ends_at_one() {
    for (animation, _) in CLIPS {
        let anim = OzzAnimation::parse(&read(animation)).unwrap();
        for track in rotation_tracks(&anim).unwrap() {
            assert_eq!(track.first().unwrap().0, 0.0, "{animation}");
            assert_eq!(track.last().unwrap().0, 1.0, "{animation}");
        }
    }
}

#[test]
fn document_has_three_tracks_per_joint_named_from_the_skeleton_or_by_index() {
    let bytes = read("blend/animation2.ozz");
    let named = import_ozz(&bytes, Some(&read("blend/skeleton.ozz")), 30.0).unwrap();
    let indexed = import_ozz(&bytes, None, 30.0).unwrap();
    let anim = OzzAnimation::parse(&bytes).unwrap();
    assert_eq!(named.tracks().len(), 3 * anim.num_tracks);
    assert_eq!(indexed.tracks().len(), 3 * anim.num_tracks);
    let last = f64::from(anim.duration) * 30.0;
    for (kind, components) in [("translation", 3), ("rotation", 4), ("scale", 3)] {
        let t = named.track(&format!("Hips/{kind}")).unwrap();
        assert_eq!(t.components(), components);
        assert!((t.last_frame() - last).abs() < 1e-9);
        let i = indexed.track(&format!("0/{kind}")).unwrap();
        assert_eq!(i.keys(), t.keys());
    }
    // The rotation segments are hermite with both slopes on the chord (see the module docs).
    let rot = named.track("Hips/rotation").unwrap();
    assert_eq!(rot.kinds_used(), vec!["hermite"]);
}

// ---------------------------------------------------------------------------------------------
// Decompression against closed forms.

#[test]
fn half_floats_decode_to_their_closed_form() {
    for h in 0..=u16::MAX {
        let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let (e, m) = (i32::from((h >> 10) & 0x1f), f64::from(h & 0x3ff));
        let got = half_to_f32(h);
        match e {
            0x1f if m == 0.0 => assert_eq!(got, sign as f32 * f32::INFINITY),
            0x1f => assert!(got.is_nan()),
            0 => assert_eq!(f64::from(got), sign * m * 2f64.powi(-24), "{h:#x}"),
            _ => assert_eq!(
                f64::from(got),
                sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
                "{h:#x}"
            ),
        }
    }
}

/// ozz's quaternion key encoding, written from its description: drop the largest component
/// (index and sign kept), quantize the other three from [−√2/2, √2/2] to 15 bits.
fn compress(q: [f64; 4]) -> [u16; 3] {
    let largest = (0..4)
        .max_by(|&a, &b| q[a].abs().total_cmp(&q[b].abs()))
        .unwrap();
    let half = std::f64::consts::SQRT_2 / 2.0;
    let c: Vec<u32> = (0..4)
        .filter(|&i| i != largest)
        .map(|i| ((q[i] + half) / (2.0 * half) * 32767.0).round() as u32)
        .collect();
    let sign = u32::from(q[largest] < 0.0);
    let packed = u64::from(largest as u32)
        | u64::from(sign) << 2
        | u64::from(c[0]) << 3
        | u64::from(c[1]) << 18
        | u64::from(c[2]) << 33;
    [packed as u16, (packed >> 16) as u16, (packed >> 32) as u16]
}

#[test]
fn rotation_keys_decompress_to_the_encoded_quaternion() {
    let mut state = 7u64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..10_000 {
        let q = [next(), next(), next(), next()];
        let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        let q = q.map(|x| x / n);
        let got = decompress_quat(compress(q));
        // Quantization step √2/32767 (half of it per component), plus the rebuilt largest one.
        for (g, w) in got.iter().zip(q) {
            assert!((f64::from(*g) - w).abs() < 1e-4, "{q:?} → {got:?}");
        }
    }
}

#[test]
fn corpus_rotation_keys_are_unit_and_consecutive_keys_share_a_hemisphere() {
    for (animation, _) in CLIPS {
        let anim = OzzAnimation::parse(&read(animation)).unwrap();
        for k in &anim.rotations.keys {
            let n: f32 = decompress_quat(*k).iter().map(|x| x * x).sum();
            assert!((n - 1.0).abs() < 1e-5, "{animation}: |q|² = {n}");
        }
        for track in rotation_tracks(&anim).unwrap() {
            for pair in track.windows(2) {
                let dot: f32 = pair[0].1.iter().zip(&pair[1].1).map(|(a, b)| a * b).sum();
                assert!(dot >= 0.0, "{animation}: consecutive keys {pair:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Refusals.

#[test]
fn truncated_archive_says_which_field_and_where() {
    let bytes = read("playback/animation.ozz");
    match OzzAnimation::parse(&bytes[..100]) {
        Err(OzzImportError::Truncated {
            archive: "animation",
            field,
            offset,
            left,
            ..
        }) => {
            assert_eq!(field, "timepoints");
            assert!(offset <= 100 && left < 4, "{offset} {left}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn wrong_tag_and_version_are_refused() {
    let skeleton = read("playback/skeleton.ozz");
    assert!(matches!(
        OzzAnimation::parse(&skeleton),
        Err(OzzImportError::Tag { found, .. }) if found == "ozz-skeleton"
    ));
    let mut anim = read("playback/animation.ozz");
    // Version: the u32 after the 1-byte endianness tag and "ozz-animation\0".
    anim[15] = 6;
    assert!(matches!(
        OzzAnimation::parse(&anim),
        Err(OzzImportError::Version {
            expected: 7,
            found: 6,
            ..
        })
    ));
}

#[test]
fn skeleton_of_another_size_and_bad_fps_are_refused() {
    let mut skel = vec![1u8];
    skel.extend_from_slice(b"ozz-skeleton\0");
    skel.extend_from_slice(&2u32.to_le_bytes());
    skel.extend_from_slice(&2u32.to_le_bytes());
    skel.extend_from_slice(&4u32.to_le_bytes());
    skel.extend_from_slice(b"a\0b\0");
    skel.extend_from_slice(&[0xff, 0xff, 0, 0]);
    assert_eq!(
        OzzSkeleton::parse(&skel).unwrap().names,
        vec!["a".to_string(), "b".to_string()]
    );
    let anim = read("playback/animation.ozz");
    assert_eq!(
        import_ozz(&anim, Some(&skel), 30.0).unwrap_err(),
        OzzImportError::JointCount {
            skeleton: 2,
            animation: 67
        }
    );
    assert!(matches!(
        import_ozz(&anim, None, f64::NAN),
        Err(OzzImportError::Fps(_))
    ));
}

#[test]
fn broken_previous_key_link_is_refused_with_its_index() {
    let bytes = read("playback/animation.ozz");
    let anim = OzzAnimation::parse(&bytes).unwrap();
    let mut broken = anim.clone();
    let key = 2 * anim.padded_tracks();
    // Point the first later key at a key that is no longer its track's last.
    broken.rotations.previouses[key + 1] = (key + 1) as u16;
    let err = inbetween::ozz_import::split_tracks(&broken, &broken.rotations, "rotation");
    match err {
        Err(OzzImportError::Layout {
            transform: "rotation",
            key: k,
            ..
        }) => {
            assert_eq!(k, key + 1);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn imported_document_round_trips_through_json() {
    let doc = import_ozz(
        &read("blend/animation3.ozz"),
        Some(&read("blend/skeleton.ozz")),
        30.0,
    )
    .unwrap();
    let again = Document::from_json_str(&doc.to_json_string(), "animation3.json").unwrap();
    for (a, b) in doc.tracks().iter().zip(again.tracks()) {
        for f in [0.0, 3.25, 10.0, 17.5] {
            let (x, y) = (a.eval(f), b.eval(f));
            for (p, q) in x.as_slice().iter().zip(y.as_slice()) {
                assert!((p - q).abs() < 1e-12, "{}", a.name());
            }
        }
    }
}

#[test]
fn track_count_beyond_the_keys_is_refused_before_any_track_is_built() {
    let mut bytes = read("playback/animation.ozz");
    // num_tracks: the u32 after the tag, the version (offset 15) and the duration (offset 19).
    bytes[23..27].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
    match import_ozz(&bytes, None, 30.0) {
        Err(OzzImportError::Layout {
            transform: "translation",
            key: 178,
            problem,
        }) => assert!(problem.contains("4294967280 padded tracks"), "{problem}"),
        other => panic!("{other:?}"),
    }
}
