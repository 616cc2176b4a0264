//! Loading animation documents from JSON text, with errors that name the track, key and field.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value as Json};

use crate::document::{build_document, Document};
use crate::ease::{CubicBezierEase, Ease, StepJump, Steps};
use crate::error::{DocumentError, ErrorKind, LoadError, Location};
use crate::track::{Interp, RawInterp, RawKey, TrackBuilder, Wrap, DEFAULT_FPS};
use crate::value::ValueType;

impl Document {
    /// Parses and validates a JSON document. `file` names the source in errors. A leading
    /// UTF-8 byte order mark (U+FEFF) is skipped; line and column numbers in errors count from
    /// after it.
    pub fn from_json_str(text: &str, file: &str) -> Result<Document, LoadError> {
        Document::from_json_str_with_warnings(text, file).map(|(doc, _)| doc)
    }

    /// [`Document::from_json_str`], and the document's warnings ([`crate::lint::warnings`]):
    /// unknown fields with the nearest known name, quaternions written far from unit length,
    /// `expr` segments that end away from their next key. Warnings never stop the load.
    pub fn from_json_str_with_warnings(
        text: &str,
        file: &str,
    ) -> Result<(Document, Vec<crate::lint::Warning>), LoadError> {
        let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
        parse_document(text)
            .map(|(doc, json)| {
                let warnings = crate::lint::warnings(&json, &doc);
                (doc, warnings)
            })
            .map_err(|error| LoadError {
                file: file.to_string(),
                error,
            })
    }

    /// Parses and validates a JSON document from bytes (must be UTF-8).
    pub fn from_json_slice(bytes: &[u8], file: &str) -> Result<Document, LoadError> {
        Document::from_json_slice_with_warnings(bytes, file).map(|(doc, _)| doc)
    }

    /// [`Document::from_json_slice`] with the document's warnings, as
    /// [`Document::from_json_str_with_warnings`].
    pub fn from_json_slice_with_warnings(
        bytes: &[u8],
        file: &str,
    ) -> Result<(Document, Vec<crate::lint::Warning>), LoadError> {
        match core::str::from_utf8(bytes) {
            Ok(text) => Document::from_json_str_with_warnings(text, file),
            Err(e) => {
                let (line, column) = line_column(bytes, e.valid_up_to());
                Err(LoadError {
                    file: file.to_string(),
                    error: DocumentError::new(
                        Location::document(),
                        ErrorKind::Syntax {
                            line,
                            column,
                            message: "the file is not valid UTF-8".into(),
                        },
                    ),
                })
            }
        }
    }
}

/// The most steps a `steps` ease may have in a document (the compiler makes a piece per step).
const MAX_STEPS_JSON: f64 = 1.0e9;

fn line_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|b| **b != b'\n').count() + 1;
    (line, column)
}

/// Parses JSON text into a validated document, returned with the JSON it was read from.
pub(crate) fn parse_document(text: &str) -> Result<(Document, Json), DocumentError> {
    let json: Json = serde_json::from_str(text).map_err(|e| {
        DocumentError::new(
            Location::document(),
            ErrorKind::Syntax {
                line: e.line(),
                column: e.column(),
                message: strip_position(&e.to_string()),
            },
        )
    })?;
    if let Some(kind) = duplicate_key(text) {
        return Err(DocumentError::new(Location::document(), kind));
    }
    let doc = document_from_json(&json)?;
    Ok((doc, json))
}

/// Objects with more keys than this get a sorted index in [`duplicate_key`]; smaller ones (every
/// object of the format) are searched linearly, without allocating.
const LINEAR_KEYS: usize = 16;

/// An object being read by [`duplicate_key`]: where its keys start in the shared key list, a
/// sorted index once it has more than [`LINEAR_KEYS`] keys, and whether the next string is a key.
struct OpenObject<'a> {
    start: usize,
    index: Option<alloc::collections::BTreeMap<alloc::borrow::Cow<'a, str>, usize>>,
    expecting_key: bool,
}

