//! Drawing the panels with plotters, on any backend (SVG text or an RGB buffer).

use std::error::Error;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::model::{PathPlot, TrackPlot};

/// Width of the whole picture, pixels.
pub const WIDTH: u32 = 1280;
/// Height of one track's row, pixels.
pub const ROW_HEIGHT: u32 = 360;
/// Width of a path panel (the curve panel takes the rest of the row), pixels.
pub const PATH_WIDTH: u32 = 470;

/// The font family every text uses (DejaVu Sans registered under this name).
pub const FONT: &str = "sans-serif";

/// Height of the title line at the top of a panel, pixels.
const TITLE_HEIGHT: u32 = 36;
/// Height of the strip of segment labels above a curve plot, pixels.
const LABEL_STRIP_HEIGHT: u32 = 42;
/// Colour of Bezier handles.
const HANDLE: RGBColor = RGBColor(120, 126, 134);
/// Radius of a Bezier handle marker, pixels.
const HANDLE_RADIUS: u32 = 3;
/// Radius of a key marker, pixels.
pub const KEY_RADIUS: u32 = 5;
/// Largest radius of a per-frame dot on the path panel, pixels (smaller where the dots crowd).
pub const PATH_DOT_RADIUS: u32 = 3;
/// Radius of a per-frame dot on a curve, pixels.
pub const CURVE_DOT_RADIUS: u32 = 1;

/// Result of drawing: any backend or font error, boxed.
pub type Drawn = Result<(), Box<dyn Error>>;

/// Which panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanelKind {
    /// Value over frame, every component.
    Curves,
    /// The (x, y) path with a dot per frame.
    Path,
}

/// One panel's place in the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Panel {
    /// What it shows.
    pub kind: PanelKind,
    /// Index of the track's plot.
    pub track: usize,
    /// Left edge, pixels.
    pub x: u32,
    /// Top edge, pixels.
    pub y: u32,
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
}

/// One row per track: the curves (full width, or beside the path panel of a vec2/vec3 track).
/// Returns the panels and the picture's (width, height).
pub fn layout(plots: &[TrackPlot], size: PictureSize) -> (Vec<Panel>, (u32, u32)) {
    let (width, row_height) = (size.width, size.row_height);
    // The path panel keeps its share of the default picture (470 of 1280 pixels).
    let path_width = (u64::from(width) * u64::from(PATH_WIDTH) / u64::from(WIDTH)) as u32;
    let mut panels = Vec::new();
    let mut y = 0;
    for (track, plot) in plots.iter().enumerate() {
        let curve_width = if plot.path.is_some() {
            width - path_width
        } else {
            width
        };
        panels.push(Panel {
            kind: PanelKind::Curves,
            track,
            x: 0,
            y,
            width: curve_width,
            height: row_height,
        });
        if plot.path.is_some() {
            panels.push(Panel {
                kind: PanelKind::Path,
                track,
                x: curve_width,
                y,
                width: path_width,
                height: row_height,
            });
        }
        y += row_height;
    }
    (panels, (width, y.max(1)))
}

/// The picture's width and the height of one track's row, pixels (`plot --width/--height`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PictureSize {
    /// Width of the picture.
    pub width: u32,
    /// Height of each track's row.
    pub row_height: u32,
}

impl Default for PictureSize {
    fn default() -> Self {
        PictureSize {
            width: WIDTH,
            row_height: ROW_HEIGHT,
        }
    }
}

/// The colour of component `index`: x/r red, y/g green, z/b blue, w purple (a grey on colour
/// tracks); a scalar is blue.
pub fn component_color(plot: &TrackPlot, index: usize) -> RGBColor {
    if plot.components.len() == 1 {
        return RGBColor(31, 119, 180);
    }
    match (index, plot.is_color) {
        (0, _) => RGBColor(214, 39, 40),
        (1, _) => RGBColor(44, 160, 44),
        (2, _) => RGBColor(31, 119, 180),
        (_, true) => RGBColor(110, 110, 110),
        (_, false) => RGBColor(148, 103, 189),
    }
}

