//! The CLI's errors and their exit codes.

use std::path::{Path, PathBuf};

use inbetween::compile::CompileError;
use inbetween::sample::SampleError;
use inbetween::stream::StreamError;
use inbetween::LoadError;

/// Everything that can stop a command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// An input file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The document was refused.
    #[error("{error}")]
    Load {
        /// The file and what is wrong with it (boxed: the error is large).
        error: Box<LoadError>,
        /// For a JSON syntax error or duplicate key: the line with a caret under the column
        /// ([`snippet`]).
        snippet: Option<String>,
    },
    /// An input is larger than `--max-input-bytes`.
    #[error("{}: the input is larger than {max} bytes, the limit (raise it with --max-input-bytes)", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        max: u64,
    },
    /// A valid document the command could not finish with (sampling, compiling, exporting or
    /// drawing it failed): every such refusal names the file, through [`refused`].
    #[error("{}: {reason}", path.display())]
    Refused {
        /// The document's file.
        path: PathBuf,
        /// What the library (or the command) refused.
        reason: Refusal,
    },
    /// A glTF file could not be imported.
    #[error("{path}: {error}")]
    Gltf {
        /// The file.
        path: PathBuf,
        /// What is wrong with it (boxed: the import error is large).
        error: Box<inbetween::gltf_import::GltfImportError>,
    },
    /// A Lottie file could not be imported (the message names the file, layer, property and
    /// keyframe).
    #[error("{0}")]
    Lottie(Box<inbetween::lottie_import::LottieError>),
    /// An ozz-animation archive could not be imported.
    #[error("{path}: {error}")]
    Ozz {
        /// The archive (animation or skeleton).
        path: PathBuf,
        /// What is wrong with it.
        error: inbetween::ozz_import::OzzImportError,
    },
    /// A stream file was refused.
    #[error("{path}: not a valid stream: {error}")]
    Stream {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        error: StreamError,
    },
    /// A file of the other kind: a stream given to a command that reads documents, or the
    /// reverse; the message says which command takes it.
    #[error("{}: {message}", path.display())]
    WrongKind {
        /// The file.
        path: PathBuf,
        /// What it is and what to do.
        message: String,
    },
    /// `--strict` and the document has warnings (printed before).
    #[error("{file}: {count} warning{}, refused by --strict", if *count == 1 { "" } else { "s" })]
    Strict {
        /// The document's file.
        file: String,
        /// How many warnings.
        count: usize,
    },
    /// A benchmarked method failed its check against exact evaluation (the message says which).
    #[error("bench stopped: {0}")]
    Bench(String),
    /// The arguments make no sense together.
    #[error("{0}")]
    Usage(String),
    /// An output file could not be written; any previous file is intact.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Why a valid document was refused by a command.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// Sampling failed (a non-finite expression value).
    #[error("{0}")]
    Sample(#[from] SampleError),
    /// The compiler refused (a value beyond tolerance, a non-finite value, a bad option).
    #[error("cannot compile: {0}")]
    Compile(#[from] CompileError),
    /// The document could not be written as glTF.
    #[error("cannot export: {0}")]
    Export(#[from] inbetween::gltf_export::GltfExportError),
    /// Something the command cannot show or write (a value beyond what a plot draws).
    #[error("{0}")]
    Cannot(String),
}

/// The one way a library refusal of the document at `path` becomes a [`CliError`]: for
/// `map_err`, so that every such message starts with the file (`error: anim.json: track "x" …`).
pub fn refused<R: Into<Refusal>>(path: &Path) -> impl FnOnce(R) -> CliError + '_ {
    move |reason| CliError::Refused {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// For a JSON syntax error or a duplicate key in `text` (the bytes that were parsed, a leading
/// byte order mark skipped as the parser does): the line, cut to
/// [`inbetween::error::EXCERPT_CHARS`] characters around the column, with a caret under the
/// column (of the repeated key).
pub fn snippet(text: &[u8], error: &LoadError) -> Option<String> {
    let (line, column) = match &error.error.kind {
        inbetween::ErrorKind::Syntax { line, column, .. }
        | inbetween::ErrorKind::DuplicateKey { line, column, .. } => (line, column),
        _ => return None,
    };
    let text = text.strip_prefix("\u{FEFF}".as_bytes()).unwrap_or(text);
    let source_line = text.split(|b| *b == b'\n').nth(line.checked_sub(1)?)?;
    let source_line = String::from_utf8_lossy(source_line);
    let source_line = source_line.trim_end_matches('\r');
    let (shown, caret_at) = inbetween::error::excerpt(
        source_line,
        column.saturating_sub(1),
        inbetween::error::EXCERPT_CHARS,
    );
    let gutter = format!("{line} | ");
    Some(format!(
        "{gutter}{shown}\n{}^",
        " ".repeat(gutter.chars().count() + caret_at)
    ))
}

impl CliError {
    /// For a JSON syntax error: the offending line of the file with a caret under the column.
    pub fn source_snippet(&self) -> Option<&str> {
        match self {
            CliError::Load { snippet, .. } => snippet.as_deref(),
            _ => None,
        }
    }

    /// 1: input refused; 2: usage; 3: output not written.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Read { .. }
            | CliError::Load { .. }
            | CliError::TooLarge { .. }
            | CliError::Refused { .. }
            | CliError::Gltf { .. }
            | CliError::Ozz { .. }
            | CliError::Lottie(_)
            | CliError::Stream { .. }
            | CliError::Strict { .. }
            | CliError::WrongKind { .. }
            | CliError::Bench(_) => 1,
            CliError::Usage(_) => 2,
            CliError::Write { .. } => 3,
        }
    }
}