impl<'a> OpenObject<'a> {
    /// Records `key` (at byte `at`) in `keys` (this object's are `keys[self.start..]`), or returns
    /// the offset of its first occurrence.
    fn insert(
        &mut self,
        keys: &mut Vec<(alloc::borrow::Cow<'a, str>, usize)>,
        key: alloc::borrow::Cow<'a, str>,
        at: usize,
    ) -> Option<usize> {
        if let Some(index) = &mut self.index {
            return match index.get(&key) {
                Some(&first) => Some(first),
                None => {
                    index.insert(key, at);
                    None
                }
            };
        }
        if let Some((_, first)) = keys[self.start..].iter().find(|(k, _)| *k == key) {
            return Some(*first);
        }
        keys.push((key, at));
        if keys.len() - self.start > LINEAR_KEYS {
            self.index = Some(keys.drain(self.start..).collect());
        }
        None
    }
}

/// The first key written twice in one object of `text`, which must be valid JSON (serde_json,
/// like most parsers, would keep the last silently). One pass over the bytes: a stack of the
/// open objects and arrays, and the keys (unescaped) of the open objects with their offsets.
fn duplicate_key(text: &str) -> Option<ErrorKind> {
    use alloc::borrow::Cow;

    let bytes = text.as_bytes();
    // For each open container: `Some` for an object, `None` for an array.
    let mut stack: Vec<Option<OpenObject<'_>>> = Vec::new();
    let mut keys: Vec<(Cow<'_, str>, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => stack.push(Some(OpenObject {
                start: keys.len(),
                index: None,
                expecting_key: true,
            })),
            b'[' => stack.push(None),
            b'}' | b']' => {
                if let Some(Some(object)) = stack.pop() {
                    keys.truncate(object.start);
                }
            }
            b',' => {
                if let Some(Some(object)) = stack.last_mut() {
                    object.expecting_key = true;
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if let Some(Some(object)) = stack
                    .last_mut()
                    .filter(|o| o.as_ref().is_some_and(|o| o.expecting_key))
                {
                    object.expecting_key = false;
                    let raw = text.get(start..=i)?;
                    let key: Cow<'_, str> = if raw.contains('\\') {
                        Cow::Owned(serde_json::from_str::<String>(raw).ok()?)
                    } else {
                        Cow::Borrowed(&raw[1..raw.len() - 1])
                    };
                    if let Some(first) = object.insert(&mut keys, key.clone(), start) {
                        let (line, column) = line_column(bytes, start);
                        let (first_line, first_column) = line_column(bytes, first);
                        return Some(ErrorKind::DuplicateKey {
                            key: key.into_owned(),
                            first_line,
                            first_column,
                            line,
                            column,
                        });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// serde_json appends " at line L column C"; we print the position ourselves.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Describes a JSON value for "found ..." in messages.
pub(crate) fn describe(v: &Json) -> String {
    match v {
        Json::Null => "null".into(),
        Json::Bool(b) => format!("{b}"),
        Json::Number(n) => format!("the number {n}"),
        Json::String(s) => {
            let short: String = s.chars().take(40).collect();
            if short.len() < s.len() {
                format!("the string \"{short}...\"")
            } else {
                format!("the string \"{short}\"")
            }
        }
        Json::Array(a) => {
            if !a.is_empty() && a.iter().all(Json::is_number) {
                if a.len() == 1 {
                    "an array of 1 number".into()
                } else {
                    format!("an array of {} numbers", a.len())
                }
            } else {
                format!("an array of {} elements", a.len())
            }
        }
        Json::Object(_) => "an object".into(),
    }
}

/// A `DocumentError::Invalid` at `loc`: `expected`, and the JSON value found, described.
pub(crate) fn invalid(loc: Location, expected: impl Into<String>, found: &Json) -> DocumentError {
    DocumentError::new(
        loc,
        ErrorKind::Invalid {
            expected: expected.into(),
            found: describe(found),
        },
    )
}

/// The allowed names of the string-valued fields, for suggestions ([`bad_name`]).
const TYPE_NAMES: &[&str] = &["scalar", "vec2", "vec3", "vec4", "color", "quat"];
const WRAP_NAMES: &[&str] = &["clamp", "loop", "ping_pong"];
const PATH_NAMES: &[&str] = &["keys", "arclength", "segment_arclength"];
const INTERP_NAMES: &[&str] = &["step", "linear", "slerp", "catmull_rom", "tcb"];
const INTERP_OBJECTS: &[&str] = &["hermite", "bezier", "polynomial", "expr"];
const EASE_OBJECTS: &[&str] = &["cubic_bezier", "steps"];
const JUMP_NAMES: &[&str] = &["jump_start", "jump_end", "jump_none", "jump_both"];

/// The error for `v` at `loc`, which is none of `names`: [`ErrorKind::UnknownName`] with the
/// nearest name when `v` is a string close to one ([`crate::lint::nearest_name`]), else
/// [`ErrorKind::Invalid`].
pub(crate) fn bad_name(
    loc: Location,
    expected: impl Into<String>,
    v: &Json,
    names: &[&'static str],
) -> DocumentError {
    match v
        .as_str()
        .and_then(|found| crate::lint::nearest_name(found, names))
    {
        Some(suggestion) => DocumentError::new(
            loc,
            ErrorKind::UnknownName {
                expected: expected.into(),
                found: describe(v),
                suggestion,
            },
        ),
        None => invalid(loc, expected, v),
    }
}

/// For a one-key object whose key is none of `names`: the error at `loc`, naming the key and the
/// nearest allowed one when it is close (`{"hermit": ...}`), else `fallback`.
fn bad_object_kind(
    loc: Location,
    kind: &str,
    names: &[&'static str],
    fallback: DocumentError,
) -> DocumentError {
    match crate::lint::nearest_name(kind, names) {
        Some(suggestion) => DocumentError::new(
            loc,
            ErrorKind::UnknownName {
                expected: format!("one of the keys {}", quoted(names)),
                found: format!("the key {}", Json::String(kind.into())),
                suggestion,
            },
        ),
        None => fallback,
    }
}

/// `"a", "b", "c"`.
fn quoted(names: &[&str]) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('"');
        out.push_str(name);
        out.push('"');
    }
    out
}

fn object<'a>(
    v: &'a Json,
    loc: &Location,
    what: &str,
) -> Result<&'a Map<String, Json>, DocumentError> {
    v.as_object()
        .ok_or_else(|| invalid(loc.clone(), format!("{what} (a JSON object)"), v))
}

fn number(v: &Json, loc: Location) -> Result<f64, DocumentError> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => Err(invalid(loc, "a finite number", v)),
    }
}

