//! Hand-written baselines with the batch player's two tricks (structure-of-arrays lanes and a time-ordered reload script built up front), and the streaming bound.
//!
//! Each player keeps one lane per output value: its segment's constants in separate `f32`
//! arrays (SoA), so the per-frame loop is one straight pass LLVM vectorizes with whatever SIMD
//! the build targets (the same flags as the bank). When a lane enters a new segment is known
//! before playback: the reloads (frame, lane, constants) are sorted by frame once, and each
//! frame first applies the reloads due, then runs the loop. Both players are checked against
//! exact evaluation like every method (`bench::max_error`).

use inbetween::Document;

use super::{Method, KEYS, START_FRAME};

/// `N` constants per lane in separate arrays, the lanes' state at `START_FRAME`, and the
/// reloads after it in frame order.
pub(crate) struct SoaScript<const N: usize> {
    pub(crate) lanes: [Vec<f32>; N],
    at_start: [Vec<f32>; N],
    /// (frame, lane, constants), sorted by frame then lane.
    reloads: Vec<(f32, u32, [f32; N])>,
    next: usize,
    /// The frame played last.
    frame: f32,
}

impl<const N: usize> SoaScript<N> {
    /// From every lane's segments: `segments(lane)` lists (start frame, constants) in time order.
    pub(crate) fn new(
        lanes: usize,
        mut segments: impl FnMut(usize) -> Vec<(f32, [f32; N])>,
    ) -> Self {
        let mut at_start: [Vec<f32>; N] = std::array::from_fn(|_| vec![0.0; lanes]);
        let mut reloads = Vec::new();
        for lane in 0..lanes {
            let list = segments(lane);
            // The segment playing at START_FRAME: the last one starting at or before it.
            let first = list
                .iter()
                .rposition(|(f, _)| *f <= START_FRAME as f32)
                .unwrap_or(0);
            if let Some((_, data)) = list.get(first) {
                for (array, x) in at_start.iter_mut().zip(data) {
                    array[lane] = *x;
                }
            }
            for (frame, data) in list.iter().skip(first + 1) {
                reloads.push((*frame, lane as u32, *data));
            }
        }
        // Stable: lanes stay in order within a frame.
        reloads.sort_by(|a, b| a.0.total_cmp(&b.0));
        Self {
            lanes: at_start.clone(),
            at_start,
            reloads,
            next: 0,
            frame: START_FRAME as f32 - 1.0,
        }
    }

    /// Back to the lanes at `START_FRAME`, before its frame is played.
    pub(crate) fn reset(&mut self) {
        for (lane, start) in self.lanes.iter_mut().zip(&self.at_start) {
            lane.copy_from_slice(start);
        }
        self.next = 0;
        self.frame = START_FRAME as f32 - 1.0;
    }

    /// Moves to the next frame and returns it with the reloads due there (indices into the
    /// list, ordered by lane), without applying them: [`SoaScript::apply`] does, as a pass
    /// reaches their lanes.
    pub(crate) fn step_deferred(&mut self) -> (f32, usize, usize) {
        self.frame += 1.0;
        let from = self.next;
        let due = self.reloads[from..].partition_point(|(f, _, _)| *f <= self.frame);
        self.next = from + due;
        (self.frame, from, self.next)
    }

    /// Applies the reloads `*next .. to` (one frame's, from [`SoaScript::step_deferred`])
    /// whose lane is below `below`, advancing `*next`; first asks for the lines of those from
    /// `*ahead` whose lane is below `below + PART_LANES` (the next part's).
    pub(crate) fn apply(
        &mut self,
        (next, ahead): (&mut usize, &mut usize),
        to: usize,
        below: usize,
    ) {
        let far = below + PART_LANES;
        while let Some((_, lane, _)) = self.reloads[..to].get(*ahead) {
            if *lane as usize >= far {
                break;
            }
            for array in &self.lanes {
                prefetch(array.as_ptr().wrapping_add(*lane as usize));
            }
            *ahead += 1;
        }
        while let Some((_, lane, data)) = self.reloads[..to].get(*next) {
            if *lane as usize >= below {
                break;
            }
            for (array, x) in self.lanes.iter_mut().zip(data) {
                array[*lane as usize] = *x;
            }
            *next += 1;
        }
    }

