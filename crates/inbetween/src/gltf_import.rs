//! glTF 2.0 animation import: every channel of the chosen animations becomes one validated track.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use gltf::accessor::{DataType, Dimensions};
use gltf::animation::{Interpolation, Property};
use gltf::json::validation::Validate;

use crate::document::Document;
use crate::error::DocumentError;
use crate::track::{Interp, Track, TrackBuilder};

mod pointer;
mod uri;

pub use crate::gltf_scene::{GltfScene, RecordedAnimation, RecordedTrack, TrackTarget};
pub use pointer::{
    escape as escape_pointer_token, unescape as unescape_pointer_token, EXTRAS_PREFIX,
};
pub use uri::BufferProblem;
use uri::UriPolicy;

/// Frames per second used when [`ImportOptions`] does not say otherwise.
pub const DEFAULT_IMPORT_FPS: f64 = 60.0;

/// The most elements an accessor without a buffer view may declare (its zeros are allocated).
const MAX_VIEWLESS_COUNT: usize = 1 << 24;

/// The largest `byteLength` of a buffer an import loads: 1 GiB. Buffers are read whole, and a
/// URI may name a file that never ends (`/dev/zero`); a file is read up to its `byteLength`
/// only, so this bounds what one buffer can take.
pub const MAX_BUFFER_BYTES: usize = 1 << 30;

/// Extensions that change what buffer views hold; a file that requires one is refused.
const REFUSED_REQUIRED_EXTENSIONS: [&str; 2] =
    ["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// How to import.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportOptions {
    /// Frames per second of the document: a key at `t` seconds lands on frame `t · fps`
    /// (default [`DEFAULT_IMPORT_FPS`]).
    pub fps: f64,
    /// The animation to import; `None` imports all of them (names then get an `ANIMATION/`
    /// prefix when there is more than one).
    pub animation: Option<AnimationSelector>,
    /// Folders besides the model's own from which relative buffer URIs may read (default none).
    ///
    /// A buffer URI is read only when it is a `data:` URI or a relative path that stays inside
    /// the model's folder or one of these, as written and once symbolic links are resolved, and
    /// names a regular file; absolute paths and other schemes (`file:`, `http:`) are refused.
    /// See `docs/gltf.md`, "Which files an import reads".
    pub allowed_dirs: Vec<PathBuf>,
    /// The most bytes [`import_gltf_path`] reads of the glTF or GLB file itself (default
    /// [`DEFAULT_MAX_FILE_BYTES`]); a longer file is refused before it is parsed.
    pub max_file_bytes: u64,
    /// Snap key frames within `|frame| · 2^-21` ([`SNAP_RELATIVE`]) of a whole frame onto it
    /// (default true): glTF key times are f32 seconds, so `t · fps` of a key meant for frame 250
    /// reads 249.99999046325684 and the last pose would fall between frames.
    pub snap_to_frames: bool,
}

/// The default [`ImportOptions::max_file_bytes`]: 2 GiB, room for a GLB whose binary chunk holds
/// a buffer of [`MAX_BUFFER_BYTES`] and its JSON.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 2 << 30;

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            fps: DEFAULT_IMPORT_FPS,
            animation: None,
            allowed_dirs: Vec::new(),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            snap_to_frames: true,
        }
    }
}

/// Which animation of the file to import.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnimationSelector {
    /// By its index in the file's `animations` array.
    Index(usize),
    /// By its `name`; more than one animation with that name is an error.
    Name(String),
}

impl fmt::Display for AnimationSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnimationSelector::Index(i) => write!(f, "#{i}"),
            AnimationSelector::Name(n) => write!(f, "\"{n}\""),
        }
    }
}

/// An animation of the file: its index and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnimationRef {
    /// Index in the file's `animations` array.
    pub index: usize,
    /// Its `name`, when it has one.
    pub name: Option<String>,
}

impl fmt::Display for AnimationRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(n) => write!(f, "animation #{} \"{n}\"", self.index),
            None => write!(f, "animation #{}", self.index),
        }
    }
}

/// A channel of an animation and the sampler it uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelRef {
    /// The animation.
    pub animation: AnimationRef,
    /// Index in the animation's `channels` array.
    pub channel: usize,
    /// Index in the animation's `samplers` array.
    pub sampler: usize,
}

impl fmt::Display for ChannelRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, channel {} (sampler {})",
            self.animation, self.channel, self.sampler
        )
    }
}

