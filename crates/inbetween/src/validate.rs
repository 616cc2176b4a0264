//! Validation: raw tracks and documents become runtime types that cannot fail.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::ease::Ease;
use crate::error::{DocumentError, ErrorKind, Location};
use crate::expr::Expr;
use crate::quat;
use crate::track::{
    assemble, with_arclength, Interp, Key, PathMode, RawInterp, Tcb, Track, TrackBuilder,
    MAX_KEYS_PER_TRACK, MAX_KEY_SPAN, MAX_POLYNOMIAL_KEYS, MAX_TRACKS,
};
use crate::value::{Value, ValueType};

fn invalid(loc: Location, expected: impl Into<String>, found: impl Into<String>) -> DocumentError {
    DocumentError::new(
        loc,
        ErrorKind::Invalid {
            expected: expected.into(),
            found: found.into(),
        },
    )
}

/// Describes a list of numbers for messages: `a number` / `an array of 3 numbers`.
pub(crate) fn describe_numbers(n: usize) -> String {
    if n == 1 {
        "a number".to_string()
    } else {
        format!("an array of {n} numbers")
    }
}

fn check_value(
    loc: &Location,
    field: &str,
    value: &[f64],
    value_type: ValueType,
) -> Result<Value, DocumentError> {
    let want = value_type.components();
    if value.len() != want {
        return Err(invalid(
            loc.with_field(field),
            format!("{} for a {} track", describe_numbers(want), value_type),
            describe_numbers(value.len()),
        ));
    }
    for (c, x) in value.iter().enumerate() {
        if !x.is_finite() {
            let f = if want == 1 {
                field.to_string()
            } else {
                format!("{field}[{c}]")
            };
            return Err(invalid(
                loc.with_field(f),
                "a finite number",
                format!("{x}"),
            ));
        }
    }
    Value::from_slice(value).ok_or_else(|| {
        invalid(
            loc.with_field(field),
            describe_numbers(want),
            describe_numbers(value.len()),
        )
    })
}