    /// Moves to the next frame and applies the reloads due there; returns the frame.
    pub(crate) fn step(&mut self) -> f32 {
        self.frame += 1.0;
        let frame = self.frame;
        while let Some((f, lane, data)) = self.reloads.get(self.next) {
            if *f > frame {
                break;
            }
            for (array, x) in self.lanes.iter_mut().zip(data) {
                array[*lane as usize] = *x;
            }
            self.next += 1;
        }
        frame
    }
}

/// `hermite-soa-script`: each lane holds its segment's cubic in frame units,
/// `p(f) = ((c3·t + c2)·t + c1)·t + c0` with `t = f − start` (4 coefficients and a start frame:
/// 20 B read, 4 B written per channel-frame), Horner in f32.
///
/// The coefficients come from the exact curve: the cubic through u = 0, ⅓, ⅔, 1 of each segment
/// (every kind in the scalar workload is a cubic in the frame, so this is the same curve).
pub struct HermiteSoaScript {
    script: SoaScript<5>,
    /// The loop prefetches from [`PREFETCH_LANES`] lanes, as the bank does
    /// ([`HermiteSoaScript::with_prefetch`]; not the bench's: see [`PREFETCH_LANES`]).
    prefetch: bool,
}

impl HermiteSoaScript {
    /// Over the scalar workload's tracks.
    #[must_use]
    pub fn new(doc: &Document) -> Self {
        let tracks = doc.tracks();
        let script = SoaScript::new(tracks.len(), |lane| {
            let t = &tracks[lane];
            let keys = t.keys();
            (0..keys.len().saturating_sub(1).min(KEYS - 1))
                .map(|i| {
                    let p = |u: f64| t.eval_segment_at(i, u).as_slice().first().copied();
                    let y = [0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0].map(|u| p(u).unwrap_or(0.0));
                    let len = keys[i + 1].frame - keys[i].frame;
                    let c = cubic_through_thirds(y);
                    let per_frame = [c[0], c[1] / len, c[2] / (len * len), c[3] / len.powi(3)];
                    let f0 = keys[i].frame as f32;
                    (
                        f0,
                        [
                            per_frame[0] as f32,
                            per_frame[1] as f32,
                            per_frame[2] as f32,
                            per_frame[3] as f32,
                            f0,
                        ],
                    )
                })
                .collect()
        });
        Self {
            script,
            prefetch: false,
        }
    }

    /// The same player with the bank's software prefetch from [`PREFETCH_LANES`] lanes
    /// (measured against the plain loop by `examples/bank_memory.rs`).
    #[must_use]
    pub fn with_prefetch(doc: &Document) -> Self {
        Self {
            prefetch: true,
            ..Self::new(doc)
        }
    }
}

/// Power-basis coefficients `[a0, a1, a2, a3]` of the cubic in u through `y` at u = 0, ⅓, ⅔, 1.
fn cubic_through_thirds(y: [f64; 4]) -> [f64; 4] {
    let [y0, y1, y2, y3] = y;
    [
        y0,
        (-11.0 * y0 + 18.0 * y1 - 9.0 * y2 + 2.0 * y3) / 2.0,
        (18.0 * y0 - 45.0 * y1 + 36.0 * y2 - 9.0 * y3) / 2.0,
        (-9.0 * y0 + 27.0 * y1 - 27.0 * y2 + 9.0 * y3) / 2.0,
    ]
}

impl Method for HermiteSoaScript {
    fn name(&self) -> String {
        "hermite-soa-script".into()
    }
    fn reset(&mut self) {
        self.script.reset();
    }
    fn frame(&mut self, out: &mut [f32]) {
        let n = out.len().min(self.script.lanes[4].len());
        if n >= FUSE_LANES {
            self.frame_in_parts(&mut out[..n]);
        } else {
            self.frame_at_once(out);
        }
    }
}

impl HermiteSoaScript {
    /// A frame: the reloads due, then one loop over the row.
    pub(crate) fn frame_at_once(&mut self, out: &mut [f32]) {
        let f = self.script.step();
        let [c0, c1, c2, c3, s] = &self.script.lanes;
        let n = out.len().min(s.len());
        let (out, c0, c1, c2, c3, s) = (
            &mut out[..n],
            &c0[..n],
            &c1[..n],
            &c2[..n],
            &c3[..n],
            &s[..n],
        );
        if self.prefetch {
            hermite_prefetch_run(f, out, [c0, c1, c2, c3, s]);
        } else {
            hermite_run(f, out, [c0, c1, c2, c3, s]);
        }
    }

