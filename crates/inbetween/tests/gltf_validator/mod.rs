//! The Khronos glTF validator run on exported files, shared by the library's and the CLI's export tests.

use std::path::{Path, PathBuf};

/// The Khronos glTF validator's report (one JSON object per file: `numErrors`, `numWarnings`,
/// `messages`) for `files` (npm `gltf-validator`, installed by .ci/run into
/// tools/gltf-validate). Where it is not installed it says so and returns `None`, unless
/// INBETWEEN_REQUIRE_GLTF_VALIDATOR is set (as in CI), which makes that a failure.
pub fn validator_reports(files: &[PathBuf]) -> Option<Vec<serde_json::Value>> {
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
        return None;
    }
    let out = std::process::Command::new("node")
        .arg(tools.join("validate.mjs"))
        .args(files)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let reports: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(
        reports.len(),
        files.len(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(reports)
}

/// The validator finds no error and no warning in any of `files`; false when it is not
/// installed (see [`validator_reports`]).
pub fn khronos_validator_passes(files: &[PathBuf]) -> bool {
    let Some(reports) = validator_reports(files) else {
        return false;
    };
    for report in &reports {
        assert_eq!(report["numErrors"], 0, "{report}");
        assert_eq!(report["numWarnings"], 0, "{report}");
    }
    true
}
