//! Blender's Cycles modifier: frames outside the keys mapped back into them, per side, with a count.

use crate::math;

/// How one side repeats the keyed range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CycleMode {
    /// No cycling on this side: the curve's extrapolation applies.
    #[default]
    None,
    /// Repeat the keyed range.
    Repeat,
    /// Repeat it, each cycle shifted by (last value − first value) per cycle away from the keys.
    RepeatOffset,
    /// Play it backward and forward in turn.
    Mirror,
}

impl CycleMode {
    /// Every mode.
    pub const ALL: [CycleMode; 4] = [
        CycleMode::None,
        CycleMode::Repeat,
        CycleMode::RepeatOffset,
        CycleMode::Mirror,
    ];

    /// The document name: `none`, `repeat`, `repeat_offset`, `mirror`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CycleMode::None => "none",
            CycleMode::Repeat => "repeat",
            CycleMode::RepeatOffset => "repeat_offset",
            CycleMode::Mirror => "mirror",
        }
    }

    /// Parses a document name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<CycleMode> {
        CycleMode::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// The Cycles modifier: a mode and a count per side (count 0 = forever).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cycles {
    /// Mode before the first key.
    pub before: CycleMode,
    /// Mode after the last key.
    pub after: CycleMode,
    /// Cycles before the first key (0 = forever).
    pub before_count: u32,
    /// Cycles after the last key (0 = forever).
    pub after_count: u32,
}

impl Cycles {
    /// Whether handle placement treats the curve as cyclic (Blender's rule: both sides repeat,
    /// with or without offset, forever).
    #[must_use]
    pub fn makes_handles_cyclic(self) -> bool {
        let repeats = |m| matches!(m, CycleMode::Repeat | CycleMode::RepeatOffset);
        repeats(self.before)
            && repeats(self.after)
            && self.before_count == 0
            && self.after_count == 0
    }

    /// The frame inside the keys that `frame` plays, and the value offset to add.
    ///
    /// With S = last − first and D = last value − first value: a frame inside [first, last], or
    /// on a side with mode `none`, or in cycle number k = side·(frame − end)/S past the side's
    /// count, is returned unchanged (so the curve's extrapolation applies there). Otherwise the
    /// time r = fmod(frame − end, S) (sign of the dividend) within the cycle gives: repeat
    /// first + r after, last + r before; mirror the same on even cycles and the reflection on odd
    /// ones; at r = 0 exactly the end of the range the cycle reached. `repeat_offset` adds
    /// D·⌈(frame − last)/S⌉ after and D·⌊(frame − first)/S⌋ before.
    #[must_use]
    pub fn map(self, frame: f64, first: [f64; 2], last: [f64; 2]) -> (f64, f64) {
        let span = last[0] - first[0];
        let (side, mode, count, end) = if frame < first[0] {
            (-1.0, self.before, self.before_count, first[0])
        } else if frame > last[0] {
            (1.0, self.after, self.after_count, last[0])
        } else {
            return (frame, 0.0);
        };
        if mode == CycleMode::None || span <= 0.0 {
            return (frame, 0.0);
        }
        let cycle = side * (frame - end) / span;
        if count != 0 && cycle > f64::from(count) {
            return (frame, 0.0);
        }
        let r = (frame - end) % span;
        let offset = if mode == CycleMode::RepeatOffset {
            let n = (frame - end) / span;
            let whole = if side < 0.0 {
                math::floor(n)
            } else {
                math::ceil(n)
            };
            whole * (last[1] - first[1])
        } else {
            0.0
        };
        // Odd cycles (the first one away from the keys included) are reflected under `mirror`.
        let reflected = mode == CycleMode::Mirror && (math::ceil(cycle) as u64) % 2 == 1;
        let local = if r == 0.0 {
            let reached = if side > 0.0 { last[0] } else { first[0] };
            let mirrored = if side > 0.0 { first[0] } else { last[0] };
            if mode == CycleMode::Mirror && (cycle as u64) % 2 == 1 {
                mirrored
            } else {
                reached
            }
        } else if reflected {
            end - r
        } else if side > 0.0 {
            first[0] + r
        } else {
            last[0] + r
        };
        (local, offset)
    }
}