/// The value of a required `field` of `obj`, or [`ErrorKind::Missing`] at `loc.field`.
fn required<'j>(
    obj: &'j Map<String, Json>,
    loc: &Location,
    field: &str,
    expected: &'static str,
) -> Result<&'j Json, DocumentError> {
    obj.get(field)
        .ok_or_else(|| DocumentError::new(loc.with_field(field), ErrorKind::Missing { expected }))
}

fn string<'a>(v: &'a Json, loc: Location, expected: &str) -> Result<&'a str, DocumentError> {
    v.as_str()
        .ok_or_else(|| invalid(loc, expected.to_string(), v))
}

fn document_from_json(json: &Json) -> Result<Document, DocumentError> {
    let top = object(json, &Location::document(), "an animation document")?;
    match top.get("inbetween") {
        None => {
            return Err(DocumentError::new(
                Location::top("inbetween"),
                ErrorKind::Missing {
                    expected: "the format version, the integer 1",
                },
            ))
        }
        Some(v) if v.as_f64() == Some(1.0) => {}
        Some(v @ Json::Number(_)) => {
            return Err(DocumentError::new(
                Location::top("inbetween"),
                ErrorKind::UnsupportedVersion {
                    found: v.to_string(),
                },
            ))
        }
        Some(v) => {
            return Err(invalid(
                Location::top("inbetween"),
                "the format version, the integer 1",
                v,
            ))
        }
    }
    let fps = match top.get("fps") {
        None => DEFAULT_FPS,
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() && x > 0.0 => x,
            _ => return Err(invalid(Location::top("fps"), "a positive number", v)),
        },
    };
    let tracks_json = top.get("tracks").ok_or_else(|| {
        DocumentError::new(
            Location::top("tracks"),
            ErrorKind::Missing {
                expected: "an array of one or more tracks",
            },
        )
    })?;
    let list = tracks_json.as_array().ok_or_else(|| {
        invalid(
            Location::top("tracks"),
            "an array of one or more tracks",
            tracks_json,
        )
    })?;
    let mut builders = Vec::with_capacity(list.len());
    for (index, t) in list.iter().enumerate() {
        builders.push(track_from_json(t, index)?);
    }
    build_document(fps, builders)
}

fn track_from_json(json: &Json, index: usize) -> Result<TrackBuilder, DocumentError> {
    let mut loc = Location {
        track_index: Some(index),
        ..Location::default()
    };
    let obj = object(json, &loc, "a track")?;
    let name = track_name_from_json(obj, &loc)?;
    loc.track_name = Some(name.to_string());
    let value_type = value_type_from_json(obj, &loc)?;
    let mut builder = TrackBuilder::new(name, value_type);
    if let Some(v) = obj.get("wrap") {
        builder = builder.wrap(v.as_str().and_then(Wrap::from_name).ok_or_else(|| {
            bad_name(
                loc.with_field("wrap"),
                "one of \"clamp\", \"loop\", \"ping_pong\"",
                v,
                WRAP_NAMES,
            )
        })?);
    }
    (builder.arclength, builder.segment_arclength) = path_from_json(obj, &loc)?;
    if let Some(v) = obj.get("ease") {
        builder.track_ease = Some(ease_from_json(v, &loc.with_field("ease"))?);
    }
    let keys = keys_from_json(obj, &loc)?;
    if let Some(spec) = obj.get("fcurve") {
        builder.fcurve = Some(crate::fcurve::json::fcurve_from_json(spec, keys, &loc)?);
        return Ok(builder);
    }
    for (k, key) in keys.iter().enumerate() {
        builder
            .keys
            .push(key_from_json(key, &loc.with_key(k), value_type)?);
    }
    Ok(builder)
}

/// A track's `name`, a string (required).
fn track_name_from_json<'j>(
    obj: &'j Map<String, Json>,
    loc: &Location,
) -> Result<&'j str, DocumentError> {
    let v = required(obj, loc, "name", "the track's name, a string")?;
    string(v, loc.with_field("name"), "a string")
}

/// A track's `type`, one of the value type names (required).
fn value_type_from_json(
    obj: &Map<String, Json>,
    loc: &Location,
) -> Result<ValueType, DocumentError> {
    let type_expected = "one of \"scalar\", \"vec2\", \"vec3\", \"vec4\", \"color\", \"quat\"";
    let v = required(
        obj,
        loc,
        "type",
        "the value type: one of \"scalar\", \"vec2\", \"vec3\", \"vec4\", \"color\", \"quat\"",
    )?;
    v.as_str()
        .and_then(ValueType::from_name)
        .ok_or_else(|| bad_name(loc.with_field("type"), type_expected, v, TYPE_NAMES))
}