/// What is wrong with an accessor's data.
#[derive(Clone, Debug, PartialEq)]
pub enum AccessorProblem {
    /// The accessor's type or component type is not allowed for its role.
    WrongType {
        /// What the role allows.
        expected: &'static str,
        /// What the accessor declares.
        found: String,
    },
    /// An element lies outside its buffer view, or a view outside its buffer.
    OutOfBounds {
        /// What was read (`element 3`, `sparse index 1`, `buffer view 2`).
        what: String,
        /// First byte past the data needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// A sparse index points past the accessor's `count`.
    SparseIndex {
        /// Position in the sparse arrays.
        entry: usize,
        /// The index found.
        index: u64,
        /// The accessor's `count`.
        count: usize,
    },
    /// A component is NaN or infinite.
    NotFinite {
        /// Element index.
        element: usize,
        /// Component within the element.
        component: usize,
        /// The value found.
        found: f64,
    },
    /// Key times do not increase strictly.
    NotIncreasing {
        /// Element index of the offending time.
        element: usize,
        /// The previous time (seconds).
        previous: f64,
        /// This time (seconds).
        found: f64,
    },
    /// The sampler input has no elements.
    Empty,
    /// An accessor without a buffer view declares more elements than an import accepts.
    TooLarge {
        /// The declared `count`.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// An input accessor holds more key times than a track may have keys
    /// ([`crate::track::MAX_KEYS_PER_TRACK`]).
    TooManyKeys {
        /// The declared `count`.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A rotation key of length zero.
    ZeroQuaternion {
        /// Element index.
        element: usize,
    },
}

impl fmt::Display for AccessorProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessorProblem::WrongType { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            AccessorProblem::OutOfBounds {
                what,
                needed,
                available,
            } => write!(
                f,
                "{what} is out of range: needs {needed} bytes, {available} available"
            ),
            AccessorProblem::SparseIndex {
                entry,
                index,
                count,
            } => write!(
                f,
                "sparse entry {entry} has index {index}, expected an index below count {count}"
            ),
            AccessorProblem::NotFinite {
                element,
                component,
                found,
            } => write!(
                f,
                "element {element}, component {component} is {found}; expected a finite number"
            ),
            AccessorProblem::NotIncreasing {
                element,
                previous,
                found,
            } => write!(
                f,
                "times must increase strictly: element {element} is {found} s after {previous} s"
            ),
            AccessorProblem::Empty => f.write_str("expected one or more key times, found none"),
            AccessorProblem::TooLarge { count, limit } => write!(
                f,
                "count {count} without a buffer view; expected at most {limit} elements"
            ),
            AccessorProblem::TooManyKeys { count, limit } => write!(
                f,
                "count {count} key times; expected at most {limit}, the limit of keys per track"
            ),
            AccessorProblem::ZeroQuaternion { element } => write!(
                f,
                "element {element} is a rotation of length zero; expected a non-zero quaternion"
            ),
        }
    }
}

/// Why a glTF file could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum GltfImportError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is longer than [`ImportOptions::max_file_bytes`].
    #[error("{} is larger than the limit of {limit} bytes for a glTF file", path.display())]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        limit: u64,
    },
    /// The bytes are not glTF JSON or GLB.
    #[error("not a glTF 2.0 file: {0}")]
    Parse(#[source] gltf::Error),
    /// The GLB container is malformed.
    #[error("malformed GLB: {0}")]
    Glb(String),
    /// The glTF breaks the specification (an index out of range, a bad enum value, ...).
    #[error("invalid glTF: {}", problems.join("; "))]
    Invalid {
        /// Each problem as `JSON path: what`.
        problems: Vec<String>,
    },
    /// `fps` is not a positive finite number.
    #[error("fps must be a positive finite number, found {0}")]
    Fps(f64),
    /// The file requires an extension that changes buffer data.
    #[error("the file requires extension {0}, which inbetween cannot decode")]
    UnsupportedExtension(String),
    /// The file has no animations.
    #[error("the file has no animations")]
    NoAnimations,
    /// The selected animation does not exist.
    #[error("animation {selector} not found; the file has {available}")]
    AnimationNotFound {
        /// What was asked for.
        selector: AnimationSelector,
        /// The animations there are, as `#0 "name", #1, ...`.
        available: String,
    },
    /// Several animations carry the selected name.
    #[error(
        "animation name \"{name}\" is ambiguous: animations {indices:?} carry it; select by index"
    )]
    AmbiguousAnimation {
        /// The name.
        name: String,
        /// The animations that carry it.
        indices: Vec<usize>,
    },
    /// The selected animations have no channels.
    #[error("{0} has no channels")]
    NoChannels(AnimationRef),
    /// A buffer an animation needs cannot be loaded.
    #[error("buffer {buffer}{} (read by accessor {accessor} of {channel}): {reason}", uri.as_ref().map(|u| format!(" \"{u}\"")).unwrap_or_default())]
    Buffer {
        /// The buffer index.
        buffer: usize,
        /// Its URI, when it has one (data URIs are shortened).
        uri: Option<String>,
        /// The first channel that needs it.
        channel: ChannelRef,
        /// The accessor that reads it.
        accessor: usize,
        /// What went wrong, and the rule it broke (boxed: it can hold two paths).
        reason: Box<BufferProblem>,
    },
    /// An accessor a sampler reads is malformed.
    #[error("{channel}, {role} accessor {accessor}: {problem}")]
    Accessor {
        /// The channel.
        channel: ChannelRef,
        /// `input` (key times) or `output` (key values).
        role: &'static str,
        /// The accessor index.
        accessor: usize,
        /// What is wrong.
        problem: AccessorProblem,
    },
    /// The output count does not fit the input count.
    #[error("{channel}: output accessor {output} has {found} elements, expected {expected} for {keys} keys (input accessor {input})")]
    CountMismatch {
        /// The channel.
        channel: ChannelRef,
        /// Input accessor index.
        input: usize,
        /// Output accessor index.
        output: usize,
        /// Number of keys (input count).
        keys: usize,
        /// What the output should hold.
        expected: String,
        /// What it holds.
        found: usize,
    },
    /// Two channels of one animation drive the same node property (glTF forbids it).
    #[error("{channel} targets \"{track}\", already targeted by channel {first}")]
    DuplicateTarget {
        /// The second channel.
        channel: ChannelRef,
        /// The track name.
        track: String,
        /// The first channel.
        first: usize,
    },
    /// A buffer of a model that `export --onto` writes into cannot be loaded.
    #[error("buffer {buffer}{} of the model: {reason}", uri.as_ref().map(|u| format!(" \"{u}\"")).unwrap_or_default())]
    ModelBuffer {
        /// The buffer index.
        buffer: usize,
        /// Its URI, when it has one (shortened).
        uri: Option<String>,
        /// What went wrong, and the rule it broke.
        reason: Box<BufferProblem>,
    },
    /// The tracks built from the file break a document rule.
    #[error("the imported document is invalid: {0}")]
    Document(#[from] DocumentError),
}

/// Imports the animations of a `.gltf` (with `.bin` side files or `data:` URIs) or `.glb` file.
///
/// Relative buffer URIs resolve against the file's folder and may not leave it (nor the
/// folders of [`ImportOptions::allowed_dirs`]); see [`BufferProblem`] for every rule.
///
/// # Errors
///
/// [`GltfImportError::Io`] when the file cannot be read, [`GltfImportError::FileTooLarge`] past
/// [`ImportOptions::max_file_bytes`], otherwise as [`import_gltf_slice`].
pub fn import_gltf_path(path: &Path, options: &ImportOptions) -> Result<Document, GltfImportError> {
    import_gltf_path_with_scene(path, options).map(|import| import.document)
}

/// A whole glTF model, for `export --onto`: its JSON (pointer channels included) and every
/// buffer's bytes (read under the same rules as an import's buffers).
#[derive(Clone, Debug)]
pub struct GltfModel {
    /// The glTF JSON.
    pub root: serde_json::Value,
    /// Each buffer's bytes, exactly its `byteLength`.
    pub buffers: Vec<Vec<u8>>,
}

/// Loads a `.gltf` or `.glb` model whole: its JSON, checked as an import checks it, and every
/// buffer (relative URIs confined to its folder and [`ImportOptions::allowed_dirs`], as for an
/// import). Images are not read.
///
/// # Errors
/// As [`import_gltf_path`] for the file and its JSON; [`GltfImportError::ModelBuffer`] for a
/// buffer that cannot be loaded.
pub fn load_gltf_model(path: &Path, options: &ImportOptions) -> Result<GltfModel, GltfImportError> {
    let (bytes, base) = read_model(path, options)?;
    check_glb_header(&bytes)?;
    let parsed = pointer::parse(&bytes)?;
    validate(&parsed.gltf.document)?;
    let doc = &parsed.gltf.document;
    let policy = UriPolicy {
        base,
        allowed: &options.allowed_dirs,
    };
    let loader = Buffers::new(doc, parsed.gltf.blob.as_deref(), policy);
    let mut buffers = Vec::new();
    for buffer in doc.buffers() {
        let uri = match buffer.source() {
            gltf::buffer::Source::Uri(u) => Some(u),
            gltf::buffer::Source::Bin => None,
        };
        let mut data = loader
            .load_buffer(buffer.index(), uri, buffer.length())
            .map_err(|reason| GltfImportError::ModelBuffer {
                buffer: buffer.index(),
                uri: uri.map(shorten),
                reason: Box::new(reason),
            })?;
        data.truncate(buffer.length());
        buffers.push(data);
    }
    Ok(GltfModel {
        root: parsed.root,
        buffers,
    })
}

