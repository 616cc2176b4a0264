//! A track's frames outside its range, side by side (format version 2): hold, a line, a loop with a value offset per cycle, or ping-pong.
//!
//! A version-1 track plays both sides by its one `wrap` code. A track may instead carry an
//! *outside record* (160 bytes after its numbers, see `docs/stream-format.md`) that says what
//! each side plays; its `wrap` code is then 0. Frames inside `[first, last]` are unaffected.

use super::layout::{read_f64, read_u8, MAX_COMPONENTS};
use super::StreamError;
use crate::math::{wrap_remainder, EXACT_FOLDS};

/// Bytes of a track's outside record: the side before the track, then the side after it.
pub const OUTSIDE_RECORD_SIZE: usize = 2 * SIDE_SIZE;
/// Bytes of one side: kind (u8), 7 reserved bytes, period (f64), 4 × f64 `a`, 4 × f64 `b`.
const SIDE_SIZE: usize = 80;
const S_KIND: usize = 0;
const S_PERIOD: usize = 8;
const S_A: usize = 16;
const S_B: usize = 48;

/// Largest |value| a line may start from at the edge: 2^1000.
pub const MAX_LINE_VALUE: f64 = 1.071_508_607_186_267_3e301;
/// Largest |slope| (value units per frame) of a line and |offset| per cycle of a loop: 2^900.
pub const MAX_OUTSIDE_RATE: f64 = 8.452_712_498_170_644e270;
/// Frames a line follows its slope from the edge (2^53, 12 million years at 24 fps); farther
/// frames get the value it reaches there, so a line's value stays finite at every frame.
pub const LINE_REACH: f64 = 9_007_199_254_740_992.0;
/// The largest cycle count an offset is multiplied by: [`EXACT_FOLDS`] (2^50). Farther cycles
/// (beyond 2^50 periods, where the fold count is no longer exact) keep that offset, so a
/// loop's value stays finite at every frame: |value| ≤ |piece bound| + 2^50 · 2^900.
pub const MAX_OFFSET_CYCLES: f64 = EXACT_FOLDS;

/// What one side of a track plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Beyond {
    /// Code 0: what `clamp` plays on this side (the value at the first frame before the track,
    /// the end value after it).
    Hold,
    /// Code 1: `value + slope · (f − edge)` per component, `edge` the track's first frame
    /// (before) or last frame (after), `f − edge` limited to ±[`LINE_REACH`].
    Line {
        /// Value at the edge (may differ from the track's value there: a jump).
        value: [f64; MAX_COMPONENTS],
        /// Value units per frame.
        slope: [f64; MAX_COMPONENTS],
    },
    /// Code 2: the last `period` frames of the track (after it) or its first `period` frames
    /// (before it) repeated, cycle k adding `k · offset` (k = ⌊(f − o)/period⌋, o the window's
    /// start: k ≥ 1 after the track, ≤ −1 before it; |k| limited to [`MAX_OFFSET_CYCLES`]).
    Loop {
        /// Frames per cycle, 0 < period ≤ last − first.
        period: f64,
        /// Value added per cycle away from the track.
        offset: [f64; MAX_COMPONENTS],
    },
    /// Code 3: that window played backward and forward in turn (the first cycle away from the
    /// track backward), as `ping_pong` does with the whole track.
    PingPong {
        /// Frames per half period, 0 < period ≤ last − first.
        period: f64,
    },
}

impl Beyond {
    /// The record code.
    #[must_use]
    pub const fn code(&self) -> u8 {
        match self {
            Beyond::Hold => 0,
            Beyond::Line { .. } => 1,
            Beyond::Loop { .. } => 2,
            Beyond::PingPong { .. } => 3,
        }
    }

    /// (period, a, b) as stored.
    #[cfg(feature = "write")]
    fn fields(&self) -> (f64, [f64; MAX_COMPONENTS], [f64; MAX_COMPONENTS]) {
        let zero = [0.0; MAX_COMPONENTS];
        match *self {
            Beyond::Hold => (0.0, zero, zero),
            Beyond::Line { value, slope } => (0.0, value, slope),
            Beyond::Loop { period, offset } => (period, offset, zero),
            Beyond::PingPong { period } => (period, zero, zero),
        }
    }
}