/// A track's `path` as (arclength, segment_arclength): absent or `keys` is (false, false).
fn path_from_json(obj: &Map<String, Json>, loc: &Location) -> Result<(bool, bool), DocumentError> {
    match obj.get("path") {
        None => Ok((false, false)),
        Some(v) => match v.as_str() {
            Some("keys") => Ok((false, false)),
            Some("arclength") => Ok((true, false)),
            Some("segment_arclength") => Ok((false, true)),
            _ => Err(bad_name(
                loc.with_field("path"),
                "\"keys\", \"arclength\" or \"segment_arclength\"",
                v,
                PATH_NAMES,
            )),
        },
    }
}

/// A track's `keys`, an array (required; its entries are read by the caller).
fn keys_from_json<'j>(
    obj: &'j Map<String, Json>,
    loc: &Location,
) -> Result<&'j [Json], DocumentError> {
    let v = required(obj, loc, "keys", "an array of one or more keys")?;
    v.as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| invalid(loc.with_field("keys"), "an array of one or more keys", v))
}

fn numbers(
    v: &Json,
    loc: &Location,
    field: &str,
    value_type: ValueType,
) -> Result<Vec<f64>, DocumentError> {
    let want = value_type.components();
    let expected = if want == 1 {
        format!("a number for a {value_type} track")
    } else {
        format!("an array of {want} numbers for a {value_type} track")
    };
    if want == 1 {
        return match v.as_f64() {
            Some(x) if x.is_finite() => Ok(alloc::vec![x]),
            Some(_) => Err(invalid(loc.with_field(field), "a finite number", v)),
            None => Err(invalid(loc.with_field(field), expected, v)),
        };
    }
    let arr = v
        .as_array()
        .ok_or_else(|| invalid(loc.with_field(field), expected.clone(), v))?;
    if arr.len() != want {
        return Err(invalid(loc.with_field(field), expected, v));
    }
    let mut out = Vec::with_capacity(want);
    for (c, x) in arr.iter().enumerate() {
        out.push(number(x, loc.with_field(format!("{field}[{c}]")))?);
    }
    Ok(out)
}

fn key_from_json(
    json: &Json,
    loc: &Location,
    value_type: ValueType,
) -> Result<RawKey, DocumentError> {
    let obj = object(json, loc, "a key")?;
    let frame = required(obj, loc, "frame", "the key's frame, a finite number")?;
    let frame = number(frame, loc.with_field("frame"))?;
    let value = match obj.get("value") {
        None => {
            return Err(DocumentError::new(
                loc.with_field("value"),
                ErrorKind::Missing {
                    expected: "the key's value",
                },
            ))
        }
        Some(v @ Json::Object(_)) if value_type == ValueType::Quat => {
            rotation_from_json(v, &loc.with_field("value"))?
        }
        Some(v) => numbers(v, loc, "value", value_type)?,
    };
    let interp = match obj.get("interp") {
        None => RawInterp::Plain(Interp::Linear),
        Some(v) => interp_from_json(v, loc, value_type)?,
    };
    let ease = match obj.get("ease") {
        None => Ease::Linear,
        Some(v) => ease_from_json(v, &loc.with_field("ease"))?,
    };
    let tcb = match obj.get("tcb") {
        None => [0.0; 3],
        Some(v) => {
            let arr = v.as_array().filter(|a| a.len() == 3).ok_or_else(|| {
                invalid(
                    loc.with_field("tcb"),
                    "an array of 3 numbers [tension, continuity, bias]",
                    v,
                )
            })?;
            [
                number(&arr[0], loc.with_field("tcb[0]"))?,
                number(&arr[1], loc.with_field("tcb[1]"))?,
                number(&arr[2], loc.with_field("tcb[2]"))?,
            ]
        }
    };
    Ok(RawKey {
        frame,
        value,
        interp,
        ease,
        tcb,
    })
}

const ROTATION_EXPECTED: &str = "{\"euler\": [x, y, z], \"order\": \"xyz\"} (degrees) or {\"axis\": [x, y, z], \"angle\": degrees}";

