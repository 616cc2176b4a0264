//! Handle placement of Blender's handle types (auto, auto-clamped, vector, aligned), first and last keys and cyclic curves included.

use super::smooth::{smooth, Smoothing};
use super::{AutoSmoothing, Extrapolation, FKey, HandleType};
use crate::math;

/// Blender's auto-handle length factor: a handle reaches 1/2.5614 of the key spacing in time.
const AUTO_LENGTH: f64 = 2.5614;
/// Lengths below this do not define a direction for `aligned` handles.
const ALIGN_EPS: f64 = 1e-5;

type Point = [f64; 2];

/// Places the handles of every key in order. `cyclic`: the neighbour of the first key is the
/// last-but-one key moved back by (last − first) in frame and value, and the neighbour of the
/// last key the second key moved forward by the same (Blender's cyclic handles). With fewer
/// than two keys nothing is placed (the handles stay as given), as in Blender. With
/// `ContAccel` smoothing, auto handles reach a third of the key spacing and runs of free auto
/// keys are then solved together (`smooth`).
pub(super) fn place_handles(
    keys: &mut [FKey],
    extrapolation: [Extrapolation; 2],
    cyclic: bool,
    smoothing: AutoSmoothing,
) {
    let n = keys.len();
    if n < 2 {
        return;
    }
    let given: alloc::vec::Vec<[Point; 2]> = keys.iter().map(|k| [k.left, k.right]).collect();
    let cyclic = cyclic && both_auto(&keys[0]) && both_auto(&keys[n - 1]);
    let (first, last) = (
        [keys[0].frame, keys[0].value],
        [keys[n - 1].frame, keys[n - 1].value],
    );
    let delta = [last[0] - first[0], last[1] - first[1]];
    let mut locked_end = false;
    let smoothed = smoothing == AutoSmoothing::ContAccel;
    // Keys whose auto handles were flattened (Blender's "locked" auto handle type).
    let mut locked = alloc::vec![false; n];
    for i in 0..n {
        let prev = if i > 0 {
            Some([keys[i - 1].frame, keys[i - 1].value])
        } else if cyclic {
            Some([keys[n - 2].frame - delta[0], keys[n - 2].value - delta[1]])
        } else {
            None
        };
        let next = if i + 1 < n {
            Some([keys[i + 1].frame, keys[i + 1].value])
        } else if cyclic {
            Some([keys[1].frame + delta[0], keys[1].value + delta[1]])
        } else {
            None
        };
        let key = &mut keys[i];
        key.left[0] = key.left[0].min(key.frame);
        key.right[0] = key.right[0].max(key.frame);
        locked[i] = place_key(key, prev, next, smoothed);
        let end = i == 0 || i == n - 1;
        if end && locked[i] {
            locked_end = true;
        }
        let outward = extrapolation[usize::from(i != 0)];
        if end && both_auto(key) && !cyclic && outward == Extrapolation::Constant {
            key.left[1] = key.value;
            key.right[1] = key.value;
            locked[i] = true;
        }
    }
    if cyclic && locked_end {
        for i in [0, n - 1] {
            keys[i].left[1] = keys[i].value;
            keys[i].right[1] = keys[i].value;
            locked[i] = true;
        }
    }
    if smoothed {
        let locked = &locked;
        smooth(keys, &Smoothing { locked, cyclic });
    }
    keep_given_within_rounding(keys, &given);
}

/// Relative distance within which a placed handle coordinate is the given one rounded
/// differently: 2^-18 (32 float32 ulps) of the track's largest frame or value magnitude.
pub const SAME_HANDLE: f64 = 1.0 / 262_144.0;

/// Where a placed handle coordinate is within [`SAME_HANDLE`] of the document's, the document's
/// is kept: a document exported from Blender carries Blender's own float32 placement, and
/// extrapolating along a handle magnifies a last-bit difference. A stale position (a key moved
/// after export) is further off and is replaced.
fn keep_given_within_rounding(keys: &mut [FKey], given: &[[Point; 2]]) {
    let reach = |f: fn(&FKey) -> f64| keys.iter().fold(1.0_f64, |m, k| m.max(math::abs(f(k))));
    let tolerance = [
        SAME_HANDLE * reach(|k| k.frame),
        SAME_HANDLE * reach(|k| k.value),
    ];
    for (key, [left, right]) in keys.iter_mut().zip(given) {
        for (placed, given) in [(&mut key.left, left), (&mut key.right, right)] {
            for c in 0..2 {
                if math::abs(placed[c] - given[c]) <= tolerance[c] {
                    placed[c] = given[c];
                }
            }
        }
    }
}

fn both_auto(key: &FKey) -> bool {
    key.left_type.is_auto() && key.right_type.is_auto()
}

