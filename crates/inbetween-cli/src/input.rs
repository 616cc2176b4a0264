//! Reading animations from files: our JSON documents, or glTF (.gltf/.glb) imported in memory.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use inbetween::gltf_import::{import_gltf_path, AnimationSelector, ImportOptions};
use inbetween::Document;

use crate::error::CliError;

/// True for `.gltf` and `.glb` files (by extension, case-insensitive).
pub fn is_gltf(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("glb"))
}

/// Parses `--animation`: an index when it is a whole number, a name otherwise.
pub fn animation_selector(text: Option<&str>) -> Option<AnimationSelector> {
    text.map(|t| match t.parse::<usize>() {
        Ok(i) => AnimationSelector::Index(i),
        Err(_) => AnimationSelector::Name(t.to_string()),
    })
}

/// The folders `--allow-path` adds for glTF buffer URIs, set once from the command line.
static ALLOWED_DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();

/// Records the `--allow-path` folders for every glTF file this run reads.
pub fn set_allowed_dirs(dirs: Vec<PathBuf>) {
    // Set once in `main`, before any command runs; a second call would change nothing.
    let _ = ALLOWED_DIRS.set(dirs);
}

/// What `import` (or a command reading glTF directly) takes from a glTF file.
pub struct GltfChoice<'a> {
    /// Frames per second of the document.
    pub fps: f64,
    /// `--animation`: an index or a name.
    pub animation: Option<&'a str>,
    /// Snap key frames within float32 rounding of a whole frame onto it.
    pub snap: bool,
}

impl Default for GltfChoice<'_> {
    fn default() -> Self {
        GltfChoice {
            fps: inbetween::gltf_import::DEFAULT_IMPORT_FPS,
            animation: None,
            snap: true,
        }
    }
}

/// Imports a glTF file's animations as `choice` says.
pub fn import_gltf(path: &Path, choice: &GltfChoice<'_>) -> Result<Document, CliError> {
    let options = ImportOptions {
        fps: choice.fps,
        animation: animation_selector(choice.animation),
        allowed_dirs: ALLOWED_DIRS.get().cloned().unwrap_or_default(),
        snap_to_frames: choice.snap,
        ..ImportOptions::default()
    };
    import_gltf_path(path, &options).map_err(|error| CliError::Gltf {
        path: path.to_path_buf(),
        error: Box::new(error),
    })
}

/// Reads and validates the document at `path` (JSON, or glTF imported at 60 fps); errors name the
/// file.
pub fn load_document(path: &Path) -> Result<Document, CliError> {
    if is_gltf(path) {
        return import_gltf(path, &GltfChoice::default());
    }
    let bytes = std::fs::read(path).map_err(|source| CliError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Document::from_json_slice(
        &bytes,
        &path.display().to_string(),
    )?)
}