/// The model file's bytes (at most [`ImportOptions::max_file_bytes`]) and its folder, against
/// which relative buffer URIs resolve.
fn read_model<'p>(
    path: &'p Path,
    options: &ImportOptions,
) -> Result<(Vec<u8>, Option<&'p Path>), GltfImportError> {
    let io = |source| GltfImportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, options.max_file_bytes.saturating_add(1)),
        &mut bytes,
    )
    .map_err(io)?;
    if bytes.len() as u64 > options.max_file_bytes {
        return Err(GltfImportError::FileTooLarge {
            path: path.to_path_buf(),
            limit: options.max_file_bytes,
        });
    }
    let base = path.parent().map(|p| {
        if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }
    });
    Ok((bytes, base))
}

/// Imports the animations of glTF JSON or GLB bytes; relative buffer URIs resolve against
/// `base_dir` (without one, only `data:` URIs and the GLB binary chunk can be read).
///
/// The mapping follows the glTF 2.0 specification, §3.11 "Animations" and Appendix C "Animation
/// Sampler Interpolation Modes" (<https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html>):
///
/// - one track per channel, named `NODE/PATH` (the node's name, or its index when it has none or
///   shares its name with another node, then `NAME#INDEX`), PATH = `translation` | `rotation` |
///   `scale`; morph weights become one scalar track per target, `NODE/weights/TARGET`; a
///   `KHR_animation_pointer` channel one track named after its pointer (`docs/gltf.md`);
/// - when more than one animation is imported, every name is prefixed `ANIMATION/` (the
///   animation's name, its index when it has none, `NAME#INDEX` when the name is shared);
/// - a key at time `t` seconds lands on frame `t · fps` (fractional, never rounded);
/// - `STEP` → `step`, `LINEAR` → `linear` (shortest-arc slerp on rotations, as Appendix C asks),
///   `CUBICSPLINE` → `hermite` with slopes per frame `out = b_k / fps`, `in = a_{k+1} / fps`:
///   glTF scales its tangents by the key interval in seconds `Δt`, our hermite scales slopes per
///   frame by the interval in frames `N = Δt · fps`, so `b_k · Δt = (b_k / fps) · N`.
///
/// Accessors are decoded here, not by the `gltf` crate's reader, so that every malformed file is
/// refused with a typed error instead of a panic: float or normalized-integer components
/// (§3.11: `i8: max(c / 127, −1)`, `u8: c / 255`, `i16: max(c / 32767, −1)`,
/// `u16: c / 65535`), byte strides, and sparse substitution are handled. Buffers are loaded only
/// when an imported animation reads them; images are never loaded, so a missing texture does not
/// matter, and unknown extensions (used or required) are ignored except those that compress
/// buffer views (`EXT_meshopt_compression`, `KHR_meshopt_compression`), which are refused.
/// See `docs/gltf.md`.
///
/// # Errors
///
/// A [`GltfImportError`] naming the animation, channel, sampler and accessor where it can:
/// unparsable or invalid glTF, no (or no such) animation, an unreadable buffer, an accessor of
/// the wrong type, out of range, with non-finite numbers or non-increasing times, an output count
/// that does not fit the input, a zero rotation key.
pub fn import_gltf_slice(
    bytes: &[u8],
    base_dir: Option<&Path>,
    options: &ImportOptions,
) -> Result<Document, GltfImportError> {
    import_gltf_slice_with_scene(bytes, base_dir, options).map(|import| import.document)
}

/// A document imported from glTF and the record of the source's nodes and animations it came
/// from ([`GltfScene`], written in the document as `"x-gltf"` by `inbetween import`).
#[derive(Clone, Debug)]
pub struct GltfImport {
    /// The imported tracks.
    pub document: Document,
    /// The source's nodes (names, parents, rest TRS), scenes, the imported animations and each
    /// track's origin.
    pub scene: GltfScene,
}

/// [`import_gltf_path`], with the record of the source's nodes and animations.
///
/// # Errors
/// As [`import_gltf_path`].
pub fn import_gltf_path_with_scene(
    path: &Path,
    options: &ImportOptions,
) -> Result<GltfImport, GltfImportError> {
    let (bytes, base) = read_model(path, options)?;
    import_gltf_slice_with_scene(&bytes, base, options)
}

/// [`import_gltf_slice`], with the record of the source's nodes and animations. Channels with a
/// `KHR_animation_pointer` target become tracks named after their pointer (see `docs/gltf.md`).
///
/// # Errors
/// As [`import_gltf_slice`].
pub fn import_gltf_slice_with_scene(
    bytes: &[u8],
    base_dir: Option<&Path>,
    options: &ImportOptions,
) -> Result<GltfImport, GltfImportError> {
    if !(options.fps.is_finite() && options.fps > 0.0) {
        return Err(GltfImportError::Fps(options.fps));
    }
    check_glb_header(bytes)?;
    let parsed = pointer::parse(bytes)?;
    validate(&parsed.gltf.document)?;
    let doc = &parsed.gltf.document;
    let animations: Vec<gltf::Animation<'_>> = doc.animations().collect();
    if animations.is_empty() {
        return Err(GltfImportError::NoAnimations);
    }
    let selected = select(&animations, options.animation.as_ref())?;
    let mut importer = Importer {
        options,
        parsed: &parsed,
        prefix: selected.len() > 1,
        node_labels: labels(doc.nodes().map(|n| n.name())),
        anim_labels: labels(animations.iter().map(gltf::Animation::name)),
        buffers: Buffers::new(
            doc,
            parsed.gltf.blob.as_deref(),
            UriPolicy {
                base: base_dir,
                allowed: &options.allowed_dirs,
            },
        ),
        used_names: BTreeSet::new(),
        tracks: Vec::new(),
        scene: GltfScene::from_gltf_root(&parsed.root),
    };
    for animation in &selected {
        importer.animation(animation)?;
    }
    let mut builder = Document::builder().fps(options.fps);
    for t in importer.tracks {
        builder = builder.track(t);
    }
    Ok(GltfImport {
        document: builder.build()?,
        scene: importer.scene,
    })
}

/// The state of one import: the tracks made so far, their names, and the record.
struct Importer<'a> {
    options: &'a ImportOptions,
    parsed: &'a pointer::Parsed,
    /// Whether track names get an `ANIMATION/` prefix (more than one animation imported).
    prefix: bool,
    node_labels: Vec<String>,
    anim_labels: Vec<String>,
    buffers: Buffers<'a>,
    used_names: BTreeSet<String>,
    tracks: Vec<TrackBuilder>,
    scene: GltfScene,
}

