//! Warnings about documents that load but may not say what their author meant: unknown fields, far-from-unit quaternions, expression segments that end away from their next key.
//!
//! A document with warnings is valid and evaluates exactly as the spec says; a warning points at
//! a likely typo. Fields a document carries on purpose are never warned about: a field called
//! `comment`, or one whose name starts with `x-` ([`is_extra_field`]).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde_json::{Map, Value as Json};

use crate::compile::DEFAULT_RELATIVE_TOLERANCE;
use crate::document::Document;
use crate::error::Location;
use crate::track::Interp;

/// Fields of the top level, in the spec's order.
pub const TOP_FIELDS: &[&str] = &["inbetween", "fps", "tracks"];
/// Fields of a track.
pub const TRACK_FIELDS: &[&str] = &["name", "type", "wrap", "path", "ease", "keys", "fcurve"];
/// Fields of a key (of a track without `fcurve`).
pub const KEY_FIELDS: &[&str] = &["frame", "value", "interp", "ease", "tcb"];
/// Fields of a `hermite` or `bezier` interp object.
const TANGENT_FIELDS: &[&str] = &["out", "in"];
/// Fields of a `polynomial` interp object.
const POLYNOMIAL_FIELDS: &[&str] = &["keys"];

/// A written quaternion whose length differs from 1 by more than this (relative) is warned
/// about: it is still normalized, but such a value is rarely meant (`[0, 90, 0, 1]` is not a
/// 90° turn). Hand-written unit quaternions with 4 to 5 digits are well inside it.
pub const QUAT_LENGTH_WARNING: f64 = 1e-3;

/// A field name the document may carry without a warning: `comment`, or any name starting
/// with `x-` (for tools' own data, `"x-blender": {...}`).
#[must_use]
pub fn is_extra_field(name: &str) -> bool {
    name == "comment" || name.starts_with("x-")
}

/// A valid document's likely mistake, and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    /// The track, key and field.
    pub location: Location,
    /// What looks wrong.
    pub kind: WarningKind,
}

/// What looks wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum WarningKind {
    /// A field this format does not have; it is ignored.
    UnknownField {
        /// The nearest known field of that object, when one is close.
        suggestion: Option<&'static str>,
    },
    /// A quaternion key whose written length is not near 1 (it was normalized).
    NonUnitQuaternion {
        /// |q| as written.
        length: f64,
        /// The turn the normalized quaternion makes, in degrees (0..=180).
        degrees: f64,
    },
    /// An `expr` segment whose value at its end (u → 1) is farther than the tolerance from the
    /// next key's value: the track jumps at the next key's frame.
    ExprEndsAway {
        /// The next key's frame, where the jump happens.
        frame: f64,
        /// The largest component difference.
        distance: f64,
        /// The default compile tolerance of the track, `1e-6 × scale`.
        tolerance: f64,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.location)?;
        match &self.kind {
            WarningKind::UnknownField { suggestion } => {
                f.write_str("unknown field, ignored")?;
                match suggestion {
                    Some(s) => write!(f, "; did you mean \"{s}\"?"),
                    None => f.write_str(
                        " (name a field kept on purpose \"comment\" or start it with \"x-\")",
                    ),
                }
            }
            WarningKind::NonUnitQuaternion { length, degrees } => write!(
                f,
                "quaternion of length {} normalized to a turn of {}°; is it (x, y, z, w) and not angles?",
                crate::lint::short(*length),
                crate::lint::short(*degrees)
            ),
            WarningKind::ExprEndsAway {
                frame,
                distance,
                tolerance,
            } => write!(
                f,
                "the expression ends {} away from the next key's value, more than the tolerance {}: the track jumps at frame {frame}",
                crate::lint::short(*distance),
                crate::lint::short(*tolerance)
            ),
        }
    }
}

/// `x` with 6 significant digits, trailing zeros dropped, for messages.
fn short(x: f64) -> String {
    let text = format!("{x:.6e}");
    let value: f64 = text.parse().unwrap_or(x);
    format!("{value}")
}