    /// Reloads applied so far (tests).
    #[cfg(test)]
    pub(crate) fn script_next(&self) -> usize {
        self.script.next
    }

    /// A frame of at least [`FUSE_LANES`] lanes as the bank plays its records from that size
    /// (`Bank::advance_write_f32`): in parts of [`PART_LANES`], each part's reloads applied
    /// (after asking for the next part's reloads' lines) just before the part's loop.
    pub(crate) fn frame_in_parts(&mut self, out: &mut [f32]) {
        let (f, from, to) = self.script.step_deferred();
        let (mut next, mut ahead) = (from, from);
        let n = out.len();
        for (part, o) in out.chunks_mut(PART_LANES).enumerate() {
            let start = part * PART_LANES;
            let end = start + o.len();
            self.script.apply((&mut next, &mut ahead), to, end);
            let [c0, c1, c2, c3, s] = &self.script.lanes;
            let lanes = [c0, c1, c2, c3, s].map(|l| &l[start..end]);
            if self.prefetch {
                hermite_prefetch_run(f, o, lanes);
            } else {
                hermite_run(f, o, lanes);
            }
        }
        self.script
            .apply((&mut next, &mut ahead), to, usize::MAX - PART_LANES);
        debug_assert!(next == to && n <= self.script.lanes[4].len());
    }
}

/// Lanes from which `hermite-soa-script` applies a frame's reloads part by part: 2 560, the
/// lanes of the 40 KiB of cubic coefficients from which the bank stores its records in its
/// pass (`batch::horner::FUSE_FROM`), so the baseline has that schedule wherever the bank does.
const FUSE_LANES: usize = 2560;

/// Lanes a part (the bank's parts: 512 lanes, 8 KiB of its coefficients).
const PART_LANES: usize = 512;

/// `hermite-soa-script`'s frame loop (the equal-length slices of `HermiteSoaScript::frame`).
#[inline(always)]
fn hermite_loop(f: f32, out: &mut [f32], [c0, c1, c2, c3, s]: [&[f32]; 5]) {
    let n = out.len();
    let (c0, c1, c2, c3, s) = (&c0[..n], &c1[..n], &c2[..n], &c3[..n], &s[..n]);
    for i in 0..n {
        let t = f - s[i];
        out[i] = ((c3[i] * t + c2[i]) * t + c1[i]) * t + c0[i];
    }
}

/// [`hermite_loop`] with the bank's software prefetch from [`PREFETCH_LANES`] lanes.
#[inline(always)]
fn hermite_prefetch_loop(f: f32, out: &mut [f32], lanes: [&[f32]; 5]) {
    prefetching(out, lanes, |out, lanes| hermite_loop(f, out, lanes));
}

/// Lanes from which the baselines' prefetching variants prefetch: the bank prefetches a group
/// whose coefficients pass 512 KiB (`batch::pass`), 32 768 cubic lanes of 16 B; the baselines
/// from as many lanes. The bench's `streaming-ceiling` and `hermite-soa-script` keep their plain
/// loops: given the same prefetch (`with_prefetch`), both ran slower at 100 000 channels in
/// every paired round in one process (`examples/bank_memory.rs`; docs/benchmarks-history.md,
/// *Memory at 100 000 channels (session 9)*) — their five separate streams are what the hardware
/// prefetcher already follows — so the plain loops are the stronger baselines.
const PREFETCH_LANES: usize = 32_768;

/// Lanes per block of [`prefetching`]: the body runs over 256 lanes at a time (its loop
/// vectorized as over the whole row), after prefetching the next block's lines.
const PREFETCH_BLOCK: usize = 256;

/// How many lanes ahead [`prefetching`] reaches: the bank reaches 4096 bytes ahead in its
/// one interleaved array of 16 B a lane, 256 lanes.
const PREFETCH_AHEAD: usize = 256;

/// `body(out, lanes)` over the equal-length slices `lanes` (at least `out.len()` long): in one
/// call below [`PREFETCH_LANES`] lanes, else in blocks of [`PREFETCH_BLOCK`] lanes, each
/// preceded by a prefetch of every array's lines [`PREFETCH_AHEAD`] lanes ahead (one hint per
/// 64-byte line, as the bank) — the software prefetch the bank uses at those sizes, so that
/// the baselines have every trick it has.
#[inline(always)]
fn prefetching<const K: usize>(
    out: &mut [f32],
    lanes: [&[f32]; K],
    mut body: impl FnMut(&mut [f32], [&[f32]; K]),
) {
    let n = out.len();
    if n < PREFETCH_LANES || lanes.iter().any(|l| l.len() < n) {
        body(out, lanes);
        return;
    }
    for (j, o) in out.chunks_mut(PREFETCH_BLOCK).enumerate() {
        let at = j * PREFETCH_BLOCK;
        for l in lanes {
            let ahead = l.as_ptr().wrapping_add(at + PREFETCH_AHEAD);
            for line in (0..PREFETCH_BLOCK).step_by(16) {
                prefetch(ahead.wrapping_add(line));
            }
        }
        body(o, lanes.map(|l| &l[at..at + o.len()]));
    }
}

