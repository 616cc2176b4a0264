//! The `inbetween` command: sample, compile, play and inspect keyframe animations.
#![forbid(unsafe_code)]

mod compile;
mod demo;
mod demo_lottie;
mod error;
mod export;
mod import;
mod input;
mod inspect;
mod numbers;
mod output;
mod pipe;
mod play;
mod plot;
mod preview;
mod progress;
mod sample;
mod sample_rows;
mod sniff;
mod warnings;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::error::CliError;

/// The program's allocator: mimalloc, whose per-thread heaps serve the compiler's many small
/// vectors (a piece's numbers, a span's coefficients) on both threads without glibc's arena
/// and bin work (docs/benchmarks-history.md, *Compile speed, eighth pass*). The libraries allocate
/// through `alloc` and leave this choice to the program.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Keyframe animation: exact in-betweens, compiled to forward-difference streams.
///
/// Exit codes: 0 success; 1 the input was refused or could not be read (nothing is written);
/// 2 the command line is wrong; 3 an output file could not be written.
#[derive(Parser, Debug)]
#[command(
    name = "inbetween",
    version,
    about = "Keyframe animation: exact in-betweens, compiled to forward-difference streams",
    long_about
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// A folder from which a glTF file's buffer URIs may also read (repeatable). By default a
    /// buffer is read only from data: URIs and files inside the model's own folder.
    #[arg(long = "allow-path", value_name = "DIR", global = true)]
    allow_path: Vec<PathBuf>,
    /// The most bytes read from one input document or stream (a larger input, or one that does
    /// not end, such as /dev/zero, is refused). Default 268435456 (256 MiB).
    #[arg(long, global = true, value_name = "BYTES", default_value_t = input::DEFAULT_MAX_INPUT_BYTES)]
    max_input_bytes: u64,
    /// Refuse a document with warnings (unknown fields, near-miss names, quaternions far from
    /// unit length, expressions ending away from their next key) instead of using it: for CI.
    #[arg(long, global = true)]
    strict: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print every integer frame of a document as CSV (or JSON), evaluated exactly.
    ///
    /// Example: inbetween sample examples/showcase.json --from 0 --to 30 -o out.csv
    Sample(SampleArgs),
    /// Compile a document into a forward-difference stream (.ibs), verified at every frame.
    ///
    /// Example: inbetween compile examples/showcase.json -o showcase.ibs --precision fixed
    Compile(CompileCmd),
    /// Play a compiled stream and print the same CSV as `sample`.
    ///
    /// Example: inbetween play showcase.ibs --from 0 --to 60 --rate 0.5
    Play(PlayCmd),
    /// Show what a compiled stream holds: pieces, degrees, bytes, measured error per track.
    ///
    /// Example: inbetween inspect showcase.ibs --pieces
    Inspect(InspectCmd),
    /// Convert glTF animations (.gltf with .bin or data: URIs, or .glb) into an animation document.
    ///
    /// One track per channel, named NODE/PATH; STEP → step, LINEAR → linear (slerp on
    /// rotations), CUBICSPLINE → hermite. `sample`, `compile` and `inspect` also accept glTF
    /// files directly.
    ///
    /// A .ozz clip (ozz-animation runtime archive) becomes tracks JOINT/translation,
    /// JOINT/rotation, JOINT/scale played as ozz plays them (docs/ozz.md).
    ///
    /// Example: inbetween import model.glb -o anim.json --fps 30 --animation Walk
    ///
    /// Example: inbetween import animation.ozz --skeleton skeleton.ozz -o anim.json --fps 30
    Import(ImportCmd),
    /// Write a document's tracks as a glTF 2.0 animation (.gltf with an embedded buffer, or .glb).
    ///
    /// Exact where glTF can say it (step → STEP, linear → LINEAR, cubic kinds → CUBICSPLINE);
    /// eases, expressions and the like are baked at every frame. A document imported from glTF
    /// goes back onto the source's nodes and animations (its "x-gltf" record); scalar, vec2 and
    /// colour tracks go through KHR_animation_pointer.
    ///
    /// Example: inbetween export anim.json -o anim.glb
    ///
    /// Example: inbetween export walk.json --onto walk.gltf -o walked.glb
    Export(ExportCmd),
    /// Measure playback and compile speed: the batch player against the single-track player,
    /// exact evaluation, hand-written SoA Hermite and slerp players (hermite-soa-script,
    /// slerp-soa-script) and a streaming ceiling (ns per channel-frame; keys per second).
    ///
    /// ozz-animation-rs is measured by `tools/ozz-compare/run.sh`; the random-access crates
    /// (splines, keyframe, enterpolation) by
    /// `cargo bench -p inbetween-bench --features peers --bench playback`.
    ///
    /// Example: inbetween bench --quick --json
    Bench {
        /// 1 000 and 100 000 scalar channels, 1 000 rotations, 100 characters (minutes; the
        /// full run adds a million channels and takes much longer).
        #[arg(long, conflicts_with = "smoke")]
        quick: bool,
        /// Every workload and method at tiny sizes, checked and timed once: shows that the
        /// bench runs (seconds); its times mean little.
        #[arg(long)]
        smoke: bool,
        /// Print one JSON object {"machine", "results": [...]} instead of a table.
        #[arg(long)]
        json: bool,
        /// Only compile the workloads (the `compile` figures; no playback is timed).
        #[arg(long)]
        compile_only: bool,
        /// Only this workload (playback and its compile figures).
        #[arg(long, value_parser = inbetween_bench::WORKLOADS)]
        workload: Option<String>,
    },
    /// Print a shell completion script.
    ///
    /// Example: inbetween completions bash > /etc/bash_completion.d/inbetween
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Draw value-over-frame curves (keys marked, segment kinds labelled) and, for vec2/vec3
    /// tracks, the path with a dot at every frame, as SVG or PNG.
    ///
    /// Example: inbetween plot examples/showcase.json -o curves.svg --track ball
    Plot(plot::PlotArgs),
    /// Write one self-contained HTML page that plays the compiled stream: curves, moving
    /// objects, play/pause, scrubber, speed and loop controls, and the values at each frame.
    ///
    /// Example: inbetween preview examples/showcase.json -o preview.html
    Preview(preview::PreviewArgs),
    /// Run the main job on the bundled showcase document and print what it did.
    ///
    /// Example: inbetween demo --out-dir out/demo
    Demo(DemoArgs),
}