impl Importer<'_> {
    /// Imports every channel of `animation` (node channels, then pointer channels) and records
    /// the animation.
    fn animation(&mut self, animation: &gltf::Animation<'_>) -> Result<(), GltfImportError> {
        let anim_ref = AnimationRef {
            index: animation.index(),
            name: animation.name().map(String::from),
        };
        let record = self.scene.animations.len();
        self.scene.animations.push(RecordedAnimation {
            index: anim_ref.index,
            name: anim_ref.name.clone(),
        });
        let mut targets: BTreeMap<(usize, &'static str), usize> = BTreeMap::new();
        let mut any = false;
        for channel in animation.channels() {
            any = true;
            let cref = ChannelRef {
                animation: anim_ref.clone(),
                channel: self
                    .parsed
                    .channel_index(animation.index(), channel.index()),
                sampler: channel.sampler().index(),
            };
            let node = channel.target().node().index();
            let path = path_name(channel.target().property());
            let name = self.node_track_name(animation, node, path);
            // glTF 2.0 §3.11: two channels of one animation may not target the same node
            // property; compared by node index, never by the (made-up) track name.
            if let Some(first) = targets.insert((node, path), cref.channel) {
                return Err(GltfImportError::DuplicateTarget {
                    channel: cref,
                    track: name,
                    first,
                });
            }
            self.node_channel(&channel, &cref, &name, record)?;
        }
        for p in self
            .parsed
            .pointers
            .iter()
            .filter(|p| p.animation == animation.index())
        {
            any = true;
            self.pointer_channel(animation, p, &anim_ref, record)?;
        }
        if any {
            Ok(())
        } else {
            Err(GltfImportError::NoChannels(anim_ref))
        }
    }

    fn anim_label(&self, animation: &gltf::Animation<'_>) -> Option<String> {
        self.prefix
            .then(|| label_of(&self.anim_labels, animation.index()))
    }

    fn node_track_name(
        &mut self,
        animation: &gltf::Animation<'_>,
        node: usize,
        path: &str,
    ) -> String {
        let anim_label = self.anim_label(animation);
        unique_track_name(
            anim_label.as_deref(),
            &label_of(&self.node_labels, node),
            node,
            path,
            &mut self.used_names,
        )
    }

    /// The tracks of a node channel (one per morph target for weights), recorded.
    fn node_channel(
        &mut self,
        channel: &gltf::animation::Channel<'_>,
        cref: &ChannelRef,
        name: &str,
        record: usize,
    ) -> Result<(), GltfImportError> {
        let node = channel.target().node().index();
        let path = path_name(channel.target().property());
        let made = channel_tracks(
            channel,
            cref,
            name,
            &mut self.buffers,
            self.options.fps,
            self.options.snap_to_frames,
        )?;
        let weights = path == "weights";
        for (k, builder) in made.into_iter().enumerate() {
            self.scene.tracks.push(RecordedTrack {
                // `channel_tracks` names morph-target tracks `NAME/TARGET`.
                track: if weights {
                    format!("{name}/{k}")
                } else {
                    name.to_string()
                },
                animation: record,
                target: TrackTarget::Node {
                    node,
                    path: path.to_string(),
                    weight: weights.then_some(k),
                },
            });
            self.tracks.push(builder);
        }
        Ok(())
    }

    /// The track of a `KHR_animation_pointer` channel, named after its pointer, recorded.
    fn pointer_channel(
        &mut self,
        animation: &gltf::Animation<'_>,
        p: &pointer::PointerChannel,
        anim_ref: &AnimationRef,
        record: usize,
    ) -> Result<(), GltfImportError> {
        let Some(sampler) = animation.samplers().nth(p.sampler) else {
            return Err(GltfImportError::Invalid {
                problems: vec![format!(
                    "animations[{}].channels[{}].sampler: Index out of bounds",
                    p.animation, p.channel
                )],
            });
        };
        let cref = ChannelRef {
            animation: anim_ref.clone(),
            channel: p.channel,
            sampler: p.sampler,
        };
        let base = pointer::track_name(&p.pointer);
        let mut name = match self.anim_label(animation) {
            Some(a) => format!("{a}/{base}"),
            None => base,
        };
        while self.used_names.contains(&name) {
            name = format!("{name}#{}", p.channel);
        }
        self.used_names.insert(name.clone());
        let builder = pointer_track(
            &sampler,
            &cref,
            &p.pointer,
            &name,
            &mut self.buffers,
            self.options,
        )?;
        self.scene.tracks.push(RecordedTrack {
            track: name,
            animation: record,
            target: TrackTarget::Pointer(p.pointer.clone()),
        });
        self.tracks.push(builder);
        Ok(())
    }
}

/// One track from a pointer channel: its type from the output accessor (SCALAR, VEC2, VEC3,
/// VEC4) and the pointer ([`pointer::value_type`]).
fn pointer_track(
    sampler: &gltf::animation::Sampler<'_>,
    cref: &ChannelRef,
    pointer: &str,
    name: &str,
    buffers: &mut Buffers<'_>,
    options: &ImportOptions,
) -> Result<TrackBuilder, GltfImportError> {
    let output = sampler.output();
    let dims = output.dimensions();
    let role = Role::Pointer(dims);
    let width = role.width();
    let ty = pointer::value_type(pointer, width).ok_or_else(|| GltfImportError::Accessor {
        channel: cref.clone(),
        role: "output",
        accessor: output.index(),
        problem: AccessorProblem::WrongType {
            expected: role.expected(),
            found: dims_name(dims).to_string(),
        },
    })?;
    let (times, values) = read_channel(sampler, role, cref, buffers)?;
    targets_per_key(sampler, role, times.len(), values.len(), cref)?;
    let frames = key_frames(&times, options.fps, options.snap_to_frames);
    let layout = Layout {
        width,
        targets: 1,
        target: 0,
    };
    Ok(build_track(
        TrackBuilder::new(name, ty),
        &frames,
        &values,
        layout,
        sampler.interpolation(),
        options.fps,
    ))
}

impl GltfImportError {
    /// The rule a buffer broke, when this is a [`GltfImportError::Buffer`].
    #[must_use]
    pub fn buffer_problem(&self) -> Option<&BufferProblem> {
        match self {
            GltfImportError::Buffer { reason, .. } => Some(reason),
            _ => None,
        }
    }
}

/// The tracks of one channel: one for TRS, one per morph target for weights.
fn channel_tracks(
    channel: &gltf::animation::Channel<'_>,
    cref: &ChannelRef,
    name: &str,
    buffers: &mut Buffers<'_>,
    fps: f64,
    snap: bool,
) -> Result<Vec<TrackBuilder>, GltfImportError> {
    let sampler = channel.sampler();
    let role = Role::of(channel.target().property());
    let (times, values) = read_channel(&sampler, role, cref, buffers)?;
    let targets = targets_per_key(&sampler, role, times.len(), values.len(), cref)?;
    let interp = sampler.interpolation();
    let frames = key_frames(&times, fps, snap);
    let track = |builder: TrackBuilder, layout: Layout| {
        build_track(builder, &frames, &values, layout, interp, fps)
    };
    Ok(match role {
        Role::Weights => (0..targets)
            .map(|target| {
                track(
                    Track::scalar(format!("{name}/{target}")),
                    Layout {
                        width: 1,
                        targets,
                        target,
                    },
                )
            })
            .collect(),
        _ => {
            let builder = if role == Role::Rotation {
                Track::quat(name)
            } else {
                Track::vec3(name)
            };
            let layout = Layout {
                width: role.width(),
                targets: 1,
                target: 0,
            };
            vec![track(builder, layout)]
        }
    })
}

