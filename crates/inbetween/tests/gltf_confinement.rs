//! glTF buffer URIs stay inside the model's folder: every escape form is refused, naming the
//! buffer and the rule, and only regular files of the declared length are read.
#![cfg(feature = "gltf")]

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use inbetween::gltf_import::{
    import_gltf_path, import_gltf_slice, BufferProblem, GltfImportError, ImportOptions,
};
use inbetween::Document;

/// The bytes of the buffer every test file reads: key times 0 and 0.5 s, then two vec3 keys.
fn buffer_bytes() -> Vec<u8> {
    [0.0f32, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

/// A one-channel glTF whose only buffer is `uri`.
fn gltf_with_uri(uri: &str) -> String {
    serde_json::json!({
        "asset": {"version": "2.0"},
        "nodes": [{"name": "n"}],
        "buffers": [{"byteLength": 32, "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 8},
            {"buffer": 0, "byteOffset": 8, "byteLength": 24}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"}
        ],
        "animations": [{"name": "walk",
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
            "samplers": [{"input": 0, "output": 1, "interpolation": "LINEAR"}]}]
    })
    .to_string()
}

/// A scratch tree: `root/model/` (the model's folder, with `inside.bin`), and
/// `root/secret.bin` beside it, holding bytes that would import as valid keys.
struct Tree {
    root: tempfile::TempDir,
}

impl Tree {
    fn new() -> Tree {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("model")).unwrap();
        std::fs::create_dir(root.path().join("model/sub")).unwrap();
        std::fs::write(root.path().join("model/inside.bin"), buffer_bytes()).unwrap();
        std::fs::write(root.path().join("secret.bin"), buffer_bytes()).unwrap();
        Tree { root }
    }

    fn model_dir(&self) -> PathBuf {
        self.root.path().join("model")
    }

    fn secret(&self) -> PathBuf {
        self.root.path().join("secret.bin")
    }

    /// Writes `model/model.gltf` naming `uri` and imports it with `options`.
    fn import(&self, uri: &str, options: &ImportOptions) -> Result<Document, GltfImportError> {
        let path = self.model_dir().join("model.gltf");
        std::fs::write(&path, gltf_with_uri(uri)).unwrap();
        import_gltf_path(&path, options)
    }
}

/// The refusal of buffer 0, with its message checked to name the buffer, the URI and the rule.
fn refusal(result: Result<Document, GltfImportError>, uri: &str) -> BufferProblem {
    match result {
        Err(error @ GltfImportError::Buffer { buffer: 0, .. }) => {
            let message = error.to_string();
            assert!(message.starts_with("buffer 0 \""), "{message}");
            assert!(
                message.contains(&format!("\"{uri}\"")) || uri.len() > 60,
                "{message} does not show {uri}"
            );
            let GltfImportError::Buffer { reason, .. } = error else {
                unreachable!()
            };
            *reason
        }
        Err(other) => panic!("{uri}: expected a buffer refusal, got {other}"),
        Ok(_) => panic!("{uri}: imported, but the URI should have been refused"),
    }
}

fn imports_the_keys(doc: &Document) {
    let track = doc.track("n/translation").unwrap();
    assert_eq!(track.eval(30.0).as_slice(), &[4.0, 5.0, 6.0]);
}

#[test]
fn a_buffer_inside_the_folder_imports() {
    let tree = Tree::new();
    let options = ImportOptions::default();
    imports_the_keys(&tree.import("inside.bin", &options).unwrap());
    // `..` that stays inside, `.` and percent-escapes of ordinary characters are fine.
    imports_the_keys(&tree.import("sub/../inside.bin", &options).unwrap());
    imports_the_keys(&tree.import("./inside%2Ebin", &options).unwrap());
}

#[test]
fn climbing_out_with_dot_dot_is_refused_in_every_spelling() {
    let tree = Tree::new();
    for uri in [
        "../secret.bin",
        "%2e%2e/secret.bin",
        "%2E%2E%2Fsecret.bin",
        "sub/../../secret.bin",
        "./../secret.bin",
        "sub/%2e%2e/%2e%2e/secret.bin",
    ] {
        let problem = refusal(tree.import(uri, &ImportOptions::default()), uri);
        match &problem {
            BufferProblem::OutsideFolder {
                resolved,
                through_link: false,
                ..
            } => {
                assert!(resolved.ends_with("secret.bin"), "{uri}: {problem}")
            }
            other => panic!("{uri}: {other}"),
        }
        let text = problem.to_string();
        assert!(
            text.contains("outside the model's folder") && text.contains("--allow-path"),
            "{text}"
        );
    }
}

#[test]
fn absolute_paths_and_other_schemes_are_refused() {
    let tree = Tree::new();
    let secret = tree.secret().display().to_string();
    let encoded = secret.replace('/', "%2F");
    for uri in [
        secret.as_str(),
        encoded.as_str(),
        "/etc/passwd",
        "%2Fetc%2Fpasswd",
    ] {
        let problem = refusal(tree.import(uri, &ImportOptions::default()), uri);
        assert!(
            matches!(problem, BufferProblem::AbsolutePath(_)),
            "{uri}: {problem}"
        );
    }
    let file_uri = format!("file://{secret}");
    for (uri, scheme) in [
        (file_uri.as_str(), "file"),
        ("file:///etc/passwd", "file"),
        ("FILE:/etc/passwd", "FILE"),
        ("http://example.invalid/x.bin", "http"),
        ("c:/windows/x.bin", "c"),
    ] {
        let problem = refusal(tree.import(uri, &ImportOptions::default()), uri);
        assert_eq!(problem, BufferProblem::Scheme(scheme.into()), "{uri}");
        assert!(problem
            .to_string()
            .contains("data: URIs and paths relative"));
    }
}

#[cfg(unix)]
#[test]
fn symbolic_links_out_of_the_folder_are_refused() {
    use std::os::unix::fs::symlink;
    let tree = Tree::new();
    let model = tree.model_dir();
    symlink(tree.secret(), model.join("link.bin")).unwrap();
    symlink(tree.root.path(), model.join("up")).unwrap();
    symlink("/dev/zero", model.join("zero.bin")).unwrap();
    symlink("/proc/self/environ", model.join("environ.bin")).unwrap();
    for uri in ["link.bin", "up/secret.bin", "zero.bin", "environ.bin"] {
        let problem = refusal(tree.import(uri, &ImportOptions::default()), uri);
        assert!(
            matches!(
                problem,
                BufferProblem::OutsideFolder {
                    through_link: true,
                    ..
                }
            ),
            "{uri}: {problem}"
        );
        assert!(problem.to_string().contains("through a symbolic link"));
    }
    // A link that stays inside is followed.
    symlink(model.join("inside.bin"), model.join("alias.bin")).unwrap();
    imports_the_keys(&tree.import("alias.bin", &ImportOptions::default()).unwrap());
}

#[test]
fn allowed_folders_open_the_way_to_buffers_kept_elsewhere() {
    let tree = Tree::new();
    let options = ImportOptions {
        allowed_dirs: vec![tree.root.path().to_path_buf()],
        ..ImportOptions::default()
    };
    imports_the_keys(&tree.import("../secret.bin", &options).unwrap());
    // Allowing a folder does not allow absolute URIs, nor a folder that does not exist.
    let secret = tree.secret().display().to_string();
    let problem = refusal(tree.import(&secret, &options), &secret);
    assert!(matches!(problem, BufferProblem::AbsolutePath(_)));
    let nowhere = ImportOptions {
        allowed_dirs: vec![tree.root.path().join("no-such-folder")],
        ..ImportOptions::default()
    };
    let problem = refusal(tree.import("../secret.bin", &nowhere), "../secret.bin");
    assert!(matches!(problem, BufferProblem::OutsideFolder { .. }));
}

#[cfg(unix)]
#[test]
fn only_regular_files_are_read_and_a_fifo_never_blocks() {
    let tree = Tree::new();
    let model = tree.model_dir();
    let fifo = model.join("pipe.bin");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Opening a FIFO for reading blocks until a writer comes; the import must not.
    let (send, receive) = mpsc::channel();
    let gltf = model.join("model.gltf");
    std::fs::write(&gltf, gltf_with_uri("pipe.bin")).unwrap();
    std::thread::spawn(move || {
        let _ = send.send(import_gltf_path(&gltf, &ImportOptions::default()));
    });
    let result = receive
        .recv_timeout(Duration::from_secs(20))
        .expect("importing a FIFO buffer hung");
    let problem = refusal(result, "pipe.bin");
    assert!(
        matches!(
            problem,
            BufferProblem::NotRegularFile { kind: "a FIFO", .. }
        ),
        "{problem}"
    );
    // A directory, and a device reached through an allowed folder.
    let problem = refusal(tree.import("sub", &ImportOptions::default()), "sub");
    assert!(matches!(
        problem,
        BufferProblem::NotRegularFile {
            kind: "a directory",
            ..
        }
    ));
    std::os::unix::fs::symlink("/dev/zero", model.join("zero.bin")).unwrap();
    let options = ImportOptions {
        allowed_dirs: vec![PathBuf::from("/dev")],
        ..ImportOptions::default()
    };
    let problem = refusal(tree.import("zero.bin", &options), "zero.bin");
    assert!(
        matches!(
            problem,
            BufferProblem::NotRegularFile {
                kind: "a character device",
                ..
            }
        ),
        "{problem}"
    );
}

#[test]
fn a_file_shorter_than_its_byte_length_is_refused_before_reading() {
    let tree = Tree::new();
    std::fs::write(tree.model_dir().join("short.bin"), [0u8; 10]).unwrap();
    let problem = refusal(
        tree.import("short.bin", &ImportOptions::default()),
        "short.bin",
    );
    assert!(
        matches!(
            problem,
            BufferProblem::TooShort {
                found: 10,
                expected: 32,
                ..
            }
        ),
        "{problem}"
    );
}

#[test]
fn a_nul_byte_or_a_bad_escape_is_malformed() {
    let tree = Tree::new();
    for uri in ["inside.bin%00.txt", "inside%zz.bin", "%ff%fe.bin"] {
        let problem = refusal(tree.import(uri, &ImportOptions::default()), uri);
        assert!(
            matches!(problem, BufferProblem::Malformed(_)),
            "{uri}: {problem}"
        );
    }
}

#[test]
fn bytes_from_memory_without_a_folder_read_no_file() {
    let json = gltf_with_uri("inside.bin");
    let result = import_gltf_slice(json.as_bytes(), None, &ImportOptions::default());
    assert_eq!(refusal(result, "inside.bin"), BufferProblem::NoBaseFolder);
}

#[test]
fn the_model_file_itself_is_read_up_to_its_limit() {
    let tree = Tree::new();
    let path = tree.model_dir().join("model.gltf");
    std::fs::write(&path, gltf_with_uri("inside.bin")).unwrap();
    let options = ImportOptions {
        max_file_bytes: 100,
        ..ImportOptions::default()
    };
    match import_gltf_path(&path, &options) {
        Err(GltfImportError::FileTooLarge { limit: 100, .. }) => {}
        other => panic!("expected FileTooLarge, got {other:?}"),
    }
    #[cfg(unix)]
    {
        // /dev/zero as the model: read up to the limit, then refused (never until memory ends).
        let options = ImportOptions {
            max_file_bytes: 1 << 20,
            ..ImportOptions::default()
        };
        assert!(matches!(
            import_gltf_path(Path::new("/dev/zero"), &options),
            Err(GltfImportError::FileTooLarge { .. })
        ));
    }
}