/// Output formats of `sample`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The spec's CSV: `frame`, then one column per component.
    Csv,
    /// `{"fps", "frames", "tracks": [{"name", "type", "values"}]}`.
    Json,
}

#[derive(clap::Args, Debug)]
struct SampleArgs {
    /// The animation document (JSON; `-` reads standard input).
    input: PathBuf,
    /// First frame to print (default: ⌈earliest first key⌉); frames outside a track's keys follow its wrap.
    #[arg(long, allow_hyphen_values = true)]
    from: Option<f64>,
    /// Last frame to print (default: ⌊latest last key⌋).
    #[arg(long, allow_hyphen_values = true)]
    to: Option<f64>,
    /// Write to this file (atomically) instead of standard output (`-`: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    format: Format,
    /// Frames advanced per row (0.5 = every half frame), as `play --rate`; rows then carry the
    /// fractional frame. A negative rate goes backward.
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true, value_parser = numbers::parse_rate)]
    rate: f64,
    /// Round every value to N decimals (default: the shortest digits that read back exactly).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=17))]
    digits: Option<u8>,
    /// Print nothing on success (with -o FILE, the rows written are reported otherwise).
    #[arg(short, long)]
    quiet: bool,
}

/// Stream precisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PrecisionArg {
    /// 32-bit floats.
    F32,
    /// 64-bit floats.
    F64,
    /// Integers with a per-piece binary scale: bit-exact playback everywhere.
    Fixed,
}

impl From<PrecisionArg> for inbetween::stream::Precision {
    fn from(p: PrecisionArg) -> Self {
        match p {
            PrecisionArg::F32 => inbetween::stream::Precision::F32,
            PrecisionArg::F64 => inbetween::stream::Precision::F64,
            PrecisionArg::Fixed => inbetween::stream::Precision::Fixed,
        }
    }
}