/// A channel's key times and output values, decoded and checked (key count, finite numbers,
/// non-zero rotations), each failure naming the channel, accessor and its role.
fn read_channel(
    sampler: &gltf::animation::Sampler<'_>,
    role: Role,
    cref: &ChannelRef,
    buffers: &mut Buffers<'_>,
) -> Result<(Vec<f64>, Vec<f64>), GltfImportError> {
    let (input, output) = (sampler.input(), sampler.output());
    let problem_at = |role: &'static str, accessor: usize| {
        move |problem| GltfImportError::Accessor {
            channel: cref.clone(),
            role,
            accessor,
            problem,
        }
    };
    if input.count() > crate::track::MAX_KEYS_PER_TRACK {
        return Err(problem_at("input", input.index())(
            AccessorProblem::TooManyKeys {
                count: input.count(),
                limit: crate::track::MAX_KEYS_PER_TRACK,
            },
        ));
    }
    buffers.load_for(&input, cref)?;
    buffers.load_for(&output, cref)?;
    let times = read_times(&input, buffers).map_err(problem_at("input", input.index()))?;
    let values =
        read_accessor(&output, buffers, role).map_err(problem_at("output", output.index()))?;
    if role == Role::Rotation {
        let per_key = if sampler.interpolation() == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        check_rotations(&values, per_key).map_err(problem_at("output", output.index()))?;
    }
    Ok((times, values))
}

/// Morph targets per key (1 for transforms), from the output's element count: it must be keys
/// × (3 for cubic spline, else 1) × targets.
fn targets_per_key(
    sampler: &gltf::animation::Sampler<'_>,
    role: Role,
    keys: usize,
    numbers: usize,
    cref: &ChannelRef,
) -> Result<usize, GltfImportError> {
    let cubic = sampler.interpolation() == Interpolation::CubicSpline;
    let per_key = if cubic { 3 } else { 1 };
    let elements = numbers / role.width();
    let targets = if role == Role::Weights {
        elements / (keys * per_key).max(1)
    } else {
        1
    };
    if targets != 0 && elements == keys * per_key * targets {
        return Ok(targets);
    }
    let expected = match (role, cubic) {
        (Role::Weights, true) => {
            format!("3 × {keys} × targets (in-tangent, value, out-tangent per target and key)")
        }
        (Role::Weights, false) => format!("{keys} × targets"),
        (_, true) => format!("{} (in-tangent, value, out-tangent per key)", 3 * keys),
        (_, false) => format!("{keys}"),
    };
    Err(GltfImportError::CountMismatch {
        channel: cref.clone(),
        input: sampler.input().index(),
        output: sampler.output().index(),
        keys,
        expected,
        found: elements,
    })
}

/// A GLB header whose declared length is shorter than the header itself (the `gltf` crate
/// would subtract past zero there).
fn check_glb_header(bytes: &[u8]) -> Result<(), GltfImportError> {
    if let Some(rest) = bytes.strip_prefix(b"glTF") {
        let length = match rest.get(4..8) {
            Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
            _ => {
                return Err(GltfImportError::Glb(
                    "the 12-byte header is cut short".into(),
                ))
            }
        };
        if length < 12 {
            return Err(GltfImportError::Glb(format!(
                "the header declares {length} bytes, fewer than the 12-byte header itself"
            )));
        }
    }
    Ok(())
}

/// Runs the `gltf` crate's index and enum checks (so that no wrapper can panic later), ignoring
/// unknown required extensions except those that change buffer data.
fn validate(doc: &gltf::Document) -> Result<(), GltfImportError> {
    let root = doc.as_json();
    for ext in &root.extensions_required {
        if REFUSED_REQUIRED_EXTENSIONS.contains(&ext.as_str()) {
            return Err(GltfImportError::UnsupportedExtension(ext.clone()));
        }
    }
    let mut problems = Vec::new();
    // gltf-json 1.4.1 indexes `accessors` with a primitive's POSITION attribute inside its
    // validation (mesh.rs, `primitive_validate_hook`) before checking the index: out of range,
    // it panics. Found by fuzzing (tests/fuzz_regressions/gltf/); checked here first.
    let positions = gltf::json::validation::Checked::Valid(gltf::json::mesh::Semantic::Positions);
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            if let Some(index) = primitive.attributes.get(&positions) {
                if index.value() >= root.accessors.len() {
                    problems.push(format!(
                        "meshes[{m}].primitives[{p}].attributes.POSITION: Index out of range"
                    ));
                }
            }
        }
    }
    if !problems.is_empty() {
        return Err(GltfImportError::Invalid { problems });
    }
    // gltf-json 1.4.1 does not validate channel targets (`Animation::validate` checks only the
    // sampler index), so an out-of-range target node or an unknown path reached the `gltf`
    // crate's `unwrap`s in `Target::node` and `Target::property`. Found by fuzzing.
    for (a, animation) in root.animations.iter().enumerate() {
        for (c, channel) in animation.channels.iter().enumerate() {
            let path = || {
                gltf::json::Path::new()
                    .field("animations")
                    .index(a)
                    .field("channels")
                    .index(c)
                    .field("target")
            };
            channel.target.validate(root, path, &mut |path, error| {
                problems.push(format!("{}: {error}", path()));
            });
        }
    }
    root.validate(root, gltf::json::Path::new, &mut |path, error| {
        let path = path().to_string();
        if !path.starts_with("extensionsRequired") {
            problems.push(format!("{path}: {error}"));
        }
    });
    if problems.is_empty() {
        Ok(())
    } else {
        Err(GltfImportError::Invalid { problems })
    }
}

fn select<'a>(
    animations: &[gltf::Animation<'a>],
    selector: Option<&AnimationSelector>,
) -> Result<Vec<gltf::Animation<'a>>, GltfImportError> {
    let not_found = |selector: &AnimationSelector| GltfImportError::AnimationNotFound {
        selector: selector.clone(),
        available: list_animations(animations),
    };
    match selector {
        None => Ok(animations.to_vec()),
        Some(sel @ AnimationSelector::Index(i)) => animations
            .get(*i)
            .map(|a| vec![a.clone()])
            .ok_or_else(|| not_found(sel)),
        Some(sel @ AnimationSelector::Name(name)) => {
            let found: Vec<_> = animations
                .iter()
                .filter(|a| a.name() == Some(name.as_str()))
                .collect();
            match found.as_slice() {
                [] => Err(not_found(sel)),
                [one] => Ok(vec![(*one).clone()]),
                many => Err(GltfImportError::AmbiguousAnimation {
                    name: name.clone(),
                    indices: many.iter().map(|a| a.index()).collect(),
                }),
            }
        }
    }
}

