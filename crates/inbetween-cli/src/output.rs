//! Writing output files atomically: a locked temporary file in the same folder, then a rename; temporaries of killed runs are removed by the next write there.
//!
//! # What a crash leaves behind
//!
//! The contents are rendered in memory first; only then is a temporary file
//! `.inbetween-XXXXXX.tmp` created beside the output, written, flushed to disk and renamed over
//! the output. The output is therefore either the previous file or the complete new one, even
//! when the process is killed (SIGKILL, power loss after the flush). A process killed while the
//! temporary exists cannot remove it, so the writer holds an exclusive advisory lock
//! (`flock(2)`) on it while it is open — the kernel drops the lock when the process dies,
//! however it dies — and every write first removes the temporaries in its folder whose lock it
//! can take: their writer is gone. A temporary whose lock cannot be taken (a live writer, or a
//! file system without `flock`) is left alone. On platforms without `flock` nothing is removed.

use std::io::Write;
use std::path::Path;

use tempfile::NamedTempFile;

use crate::error::CliError;

/// Name prefix of the temporary files.
pub const TEMP_PREFIX: &str = ".inbetween-";
/// Name suffix of the temporary files.
pub const TEMP_SUFFIX: &str = ".tmp";

/// How often a temporary file is created again when a cleaner removed it before its writer
/// locked it (each time needs another process's cleaner to win a microsecond race).
const CREATE_ATTEMPTS: usize = 8;

/// Writes `contents` to `path` atomically: abandoned temporaries in the folder are removed
/// ([`remove_abandoned_temporaries`]), then the data goes to a new locked temporary file beside
/// `path`, is flushed to disk, and is renamed over `path`. A failure leaves any previous file
/// untouched and removes the temporary file.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), CliError> {
    let err = |source| CliError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    remove_abandoned_temporaries(dir);
    let mut tmp = create_locked_temporary(dir).map_err(err)?;
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
    // The returned file (and with it the lock) is closed at the end of the statement, after the
    // rename: a cleaner that takes the lock then finds no temporary under the old name.
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// Creates `.inbetween-XXXXXX.tmp` in `dir` and locks it for as long as it stays open.
///
/// A cleaner in another process may take the lock in the instant between creation and locking
/// and remove the file; the lock is then taken on a file without a name, which the check after
/// locking sees, and a new temporary is created.
fn create_locked_temporary(dir: &Path) -> std::io::Result<NamedTempFile> {
    for _ in 0..CREATE_ATTEMPTS {
        let tmp = tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .suffix(TEMP_SUFFIX)
            .tempfile_in(dir)?;
        if lock::hold(&tmp)? {
            return Ok(tmp);
        }
    }
    Err(std::io::Error::other(
        "temporary files in this folder keep disappearing before they can be locked",
    ))
}

/// Removes the temporary files (`.inbetween-*.tmp`) in `dir` that no live writer holds, and
/// returns how many were removed. Best effort: problems reading the folder or a file only mean
/// that the file stays.
pub fn remove_abandoned_temporaries(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(TEMP_PREFIX) && n.ends_with(TEMP_SUFFIX))
        })
        .filter(|entry| lock::remove_if_abandoned(&entry.path()).unwrap_or(false))
        .count()
}

#[cfg(all(
    unix,
    not(any(
        target_os = "espidf",
        target_os = "horizon",
        target_os = "solaris",
        target_os = "vita"
    ))
))]
mod lock {
    //! Advisory locks (`flock`) on the temporary files.

    use std::fs::{File, Metadata, OpenOptions};
    use std::io;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    use rustix::fs::{flock, FlockOperation};
    use tempfile::NamedTempFile;

    fn same_file(a: &Metadata, b: &Metadata) -> bool {
        (a.dev(), a.ino()) == (b.dev(), b.ino())
    }