#[derive(clap::Args, Debug)]
struct CompileCmd {
    /// The animation document (JSON; `-` reads standard input).
    input: PathBuf,
    /// The stream file to write (default: the input's name with .ibs; `-`: standard output,
    /// and the report goes to standard error).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Largest error allowed at any frame, in value units, positive (default: 1e-6 × each
    /// track's scale).
    #[arg(long, allow_hyphen_values = true)]
    tolerance: Option<f64>,
    /// Stored and played precision.
    #[arg(long, value_enum, default_value_t = PrecisionArg::F64)]
    precision: PrecisionArg,
    /// Highest polynomial degree of a piece (0..=8).
    #[arg(long, default_value_t = inbetween::compile::DEFAULT_MAX_DEGREE)]
    max_degree: u8,
    /// Highest polynomial degree of a normalized quat track's piece (0..=8; at most
    /// `--max-degree` applies too): lower plays faster in the batch player, higher makes
    /// fewer pieces.
    #[arg(long, default_value_t = inbetween::compile::DEFAULT_ROTATION_MAX_DEGREE)]
    rotation_max_degree: u8,
    /// Fit quat tracks' components as they are, played without normalization (default: fitted
    /// for normalized playback, the stream's normalize flag set).
    #[arg(long)]
    raw_quaternions: bool,
    /// Print nothing on success.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(clap::Args, Debug)]
struct PlayCmd {
    /// The compiled stream (.ibs; `-` reads standard input).
    input: PathBuf,
    /// First frame (default: ⌈earliest first key⌉).
    #[arg(long, allow_hyphen_values = true)]
    from: Option<f64>,
    /// Last frame (default: ⌊latest last key⌋).
    #[arg(long, allow_hyphen_values = true)]
    to: Option<f64>,
    /// Frames advanced per row (0.5 = half speed; 60/144 shows a 60 fps stream at 144 Hz). Rows
    /// then carry the fractional frame. A negative rate plays backward, as --reverse.
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true, value_parser = numbers::parse_rate)]
    rate: f64,
    /// Play from the last frame down to the first.
    #[arg(long)]
    reverse: bool,
    /// Write to this file (atomically) instead of standard output (`-`: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Round every value to N decimals (default: two decimals beyond each track's tolerance,
    /// so a value that is 0 within the tolerance prints 0). Quaternions are renormalized.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=17))]
    digits: Option<u8>,
    /// Print the player's values exactly as played: the shortest digits that read back to the
    /// same f64, quaternions not renormalized (for comparing players bit for bit).
    #[arg(long, conflicts_with = "digits")]
    exact: bool,
    /// Print nothing on success (with -o FILE, the rows written are reported otherwise).
    #[arg(short, long)]
    quiet: bool,
}

#[derive(clap::Args, Debug)]
struct InspectCmd {
    /// The compiled stream (.ibs; `-` reads standard input).
    input: PathBuf,
    /// Also list every piece.
    #[arg(long)]
    pieces: bool,
}