/// Places one key's handles from its neighbours' positions (a missing neighbour is the mirror
/// image of the other). Returns whether an auto-clamped handle was flattened at an extreme.
/// `smoothed`: auto handles reach a third of the spacing, without the 5× limit.
fn place_key(key: &mut FKey, prev: Option<Point>, next: Option<Point>, smoothed: bool) -> bool {
    if key.left_type == HandleType::Free && key.right_type == HandleType::Free {
        return false;
    }
    let p2 = [key.frame, key.value];
    let mirror = |q: Point| [2.0 * p2[0] - q[0], 2.0 * p2[1] - q[1]];
    let (p1, p3) = match (prev, next) {
        (Some(a), Some(b)) => (a, b),
        (Some(a), None) => (a, mirror(a)),
        (None, Some(b)) => (mirror(b), b),
        (None, None) => return false,
    };
    let da = [p2[0] - p1[0], p2[1] - p1[1]];
    let db = [p3[0] - p2[0], p3[1] - p2[1]];
    let nonzero = |x: f64| if x == 0.0 { 1.0 } else { x };
    let (len_a, len_b) = (nonzero(da[0]), nonzero(db[0]));
    let mut locked = false;
    if key.left_type.is_auto() || key.right_type.is_auto() {
        let tangent = [db[0] / len_b + da[0] / len_a, db[1] / len_b + da[1] / len_a];
        // Smoothed: tangent[0] is 2 (both spacings divided by themselves), so 6 makes a third.
        let len = if smoothed {
            6.0
        } else {
            tangent[0] * AUTO_LENGTH
        };
        if len != 0.0 {
            let neighbours = prev.zip(next);
            let reach = [len_a / len, len_b / len];
            locked = place_auto(key, tangent, reach, neighbours, !smoothed);
        }
    }
    if key.left_type == HandleType::Vector {
        key.left = [p2[0] - da[0] / 3.0, p2[1] - da[1] / 3.0];
    }
    if key.right_type == HandleType::Vector {
        key.right = [p2[0] + db[0] / 3.0, p2[1] + db[1] / 3.0];
    }
    align(key);
    locked
}

/// The auto handles along `tangent`, `reach` = [left, right] multiples of it (each limited to
/// 5× the other first when `limit`), then the auto-clamped limits when both neighbours exist.
fn place_auto(
    key: &mut FKey,
    tangent: Point,
    reach: [f64; 2],
    around: Option<(Point, Point)>,
    limit: bool,
) -> bool {
    let p2 = [key.frame, key.value];
    let (mut ra, mut rb) = (reach[0], reach[1]);
    // The 5× limit compares the time spacings before dividing by the common length.
    if limit && ra > 5.0 * rb {
        ra = 5.0 * rb;
    }
    if limit && rb > 5.0 * ra {
        rb = 5.0 * ra;
    }
    let (mut left_violates, mut right_violates, mut locked) = (false, false, false);
    if key.left_type.is_auto() {
        key.left = [p2[0] - tangent[0] * ra, p2[1] - tangent[1] * ra];
    }
    if key.right_type.is_auto() {
        key.right = [p2[0] + tangent[0] * rb, p2[1] + tangent[1] * rb];
    }
    if let Some((prev, next)) = around {
        let (y1, y2) = (prev[1] - p2[1], next[1] - p2[1]);
        let extreme = (y1 <= 0.0 && y2 <= 0.0) || (y1 >= 0.0 && y2 >= 0.0);
        if key.left_type == HandleType::AutoClamped {
            if extreme {
                key.left[1] = p2[1];
                locked = true;
            } else if (y1 <= 0.0 && prev[1] > key.left[1]) || (y1 > 0.0 && prev[1] < key.left[1]) {
                key.left[1] = prev[1];
                left_violates = true;
            }
        }
        if key.right_type == HandleType::AutoClamped {
            if extreme {
                key.right[1] = p2[1];
                locked = true;
            } else if (y1 <= 0.0 && next[1] < key.right[1]) || (y1 > 0.0 && next[1] > key.right[1])
            {
                key.right[1] = next[1];
                right_violates = true;
            }
        }
    }
    if left_violates || right_violates {
        let h1 = key.left[0] - p2[0];
        let h2 = p2[0] - key.right[0];
        if left_violates {
            key.right[1] = p2[1] + (p2[1] - key.left[1]) / h1 * h2;
        } else {
            key.left[1] = p2[1] + (p2[1] - key.right[1]) / h2 * h1;
        }
    }
    locked
}

/// An `aligned` handle turned to continue the other handle's direction, keeping its length
/// (when neither side is free): the left one first, then the right one.
fn align(key: &mut FKey) {
    let (l, r) = (key.left_type, key.right_type);
    if l == HandleType::Free || r == HandleType::Free {
        return;
    }
    if l != HandleType::Aligned && r != HandleType::Aligned {
        return;
    }
    let p2 = [key.frame, key.value];
    let length =
        |q: Point| math::sqrt((q[0] - p2[0]) * (q[0] - p2[0]) + (q[1] - p2[1]) * (q[1] - p2[1]));
    let nonzero = |x: f64| if x == 0.0 { 1.0 } else { x };
    let (len_a, len_b) = (nonzero(length(key.left)), nonzero(length(key.right)));
    let ratio = len_a / len_b;
    if l == HandleType::Aligned && len_b > ALIGN_EPS {
        key.left = [
            p2[0] + (p2[0] - key.right[0]) * ratio,
            p2[1] + (p2[1] - key.right[1]) * ratio,
        ];
    }
    if r == HandleType::Aligned && len_a > ALIGN_EPS {
        key.right = [
            p2[0] + (p2[0] - key.left[0]) / ratio,
            p2[1] + (p2[1] - key.left[1]) / ratio,
        ];
    }
}
