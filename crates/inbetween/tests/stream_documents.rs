//! Random documents compiled in every precision and played back: within the compile tolerance of
//! exact evaluation at every frame, and seeking, reversing and rate changes agree.

use proptest::prelude::*;
use serde_json::{json, Value as Json};

use inbetween::compile::CompileOptions;
use inbetween::player::TrackPlayer;
use inbetween::stream::Stream;
use inbetween::Document;

mod common;
use common::random_documents::{document_strategy, precision_strategy};

/// Adds expression segments to some keys of non-quaternion tracks.
fn with_expressions(mut doc: Json, picks: Vec<(usize, usize, f64)>) -> Json {
    for (t, k, a) in picks {
        let Some(track) = doc["tracks"].get_mut(t) else {
            continue;
        };
        let dims = match track["type"].as_str() {
            Some("scalar") => 1,
            Some("vec2") => 2,
            Some("vec3") => 3,
            Some("quat") => continue,
            _ => 4,
        };
        let Some(key) = track["keys"].get_mut(k) else {
            continue;
        };
        let exprs: Vec<String> = (0..dims)
            .map(|c| {
                format!(
                    "{a}*sin({}*pi*u + {c}) + {}*u^2 - frame/10 + time",
                    c + 1,
                    a / 3.0
                )
            })
            .collect();
        key["interp"] = if dims == 1 {
            json!({"expr": exprs[0]})
        } else {
            json!({"expr": exprs})
        };
    }
    doc
}

fn doc_strategy() -> impl Strategy<Value = Json> {
    (
        document_strategy(),
        prop::collection::vec((0usize..3, 0usize..6, -50.0f64..50.0), 0..3),
    )
        .prop_map(|(d, picks)| with_expressions(d, picks))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn played_streams_stay_within_tolerance_of_sample(doc in doc_strategy(), precision in precision_strategy(), offset in -30i32..30, rate_pick in 0usize..4) {
        let text = doc.to_string();
        let d = Document::from_json_str(&text, "random.json").map_err(|e| TestCaseError::fail(e.to_string()))?;
        let options = CompileOptions { precision, ..CompileOptions::default() };
        let compiled = match d.compile(&options) {
            Ok(c) => c,
            // An expression can leave its domain; that is a refusal, not a wrong stream.
            Err(inbetween::compile::CompileError::NonFinite { .. }) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{text}"))),
        };
        let stream = Stream::from_bytes(&compiled.bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (i, track) in d.tracks().iter().enumerate() {
            let tol = 1e-6 * track.scale();
            let compiled_track = stream.track(i).unwrap();
            let first = track.first_frame().ceil() - 40.0;
            let last = track.last_frame().floor() + 40.0;
            // Forward from the start, every integer frame (wraps included).
            let mut p = TrackPlayer::new(compiled_track);
            p.seek(first).unwrap();
            let mut forward = Vec::new();
            let mut f = first;
            while f <= last {
                let exact = track.eval(f);
                let played = p.value();
                for c in 0..track.components() {
                    prop_assert!((played[c] - exact[c]).abs() <= tol,
                        "{precision} track {} frame {f} component {c}: played {} exact {} (tol {tol:e})\n{text}", track.name(), played[c], exact[c]);
                }
                forward.push(played);
                p.advance();
                f += 1.0;
            }
            // Seeking to a frame then playing stays within the tolerance of exact evaluation
            // (and so of playing from the start).
            let start = first + f64::from(offset.rem_euclid(40));
            let mut q = TrackPlayer::new(compiled_track);
            q.seek(start).unwrap();
            for k in 0..20usize {
                let idx = (start - first) as usize + k;
                if idx >= forward.len() { break; }
                let v = q.value();
                for c in 0..track.components() {
                    let exact = track.eval(first + idx as f64);
                    prop_assert!((v[c] - exact[c]).abs() <= tol, "{precision} seek {start} + {k}: {} vs exact {} (forward play {})", v[c], exact[c], forward[idx][c]);
                }
                q.advance();
            }
            // Backward play stays within the tolerance of exact evaluation at every frame.
            let mut r = TrackPlayer::new(compiled_track);
            r.seek(last).unwrap();
            r.set_step(-1.0).unwrap();
            for idx in (0..forward.len()).rev() {
                let v = r.value();
                for c in 0..track.components() {
                    let exact = track.eval(first + idx as f64);
                    prop_assert!((v[c] - exact[c]).abs() <= tol, "{precision} reverse at index {idx}: {} vs exact {} (forward play {})", v[c], exact[c], forward[idx][c]);
                }
                r.advance();
            }
            // Another rate: matches exact evaluation at the fractional frames.
            let rate = [0.5, 60.0 / 144.0, 2.0, 0.3][rate_pick];
            let mut s = TrackPlayer::new(compiled_track);
            s.seek(first).unwrap();
            s.set_step(rate).unwrap();
            let mut k = 0.0;
            while first + k * rate <= last {
                let frame = first + k * rate;
                let exact = track.eval(frame);
                let v = s.value();
                // Between integer frames a step jump or a kink may fall inside the rounding of
                // `frame`; compare only where the exact curve is locally continuous.
                let h = 1e-7;
                let (lo, hi) = (track.eval(frame - h), track.eval(frame + h));
                let continuous = (0..track.components()).all(|c| (lo[c] - hi[c]).abs() <= tol);
                if continuous {
                    for c in 0..track.components() {
                        prop_assert!((v[c] - exact[c]).abs() <= tol,
                            "{precision} rate {rate} track {} frame {frame} component {c}: {} vs {}\n{text}", track.name(), v[c], exact[c]);
                    }
                }
                s.advance();
                k += 1.0;
            }
        }
    }
}