const INK: RGBColor = RGBColor(33, 37, 41);
const MUTED: RGBColor = RGBColor(108, 117, 125);
const KEY_LINE: RGBColor = RGBColor(200, 205, 212);
const EASE_INK: RGBColor = RGBColor(176, 96, 16);
const PATH_LINE: RGBColor = RGBColor(150, 170, 200);
const PATH_DOT: RGBColor = RGBColor(33, 37, 41);
const PATH_KEY: RGBColor = RGBColor(214, 39, 40);

/// A tick label: up to 4 significant decimals, scientific notation for very large or small
/// numbers, no trailing zeros.
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e6).contains(&a) {
        return format!("{v:.2e}");
    }
    let text = format!("{v:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// A frame number as written: whole numbers without decimals.
fn frame_label(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

fn text_style(size: u32, color: RGBColor) -> TextStyle<'static> {
    (FONT, size).into_font().color(&color)
}

/// Draws the panel frame, the title (track name and a grey subtitle) and returns the x where
/// the title ends.
fn draw_title<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
) -> Result<i32, Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    let (w, h) = area.dim_in_pixel();
    area.draw(&Rectangle::new(
        [(0, 0), (w as i32 - 1, h as i32 - 1)],
        RGBColor(222, 226, 230).stroke_width(1),
    ))?;
    let title_style = text_style(19, INK);
    area.draw(&Text::new(title.to_string(), (12, 9), title_style.clone()))?;
    let (title_w, _) = area.estimate_text_size(title, &title_style)?;
    let sub_x = 12 + title_w as i32 + 12;
    area.draw(&Text::new(
        subtitle.to_string(),
        (sub_x, 13),
        text_style(13, MUTED),
    ))?;
    let (sub_w, _) = area.estimate_text_size(subtitle, &text_style(13, MUTED))?;
    Ok(sub_x + sub_w as i32)
}

/// The component legend, right-aligned in the title line (left out when it would overlap).
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plot: &TrackPlot,
    title_end: i32,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let style = text_style(14, INK);
    let mut widths = Vec::new();
    for name in &plot.components {
        widths.push(area.estimate_text_size(name, &style)?.0 as i32);
    }
    let total: i32 = widths.iter().map(|w| 22 + w + 14).sum();
    let (w, _) = area.dim_in_pixel();
    let mut x = w as i32 - 8 - total;
    if x < title_end + 16 {
        return Ok(());
    }
    for (i, (name, width)) in plot.components.iter().zip(&widths).enumerate() {
        let color = component_color(plot, i);
        area.draw(&PathElement::new(
            vec![(x, 17), (x + 18, 17)],
            color.stroke_width(3),
        ))?;
        area.draw(&Text::new(
            name.to_string(),
            (x + 22, 17),
            style.pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
        x += 22 + width + 14;
    }
    Ok(())
}

/// Value over frame: the fine line of every component, a small dot at every integer frame, a
/// marker at every key, a thin line at every key frame, and the segment kinds (and eases) above.
pub fn draw_curves<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, plot: &TrackPlot) -> Drawn
where
    DB::ErrorType: 'static,
{
    let title_end = draw_title(area, &plot.name, &plot.subtitle)?;
    draw_legend(area, plot, title_end)?;
    let (x0, x1) = plot.x_range;
    let (y0, y1) = plot.y_range;
    let mut chart = ChartBuilder::on(area)
        .margin_top(TITLE_HEIGHT + LABEL_STRIP_HEIGHT)
        .margin_left(8)
        .margin_right(18)
        .margin_bottom(6)
        .x_label_area_size(38)
        .y_label_area_size(66)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    draw_mesh(&mut chart, (12, 7), ("frame", None))?;

    // Key frames: a thin line through the plot.
    for key in &plot.keys {
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(key.frame, y0), (key.frame, y1)],
            KEY_LINE.stroke_width(1),
        )))?;
    }
    for (c, runs) in plot.lines.iter().enumerate() {
        let color = component_color(plot, c);
        for run in runs {
            chart.draw_series(LineSeries::new(run.iter().copied(), color.stroke_width(2)))?;
        }
    }
    for (c, _) in plot.components.iter().enumerate() {
        let color = component_color(plot, c);
        chart.draw_series(
            plot.frame_values
                .iter()
                .filter(|(_, v)| super::model::drawable(v[c]))
                .map(|(f, v)| Circle::new((*f, v[c]), CURVE_DOT_RADIUS, color.filled())),
        )?;
    }
    draw_handles(&mut chart, plot)?;
    if plot.is_color {
        draw_colour_strip(&mut chart, plot)?;
    }
    for (c, _) in plot.components.iter().enumerate() {
        let color = component_color(plot, c);
        chart.draw_series(plot.keys.iter().map(|k| {
            EmptyElement::at((k.frame, k.value[c]))
                + Circle::new((0, 0), KEY_RADIUS, WHITE.filled())
                + Circle::new((0, 0), KEY_RADIUS, color.stroke_width(2))
        }))?;
    }
    draw_segment_labels(area, &chart, plot)
}

