//! Errors of loading and validating documents, each with the place it refers to.

use alloc::string::String;
use core::fmt;

use crate::ease::EaseError;
use crate::expr::ExprError;

/// Where in a document a problem is: the track, the key and the field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// Index of the track in the document's `tracks` array.
    pub track_index: Option<usize>,
    /// The track's name, when it has one.
    pub track_name: Option<String>,
    /// Index of the key in the track's `keys` array.
    pub key: Option<usize>,
    /// The field, as a path inside the document, track or key (`value`, `interp.hermite.out`,
    /// `tcb[1]`, `fps`).
    pub field: Option<String>,
}

impl Location {
    /// The document itself.
    #[must_use]
    pub fn document() -> Location {
        Location::default()
    }

    /// A top-level field.
    #[must_use]
    pub fn top(field: &str) -> Location {
        Location {
            field: Some(field.into()),
            ..Location::default()
        }
    }

    /// The same place with `field` set.
    #[must_use]
    pub fn with_field(&self, field: impl Into<String>) -> Location {
        Location {
            field: Some(field.into()),
            ..self.clone()
        }
    }

    /// The same track with `key` set and no field.
    #[must_use]
    pub fn with_key(&self, key: usize) -> Location {
        Location {
            key: Some(key),
            field: None,
            ..self.clone()
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = 0;
        let mut sep = |f: &mut fmt::Formatter<'_>| {
            parts += 1;
            if parts > 1 {
                f.write_str(", ")
            } else {
                Ok(())
            }
        };
        match (&self.track_name, self.track_index) {
            (Some(name), Some(i)) => {
                sep(f)?;
                write!(f, "track \"{}\" (#{i})", shown(name))?;
            }
            (Some(name), None) => {
                sep(f)?;
                write!(f, "track \"{}\"", shown(name))?;
            }
            (None, Some(i)) => {
                sep(f)?;
                write!(f, "track #{i}")?;
            }
            (None, None) => {}
        }
        if let Some(k) = self.key {
            sep(f)?;
            write!(f, "key {k}")?;
        }
        if let Some(field) = &self.field {
            sep(f)?;
            write!(f, "field \"{field}\"")?;
        }
        if parts == 0 {
            f.write_str("document")?;
        }
        Ok(())
    }
}

/// A document that breaks the format: where, and what was wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{location}: {kind}")]
pub struct DocumentError {
    /// The track, key and field (boxed to keep `Result`s small).
    pub location: alloc::boxed::Box<Location>,
    /// What was expected and what was found.
    pub kind: ErrorKind,
}

impl DocumentError {
    /// An error at `location`.
    #[must_use]
    pub fn new(location: Location, kind: ErrorKind) -> DocumentError {
        DocumentError {
            location: alloc::boxed::Box::new(location),
            kind,
        }
    }
}

