//! The stream asset and its loaders: `.ibs` bytes validated once, documents (`.json`, `.gltf`, `.glb`) compiled at load.

use std::sync::Arc;

use bevy_asset::io::Reader;
use bevy_asset::{Asset, AssetLoader, LoadContext};
use bevy_reflect::TypePath;
use inbetween::compile::{CompileError, CompileOptions};
use inbetween::gltf_import::{
    import_gltf_slice, AnimationSelector, GltfImportError, ImportOptions,
};
use inbetween::stream::{Precision, Stream, StreamError};
use inbetween::Document;
use serde::{Deserialize, Serialize};

self_cell::self_cell!(
    /// Stream bytes and the validated view of them.
    struct StreamCell {
        owner: Vec<u8>,
        #[covariant]
        dependent: Stream,
    }
    impl {Debug}
);

/// A compiled `.ibs` stream, validated once: after loading, nothing that plays it can fail.
///
/// Cheap to clone (the bytes are shared). Loaded by [`IbsLoader`] from `.ibs` files and by
/// [`DocumentLoader`] from documents and glTF files, which it compiles at load.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct InbetweenStream {
    cell: Arc<StreamCell>,
}

impl InbetweenStream {
    /// Validates `bytes` as an `.ibs` stream (`Stream::from_bytes`).
    ///
    /// # Errors
    /// The `StreamError` naming the region, track, piece and field at fault.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, StreamError> {
        let cell = StreamCell::try_new(bytes, |b| Stream::from_bytes(b))?;
        Ok(Self {
            cell: Arc::new(cell),
        })
    }

    /// Compiles every track of `document` (`Document::compile`) into a stream.
    ///
    /// # Errors
    /// The compiler's error, naming the track (and frame) at fault.
    pub fn compile(document: &Document, options: &CompileOptions) -> Result<Self, CompileError> {
        let compiled = document.compile(options)?;
        // The compiler validated the bytes it wrote; a failure here would be a compiler bug,
        // reported as the stream error it is rather than a panic.
        Self::from_bytes(compiled.bytes).map_err(CompileError::from)
    }

    /// The validated stream (borrowing the asset's bytes).
    #[must_use]
    pub fn stream(&self) -> Stream<'_> {
        *self.cell.borrow_dependent()
    }

    /// Frames per second of the stream's clock.
    #[must_use]
    pub fn fps(&self) -> f64 {
        self.stream().fps()
    }

    /// The stream's span in frames: from `min(0, first key)` to the last key over all tracks
    /// (one clock for all tracks, as in glTF); at least one frame long.
    #[must_use]
    pub fn span(&self) -> (f64, f64) {
        let s = self.stream();
        let first = s.tracks().map(|t| t.first_frame()).fold(0.0, f64::min);
        let last = s.tracks().map(|t| t.last_frame()).fold(first, f64::max);
        (first, if last > first { last } else { first + 1.0 })
    }

    /// The index of the track named `name`, if any.
    #[must_use]
    pub fn track_index(&self, name: &str) -> Option<usize> {
        self.stream().track_by_name(name).map(|t| t.index())
    }
}

/// Why an asset could not be loaded. Bevy reports it as the asset's load error
/// (`LoadState::Failed`), with this message; the app goes on.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The asset's bytes could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// Asset path.
        path: String,
        /// What the reader said.
        source: std::io::Error,
    },
    /// The `.ibs` bytes do not validate.
    #[error("{path}: not a valid .ibs stream: {source}")]
    Stream {
        /// Asset path.
        path: String,
        /// The first rule the bytes break.
        source: StreamError,
    },
    /// The JSON document is malformed or invalid (the message names track, key and field).
    #[error("{0}")]
    Document(#[from] inbetween::LoadError),
    /// The glTF file cannot be imported.
    #[error("{path}: {source}")]
    Gltf {
        /// Asset path.
        path: String,
        /// The importer's error.
        source: Box<GltfImportError>,
    },
    /// The document does not compile with the loader's settings.
    #[error("{path}: cannot compile: {source}")]
    Compile {
        /// Asset path.
        path: String,
        /// The compiler's error (track, frame, error vs tolerance).
        source: CompileError,
    },
    /// A loader setting is out of range.
    #[error("{path}: loader setting {field}: expected {expected}, found {found}")]
    Setting {
        /// Asset path.
        path: String,
        /// The setting.
        field: &'static str,
        /// What is accepted.
        expected: &'static str,
        /// What was given.
        found: String,
    },
}

/// Loads `.ibs` streams.
#[derive(Debug, Default, TypePath)]
pub struct IbsLoader;

/// Reads the whole asset.
async fn read_all(reader: &mut dyn Reader, path: &str) -> Result<Vec<u8>, LoadError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .await
        .map_err(|source| LoadError::Io {
            path: path.to_owned(),
            source,
        })?;
    Ok(bytes)
}

