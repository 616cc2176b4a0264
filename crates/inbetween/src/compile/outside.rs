//! What the compiler checks outside a track's range: the frame (and value offset) each outside frame plays, under the track's wrap or its outside record.

use crate::compile::source::{CurveSource, NonFiniteValue, MAX_COMPONENTS};
use crate::stream::outside::{Landing, Outside};
use crate::stream::StreamWrap;

/// What a frame plays: the source at frame `.0` plus `.1` per component, or a given value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Played {
    /// The source's exact value at this frame of `[first, last]`, plus these offsets.
    At(f64, [f64; MAX_COMPONENTS]),
    /// This value (a line outside the track).
    Value([f64; MAX_COMPONENTS]),
}

/// What frame `f` plays on a track over `[first, last]` with `wrap`, or with `outside` when it
/// has an outside record: inside the range the frame itself, outside it the wrapped frame
/// (`Wrap::apply`, as exact evaluation folds) or the record's landing.
pub(crate) fn played(
    wrap: StreamWrap,
    outside: Option<&Outside>,
    f: f64,
    first: f64,
    last: f64,
) -> Played {
    let none = [0.0; MAX_COMPONENTS];
    if (first..=last).contains(&f) {
        return Played::At(f, none);
    }
    let Some(outside) = outside else {
        let w = crate::track_source::track_wrap(wrap).apply(f, first, last - first);
        return Played::At(w, none);
    };
    match outside.land(f, first, last) {
        Landing::Hold => Played::At(f.clamp(first, last), none),
        Landing::Line { value, .. } => Played::Value(value),
        Landing::Wrapped { w, extra, .. } => Played::At(w, extra),
    }
}

/// Writes the exact value of [`played`] to `out`.
pub(crate) fn exact(
    source: &dyn CurveSource,
    played: Played,
    out: &mut [f64],
) -> Result<(), NonFiniteValue> {
    match played {
        Played::Value(value) => {
            for (o, v) in out.iter_mut().zip(value) {
                *o = v;
            }
            Ok(())
        }
        Played::At(w, extra) => {
            source.eval(w, out)?;
            for (o, e) in out.iter_mut().zip(extra) {
                *o += e;
            }
            Ok(())
        }
    }
}

/// Whether frames outside the range play anything but the held end values (the compiler then
/// measures [`crate::compile::WRAP_WINDOW`] frames on each side).
pub(crate) fn moves(wrap: StreamWrap, outside: Option<&Outside>) -> bool {
    wrap != StreamWrap::Clamp || outside.is_some()
}
