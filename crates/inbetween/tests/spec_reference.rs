//! Random documents evaluated by the library and by an independent re-statement of the spec
//! written here from the text alone (its own ease formulas, Neville's algorithm for Lagrange,
//! the textbook slerp, Bernstein and Hermite bases); plus the key-value property and loader
//! robustness on random bytes and mutated documents.

use proptest::prelude::*;
use serde_json::{json, Value as Json};

use inbetween::Document;

mod common;
use common::random_documents::document_strategy;

// ---------- an independent evaluator of the spec ----------

fn in_x(family: &str, u: f64) -> f64 {
    use std::f64::consts::PI;
    let c = 1.70158;
    match family {
        "quad" => u.powi(2),
        "cubic" => u.powi(3),
        "quart" => u.powi(4),
        "quint" => u.powi(5),
        "sine" => 1.0 - (PI * u / 2.0).cos(),
        "expo" => {
            if u == 0.0 {
                0.0
            } else {
                2f64.powf(10.0 * u - 10.0)
            }
        }
        "circ" => 1.0 - (1.0 - u * u).max(0.0).sqrt(),
        "back" => (c + 1.0) * u * u * u - c * u * u,
        "elastic" => {
            if u == 0.0 {
                0.0
            } else if u == 1.0 {
                1.0
            } else {
                -(2f64.powf(10.0 * u - 10.0)) * ((10.0 * u - 10.75) * 2.0 * PI / 3.0).sin()
            }
        }
        "bounce" => 1.0 - bounce(1.0 - u),
        _ => panic!("unknown family {family}"),
    }
}

fn bounce(x: f64) -> f64 {
    let k = 7.5625;
    if x < 1.0 / 2.75 {
        k * x * x
    } else if x < 2.0 / 2.75 {
        let y = x - 1.5 / 2.75;
        k * y * y + 0.75
    } else if x < 2.5 / 2.75 {
        let y = x - 2.25 / 2.75;
        k * y * y + 0.9375
    } else {
        let y = x - 2.625 / 2.75;
        k * y * y + 0.984375
    }
}

