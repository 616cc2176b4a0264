//! The JSON form of F-curve tracks: the track's `fcurve` object and its keys' handles and easing.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value as Json};

use super::{
    AutoSmoothing, CycleMode, Cycles, EasingMode, EasingType, Extrapolation, FCurve, FInterp, FKey,
    HandleType, RawFCurve,
};
use crate::error::{DocumentError, ErrorKind, Location};
use crate::json::invalid;

fn number(v: &Json, loc: Location) -> Result<f64, DocumentError> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => Err(invalid(loc, "a finite number", v)),
    }
}

fn named<T>(
    v: &Json,
    loc: Location,
    expected: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, DocumentError> {
    v.as_str()
        .and_then(parse)
        .ok_or_else(|| invalid(loc, expected, v))
}

const HANDLE_NAMES: &str = "one of \"free\", \"aligned\", \"vector\", \"auto\", \"auto_clamped\"";

/// The track's `fcurve` object and its `keys` array.
pub(crate) fn fcurve_from_json(
    spec: &Json,
    keys: &[Json],
    loc: &Location,
) -> Result<RawFCurve, DocumentError> {
    let floc = loc.with_field("fcurve");
    let obj = spec
        .as_object()
        .ok_or_else(|| invalid(floc.clone(), "an object", spec))?;
    let extrapolation = match obj.get("extrapolation") {
        None => [Extrapolation::Constant; 2],
        Some(v) => extrapolation_from_json(v, loc.with_field("fcurve.extrapolation"))?,
    };
    let cycles = match obj.get("cycles") {
        None | Some(Json::Null) => None,
        Some(v) => Some(cycles_from_json(v, loc)?),
    };
    let smoothing = match obj.get("auto_smoothing") {
        None => AutoSmoothing::None,
        Some(v) => named(
            v,
            loc.with_field("fcurve.auto_smoothing"),
            "\"none\" or \"cont_accel\"",
            AutoSmoothing::from_name,
        )?,
    };
    let keys = keys
        .iter()
        .enumerate()
        .map(|(k, key)| key_from_json(key, &loc.with_key(k)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RawFCurve {
        keys,
        extrapolation,
        cycles,
        smoothing,
    })
}

fn extrapolation_from_json(v: &Json, loc: Location) -> Result<[Extrapolation; 2], DocumentError> {
    let expected = "\"constant\", \"linear\" or [before, after] of those";
    let one = |x: &Json| named(x, loc.clone(), expected, Extrapolation::from_name);
    match v {
        Json::Array(a) if a.len() == 2 => Ok([one(&a[0])?, one(&a[1])?]),
        _ => {
            let e = one(v)?;
            Ok([e, e])
        }
    }
}

fn cycles_from_json(v: &Json, loc: &Location) -> Result<Cycles, DocumentError> {
    let cloc = loc.with_field("fcurve.cycles");
    let obj = v.as_object().ok_or_else(|| {
        invalid(
            cloc,
            "an object {before, after, before_count, after_count}",
            v,
        )
    })?;
    let modes = "one of \"none\", \"repeat\", \"repeat_offset\", \"mirror\"";
    let mode = |field: &str| match obj.get(field) {
        None => Ok(CycleMode::None),
        Some(x) => named(
            x,
            loc.with_field(format!("fcurve.cycles.{field}")),
            modes,
            CycleMode::from_name,
        ),
    };
    let count = |field: &str| match obj.get(field) {
        None => Ok(0),
        Some(x) => x
            .as_u64()
            .and_then(|c| u32::try_from(c).ok())
            .ok_or_else(|| {
                invalid(
                    loc.with_field(format!("fcurve.cycles.{field}")),
                    "a whole number of cycles from 0 (forever) to 4294967295",
                    x,
                )
            }),
    };
    Ok(Cycles {
        before: mode("before")?,
        after: mode("after")?,
        before_count: count("before_count")?,
        after_count: count("after_count")?,
    })
}

fn point(v: Option<&Json>, loc: Location, default: [f64; 2]) -> Result<[f64; 2], DocumentError> {
    match v {
        None => Ok(default),
        Some(Json::Array(a)) if a.len() == 2 => {
            Ok([number(&a[0], loc.clone())?, number(&a[1], loc)?])
        }
        Some(x) => Err(invalid(loc, "[frame, value]", x)),
    }
}

fn key_from_json(v: &Json, kloc: &Location) -> Result<FKey, DocumentError> {
    let obj = v
        .as_object()
        .ok_or_else(|| invalid(kloc.clone(), "a key (a JSON object)", v))?;
    let frame = match obj.get("frame") {
        Some(x) => number(x, kloc.with_field("frame"))?,
        None => {
            return Err(DocumentError::new(
                kloc.with_field("frame"),
                ErrorKind::Missing {
                    expected: "the key's frame, a number",
                },
            ))
        }
    };
    let value = match obj.get("value") {
        Some(x) => number(x, kloc.with_field("value"))?,
        None => {
            return Err(DocumentError::new(
                kloc.with_field("value"),
                ErrorKind::Missing {
                    expected: "the key's value, a number",
                },
            ))
        }
    };
    let mut key = FKey::new(frame, value);
    key.left = point(obj.get("left"), kloc.with_field("left"), [frame, value])?;
    key.right = point(obj.get("right"), kloc.with_field("right"), [frame, value])?;
    if let Some(h) = obj.get("handles") {
        let hloc = kloc.with_field("handles");
        let types = match h {
            Json::Array(a) if a.len() == 2 => [
                named(&a[0], hloc.clone(), HANDLE_NAMES, HandleType::from_name)?,
                named(&a[1], hloc, HANDLE_NAMES, HandleType::from_name)?,
            ],
            _ => {
                let t = named(h, hloc, HANDLE_NAMES, HandleType::from_name)?;
                [t, t]
            }
        };
        [key.left_type, key.right_type] = types;
    }
    match obj.get("interp") {
        None => key.interp = FInterp::Bezier,
        Some(i) => interp_from_json(i, obj_ref(i), &mut key, kloc)?,
    }
    Ok(key)
}

fn obj_ref(v: &Json) -> Option<&Map<String, Json>> {
    v.as_object()
}

fn interp_from_json(
    v: &Json,
    obj: Option<&Map<String, Json>>,
    key: &mut FKey,
    kloc: &Location,
) -> Result<(), DocumentError> {
    let iloc = kloc.with_field("interp");
    let expected = "\"step\", \"linear\", \"bezier_2d\" or {\"easing\": TYPE, \"mode\", \"back\", \"amplitude\", \"period\"}";
    if let Some(name) = v.as_str() {
        key.interp = match name {
            "step" => FInterp::Constant,
            "linear" => FInterp::Linear,
            "bezier_2d" => FInterp::Bezier,
            _ => return Err(invalid(iloc, expected, v)),
        };
        return Ok(());
    }
    let Some(obj) = obj else {
        return Err(invalid(iloc, expected, v));
    };
    let Some(kind) = obj.get("easing") else {
        return Err(invalid(iloc, expected, v));
    };
    let kind = named(
        kind,
        kloc.with_field("interp.easing"),
        "one of \"sine\", \"quad\", \"cubic\", \"quart\", \"quint\", \"expo\", \"circ\", \"back\", \"bounce\", \"elastic\"",
        EasingType::from_name,
    )?;
    let mode = match obj.get("mode") {
        None => EasingMode::Auto,
        Some(m) => named(
            m,
            kloc.with_field("interp.mode"),
            "one of \"auto\", \"in\", \"out\", \"in_out\"",
            EasingMode::from_name,
        )?,
    };
    for (field, slot) in [
        ("back", &mut key.back),
        ("amplitude", &mut key.amplitude),
        ("period", &mut key.period),
    ] {
        if let Some(x) = obj.get(field) {
            *slot = number(x, kloc.with_field(format!("interp.{field}")))?;
        }
    }
    key.interp = FInterp::Easing { kind, mode };
    Ok(())
}

fn num(x: f64) -> Json {
    serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number)
}

/// The track as a document writes it (handles as placed).
pub(crate) fn track_json(name: &str, curve: &FCurve) -> Json {
    let mut spec = Map::new();
    let [before, after] = curve.extrapolation();
    spec.insert(
        "extrapolation".into(),
        if before == after {
            Json::String(before.name().into())
        } else {
            Json::Array(alloc::vec![before.name().into(), after.name().into()])
        },
    );
    if curve.smoothing() != AutoSmoothing::None {
        spec.insert("auto_smoothing".into(), curve.smoothing().name().into());
    }
    if let Some(c) = curve.cycles() {
        let mut m = Map::new();
        m.insert("before".into(), c.before.name().into());
        m.insert("after".into(), c.after.name().into());
        m.insert("before_count".into(), c.before_count.into());
        m.insert("after_count".into(), c.after_count.into());
        spec.insert("cycles".into(), Json::Object(m));
    }
    let keys = curve.keys().iter().map(key_json).collect();
    let mut t = Map::new();
    t.insert("name".into(), Json::String(name.to_string()));
    t.insert("type".into(), "scalar".into());
    t.insert("fcurve".into(), Json::Object(spec));
    t.insert("keys".into(), Json::Array(keys));
    Json::Object(t)
}

fn key_json(k: &FKey) -> Json {
    let mut m = Map::new();
    m.insert("frame".into(), num(k.frame));
    m.insert("value".into(), num(k.value));
    let interp = match k.interp {
        FInterp::Constant => "step".into(),
        FInterp::Linear => "linear".into(),
        FInterp::Bezier => "bezier_2d".into(),
        FInterp::Easing { kind, mode } => {
            let mut e = Map::new();
            e.insert("easing".into(), kind.name().into());
            e.insert("mode".into(), mode.name().into());
            e.insert("back".into(), num(k.back));
            e.insert("amplitude".into(), num(k.amplitude));
            e.insert("period".into(), num(k.period));
            Json::Object(e)
        }
    };
    m.insert("interp".into(), interp);
    m.insert(
        "left".into(),
        Json::Array(alloc::vec![num(k.left[0]), num(k.left[1])]),
    );
    m.insert(
        "right".into(),
        Json::Array(alloc::vec![num(k.right[0]), num(k.right[1])]),
    );
    m.insert(
        "handles".into(),
        Json::Array(alloc::vec![
            k.left_type.name().into(),
            k.right_type.name().into()
        ]),
    );
    Json::Object(m)
}
