//! Per-segment arc-length timing (`path: "segment_arclength"`): each segment's ease maps its own normalized time to normalized distance along that segment.
//!
//! This is how After Effects (and lottie-web) time a spatial position path: every segment from
//! key i to key i + 1 is its own curve of length L_i (a cubic Bezier, or a straight line), and
//! at frame f with u = (f − f_i) / (f_{i+1} − f_i) the value is the point of segment i at arc
//! length s = L_i · e_i(u) from its start, e_i being key i's `ease` (clamped to [0, L_i], so an
//! overshooting ease holds at the segment's ends). A `step` segment holds its key's value. Arc
//! length is measured exactly (adaptive quadrature, see [`crate::arclength`]): the point is placed
//! within [`ARCLENGTH_ACCURACY`] × the track's whole length of the requested distance.

use alloc::vec::Vec;

use crate::arclength::ArcLengthTable;
use crate::compile::source::SourceSpan;
use crate::ease::Ease;
use crate::track::{SegmentCurve, SegmentForm, Track, ARCLENGTH_ACCURACY};
use crate::value::Value;

/// The value of a `segment_arclength` track at `local` (a frame already inside the keyed range,
/// after the wrap): the segment that holds it, timed by its own arc length; the last key's value
/// at and after the last key.
pub(crate) fn eval(track: &Track, local: f64, table: &ArcLengthTable) -> Value {
    let keys = track.keys();
    match track.segment_index(local) {
        Some(i) => eval_in_segment(track, table, i, local),
        None if local < track.first_frame() => keys[0].value,
        None => keys[keys.len() - 1].value,
    }
}

/// Segment `index` at `frame`, valid on the closed range [f_i, f_{i+1}] (at f_{i+1} it is the
/// limit from inside: the segment's end point) and clamped outside it.
pub(crate) fn eval_in_segment(
    track: &Track,
    table: &ArcLengthTable,
    index: usize,
    frame: f64,
) -> Value {
    let keys = track.keys();
    let pair = (keys.get(index), keys.get(index + 1));
    // Every caller passes a segment of the track: from `segment_index`, the key pairs, or a
    // span those made.
    debug_assert!(
        pair.0.is_some() && pair.1.is_some(),
        "segment {index} out of range"
    );
    let (Some(k0), Some(k1)) = pair else {
        return keys.last().map_or(Value::scalar(0.0), |k| k.value);
    };
    let x = k0.ease.at_offset(frame - k0.frame, k1.frame - k0.frame);
    track.eval_segment_at(index, parameter_at(track, table, index, x))
}

/// The (un-eased) parameter u of segment `index` at the fraction `x` of its length: 0 for
/// x ≤ 0 (or NaN) and for a segment of length 0, 1 for x ≥ 1.
fn parameter_at(track: &Track, table: &ArcLengthTable, index: usize, x: f64) -> f64 {
    let (lo, hi) = (table.segment_start(index), table.segment_start(index + 1));
    let length = hi - lo;
    if x.is_nan() || x <= 0.0 || length <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let s = lo + x * length;
    let (j, u) = table.locate_with(
        |j| Some(SegmentCurve { track, index: j }),
        s,
        ARCLENGTH_ACCURACY,
    );
    // The table's lookup may land in a neighbour at a shared end (a jump adds no length).
    match j.cmp(&index) {
        core::cmp::Ordering::Equal => u,
        core::cmp::Ordering::Less => 0.0,
        core::cmp::Ordering::Greater => 1.0,
    }
}

/// The compiler's spans of a `segment_arclength` track: one smooth span per segment (split at
/// its ease's kinks), a constant one for a `step` segment or a segment of length 0, and one
/// constant span per step of a `steps` ease.
pub(crate) fn push_spans(
    track: &Track,
    table: &ArcLengthTable,
    breakpoints: impl Fn(&Ease) -> Vec<f64>,
    out: &mut Vec<SourceSpan>,
) {
    let keys = track.keys();
    let dims = track.components();
    let constant = |index: usize, start: f64, end: f64| {
        let v = eval_in_segment(track, table, index, start + 0.5 * (end - start));
        crate::track_source::constant_span(index, (start, end), &v, dims)
    };
    for (index, pair) in keys.windows(2).enumerate() {
        let (f0, f1) = (pair[0].frame, pair[1].frame);
        let hold = matches!(
            track.segment(index).map(|s| &s.form),
            Some(SegmentForm::Hold)
        );
        if hold || table.segment_start(index + 1) <= table.segment_start(index) {
            out.push(constant(index, f0, f1));
            continue;
        }
        let cuts: Vec<f64> = match pair[0].ease {
            Ease::Steps(steps) => {
                for (start, end) in crate::track_source::step_spans(f0, f1, steps.count()) {
                    out.push(constant(index, start, end));
                }
                continue;
            }
            ref ease => breakpoints(ease),
        };
        crate::track_source::push_smooth_spans(index, (f0, f1), &cuts, out);
    }
}