/// A hint to bring the line of `p` into the cache (no effect on other architectures).
#[inline(always)]
fn prefetch(p: *const f32) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has; a prefetch never faults
    // and the program never observes its line, so any address is sound (formed by
    // `wrapping_add`, not claimed to be in bounds).
    #[allow(unsafe_code, unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Whether the baselines run their AVX2 copies: the bank's own run-time choice
/// (`batch::horner`), given to every baseline so that the comparison is at equal SIMD.
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Defines `$avx`: `$loop` (an `#[inline(always)]` frame loop) compiled with AVX2 enabled (no
/// FMA: the same IEEE operations), and `$run`, which calls it when [`avx2`] holds, else `$loop`.
macro_rules! with_avx2 {
    ($run:ident, $avx:ident, $loop:ident ($($p:ident : $t:ty),*)) => {
        /// # Safety
        /// The CPU must support AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        #[allow(unsafe_code)]
        unsafe fn $avx($($p: $t),*) {
            $loop($($p),*);
        }

        fn $run($($p: $t),*) {
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the function only requires AVX2, which `avx2()` just detected; the
                // loop is safe Rust, so the wider instruction set cannot change what it
                // computes (`avx2_and_plain_loops_agree`).
                #[allow(unsafe_code)]
                unsafe {
                    $avx($($p),*);
                }
                return;
            }
            $loop($($p),*);
        }
    };
}

with_avx2!(hermite_run, hermite_avx2, hermite_loop(f: f32, out: &mut [f32], lanes: [&[f32]; 5]));
with_avx2!(slerp_run, slerp_avx2, slerp_loop(f: f32, out: &mut [f32], lanes: [&[f32]; 12]));
with_avx2!(ceiling_run, ceiling_avx2, ceiling_loop(t: f32, out: &mut [f32], lanes: [&[f32]; 4]));
with_avx2!(hermite_prefetch_run, hermite_prefetch_avx2, hermite_prefetch_loop(f: f32, out: &mut [f32], lanes: [&[f32]; 5]));
with_avx2!(ceiling_prefetch_run, ceiling_prefetch_avx2, ceiling_prefetch_loop(t: f32, out: &mut [f32], lanes: [&[f32]; 4]));

/// sin x for x in [0, π]: reflected to [0, π/2], then the Taylor series to x¹³ (error below
/// 6e-8 there), so the loop that calls it vectorizes.
#[inline(always)]
fn sin_0_pi(x: f32) -> f32 {
    let x = x.min(std::f32::consts::PI - x);
    let x2 = x * x;
    let p = 1.0 / 6_227_020_800.0;
    let p = p * x2 - 1.0 / 39_916_800.0;
    let p = p * x2 + 1.0 / 362_880.0;
    let p = p * x2 - 1.0 / 5_040.0;
    let p = p * x2 + 1.0 / 120.0;
    let p = p * x2 - 1.0 / 6.0;
    (p * x2 + 1.0) * x
}

/// `slerp-soa-script`: Shoemake's slerp `q(u) = (sin((1 − u)θ)·q0 + sin(uθ)·q1) / sin θ` in
/// f32, each lane (one rotation) holding its segment's ends (the second negated when the dot
/// product is negative: the shortest arc), θ, 1 / sin θ, start frame and 1 / length.
/// θ below 1e-4 is raised to 1e-4, where the weights equal 1 − u and u within 2e-9.
pub struct SlerpSoaScript {
    script: SoaScript<12>,
}

