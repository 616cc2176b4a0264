//! Validation of an F-curve track: raw keys and options become a [`Track`] backed by an [`FCurve`].

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{FCurve, FInterp, FKey, RawFCurve};
use crate::error::{DocumentError, ErrorKind, Location};
use crate::track::{
    assemble, Interp, Key, PathMode, Track, TrackBuilder, Wrap, MAX_KEYS_PER_TRACK,
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

/// Checks the track-level rules (scalar, clamp wrap, keys path, fps) and every key (finite
/// frames strictly increasing, finite values, handles and easing parameters), then places the
/// handles.
pub(crate) fn build_track(
    raw: TrackBuilder,
    spec: RawFCurve,
    loc: &Location,
) -> Result<Track, DocumentError> {
    check_track_options(&raw, loc)?;
    check_key_count(spec.keys.len(), loc)?;
    let mut previous: Option<f64> = None;
    for (i, key) in spec.keys.iter().enumerate() {
        check_key(key, previous, &loc.with_key(i))?;
        previous = Some(key.frame);
    }
    let keys: Vec<Key> = spec
        .keys
        .iter()
        .map(|k| Key {
            frame: k.frame,
            value: Value::scalar(k.value),
            interp: if k.interp == FInterp::Constant {
                Interp::Step
            } else {
                Interp::Linear
            },
            ease: crate::ease::Ease::Linear,
            tcb: crate::track::Tcb::ZERO,
        })
        .collect();
    let curve = FCurve::with_smoothing(spec.keys, spec.extrapolation, spec.cycles, spec.smoothing);
    let track = assemble(
        raw.name,
        ValueType::Scalar,
        Wrap::Clamp,
        PathMode::Keys,
        raw.fps,
        keys,
        Vec::new(),
    );
    Ok(track.with_fcurve(Box::new(curve)))
}

/// The track-level rules of an F-curve track: scalar, clamp wrap, keys path, a positive fps.
fn check_track_options(raw: &TrackBuilder, loc: &Location) -> Result<(), DocumentError> {
    if raw.value_type != ValueType::Scalar {
        return Err(invalid(
            loc.with_field("type"),
            "\"scalar\" (an F-curve track animates one number)",
            format!("\"{}\"", raw.value_type.name()),
        ));
    }
    if raw.wrap != Wrap::Clamp {
        return Err(invalid(
            loc.with_field("wrap"),
            "no wrap on an F-curve track (use fcurve.cycles)",
            format!("\"{}\"", raw.wrap.name()),
        ));
    }
    if raw.arclength || raw.track_ease.is_some() {
        return Err(invalid(
            loc.with_field("path"),
            "\"keys\" on an F-curve track",
            "\"arclength\"",
        ));
    }
    if !(raw.fps.is_finite() && raw.fps > 0.0) {
        return Err(invalid(
            Location::top("fps"),
            "a positive number",
            format!("{}", raw.fps),
        ));
    }
    Ok(())
}

/// One to [`MAX_KEYS_PER_TRACK`] keys.
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

fn check_key(key: &FKey, previous: Option<f64>, kloc: &Location) -> Result<(), DocumentError> {
    let finite = |x: f64, field: &str| {
        if x.is_finite() {
            Ok(())
        } else {
            Err(invalid(
                kloc.with_field(field),
                "a finite number",
                format!("{x}"),
            ))
        }
    };
    finite(key.frame, "frame")?;
    finite(key.value, "value")?;
    finite(key.left[0], "left[0]")?;
    finite(key.left[1], "left[1]")?;
    finite(key.right[0], "right[0]")?;
    finite(key.right[1], "right[1]")?;
    finite(key.back, "interp.back")?;
    finite(key.amplitude, "interp.amplitude")?;
    finite(key.period, "interp.period")?;
    crate::validate::check_increasing(kloc, previous, key.frame)
}
