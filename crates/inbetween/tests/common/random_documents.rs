//! Random animation documents for property tests: every segment kind, ease, wrap and type.

use proptest::prelude::*;
use serde_json::{json, Value as Json};

/// Every named ease (the library's list; the generator only needs the names).
pub fn eases() -> &'static [&'static str] {
    inbetween::Ease::names()
}

/// Every precision, equally likely.
pub fn precision_strategy() -> impl Strategy<Value = inbetween::stream::Precision> {
    use inbetween::stream::Precision;
    prop_oneof![
        Just(Precision::F32),
        Just(Precision::F64),
        Just(Precision::Fixed)
    ]
}

pub fn ease_strategy() -> impl Strategy<Value = Json> {
    prop_oneof![
        6 => (0..eases().len()).prop_map(|i| json!(eases()[i])),
        1 => (0.0..=1.0f64, -1.0..2.0f64, 0.0..=1.0f64, -1.0..2.0f64)
            .prop_map(|(a, b, c, d)| json!({"cubic_bezier": [a, b, c, d]})),
        1 => (2u32..7, 0usize..4).prop_map(|(n, j)| {
            {
            let jump = ["jump_start", "jump_end", "jump_none", "jump_both"][j];
            json!({"steps": [n, jump]})
        }
        }),
    ]
}

fn value_json(dims: usize, v: &[f64]) -> Json {
    if dims == 1 {
        json!(v[0])
    } else {
        json!(v[..dims].to_vec())
    }
}

pub fn track_strategy(index: usize) -> impl Strategy<Value = Json> {
    (0usize..6, 1usize..7, 0usize..3).prop_flat_map(move |(ty, n, wrap)| {
        let types = ["scalar", "vec2", "vec3", "vec4", "color", "quat"];
        let dims = [1, 2, 3, 4, 4, 4][ty];
        let key = (
            0.25f64..30.0,
            prop::collection::vec(-100.0f64..100.0, 4),
            0usize..8,
            ease_strategy(),
            prop::collection::vec(-1.0f64..1.0, 3),
            prop::collection::vec(-5.0f64..5.0, 8),
            2usize..6,
        );
        prop::collection::vec(key, n).prop_map(move |keys| {
            let mut frame = -7.5;
            let count = keys.len();
            let quat = types[ty] == "quat";
            let list: Vec<Json> = keys
                .into_iter()
                .map(|(gap, mut value, kind, ease, tcb, extra, pk)| {
                    frame += gap;
                    if quat && value[..4].iter().all(|c| c.abs() < 1e-3) {
                        value[3] = 1.0;
                    }
                    let interp = match kind {
                        0 => json!("step"),
                        1 => json!("linear"),
                        2 if quat => json!("slerp"),
                        2 => json!("catmull_rom"),
                        3 => json!({"hermite": {"out": value_json(dims, &extra[..4]), "in": value_json(dims, &extra[4..])}}),
                        4 => json!({"bezier": {"out": value_json(dims, &extra[..4].iter().map(|x| x * 20.0).collect::<Vec<_>>()), "in": value_json(dims, &extra[4..].iter().map(|x| x * 20.0).collect::<Vec<_>>())}}),
                        5 => json!("catmull_rom"),
                        6 => json!("tcb"),
                        _ if count >= 2 => json!({"polynomial": {"keys": pk.min(count)}}),
                        _ => json!("linear"),
                    };
                    json!({"frame": (frame * 4.0_f64).round() / 4.0, "value": value_json(dims, &value), "interp": interp, "ease": ease, "tcb": tcb})
                })
                .collect();
            let wrap_name = ["clamp", "loop", "ping_pong"][wrap];
            json!({"name": format!("t{index}"), "type": types[ty], "wrap": wrap_name, "keys": list})
        })
    })
}

pub fn document_strategy() -> impl Strategy<Value = Json> {
    (
        track_strategy(0),
        track_strategy(1),
        track_strategy(2),
        1usize..4,
        prop_oneof![Just(24.0), Just(60.0), Just(29.97)],
    )
        .prop_map(|(a, b, c, n, fps)| {
            let tracks: Vec<Json> = [a, b, c].into_iter().take(n).collect();
            json!({"inbetween": 1, "fps": fps, "tracks": tracks})
        })
}