impl SlerpSoaScript {
    /// Over the quaternion workload's tracks.
    #[must_use]
    pub fn new(doc: &Document) -> Self {
        let tracks = doc.tracks();
        let script = SoaScript::new(tracks.len(), |lane| {
            let keys = tracks[lane].keys();
            keys.windows(2)
                .map(|w| {
                    let q0: [f64; 4] = std::array::from_fn(|c| {
                        w[0].value.as_slice().get(c).copied().unwrap_or(0.0)
                    });
                    let mut q1: [f64; 4] = std::array::from_fn(|c| {
                        w[1].value.as_slice().get(c).copied().unwrap_or(0.0)
                    });
                    let mut dot: f64 = q0.iter().zip(&q1).map(|(a, b)| a * b).sum();
                    if dot < 0.0 {
                        q1 = q1.map(|x| -x);
                        dot = -dot;
                    }
                    let theta = dot.min(1.0).acos().max(1e-4);
                    let f0 = w[0].frame as f32;
                    let mut data = [0.0f32; 12];
                    for c in 0..4 {
                        data[c] = q0[c] as f32;
                        data[4 + c] = q1[c] as f32;
                    }
                    data[8] = theta as f32;
                    data[9] = (1.0 / theta.sin()) as f32;
                    data[10] = f0;
                    data[11] = (1.0 / (w[1].frame - w[0].frame)) as f32;
                    (f0, data)
                })
                .collect()
        });
        Self { script }
    }
}

impl Method for SlerpSoaScript {
    fn name(&self) -> String {
        "slerp-soa-script".into()
    }
    fn reset(&mut self) {
        self.script.reset();
    }
    fn frame(&mut self, out: &mut [f32]) {
        let f = self.script.step();
        let [ax, ay, az, aw, bx, by, bz, bw, theta, inv_sin, start, inv_len] = &self.script.lanes;
        let lanes = [
            ax, ay, az, aw, bx, by, bz, bw, theta, inv_sin, start, inv_len,
        ];
        slerp_run(f, out, lanes.map(|v| v.as_slice()));
    }
}

/// `slerp-soa-script`'s frame loop over its twelve lane arrays.
#[inline(always)]
fn slerp_loop(f: f32, out: &mut [f32], lanes: [&[f32]; 12]) {
    let [ax, ay, az, aw, bx, by, bz, bw, theta, inv_sin, start, inv_len] = lanes;
    let n = (out.len() / 4).min(start.len());
    for (i, o) in out.chunks_exact_mut(4).take(n).enumerate() {
        let u = (f - start[i]) * inv_len[i];
        let w0 = sin_0_pi((1.0 - u) * theta[i]) * inv_sin[i];
        let w1 = sin_0_pi(u * theta[i]) * inv_sin[i];
        o[0] = w0 * ax[i] + w1 * bx[i];
        o[1] = w0 * ay[i] + w1 * by[i];
        o[2] = w0 * az[i] + w1 * bz[i];
        o[3] = w0 * aw[i] + w1 * bw[i];
    }
}

/// `streaming-ceiling`: per output value, reads four f32 (16 B, one array each) and writes the
/// f32 output, `o = ((a·t + b)·t + c)·t + d` with one `t` per frame: the least memory traffic a
/// cubic player can move, over as many values as the row. It plays no curve and is not checked.
pub struct StreamingCeiling {
    c: [Vec<f32>; 4],
    frame: f32,
    /// The loop prefetches from [`PREFETCH_LANES`] lanes, as the bank does
    /// ([`StreamingCeiling::with_prefetch`]; not the bench's: see [`PREFETCH_LANES`]).
    prefetch: bool,
}

impl StreamingCeiling {
    /// Over `values` output values.
    #[must_use]
    pub fn new(values: usize) -> Self {
        Self {
            c: std::array::from_fn(|k| (0..values).map(|i| ((i + k) % 7) as f32 * 0.25).collect()),
            frame: 0.0,
            prefetch: false,
        }
    }

    /// The same loop with the bank's software prefetch from [`PREFETCH_LANES`] lanes (measured
    /// against the plain loop by `examples/bank_memory.rs`).
    #[must_use]
    pub fn with_prefetch(values: usize) -> Self {
        Self {
            prefetch: true,
            ..Self::new(values)
        }
    }
}

/// [`ceiling_loop`] with the bank's software prefetch from [`PREFETCH_LANES`] lanes.
#[inline(always)]
fn ceiling_prefetch_loop(t: f32, out: &mut [f32], lanes: [&[f32]; 4]) {
    prefetching(out, lanes, |out, lanes| ceiling_loop(t, out, lanes));
}