/// The grid, ticks and axis names of a chart, in the panels' one style: `labels` ticks along
/// (x, y), `desc` the axis names (no y name when `None`).
fn draw_mesh<DB: DrawingBackend>(
    chart: &mut ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    (x_labels, y_labels): (usize, usize),
    (x_desc, y_desc): (&str, Option<&str>),
) -> Drawn
where
    DB::ErrorType: 'static,
{
    fn tick(v: &f64) -> String {
        tick_label(*v)
    }
    let mut mesh = chart.configure_mesh();
    mesh.bold_line_style(RGBColor(226, 230, 234))
        .light_line_style(RGBColor(244, 245, 247))
        .axis_style(RGBColor(150, 155, 160))
        .label_style(text_style(12, MUTED))
        .axis_desc_style(text_style(13, MUTED))
        .x_labels(x_labels)
        .y_labels(y_labels)
        .x_desc(x_desc);
    if let Some(y_desc) = y_desc {
        mesh.y_desc(y_desc);
    }
    mesh.x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .draw()?;
    Ok(())
}

/// Bezier handles of F-curve keys: a thin line from each handle to its key, a hollow dot at
/// the handle.
fn draw_handles<DB: DrawingBackend>(
    chart: &mut ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    plot: &TrackPlot,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    for (left, key, right) in &plot.handles {
        for handle in [left, right].into_iter().flatten() {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![*handle, *key],
                HANDLE.stroke_width(1),
            )))?;
            chart.draw_series(std::iter::once(Circle::new(
                *handle,
                HANDLE_RADIUS,
                HANDLE.stroke_width(1),
            )))?;
        }
    }
    Ok(())
}

/// The fraction of a colour track's value range (at the bottom of the plot, inside its 6%
/// padding) that the colour strip fills.
const STRIP_FRACTION: f64 = 0.045;

/// A colour track's colour at every integer frame as a strip along the bottom of the plot: one
/// cell per frame, r, g, b clamped to 0..1 and composited over white by a.
fn draw_colour_strip<DB: DrawingBackend>(
    chart: &mut ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    plot: &TrackPlot,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let (y0, y1) = plot.y_range;
    let top = y0 + (y1 - y0) * STRIP_FRACTION;
    chart.draw_series(
        plot.frame_values.iter().map(|(f, v)| {
            Rectangle::new([(f - 0.5, y0), (f + 0.5, top)], strip_colour(v).filled())
        }),
    )?;
    Ok(())
}

/// The sRGB colour shown for an RGBA value: each channel clamped to 0..1 (NaN as 0), blended
/// over white by alpha, to 8 bits.
pub fn strip_colour(v: &[f64]) -> RGBColor {
    let unit = |x: f64| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    let a = unit(v.get(3).copied().unwrap_or(1.0));
    let channel = |i: usize| (((unit(v[i]) * a + (1.0 - a)) * 255.0).round()) as u8;
    RGBColor(channel(0), channel(1), channel(2))
}