/// What each side of a track plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outside {
    /// Frames before the first frame.
    pub before: Beyond,
    /// Frames after the last frame.
    pub after: Beyond,
}

/// Where a frame outside a track lands, by [`Outside::land`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Landing {
    /// What `clamp` plays there.
    Hold,
    /// A line's value at the frame; `moving` when any slope is not zero.
    Line {
        /// The value.
        value: [f64; MAX_COMPONENTS],
        /// Whether the value changes with the frame.
        moving: bool,
    },
    /// Frame `w` of the track plus `extra`, on fold `fold` of the side's window (NaN where
    /// folds are no longer exact), played backward when `mirrored`.
    Wrapped {
        /// The frame played, in `[first, last]`.
        w: f64,
        /// Cycle (loop) or half period (ping-pong) number, negative before the track.
        fold: f64,
        /// Played backward.
        mirrored: bool,
        /// Cycles × offset, added to the value.
        extra: [f64; MAX_COMPONENTS],
    },
}

impl Outside {
    /// The side after the track (`after`) or before it.
    #[must_use]
    pub fn side(&self, after: bool) -> Beyond {
        if after {
            self.after
        } else {
            self.before
        }
    }

    /// Where frame `f` lands on a track over `[first, last]` (validated record; `f` outside
    /// that range, after it when `f > last`).
    #[must_use]
    pub fn land(&self, f: f64, first: f64, last: f64) -> Landing {
        let after = f > last;
        let edge = if after { last } else { first };
        let span = last - first;
        let origin = |period: f64| {
            if !after || period == span {
                first
            } else {
                last - period
            }
        };
        match self.side(after) {
            Beyond::Hold => Landing::Hold,
            Beyond::Line { value, slope } => {
                let d = f - edge;
                let d = if d.is_nan() {
                    0.0
                } else {
                    d.clamp(-LINE_REACH, LINE_REACH)
                };
                let mut out = [0.0; MAX_COMPONENTS];
                for ((o, v), s) in out.iter_mut().zip(value).zip(slope) {
                    *o = v + s * d;
                }
                Landing::Line {
                    value: out,
                    moving: slope.iter().any(|s| *s != 0.0),
                }
            }
            Beyond::Loop { period, offset } => {
                let o = origin(period);
                let (r, fold) = wrap_remainder(f, o, period);
                let limit = if after {
                    MAX_OFFSET_CYCLES
                } else {
                    -MAX_OFFSET_CYCLES
                };
                let cycles = if fold.is_nan() {
                    limit
                } else {
                    fold.clamp(-MAX_OFFSET_CYCLES, MAX_OFFSET_CYCLES)
                };
                let mut extra = [0.0; MAX_COMPONENTS];
                for (e, x) in extra.iter_mut().zip(offset) {
                    *e = if x == 0.0 { 0.0 } else { cycles * x };
                }
                Landing::Wrapped {
                    w: (o + r).clamp(first, last),
                    fold,
                    mirrored: false,
                    extra,
                }
            }
            Beyond::PingPong { period } => {
                let o = origin(period);
                let (r, half) = wrap_remainder(f, o, 2.0 * period);
                let (w, fold, mirrored) = if r <= period {
                    (o + r, 2.0 * half, false)
                } else {
                    (o + (2.0 * period - r), 2.0 * half + 1.0, true)
                };
                Landing::Wrapped {
                    w: w.clamp(first, last),
                    fold,
                    mirrored,
                    extra: [0.0; MAX_COMPONENTS],
                }
            }
        }
    }