impl AssetLoader for IbsLoader {
    type Asset = InbetweenStream;
    type Settings = ();
    type Error = LoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<InbetweenStream, LoadError> {
        let path = load_context.path().to_string();
        let bytes = read_all(reader, &path).await?;
        InbetweenStream::from_bytes(bytes).map_err(|source| LoadError::Stream { path, source })
    }

    fn extensions(&self) -> &[&str] {
        &["ibs"]
    }
}

/// Precision of a stream compiled at load (serializable mirror of `stream::Precision`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum StreamPrecision {
    /// f32 differences, f64 state.
    F32,
    /// f64 throughout (the compiler's default).
    #[default]
    F64,
    /// i64 integers with a per-piece exponent: bit-exact playback.
    Fixed,
}

impl From<StreamPrecision> for Precision {
    fn from(p: StreamPrecision) -> Self {
        match p {
            StreamPrecision::F32 => Precision::F32,
            StreamPrecision::F64 => Precision::F64,
            StreamPrecision::Fixed => Precision::Fixed,
        }
    }
}

/// How [`DocumentLoader`] imports and compiles (an asset's `.meta` file can set them, or
/// `asset_server.load_builder().with_settings(…)`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DocumentSettings {
    /// glTF only: frames per second of the imported clock (a key at `t` s lands on frame
    /// `t · fps`). Default 60, as `inbetween import`.
    pub gltf_fps: f64,
    /// glTF only: the animation to import, by name; `None` imports every animation.
    pub gltf_animation: Option<String>,
    /// Largest |played − exact| per component at every integer frame, in value units; `None`:
    /// the compiler's default relative tolerance (1e-6 × each track's scale).
    pub tolerance: Option<f64>,
    /// Precision the stream stores and plays.
    pub precision: StreamPrecision,
    /// Highest piece degree, 0..=8.
    pub max_degree: u8,
}

impl Default for DocumentSettings {
    fn default() -> Self {
        let compile = CompileOptions::default();
        Self {
            gltf_fps: inbetween::gltf_import::DEFAULT_IMPORT_FPS,
            gltf_animation: None,
            tolerance: compile.tolerance,
            precision: StreamPrecision::default(),
            max_degree: compile.max_degree,
        }
    }
}

impl DocumentSettings {
    /// The compiler's options, or the setting that is out of range.
    fn compile_options(&self, path: &str) -> Result<CompileOptions, LoadError> {
        let setting = |field, expected, found: String| LoadError::Setting {
            path: path.to_owned(),
            field,
            expected,
            found,
        };
        if let Some(t) = self.tolerance.filter(|t| !(t.is_finite() && *t > 0.0)) {
            return Err(setting("tolerance", "a finite number > 0", t.to_string()));
        }
        if self.max_degree > 8 {
            let found = self.max_degree.to_string();
            return Err(setting("max_degree", "0..=8", found));
        }
        Ok(CompileOptions {
            tolerance: self.tolerance,
            precision: self.precision.into(),
            max_degree: self.max_degree,
            normalize: true,
            // The compiler's default (no cap beyond `max_degree` on normalized rotations).
            ..CompileOptions::default()
        })
    }

    /// The importer's options (the fps is checked by the importer).
    fn import_options(&self) -> ImportOptions {
        ImportOptions {
            fps: self.gltf_fps,
            animation: self.gltf_animation.clone().map(AnimationSelector::Name),
            ..ImportOptions::default()
        }
    }
}

/// Loads documents — inbetween JSON (`.json`) and glTF 2.0 animations (`.gltf`, `.glb`,
/// through `inbetween::gltf_import`) — and compiles them into an [`InbetweenStream`] with the
/// options of [`DocumentSettings`].
///
/// glTF buffers are read only from the file itself (`data:` URIs, the GLB binary chunk): the
/// loader sees bytes, not a folder, so a buffer in a side file is refused with the importer's
/// `NoBaseFolder` message.
#[derive(Debug, Default, TypePath)]
pub struct DocumentLoader;

impl AssetLoader for DocumentLoader {
    type Asset = InbetweenStream;
    type Settings = DocumentSettings;
    type Error = LoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &DocumentSettings,
        load_context: &mut LoadContext<'_>,
    ) -> Result<InbetweenStream, LoadError> {
        let path = load_context.path().to_string();
        let bytes = read_all(reader, &path).await?;
        let options = settings.compile_options(&path)?;
        let document = document_from_bytes(&bytes, &path, settings)?;
        InbetweenStream::compile(&document, &options)
            .map_err(|source| LoadError::Compile { path, source })
    }

    fn extensions(&self) -> &[&str] {
        &["json", "gltf", "glb"]
    }
}

/// A document from JSON or glTF bytes, by the path's extension.
fn document_from_bytes(
    bytes: &[u8],
    path: &str,
    settings: &DocumentSettings,
) -> Result<Document, LoadError> {
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".gltf") || lower.ends_with(".glb") {
        import_gltf_slice(bytes, None, &settings.import_options()).map_err(|source| {
            LoadError::Gltf {
                path: path.to_owned(),
                source: Box::new(source),
            }
        })
    } else {
        Ok(Document::from_json_slice(bytes, path)?)
    }
}
