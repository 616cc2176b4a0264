//! Writing output files atomically: a temporary file in the same folder, then a rename.

use std::io::Write;
use std::path::Path;

use crate::error::CliError;

/// Writes `contents` to `path` atomically: the data goes to a temporary file beside `path`, is
/// flushed to disk, then renamed over `path`. A failure leaves any previous file untouched and
/// removes the temporary file.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), CliError> {
    let err = |source| CliError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".inbetween-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(err)?;
    tmp.write_all(contents).map_err(err)?;
    // A temporary file is private (0600); give the output the permissions of the file it
    // replaces, or the usual 0644 for a new one.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(err)?;
    }
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// Writes to `path` atomically, or to standard output when `path` is `None`.
pub fn write_output(path: Option<&Path>, contents: &[u8]) -> Result<(), CliError> {
    match path {
        Some(p) => write_atomic(p, contents),
        None => {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            lock.write_all(contents)
                .and_then(|()| lock.flush())
                .map_err(|source| CliError::Write {
                    path: "<standard output>".into(),
                    source,
                })
        }
    }
}
