//! The Khronos glTF validator run on exported files, shared by the library's and the CLI's export tests.

use std::path::{Path, PathBuf};

/// Runs the Khronos glTF validator (npm `gltf-validator`, installed by .ci/run into
/// tools/gltf-validate) on `files` and asserts no errors and no warnings in any. Where it is not
/// installed it says so and returns false, unless INBETWEEN_REQUIRE_GLTF_VALIDATOR is set (as in
/// CI), which makes that a failure.
pub fn khronos_validator_passes(files: &[PathBuf]) -> bool {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/gltf-validate");
    if !tools.join("node_modules/gltf-validator").exists() {
        assert!(
            std::env::var_os("INBETWEEN_REQUIRE_GLTF_VALIDATOR").is_none(),
            "gltf-validator is not installed in {}",
            tools.display()
        );
        eprintln!(
            "gltf-validator not installed (npm install --prefix tools/gltf-validate): skipped"
        );
        return false;
    }
    let out = std::process::Command::new("node")
        .arg(tools.join("validate.mjs"))
        .args(files)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "validator found errors:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in text.lines() {
        let report: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(report["numErrors"], 0, "{line}");
        assert_eq!(report["numWarnings"], 0, "{line}");
    }
    assert_eq!(text.lines().count(), files.len());
    true
}
