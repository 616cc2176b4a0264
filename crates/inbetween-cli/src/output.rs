//! Writing outputs: to standard output for `-`, else atomically (a temporary file in the same folder, then a rename), and only over regular files.
//!
//! # What a crash leaves behind
//!
//! The contents are rendered in memory first; only then is a temporary file
//! `.inbetween-XXXXXX.tmp` (a new name, created exclusively, mode 0600) made beside the output,
//! written, flushed to disk and renamed over the output. The output is therefore either the
//! previous file or the complete new one, even when the process is killed (SIGKILL, power loss
//! after the flush). A process killed while its temporary exists cannot remove it: the
//! temporary stays, and nothing removes it later — a file of that name cannot be proven to be an
//! abandoned temporary rather than a user's own file, so inbetween never deletes a file it did not
//! create in the same run. Remove `.inbetween-*.tmp` files left by killed runs by hand.
//!
//! # What is replaced
//!
//! Only a regular file (or a symbolic link, which the rename replaces, not its target). An
//! output path naming a directory, FIFO, character or block device or socket (after following
//! symbolic links) is refused before anything is written: renaming over `/dev/null` would replace
//! the device itself. The check and the rename are two steps; a non-regular file created in
//! between is replaced. Write to standard output with `-o -`.

use std::io::Write;
use std::path::Path;

use crate::error::CliError;

/// Name prefix of the temporary files.
pub const TEMP_PREFIX: &str = ".inbetween-";
/// Name suffix of the temporary files.
pub const TEMP_SUFFIX: &str = ".tmp";

/// The output path that means standard output.
pub const STDOUT_PATH: &str = "-";

/// True when `path` is `-`: the output goes to standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == STDOUT_PATH
}

/// How reports name an output: as given, or `standard output` for `-`.
pub fn display_name(path: &Path) -> String {
    if is_stdout(path) {
        "standard output".to_string()
    } else {
        path.display().to_string()
    }
}

/// What kind of file `metadata` describes, for messages ("a directory", "a FIFO", ...).
fn kind_of(metadata: &std::fs::Metadata) -> &'static str {
    let t = metadata.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Refuses an output path that exists and is not a regular file (symbolic links followed).
fn refuse_non_regular(path: &Path) -> Result<(), CliError> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(CliError::Write {
            path: path.to_path_buf(),
            source: std::io::Error::other(format!(
                "it is {}; inbetween replaces only regular files (write to standard output \
                 with -o -)",
                kind_of(&m)
            )),
        }),
        _ => Ok(()),
    }
}

/// Refuses an output whose folder does not exist (or is not a folder), naming the folder, before
/// any work is done; `None` and `-` (standard output) always pass.
pub fn check_output(path: Option<&Path>) -> Result<(), CliError> {
    let Some(path) = path.filter(|p| !is_stdout(p)) else {
        return Ok(());
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => return Ok(()),
    };
    if dir.is_dir() {
        return Ok(());
    }
    let what = if dir.exists() {
        "is not a folder"
    } else {
        "does not exist"
    };
    Err(CliError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(format!(
            "the folder {} {what}; create it first",
            dir.display()
        )),
    })
}

/// Writes `contents` to `path`: to standard output when `path` is `-`, else atomically — the
/// data goes to a new temporary file beside `path`, is flushed to disk, and is renamed over
/// `path`. A `path` that exists and is not a regular file is refused. A failure leaves any
/// previous file untouched and removes the temporary file.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), CliError> {
    if is_stdout(path) {
        return write_stdout(contents);
    }
    refuse_non_regular(path)?;
    check_output(Some(path))?;
    let err = |source| CliError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
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

/// Writes `contents` to standard output and flushes it.
fn write_stdout(contents: &[u8]) -> Result<(), CliError> {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    match lock.write_all(contents).and_then(|()| lock.flush()) {
        // The reader went away (`| head`): what it wanted, it has; end quietly.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(source) => Err(CliError::Write {
            path: "<standard output>".into(),
            source,
        }),
        Ok(()) => Ok(()),
    }
}

/// Prints a command's report: on standard output, or on standard error when the output itself
/// went to standard output (`-o -`), so that the two never mix.
pub fn print_report(output: &Path, report: &str) {
    if is_stdout(output) {
        eprint!("{report}");
    } else {
        print!("{report}");
    }
}

/// Where a command that writes one file puts it: `given`, or standard output when the input
/// is standard input, or else the input's name with `extension` (`walk.json` → `walk.svg`).
/// `compile`, `plot`, `preview` and `export` share this rule.
#[must_use]
pub fn default_output(input: &Path, given: Option<&Path>, extension: &str) -> std::path::PathBuf {
    match given {
        Some(p) => p.to_path_buf(),
        None if input.as_os_str() == crate::input::STDIN_PATH => STDOUT_PATH.into(),
        None => input.with_extension(extension),
    }
}

/// Writes to `path` ([`write_atomic`]), or to standard output when `path` is `None`.
pub fn write_output(path: Option<&Path>, contents: &[u8]) -> Result<(), CliError> {
    write_atomic(path.unwrap_or(Path::new(STDOUT_PATH)), contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temporaries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| n.starts_with(TEMP_PREFIX) && n.ends_with(TEMP_SUFFIX))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_replace_the_file_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.bin");
        std::fs::write(&out, b"old").unwrap();
        write_atomic(&out, b"new contents").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new contents");
        assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn a_directory_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("taken");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("inside"), b"x").unwrap();
        let err = write_atomic(&out, b"data").unwrap_err();
        assert_eq!(err.exit_code(), 3);
        assert!(err.to_string().contains("a directory"), "{err}");
        assert!(out.join("inside").is_file());
        assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn a_users_files_named_like_temporaries_are_never_removed() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join(".inbetween-mine01.tmp");
        std::fs::write(&mine, b"the user's own").unwrap();
        write_atomic(&dir.path().join("out.csv"), b"x").unwrap();
        assert_eq!(std::fs::read(&mine).unwrap(), b"the user's own");
        assert_eq!(temporaries(dir.path()), vec![".inbetween-mine01.tmp"]);
    }
}
