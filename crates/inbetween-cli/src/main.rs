//! The `inbetween` command: sample, compile, play and inspect keyframe animations.

mod demo;
mod error;
mod input;
mod output;
mod sample;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::error::CliError;

/// Keyframe animation: exact in-betweens, compiled to forward-difference streams.
///
/// Exit codes: 0 success; 1 the input was refused or could not be read (nothing is written);
/// 2 the command line is wrong; 3 an output file could not be written.
#[derive(Parser, Debug)]
#[command(name = "inbetween", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print every integer frame of a document as CSV (or JSON), evaluated exactly.
    ///
    /// Example: inbetween sample examples/showcase.json --from 0 --to 30 -o out.csv
    Sample(SampleArgs),
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
    /// The animation document (JSON).
    input: PathBuf,
    /// First frame to print (default: ⌈earliest first key⌉); frames outside a track's keys follow its wrap.
    #[arg(long, allow_negative_numbers = true)]
    from: Option<f64>,
    /// Last frame to print (default: ⌊latest last key⌋).
    #[arg(long, allow_negative_numbers = true)]
    to: Option<f64>,
    /// Write to this file (atomically) instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    format: Format,
}

#[derive(clap::Args, Debug)]
struct DemoArgs {
    /// Folder for the files the demo writes.
    #[arg(long, default_value = "out/demo")]
    out_dir: PathBuf,
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Sample(a) => sample::run(&a.input, a.from, a.to, a.output.as_deref(), a.format),
        Command::Demo(a) => demo::run(&a.out_dir),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