pub(crate) fn validate_track(
    mut raw: TrackBuilder,
    loc: &Location,
) -> Result<Track, DocumentError> {
    if let Some(spec) = raw.fcurve.take() {
        return crate::fcurve::validate::build_track(raw, spec, loc);
    }
    let value_type = raw.value_type;
    if !(raw.fps.is_finite() && raw.fps > 0.0) {
        return Err(invalid(
            Location::top("fps"),
            "a positive number",
            format!("{}", raw.fps),
        ));
    }
    let path = if raw.arclength || raw.segment_arclength {
        if !value_type.is_spatial() {
            return Err(DocumentError::new(
                loc.with_field("path"),
                ErrorKind::ArclengthType {
                    found: value_type.name(),
                },
            ));
        }
        if raw.segment_arclength {
            if let Some(ease) = raw.track_ease {
                return Err(invalid(
                    loc.with_field("ease"),
                    "no track ease with path \"segment_arclength\" (each key's ease times its segment)",
                    ease.name(),
                ));
            }
            PathMode::SegmentArclength
        } else {
            PathMode::Arclength {
                ease: raw.track_ease.unwrap_or(Ease::Linear),
            }
        }
    } else {
        if raw.track_ease.is_some() {
            return Err(DocumentError::new(
                loc.with_field("ease"),
                ErrorKind::TrackEaseWithoutArclength,
            ));
        }
        PathMode::Keys
    };
    if raw.keys.is_empty() {
        return Err(DocumentError::new(
            loc.with_field("keys"),
            ErrorKind::NoKeys,
        ));
    }
    let n = raw.keys.len();
    if n > MAX_KEYS_PER_TRACK {
        return Err(DocumentError::new(
            loc.with_field("keys"),
            ErrorKind::TooManyKeys {
                found: n,
                max: MAX_KEYS_PER_TRACK,
            },
        ));
    }
    let mut keys = Vec::with_capacity(n);
    let mut exprs = Vec::with_capacity(n);
    let mut previous: Option<f64> = None;
    for (i, rk) in raw.keys.into_iter().enumerate() {
        let kloc = loc.with_key(i);
        if !rk.frame.is_finite() {
            return Err(invalid(
                kloc.with_field("frame"),
                "a finite number",
                format!("{}", rk.frame),
            ));
        }
        check_increasing(&kloc, previous, rk.frame)?;
        previous = Some(rk.frame);
        let mut value = check_value(&kloc, "value", &rk.value, value_type)?;
        if value_type == ValueType::Quat {
            match quat::normalize(value.to_array()) {
                Some(q) => value = Value::new(q),
                None => {
                    return Err(DocumentError::new(
                        kloc.with_field("value"),
                        ErrorKind::ZeroQuaternion,
                    ))
                }
            }
        }
        for (c, x) in rk.tcb.iter().enumerate() {
            if !x.is_finite() {
                return Err(invalid(
                    kloc.with_field(format!("tcb[{c}]")),
                    "a finite number",
                    format!("{x}"),
                ));
            }
        }
        let tcb = Tcb::new(rk.tcb[0], rk.tcb[1], rk.tcb[2]);
        let mut parsed = Vec::new();
        let interp = match rk.interp {
            RawInterp::Hermite { out, r#in } => Interp::Hermite {
                out: check_value(&kloc, "interp.hermite.out", &out, value_type)?,
                r#in: check_value(&kloc, "interp.hermite.in", &r#in, value_type)?,
            },
            RawInterp::Bezier { out, r#in } => Interp::Bezier {
                out: check_value(&kloc, "interp.bezier.out", &out, value_type)?,
                r#in: check_value(&kloc, "interp.bezier.in", &r#in, value_type)?,
            },
            RawInterp::Plain(Interp::Hermite { out, r#in }) => Interp::Hermite {
                out: check_value(&kloc, "interp.hermite.out", &out, value_type)?,
                r#in: check_value(&kloc, "interp.hermite.in", &r#in, value_type)?,
            },
            RawInterp::Plain(Interp::Bezier { out, r#in }) => Interp::Bezier {
                out: check_value(&kloc, "interp.bezier.out", &out, value_type)?,
                r#in: check_value(&kloc, "interp.bezier.in", &r#in, value_type)?,
            },
            RawInterp::Plain(Interp::Slerp) => {
                if value_type != ValueType::Quat {
                    return Err(invalid(
                        kloc.with_field("interp"),
                        format!("an interp allowed on a {value_type} track (slerp is for quat tracks only)"),
                        "\"slerp\"",
                    ));
                }
                Interp::Slerp
            }
            RawInterp::Plain(Interp::Polynomial { keys: count }) => {
                if count < 2 || count > n || count > MAX_POLYNOMIAL_KEYS {
                    if n < 2 {
                        return Err(DocumentError::new(
                            kloc.with_field("interp.polynomial.keys"),
                            ErrorKind::TooFewKeys {
                                kind: "polynomial",
                                needed: 2,
                                got: n,
                            },
                        ));
                    }
                    return Err(invalid(
                        kloc.with_field("interp.polynomial.keys"),
                        format!(
                            "an integer from 2 to the number of keys ({n}), at most {MAX_POLYNOMIAL_KEYS}"
                        ),
                        format!("{count}"),
                    ));
                }
                Interp::Polynomial { keys: count }
            }
            RawInterp::Plain(Interp::Expr(sources)) => {
                let want = value_type.components();
                if sources.len() != want {
                    let expected = if want == 1 {
                        "a string (one expression) for a scalar track".to_string()
                    } else {
                        format!("an array of {want} expression strings for a {value_type} track")
                    };
                    return Err(invalid(
                        kloc.with_field("interp.expr"),
                        expected,
                        format!("{} expressions", sources.len()),
                    ));
                }
                for (c, src) in sources.iter().enumerate() {
                    let field = if want == 1 {
                        "interp.expr".to_string()
                    } else {
                        format!("interp.expr[{c}]")
                    };
                    match Expr::parse(src) {
                        Ok(e) => parsed.push(e),
                        Err(error) => {
                            return Err(DocumentError::new(
                                kloc.with_field(field),
                                ErrorKind::Expr {
                                    source_text: src.clone(),
                                    error,
                                },
                            ))
                        }
                    }
                }
                Interp::Expr(sources)
            }
            RawInterp::Plain(other) => other,
        };
        exprs.push(parsed);
        keys.push(Key {
            frame: rk.frame,
            value,
            interp,
            ease: rk.ease,
            tcb,
        });
    }
    check_span(&keys, loc)?;
    let track = assemble(raw.name, value_type, raw.wrap, path, raw.fps, keys, exprs);
    with_arclength(track)
        .map_err(|e| DocumentError::new(loc.with_field("path"), ErrorKind::ArcLength(e)))
}

/// Refuses keys spanning more than [`MAX_KEY_SPAN`] frames (or whose span overflows), at the
/// last key's frame.
fn check_span(keys: &[Key], loc: &Location) -> Result<(), DocumentError> {
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
        return Ok(());
    };
    let span = last.frame - first.frame;
    if span <= MAX_KEY_SPAN {
        return Ok(());
    }
    Err(DocumentError::new(
        loc.with_key(keys.len() - 1).with_field("frame"),
        ErrorKind::SpanTooLarge {
            first: first.frame,
            last: last.frame,
            max: MAX_KEY_SPAN,
        },
    ))
}

/// Refuses a document with more than [`MAX_TRACKS`] tracks.
pub(crate) fn check_track_count(count: usize) -> Result<(), DocumentError> {
    if count > MAX_TRACKS {
        return Err(DocumentError::new(
            Location::top("tracks"),
            ErrorKind::TooManyTracks {
                found: count,
                max: MAX_TRACKS,
            },
        ));
    }
    Ok(())
}

/// Key frames increase strictly: `frame` after `previous` (none for the first key), else
/// `UnsortedKeys` at the key's field `frame`.
pub(crate) fn check_increasing(
    kloc: &Location,
    previous: Option<f64>,
    frame: f64,
) -> Result<(), DocumentError> {
    match previous {
        Some(prev) if frame <= prev => Err(DocumentError::new(
            kloc.with_field("frame"),
            ErrorKind::UnsortedKeys {
                previous: prev,
                found: frame,
            },
        )),
        _ => Ok(()),
    }
}
