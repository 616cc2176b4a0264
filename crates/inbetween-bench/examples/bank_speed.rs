//! Playback speed of the batch player (Horner lanes and the exact bank) against a local SoA f32 Horner + time-ordered script baseline and a streaming ceiling, on the benchmark's scalar workload; prints ns per channel-frame, `Bank::new` time and memory.
//!
//! `cargo run --release -p inbetween-bench --example bank_speed [CHANNELS… | qROTATIONS…]` (default
//! `1000 100000 q300`; `q300`: the quaternion workload, 300 rotations = 1 200 channels).
//! Each size: compile in f32, f64 and fixed; check every method against exact evaluation;
//! then time each method (median of 5 runs of 300 frames from `START_FRAME`), all in one run so
//! the ratios are comparable on a noisy machine.

use std::time::Instant;

use inbetween::batch::Bank;
use inbetween::stream::{Precision, Stream};
use inbetween::Document;
use inbetween_bench::{
    compile, max_error, quat_workload_document, time, workload_document, workload_keys,
    BatchMethod, Method, CHECK_TOLERANCE, KEYS, START_FRAME,
};

/// SoA f32 Horner lanes (c0..c3 and the segment's start frame per channel: 20 B read and 4 B
/// written per channel-frame) with every segment change in one time-ordered script built up
/// front: the fair scalar baseline.
struct HermiteSoaScript {
    c: [Vec<f32>; 4],
    start: Vec<f32>,
    /// (frame, channel, [c0, c1, c2, c3, start]) in frame order.
    script: Vec<(f32, u32, [f32; 5])>,
    cursor: usize,
    frame: f32,
}

impl HermiteSoaScript {
    /// Each segment as the cubic through u = 0, 1/3, 2/3, 1 of the exact curve (exact: every
    /// segment of the workload is a cubic in the frame), in powers of `frame − start`.
    fn new(doc: &Document) -> Self {
        let mut script = Vec::new();
        for (ch, t) in doc.tracks().iter().enumerate() {
            let keys = t.keys();
            for i in 0..keys.len().saturating_sub(1).min(KEYS - 1) {
                let p = |u: f64| t.eval_segment_at(i, u).as_slice()[0];
                let (y0, y1, y2, y3) = (p(0.0), p(1.0 / 3.0), p(2.0 / 3.0), p(1.0));
                // Power coefficients in u of the interpolating cubic, then in frames.
                let a1 = (-11.0 * y0 + 18.0 * y1 - 9.0 * y2 + 2.0 * y3) / 2.0;
                let a2 = (18.0 * y0 - 45.0 * y1 + 36.0 * y2 - 9.0 * y3) / 2.0;
                let a3 = (-9.0 * y0 + 27.0 * y1 - 27.0 * y2 + 9.0 * y3) / 2.0;
                let (f0, f1) = (keys[i].frame, keys[i + 1].frame);
                let l = f1 - f0;
                let c = [y0, a1 / l, a2 / (l * l), a3 / (l * l * l)];
                script.push((
                    f0 as f32,
                    ch as u32,
                    [
                        c[0] as f32,
                        c[1] as f32,
                        c[2] as f32,
                        c[3] as f32,
                        f0 as f32,
                    ],
                ));
            }
        }
        script.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let n = doc.tracks().len();
        Self {
            c: [vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]],
            start: vec![0.0; n],
            script,
            cursor: 0,
            frame: 0.0,
        }
    }

    fn play_script(&mut self) {
        while let Some(&(f, ch, v)) = self.script.get(self.cursor) {
            if f > self.frame {
                break;
            }
            let ch = ch as usize;
            for (k, c) in self.c.iter_mut().enumerate() {
                c[ch] = v[k];
            }
            self.start[ch] = v[4];
            self.cursor += 1;
        }
    }
}

impl Method for HermiteSoaScript {
    fn name(&self) -> String {
        "hermite-soa-script (local)".into()
    }
    fn reset(&mut self) {
        self.cursor = 0;
        self.frame = START_FRAME as f32 - 1.0;
    }
    fn frame(&mut self, out: &mut [f32]) {
        self.frame += 1.0;
        self.play_script();
        let f = self.frame;
        let [c0, c1, c2, c3] = &self.c;
        let n = out.len().min(c0.len());
        let (out, c0, c1, c2, c3, s) = (
            &mut out[..n],
            &c0[..n],
            &c1[..n],
            &c2[..n],
            &c3[..n],
            &self.start[..n],
        );
        for i in 0..n {
            let t = f - s[i];
            out[i] = ((c3[i] * t + c2[i]) * t + c1[i]) * t + c0[i];
        }
    }
}

/// Reads 16 B and writes 4 B per channel (`out = a + b + c + d`): the floor of any player that
/// reads four f32 coefficients per channel.
struct StreamingCeiling {
    v: [Vec<f32>; 4],
}