#[derive(clap::Args, Debug)]
struct ImportCmd {
    /// The glTF file (.gltf or .glb), or an ozz-animation clip (.ozz, see docs/ozz.md).
    input: PathBuf,
    /// The document to write (default or `-`: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Frames per second: key frames are time × fps (positive).
    #[arg(long, default_value_t = 60.0, allow_hyphen_values = true)]
    fps: f64,
    /// Import only this animation, by index or name (default: all).
    #[arg(long)]
    animation: Option<String>,
    /// Keep key frames exactly time × fps: by default a key within |frame|·2^-21 of a whole frame
    /// (float32 seconds) is snapped onto it, so a clip's last pose is not lost between frames.
    #[arg(long)]
    no_snap: bool,
    /// For a .ozz clip: the skeleton archive whose joint names name the tracks (default: joint
    /// indices).
    #[arg(long)]
    skeleton: Option<PathBuf>,
    /// Print nothing on success.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(clap::Args, Debug)]
struct ExportCmd {
    /// The animation document (JSON, or glTF to re-export; `-` reads JSON from standard input).
    input: PathBuf,
    /// The glTF file to write: .gltf (JSON with an embedded buffer) or .glb (binary); `-`
    /// writes .gltf JSON to standard output (the report goes to standard error). Default: the
    /// input's name with .glb (standard output for `-` input).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Ignore the document's "x-gltf" record (what `import` kept of the source's nodes and
    /// animations): one animation on nodes named after the tracks.
    #[arg(long)]
    flat: bool,
    /// Write the whole model MODEL (.gltf/.glb: meshes, skins, materials, buffers) with its
    /// animations replaced by the document's, on its nodes (the document should come from
    /// `inbetween import MODEL`).
    #[arg(long, value_name = "MODEL")]
    onto: Option<PathBuf>,
    /// Print nothing on success.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(clap::Args, Debug)]
struct DemoArgs {
    /// Folder for the files the demo writes.
    #[arg(long, default_value = "out/demo")]
    out_dir: PathBuf,
}

/// Refuses a `--tolerance` that is not a positive finite number (a usage error, exit 2).
pub fn check_tolerance(tolerance: Option<f64>) -> Result<(), CliError> {
    match tolerance {
        Some(t) if !(t.is_finite() && t > 0.0) => Err(CliError::Usage(format!(
            "--tolerance must be a positive number (value units), found {t}"
        ))),
        _ => Ok(()),
    }
}

fn run(cli: Cli) -> Result<(), CliError> {
    input::set_max_input_bytes(cli.max_input_bytes);
    warnings::set_strict(cli.strict);
    match cli.command {
        Command::Sample(a) => sample::run(&sample::SampleArgs {
            input: &a.input,
            from: a.from,
            to: a.to,
            rate: a.rate,
            digits: a.digits.map(usize::from),
            output: a.output.as_deref(),
            format: a.format,
            quiet: a.quiet,
        }),
        Command::Compile(a) => compile::run(&compile::CompileArgs {
            input: &a.input,
            output: a.output.as_deref(),
            tolerance: a.tolerance,
            precision: a.precision.into(),
            max_degree: a.max_degree,
            rotation_max_degree: a.rotation_max_degree,
            normalize: !a.raw_quaternions,
            quiet: a.quiet,
        }),
        Command::Play(a) => play::run(&play::PlayArgs {
            input: &a.input,
            from: a.from,
            to: a.to,
            rate: a.rate,
            reverse: a.reverse,
            output: a.output.as_deref(),
            digits: a.digits.map(usize::from),
            exact: a.exact,
            quiet: a.quiet,
        }),
        Command::Inspect(a) => inspect::run(&a.input, a.pieces),
        Command::Import(a) => import::run(
            &a.input,
            a.output.as_deref(),
            &input::GltfChoice {
                fps: a.fps,
                animation: a.animation.as_deref(),
                snap: !a.no_snap,
            },
            a.skeleton.as_deref(),
            a.quiet,
        ),
        Command::Export(a) => export::run(
            &a.input,
            a.output.as_deref(),
            a.onto.as_deref(),
            a.flat,
            a.quiet,
        ),
        Command::Plot(a) => plot::run(&a),
        Command::Preview(a) => preview::run(&a),
        Command::Demo(a) => demo::run(&a.out_dir),
        Command::Bench {
            quick,
            smoke,
            json,
            compile_only,
            workload,
        } => run_bench(quick, smoke, json, compile_only, workload.as_deref()),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "inbetween",
                &mut std::io::stdout(),
            );
            Ok(())
        }
    }
}

/// `inbetween bench`: runs the benchmark of the chosen size (`--smoke` before `--quick`), its
/// compile part only, or one named workload, and prints its table or JSON.
fn run_bench(
    quick: bool,
    smoke: bool,
    json: bool,
    compile_only: bool,
    workload: Option<&str>,
) -> Result<(), CliError> {
    let size = match (smoke, quick) {
        (true, _) => inbetween_bench::BenchSize::Smoke,
        (false, true) => inbetween_bench::BenchSize::Quick,
        (false, false) => inbetween_bench::BenchSize::Full,
    };
    let spinner = progress::Progress::spinner("benchmarking", false);
    let mut status = |what: &str| spinner.label(what);
    let report = if compile_only {
        inbetween_bench::run_compile_bench(size, &mut status)
    } else if let Some(name) = workload {
        inbetween_bench::run_workloads(size, &[name], &mut status)
    } else {
        inbetween_bench::run_bench_with_status(size, &mut status)
    };
    spinner.finish();
    let report = report.map_err(CliError::Bench)?;
    // `Bank::new`'s time and memory (issue 12) on stderr: stdout's table and JSON keep their shape.
    if !report.banks.is_empty() {
        eprint!("{}", inbetween_bench::bank_table(&report));
    }
    if json {
        println!(
            "{}",
            inbetween_bench::to_json(&inbetween_bench::machine(), &report)
        );
    } else {
        print!("{}", inbetween_bench::to_table(&report));
    }
    Ok(())
}

fn main() -> ExitCode {
    pipe::exit_quietly_on_closed_pipe();
    let cli = Cli::parse();
    input::set_allowed_dirs(cli.allow_path.clone());
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            if let Some(snippet) = e.source_snippet() {
                eprintln!("{snippet}");
            }
            ExitCode::from(e.exit_code())
        }
    }
}
