//! `inbetween plot`: value-over-frame curves and spatial paths as SVG or PNG.
//!
//! One row per track: the curve of every component over the frames (exact values from
//! `Track::eval`, a small dot at every integer frame, keys ringed, segment kinds and eases
//! labelled above), and for vec2/vec3 tracks the (x, y) path at equal scale with a dot at every
//! integer frame, so the spacing of the dots shows the speed.

mod draw;
mod model;

use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use inbetween::{Document, Track};
use plotters::prelude::*;

use crate::error::{refused, CliError, Refusal};
use crate::input::load_document;
use crate::output::write_atomic;

pub use self::draw::PictureSize;
use self::draw::{Panel, PanelKind};
pub use self::model::Plane;
use self::model::TrackPlot;

/// The bundled font (DejaVu Sans 2.37, licence in assets/DejaVuSans-LICENSE.txt): text in PNG
/// pictures is rasterised from it, and SVG text is measured with it.
const FONT_BYTES: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// The tallest PNG written, pixels (viewers struggle beyond about 32 000).
pub const MAX_PNG_HEIGHT: u32 = 32_400;

/// The most tracks drawn in one picture: 100 (an SVG of about 3 MB; 10 000 tracks once made
/// 293 MB). Pick one with `--track`.
pub const MAX_PLOT_TRACKS: usize = 100;

/// Arguments of `inbetween plot`.
#[derive(clap::Args, Debug)]
pub struct PlotArgs {
    /// The animation document (JSON, or glTF; `-` reads JSON from standard input).
    pub input: PathBuf,
    /// The picture to write: .svg or .png (`-`: SVG on standard output). Default: the input's
    /// name with .svg (standard output for `-` input).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Plot only these tracks (repeatable; a name, or a pattern with `*` and `?` such as
    /// `'hips/*'`); default: all. Tracks are drawn in document order.
    #[arg(long, value_name = "NAME")]
    pub track: Vec<String>,
    /// The plane of a vec3 track's path: `auto` (the two components that vary most), `xy`,
    /// `xz` or `yz`.
    #[arg(long, value_enum, default_value_t = Plane::Auto)]
    pub plane: Plane,
    /// Width of the picture, pixels (400 to 8000).
    #[arg(long, default_value_t = draw::WIDTH, value_parser = clap::value_parser!(u32).range(400..=8000))]
    pub width: u32,
    /// Height of each track's row, pixels (200 to 4000).
    #[arg(long, default_value_t = draw::ROW_HEIGHT, value_parser = clap::value_parser!(u32).range(200..=4000))]
    pub height: u32,
    /// Print nothing on success.
    #[arg(short, long)]
    pub quiet: bool,
}

/// What a picture shows: which tracks (none: all), the plane of vec3 paths, and its size.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlotOptions<'a> {
    /// `--track` names and patterns.
    pub selection: &'a [String],
    /// `--plane`.
    pub plane: Plane,
    /// `--width`, `--height`.
    pub size: PictureSize,
    /// Draw the tracks of one node (`NODE/translation`, `NODE/rotation`, …) together, nodes in
    /// the order they first appear: for documents imported from glTF.
    pub group_by_node: bool,
}

/// The picture formats, chosen by the output's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PictureFormat {
    Svg,
    Png,
}

/// `.svg` or `.png` (case-insensitive), SVG for `-`; anything else is a usage error.
fn picture_format(path: &Path) -> Result<PictureFormat, CliError> {
    if crate::output::is_stdout(path) {
        return Ok(PictureFormat::Svg);
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext.eq_ignore_ascii_case("svg") {
        Ok(PictureFormat::Svg)
    } else if ext.eq_ignore_ascii_case("png") {
        Ok(PictureFormat::Png)
    } else {
        Err(CliError::Usage(format!(
            "cannot tell the picture format of {}: the output must end in .svg or .png",
            path.display()
        )))
    }
}

/// The node of a glTF channel's track name `NODE/PATH` (the whole name without a `/`).
fn node_of(name: &str) -> &str {
    name.rsplit_once('/').map_or(name, |(node, _)| node)
}

/// Orders `tracks` so that each node's tracks are together, nodes in the order they first
/// appear and tracks in their order within a node (a stable sort).
fn group_by_node(tracks: &mut [&Track]) {
    let mut first_seen: Vec<&str> = Vec::new();
    for t in tracks.iter() {
        let node = node_of(t.name());
        if !first_seen.contains(&node) {
            first_seen.push(node);
        }
    }
    let rank = |t: &Track| first_seen.iter().position(|n| *n == node_of(t.name()));
    let ranks: Vec<Option<usize>> = tracks.iter().map(|t| rank(t)).collect();
    let mut order: Vec<usize> = (0..tracks.len()).collect();
    order.sort_by_key(|&i| ranks[i]);
    let sorted: Vec<&Track> = order.iter().map(|&i| tracks[i]).collect();
    tracks.copy_from_slice(&sorted);
}

/// True when `name` matches `pattern`, in which `*` stands for any run of characters and `?`
/// for one character.
fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut i, mut j) = (0, 0);
    // The last `*` seen and the name position it was tried at, to backtrack to.
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