/// A `quat` key's value written as a rotation: `{"euler": [x, y, z], "order": "xyz"}` (degrees;
/// order optional, default `xyz`) or `{"axis": [x, y, z], "angle": degrees}`, as the unit
/// quaternion [x, y, z, w] ([`crate::rotation`]).
fn rotation_from_json(v: &Json, loc: &Location) -> Result<Vec<f64>, DocumentError> {
    let obj = object(v, loc, ROTATION_EXPECTED)?;
    let field = loc.field.clone().unwrap_or_default();
    let three = |name: &str| -> Result<[f64; 3], DocumentError> {
        let sub = loc.with_field(format!("{field}.{name}"));
        let arr = obj
            .get(name)
            .and_then(Json::as_array)
            .filter(|a| a.len() == 3)
            .ok_or_else(|| invalid(sub, "an array of 3 numbers", obj.get(name).unwrap_or(v)))?;
        let mut out = [0.0; 3];
        for (i, x) in arr.iter().enumerate() {
            out[i] = number(x, loc.with_field(format!("{field}.{name}[{i}]")))?;
        }
        Ok(out)
    };
    let allowed: &[&str] = if obj.contains_key("euler") {
        &["euler", "order"]
    } else {
        &["axis", "angle"]
    };
    if let Some(extra) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(DocumentError::new(
            loc.clone(),
            ErrorKind::Invalid {
                expected: ROTATION_EXPECTED.into(),
                found: format!("an object with the key {}", Json::String(extra.clone())),
            },
        ));
    }
    let q = if obj.contains_key("euler") {
        let angles = three("euler")?;
        let order = match obj.get("order") {
            None => crate::rotation::EulerOrder::Xyz,
            Some(o) => o
                .as_str()
                .and_then(crate::rotation::EulerOrder::from_name)
                .ok_or_else(|| {
                    bad_name(
                        loc.with_field(format!("{field}.order")),
                        format!("one of {}", quoted(&crate::rotation::EulerOrder::NAMES)),
                        o,
                        &crate::rotation::EulerOrder::NAMES,
                    )
                })?,
        };
        crate::rotation::euler_degrees(angles, order)
    } else {
        let axis = three("axis")?;
        let angle_loc = loc.with_field(format!("{field}.angle"));
        let angle = match obj.get("angle") {
            Some(a) => number(a, angle_loc.clone())?,
            None => {
                return Err(DocumentError::new(
                    angle_loc,
                    ErrorKind::Missing {
                        expected: "the angle in degrees",
                    },
                ))
            }
        };
        crate::rotation::axis_angle_degrees(axis, angle).ok_or_else(|| {
            DocumentError::new(
                loc.with_field(format!("{field}.axis")),
                ErrorKind::Invalid {
                    expected: "a non-zero axis".into(),
                    found: "[0, 0, 0]".into(),
                },
            )
        })?
    };
    Ok(q.to_vec())
}

const INTERP_EXPECTED: &str = "one of \"step\", \"linear\", \"slerp\", \"catmull_rom\", \"tcb\", or an object {\"hermite\": ...}, {\"bezier\": ...}, {\"polynomial\": ...}, {\"expr\": ...}";

fn interp_from_json(
    v: &Json,
    loc: &Location,
    value_type: ValueType,
) -> Result<RawInterp, DocumentError> {
    let field = loc.with_field("interp");
    if let Some(name) = v.as_str() {
        let interp = match name {
            "step" => Interp::Step,
            "linear" => Interp::Linear,
            "slerp" => Interp::Slerp,
            "catmull_rom" => Interp::CatmullRom,
            "tcb" => Interp::Tcb,
            _ => return Err(bad_name(field, INTERP_EXPECTED, v, INTERP_NAMES)),
        };
        return Ok(RawInterp::Plain(interp));
    }
    let obj = v
        .as_object()
        .ok_or_else(|| invalid(field.clone(), INTERP_EXPECTED, v))?;
    if obj.len() != 1 {
        return Err(DocumentError::new(
            field,
            ErrorKind::Invalid {
                expected: "an object with exactly one of the keys \"hermite\", \"bezier\", \"polynomial\", \"expr\"".into(),
                found: format!("an object with {} keys", obj.len()),
            },
        ));
    }
    let Some((kind, body)) = obj.iter().next() else {
        return Err(invalid(field, INTERP_EXPECTED, v));
    };
    match kind.as_str() {
        "hermite" | "bezier" => handles_from_json(kind, body, loc, value_type),
        "polynomial" => polynomial_from_json(body, loc),
        "expr" => expressions_from_json(body, loc, value_type),
        _ => Err(bad_object_kind(
            field.clone(),
            kind,
            INTERP_OBJECTS,
            invalid(field, INTERP_EXPECTED, v),
        )),
    }
}