    /// Appends the 160-byte record.
    #[cfg(feature = "write")]
    pub(crate) fn append_to(&self, out: &mut alloc::vec::Vec<u8>) {
        for side in [self.before, self.after] {
            let (period, a, b) = side.fields();
            out.push(side.code());
            out.extend_from_slice(&[0; 7]);
            out.extend_from_slice(&period.to_le_bytes());
            for x in a.iter().chain(&b) {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
    }

    /// The record at `at` (validated by [`check`]; unknown codes read as `Hold`).
    #[must_use]
    pub(crate) fn read(bytes: &[u8], at: usize) -> Outside {
        let side = |s: usize| {
            let base = at + s * SIDE_SIZE;
            let vector = |offset: usize| {
                let mut v = [0.0; MAX_COMPONENTS];
                for (c, x) in v.iter_mut().enumerate() {
                    *x = read_f64(bytes, base + offset + 8 * c);
                }
                v
            };
            let period = read_f64(bytes, base + S_PERIOD);
            match read_u8(bytes, base + S_KIND) {
                1 => Beyond::Line {
                    value: vector(S_A),
                    slope: vector(S_B),
                },
                2 => Beyond::Loop {
                    period,
                    offset: vector(S_A),
                },
                3 => Beyond::PingPong { period },
                _ => Beyond::Hold,
            }
        };
        Outside {
            before: side(0),
            after: side(1),
        }
    }
}

/// Field names per side, for errors.
const NAMES: [[&str; 5]; 2] = [
    [
        "outside before: kind",
        "outside before: reserved bytes",
        "outside before: period",
        "outside before: value / offset",
        "outside before: slope",
    ],
    [
        "outside after: kind",
        "outside after: reserved bytes",
        "outside after: period",
        "outside after: value / offset",
        "outside after: slope",
    ],
];

/// Validates the record at `at` (160 bytes, checked to lie in the stream) of track `track` over
/// `[first, last]` with `components` components: known kinds, zero reserved bytes, a period in
/// `(0, last − first]` (and ≤ f64::MAX / 4) for loops and ping-pong and 0 otherwise, finite
/// numbers within [`MAX_LINE_VALUE`] / [`MAX_OUTSIDE_RATE`], zero where a kind has no such
/// number and in components the track does not have.
pub(crate) fn check(
    bytes: &[u8],
    at: usize,
    track: u32,
    (first, last): (f64, f64),
    components: usize,
) -> Result<(), StreamError> {
    let t = Some(track);
    let bad = |field: &'static str, found: f64, expected: &'static str| StreamError::BadNumber {
        track: t,
        piece: None,
        field,
        found,
        expected,
    };
    for (s, names) in NAMES.iter().enumerate() {
        let base = at + s * SIDE_SIZE;
        let kind = read_u8(bytes, base + S_KIND);
        if kind > 3 {
            return Err(StreamError::UnknownCode {
                track,
                field: names[0],
                found: kind,
                expected: "0 hold, 1 line, 2 loop, 3 ping_pong",
            });
        }
        for r in 1..8 {
            let found = read_u8(bytes, base + r);
            if found != 0 {
                return Err(StreamError::ReservedNotZero {
                    track: t,
                    piece: None,
                    field: names[1],
                    found: u64::from(found),
                });
            }
        }
        let period = read_f64(bytes, base + S_PERIOD);
        let cycles = kind == 2 || kind == 3;
        let span = last - first;
        if cycles && !(period > 0.0 && period <= span && period <= f64::MAX / 4.0) {
            return Err(bad(
                names[2],
                period,
                "a period in (0, last frame − first frame]",
            ));
        }
        if !cycles && period != 0.0 {
            return Err(bad(names[2], period, "0 (not a loop or ping-pong)"));
        }
        for (field, offset, used, limit) in [
            (names[3], S_A, kind == 1 || kind == 2, MAX_LINE_VALUE),
            (names[4], S_B, kind == 1, MAX_OUTSIDE_RATE),
        ] {
            // A loop's offset is a rate (per cycle).
            let limit = if kind == 2 { MAX_OUTSIDE_RATE } else { limit };
            for c in 0..MAX_COMPONENTS {
                let x = read_f64(bytes, base + offset + 8 * c);
                if !used || c >= components {
                    if x != 0.0 {
                        return Err(bad(field, x, "0 (unused by this kind or component)"));
                    }
                } else if !(x.is_finite() && crate::math::abs(x) <= limit) {
                    return Err(bad(field, x, "a finite number within the outside limits"));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: f64, s: f64) -> Beyond {
        Beyond::Line {
            value: [v, 0.0, 0.0, 0.0],
            slope: [s, 0.0, 0.0, 0.0],
        }
    }

    #[test]
    #[cfg(feature = "write")]
    fn a_record_reads_back_what_was_written() {
        let outside = Outside {
            before: Beyond::Loop {
                period: 2.5,
                offset: [1.0, -2.0, 0.0, 0.0],
            },
            after: line(3.0, -0.25),
        };
        let mut bytes = alloc::vec::Vec::new();
        outside.append_to(&mut bytes);
        assert_eq!(bytes.len(), OUTSIDE_RECORD_SIZE);
        assert_eq!(Outside::read(&bytes, 0), outside);
        assert!(check(&bytes, 0, 0, (0.0, 10.0), 2).is_ok());
        // A component the track does not have must be 0.
        assert!(check(&bytes, 0, 0, (0.0, 10.0), 1).is_err());
        // A period longer than the track.
        assert!(check(&bytes, 0, 0, (0.0, 2.0), 2).is_err());
    }

    #[test]
    fn powers_of_two_are_the_documented_limits() {
        assert_eq!(MAX_LINE_VALUE, crate::math::powi(2.0, 1000));
        assert_eq!(MAX_OUTSIDE_RATE, crate::math::powi(2.0, 900));
        assert_eq!(LINE_REACH, crate::math::powi(2.0, 53));
    }

    #[test]
    fn lines_and_loop_offsets_stay_finite_at_extreme_frames() {
        let outside = Outside {
            before: Beyond::Loop {
                period: 1e-300,
                offset: [MAX_OUTSIDE_RATE, 0.0, 0.0, 0.0],
            },
            after: line(MAX_LINE_VALUE, MAX_OUTSIDE_RATE),
        };
        for f in [-f64::MAX, -1e300, -1e20, f64::MAX, 1e300] {
            match outside.land(f, 0.0, 1.0) {
                Landing::Line { value, .. } => assert!(value[0].is_finite(), "{f}"),
                Landing::Wrapped { extra, w, .. } => {
                    assert!(extra[0].is_finite() && (0.0..=1.0).contains(&w), "{f}");
                    assert_eq!(extra[0], -MAX_OFFSET_CYCLES * MAX_OUTSIDE_RATE);
                }
                Landing::Hold => panic!("no hold side"),
            }
        }
    }

    #[test]
    fn loops_count_cycles_away_from_the_track() {
        // Keys over [0, 10]; after the track the window is its last 4 frames [6, 10].
        let outside = Outside {
            before: Beyond::Loop {
                period: 10.0,
                offset: [2.0, 0.0, 0.0, 0.0],
            },
            after: Beyond::Loop {
                period: 4.0,
                offset: [1.0, 0.0, 0.0, 0.0],
            },
        };
        let wrapped = |f: f64| match outside.land(f, 0.0, 10.0) {
            Landing::Wrapped { w, extra, .. } => (w, extra[0]),
            other => panic!("{other:?}"),
        };
        assert_eq!(wrapped(11.0), (7.0, 1.0));
        assert_eq!(wrapped(14.5), (6.5, 2.0));
        assert_eq!(wrapped(-3.0), (7.0, -2.0));
        assert_eq!(wrapped(-10.5), (9.5, -4.0));
        let mirror = Outside {
            before: Beyond::Hold,
            after: Beyond::PingPong { period: 10.0 },
        };
        // The first cycle after the track is played backward: 12 plays 8.
        assert_eq!(
            mirror.land(12.0, 0.0, 10.0),
            Landing::Wrapped {
                w: 8.0,
                fold: 1.0,
                mirrored: true,
                extra: [0.0; 4]
            }
        );
    }
}