/// The tracks to plot, in document order: all (at most [`MAX_PLOT_TRACKS`]), or those named or
/// matched by `patterns` (a usage error naming the available tracks for a pattern that matches
/// none).
fn selected_tracks<'a>(doc: &'a Document, patterns: &[String]) -> Result<Vec<&'a Track>, CliError> {
    for pattern in patterns {
        if !doc.tracks().iter().any(|t| glob_match(pattern, t.name())) {
            let names: Vec<&str> = doc.tracks().iter().map(Track::name).collect();
            return Err(CliError::Usage(format!(
                "--track {pattern:?}: no such track; the document has {}",
                names.join(", ")
            )));
        }
    }
    let tracks: Vec<&Track> = doc
        .tracks()
        .iter()
        .filter(|t| patterns.is_empty() || patterns.iter().any(|p| glob_match(p, t.name())))
        .collect();
    if tracks.len() > MAX_PLOT_TRACKS {
        return Err(CliError::Usage(format!(
            "{} tracks are more than plot draws in one picture ({MAX_PLOT_TRACKS}); pick fewer \
             with --track NAME (repeatable, with * and ? patterns)",
            tracks.len()
        )));
    }
    Ok(tracks)
}

/// Refuses a key whose frame or value a plot cannot draw (beyond ±[`model::MAX_DRAWN`]).
fn check_drawable(source: &Path, tracks: &[&Track]) -> Result<(), CliError> {
    for track in tracks {
        for (i, key) in track.keys().iter().enumerate() {
            let bad = std::iter::once(("frame", key.frame))
                .chain(key.value.as_slice().iter().map(|v| ("value", *v)))
                .find(|(_, v)| !model::drawable(*v));
            if let Some((what, v)) = bad {
                return Err(refused(source)(Refusal::Cannot(format!(
                    "track {:?}, key {i}: {what} {v:e} is beyond ±{:e}, the largest number \
                     plot draws",
                    track.name(),
                    model::MAX_DRAWN
                ))));
            }
        }
    }
    Ok(())
}

/// Samples the selected tracks over their common frame axis.
fn track_plots(
    source: &Path,
    doc: &Document,
    options: &PlotOptions<'_>,
) -> Result<Vec<TrackPlot>, CliError> {
    let mut tracks = selected_tracks(doc, options.selection)?;
    if options.group_by_node {
        group_by_node(&mut tracks);
    }
    let plane = options.plane;
    check_drawable(source, &tracks)?;
    let axis = model::frame_axis(&tracks);
    let frames = model::integer_frames(&tracks);
    Ok(tracks
        .iter()
        .map(|t| model::track_plot_in(t, axis, frames, plane))
        .collect())
}

/// Registers the bundled font with plotters (once per process).
fn register_font() -> Result<(), Box<dyn Error>> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(draw::FONT, FontStyle::Normal, FONT_BYTES).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err("the bundled font DejaVuSans.ttf could not be read".into())
    }
}

/// Draws one panel onto `area`.
fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    panel: &Panel,
    plots: &[TrackPlot],
) -> draw::Drawn
where
    DB::ErrorType: 'static,
{
    let plot = &plots[panel.track];
    match (panel.kind, &plot.path) {
        (PanelKind::Curves, _) => draw::draw_curves(area, plot),
        (PanelKind::Path, Some(path)) => draw::draw_path(area, plot, path),
        (PanelKind::Path, None) => Ok(()),
    }
}

/// `text` with the five XML special characters escaped, for attribute values.
fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

/// The SVG picture: each panel drawn by plotters as its own `<svg>`, placed in a
/// `<g class="panel curves|path" data-track="NAME">` of one outer `<svg>`.
fn svg_of(plots: &[TrackPlot], size: PictureSize) -> Result<String, Box<dyn Error>> {
    register_font()?;
    let (panels, (width, height)) = draw::layout(plots, size);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">\n<title>inbetween plot</title>\n\
         <rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n"
    );
    for panel in &panels {
        let mut inner = String::new();
        {
            let area = SVGBackend::with_string(&mut inner, (panel.width, panel.height))
                .into_drawing_area();
            draw_panel(&area, panel, plots)?;
            area.present()?;
        }
        let class = match panel.kind {
            PanelKind::Curves => "curves",
            PanelKind::Path => "path",
        };
        svg.push_str(&format!(
            "<g class=\"panel {class}\" data-track=\"{}\" transform=\"translate({},{})\">\n",
            xml_escape(&plots[panel.track].name),
            panel.x,
            panel.y
        ));
        svg.push_str(&inner);
        svg.push_str("</g>\n");
    }
    svg.push_str("</svg>\n");
    Ok(svg)
}