/// The name in `names` nearest to `found`, when it is near enough to be a likely typo:
/// the same after lower-casing and writing `-` and spaces as `_`; or at edit distance ≤ 1
/// (names up to 4 characters), ≤ 2 (up to 8) or ≤ 3; or one a prefix of the other, the
/// shorter at least 3 characters (`interpolation` → `interp`). The closest wins, the first
/// listed on a tie.
#[must_use]
pub fn nearest_name(found: &str, names: &[&'static str]) -> Option<&'static str> {
    let normal: String = found
        .trim()
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    let limit = match normal.chars().count() {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    let mut best: Option<(usize, &'static str)> = None;
    for &name in names {
        let distance = edit_distance(&normal, name);
        let prefix = normal.len().min(name.len()) >= 3
            && (normal.starts_with(name) || name.starts_with(&*normal));
        let score = if distance <= limit {
            distance
        } else if prefix {
            limit + 1
        } else {
            continue;
        };
        if best.map_or(true, |(s, _)| score < s) {
            best = Some((score, name));
        }
    }
    best.map(|(_, name)| name)
}

/// Levenshtein distance in characters (insertions, deletions and substitutions cost 1).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// Warns about every field of `object` not in `known` (extra fields excepted).
fn unknown_fields(
    object: &Map<String, Json>,
    known: &[&'static str],
    loc: &Location,
    prefix: &str,
    out: &mut Vec<Warning>,
) {
    for name in object.keys() {
        if known.contains(&name.as_str()) || is_extra_field(name) {
            continue;
        }
        out.push(Warning {
            location: loc.with_field(format!("{prefix}{name}")),
            kind: WarningKind::UnknownField {
                suggestion: nearest_name(name, known),
            },
        });
    }
}

/// Every warning of `json`, a document that loaded as `doc`: unknown fields (F-curve keys and
/// the `fcurve` object are not checked here), written quaternions far from unit length, and
/// `expr` segments that end away from their next key.
#[must_use]
pub fn warnings(json: &Json, doc: &Document) -> Vec<Warning> {
    let mut out = Vec::new();
    let Some(top) = json.as_object() else {
        return out;
    };
    unknown_fields(top, TOP_FIELDS, &Location::document(), "", &mut out);
    let tracks = top.get("tracks").and_then(Json::as_array);
    for (index, (raw, track)) in tracks.into_iter().flatten().zip(doc.tracks()).enumerate() {
        let loc = Location {
            track_index: Some(index),
            track_name: Some(track.name().into()),
            ..Location::default()
        };
        let Some(obj) = raw.as_object() else { continue };
        unknown_fields(obj, TRACK_FIELDS, &loc, "", &mut out);
        if obj.contains_key("fcurve") {
            continue;
        }
        let keys = obj.get("keys").and_then(Json::as_array);
        for (k, key) in keys.into_iter().flatten().enumerate() {
            let Some(key) = key.as_object() else { continue };
            key_warnings(key, &loc.with_key(k), track.value_type(), &mut out);
        }
        expr_warnings(track, &loc, &mut out);
    }
    out
}

/// Unknown fields of one key and its interp object, and a written quaternion far from unit.
fn key_warnings(
    key: &Map<String, Json>,
    loc: &Location,
    value_type: crate::value::ValueType,
    out: &mut Vec<Warning>,
) {
    unknown_fields(key, KEY_FIELDS, loc, "", out);
    if let Some(interp) = key.get("interp").and_then(Json::as_object) {
        for (kind, body) in interp {
            let known = match kind.as_str() {
                "hermite" | "bezier" => TANGENT_FIELDS,
                "polynomial" => POLYNOMIAL_FIELDS,
                _ => continue,
            };
            if let Some(body) = body.as_object() {
                unknown_fields(body, known, loc, &format!("interp.{kind}."), out);
            }
        }
    }
    if value_type != crate::value::ValueType::Quat {
        return;
    }
    let Some(q) = key.get("value").and_then(Json::as_array) else {
        return;
    };
    let q: Vec<f64> = q.iter().filter_map(Json::as_f64).collect();
    let length = crate::math::sqrt(q.iter().map(|c| c * c).sum());
    if q.len() == 4 && length > 0.0 && crate::math::abs(length - 1.0) > QUAT_LENGTH_WARNING {
        let w = crate::math::abs(q[3] / length).min(1.0);
        out.push(Warning {
            location: loc.with_field("value"),
            kind: WarningKind::NonUnitQuaternion {
                length,
                degrees: 2.0 * crate::math::acos(w).to_degrees(),
            },
        });
    }
}

/// `expr` segments of `track` whose end is farther than `1e-6 × scale` from the next key.
fn expr_warnings(track: &crate::track::Track, loc: &Location, out: &mut Vec<Warning>) {
    let tolerance = DEFAULT_RELATIVE_TOLERANCE * track.scale();
    let keys = track.keys();
    for (i, pair) in keys.windows(2).enumerate() {
        if !matches!(pair[0].interp, Interp::Expr(_)) {
            continue;
        }
        let end = track.eval_segment_at(i, 1.0);
        let distance = end
            .iter()
            .zip(pair[1].value.iter())
            .map(|(a, b)| crate::math::abs(a - b))
            .fold(0.0, f64::max);
        // A non-finite end is refused when the track is sampled or compiled, with its frame.
        if distance.is_finite() && distance > tolerance {
            out.push(Warning {
                location: loc.with_key(i).with_field("interp.expr"),
                kind: WarningKind::ExprEndsAway {
                    frame: pair[1].frame,
                    distance,
                    tolerance,
                },
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_matches_hand_counts() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("in_out_sin", "in_out_sine"), 1);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn nearest_names_of_the_issues_typos() {
        assert_eq!(nearest_name("Ease", KEY_FIELDS), Some("ease"));
        assert_eq!(nearest_name("Fps", TOP_FIELDS), Some("fps"));
        assert_eq!(nearest_name("interpolation", KEY_FIELDS), Some("interp"));
        assert_eq!(
            nearest_name("catmull-rom", &["step", "linear", "catmull_rom"]),
            Some("catmull_rom")
        );
        assert_eq!(nearest_name("colour", &["vec2", "color"]), Some("color"));
        assert_eq!(nearest_name("banana", KEY_FIELDS), None);
    }
}
