//! Killed mid-run: `compile` and `export` stopped by SIGKILL at several moments leave the previous output byte-identical and nothing but abandoned temporaries, which the next run leaves alone (it cannot tell them from a user's files).
#![cfg(unix)]

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// What the output held before each killed run.
const PREVIOUS: &[u8] = b"the previous output, which must survive\n";

/// Moments after the start at which a run is killed (it takes well over a second to finish).
const KILL_AFTER_MS: [u64; 3] = [10, 50, 200];

/// Runs that poll for the temporary file and kill as soon as it appears; the first whose kill
/// lands while the temporary exists ends the loop (with outputs of 10+ MB the temporary exists
/// for tens of milliseconds, and the poll sees it within microseconds).
const TEMPORARY_KILL_ATTEMPTS: usize = 4;

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_inbetween"))
}

/// A document that compiles to a large stream: `tracks` vec4 tracks of `keys` linear keys one
/// frame apart (one piece per key).
fn many_keys(tracks: usize, keys: usize) -> String {
    let mut s = String::from(r#"{"inbetween": 1, "fps": 60, "tracks": ["#);
    for t in 0..tracks {
        if t > 0 {
            s.push(',');
        }
        write!(s, r#"{{"name": "t{t}", "type": "vec4", "keys": ["#).unwrap();
        for k in 0..keys {
            if k > 0 {
                s.push(',');
            }
            write!(
                s,
                r#"{{"frame": {k}, "value": [{}, {}, {}, {}]}}"#,
                (k * 7 + t) % 13,
                (k * 3) % 5,
                k % 7,
                (k * t) % 11
            )
            .unwrap();
        }
        s.push_str("]}");
    }
    s.push_str("]}");
    s
}

/// A document that exports to a large glTF: `tracks` translation tracks drawn by an expression
/// over `frames` frames, which the exporter bakes at every frame.
fn long_expressions(tracks: usize, frames: usize) -> String {
    let list: Vec<String> = (0..tracks)
        .map(|t| {
            format!(
                r#"{{"name": "node{t}", "type": "vec3", "keys": [
                    {{"frame": 0, "value": [0, 0, 0],
                      "interp": {{"expr": ["sin(frame*0.0{t}1)", "cos(frame*0.2)", "u"]}}}},
                    {{"frame": {frames}, "value": [0, 0, 1]}}]}}"#
            )
        })
        .collect();
    format!(
        r#"{{"inbetween": 1, "fps": 60, "tracks": [{}]}}"#,
        list.join(",")
    )
}

fn is_temporary(name: &str) -> bool {
    name.starts_with(".inbetween-") && name.ends_with(".tmp")
}

fn entries(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .expect("the folder is readable")
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect()
}

fn temporaries(dir: &Path) -> Vec<String> {
    entries(dir)
        .into_iter()
        .filter(|n| is_temporary(n))
        .collect()
}

/// One command under test: its arguments with the output path last.
struct Job {
    what: &'static str,
    args: Vec<String>,
    output_name: &'static str,
}

impl Job {
    fn spawn(&self, out: &Path) -> Child {
        Command::new(binary())
            .args(&self.args)
            .arg(out)
            .arg("--quiet")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts")
    }

    fn run_to_completion(&self, out: &Path) {
        let status = self.spawn(out).wait().expect("the run ends");
        assert!(status.success(), "{}: {status}", self.what);
    }
}

/// After a killed run: the output is the previous file byte for byte (or, if the run won the
/// race and finished, the complete new file), and the folder holds nothing else but abandoned
/// temporaries. Returns whether the kill landed before the output was replaced.
fn check_after_kill(job: &Job, dir: &Path, reference: &[u8], when: &str) -> bool {
    let out = dir.join(job.output_name);
    let now = fs::read(&out).expect("the output still exists");
    let intact = now == PREVIOUS;
    assert!(
        intact || now == reference,
        "{} killed {when}: the output is neither the previous file nor the complete new one ({} bytes)",
        job.what,
        now.len()
    );
    for name in entries(dir) {
        assert!(
            name == job.output_name || is_temporary(&name),
            "{} killed {when}: unexpected file {name:?}",
            job.what
        );
    }
    // Restore the previous file for the next trial (a finished run replaced it).
    fs::write(&out, PREVIOUS).unwrap();
    intact
}

