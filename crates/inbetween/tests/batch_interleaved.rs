//! The batch player on rows that interleave channels of different degrees — ozz's playback clip, joint after joint a constant translation, a linear normalized rotation and a constant scale: every f32 value within the compile tolerance of exact evaluation at every frame, and every character's row the same bits wherever its lanes fall in the blocks of the merged group.

use inbetween::batch::Bank;
use inbetween::compile::CompileOptions;
use inbetween::ozz_import::import_ozz;
use inbetween::stream::{Precision, Stream};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/corpus/ozz/playback/"
);

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}{name}")).expect("corpus file")
}

#[test]
fn an_interleaved_rig_plays_within_tolerance_and_alike_in_every_character() {
    let doc = import_ozz(&read("animation.ozz"), Some(&read("skeleton.ozz")), 60.0).unwrap();
    let tolerance = 2e-7;
    let options = CompileOptions {
        precision: Precision::F32,
        tolerance: Some(tolerance),
        ..CompileOptions::default()
    };
    let compiled = doc.compile(&options).unwrap();
    let stream = Stream::from_bytes(&compiled.bytes).unwrap();
    // 7 characters of 670 channels: the merged group's 4 690 lanes span three sweep blocks of
    // 2 048, a rotation across the second boundary.
    let characters = 7;
    let mut bank = Bank::new(&vec![stream; characters]).unwrap();
    let width = bank.channels();
    assert_eq!(width % characters, 0);
    let row = width / characters;
    // Nearly every channel plays on Horner lanes (a few rotations fail the f32 check).
    assert!(
        bank.horner_channels() * 20 > width * 19,
        "{}",
        bank.horner_channels()
    );
    let frames = (doc
        .tracks()
        .iter()
        .map(|t| t.keys().last().map_or(0.0, |k| k.frame)))
    .fold(0.0f64, f64::max) as usize;
    let mut out = vec![0f32; width];
    let mut worst = 0.0f64;
    bank.seek(0.0).unwrap();
    for frame in 0..=frames {
        if frame > 0 {
            bank.advance();
        }
        bank.write_f32(&mut out).unwrap();
        let mut c = 0;
        for track in doc.tracks() {
            for (k, exact) in track.eval(frame as f64).as_slice().iter().enumerate() {
                let played = out[c + k];
                let error = (f64::from(played) - exact).abs();
                let bound = tolerance + 0.5 * f64::from(f32::EPSILON) * f64::from(played.abs());
                assert!(error <= bound, "frame {frame} channel {}: {error:e}", c + k);
                worst = worst.max(error);
            }
            c += track.value_type().components();
        }
        for (i, character) in out.chunks_exact(row).enumerate().skip(1) {
            let same = character
                .iter()
                .zip(&out[..row])
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "frame {frame}: character {i} differs from the first");
        }
    }
    assert!(worst > 0.0);
}