/// `{"hermite" | "bezier": {"out": V, "in": V}}`: two values of the track's type.
fn handles_from_json(
    kind: &str,
    body: &Json,
    loc: &Location,
    value_type: ValueType,
) -> Result<RawInterp, DocumentError> {
    let sub = loc.with_field(format!("interp.{kind}"));
    let inner = body
        .as_object()
        .ok_or_else(|| invalid(sub.clone(), "an object {\"out\": V, \"in\": V}", body))?;
    let get = |name: &str| -> Result<Vec<f64>, DocumentError> {
        let f = format!("interp.{kind}.{name}");
        match inner.get(name) {
            None => Err(DocumentError::new(
                loc.with_field(f),
                ErrorKind::Missing {
                    expected: "a value of the track's type",
                },
            )),
            Some(x) => numbers(x, loc, &f, value_type),
        }
    };
    let out = get("out")?;
    let r#in = get("in")?;
    Ok(if kind == "hermite" {
        RawInterp::Hermite { out, r#in }
    } else {
        RawInterp::Bezier { out, r#in }
    })
}

/// `{"polynomial": {"keys": K}}`: an integer K ≥ 2 (checked against the track at validation).
fn polynomial_from_json(body: &Json, loc: &Location) -> Result<RawInterp, DocumentError> {
    let sub = loc.with_field("interp.polynomial");
    let inner = body
        .as_object()
        .ok_or_else(|| invalid(sub.clone(), "an object {\"keys\": K}", body))?;
    let kf = loc.with_field("interp.polynomial.keys");
    let k = inner.get("keys").ok_or_else(|| {
        DocumentError::new(
            kf.clone(),
            ErrorKind::Missing {
                expected: "the number of keys K, an integer ≥ 2",
            },
        )
    })?;
    let count = match k.as_f64() {
        Some(x) if x.is_finite() && x == crate::math::floor(x) && (2.0..=1.0e9).contains(&x) => {
            x as usize
        }
        _ => return Err(invalid(kf, "an integer K ≥ 2", k)),
    };
    Ok(RawInterp::Plain(Interp::Polynomial { keys: count }))
}

/// `{"expr": "…"}` on a scalar track, `{"expr": ["…", …]}` with one string per component
/// otherwise (parsed at validation).
fn expressions_from_json(
    body: &Json,
    loc: &Location,
    value_type: ValueType,
) -> Result<RawInterp, DocumentError> {
    let sub = loc.with_field("interp.expr");
    let want = value_type.components();
    if want == 1 {
        return match body.as_str() {
            Some(s) => Ok(RawInterp::Plain(Interp::Expr(alloc::vec![s.to_string()]))),
            None => Err(invalid(
                sub,
                "an expression string for a scalar track",
                body,
            )),
        };
    }
    let expected = format!("an array of {want} expression strings for a {value_type} track");
    let arr = body
        .as_array()
        .filter(|a| a.len() == want)
        .ok_or_else(|| invalid(sub.clone(), expected.clone(), body))?;
    let mut sources = Vec::with_capacity(want);
    for (c, e) in arr.iter().enumerate() {
        let field = loc.with_field(format!("interp.expr[{c}]"));
        sources.push(string(e, field, "an expression string")?.to_string());
    }
    Ok(RawInterp::Plain(Interp::Expr(sources)))
}

/// What an ease may be: every name, then the two parametric forms.
fn ease_expected() -> String {
    format!(
        "an ease name (one of {}), {{\"cubic_bezier\": [x1, y1, x2, y2]}} or {{\"steps\": [n, \"jump_end\"]}}",
        quoted(Ease::names())
    )
}

pub(crate) fn ease_from_json(v: &Json, loc: &Location) -> Result<Ease, DocumentError> {
    if let Some(name) = v.as_str() {
        return Ease::from_name(name)
            .ok_or_else(|| bad_name(loc.clone(), ease_expected(), v, Ease::names()));
    }
    let obj = v
        .as_object()
        .ok_or_else(|| invalid(loc.clone(), ease_expected(), v))?;
    if obj.len() != 1 {
        return Err(DocumentError::new(
            loc.clone(),
            ErrorKind::Invalid {
                expected: "an object with exactly one key, \"cubic_bezier\" or \"steps\"".into(),
                found: format!("an object with {} keys", obj.len()),
            },
        ));
    }
    let Some((kind, body)) = obj.iter().next() else {
        return Err(invalid(loc.clone(), ease_expected(), v));
    };
    let field = loc.field.clone().unwrap_or_else(|| "ease".into());
    match kind.as_str() {
        "cubic_bezier" => cubic_bezier_ease_from_json(body, loc, &field),
        "steps" => steps_ease_from_json(body, loc, &field),
        _ => Err(bad_object_kind(
            loc.clone(),
            kind,
            EASE_OBJECTS,
            invalid(loc.clone(), ease_expected(), v),
        )),
    }
}

/// The body of `{"cubic_bezier": [x1, y1, x2, y2]}`, at `field.cubic_bezier`.
fn cubic_bezier_ease_from_json(
    body: &Json,
    loc: &Location,
    field: &str,
) -> Result<Ease, DocumentError> {
    let sub = loc.with_field(format!("{field}.cubic_bezier"));
    let arr = body
        .as_array()
        .filter(|a| a.len() == 4)
        .ok_or_else(|| invalid(sub.clone(), "an array of 4 numbers [x1, y1, x2, y2]", body))?;
    let mut p = [0.0; 4];
    for (i, x) in arr.iter().enumerate() {
        p[i] = number(x, loc.with_field(format!("{field}.cubic_bezier[{i}]")))?;
    }
    CubicBezierEase::new(p[0], p[1], p[2], p[3])
        .map(Ease::CubicBezier)
        .map_err(|e| DocumentError::new(sub, ErrorKind::Ease(e)))
}

/// The body of `{"steps": [n, jump]}` (jump optional, default `jump_end`), at `field.steps`.
fn steps_ease_from_json(body: &Json, loc: &Location, field: &str) -> Result<Ease, DocumentError> {
    let sub = loc.with_field(format!("{field}.steps"));
    let expected = "an array [n, jump] with a positive integer n and jump one of \"jump_start\", \"jump_end\", \"jump_none\", \"jump_both\"";
    let arr = body
        .as_array()
        .filter(|a| a.len() == 1 || a.len() == 2)
        .ok_or_else(|| invalid(sub.clone(), expected, body))?;
    let count = match arr[0].as_f64() {
        Some(x)
            if x.is_finite()
                && x == crate::math::floor(x)
                && (1.0..=MAX_STEPS_JSON).contains(&x) =>
        {
            x as u32
        }
        _ => {
            return Err(invalid(
                loc.with_field(format!("{field}.steps[0]")),
                "a positive integer number of steps, at most 1000000000",
                &arr[0],
            ))
        }
    };
    let jump = match arr.get(1) {
        None => StepJump::JumpEnd,
        Some(j) => step_jump_from_json(j, loc.with_field(format!("{field}.steps[1]")))?,
    };
    Steps::new(count, jump)
        .map(Ease::Steps)
        .map_err(|e| DocumentError::new(sub, ErrorKind::Ease(e)))
}

/// A steps ease's jump name (`start` and `end` as aliases of `jump_start` and `jump_end`).
fn step_jump_from_json(j: &Json, loc: Location) -> Result<StepJump, DocumentError> {
    match j.as_str() {
        Some("jump_start") | Some("start") => Ok(StepJump::JumpStart),
        Some("jump_end") | Some("end") => Ok(StepJump::JumpEnd),
        Some("jump_none") => Ok(StepJump::JumpNone),
        Some("jump_both") => Ok(StepJump::JumpBoth),
        _ => Err(bad_name(
            loc,
            "one of \"jump_start\", \"jump_end\", \"jump_none\", \"jump_both\"",
            j,
            JUMP_NAMES,
        )),
    }
}

impl Document {
    /// The document as JSON text in the spec's format (version 1), pretty-printed: loading it
    /// again gives an equal document. Defaults are left out (`wrap: clamp`, `interp: linear`,
    /// `ease: linear`, `tcb: [0, 0, 0]`).
    #[must_use]
    pub fn to_json_string(&self) -> String {
        self.to_json_string_with_fields(Map::new())
    }

    /// `to_json_string().len()`, without holding the whole text or its JSON tree at once
    /// (one track's at a time): the size of a document of a million tracks, whose text and tree
    /// would take more memory than the document itself.
    #[must_use]
    pub fn json_len(&self) -> usize {
        let tracks = self.tracks();
        let Some(first) = tracks.first() else {
            return self.to_json_string().len();
        };
        // The text with the first track only, then each further track as the array writes it:
        // a line's 4 spaces of indent, the track, and the ",\n" after the one before it.
        let mut top = Map::new();
        top.insert("inbetween".into(), Json::from(1));
        top.insert("fps".into(), number_json(self.fps()));
        top.insert(
            "tracks".into(),
            Json::Array(alloc::vec![track_to_json(first)]),
        );
        let mut text = String::new();
        write_readable(&Json::Object(top), 0, &mut text);
        let mut len = text.len() + 1;
        for track in tracks.iter().skip(1) {
            text.clear();
            write_readable(&track_to_json(track), 4, &mut text);
            len += 4 + text.len() + 2;
        }
        len
    }

    /// [`Document::to_json_string`] with extra top-level fields after `tracks` (named
    /// `comment` or `x-…` to load without a warning, e.g. the `"x-gltf"` record of a glTF
    /// import).
    #[must_use]
    pub fn to_json_string_with_fields(&self, extra: Map<String, Json>) -> String {
        let tracks: Vec<Json> = self.tracks().iter().map(track_to_json).collect();
        let mut top = Map::new();
        top.insert("inbetween".into(), Json::from(1));
        top.insert("fps".into(), number_json(self.fps()));
        top.insert("tracks".into(), Json::Array(tracks));
        top.extend(extra);
        let mut text = String::new();
        write_readable(&Json::Object(top), 0, &mut text);
        text.push('\n');
        text
    }
}

/// Writes JSON for people: one field per line, but arrays of numbers or strings (values,
/// tangents, tcb, expressions) and small objects on one line.
fn write_readable(value: &Json, indent: usize, out: &mut String) {
    let pad = |n: usize, out: &mut String| {
        for _ in 0..n {
            out.push(' ');
        }
    };
    match value {
        Json::Array(items) if items.iter().any(|i| i.is_object() || i.is_array()) => {
            out.push_str("[\n");
            for (k, item) in items.iter().enumerate() {
                pad(indent + 2, out);
                write_readable(item, indent + 2, out);
                out.push_str(if k + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(indent, out);
            out.push(']');
        }
        Json::Object(map)
            if map
                .values()
                .any(|v| matches!(v, Json::Array(a) if a.iter().any(Json::is_object))) =>
        {
            out.push_str("{\n");
            for (k, (key, item)) in map.iter().enumerate() {
                pad(indent + 2, out);
                out.push_str(&Json::String(key.clone()).to_string());
                out.push_str(": ");
                write_readable(item, indent + 2, out);
                out.push_str(if k + 1 < map.len() { ",\n" } else { "\n" });
            }
            pad(indent, out);
            out.push('}');
        }
        // Leaves, flat arrays and keys: serde_json's compact form, with a space after separators.
        other => {
            let compact = other.to_string();
            let mut in_string = false;
            let mut escaped = false;
            for ch in compact.chars() {
                out.push(ch);
                if in_string {
                    if escaped {
                        escaped = false;
                    } else if ch == '\\' {
                        escaped = true;
                    } else if ch == '"' {
                        in_string = false;
                    }
                } else if ch == '"' {
                    in_string = true;
                } else if ch == ',' || ch == ':' {
                    out.push(' ');
                }
            }
        }
    }
}

fn number_json(x: f64) -> Json {
    serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number)
}

fn value_json(v: &crate::value::Value) -> Json {
    if v.len() == 1 {
        number_json(v[0])
    } else {
        Json::Array(v.iter().map(|c| number_json(*c)).collect())
    }
}

/// An ease as the spec writes it: a name, `{"cubic_bezier": [..]}` or `{"steps": [n, jump]}`.
pub(crate) fn ease_to_json(ease: &Ease) -> Json {
    let mut obj = Map::new();
    match ease {
        Ease::CubicBezier(c) => {
            obj.insert(
                "cubic_bezier".into(),
                Json::Array(alloc::vec![
                    number_json(c.x1()),
                    number_json(c.y1()),
                    number_json(c.x2()),
                    number_json(c.y2()),
                ]),
            );
            Json::Object(obj)
        }
        Ease::Steps(s) => {
            obj.insert(
                "steps".into(),
                Json::Array(alloc::vec![
                    Json::from(s.count()),
                    Json::from(s.jump().name())
                ]),
            );
            Json::Object(obj)
        }
        other => Json::String(other.name()),
    }
}

fn interp_to_json(interp: &Interp) -> Json {
    let pair = |kind: &str, out: &crate::value::Value, r#in: &crate::value::Value| {
        let mut inner = Map::new();
        inner.insert("out".into(), value_json(out));
        inner.insert("in".into(), value_json(r#in));
        let mut obj = Map::new();
        obj.insert(kind.into(), Json::Object(inner));
        Json::Object(obj)
    };
    match interp {
        Interp::Hermite { out, r#in } => pair("hermite", out, r#in),
        Interp::Bezier { out, r#in } => pair("bezier", out, r#in),
        Interp::Polynomial { keys } => {
            let mut inner = Map::new();
            inner.insert("keys".into(), Json::from(*keys));
            let mut obj = Map::new();
            obj.insert("polynomial".into(), Json::Object(inner));
            Json::Object(obj)
        }
        Interp::Expr(sources) => {
            let body = if sources.len() == 1 {
                Json::String(sources[0].clone())
            } else {
                Json::Array(sources.iter().cloned().map(Json::String).collect())
            };
            let mut obj = Map::new();
            obj.insert("expr".into(), body);
            Json::Object(obj)
        }
        plain => Json::String(plain.name().into()),
    }
}

fn track_to_json(track: &crate::track::Track) -> Json {
    if let Some(curve) = track.fcurve() {
        return crate::fcurve::json::track_json(track.name(), curve);
    }
    let mut obj = Map::new();
    obj.insert("name".into(), Json::String(track.name().into()));
    obj.insert(
        "type".into(),
        Json::String(track.value_type().name().into()),
    );
    if track.wrap() != Wrap::Clamp {
        obj.insert("wrap".into(), Json::String(track.wrap().name().into()));
    }
    if let crate::track::PathMode::Arclength { ease } = track.path() {
        obj.insert("path".into(), Json::String("arclength".into()));
        if ease != Ease::Linear {
            obj.insert("ease".into(), ease_to_json(&ease));
        }
    }
    if track.path() == crate::track::PathMode::SegmentArclength {
        obj.insert("path".into(), Json::String("segment_arclength".into()));
    }
    let keys: Vec<Json> = track
        .keys()
        .iter()
        .map(|k| {
            let mut key = Map::new();
            key.insert("frame".into(), number_json(k.frame));
            key.insert("value".into(), value_json(&k.value));
            if k.interp != Interp::Linear {
                key.insert("interp".into(), interp_to_json(&k.interp));
            }
            if k.ease != Ease::Linear {
                key.insert("ease".into(), ease_to_json(&k.ease));
            }
            if k.tcb != crate::track::Tcb::ZERO {
                key.insert(
                    "tcb".into(),
                    Json::Array(alloc::vec![
                        number_json(k.tcb.tension),
                        number_json(k.tcb.continuity),
                        number_json(k.tcb.bias),
                    ]),
                );
            }
            Json::Object(key)
        })
        .collect();
    obj.insert("keys".into(), Json::Array(keys));
    Json::Object(obj)
}
