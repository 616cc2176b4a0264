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

impl TrackBuilder {
    /// Validates the track (strictly increasing finite frames, values of the right length,
    /// finite numbers, kinds allowed for the type, enough keys) and precomputes its segments.
    pub fn build(self) -> Result<Track, DocumentError> {
        let loc = Location {
            track_name: Some(self.name.clone()),
            ..Location::default()
        };
        self.build_at(&loc)
    }

    pub(crate) fn build_at(self, loc: &Location) -> Result<Track, DocumentError> {
        validate_document_track(self, loc)
    }
}

/// A raw document track → a `Track`, in named steps: fps, path mode, key count, each key (frame
/// order, value, tcb, its segment kind), the key span, then the precomputed segments.
fn validate_document_track(mut raw: TrackBuilder, loc: &Location) -> Result<Track, DocumentError> {
    if let Some(spec) = raw.fcurve.take() {
        return crate::fcurve::validate::build_track(raw, spec, loc);
    }
    check_fps(raw.fps)?;
    let path = path_mode(&raw, loc)?;
    check_key_count(raw.keys.len(), loc)?;
    let n = raw.keys.len();
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
        let value = key_value(&kloc, &rk.value, raw.value_type)?;
        let tcb = key_tcb(&kloc, rk.tcb)?;
        let (interp, parsed) = key_interp(&kloc, rk.interp, raw.value_type, n)?;
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
    let track = assemble(
        raw.name,
        raw.value_type,
        raw.wrap,
        path,
        raw.fps,
        keys,
        exprs,
    );
    with_arclength(track)
        .map_err(|e| DocumentError::new(loc.with_field("path"), ErrorKind::ArcLength(e)))
}

/// The document's frames per second: positive and finite.
fn check_fps(fps: f64) -> Result<(), DocumentError> {
    if fps.is_finite() && fps > 0.0 {
        Ok(())
    } else {
        Err(invalid(
            Location::top("fps"),
            "a positive number",
            format!("{fps}"),
        ))
    }
}

/// Keys timing (`"path": "keys"`), arc-length timing with its optional track ease, or
/// per-segment arc-length timing (each key's ease times its segment); arc length on spatial
/// tracks only.
fn path_mode(raw: &TrackBuilder, loc: &Location) -> Result<PathMode, DocumentError> {
    if raw.arclength || raw.segment_arclength {
        if !raw.value_type.is_spatial() {
            return Err(DocumentError::new(
                loc.with_field("path"),
                ErrorKind::ArclengthType {
                    found: raw.value_type.name(),
                },
            ));
        }
        if !raw.segment_arclength {
            return Ok(PathMode::Arclength {
                ease: raw.track_ease.unwrap_or(Ease::Linear),
            });
        }
        if let Some(ease) = raw.track_ease {
            return Err(invalid(
                loc.with_field("ease"),
                "no track ease with path \"segment_arclength\" (each key's ease times its segment)",
                ease.name(),
            ));
        }
        return Ok(PathMode::SegmentArclength);
    }
    if raw.track_ease.is_some() {
        return Err(DocumentError::new(
            loc.with_field("ease"),
            ErrorKind::TrackEaseWithoutArclength,
        ));
    }
    Ok(PathMode::Keys)
}

/// At least one key, at most [`MAX_KEYS_PER_TRACK`].
fn check_key_count(n: usize, loc: &Location) -> Result<(), DocumentError> {
    if n == 0 {
        return Err(DocumentError::new(
            loc.with_field("keys"),
            ErrorKind::NoKeys,
        ));
    }
    if n > MAX_KEYS_PER_TRACK {
        return Err(DocumentError::new(
            loc.with_field("keys"),
            ErrorKind::TooManyKeys {
                found: n,
                max: MAX_KEYS_PER_TRACK,
            },
        ));
    }
    Ok(())
}

/// A key's value: the track type's length, finite; quaternions normalized (zero refused).
fn key_value(kloc: &Location, raw: &[f64], value_type: ValueType) -> Result<Value, DocumentError> {
    let value = check_value(kloc, "value", raw, value_type)?;
    if value_type != ValueType::Quat {
        return Ok(value);
    }
    quat::normalize(value.to_array())
        .map(Value::new)
        .ok_or_else(|| DocumentError::new(kloc.with_field("value"), ErrorKind::ZeroQuaternion))
}