/// What was wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    /// The JSON text itself is malformed.
    #[error("JSON syntax error at line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the JSON parser said.
        message: String,
    },
    /// The `inbetween` version field is not 1.
    #[error("unsupported format version {found}; this engine reads version 1")]
    UnsupportedVersion {
        /// The version found, as written.
        found: String,
    },
    /// A required field is absent.
    #[error("missing; expected {expected}")]
    Missing {
        /// What should be there.
        expected: &'static str,
    },
    /// A field holds the wrong kind of JSON value or an invalid value.
    #[error("expected {expected}, found {found}")]
    Invalid {
        /// What is allowed.
        expected: String,
        /// What is there.
        found: String,
    },
    /// A name (of a type, wrap, path, interp, ease or jump) that is not allowed but is near an
    /// allowed one.
    #[error("expected {expected}, found {found}; did you mean \"{suggestion}\"?")]
    UnknownName {
        /// What is allowed.
        expected: String,
        /// What is there (`the string "vec5"`, `the key "hermit"`).
        found: String,
        /// The nearest allowed name (`lint::nearest_name`).
        suggestion: &'static str,
    },
    /// An object holds the same key twice (positions are 1-based; columns count bytes).
    #[error("duplicate key \"{}\" at line {line}, column {column}; first at line {first_line}, column {first_column}", shown(key))]
    DuplicateKey {
        /// The key, unescaped.
        key: String,
        /// Line of the first occurrence.
        first_line: usize,
        /// Column of the first occurrence.
        first_column: usize,
        /// Line of the repetition.
        line: usize,
        /// Column of the repetition.
        column: usize,
    },
    /// The document has no tracks.
    #[error("expected one or more tracks, found none")]
    NoTracks,
    /// Two tracks share a name.
    #[error(
        "duplicate track name \"{}\" (first used by track #{first})",
        shown(name)
    )]
    DuplicateTrackName {
        /// The repeated name.
        name: String,
        /// Index of the track that used it first.
        first: usize,
    },
    /// A track has no keys.
    #[error("expected at least one key, found none")]
    NoKeys,
    /// More tracks than [`crate::track::MAX_TRACKS`].
    #[error("{found} tracks, more than the limit of {max} tracks per document (docs/limits.md)")]
    TooManyTracks {
        /// Tracks in the document.
        found: usize,
        /// The limit.
        max: usize,
    },
    /// More keys than [`crate::track::MAX_KEYS_PER_TRACK`].
    #[error("{found} keys, more than the limit of {max} keys per track (docs/limits.md)")]
    TooManyKeys {
        /// Keys in the track.
        found: usize,
        /// The limit.
        max: usize,
    },
    /// Key frames are not strictly increasing.
    #[error("key frames must increase strictly: expected a frame greater than {previous}, found {found}")]
    UnsortedKeys {
        /// The previous key's frame.
        previous: f64,
        /// This key's frame.
        found: f64,
    },
    /// The keys span more frames than [`crate::track::MAX_KEY_SPAN`].
    #[error("the keys span from frame {first:e} to frame {last:e}, more than the limit of {max:e} frames (docs/limits.md): the span and the ping-pong period must stay finite")]
    SpanTooLarge {
        /// The first key's frame.
        first: f64,
        /// The last key's frame.
        last: f64,
        /// The limit.
        max: f64,
    },
    /// A segment kind needs more keys than the track has.
    #[error("{kind} needs at least {needed} keys, the track has {got}")]
    TooFewKeys {
        /// The segment kind.
        kind: &'static str,
        /// Keys needed.
        needed: usize,
        /// Keys present.
        got: usize,
    },
    /// A quaternion of length zero cannot be normalized.
    #[error("a quaternion of length zero cannot be normalized; expected a non-zero quaternion")]
    ZeroQuaternion,
    /// `path: arclength` on a type that draws no spatial curve.
    #[error("path \"arclength\" needs a vec2 or vec3 track, found a {found} track")]
    ArclengthType {
        /// The track's type.
        found: &'static str,
    },
    /// A track `ease` without `path: arclength`.
    #[error("a track ease is only allowed with \"path\": \"arclength\"; found path \"keys\"")]
    TrackEaseWithoutArclength,
    /// The curve's arc length could not be measured to the required accuracy.
    #[error("arc length: {0}")]
    ArcLength(crate::arclength::ArcLengthError),
    /// An ease that is malformed.
    #[error("{0}")]
    Ease(#[from] EaseError),
    /// An expression that does not parse. The message shows at most [`EXCERPT_CHARS`]
    /// characters of the expression around the error, with `…` where it is cut.
    #[error("expression \"{}\" {error}", excerpt(source_text, error.offset, EXCERPT_CHARS).0)]
    Expr {
        /// The expression text.
        source_text: String,
        /// Where and why parsing failed.
        error: ExprError,
    },
}

/// How many characters of a long expression (or JSON line) a message shows around the error.
pub const EXCERPT_CHARS: usize = 60;

/// At most `width` characters of `text` around byte `offset` (clamped to the text, moved back to
/// a character boundary), with `…` added at each end that is cut; and the position, in
/// characters of the returned string, of the character at `offset` (for a caret under it).
/// The window holds about `width / 2` characters before the offset and the rest after it.
#[must_use]
pub fn excerpt(text: &str, offset: usize, width: usize) -> (String, usize) {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let (before, after) = text.split_at(at);
    let before_count = before.chars().count();
    let after_count = after.chars().count();
    let keep_before = before_count
        .min(width / 2)
        .max(width.saturating_sub(after_count));
    let keep_before = keep_before.min(before_count);
    let keep_after = width.saturating_sub(keep_before).min(after_count);
    let mut out = String::new();
    let cut_before = keep_before < before_count;
    if cut_before {
        out.push('…');
    }
    out.extend(before.chars().skip(before_count - keep_before));
    out.extend(after.chars().take(keep_after));
    if keep_after < after_count {
        out.push('…');
    }
    (out, keep_before + usize::from(cut_before))
}

/// A name (of a track or key) as messages show it: at most [`EXCERPT_CHARS`] characters, `…`
/// after a longer one.
fn shown(name: &str) -> String {
    excerpt(name, 0, EXCERPT_CHARS).0
}

/// An error with the file it came from.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{file}: {error}")]
pub struct LoadError {
    /// The file name as the user gave it.
    pub file: String,
    /// The problem.
    pub error: DocumentError,
}

/// An evaluation whose result is not finite (an expression such as `ln(u)` at u = 0), or an
/// expression track sampled where it has no value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "track \"{}\", key {key}, field \"interp.expr\": the value at frame {frame} is not finite ({found})",
    shown(track)
)]
pub struct EvalError {
    /// The track's name.
    pub track: String,
    /// The key whose segment produced it.
    pub key: usize,
    /// The frame evaluated.
    pub frame: f64,
    /// The value found, formatted.
    pub found: String,
}
