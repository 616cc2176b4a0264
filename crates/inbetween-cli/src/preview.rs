//! `inbetween preview`: one self-contained HTML page that plays the compiled stream.
//!
//! The document is compiled exactly as `inbetween compile` would (same options and defaults),
//! every integer frame of the range is played with `inbetween::player::TrackPlayer` from the
//! first frame, and those played values — with each track's name, type, wrap, keys, segment kinds,
//! tolerance and measured error — are embedded as JSON in `assets/preview.html`. The page
//! only looks values up; it never evaluates a curve, so what it shows is what the stream plays.
//!
//! The JSON sits in `<script type="application/json">`; every `<`, `>` and `&` in it is written
//! as `\u003c`, `\u003e`, `\u0026` (and U+2028/U+2029 escaped), so no string in a document (a
//! track named `</script>`, say) can end the element early.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use inbetween::compile::{CompileOptions, CompiledStream, DEFAULT_MAX_DEGREE};
use inbetween::player::TrackPlayer;
use inbetween::stream::{Precision, Stream};
use inbetween::{Document, PathMode, Track, ValueType};

use crate::compile::compile_document;
use crate::error::{refused, CliError};
use crate::input::load_document;
use crate::output::write_atomic;
use crate::sample::frame_range;
use crate::PrecisionArg;

/// The page: HTML, CSS and vanilla JavaScript, no external resources.
pub const TEMPLATE: &str = include_str!("../assets/preview.html");

/// What `TEMPLATE` holds, once, where the JSON data goes.
pub const DATA_PLACEHOLDER: &str = "__INBETWEEN_PREVIEW_DATA__";

/// The most played values (frames × value columns) a page embeds: about 20 MB of HTML at
/// ~20 bytes per number, which a browser still opens in a second or two.
pub const MAX_EMBEDDED_VALUES: u64 = 1_000_000;

/// Arguments of `inbetween preview`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
The page embeds the values the compiled stream plays at every integer frame (at most 1000000 \
values, frames × columns; narrow --from/--to for longer documents) and needs nothing else: \
open it offline in any browser. Keys: space plays/pauses, ← → step a frame, Home/End jump.")]
pub struct PreviewArgs {
    /// The animation document (JSON, or glTF; `-` reads JSON from standard input).
    pub input: PathBuf,
    /// The HTML file to write (atomically; `-`: standard output, the summary then goes to
    /// standard error). Default: the input's name with .html (standard output for `-` input).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// First frame shown (default: ⌈earliest first key⌉).
    #[arg(long, allow_hyphen_values = true)]
    pub from: Option<f64>,
    /// Last frame shown (default: ⌊latest last key⌋).
    #[arg(long, allow_hyphen_values = true)]
    pub to: Option<f64>,
    /// Precision of the stream played, as `compile --precision`; the default is compile's, so
    /// the page shows what `inbetween compile` ships.
    #[arg(long, value_enum, default_value_t = PrecisionArg::F64)]
    pub precision: PrecisionArg,
    /// Largest error allowed at any frame, in value units, as `compile --tolerance`
    /// (default: 1e-6 × each track's scale); positive.
    #[arg(long, allow_hyphen_values = true)]
    pub tolerance: Option<f64>,
    /// Highest polynomial degree of a piece (0..=8), as `compile --max-degree`.
    #[arg(long, default_value_t = DEFAULT_MAX_DEGREE)]
    pub max_degree: u8,
    /// Print nothing on success.
    #[arg(short, long)]
    pub quiet: bool,
}

/// How a page is made: the compile options, the frames shown and the page's title.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewOptions {
    /// Options of the compile whose stream the page plays.
    pub compile: CompileOptions,
    /// First frame shown (`None`: the document's first integer frame).
    pub from: Option<f64>,
    /// Last frame shown (`None`: the document's last integer frame).
    pub to: Option<f64>,
    /// Shown as the page's title and heading.
    pub title: String,
}

impl Default for PreviewOptions {
    fn default() -> Self {
        Self {
            compile: CompileOptions::default(),
            from: None,
            to: None,
            title: "inbetween preview".to_string(),
        }
    }
}

/// The page for `doc` (read from `source`, which errors name) with the default options (f64
/// stream, default tolerance, every frame).
///
/// # Errors
/// `Usage` when the frame range is empty or too long to embed; `Refused` when the compiler
/// refuses the document.
pub fn render_html(source: &Path, doc: &Document) -> Result<String, CliError> {
    render_html_with(source, doc, &PreviewOptions::default())
}

