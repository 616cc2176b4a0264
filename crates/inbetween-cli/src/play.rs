//! `inbetween play`: a compiled stream played frame by frame into the same CSV as `sample`.

use std::fmt::Write as _;
use std::path::Path;

use inbetween::player::TrackPlayer;
use inbetween::sample::{csv_field, write_csv_row};
use inbetween::stream::{Stream, StreamValueType};

use crate::error::CliError;
use crate::output::write_output;

/// Column suffixes of a stream value type, as `sample` names them.
fn suffixes(value_type: StreamValueType) -> &'static [&'static str] {
    match value_type {
        StreamValueType::Scalar => &[],
        StreamValueType::Vec2 => &["x", "y"],
        StreamValueType::Vec3 => &["x", "y", "z"],
        StreamValueType::Vec4 | StreamValueType::Quat => &["x", "y", "z", "w"],
        StreamValueType::Color => &["r", "g", "b", "a"],
    }
}

/// Reads a stream file's bytes (validated once, by [`parse_stream`]).
pub fn read_stream(path: &Path) -> Result<Vec<u8>, CliError> {
    crate::input::read_input(path)
}

/// Validates a stream's bytes (the one validation: after it nothing can fail).
pub fn parse_stream<'b>(path: &Path, bytes: &'b [u8]) -> Result<Stream<'b>, CliError> {
    Stream::from_bytes(bytes).map_err(|error| CliError::Stream {
        path: path.to_path_buf(),
        error,
    })
}

/// The default frames of a stream: ⌈earliest first frame⌉ ..= ⌊latest last frame⌋.
fn default_range(stream: &Stream<'_>) -> Option<(f64, f64)> {
    let (first, last) = stream.frame_range()?;
    let (a, b) = (first.ceil(), last.floor());
    (a <= b).then_some((a, b))
}

/// Options of `play`.
pub struct PlayArgs<'a> {
    /// The `.ibs` file.
    pub input: &'a Path,
    /// First frame (default ⌈earliest first frame⌉).
    pub from: Option<f64>,
    /// Last frame (default ⌊latest last frame⌋).
    pub to: Option<f64>,
    /// Source frames per output row (default 1); negative plays backward.
    pub rate: f64,
    /// Play from `to` down to `from`.
    pub reverse: bool,
    /// Output file (default standard output).
    pub output: Option<&'a Path>,
}

/// Plays the stream into CSV text.
pub fn render(stream: &Stream<'_>, args: &PlayArgs<'_>) -> Result<String, CliError> {
    if !(args.rate.is_finite() && args.rate != 0.0) {
        return Err(CliError::Usage(format!(
            "--rate must be a finite non-zero number (negative plays backward), found {}",
            args.rate
        )));
    }
    // A negative rate plays backward: the same as --reverse with |rate| (both: forward).
    let (rate, reverse) = (args.rate.abs(), args.reverse != (args.rate < 0.0));
    for (name, v) in [("--from", args.from), ("--to", args.to)] {
        if let Some(x) = v {
            if !x.is_finite() || x.abs() > 1e15 {
                return Err(CliError::Usage(format!(
                    "{name} must be a finite frame within ±1e15, found {x}"
                )));
            }
        }
    }
    let mut text = String::from("frame");
    for track in stream.tracks() {
        let s = suffixes(track.value_type());
        if s.is_empty() {
            let _ = write!(text, ",{}", csv_field(track.name()));
        } else {
            for suffix in s {
                let _ = write!(
                    text,
                    ",{}",
                    csv_field(&format!("{}.{suffix}", track.name()))
                );
            }
        }
    }
    text.push('\n');
    let default = default_range(stream);
    let from = args.from.map(f64::ceil).or(default.map(|d| d.0));
    let to = args.to.map(f64::floor).or(default.map(|d| d.1));
    let (Some(from), Some(to)) = (from, to) else {
        return Ok(text);
    };
    if from > to {
        return Ok(text);
    }
    let rows = (((to - from) / rate).floor() as u64).saturating_add(1);
    crate::sample::check_cells(
        "play",
        rows,
        stream.total_components(),
        "narrow --from/--to or raise --rate",
    )?;
    let (start, step) = if reverse {
        (from + (rows - 1) as f64 * rate, -rate)
    } else {
        (from, rate)
    };
    let mut players: Vec<TrackPlayer<'_>> = stream.tracks().map(TrackPlayer::new).collect();
    for p in &mut players {
        p.seek(start).map_err(|e| CliError::Usage(e.to_string()))?;
        p.set_step(step)
            .map_err(|e| CliError::Usage(e.to_string()))?;
    }
    let mut values = vec![0.0; stream.total_components()];
    let integral = rate == 1.0;
    for row in 0..rows {
        if row > 0 {
            for p in &mut players {
                p.advance();
            }
        }
        let mut at = 0;
        for p in &players {
            at += p.write(&mut values[at..]);
        }
        let frame = start + row as f64 * step;
        if integral {
            let _ = write_csv_row(frame as i64, &values, &mut text);
        } else {
            let _ = write!(text, "{frame}");
            for v in &values {
                let _ = write!(text, ",{v}");
            }
            text.push('\n');
        }
    }
    Ok(text)
}

/// Runs `inbetween play`.
pub fn run(args: &PlayArgs<'_>) -> Result<(), CliError> {
    let bytes = read_stream(args.input)?;
    let stream = parse_stream(args.input, &bytes)?;
    let text = render(&stream, args)?;
    write_output(args.output, text.as_bytes())
}