/// The animations of a file as an error lists them: `#0 "walk", #1, …`, the first
/// [`LISTED_ANIMATIONS`] and then how many more (a file may hold thousands).
fn list_animations(animations: &[gltf::Animation<'_>]) -> String {
    let mut listed: Vec<String> = animations
        .iter()
        .take(LISTED_ANIMATIONS)
        .map(|a| match a.name() {
            Some(n) => format!("#{} \"{}\"", a.index(), shorten(n)),
            None => format!("#{}", a.index()),
        })
        .collect();
    if animations.len() > LISTED_ANIMATIONS {
        listed.push(format!(
            "and {} more (select by index: 0 to {})",
            animations.len() - LISTED_ANIMATIONS,
            animations.len() - 1
        ));
    }
    listed.join(", ")
}

/// How many animations an error lists by name.
const LISTED_ANIMATIONS: usize = 20;

/// A label per item: its name when unique and non-empty, its index when it has none,
/// `NAME#INDEX` when the name (or the index written as a name) is shared. A made-up label never
/// takes a label that an item carries as its own (a node really named `foo#3`): `#INDEX` is
/// appended again until it is free.
pub(crate) fn labels<'a>(names: impl Iterator<Item = Option<&'a str>>) -> Vec<String> {
    let base: Vec<String> = names
        .enumerate()
        .map(|(i, n)| match n {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => i.to_string(),
        })
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for b in &base {
        *counts.entry(b.as_str()).or_insert(0) += 1;
    }
    let shared = |b: &str| counts.get(b).copied().unwrap_or(0) > 1;
    let mut taken: BTreeSet<String> = base.iter().filter(|b| !shared(b)).cloned().collect();
    base.iter()
        .enumerate()
        .map(|(i, b)| {
            if !shared(b) {
                return b.clone();
            }
            let mut label = format!("{b}#{i}");
            while taken.contains(&label) {
                label = format!("{label}#{i}");
            }
            taken.insert(label.clone());
            label
        })
        .collect()
}

/// The track name of a channel, `[ANIMATION/]NODE/PATH`, made unique among `used`: labels are
/// unique among nodes and among animations, but names may hold `/`, so animation `a/b` with node
/// `c` and animation `a` with node `b/c` would both give `a/b/c/PATH`; a later one gets `#NODE`
/// after its node label (again until it is free). Morph-target tracks append `/TARGET` to a
/// unique name, which keeps them unique: a TRS name ends in a property word, theirs in digits.
fn unique_track_name(
    animation: Option<&str>,
    node_label: &str,
    node: usize,
    path: &str,
    used: &mut BTreeSet<String>,
) -> String {
    let compose = |label: &str| match animation {
        Some(a) => format!("{a}/{label}/{path}"),
        None => format!("{label}/{path}"),
    };
    let mut label = node_label.to_string();
    let mut name = compose(&label);
    while used.contains(&name) {
        label = format!("{label}#{node}");
        name = compose(&label);
    }
    used.insert(name.clone());
    name
}

fn label_of(labels: &[String], index: usize) -> String {
    labels
        .get(index)
        .cloned()
        .unwrap_or_else(|| index.to_string())
}

fn path_name(property: Property) -> &'static str {
    match property {
        Property::Translation => "translation",
        Property::Rotation => "rotation",
        Property::Scale => "scale",
        Property::MorphTargetWeights => "weights",
    }
}

/// What an output accessor must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Times,
    Vec3,
    Rotation,
    Weights,
    /// A `KHR_animation_pointer` output: SCALAR, VEC2, VEC3 or VEC4.
    Pointer(Dimensions),
}

impl Role {
    fn of(property: Property) -> Role {
        match property {
            Property::Translation | Property::Scale => Role::Vec3,
            Property::Rotation => Role::Rotation,
            Property::MorphTargetWeights => Role::Weights,
        }
    }

    fn width(self) -> usize {
        match self {
            Role::Times | Role::Weights => 1,
            Role::Vec3 => 3,
            Role::Rotation => 4,
            Role::Pointer(d) => match d {
                Dimensions::Scalar => 1,
                Dimensions::Vec2 => 2,
                Dimensions::Vec3 => 3,
                Dimensions::Vec4 | Dimensions::Mat2 => 4,
                Dimensions::Mat3 => 9,
                Dimensions::Mat4 => 16,
            },
        }
    }

    fn expected(self) -> &'static str {
        match self {
            Role::Times => "SCALAR of FLOAT (key times in seconds)",
            Role::Vec3 => "VEC3 of FLOAT",
            Role::Rotation => {
                "VEC4 of FLOAT or of normalized BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT"
            }
            Role::Weights => {
                "SCALAR of FLOAT or of normalized BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT"
            }
            Role::Pointer(_) => {
                "SCALAR, VEC2, VEC3 or VEC4 of FLOAT or of normalized BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT"
            }
        }
    }

    fn dimensions(self) -> Dimensions {
        match self {
            Role::Times | Role::Weights => Dimensions::Scalar,
            Role::Vec3 => Dimensions::Vec3,
            Role::Rotation => Dimensions::Vec4,
            Role::Pointer(d) => d,
        }
    }

    fn allows_normalized(self) -> bool {
        matches!(self, Role::Rotation | Role::Weights | Role::Pointer(_))
    }
}

/// Buffers loaded on demand, so that a buffer no imported animation reads is never opened.
struct Buffers<'a> {
    doc: &'a gltf::Document,
    blob: Option<&'a [u8]>,
    policy: UriPolicy<'a>,
    data: Vec<Option<Vec<u8>>>,
}

impl<'a> Buffers<'a> {
    fn new(doc: &'a gltf::Document, blob: Option<&'a [u8]>, policy: UriPolicy<'a>) -> Self {
        Buffers {
            doc,
            blob,
            policy,
            data: doc.buffers().map(|_| None).collect(),
        }
    }

    fn get(&self, index: usize) -> &[u8] {
        self.data
            .get(index)
            .and_then(Option::as_deref)
            .unwrap_or(&[])
    }

    fn load_for(
        &mut self,
        accessor: &gltf::Accessor<'_>,
        channel: &ChannelRef,
    ) -> Result<(), GltfImportError> {
        let mut views = Vec::new();
        views.extend(accessor.view());
        if let Some(sparse) = accessor.sparse() {
            views.push(sparse.indices().view());
            views.push(sparse.values().view());
        }
        let needed: BTreeSet<usize> = views.iter().map(|v| v.buffer().index()).collect();
        for index in needed {
            if self.data.get(index).is_some_and(Option::is_some) {
                continue;
            }
            let Some(buffer) = self.doc.buffers().nth(index) else {
                continue;
            };
            let uri = match buffer.source() {
                gltf::buffer::Source::Uri(u) => Some(u),
                gltf::buffer::Source::Bin => None,
            };
            let bytes = self
                .load_buffer(index, uri, buffer.length())
                .map_err(|reason| GltfImportError::Buffer {
                    buffer: index,
                    uri: uri.map(shorten),
                    channel: channel.clone(),
                    accessor: accessor.index(),
                    reason: Box::new(reason),
                })?;
            if let Some(slot) = self.data.get_mut(index) {
                *slot = Some(bytes);
            }
        }
        Ok(())
    }

    /// The bytes of buffer `index`: the GLB binary chunk or what its URI names, at least
    /// `length` (its `byteLength`) bytes.
    fn load_buffer(
        &self,
        index: usize,
        uri: Option<&str>,
        length: usize,
    ) -> Result<Vec<u8>, BufferProblem> {
        if length > MAX_BUFFER_BYTES {
            return Err(BufferProblem::TooLarge {
                length,
                limit: MAX_BUFFER_BYTES,
            });
        }
        let bytes = match uri {
            // glTF 2.0 §4.4.3.3: only the first buffer may be the GLB binary chunk (each further
            // one would be another copy of it in memory).
            None if index != 0 => return Err(BufferProblem::NotFirstOnBinaryChunk),
            None => self
                .blob
                .map(<[u8]>::to_vec)
                .ok_or(BufferProblem::NoBinaryChunk)?,
            Some(uri) => uri::load_uri(uri, &self.policy, length)?,
        };
        if bytes.len() < length {
            return Err(BufferProblem::TooShort {
                path: None,
                found: bytes.len() as u64,
                expected: length,
            });
        }
        Ok(bytes)
    }
}