    /// Locks the new temporary; `Ok(false)` when its name no longer leads to it (a cleaner
    /// removed it before the lock was taken). A file system without `flock` leaves it unlocked
    /// (and no cleaner can take its lock either, so it is never removed from under us).
    pub(super) fn hold(tmp: &NamedTempFile) -> io::Result<bool> {
        if flock(tmp.as_file(), FlockOperation::LockExclusive).is_err() {
            return Ok(true);
        }
        match std::fs::symlink_metadata(tmp.path()) {
            Ok(named) => Ok(same_file(&named, &tmp.as_file().metadata()?)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Removes the temporary at `path` if its lock can be taken (its writer is gone), checking
    /// while holding the lock that the name still leads to the file that was locked.
    pub(super) fn remove_if_abandoned(path: &Path) -> io::Result<bool> {
        let before = std::fs::symlink_metadata(path)?;
        if !before.file_type().is_file() {
            return Ok(false);
        }
        // Write access, so that file systems that emulate flock with fcntl locks grant an
        // exclusive lock; a file we may not write is not ours to remove.
        let file: File = OpenOptions::new().read(true).write(true).open(path)?;
        if flock(&file, FlockOperation::NonBlockingLockExclusive).is_err() {
            return Ok(false);
        }
        let locked = file.metadata()?;
        let now = std::fs::symlink_metadata(path)?;
        if !(same_file(&before, &locked) && same_file(&now, &locked)) {
            return Ok(false);
        }
        std::fs::remove_file(path)?;
        Ok(true)
    }
}

#[cfg(not(all(
    unix,
    not(any(
        target_os = "espidf",
        target_os = "horizon",
        target_os = "solaris",
        target_os = "vita"
    ))
)))]
mod lock {
    //! Without `flock` a live writer's temporary cannot be told from an abandoned one: keep all.

    use std::io;
    use std::path::Path;

    use tempfile::NamedTempFile;

    pub(super) fn hold(_tmp: &NamedTempFile) -> io::Result<bool> {
        Ok(true)
    }

    pub(super) fn remove_if_abandoned(_path: &Path) -> io::Result<bool> {
        Ok(false)
    }
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
    fn a_failed_write_keeps_the_previous_file() {
        let dir = tempfile::tempdir().unwrap();
        // The output path is a folder: the rename fails after the temporary was written.
        let out = dir.path().join("taken");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("inside"), b"x").unwrap();
        assert!(write_atomic(&out, b"data").is_err());
        assert!(out.is_dir());
        assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn abandoned_temporaries_are_removed_and_live_ones_kept() {
        use rustix::fs::{flock, FlockOperation};

        let dir = tempfile::tempdir().unwrap();
        // Left by a killed writer: nobody holds its lock.
        let abandoned = dir.path().join(".inbetween-dead01.tmp");
        std::fs::write(&abandoned, b"half").unwrap();
        // A live writer's: locked by an open file description (as `write_atomic` holds it).
        let live = dir.path().join(".inbetween-live01.tmp");
        std::fs::write(&live, b"busy").unwrap();
        let holder = std::fs::File::open(&live).unwrap();
        flock(&holder, FlockOperation::LockExclusive).unwrap();
        // Not ours by name, or not a regular file: kept.
        let other = dir.path().join("inbetween-notours.tmp");
        std::fs::write(&other, b"keep").unwrap();
        let folder = dir.path().join(".inbetween-folder.tmp");
        std::fs::create_dir(&folder).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&abandoned, dir.path().join(".inbetween-link.tmp")).unwrap();

        assert_eq!(remove_abandoned_temporaries(dir.path()), 1);
        assert!(!abandoned.exists());
        assert!(live.exists() && other.exists() && folder.is_dir());

        // The next write cleans up too, once the live writer is gone.
        drop(holder);
        let out = dir.path().join("out.ibs");
        write_atomic(&out, b"fresh").unwrap();
        assert_eq!(
            temporaries(dir.path()),
            vec![".inbetween-folder.tmp", ".inbetween-link.tmp"]
        );
        assert_eq!(std::fs::read(&out).unwrap(), b"fresh");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_writer_keeps_its_temporary_locked_until_the_rename() {
        use rustix::fs::{flock, FlockOperation};

        let dir = tempfile::tempdir().unwrap();
        let tmp = create_locked_temporary(dir.path()).unwrap();
        // Another open file description cannot take the lock, so a cleaner keeps the file.
        let other = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(tmp.path())
            .unwrap();
        assert!(flock(&other, FlockOperation::NonBlockingLockExclusive).is_err());
        assert_eq!(remove_abandoned_temporaries(dir.path()), 0);
        assert!(tmp.path().exists());
        drop(other);
        // Once the writer's file is closed (its process died), the lock is free.
        let path = tmp.path().to_path_buf();
        let (file, kept) = tmp.keep().unwrap();
        drop(file);
        assert_eq!(kept, path);
        assert_eq!(remove_abandoned_temporaries(dir.path()), 1);
        assert!(!path.exists());
    }
}
