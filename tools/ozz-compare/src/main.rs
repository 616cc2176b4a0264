//! ozz-animation-rs's `SamplingJob` against our import of the same `.ozz` clip (every frame, exact evaluation as the reference) and against the batch player (time per joint-frame), in one process.
//!
//! Run through `run.sh` (it prepares the crate). Clip: `tests/corpus/ozz/playback` (67 joints,
//! 8.6 s). Check: at 30 and 60 fps, every frame of the clip, ozz's output per joint
//! (translation, rotation, scale) against `Track::eval` of the imported document; above 1e-6 the
//! program fails. Timing: N characters (100 and 1 000), each with its own `SamplingJob` and
//! context (the runtime's normal use), frames 64..364 at 60 fps, median of 5 runs; the bank plays
//! N copies of the clip compiled in f32 with an absolute tolerance of 2e-7 (so its error is below
//! ozz's own, both measured against exact evaluation over the timed frames).

use std::cell::RefCell;
use std::error::Error;
use std::hint::black_box;
use std::rc::Rc;
use std::time::Instant;

use inbetween::batch::Bank;
use inbetween::compile::CompileOptions;
use inbetween::ozz_import::import_ozz;
use inbetween::stream::{Precision, Stream};
use inbetween::Document;
use ozz_animation_rs::{Animation, SamplingContext, SamplingJob, SamplingJobRc, SoaTransform};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/corpus/ozz/playback/"
);
const FPS: f64 = 60.0;
const START: f64 = 64.0;
const FRAMES: usize = 300;
/// The bank's compile tolerance (absolute, value units): below ozz's own error.
const TOLERANCE: f64 = 2e-7;

type Output = Rc<RefCell<Vec<SoaTransform>>>;

/// A sampling job with its own context and output over `animation`.
fn job(animation: &Rc<Animation>) -> (SamplingJobRc, Output) {
    let mut job: SamplingJobRc = SamplingJob::default();
    job.set_animation(animation.clone());
    job.set_context(SamplingContext::new(animation.num_tracks()));
    let out = Rc::new(RefCell::new(vec![
        SoaTransform::default();
        animation.num_soa_tracks()
    ]));
    job.set_output(out.clone());
    (job, out)
}

/// Joint `j`'s ten values (translation, rotation x y z w, scale) from ozz's SoA output.
fn joint(out: &[SoaTransform], j: usize) -> [f32; 10] {
    let (t, l) = (&out[j / 4], j % 4);
    [
        t.translation.x[l],
        t.translation.y[l],
        t.translation.z[l],
        t.rotation.x[l],
        t.rotation.y[l],
        t.rotation.z[l],
        t.rotation.w[l],
        t.scale.x[l],
        t.scale.y[l],
        t.scale.z[l],
    ]
}

/// Joint `j`'s ten values by exact evaluation of the document at `frame`.
fn exact(doc: &Document, j: usize, frame: f64) -> Vec<f64> {
    (0..3)
        .flat_map(|k| doc.tracks()[3 * j + k].eval(frame).as_slice().to_vec())
        .collect()
}

/// Largest |ozz − exact| over every frame of the clip at `fps`.
fn check(animation: &Rc<Animation>, doc: &Document, fps: f64) -> Result<f64, Box<dyn Error>> {
    let (mut job, out) = job(animation);
    let duration = animation.duration();
    let mut worst = 0.0f64;
    for f in 0..=(f64::from(duration) * fps).floor() as usize {
        job.set_ratio((f as f32 / (duration * fps as f32)).min(1.0));
        job.run()?;
        let o = out.borrow();
        for j in 0..animation.num_tracks() {
            for (x, y) in joint(&o, j).iter().zip(exact(doc, j, f as f64)) {
                worst = worst.max((f64::from(*x) - y).abs());
            }
        }
    }
    Ok(worst)
}

