//! Buffer URIs of a glTF file: `data:` payloads, and files confined to the model's folder.
//!
//! A glTF file names its buffers by URI (glTF 2.0 §3.6.1.1: "relative paths are relative to the
//! current glTF asset"). An animation someone sent you must not read your other files, so a URI
//! is read only when it is
//!
//! 1. a `data:` URI with a base64 payload, or
//! 2. a relative path (no scheme such as `file:` or `http:`, not absolute after
//!    percent-decoding) that stays inside the model's folder — or one of the folders the caller
//!    allows explicitly ([`super::ImportOptions::allowed_dirs`]) — both as written (`..` may not
//!    climb out) and once every symbolic link is resolved; and
//! 3. it names a regular file (never a FIFO, device, socket or directory) holding at least the
//!    buffer's `byteLength` bytes, of which exactly `byteLength` are read.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Why a buffer could not be loaded; each says the rule it broke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferProblem {
    /// `byteLength` is beyond [`super::MAX_BUFFER_BYTES`].
    TooLarge {
        /// The declared `byteLength`.
        length: usize,
        /// The limit.
        limit: usize,
    },
    /// A buffer other than the first has no `uri` (glTF 2.0 §4.4.3.3).
    NotFirstOnBinaryChunk,
    /// The first buffer has no `uri`, but the file has no GLB binary chunk.
    NoBinaryChunk,
    /// A `data:` URI that is not base64 or does not decode.
    DataUri(String),
    /// A URI with a scheme other than `data:` (`file:`, `http:`, …).
    Scheme(String),
    /// A URI that is an absolute path after percent-decoding.
    AbsolutePath(String),
    /// A malformed percent escape, a decoded URI that is not UTF-8 or holds a NUL byte.
    Malformed(String),
    /// A relative URI, but no folder to resolve it against (bytes imported from memory).
    NoBaseFolder,
    /// The URI leads out of every allowed folder (as written, or through a symbolic link).
    OutsideFolder {
        /// Where it leads (as written when it climbs out with `..`, else the resolved file).
        resolved: PathBuf,
        /// The model's folder.
        folder: PathBuf,
        /// True when a symbolic link took it out.
        through_link: bool,
    },
    /// The URI names something other than a regular file.
    NotRegularFile {
        /// The file.
        path: PathBuf,
        /// What it is (`a FIFO`, `a character device`, `a directory`, …).
        kind: &'static str,
    },
    /// The file holds fewer bytes than the buffer's `byteLength`.
    TooShort {
        /// The file (none for the GLB binary chunk and `data:` URIs).
        path: Option<PathBuf>,
        /// Bytes found.
        found: u64,
        /// The buffer's `byteLength`.
        expected: usize,
    },
    /// The system refused to open or read the file.
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        message: String,
    },
}

impl fmt::Display for BufferProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const ALLOW: &str =
            "(to read buffers kept elsewhere, allow their folder: `--allow-path DIR` \
                             on the command line, `ImportOptions::allowed_dirs` in the library)";
        match self {
            BufferProblem::TooLarge { length, limit } => write!(
                f,
                "byteLength {length} is beyond the import limit of {limit} bytes"
            ),
            BufferProblem::NotFirstOnBinaryChunk => f.write_str(
                "expected a uri: only the first buffer may refer to the GLB binary chunk",
            ),
            BufferProblem::NoBinaryChunk => f.write_str("the GLB file has no binary chunk"),
            BufferProblem::DataUri(why) => write!(f, "bad data: URI: {why}"),
            BufferProblem::Scheme(scheme) => write!(
                f,
                "refused: a \"{scheme}:\" URI; buffers are read only from data: URIs and paths \
                 relative to the model's folder"
            ),
            BufferProblem::AbsolutePath(path) => write!(
                f,
                "refused: \"{path}\" is an absolute path; buffer URIs must be relative to the \
                 model's folder"
            ),
            BufferProblem::Malformed(why) => write!(f, "malformed URI: {why}"),
            BufferProblem::NoBaseFolder => {
                f.write_str("a relative URI needs the folder of the glTF file; none was given")
            }
            BufferProblem::OutsideFolder {
                resolved,
                folder,
                through_link,
            } => write!(
                f,
                "refused: it leads {}to {}, outside the model's folder {}; buffer URIs must stay \
                 inside it {ALLOW}",
                if *through_link {
                    "through a symbolic link "
                } else {
                    ""
                },
                resolved.display(),
                folder.display()
            ),
            BufferProblem::NotRegularFile { path, kind } => write!(
                f,
                "refused: {} is {kind}; buffers are read only from regular files",
                path.display()
            ),
            BufferProblem::TooShort {
                path,
                found,
                expected,
            } => match path {
                Some(p) => write!(
                    f,
                    "expected byteLength {expected} bytes, {} has {found}",
                    p.display()
                ),
                None => write!(f, "expected byteLength {expected} bytes, found {found}"),
            },
            BufferProblem::Io { path, message } => {
                write!(f, "cannot read {}: {message}", path.display())
            }
        }
    }
}