/// A URI as error messages show it: at most about 60 characters (data: payloads and hostile
/// names can be megabytes long).
fn shorten(uri: &str) -> String {
    const SHOWN: usize = 60;
    if uri.len() <= SHOWN {
        return uri.to_string();
    }
    let cut = uri
        .char_indices()
        .map(|(i, _)| i)
        .take_while(|&i| i <= SHOWN)
        .last()
        .unwrap_or(0);
    format!("{}... ({} bytes)", &uri[..cut], uri.len())
}

/// The bytes of a buffer view, checked against its buffer.
fn view_bytes<'b>(
    view: &gltf::buffer::View<'_>,
    buffers: &'b Buffers<'_>,
) -> Result<&'b [u8], AccessorProblem> {
    let data = buffers.get(view.buffer().index());
    let end = view.offset().checked_add(view.length());
    match end {
        Some(end) if end <= data.len() => Ok(&data[view.offset()..end]),
        _ => Err(AccessorProblem::OutOfBounds {
            what: format!("buffer view {}", view.index()),
            needed: end.unwrap_or(usize::MAX),
            available: data.len(),
        }),
    }
}

fn component(
    bytes: &[u8],
    at: usize,
    ty: DataType,
    what: &dyn Fn() -> String,
) -> Result<f64, AccessorProblem> {
    let size = ty.size();
    let slice = at
        .checked_add(size)
        .and_then(|end| bytes.get(at..end))
        .ok_or_else(|| AccessorProblem::OutOfBounds {
            what: what(),
            needed: at.saturating_add(size),
            available: bytes.len(),
        })?;
    // Normalized integers: glTF 2.0 §3.11 (animation samplers) and §3.6.2.3 ("normalized").
    Ok(match (ty, slice) {
        (DataType::F32, &[a, b, c, d]) => f64::from(f32::from_le_bytes([a, b, c, d])),
        (DataType::I8, &[a]) => (f64::from(i8::from_le_bytes([a])) / 127.0).max(-1.0),
        (DataType::U8, &[a]) => f64::from(a) / 255.0,
        (DataType::I16, &[a, b]) => (f64::from(i16::from_le_bytes([a, b])) / 32767.0).max(-1.0),
        (DataType::U16, &[a, b]) => f64::from(u16::from_le_bytes([a, b])) / 65535.0,
        (DataType::U32, &[a, b, c, d]) => f64::from(u32::from_le_bytes([a, b, c, d])),
        _ => f64::NAN,
    })
}

fn type_name(ty: DataType) -> &'static str {
    match ty {
        DataType::I8 => "BYTE",
        DataType::U8 => "UNSIGNED_BYTE",
        DataType::I16 => "SHORT",
        DataType::U16 => "UNSIGNED_SHORT",
        DataType::U32 => "UNSIGNED_INT",
        DataType::F32 => "FLOAT",
    }
}

fn dims_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

/// Decodes an accessor into `count × width` finite numbers (strides, sparse substitution and
/// normalized integers applied).
fn read_accessor(
    accessor: &gltf::Accessor<'_>,
    buffers: &Buffers<'_>,
    role: Role,
) -> Result<Vec<f64>, AccessorProblem> {
    check_accessor_type(accessor, role)?;
    let width = role.width();
    let count = accessor.count();
    let view = accessor_view(accessor, buffers, width)?;
    let mut values = vec![0.0; count * width];
    if let Some((bytes, stride)) = view {
        read_dense(accessor, bytes, stride, width, &mut values)?;
    }
    if let Some(sparse) = accessor.sparse() {
        apply_sparse(accessor, &sparse, buffers, width, &mut values)?;
    }
    check_finite(&values, width)?;
    Ok(values)
}

/// The accessor's element type and component type are what `role` takes (floats, or
/// normalized small integers where the role allows them).
fn check_accessor_type(accessor: &gltf::Accessor<'_>, role: Role) -> Result<(), AccessorProblem> {
    let ty = accessor.data_type();
    let dims = accessor.dimensions();
    let normalized = accessor.normalized();
    let type_ok = match ty {
        DataType::F32 => !normalized,
        DataType::I8 | DataType::U8 | DataType::I16 | DataType::U16 => {
            normalized && role.allows_normalized()
        }
        DataType::U32 => false,
    };
    if dims == role.dimensions() && type_ok {
        return Ok(());
    }
    Err(AccessorProblem::WrongType {
        expected: role.expected(),
        found: format!(
            "{} of {}{}",
            dims_name(dims),
            if normalized { "normalized " } else { "" },
            type_name(ty)
        ),
    })
}

/// The accessor's view bytes and stride, its size checked before anything is allocated: with a
/// view the last element must fit in it; without one (zeros, possibly patched by sparse
/// values) the count is capped at [`MAX_VIEWLESS_COUNT`].
fn accessor_view<'b>(
    accessor: &gltf::Accessor<'_>,
    buffers: &'b Buffers<'_>,
    width: usize,
) -> Result<Option<(&'b [u8], usize)>, AccessorProblem> {
    let count = accessor.count();
    let elem = accessor.data_type().size() * width;
    let Some(view) = accessor.view() else {
        if count > MAX_VIEWLESS_COUNT {
            return Err(AccessorProblem::TooLarge {
                count,
                limit: MAX_VIEWLESS_COUNT,
            });
        }
        return Ok(None);
    };
    let bytes = view_bytes(&view, buffers)?;
    let stride = view.stride().unwrap_or(elem);
    if let Some(last) = count.checked_sub(1) {
        let end = last
            .checked_mul(stride)
            .and_then(|s| s.checked_add(accessor.offset()))
            .and_then(|s| s.checked_add(elem));
        match end {
            Some(end) if end <= bytes.len() => {}
            _ => {
                return Err(AccessorProblem::OutOfBounds {
                    what: format!("element {last}"),
                    needed: end.unwrap_or(usize::MAX),
                    available: bytes.len(),
                })
            }
        }
    }
    Ok(Some((bytes, stride)))
}

/// Every element read from the view into `values` (`width` numbers each).
fn read_dense(
    accessor: &gltf::Accessor<'_>,
    bytes: &[u8],
    stride: usize,
    width: usize,
    values: &mut [f64],
) -> Result<(), AccessorProblem> {
    let ty = accessor.data_type();
    for (i, element) in values.chunks_exact_mut(width).enumerate() {
        let start = i
            .checked_mul(stride)
            .and_then(|s| s.checked_add(accessor.offset()))
            .unwrap_or(usize::MAX);
        for (c, slot) in element.iter_mut().enumerate() {
            let at = start.saturating_add(c * ty.size());
            *slot = component(bytes, at, ty, &|| format!("element {i}"))?;
        }
    }
    Ok(())
}