impl Method for StreamingCeiling {
    fn name(&self) -> String {
        "streaming-ceiling (local)".into()
    }
    fn reset(&mut self) {}
    fn frame(&mut self, out: &mut [f32]) {
        let [a, b, c, d] = &self.v;
        for ((((o, a), b), c), d) in out.iter_mut().zip(a).zip(b).zip(c).zip(d) {
            *o = a + b + c + d;
        }
    }
}

/// A bank built with `build` (new or exact), labelled, with its build time and heap bytes.
fn bank_method<'s>(
    label: &str,
    stream: Stream<'s>,
    build: fn(&[Stream<'s>]) -> Result<Bank<'s>, inbetween::batch::BatchError>,
) -> Result<(BatchMethod<'s>, f64), String> {
    let mut m = BatchMethod::new(label, stream)?;
    let started = Instant::now();
    m.bank = build(&[stream]).map_err(|e| e.to_string())?;
    Ok((m, started.elapsed().as_secs_f64()))
}

fn main() -> Result<(), String> {
    // Sizes: scalar channel counts; `qN` is a quaternion workload of N rotations.
    let sizes: Vec<String> = std::env::args().skip(1).collect();
    let sizes = if sizes.is_empty() {
        vec!["1000".into(), "100000".into(), "q300".into()]
    } else {
        sizes
    };
    for size in sizes {
        let (quat, n) = match size.strip_prefix('q') {
            Some(n) => (true, n),
            None => (false, size.as_str()),
        };
        let n = n
            .parse::<usize>()
            .map_err(|e| format!("size {size}: {e}"))?;
        let doc = if quat {
            quat_workload_document(n, 9)?
        } else {
            workload_document(&workload_keys(n, 5), None)?
        };
        let channels = inbetween_bench::width(&doc);
        let mut streams = Vec::new();
        for p in [Precision::F32, Precision::F64, Precision::Fixed] {
            streams.push((p, compile(&doc, p)?));
        }
        let mut methods: Vec<Box<dyn Method + '_>> = Vec::new();
        for (p, bytes) in &streams {
            let stream = Stream::from_bytes(bytes).map_err(|e| e.to_string())?;
            let name = p.name();
            let (mut pieces, mut frames, mut by_degree) = (0usize, 0.0, [0usize; 9]);
            for t in stream.tracks() {
                pieces += t.piece_count();
                frames += t.last_frame() - t.first_frame();
                by_degree[usize::from(t.max_degree()).min(8)] += 1;
            }
            println!(
                "{channels:>8} ch {name}: {:.1} frames per piece, tracks by maximum degree {by_degree:?}",
                frames / pieces.max(1) as f64
            );
            for (label, build) in [
                (
                    format!("bank-{name} (Horner lanes)"),
                    Bank::new as fn(&_) -> _,
                ),
                (
                    format!("bank-{name} exact (old)"),
                    Bank::exact as fn(&_) -> _,
                ),
            ] {
                let (m, seconds) = bank_method(&label, stream, build)?;
                println!(
                    "{channels:>8} ch {label:<28} Bank::new {:>8.3} s, heap {:>6.1} MB, \
                     {:>5.1} % of channels on Horner lanes, {} B per-frame state per channel",
                    seconds,
                    m.bank.heap_bytes() as f64 / 1e6,
                    100.0 * m.bank.horner_channels() as f64 / channels as f64,
                    m.bank.state_bytes() / channels
                );
                methods.push(Box::new(m));
            }
        }
        if !quat {
            methods.push(Box::new(HermiteSoaScript::new(&doc)));
        }
        let mut checked = Vec::new();
        for m in &mut methods {
            let e = max_error(m.as_mut(), &doc, 300);
            println!(
                "{channels:>8} ch {:<28} max error {e:.2e} (300 frames)",
                m.name()
            );
            if e.is_nan() || e > CHECK_TOLERANCE {
                return Err(format!("{} fails its check", m.name()));
            }
            checked.push(m);
        }
        let v = || vec![1.0f32; channels];
        methods.push(Box::new(StreamingCeiling {
            v: [v(), v(), v(), v()],
        }));
        let mut rows = Vec::new();
        // For profiling one method: BANK_SPEED_ONLY=name BANK_SPEED_RUNS=n.
        let only = std::env::var("BANK_SPEED_ONLY").unwrap_or_default();
        let runs = std::env::var("BANK_SPEED_RUNS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(5);
        for m in methods.iter_mut().filter(|m| m.name().contains(&only)) {
            rows.push((m.name(), time(m.as_mut(), channels, channels, 300, runs)));
        }
        let baseline = rows
            .iter()
            .find(|r| r.0.starts_with("hermite-soa-script") || r.0.contains("exact (old)"))
            .map_or(f64::NAN, |r| r.1);
        for (name, ns) in rows {
            println!(
                "{channels:>8} ch {name:<28} {ns:>7.3} ns/ch-frame  {:>5.2}× the first of \
                 hermite-soa-script, exact f32 bank",
                ns / baseline
            );
        }
    }
    Ok(())
}
