//! `inbetween play`: a compiled stream played frame by frame into the same CSV as `sample`.

use std::fmt::Write as _;
use std::path::Path;

use inbetween::player::{Player, TrackPlayer};
use inbetween::sample::csv_field;
use inbetween::stream::{Stream, StreamValueType};

use crate::error::CliError;
use crate::numbers;
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

/// Validates a stream's bytes (the one validation: after it nothing can fail); a JSON document
/// is refused saying to compile it first.
pub fn parse_stream<'b>(path: &Path, bytes: &'b [u8]) -> Result<Stream<'b>, CliError> {
    crate::sniff::refuse_document(path, bytes)?;
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
    /// Decimals of every value (default: each track's tolerance's, [`crate::numbers`]).
    pub digits: Option<usize>,
    /// The values as played: shortest exact digits, quaternions not renormalized.
    pub exact: bool,
    /// No report.
    pub quiet: bool,
}

/// Plays the stream into CSV text; also returns the number of rows.
pub fn render(stream: &Stream<'_>, args: &PlayArgs<'_>) -> Result<(String, u64), CliError> {
    // A negative rate plays backward: the same as --reverse with |rate| (both: forward).
    let (rate, reverse) = crate::sample::check_rate(args.rate, args.reverse)?;
    crate::sample::check_from_to(args.from, args.to)?;
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
        return Ok((text, 0));
    };
    if from > to {
        return Ok((text, 0));
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
    // The library's multi-track player over one cursor slot per track.
    let mut slots = vec![TrackPlayer::default(); stream.track_count()];
    let usage = |e: inbetween::player::PlayerError| CliError::Usage(e.to_string());
    let mut player = Player::new(stream, &mut slots).map_err(usage)?;
    player.seek(start).map_err(usage)?;
    player.set_step(step).map_err(usage)?;
    let mut values = vec![0.0; stream.total_components()];
    let (decimals, quats) = if args.exact {
        (vec![None; stream.total_components()], Vec::new())
    } else {
        columns(stream, args.digits)
    };
    for row in 0..rows {
        if row > 0 {
            player.advance();
        }
        player.write(&mut values);
        numbers::renormalize_quats(&mut values, &quats);
        let frame = numbers::frame_label(start, step, row);
        numbers::write_row(&frame, &values, &decimals, &mut text);
    }
    Ok((text, rows))
}

/// The decimals of each value column (`digits`, else the track's tolerance's) and the offsets
/// of the quaternion columns.
fn columns(stream: &Stream<'_>, digits: Option<usize>) -> (Vec<Option<usize>>, Vec<usize>) {
    let mut tolerances = Vec::with_capacity(stream.total_components());
    let mut quats = Vec::new();
    for track in stream.tracks() {
        if track.value_type() == StreamValueType::Quat {
            quats.push(tolerances.len());
        }
        let n = suffixes(track.value_type()).len().max(1);
        tolerances.extend(std::iter::repeat(track.tolerance()).take(n));
    }
    (numbers::column_decimals(digits, &tolerances), quats)
}

/// Runs `inbetween play`.
pub fn run(args: &PlayArgs<'_>) -> Result<(), CliError> {
    let bytes = read_stream(args.input)?;
    let stream = parse_stream(args.input, &bytes)?;
    let (text, rows) = render(&stream, args)?;
    write_output(args.output, text.as_bytes())?;
    if !args.quiet {
        crate::sample::report_rows(args.output, rows, stream.total_components(), text.len());
    }
    Ok(())
}
