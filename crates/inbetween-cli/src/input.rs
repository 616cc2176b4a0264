//! Reading animation documents from files.

use std::path::Path;

use inbetween::Document;

use crate::error::CliError;

/// Reads and validates the document at `path`; errors name the file.
pub fn load_document(path: &Path) -> Result<Document, CliError> {
    let bytes = std::fs::read(path).map_err(|source| CliError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Document::from_json_slice(
        &bytes,
        &path.display().to_string(),
    )?)
}