/// The PNG picture: every panel drawn into one RGB buffer, then encoded.
fn png_of(plots: &[TrackPlot], size: PictureSize) -> Result<Vec<u8>, Box<dyn Error>> {
    register_font()?;
    let (panels, (width, height)) = draw::layout(plots, size);
    let mut rgb = vec![255u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        for panel in &panels {
            let area = root
                .clone()
                .shrink((panel.x, panel.y), (panel.width, panel.height));
            draw_panel(&area, panel, plots)?;
        }
        root.present()?;
    }
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(bytes)
}

/// A drawing failure (a backend or font error) as a write error for `path`: nothing is written.
fn drawing_failed(path: &Path, error: &dyn Error) -> CliError {
    CliError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(format!("drawing failed: {error}")),
    }
}

/// The SVG picture of `doc` (read from `source`; all tracks, or only `track`), as
/// `plot -o X.svg` writes it.
pub fn render_svg(
    source: &Path,
    doc: &Document,
    options: &PlotOptions<'_>,
) -> Result<String, CliError> {
    let plots = track_plots(source, doc, options)?;
    svg_of(&plots, options.size).map_err(|e| drawing_failed(Path::new("<SVG picture>"), e.as_ref()))
}

/// The PNG picture of `doc` (read from `source`; all tracks, or only `track`), as
/// `plot -o X.png` writes it.
pub fn render_png(
    source: &Path,
    doc: &Document,
    options: &PlotOptions<'_>,
) -> Result<Vec<u8>, CliError> {
    let plots = track_plots(source, doc, options)?;
    let (_, (_, height)) = draw::layout(&plots, options.size);
    if height > MAX_PNG_HEIGHT {
        return Err(CliError::Usage(format!(
            "{} tracks make a PNG {height} pixels tall (at most {MAX_PNG_HEIGHT}); \
             pick one with --track or write .svg",
            plots.len()
        )));
    }
    png_of(&plots, options.size).map_err(|e| drawing_failed(Path::new("<PNG picture>"), e.as_ref()))
}