/// Median of `runs` timings of `frames` frames of `play`, in ns per joint-frame.
fn median(runs: usize, per: usize, mut play: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            play();
            s.elapsed().as_nanos() as f64 / per as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn row(method: &str, channels: usize, ns: f64, error: f64) -> String {
    format!(
        "{{\"method\": \"{method}\", \"workload\": \"ozz\", \"channels\": {channels}, \"ns_per_channel_frame\": {ns}, \"channel_frames_per_s\": {}, \"max_error\": {error}}}",
        1e9 / ns
    )
}

fn main() -> Result<(), Box<dyn Error>> {
    let a_bytes = std::fs::read(format!("{DIR}animation.ozz"))?;
    let s_bytes = std::fs::read(format!("{DIR}skeleton.ozz"))?;
    let animation = Rc::new(Animation::from_path(format!("{DIR}animation.ozz"))?);
    for fps in [30.0, 60.0] {
        let doc = import_ozz(&a_bytes, Some(&s_bytes), fps)?;
        let worst = check(&animation, &doc, fps)?;
        eprintln!(
            "SamplingJob vs exact evaluation of the import at {fps} fps, every frame: {worst:.3e}"
        );
        if worst > 1e-6 {
            return Err(format!("the import differs from SamplingJob by {worst:e}").into());
        }
    }
    let doc = import_ozz(&a_bytes, Some(&s_bytes), FPS)?;
    let options = CompileOptions {
        precision: Precision::F32,
        tolerance: Some(TOLERANCE),
        ..CompileOptions::default()
    };
    let compiled = doc.compile(&options)?;
    let stream = Stream::from_bytes(&compiled.bytes)?;
    let joints = animation.num_tracks();
    let ratio = |f: f64| ((f as f32) / (animation.duration() * FPS as f32)).min(1.0);
    let mut rows = Vec::new();
    for n in [100usize, 1_000] {
        let mut jobs: Vec<(SamplingJobRc, Output)> = (0..n).map(|_| job(&animation)).collect();
        let mut bank = Bank::new(&vec![stream; n])?;
        let mut out = vec![0f32; n * 10 * joints];
        // Errors of both against exact evaluation over the timed frames (first character).
        let (mut e_ozz, mut e_bank) = (0.0f64, 0.0f64);
        bank.seek(START)?;
        for i in 0..FRAMES {
            let f = START + i as f64;
            if i > 0 {
                bank.advance();
            }
            bank.write_f32(&mut out)?;
            jobs[0].0.set_ratio(ratio(f));
            jobs[0].0.run()?;
            let o = jobs[0].1.borrow();
            for j in 0..joints {
                let ozz = joint(&o, j);
                for (c, y) in exact(&doc, j, f).iter().enumerate() {
                    e_ozz = e_ozz.max((f64::from(ozz[c]) - y).abs());
                    e_bank = e_bank.max((f64::from(out[10 * j + c]) - y).abs());
                }
            }
        }
        let per = FRAMES * n * joints;
        let t_ozz = median(5, per, || {
            for i in 0..FRAMES {
                let r = ratio(START + i as f64);
                for (job, _) in jobs.iter_mut() {
                    job.set_ratio(r);
                    let _ = job.run();
                }
                black_box(&jobs);
            }
        });
        let t_bank = median(5, per, || {
            let _ = bank.seek(START);
            for i in 0..FRAMES {
                if i > 0 {
                    bank.advance();
                }
                let _ = bank.write_f32(&mut out);
                black_box(&mut out);
            }
        });
        eprintln!(
            "{n} characters: ns per joint-frame ozz-animation-rs {t_ozz:.2}, inbetween-batch-f32 {t_bank:.2} ({:.2}×); max error ozz {e_ozz:.2e}, bank {e_bank:.2e}",
            t_bank / t_ozz
        );
        rows.push(row("ozz-animation-rs", n * joints, t_ozz, e_ozz));
        rows.push(row("inbetween-batch-f32", n * joints, t_bank, e_bank));
    }
    println!("{{\"results\": [{}]}}", rows.join(", "));
    Ok(())
}