/// `streaming-ceiling`'s frame loop over equal-length slices.
#[inline(always)]
fn ceiling_loop(t: f32, out: &mut [f32], [a, b, c, d]: [&[f32]; 4]) {
    let n = out.len();
    let (a, b, c, d) = (&a[..n], &b[..n], &c[..n], &d[..n]);
    for i in 0..n {
        out[i] = ((a[i] * t + b[i]) * t + c[i]) * t + d[i];
    }
}

impl Method for StreamingCeiling {
    fn name(&self) -> String {
        "streaming-ceiling".into()
    }
    fn reset(&mut self) {
        self.frame = 0.0;
    }
    fn frame(&mut self, out: &mut [f32]) {
        self.frame += 1.0 / 64.0;
        let t = self.frame;
        let [a, b, c, d] = &self.c;
        let n = out.len().min(a.len());
        let (out, a, b, c, d) = (&mut out[..n], &a[..n], &b[..n], &c[..n], &d[..n]);
        if self.prefetch {
            ceiling_prefetch_run(t, out, [a, b, c, d]);
        } else {
            ceiling_run(t, out, [a, b, c, d]);
        }
    }
}

#[cfg(test)]
mod tests {
    // Paths spelled out: the criterion bench includes this file with `cfg(test)` set but
    // without the test harness, where `use` lines would be unused.

    #[test]
    fn avx2_and_plain_loops_agree() {
        let x: Vec<f32> = (0..1003).map(|i| i as f32 * 0.37 - 100.0).collect();
        let lanes = [x.as_slice(); 5];
        let (mut run, mut plain) = (vec![0.0f32; 1003], vec![0.0f32; 1003]);
        super::hermite_run(7.0, &mut run, lanes);
        super::hermite_loop(7.0, &mut plain, lanes);
        assert!(run
            .iter()
            .zip(&plain)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        let q: Vec<f32> = (0..1003).map(|i| (i % 97) as f32 / 97.0).collect();
        let lanes = [q.as_slice(); 12];
        let (mut run, mut plain) = (vec![0.0f32; 4 * 1003], vec![0.0f32; 4 * 1003]);
        super::slerp_run(0.5, &mut run, lanes);
        super::slerp_loop(0.5, &mut plain, lanes);
        assert!(run
            .iter()
            .zip(&plain)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }

    #[test]
    fn prefetching_loops_equal_the_plain_loops_bit_for_bit() {
        // Past the prefetch threshold, with a partial last block of 256 lanes.
        let n = super::PREFETCH_LANES + 300;
        let x: Vec<f32> = (0..n).map(|i| (i % 1009) as f32 * 0.37 - 100.0).collect();
        let (mut a, mut b) = (vec![0.0f32; n], vec![0.0f32; n]);
        super::hermite_prefetch_run(7.0, &mut a, [x.as_slice(); 5]);
        super::hermite_loop(7.0, &mut b, [x.as_slice(); 5]);
        assert!(a.iter().zip(&b).all(|(p, q)| p.to_bits() == q.to_bits()));
        a.fill(f32::NAN);
        super::ceiling_prefetch_run(0.5, &mut a, [x.as_slice(); 4]);
        super::ceiling_loop(0.5, &mut b, [x.as_slice(); 4]);
        assert!(a.iter().zip(&b).all(|(p, q)| p.to_bits() == q.to_bits()));
    }

    #[test]
    fn polynomial_sine_matches_the_library_sine_on_zero_to_pi() {
        let worst = (0..=10_000)
            .map(|i| {
                let x = std::f64::consts::PI * f64::from(i) / 10_000.0;
                (f64::from(super::sin_0_pi(x as f32)) - x.sin()).abs()
            })
            .fold(0.0, f64::max);
        assert!(worst < 5e-7, "{worst:e}");
    }

    /// The baselines play the workloads' curves: every frame of a 300-frame window against exact
    /// evaluation (f32 output of values up to ±100 for the scalars, unit quaternions).
    #[test]
    fn soa_baselines_play_the_workloads_within_f32_rounding() {
        use super::super as bench;
        let doc = bench::workload_document(&bench::workload_keys(50, 5), None).unwrap();
        let scalar = bench::max_error(&mut super::HermiteSoaScript::new(&doc), &doc, 300);
        assert!(scalar < 1e-4, "{scalar:e}");
        let doc = bench::quat_workload_document(50, 9).unwrap();
        let rotation = bench::max_error(&mut super::SlerpSoaScript::new(&doc), &doc, 300);
        assert!(rotation < 2e-6, "{rotation:e}");
    }
}