/// The page for `doc` (read from `source`) with `options`.
///
/// # Errors
/// `Usage` when the frame range is empty or holds more than `MAX_EMBEDDED_VALUES` values;
/// `Refused` when the compiler refuses the document.
pub fn render_html_with(
    source: &Path,
    doc: &Document,
    options: &PreviewOptions,
) -> Result<String, CliError> {
    let (from, to) = preview_range(source, doc, options.from, options.to)?;
    let compiled = compile_document(source, doc, &options.compile)?;
    let stream = Stream::from_bytes(&compiled.bytes)
        .map_err(|e| refused(source)(inbetween::compile::CompileError::Stream(e)))?;
    let data = preview_json(doc, (&compiled, &stream), options, from, to)?;
    Ok(fill_template(&data))
}

/// Puts `data` (JSON already escaped for a script element) into the template.
fn fill_template(data: &str) -> String {
    TEMPLATE.replacen(DATA_PLACEHOLDER, data, 1)
}

/// The integer frames shown, refusing an empty range and one too long to embed.
fn preview_range(
    source: &Path,
    doc: &Document,
    from: Option<f64>,
    to: Option<f64>,
) -> Result<(i64, i64), CliError> {
    let Some((lo, hi)) = frame_range(source, doc, from, to)? else {
        return Err(CliError::Usage(
            "nothing to preview: the frame range holds no integer frame".to_string(),
        ));
    };
    let frames = hi.abs_diff(lo).saturating_add(1);
    let columns = u64::try_from(doc.columns()).unwrap_or(u64::MAX);
    let values = frames.saturating_mul(columns);
    if values > MAX_EMBEDDED_VALUES {
        return Err(CliError::Usage(format!(
            "the preview would embed {frames} frames × {columns} columns = {values} values, more \
             than the {MAX_EMBEDDED_VALUES} a page holds; narrow --from/--to"
        )));
    }
    Ok((lo, hi))
}

/// Plays `track` at every integer frame `from..=to` (seek to `from`, then one `advance` per
/// frame); the values by component: `result[c][frame − from]`.
fn play_track(
    track: inbetween::stream::StreamTrack<'_>,
    components: usize,
    from: i64,
    to: i64,
) -> Result<Vec<Vec<f64>>, CliError> {
    let frames = usize::try_from(to.abs_diff(from)).map_or(usize::MAX, |d| d.saturating_add(1));
    let mut values = vec![Vec::with_capacity(frames); components];
    let mut player = TrackPlayer::new(track);
    player
        .seek(from as f64)
        .map_err(|e| CliError::Usage(format!("cannot play track {:?}: {e}", track.name())))?;
    let mut value = [0.0; 4];
    for frame in from..=to {
        if frame > from {
            player.advance();
        }
        let n = player.write(&mut value);
        for (column, v) in values.iter_mut().zip(&value[..n]) {
            column.push(*v);
        }
    }
    Ok(values)
}

/// The component names the page shows: `x y …`, `r g b a`, or `value` for a scalar.
fn component_names(value_type: ValueType) -> &'static [&'static str] {
    match value_type.component_names() {
        [] => &["value"],
        names => names,
    }
}

/// The CSV column names of a track, as `sample` writes them (unquoted).
fn column_names(track: &Track) -> Vec<String> {
    match track.value_type().component_names() {
        [] => vec![track.name().to_string()],
        names => names
            .iter()
            .map(|c| format!("{}.{c}", track.name()))
            .collect(),
    }
}

/// The page's data (`window`'s JSON), fields in the order the page reads them.
#[derive(serde::Serialize)]
struct PreviewData<'a> {
    title: &'a str,
    generator: &'a str,
    fps: f64,
    from: i64,
    to: i64,
    precision: &'a str,
    bytes: usize,
    tracks: Vec<PreviewTrack<'a>>,
}

/// One track of [`PreviewData`].
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct PreviewTrack<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    value_type: &'a str,
    wrap: &'a str,
    /// Under arc-length timing keys are not reached at their frames: the page then marks them
    /// on the path only.
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    path_ease: Option<String>,
    components: &'a [&'a str],
    columns: Vec<String>,
    tolerance: f64,
    max_error: f64,
    pieces: usize,
    max_degree: u8,
    track_bytes: usize,
    keys: Vec<PreviewKey<'a>>,
    values: Vec<Vec<f64>>,
}

/// One key of [`PreviewTrack`]; the last key starts no segment, so it has no kind or ease.
#[derive(serde::Serialize)]
struct PreviewKey<'a> {
    frame: f64,
    value: &'a [f64],
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ease: Option<String>,
}