fn ease_ref(e: &Json, offset: f64, len: f64) -> f64 {
    let u = offset / len;
    if let Some(name) = e.as_str() {
        // The spec: every named ease has e(0) = 0 and e(1) = 1 (the formulas can miss by an ulp,
        // e.g. 1 − cos(π/2), which matters where a path ends in a jump).
        if u == 0.0 {
            return 0.0;
        }
        if u == 1.0 {
            return 1.0;
        }
        return match name {
            "linear" => u,
            "smoothstep" => 3.0 * u * u - 2.0 * u * u * u,
            "smootherstep" => 6.0 * u.powi(5) - 15.0 * u.powi(4) + 10.0 * u.powi(3),
            _ => {
                if let Some(f) = name.strip_prefix("in_out_") {
                    if u < 0.5 {
                        in_x(f, 2.0 * u) / 2.0
                    } else {
                        1.0 - in_x(f, 2.0 - 2.0 * u) / 2.0
                    }
                } else if let Some(f) = name.strip_prefix("in_") {
                    in_x(f, u)
                } else if let Some(f) = name.strip_prefix("out_") {
                    1.0 - in_x(f, 1.0 - u)
                } else {
                    panic!("unknown ease {name}")
                }
            }
        };
    }
    if let Some(p) = e.get("cubic_bezier") {
        if u == 0.0 || u == 1.0 {
            return u;
        }
        let p: Vec<f64> = p
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let bx = |t: f64| {
            3.0 * (1.0 - t) * (1.0 - t) * t * p[0] + 3.0 * (1.0 - t) * t * t * p[2] + t * t * t
        };
        let by = |t: f64| {
            3.0 * (1.0 - t) * (1.0 - t) * t * p[1] + 3.0 * (1.0 - t) * t * t * p[3] + t * t * t
        };
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if bx(mid) < u {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return by(0.5 * (lo + hi));
    }
    if let Some(s) = e.get("steps") {
        let n = s[0].as_f64().unwrap();
        let jump = s[1].as_str().unwrap();
        // The spec's formula as written (no clamp): at the end of the span, ⌊n⌋ = n.
        let mut idx = (offset * n / len).floor();
        if jump == "jump_start" || jump == "jump_both" {
            idx += 1.0;
        }
        return match jump {
            "jump_end" | "jump_start" => idx / n,
            "jump_both" => idx / (n + 1.0),
            _ => idx / (n - 1.0),
        };
    }
    panic!("bad ease {e}")
}

fn num_vec(v: &Json) -> Vec<f64> {
    match v {
        Json::Number(n) => vec![n.as_f64().unwrap()],
        Json::Array(a) => a.iter().map(|x| x.as_f64().unwrap()).collect(),
        _ => panic!("not numbers"),
    }
}

fn normalize(q: &[f64]) -> Vec<f64> {
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    q.iter().map(|c| c / n).collect()
}

fn slerp_ref(a: &[f64], b: &[f64], u: f64) -> Vec<f64> {
    let mut d: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let mut b = b.to_vec();
    if d < 0.0 {
        d = -d;
        b.iter_mut().for_each(|c| *c = -*c);
    }
    if d > 1.0 - 1e-12 {
        return normalize(
            &a.iter()
                .zip(&b)
                .map(|(x, y)| x + (y - x) * u)
                .collect::<Vec<_>>(),
        );
    }
    let th = d.min(1.0).acos();
    let (wa, wb) = (((1.0 - u) * th).sin() / th.sin(), (u * th).sin() / th.sin());
    a.iter().zip(&b).map(|(x, y)| wa * x + wb * y).collect()
}

struct RefTrack {
    frames: Vec<f64>,
    values: Vec<Vec<f64>>,
    keys: Vec<Json>,
    quat: bool,
    wrap: String,
    fps: f64,
    arc: Option<RefArc>,
}

/// Arc-length timing by brute force: cumulative chord lengths on a fine grid of every segment.
struct RefArc {
    /// (segment, u, cumulative length) at every grid point.
    grid: Vec<(usize, f64, f64)>,
    total: f64,
    ease: Json,
}

impl RefArc {
    const PER_SEGMENT: usize = 100_000;

    fn new(t: &RefTrack, ease: Json) -> RefArc {
        let mut grid = Vec::new();
        let mut total = 0.0;
        for i in 0..t.frames.len() - 1 {
            let mut prev = t.shape(i, 0.0);
            grid.push((i, 0.0, total));
            for k in 1..=Self::PER_SEGMENT {
                let u = k as f64 / Self::PER_SEGMENT as f64;
                let p = t.shape(i, u);
                total += p
                    .iter()
                    .zip(&prev)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum::<f64>()
                    .sqrt();
                grid.push((i, u, total));
                prev = p;
            }
        }
        RefArc { grid, total, ease }
    }

    fn eval(&self, t: &RefTrack, f: f64) -> Vec<f64> {
        let n = t.frames.len();
        let (first, last) = (t.frames[0], t.frames[n - 1]);
        let s = (self.total * ease_ref(&self.ease, f - first, last - first)).clamp(0.0, self.total);
        // L = 0 gives the start of the first segment (this wins over "s = L is the last key").
        if s <= 0.0 || self.total == 0.0 {
            return t.shape(0, 0.0);
        }
        if s >= self.total {
            return t.values[n - 1].clone();
        }
        // The last grid point at or below s (the later point at a jump), then linear in u.
        let k = self.grid.partition_point(|g| g.2 <= s) - 1;
        let (i, u0, s0) = self.grid[k];
        let (i1, u1, s1) = self.grid[k + 1];
        let u = if i1 == i && s1 > s0 {
            u0 + (u1 - u0) * (s - s0) / (s1 - s0)
        } else {
            u0
        };
        t.shape(i, u)
    }
}

impl RefTrack {
    fn new(t: &Json, fps: f64) -> RefTrack {
        let quat = t["type"] == "quat";
        let keys: Vec<Json> = t["keys"].as_array().unwrap().clone();
        let frames = keys.iter().map(|k| k["frame"].as_f64().unwrap()).collect();
        let values = keys
            .iter()
            .map(|k| {
                let v = num_vec(&k["value"]);
                if quat {
                    normalize(&v)
                } else {
                    v
                }
            })
            .collect();
        let mut r = RefTrack {
            frames,
            values,
            keys,
            quat,
            wrap: t
                .get("wrap")
                .and_then(Json::as_str)
                .unwrap_or("clamp")
                .to_string(),
            fps,
            arc: None,
        };
        if t.get("path").and_then(Json::as_str) == Some("arclength") && r.frames.len() > 1 {
            let ease = t.get("ease").cloned().unwrap_or(json!("linear"));
            r.arc = Some(RefArc::new(&r, ease));
        }
        r
    }

    fn tcb(&self, i: usize) -> (f64, f64, f64) {
        match self.keys[i].get("tcb") {
            Some(a) => (
                a[0].as_f64().unwrap(),
                a[1].as_f64().unwrap(),
                a[2].as_f64().unwrap(),
            ),
            None => (0.0, 0.0, 0.0),
        }
    }

    /// DS (incoming) or DD (outgoing) at key i, straight from the spec's text.
    fn kb(&self, i: usize, zero: bool, outgoing: bool) -> Vec<f64> {
        let n = self.frames.len();
        let p = &self.values;
        let (t, c, b) = if zero { (0.0, 0.0, 0.0) } else { self.tcb(i) };
        let prev: Vec<f64> = if i == 0 {
            p[0].iter().zip(&p[1]).map(|(a, b)| 2.0 * a - b).collect()
        } else {
            p[i - 1].clone()
        };
        let next: Vec<f64> = if i == n - 1 {
            p[n - 1]
                .iter()
                .zip(&p[n - 2])
                .map(|(a, b)| 2.0 * a - b)
                .collect()
        } else {
            p[i + 1].clone()
        };
        let n_prev = if i == 0 {
            self.frames[1] - self.frames[0]
        } else {
            self.frames[i] - self.frames[i - 1]
        };
        let n_next = if i == n - 1 {
            self.frames[n - 1] - self.frames[n - 2]
        } else {
            self.frames[i + 1] - self.frames[i]
        };
        (0..p[i].len())
            .map(|k| {
                let a = p[i][k] - prev[k];
                let bb = next[k] - p[i][k];
                if outgoing {
                    ((1.0 - t) * (1.0 + b) * (1.0 + c) / 2.0 * a
                        + (1.0 - t) * (1.0 - b) * (1.0 - c) / 2.0 * bb)
                        * 2.0
                        * n_next
                        / (n_prev + n_next)
                } else {
                    ((1.0 - t) * (1.0 + b) * (1.0 - c) / 2.0 * a
                        + (1.0 - t) * (1.0 - b) * (1.0 + c) / 2.0 * bb)
                        * 2.0
                        * n_prev
                        / (n_prev + n_next)
                }
            })
            .collect()
    }

    fn eval(&self, f: f64) -> Vec<f64> {
        let n = self.frames.len();
        let f0 = self.frames[0];
        let s = self.frames[n - 1] - f0;
        let mut f = f;
        if f < f0 || f > f0 + s {
            f = if s == 0.0 {
                f0
            } else {
                match self.wrap.as_str() {
                    "clamp" => {
                        if f < f0 {
                            f0
                        } else {
                            f0 + s
                        }
                    }
                    "loop" => f0 + (f - f0).rem_euclid(s),
                    _ => {
                        let r = (f - f0).rem_euclid(2.0 * s);
                        if r <= s {
                            f0 + r
                        } else {
                            f0 + 2.0 * s - r
                        }
                    }
                }
            };
        }
        if let Some(arc) = &self.arc {
            return arc.eval(self, f);
        }
        if f >= self.frames[n - 1] {
            return self.values[n - 1].clone();
        }
        let i = (0..n - 1).rev().find(|&i| self.frames[i] <= f).unwrap();
        let (fi, len) = (self.frames[i], self.frames[i + 1] - self.frames[i]);
        let key = &self.keys[i];
        let u = ease_ref(key.get("ease").unwrap_or(&json!("linear")), f - fi, len);
        self.shape(i, u)
    }

    /// Segment i's curve at the (eased) parameter u.
    fn shape(&self, i: usize, u: f64) -> Vec<f64> {
        let n = self.frames.len();
        let (fi, len) = (self.frames[i], self.frames[i + 1] - self.frames[i]);
        let key = &self.keys[i];
        let (p0, p1) = (&self.values[i], &self.values[i + 1]);
        let interp = key.get("interp").cloned().unwrap_or(json!("linear"));
        let hermite = |m0: &[f64], m1: &[f64]| -> Vec<f64> {
            // Via the equivalent Bezier, a different route from the Hermite basis.
            (0..p0.len())
                .map(|k| {
                    let (b0, b1, b2, b3) = (p0[k], p0[k] + m0[k] / 3.0, p1[k] - m1[k] / 3.0, p1[k]);
                    let v = 1.0 - u;
                    v * v * v * b0 + 3.0 * v * v * u * b1 + 3.0 * v * u * u * b2 + u * u * u * b3
                })
                .collect()
        };
        let out: Vec<f64> = match &interp {
            Json::String(s) => match s.as_str() {
                "step" => return p0.clone(),
                "linear" if !self.quat => p0.iter().zip(p1).map(|(a, b)| a + (b - a) * u).collect(),
                "linear" | "slerp" => return normalize(&slerp_ref(p0, p1, u)),
                "catmull_rom" => hermite(&self.kb(i, true, true), &self.kb(i + 1, true, false)),
                "tcb" => hermite(&self.kb(i, false, true), &self.kb(i + 1, false, false)),
                _ => panic!(),
            },
            Json::Object(o) => {
                if let Some(h) = o.get("hermite") {
                    let m0: Vec<f64> = num_vec(&h["out"]).iter().map(|x| x * len).collect();
                    let m1: Vec<f64> = num_vec(&h["in"]).iter().map(|x| x * len).collect();
                    hermite(&m0, &m1)
                } else if let Some(b) = o.get("bezier") {
                    let (c1, c2) = (num_vec(&b["out"]), num_vec(&b["in"]));
                    (0..p0.len())
                        .map(|k| {
                            // de Casteljau
                            let l = |a: f64, b: f64| a + (b - a) * u;
                            let (a, b, c) = (l(p0[k], c1[k]), l(c1[k], c2[k]), l(c2[k], p1[k]));
                            let (d, e) = (l(a, b), l(b, c));
                            l(d, e)
                        })
                        .collect()
                } else if let Some(p) = o.get("polynomial") {
                    let kk = p["keys"].as_u64().unwrap() as usize;
                    let start =
                        (i as i64 - ((kk as i64 - 2) / 2)).clamp(0, (n - kk) as i64) as usize;
                    let x = fi + u * len;
                    // Neville's algorithm.
                    (0..p0.len())
                        .map(|k| {
                            let xs: Vec<f64> = self.frames[start..start + kk].to_vec();
                            let mut ys: Vec<f64> =
                                (start..start + kk).map(|j| self.values[j][k]).collect();
                            for lvl in 1..kk {
                                for j in 0..kk - lvl {
                                    ys[j] = ((x - xs[j + lvl]) * ys[j] + (xs[j] - x) * ys[j + 1])
                                        / (xs[j] - xs[j + lvl]);
                                }
                            }
                            ys[0]
                        })
                        .collect()
                } else {
                    panic!("expr not generated")
                }
            }
            _ => panic!(),
        };
        if self.quat {
            normalize(&out)
        } else {
            out
        }
    }
}

fn scale(r: &RefTrack) -> f64 {
    r.values
        .iter()
        .flatten()
        .fold(1.0f64, |m, x| m.max(x.abs()))
}

fn close_up_to_sign(a: &[f64], b: &[f64], tol: f64, quat: bool) -> bool {
    let direct = a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol);
    direct || (quat && a.iter().zip(b).all(|(x, y)| (x + y).abs() <= tol))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The library agrees with the independent evaluator to 1e-9 of the track's scale at
    /// integer, fractional and out-of-range frames.
    #[test]
    fn library_matches_independent_reference(doc in document_strategy(), probes in prop::collection::vec(-40.0f64..200.0, 40)) {
        let text = doc.to_string();
        let loaded = Document::from_json_str(&text, "random.json");
        let loaded = match loaded { Ok(d) => d, Err(e) => { prop_assert!(false, "refused: {e}\n{text}"); unreachable!() } };
        let fps = doc["fps"].as_f64().unwrap();
        for (t, tj) in loaded.tracks().iter().zip(doc["tracks"].as_array().unwrap()) {
            let r = RefTrack::new(tj, fps);
            let _ = r.fps;
            let tol = 1e-9 * scale(&r);
            let mut frames: Vec<f64> = probes.clone();
            frames.extend(probes.iter().map(|p| p.round()));
            frames.extend(r.frames.iter().copied());
            for f in frames {
                let got = t.eval(f);
                let want = r.eval(f);
                prop_assert!(close_up_to_sign(&got, &want, tol, r.quat),
                    "track {} frame {f}: library {:?} vs reference {:?}\n{text}", t.name(), got.as_slice(), want);
            }
        }
    }

    /// Frame f_i gives key i's value (every kind here starts at p_i; steps eases that jump at
    /// the start are the spec's exception), and the last key's frame gives the last value.
    #[test]
    fn key_frames_give_key_values(doc in document_strategy()) {
        let text = doc.to_string();
        let loaded = Document::from_json_str(&text, "random.json").map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (t, tj) in loaded.tracks().iter().zip(doc["tracks"].as_array().unwrap()) {
            let r = RefTrack::new(tj, 60.0);
            let tol = 1e-12 * scale(&r);
            for (i, key) in t.keys().iter().enumerate() {
                let jumps = tj["keys"][i]["ease"]["steps"][1].as_str().is_some_and(|j| j == "jump_start" || j == "jump_both");
                if jumps && i + 1 < t.keys().len() { continue; }
                let got = t.eval(key.frame);
                prop_assert!(close_up_to_sign(&got, &r.values[i], tol, r.quat), "track {} key {i}: {:?} vs {:?}", t.name(), got.as_slice(), r.values[i]);
            }
        }
    }

    /// Random bytes never panic the loader.
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = Document::from_json_slice(&bytes, "fuzz.json");
    }

    /// Random mutations of valid documents are loaded or refused, never a panic.
    #[test]
    fn mutated_documents_never_panic(doc in document_strategy(), edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8)) {
        let mut bytes = doc.to_string().into_bytes();
        for (at, byte, op) in edits {
            if bytes.is_empty() { break; }
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => { bytes.remove(i); }
                _ => bytes.insert(i, b"{}[],:\"0-e.1"[usize::from(byte) % 12]),
            }
        }
        if let Ok(d) = Document::from_json_slice(&bytes, "fuzz.json") {
            for t in d.tracks() {
                let _ = t.eval(t.first_frame() + 0.5);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Arc-length tracks (vec2/vec3 of the spatial kinds, with track eases) agree with a
    /// brute-force chord-length reference to 1e-9 of the curve's length (plus the reference's
    /// own grid error).
    #[test]
    fn arclength_tracks_match_independent_reference(doc in document_strategy(), ease in common::random_documents::ease_strategy(), probes in prop::collection::vec(-20.0f64..120.0, 12)) {
        let mut doc = doc;
        for t in doc["tracks"].as_array_mut().unwrap() {
            if t["type"] == "vec2" || t["type"] == "vec3" {
                t["path"] = json!("arclength");
                t["ease"] = ease.clone();
            }
        }
        let text = doc.to_string();
        let loaded = Document::from_json_str(&text, "random.json").map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        for (t, tj) in loaded.tracks().iter().zip(doc["tracks"].as_array().unwrap()) {
            if tj.get("path").is_none() { continue; }
            let r = RefTrack::new(tj, 60.0);
            let length = r.arc.as_ref().map_or(0.0, |a| a.total);
            // The chord grid is short of the arc by ~(hκ)²/24 and interpolates linearly inside a
            // cell: allow 1e-9·L plus that grid error.
            let tol = 1e-9 * length.max(1.0) + 1e-7 * scale(&r);
            let mut frames = probes.clone();
            frames.extend(r.frames.iter().copied());
            for f in frames {
                let got = t.eval(f);
                let want = r.eval(f);
                prop_assert!(close_up_to_sign(&got, &want, tol, false),
                    "track {} frame {f}: library {:?} vs reference {:?} (L = {length})\n{text}", t.name(), got.as_slice(), want);
            }
        }
    }
}