fn kill_and_wait(mut child: Child) {
    // `Child::kill` is SIGKILL on Unix: no handler, no cleanup in the process.
    let _ = child.kill();
    child.wait().expect("the killed run is reaped");
}

fn exercise(job: &Job) {
    let reference_dir = tempfile::tempdir().unwrap();
    let reference_path = reference_dir.path().join(job.output_name);
    job.run_to_completion(&reference_path);
    let reference = fs::read(&reference_path).unwrap();
    assert!(
        reference.len() > 5_000_000,
        "{}: {} bytes",
        job.what,
        reference.len()
    );

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(job.output_name);
    fs::write(&out, PREVIOUS).unwrap();

    let after_delays = kill_after_delays(job, &out, dir.path(), &reference);
    let left_behind = kill_while_writing(job, &out, dir.path(), &reference);
    // The kill mid-write stopped one run before the end (it panics otherwise).
    let killed_before_the_end = after_delays + 1;
    println!(
        "{}: {killed_before_the_end} kills before the end; left behind by a kill mid-write: {left_behind:?}",
        job.what
    );

    // The next successful run replaces the output and touches nothing else: the abandoned
    // temporaries stay (a file of that name may be a user's), and it leaves none of its own.
    let before = entries(dir.path());
    assert!(left_behind.iter().all(|t| before.contains(t)));
    job.run_to_completion(&out);
    assert!(
        fs::read(&out).unwrap() == reference,
        "{}: output differs from a clean run",
        job.what
    );
    assert_eq!(
        entries(dir.path()),
        before,
        "{}: a successful run added or removed files",
        job.what
    );
}

/// Kills runs after each of [`KILL_AFTER_MS`], checking the output after each; how many of
/// them the kill stopped before the end.
fn kill_after_delays(job: &Job, out: &Path, dir: &Path, reference: &[u8]) -> usize {
    let mut killed_before_the_end = 0;
    for ms in KILL_AFTER_MS {
        let child = job.spawn(out);
        std::thread::sleep(Duration::from_millis(ms));
        kill_and_wait(child);
        if check_after_kill(job, dir, reference, &format!("after {ms} ms")) {
            killed_before_the_end += 1;
        }
    }
    killed_before_the_end
}

/// Kills a run while its temporary file is being written (polling the folder until one
/// appears), at most [`TEMPORARY_KILL_ATTEMPTS`] times; the temporaries the kill left behind.
fn kill_while_writing(job: &Job, out: &Path, dir: &Path, reference: &[u8]) -> Vec<String> {
    for attempt in 0..TEMPORARY_KILL_ATTEMPTS {
        let mut child = job.spawn(out);
        let seen = loop {
            if !temporaries(dir).is_empty() {
                break true;
            }
            if child.try_wait().expect("the run can be polled").is_some() {
                break false;
            }
            std::thread::yield_now();
        };
        kill_and_wait(child);
        let present = temporaries(dir);
        let when = format!("while writing (attempt {attempt})");
        let intact = check_after_kill(job, dir, reference, &when);
        if seen && intact {
            // Never renamed, so it is still there: a killed process cannot remove it.
            assert!(
                !present.is_empty(),
                "{}: the temporary vanished without a rename",
                job.what
            );
            return present;
        }
    }
    panic!(
        "{}: no kill landed while the temporary existed in {TEMPORARY_KILL_ATTEMPTS} attempts",
        job.what
    )
}

#[test]
fn a_killed_compile_leaves_the_previous_stream_and_no_stray_files() {
    let input = tempfile::tempdir().unwrap();
    let doc = input.path().join("big.json");
    fs::write(&doc, many_keys(8, 12_000)).unwrap();
    exercise(&Job {
        what: "compile",
        args: vec![
            "compile".into(),
            doc.to_str().unwrap().into(),
            "--output".into(),
        ],
        output_name: "big.ibs",
    });
}

#[test]
fn a_killed_export_leaves_the_previous_gltf_and_no_stray_files() {
    let input = tempfile::tempdir().unwrap();
    let doc = input.path().join("long.json");
    fs::write(&doc, long_expressions(4, 500_000)).unwrap();
    exercise(&Job {
        what: "export",
        args: vec![
            "export".into(),
            doc.to_str().unwrap().into(),
            "--output".into(),
        ],
        output_name: "long.glb",
    });
}