/// Above the plot, each run of segments gets a bracket spanning its frames with the kind over
/// it and the ease (if any) under the kind; a label that does not fit its span is left out.
fn draw_segment_labels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    plot: &TrackPlot,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let (base_x, base_y) = area.get_base_pixel();
    let plot_top = chart.backend_coord(&(plot.x_range.0, plot.y_range.1)).1 - base_y;
    let bracket_y = plot_top - 5;
    let kind_style = text_style(14, INK).pos(Pos::new(HPos::Center, VPos::Top));
    let ease_style = text_style(12, EASE_INK).pos(Pos::new(HPos::Center, VPos::Top));
    for label in &plot.segments {
        let left = chart.backend_coord(&(label.from, plot.y_range.1)).0 - base_x;
        let right = chart.backend_coord(&(label.to, plot.y_range.1)).0 - base_x;
        let width = right - left;
        if width < 6 {
            continue;
        }
        area.draw(&PathElement::new(
            vec![
                (left + 2, bracket_y - 4),
                (left + 2, bracket_y),
                (right - 2, bracket_y),
                (right - 2, bracket_y - 4),
            ],
            MUTED.stroke_width(1),
        ))?;
        let centre = (left + right) / 2;
        let fits = |text: &str, style: &TextStyle| -> Result<bool, Box<dyn Error>> {
            Ok((area.estimate_text_size(text, style)?.0 as i32) + 6 <= width)
        };
        if fits(label.kind, &kind_style)? {
            area.draw(&Text::new(
                label.kind.to_string(),
                (centre, bracket_y - 36),
                kind_style.clone(),
            ))?;
        }
        if let Some(ease) = &label.ease {
            // Parameterised eases fall back to their family name when the numbers do not fit.
            let short = ease.split('(').next().unwrap_or(ease);
            for text in [
                format!("ease {ease}"),
                format!("ease {short}"),
                short.to_string(),
            ] {
                if fits(&text, &ease_style)? {
                    area.draw(&Text::new(
                        text,
                        (centre, bracket_y - 20),
                        ease_style.clone(),
                    ))?;
                    break;
                }
            }
        }
    }
    Ok(())
}

/// Ranges holding `x` and `y` (padded) with one data unit the same number of pixels on both
/// axes, for a plot area of `pixels` (width, height).
pub fn equal_aspect(x: (f64, f64), y: (f64, f64), pixels: (u32, u32)) -> ((f64, f64), (f64, f64)) {
    let x = super::model::padded(x, 0.06);
    let y = super::model::padded(y, 0.06);
    let (pw, ph) = (f64::from(pixels.0.max(1)), f64::from(pixels.1.max(1)));
    let per_pixel = ((x.1 - x.0) / pw).max((y.1 - y.0) / ph);
    let (cx, cy) = (0.5 * (x.0 + x.1), 0.5 * (y.0 + y.1));
    let (hx, hy) = (0.5 * per_pixel * pw, 0.5 * per_pixel * ph);
    ((cx - hx, cx + hx), (cy - hy, cy + hy))
}

/// The radius of the per-frame dots at these pixel positions: about a third of the median
/// distance between consecutive dots, between 1 and [`PATH_DOT_RADIUS`].
pub fn dot_radius(pixels: &[(i32, i32)]) -> u32 {
    let mut steps: Vec<f64> = pixels
        .windows(2)
        .map(|w| f64::from(w[1].0 - w[0].0).hypot(f64::from(w[1].1 - w[0].1)))
        .collect();
    if steps.is_empty() {
        return PATH_DOT_RADIUS;
    }
    steps.sort_by(f64::total_cmp);
    let median = steps[steps.len() / 2];
    ((median / 3.0).round() as u32).clamp(1, PATH_DOT_RADIUS)
}