/// Sparse substitution: each listed index's element replaced by its sparse value.
fn apply_sparse(
    accessor: &gltf::Accessor<'_>,
    sparse: &gltf::accessor::sparse::Sparse<'_>,
    buffers: &Buffers<'_>,
    width: usize,
    values: &mut [f64],
) -> Result<(), AccessorProblem> {
    let ty = accessor.data_type();
    let count = accessor.count();
    let elem = ty.size() * width;
    let indices = sparse.indices();
    let index_bytes = view_bytes(&indices.view(), buffers)?;
    let index_ty = match indices.index_type() {
        gltf::accessor::sparse::IndexType::U8 => DataType::U8,
        gltf::accessor::sparse::IndexType::U16 => DataType::U16,
        gltf::accessor::sparse::IndexType::U32 => DataType::U32,
    };
    let vals = sparse.values();
    let value_bytes = view_bytes(&vals.view(), buffers)?;
    for entry in 0..sparse.count() {
        let at = indices.offset().saturating_add(entry * index_ty.size());
        let raw =
            raw_index(index_bytes, at, index_ty).ok_or_else(|| AccessorProblem::OutOfBounds {
                what: format!("sparse index {entry}"),
                needed: at.saturating_add(index_ty.size()),
                available: index_bytes.len(),
            })?;
        let target = usize::try_from(raw).ok().filter(|&t| t < count).ok_or(
            AccessorProblem::SparseIndex {
                entry,
                index: raw,
                count,
            },
        )?;
        let start = vals.offset().saturating_add(entry.saturating_mul(elem));
        let element = values
            .chunks_exact_mut(width)
            .nth(target)
            .unwrap_or(&mut []);
        for (c, slot) in element.iter_mut().enumerate() {
            let at = start.saturating_add(c * ty.size());
            *slot = component(value_bytes, at, ty, &|| format!("sparse value {entry}"))?;
        }
    }
    Ok(())
}

/// Every decoded number finite (normalized integers always are; floats may not be).
fn check_finite(values: &[f64], width: usize) -> Result<(), AccessorProblem> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(n) => Err(AccessorProblem::NotFinite {
            element: n / width,
            component: n % width,
            found: values[n],
        }),
        None => Ok(()),
    }
}

fn raw_index(bytes: &[u8], at: usize, ty: DataType) -> Option<u64> {
    let end = at.checked_add(ty.size())?;
    Some(match (ty, bytes.get(at..end)?) {
        (DataType::U8, &[a]) => u64::from(a),
        (DataType::U16, &[a, b]) => u64::from(u16::from_le_bytes([a, b])),
        (DataType::U32, &[a, b, c, d]) => u64::from(u32::from_le_bytes([a, b, c, d])),
        _ => return None,
    })
}

/// Key times: finite, at least one, strictly increasing (glTF 2.0 §3.11).
fn read_times(
    accessor: &gltf::Accessor<'_>,
    buffers: &Buffers<'_>,
) -> Result<Vec<f64>, AccessorProblem> {
    let times = read_accessor(accessor, buffers, Role::Times)?;
    if times.is_empty() {
        return Err(AccessorProblem::Empty);
    }
    for (i, pair) in times.windows(2).enumerate() {
        if pair[1] <= pair[0] {
            return Err(AccessorProblem::NotIncreasing {
                element: i + 1,
                previous: pair[0],
                found: pair[1],
            });
        }
    }
    Ok(times)
}

/// Rotation key values (not tangents) must have non-zero length to be normalized.
fn check_rotations(values: &[f64], per_key: usize) -> Result<(), AccessorProblem> {
    let value_slot = usize::from(per_key == 3);
    for (element, q) in values.chunks_exact(4).enumerate() {
        if element % per_key == value_slot && q.iter().all(|c| *c == 0.0) {
            return Err(AccessorProblem::ZeroQuaternion { element });
        }
    }
    Ok(())
}

/// Where one track's numbers sit in a decoded output accessor.
#[derive(Clone, Copy)]
struct Layout {
    /// Components per value (1, 3 or 4).
    width: usize,
    /// Morph targets per key (1 for TRS).
    targets: usize,
    /// The target this track reads.
    target: usize,
}

impl Layout {
    /// Output element `element` (for CUBICSPLINE `3k + 1` is key k's value) of this track's
    /// target, as `width` numbers.
    fn at<'v>(&self, values: &'v [f64], element: usize) -> &'v [f64] {
        let start = (element * self.targets + self.target) * self.width;
        values.get(start..start + self.width).unwrap_or(&[])
    }
}

/// How far from a whole frame, relative to the frame, an imported key is snapped onto it:
/// 2^-21, eight times the relative rounding of an f32 key time (2^-24), which `t · fps` keeps.
pub const SNAP_RELATIVE: f64 = 1.0 / (1u64 << 21) as f64;

/// The frame of every key, `t · fps`; with `snap`, a frame within `|frame| · SNAP_RELATIVE` of a
/// whole frame becomes that frame (glTF stores seconds in f32, so the last key of a 250-frame
/// clip at 30 fps reads 249.99999046325684), unless that would make it meet a neighbour.
fn key_frames(times: &[f64], fps: f64, snap: bool) -> Vec<f64> {
    let mut frames: Vec<f64> = times.iter().map(|t| t * fps).collect();
    if !snap {
        return frames;
    }
    for k in 0..frames.len() {
        let frame = frames[k];
        let whole = crate::math::round(frame);
        let near = crate::math::abs(frame - whole) <= crate::math::abs(frame) * SNAP_RELATIVE;
        let after_previous = k == 0 || frames[k - 1] < whole;
        let before_next = frames.get(k + 1).map_or(true, |&next| whole < next);
        if near && after_previous && before_next {
            frames[k] = whole;
        }
    }
    frames
}

/// One track from key frames and decoded values (counts already checked).
fn build_track(
    mut builder: TrackBuilder,
    frames: &[f64],
    values: &[f64],
    layout: Layout,
    interpolation: Interpolation,
    fps: f64,
) -> TrackBuilder {
    let n = frames.len();
    for (k, &frame) in frames.iter().enumerate() {
        match interpolation {
            Interpolation::Step => {
                builder = builder
                    .key_slice(frame, layout.at(values, k))
                    .interp(Interp::Step);
            }
            Interpolation::Linear => {
                builder = builder.key_slice(frame, layout.at(values, k));
            }
            Interpolation::CubicSpline => {
                // Appendix C: element 3k is the in-tangent a_k, 3k+1 the value v_k, 3k+2 the
                // out-tangent b_k; the segment k uses b_k and a_{k+1}, scaled by Δt seconds.
                builder = builder.key_slice(frame, layout.at(values, 3 * k + 1));
                if k + 1 < n {
                    let out: Vec<f64> = layout
                        .at(values, 3 * k + 2)
                        .iter()
                        .map(|b| b / fps)
                        .collect();
                    let inn: Vec<f64> = layout
                        .at(values, 3 * (k + 1))
                        .iter()
                        .map(|a| a / fps)
                        .collect();
                    builder = match (
                        crate::value::Value::from_slice(&out),
                        crate::value::Value::from_slice(&inn),
                    ) {
                        (Some(o), Some(i)) => builder.hermite(o, i),
                        _ => builder,
                    };
                }
            }
        }
    }
    builder
}