/// Runs `inbetween plot`: checks the output's extension, reads the document, draws the picture
/// in memory and writes it atomically.
pub fn run(args: &PlotArgs) -> Result<(), CliError> {
    let output = crate::output::default_output(&args.input, args.output.as_deref(), "svg");
    let format = picture_format(&output)?;
    crate::output::check_output(Some(&output))?;
    let doc = load_document(&args.input)?;
    let track = &args.track;
    let options = PlotOptions {
        selection: track,
        plane: args.plane,
        size: PictureSize {
            width: args.width,
            row_height: args.height,
        },
        group_by_node: crate::input::is_gltf(&args.input),
    };
    let bytes = match format {
        PictureFormat::Svg => render_svg(&args.input, &doc, &options).map(String::into_bytes),
        PictureFormat::Png => render_png(&args.input, &doc, &options),
    }
    .map_err(|e| match e {
        CliError::Write { source, .. } => CliError::Write {
            path: output.clone(),
            source,
        },
        other => other,
    })?;
    write_atomic(&output, &bytes)?;
    if !args.quiet {
        let tracks = selected_tracks(&doc, track).map_or(0, |t| t.len());
        let text = format!(
            "plot of {tracks} track{} ({}): {} bytes → {}\n",
            if tracks == 1 { "" } else { "s" },
            match format {
                PictureFormat::Svg => "SVG",
                PictureFormat::Png => "PNG",
            },
            bytes.len(),
            crate::output::display_name(&output)
        );
        crate::output::print_report(&output, &text);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (cx, cy, r) of every `<circle>` in `svg`.
    fn circles(svg: &str) -> Vec<(f64, f64, f64)> {
        let attr = |tag: &str, name: &str| -> f64 {
            let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            let end = start + tag[start..].find('"').unwrap();
            tag[start..end].parse().unwrap()
        };
        svg.split("<circle")
            .skip(1)
            .map(|tag| (attr(tag, "cx"), attr(tag, "cy"), attr(tag, "r")))
            .collect()
    }

    #[test]
    fn a_curve_point_lands_at_its_pixel() {
        // value = 10·frame over frames 0..=10. The plot area covers pixel columns 74 ..= 1261
        // (left margin 8 + y-label area 66; the panel's 1280 less the right margin 18, last
        // pixel 1261) and rows 78 ..= 315 (title 36 + label strip 42; 360 less the bottom
        // margin 6 and the x-label area 38, last pixel 315); values span −6 ..= 106 (6 %
        // padding of 0 ..= 100). Pixels are whole, so a point is within 1 of the exact place.
        let doc = Document::builder()
            .track(Track::scalar("line").key(0.0, 0.0).key(10.0, 100.0))
            .build()
            .unwrap();
        let svg = render_svg(Path::new("t.json"), &doc, &PlotOptions::default()).unwrap();
        let px = |frame: f64| 74.0 + frame / 10.0 * (1261.0 - 74.0);
        let py = |value: f64| 315.0 - (value + 6.0) / 112.0 * (315.0 - 78.0);
        let all = circles(&svg);
        let keys: Vec<_> = all
            .iter()
            .filter(|c| c.2 == f64::from(draw::KEY_RADIUS))
            .collect();
        assert_eq!(keys.len(), 4, "two circles (fill, ring) per key");
        for (key, (frame, value)) in keys.iter().step_by(2).zip([(0.0, 0.0), (10.0, 100.0)]) {
            assert!(
                (key.0 - px(frame)).abs() <= 1.0,
                "{key:?} vs x {}",
                px(frame)
            );
            assert!(
                (key.1 - py(value)).abs() <= 1.0,
                "{key:?} vs y {}",
                py(value)
            );
        }
        let dots: Vec<_> = all
            .iter()
            .filter(|c| c.2 == f64::from(draw::CURVE_DOT_RADIUS))
            .collect();
        assert_eq!(dots.len(), 11, "a dot at every integer frame 0..=10");
        // Frame 7: value 70.
        assert!((dots[7].0 - px(7.0)).abs() <= 1.0, "{:?}", dots[7]);
        assert!((dots[7].1 - py(70.0)).abs() <= 1.0, "{:?}", dots[7]);
    }

    #[test]
    fn unknown_track_lists_the_names() {
        let doc = Document::builder()
            .track(Track::scalar("alpha").key(0.0, 0.0).key(1.0, 1.0))
            .track(
                Track::vec2("beta")
                    .key(0.0, [0.0, 0.0])
                    .key(1.0, [1.0, 1.0]),
            )
            .build()
            .unwrap();
        let selection = ["gamma".to_string()];
        let options = PlotOptions {
            selection: &selection,
            ..PlotOptions::default()
        };
        let err = render_svg(Path::new("t.json"), &doc, &options).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("alpha, beta"), "{err}");
    }

    #[test]
    fn patterns_select_tracks_in_document_order() {
        assert!(glob_match("hips/*", "hips/rotation"));
        assert!(glob_match("*/rot*", "spine/rotation"));
        assert!(glob_match("a?c", "abc"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("hips/*", "spine/rotation"));
        assert!(!glob_match("a?c", "ac"));
        assert!(glob_match("*a*b", "xaxxab"));
        let doc = Document::builder()
            .track(Track::scalar("a/x").key(0.0, 0.0))
            .track(Track::scalar("b").key(0.0, 0.0))
            .track(Track::scalar("a/y").key(0.0, 0.0))
            .build()
            .unwrap();
        let names = |sel: &[&str]| -> Vec<String> {
            let sel: Vec<String> = sel.iter().map(|s| s.to_string()).collect();
            selected_tracks(&doc, &sel)
                .unwrap()
                .iter()
                .map(|t| t.name().to_string())
                .collect()
        };
        assert_eq!(names(&["b", "a/*"]), ["a/x", "b", "a/y"]);
        assert_eq!(names(&["a/y", "a/?"]), ["a/x", "a/y"]);
        let mut all: Vec<&Track> = doc.tracks().iter().collect();
        group_by_node(&mut all);
        let grouped: Vec<&str> = all.iter().map(|t| t.name()).collect();
        assert_eq!(grouped, ["a/x", "a/y", "b"]);
    }

    #[test]
    fn the_extension_decides_the_format() {
        assert_eq!(
            picture_format(Path::new("a/b.SVG")).unwrap(),
            PictureFormat::Svg
        );
        assert_eq!(
            picture_format(Path::new("b.Png")).unwrap(),
            PictureFormat::Png
        );
        for bad in ["b.jpg", "b", "svg", "b.svg.txt"] {
            assert_eq!(picture_format(Path::new(bad)).unwrap_err().exit_code(), 2);
        }
    }

    #[test]
    fn names_are_escaped_in_attributes() {
        assert_eq!(xml_escape(r#"a<b>&"c'"#), "a&lt;b&gt;&amp;&quot;c&apos;");
    }
}