/// The path panel: (x, y) at equal scale, the fine path, a dot at every integer frame (their
/// spacing is the speed) and the keys ringed with their frames.
pub fn draw_path<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plot: &TrackPlot,
    path: &PathPlot,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    draw_title(
        area,
        &format!("{} ({}, {})", plot.name, path.axes[0], path.axes[1]),
        "a dot per frame: spacing = speed",
    )?;
    let builder = || {
        let mut b = ChartBuilder::on(area);
        b.margin_top(TITLE_HEIGHT + 6)
            .margin_left(8)
            .margin_right(18)
            .margin_bottom(6)
            .x_label_area_size(38)
            .y_label_area_size(66);
        b
    };
    // The plot area's size does not depend on the ranges: measure it on a throw-away chart.
    let pixels = builder()
        .build_cartesian_2d(0.0..1.0, 0.0..1.0)?
        .plotting_area()
        .dim_in_pixel();
    let ((x0, x1), (y0, y1)) = equal_aspect(path.x_range, path.y_range, pixels);
    let mut chart = builder().build_cartesian_2d(x0..x1, y0..y1)?;
    draw_mesh(&mut chart, (6, 6), (path.axes[0], Some(path.axes[1])))?;
    for run in &path.line {
        chart.draw_series(LineSeries::new(
            run.iter().copied(),
            PATH_LINE.stroke_width(2),
        ))?;
    }
    let pixels: Vec<(i32, i32)> = path.dots.iter().map(|p| chart.backend_coord(p)).collect();
    let radius = dot_radius(&pixels);
    chart.draw_series(
        path.dots
            .iter()
            .map(|p| Circle::new(*p, radius, PATH_DOT.filled())),
    )?;
    chart.draw_series(
        path.keys
            .iter()
            .map(|(p, _)| Circle::new(*p, KEY_RADIUS + 2, PATH_KEY.stroke_width(2))),
    )?;
    draw_key_frames(area, &mut chart, path)
}

/// The frames of each key of a path panel beside it, on a light backing so the path under
/// them stays legible.
fn draw_key_frames<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &mut ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    path: &PathPlot,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let label_style = text_style(12, PATH_KEY);
    for (p, frames) in &path.keys {
        let labels: Vec<String> = frames
            .iter()
            .map(|f| format!("f{}", frame_label(*f)))
            .collect();
        let text = labels.join(", ");
        let (w, h) = area.estimate_text_size(&text, &label_style)?;
        chart.draw_series(std::iter::once(
            EmptyElement::at(*p)
                + Rectangle::new(
                    [(9, -19), (9 + w as i32 + 4, -19 + h as i32 + 4)],
                    WHITE.mix(0.8).filled(),
                )
                + Text::new(text, (11, -17), label_style.clone()),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crowded_dots_get_smaller() {
        assert_eq!(dot_radius(&[(0, 0), (20, 0), (40, 0)]), PATH_DOT_RADIUS);
        assert_eq!(dot_radius(&[(0, 0), (6, 0), (12, 0), (13, 0)]), 2);
        assert_eq!(dot_radius(&[(0, 0), (1, 0), (2, 0)]), 1);
        assert_eq!(dot_radius(&[]), PATH_DOT_RADIUS);
    }

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(0.0), "0");
        assert_eq!(tick_label(-0.0), "0");
        assert_eq!(tick_label(120.0), "120");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(1.0 / 3.0), "0.3333");
        assert_eq!(tick_label(2.5e7), "2.50e7");
        assert_eq!(tick_label(-1e-5), "-1.00e-5");
    }

    #[test]
    fn equal_aspect_gives_both_axes_the_same_scale() {
        // 100 × 10 data units into 400 × 200 pixels: x decides (100 + 2 × 6 = 112 units over
        // 400 px after the 6 % padding each side), y is widened around its centre to 200 px at
        // the same scale.
        let ((x0, x1), (y0, y1)) = equal_aspect((0.0, 100.0), (0.0, 10.0), (400, 200));
        let sx = (x1 - x0) / 400.0;
        let sy = (y1 - y0) / 200.0;
        assert!((sx - 112.0 / 400.0).abs() < 1e-12);
        assert!((sx - sy).abs() < 1e-12);
        assert!(((y0 + y1) / 2.0 - 5.0).abs() < 1e-12);
    }
}

#[cfg(test)]
mod strip_tests {
    use super::*;

    #[test]
    fn strip_colours_are_clamped_and_composited_over_white() {
        assert_eq!(strip_colour(&[1.0, 0.8, 0.1, 1.0]), RGBColor(255, 204, 26));
        assert_eq!(strip_colour(&[0.1, 0.4, 1.0, 0.0]), RGBColor(255, 255, 255));
        // Half transparent black: 0.5 × 0 + 0.5 × 1 = 0.5 → 128; out of range clamped.
        assert_eq!(
            strip_colour(&[0.0, -3.0, f64::NAN, 0.5]),
            RGBColor(128, 128, 128)
        );
        assert_eq!(strip_colour(&[2.0, 0.0, 0.0, 7.0]), RGBColor(255, 0, 0));
    }
}