/// Where relative buffer URIs may lead.
pub(super) struct UriPolicy<'a> {
    /// The model's folder (none when the bytes came from memory without one).
    pub base: Option<&'a Path>,
    /// Further folders the caller allows.
    pub allowed: &'a [PathBuf],
}

/// Reads the first `length` bytes a buffer URI names, under the rules of the module docs.
pub(super) fn load_uri(
    uri: &str,
    policy: &UriPolicy<'_>,
    length: usize,
) -> Result<Vec<u8>, BufferProblem> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let Some((_, payload)) = rest.split_once(";base64,") else {
            return Err(BufferProblem::DataUri(
                "only base64 data URIs are supported".into(),
            ));
        };
        return decode_base64(payload).map_err(BufferProblem::DataUri);
    }
    // RFC 3986 §3.1: a scheme is letters, digits, `+ - .` before the first `:`, ahead of any
    // `/`, `?` or `#`.
    if let Some(colon) = uri.find(':') {
        let head = &uri[..colon];
        if !head.contains(['/', '?', '#']) {
            return Err(BufferProblem::Scheme(head.to_string()));
        }
    }
    let decoded = percent_decode(uri).map_err(BufferProblem::Malformed)?;
    let relative = Path::new(&decoded);
    if relative.has_root() || relative.is_absolute() || decoded.starts_with(['/', '\\']) {
        return Err(BufferProblem::AbsolutePath(decoded));
    }
    let Some(base) = policy.base else {
        return Err(BufferProblem::NoBaseFolder);
    };
    let path = confine(base, relative, policy.allowed)?;
    read_regular(&path, length)
}

/// The file `relative` names from `base`, once it is shown to stay inside `base` or an allowed
/// folder, as written and with symbolic links resolved; the returned path has no links.
fn confine(base: &Path, relative: &Path, allowed: &[PathBuf]) -> Result<PathBuf, BufferProblem> {
    let io = |path: &Path, e: std::io::Error| BufferProblem::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let folder = std::fs::canonicalize(base).map_err(|e| io(base, e))?;
    let mut roots = vec![folder.clone()];
    for dir in allowed {
        // A folder that does not exist allows nothing.
        if let Ok(dir) = std::fs::canonicalize(dir) {
            roots.push(dir);
        }
    }
    let inside = |p: &Path| roots.iter().any(|root| p.starts_with(root));
    // As written: `..` taken lexically, before the file system is asked anything, so a refused
    // URI never reveals whether a file outside exists.
    let written = lexical_join(&folder, relative);
    if !inside(&written) {
        return Err(BufferProblem::OutsideFolder {
            resolved: written,
            folder,
            through_link: false,
        });
    }
    let joined = folder.join(relative);
    let resolved = std::fs::canonicalize(&joined).map_err(|e| io(&joined, e))?;
    if !inside(&resolved) {
        return Err(BufferProblem::OutsideFolder {
            resolved,
            folder,
            through_link: true,
        });
    }
    Ok(resolved)
}

/// `base` joined with `relative`, with `.` dropped and `..` removing the previous component.
fn lexical_join(base: &Path, relative: &Path) -> PathBuf {
    let mut out = base.to_path_buf();
    for part in relative.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// Opens `path` without following a final symbolic link and without blocking (a FIFO swapped in
/// after the checks opens at once and is then refused), checks it is a regular file of at least
/// `length` bytes, and reads exactly `length` bytes.
fn read_regular(path: &Path, length: usize) -> Result<Vec<u8>, BufferProblem> {
    let io = |e: std::io::Error| BufferProblem::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut file = open_no_follow(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(BufferProblem::NotRegularFile {
            path: path.to_path_buf(),
            kind: kind_of(&meta.file_type()),
        });
    }
    if meta.len() < length as u64 {
        return Err(BufferProblem::TooShort {
            path: Some(path.to_path_buf()),
            found: meta.len(),
            expected: length,
        });
    }
    let mut bytes = Vec::with_capacity(length);
    (&mut file)
        .take(length as u64)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() < length {
        // The file shrank between the check and the read.
        return Err(BufferProblem::TooShort {
            path: Some(path.to_path_buf()),
            found: bytes.len() as u64,
            expected: length,
        });
    }
    Ok(bytes)
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    // Without O_NONBLOCK, refuse what is not a regular file before opening it.
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is {}", path.display(), kind_of(&meta.file_type())),
        ));
    }
    File::open(path)
}

fn kind_of(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

fn percent_decode(uri: &str) -> Result<String, String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad percent escape at byte {i} of the URI"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    if out.contains(&0) {
        return Err("the percent-decoded URI holds a NUL byte".into());
    }
    String::from_utf8(out).map_err(|_| "the percent-decoded URI is not UTF-8".into())
}

/// Standard base64 (RFC 4648 §4) with optional `=` padding.
fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let trimmed = text.trim_end_matches('=');
    if text.len() - trimmed.len() > 2 {
        return Err("base64: too much padding".into());
    }
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for (i, c) in trimmed.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("base64: invalid character at position {i}")),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    if bits >= 6 {
        return Err("base64: truncated data".into());
    }
    Ok(out)
}