/// The page's data as JSON safe inside a script element (see the module docs), written by
/// serde_json (NaN and infinities as `null`) and then made inert by [`script_safe`].
fn preview_json(
    doc: &Document,
    (compiled, stream): (&CompiledStream, &Stream<'_>),
    options: &PreviewOptions,
    from: i64,
    to: i64,
) -> Result<String, CliError> {
    let precision: Precision = options.compile.precision;
    let mut tracks = Vec::with_capacity(doc.tracks().len());
    for ((track, played), report) in doc
        .tracks()
        .iter()
        .zip(stream.tracks())
        .zip(&compiled.reports)
    {
        let summary = &report.summary;
        let (path, path_ease) = match track.path() {
            PathMode::Keys => ("keys", None),
            PathMode::Arclength { ease } => ("arclength", Some(ease.name())),
            PathMode::SegmentArclength => ("segment_arclength", None),
        };
        let last = track.keys().len().saturating_sub(1);
        let keys = track
            .keys()
            .iter()
            .enumerate()
            .map(|(k, key)| PreviewKey {
                frame: key.frame,
                value: key.value.as_slice(),
                kind: (k < last).then(|| key.interp.name()),
                ease: (k < last).then(|| key.ease.name()),
            })
            .collect();
        tracks.push(PreviewTrack {
            name: track.name(),
            value_type: track.value_type().name(),
            wrap: track.wrap().name(),
            path,
            path_ease,
            components: component_names(track.value_type()),
            columns: column_names(track),
            tolerance: summary.tolerance,
            max_error: summary.max_error,
            pieces: summary.pieces,
            max_degree: summary.max_degree,
            track_bytes: summary.bytes,
            keys,
            values: play_track(played, track.components(), from, to)?,
        });
    }
    let data = PreviewData {
        title: &options.title,
        generator: concat!("inbetween ", env!("CARGO_PKG_VERSION")),
        fps: doc.fps(),
        from,
        to,
        precision: precision.name(),
        bytes: compiled.bytes.len(),
        tracks,
    };
    // Serializing plain structs into a String cannot fail.
    let json = serde_json::to_string(&data).unwrap_or_default();
    Ok(script_safe(&json))
}

/// JSON text made inert inside an HTML script element: `<`, `>`, `&`, U+2028 and U+2029 (which
/// JSON text holds only inside strings) written as `\uXXXX` escapes, so no `</script>` or
/// `<!--` can appear.
fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for ch in json.chars() {
        match ch {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(ch));
            }
            c => out.push(c),
        }
    }
    out
}

/// The page title for a document file: its file name.
fn title_for(input: &Path) -> String {
    input.file_name().map_or_else(
        || "inbetween preview".to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Runs `inbetween preview`.
pub fn run(args: &PreviewArgs) -> Result<(), CliError> {
    crate::check_tolerance(args.tolerance)?;
    let output = crate::output::default_output(&args.input, args.output.as_deref(), "html");
    crate::output::check_output(Some(&output))?;
    let doc = load_document(&args.input)?;
    let options = PreviewOptions {
        compile: CompileOptions {
            tolerance: args.tolerance,
            precision: args.precision.into(),
            max_degree: args.max_degree,
            normalize: true,
            ..CompileOptions::default()
        },
        from: args.from,
        to: args.to,
        title: title_for(&args.input),
    };
    let html = render_html_with(&args.input, &doc, &options)?;
    write_atomic(&output, html.as_bytes())?;
    if !args.quiet {
        let (from, to) = preview_range(&args.input, &doc, args.from, args.to)?;
        let text = format!(
            "preview of {} tracks, frames {from}..={to} ({} stream): {} bytes → {}\n",
            doc.tracks().len(),
            options.compile.precision,
            html.len(),
            crate::output::display_name(&output)
        );
        crate::output::print_report(&output, &text);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_has_one_placeholder() {
        assert_eq!(TEMPLATE.matches(DATA_PLACEHOLDER).count(), 1);
    }

    #[test]
    fn strings_cannot_close_the_script_element() {
        let json = serde_json::to_string("a</script><!--\"\\\n\u{1}\u{2028}&").unwrap_or_default();
        assert_eq!(
            script_safe(&json),
            "\"a\\u003c/script\\u003e\\u003c!--\\\"\\\\\\n\\u0001\\u2028\\u0026\""
        );
    }

    #[test]
    fn numbers_are_json() {
        let json = serde_json::to_string(&[1.0, -0.5, 1e-300, 1e300, f64::NAN, 0.1 + 0.2])
            .unwrap_or_default();
        assert_eq!(json, "[1.0,-0.5,1e-300,1e+300,null,0.30000000000000004]");
    }
}
