//! Telling a compiled stream from a document by its first bytes, so that a command given the wrong kind of file says which command takes it.

use std::path::Path;

use inbetween::stream::layout::MAGIC;

use crate::error::CliError;
use crate::input::display_name;

/// True when `bytes` start as a compiled stream (`IBS\x1a`).
#[must_use]
pub fn is_stream(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// True when `bytes` look like JSON text (after a byte order mark and white space, a `{`).
#[must_use]
pub fn is_json(bytes: &[u8]) -> bool {
    let text = bytes.strip_prefix("\u{FEFF}".as_bytes()).unwrap_or(bytes);
    text.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{')
}

/// For a command that reads documents: refuses a compiled stream, naming the commands that
/// read one.
pub fn refuse_stream(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if !is_stream(bytes) {
        return Ok(());
    }
    let name = display_name(path);
    Err(CliError::WrongKind {
        path: path.to_path_buf(),
        message: format!(
            "this is a compiled stream, not an animation document; use `inbetween play {name}` \
             (or `inbetween inspect {name}`)"
        ),
    })
}

/// For a command that reads streams: refuses a JSON document, saying to compile it first.
pub fn refuse_document(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if !is_json(bytes) {
        return Ok(());
    }
    let name = display_name(path);
    Err(CliError::WrongKind {
        path: path.to_path_buf(),
        message: format!(
            "this is an animation document, not a compiled stream; compile it first: \
             `inbetween compile {name} -o anim.ibs`, then play anim.ibs (`inbetween sample \
             {name}` prints its exact values)"
        ),
    })
}
