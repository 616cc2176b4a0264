//! Reading inputs: our JSON documents and streams (from files, FIFOs or `-` for standard input, up to `--max-input-bytes`), or glTF imported in memory.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use inbetween::gltf_import::{
    import_gltf_path_with_scene, AnimationSelector, GltfImport, ImportOptions,
};
use inbetween::Document;

use crate::error::{snippet, CliError};

/// Default of `--max-input-bytes`: 256 MiB. A JSON document takes a few times its size in memory
/// while it is parsed; the largest benchmark document (a million tracks) is about 100 MB.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

/// The input path that means standard input.
pub const STDIN_PATH: &str = "-";

/// The current input limit (set once from the command line).
static MAX_INPUT_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT_BYTES);

/// Sets the most bytes [`read_input`] reads from one input.
pub fn set_max_input_bytes(max: u64) {
    MAX_INPUT_BYTES.store(max, Ordering::Relaxed);
}

/// How messages name `path`: as given, or `<standard input>` for `-`.
pub fn display_name(path: &Path) -> String {
    if path.as_os_str() == STDIN_PATH {
        "<standard input>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads a whole input: the file at `path` (a regular file, FIFO or device) or standard input
/// for `-`. At most the limit plus one byte is read, so an endless input (`/dev/zero`) is
/// refused once it passes the limit, as is a regular file whose size is beyond it (before
/// reading).
pub fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    let max = MAX_INPUT_BYTES.load(Ordering::Relaxed);
    let read_err = |source| CliError::Read {
        path: display_name(path).into(),
        source,
    };
    let too_large = || CliError::TooLarge {
        path: display_name(path).into(),
        max,
    };
    let mut bytes = Vec::new();
    if path.as_os_str() == STDIN_PATH {
        std::io::stdin()
            .lock()
            .take(max.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(read_err)?;
    } else {
        let file = std::fs::File::open(path).map_err(read_err)?;
        let meta = file.metadata().map_err(read_err)?;
        if meta.is_file() && meta.len() > max {
            return Err(too_large());
        }
        file.take(max.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(read_err)?;
    }
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

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
    import_gltf_with_scene(path, choice).map(|import| import.document)
}

/// [`import_gltf`], with the record of the source's nodes and animations (`"x-gltf"`).
pub fn import_gltf_with_scene(
    path: &Path,
    choice: &GltfChoice<'_>,
) -> Result<GltfImport, CliError> {
    import_gltf_path_with_scene(path, &gltf_options(choice)).map_err(|error| CliError::Gltf {
        path: path.to_path_buf(),
        error: Box::new(error),
    })
}

/// The library's import options for `choice`, with this run's `--allow-path` folders and
/// `--max-input-bytes`.
pub fn gltf_options(choice: &GltfChoice<'_>) -> ImportOptions {
    ImportOptions {
        fps: choice.fps,
        animation: animation_selector(choice.animation),
        allowed_dirs: ALLOWED_DIRS.get().cloned().unwrap_or_default(),
        snap_to_frames: choice.snap,
        // `--max-input-bytes` bounds every input, glTF files included.
        max_file_bytes: MAX_INPUT_BYTES.load(Ordering::Relaxed),
    }
}

/// Reads and validates the document at `path` (JSON, or glTF imported at 60 fps); errors name the
/// file.
pub fn load_document(path: &Path) -> Result<Document, CliError> {
    if is_gltf(path) {
        return import_gltf(path, &GltfChoice::default());
    }
    let bytes = read_input(path)?;
    document_from_bytes(path, &bytes)
}

/// The document in `bytes` read from `path` (JSON or Lottie; a compiled stream is refused).
pub fn document_from_bytes(path: &Path, bytes: &[u8]) -> Result<Document, CliError> {
    crate::sniff::refuse_stream(path, bytes)?;
    if inbetween::lottie_import::is_lottie(bytes) {
        return import_lottie(bytes, path);
    }
    let name = display_name(path);
    let (doc, warnings) =
        Document::from_json_slice_with_warnings(bytes, &name).map_err(|error| CliError::Load {
            snippet: snippet(bytes, &error),
            error: Box::new(error),
        })?;
    crate::warnings::report(&name, &warnings)?;
    Ok(doc)
}

/// Imports a Lottie file's bytes (see docs/lottie.md); what is not imported is listed on
/// standard error, one line each.
pub fn import_lottie(bytes: &[u8], path: &Path) -> Result<Document, CliError> {
    let import = inbetween::lottie_import::import_lottie(bytes, &display_name(path))
        .map_err(|error| CliError::Lottie(Box::new(error)))?;
    for skipped in &import.skipped {
        eprintln!(
            "{}: skipped {}: {}",
            display_name(path),
            skipped.path,
            skipped.reason
        );
    }
    Ok(import.document)
}