/// A key's tension, continuity and bias: finite.
fn key_tcb(kloc: &Location, tcb: [f64; 3]) -> Result<Tcb, DocumentError> {
    for (c, x) in tcb.iter().enumerate() {
        if !x.is_finite() {
            return Err(invalid(
                kloc.with_field(format!("tcb[{c}]")),
                "a finite number",
                format!("{x}"),
            ));
        }
    }
    Ok(Tcb::new(tcb[0], tcb[1], tcb[2]))
}

/// A key's segment kind, checked against the track: handle values of the track's type, slerp
/// on quaternions only, a polynomial's key count, expressions parsed (returned beside it).
fn key_interp(
    kloc: &Location,
    interp: RawInterp,
    value_type: ValueType,
    n: usize,
) -> Result<(Interp, Vec<Expr>), DocumentError> {
    let handles =
        |kind: &str, out: &[f64], r#in: &[f64]| -> Result<(Value, Value), DocumentError> {
            Ok((
                check_value(kloc, &format!("interp.{kind}.out"), out, value_type)?,
                check_value(kloc, &format!("interp.{kind}.in"), r#in, value_type)?,
            ))
        };
    let interp = match interp {
        RawInterp::Hermite { out, r#in } => {
            let (out, r#in) = handles("hermite", &out, &r#in)?;
            Interp::Hermite { out, r#in }
        }
        RawInterp::Bezier { out, r#in } => {
            let (out, r#in) = handles("bezier", &out, &r#in)?;
            Interp::Bezier { out, r#in }
        }
        RawInterp::Plain(Interp::Hermite { out, r#in }) => {
            let (out, r#in) = handles("hermite", &out, &r#in)?;
            Interp::Hermite { out, r#in }
        }
        RawInterp::Plain(Interp::Bezier { out, r#in }) => {
            let (out, r#in) = handles("bezier", &out, &r#in)?;
            Interp::Bezier { out, r#in }
        }
        RawInterp::Plain(Interp::Slerp) if value_type != ValueType::Quat => {
            return Err(invalid(
                kloc.with_field("interp"),
                format!(
                    "an interp allowed on a {value_type} track (slerp is for quat tracks only)"
                ),
                "\"slerp\"",
            ));
        }
        RawInterp::Plain(Interp::Polynomial { keys: count }) => {
            check_polynomial_keys(kloc, count, n)?;
            Interp::Polynomial { keys: count }
        }
        RawInterp::Plain(Interp::Expr(sources)) => {
            let parsed = parse_expressions(kloc, &sources, value_type)?;
            return Ok((Interp::Expr(sources), parsed));
        }
        RawInterp::Plain(other) => other,
    };
    Ok((interp, Vec::new()))
}

/// A polynomial segment's key count: from 2 to the track's keys, at most
/// [`MAX_POLYNOMIAL_KEYS`].
fn check_polynomial_keys(kloc: &Location, count: usize, n: usize) -> Result<(), DocumentError> {
    if (2..=n.min(MAX_POLYNOMIAL_KEYS)).contains(&count) {
        return Ok(());
    }
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
    Err(invalid(
        kloc.with_field("interp.polynomial.keys"),
        format!("an integer from 2 to the number of keys ({n}), at most {MAX_POLYNOMIAL_KEYS}"),
        format!("{count}"),
    ))
}

/// An expression segment's sources: one per component, each parsed.
fn parse_expressions(
    kloc: &Location,
    sources: &[String],
    value_type: ValueType,
) -> Result<Vec<Expr>, DocumentError> {
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
    sources
        .iter()
        .enumerate()
        .map(|(c, src)| {
            let field = if want == 1 {
                "interp.expr".to_string()
            } else {
                format!("interp.expr[{c}]")
            };
            Expr::parse(src).map_err(|error| {
                DocumentError::new(
                    kloc.with_field(field),
                    ErrorKind::Expr {
                        source_text: src.clone(),
                        error,
                    },
                )
            })
        })
        .collect()
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
