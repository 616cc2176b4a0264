//! Documents: a frame rate and named tracks, validated together.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{DocumentError, ErrorKind, Location};
use crate::math;
use crate::track::{Track, TrackBuilder, DEFAULT_FPS};

/// A validated animation document: frames per second and one or more uniquely named tracks.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    fps: f64,
    tracks: Vec<Track>,
}

impl Document {
    /// Starts a document at `fps` frames per second.
    #[must_use]
    pub fn builder() -> DocumentBuilder {
        DocumentBuilder {
            fps: DEFAULT_FPS,
            tracks: Vec::new(),
        }
    }

    /// Frames per second.
    #[must_use]
    pub fn fps(&self) -> f64 {
        self.fps
    }

    /// The tracks in document order.
    #[must_use]
    pub fn tracks(&self) -> &[Track] {
        &self.tracks
    }

    /// The track called `name`.
    #[must_use]
    pub fn track(&self, name: &str) -> Option<&Track> {
        self.tracks.iter().find(|t| t.name() == name)
    }

    /// The integer frames `sample` prints by default: from ⌈earliest first key⌉ to
    /// ⌊latest last key⌋, both included. `None` when that range is empty — or beyond i64;
    /// [`Document::sample_range`] tells those apart and refuses ranges it cannot sample.
    #[must_use]
    pub fn frame_range(&self) -> Option<(i64, i64)> {
        let first = self
            .tracks
            .iter()
            .map(Track::first_frame)
            .fold(f64::INFINITY, f64::min);
        let last = self
            .tracks
            .iter()
            .map(Track::last_frame)
            .fold(f64::NEG_INFINITY, f64::max);
        let from = math::ceil(first);
        let to = math::floor(last);
        if from > to
            || from.is_nan()
            || to.is_nan()
            || from < i64::MIN as f64
            || to > i64::MAX as f64
        {
            return None;
        }
        Some((from as i64, to as i64))
    }

    /// The total number of value columns (components summed over tracks).
    #[must_use]
    pub fn columns(&self) -> usize {
        self.tracks.iter().map(Track::components).sum()
    }
}

/// Builds a [`Document`] in code.
#[derive(Clone, Debug)]
pub struct DocumentBuilder {
    fps: f64,
    tracks: Vec<TrackBuilder>,
}

impl DocumentBuilder {
    /// Frames per second (default 60).
    #[must_use]
    pub fn fps(mut self, fps: f64) -> Self {
        self.fps = fps;
        self
    }

    /// Adds a track.
    #[must_use]
    pub fn track(mut self, track: TrackBuilder) -> Self {
        self.tracks.push(track);
        self
    }

    /// Validates every track and the document rules (positive fps, one or more tracks, unique
    /// names).
    pub fn build(self) -> Result<Document, DocumentError> {
        build_document(self.fps, self.tracks)
    }
}

pub(crate) fn build_document(fps: f64, raw: Vec<TrackBuilder>) -> Result<Document, DocumentError> {
    if !(fps.is_finite() && fps > 0.0) {
        return Err(DocumentError::new(
            Location::top("fps"),
            ErrorKind::Invalid {
                expected: "a positive number".into(),
                found: alloc::format!("{fps}"),
            },
        ));
    }
    if raw.is_empty() {
        return Err(DocumentError::new(
            Location::top("tracks"),
            ErrorKind::NoTracks,
        ));
    }
    crate::validate::check_track_count(raw.len())?;
    let mut tracks: Vec<Track> = Vec::with_capacity(raw.len());
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    for (index, builder) in raw.into_iter().enumerate() {
        let loc = Location {
            track_index: Some(index),
            track_name: Some(builder.name.clone()),
            ..Location::default()
        };
        if let Some(first) = names.get(&builder.name) {
            return Err(DocumentError::new(
                loc.with_field("name"),
                ErrorKind::DuplicateTrackName {
                    name: builder.name.clone(),
                    first: *first,
                },
            ));
        }
        names.insert(builder.name.clone(), index);
        tracks.push(builder.fps(fps).build_at(&loc)?);
    }
    Ok(Document { fps, tracks })
}
