//! The CLI's errors and their exit codes.

use std::path::PathBuf;

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
    #[error("{0}")]
    Load(#[from] LoadError),
    /// Sampling failed (a non-finite expression value).
    #[error("{0}")]
    Sample(#[from] SampleError),
    /// A glTF file could not be imported.
    #[error("{path}: {error}")]
    Gltf {
        /// The file.
        path: PathBuf,
        /// What is wrong with it (boxed: the import error is large).
        error: Box<inbetween::gltf_import::GltfImportError>,
    },
    /// An ozz-animation archive could not be imported.
    #[error("{path}: {error}")]
    Ozz {
        /// The archive (animation or skeleton).
        path: PathBuf,
        /// What is wrong with it.
        error: inbetween::ozz_import::OzzImportError,
    },
    /// The document could not be written as glTF.
    #[error("cannot export: {0}")]
    Export(inbetween::gltf_export::GltfExportError),
    /// The compiler refused (a value beyond tolerance, a non-finite value, a bad option).
    #[error("cannot compile: {0}")]
    Compile(CompileError),
    /// A stream file was refused.
    #[error("{path}: not a valid stream: {error}")]
    Stream {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        error: StreamError,
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

impl CliError {
    /// For a JSON syntax error: the offending line of the file with a caret under the column.
    pub fn source_snippet(&self) -> Option<String> {
        let CliError::Load(load) = self else {
            return None;
        };
        let inbetween::ErrorKind::Syntax { line, column, .. } = &load.error.kind else {
            return None;
        };
        let text = std::fs::read_to_string(&load.file).ok()?;
        let source_line = text.lines().nth(line.checked_sub(1)?)?;
        let shown: String = source_line.chars().take(200).collect();
        let caret_at = column.saturating_sub(1).min(shown.chars().count());
        let gutter = format!("{line} | ");
        Some(format!(
            "{gutter}{shown}\n{}^",
            " ".repeat(gutter.chars().count() + caret_at)
        ))
    }

    /// 1: input refused; 2: usage; 3: output not written.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Read { .. }
            | CliError::Load(_)
            | CliError::Sample(_)
            | CliError::Compile(_)
            | CliError::Gltf { .. }
            | CliError::Ozz { .. }
            | CliError::Export(_)
            | CliError::Stream { .. }
            | CliError::Bench(_) => 1,
            CliError::Usage(_) => 2,
            CliError::Write { .. } => 3,
        }
    }
}
