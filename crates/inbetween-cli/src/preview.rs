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

/// The page's data as JSON safe inside a script element (see the module docs).
fn preview_json(
    doc: &Document,
    (compiled, stream): (&CompiledStream, &Stream<'_>),
    options: &PreviewOptions,
    from: i64,
    to: i64,
) -> Result<String, CliError> {
    let precision: Precision = options.compile.precision;
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("{\"title\":");
    push_string(&mut out, &options.title);
    out.push_str(",\"generator\":");
    push_string(&mut out, concat!("inbetween ", env!("CARGO_PKG_VERSION")));
    out.push_str(",\"fps\":");
    push_number(&mut out, doc.fps());
    let _ = write!(out, ",\"from\":{from},\"to\":{to},\"precision\":");
    push_string(&mut out, precision.name());
    out.push_str(",\"bytes\":");
    push_number(&mut out, compiled.bytes.len() as f64);
    out.push_str(",\"tracks\":[");
    for (index, ((track, played), report)) in doc
        .tracks()
        .iter()
        .zip(stream.tracks())
        .zip(&compiled.reports)
        .enumerate()
    {
        if index > 0 {
            out.push(',');
        }
        let summary = &report.summary;
        out.push_str("{\"name\":");
        push_string(&mut out, track.name());
        out.push_str(",\"type\":");
        push_string(&mut out, track.value_type().name());
        out.push_str(",\"wrap\":");
        push_string(&mut out, track.wrap().name());
        // Under arc-length timing keys are not reached at their frames: the page then marks
        // them on the path only.
        out.push_str(",\"path\":");
        match track.path() {
            PathMode::Keys => push_string(&mut out, "keys"),
            PathMode::Arclength { ease } => {
                push_string(&mut out, "arclength");
                out.push_str(",\"pathEase\":");
                push_string(&mut out, &ease.name());
            }
            PathMode::SegmentArclength => push_string(&mut out, "segment_arclength"),
        }
        out.push_str(",\"components\":");
        push_strings(&mut out, component_names(track.value_type()));
        out.push_str(",\"columns\":");
        push_strings(&mut out, &column_names(track));
        out.push_str(",\"tolerance\":");
        push_number(&mut out, summary.tolerance);
        out.push_str(",\"maxError\":");
        push_number(&mut out, summary.max_error);
        let _ = write!(
            out,
            ",\"pieces\":{},\"maxDegree\":{},\"trackBytes\":{}",
            summary.pieces, summary.max_degree, summary.bytes
        );
        out.push_str(",\"keys\":[");
        for (k, key) in track.keys().iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            out.push_str("{\"frame\":");
            push_number(&mut out, key.frame);
            out.push_str(",\"value\":");
            push_numbers(&mut out, key.value.as_slice());
            // The last key starts no segment.
            if k + 1 < track.keys().len() {
                out.push_str(",\"kind\":");
                push_string(&mut out, key.interp.name());
                out.push_str(",\"ease\":");
                push_string(&mut out, &key.ease.name());
            }
            out.push('}');
        }
        out.push_str("],\"values\":[");
        for (c, column) in play_track(played, track.components(), from, to)?
            .iter()
            .enumerate()
        {
            if c > 0 {
                out.push(',');
            }
            push_numbers(&mut out, column);
        }
        out.push_str("]}");
    }
    out.push_str("]}");
    Ok(out)
}

/// Appends `v` as a JSON number in the shortest form that reads back to the same f64
/// (`null` for NaN and infinities, which JSON cannot hold).
fn push_number(out: &mut String, v: f64) {
    if v.is_finite() {
        // `{:?}` gives the shortest round-trip digits and switches to an exponent for very
        // large or small magnitudes (`{}` would print 1e-300 with 300 zeros). Writing to a
        // String cannot fail.
        let _ = write!(out, "{v:?}");
    } else {
        out.push_str("null");
    }
}

/// Appends a JSON array of numbers.
fn push_numbers(out: &mut String, values: &[f64]) {
    out.push('[');
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_number(out, *v);
    }
    out.push(']');
}

/// Appends a JSON array of strings.
fn push_strings<S: AsRef<str>>(out: &mut String, values: &[S]) {
    out.push('[');
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_string(out, v.as_ref());
    }
    out.push(']');
}

/// Appends `text` as a JSON string that is also inert inside an HTML script element: quotes,
/// backslashes and control characters escaped as JSON requires, and `<`, `>`, `&`, U+2028,
/// U+2029 as `\uXXXX` so no `</script>` or `<!--` can appear.
fn push_string(out: &mut String, text: &str) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(ch));
            }
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
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
        let mut out = String::new();
        push_string(&mut out, "a</script><!--\"\\\n\u{1}\u{2028}&");
        assert_eq!(
            out,
            "\"a\\u003c/script\\u003e\\u003c!--\\\"\\\\\\n\\u0001\\u2028\\u0026\""
        );
    }

    #[test]
    fn numbers_are_json() {
        let mut out = String::new();
        push_numbers(&mut out, &[1.0, -0.5, 1e-300, 1e300, f64::NAN, 0.1 + 0.2]);
        assert_eq!(out, "[1.0,-0.5,1e-300,1e300,null,0.30000000000000004]");
    }
}
