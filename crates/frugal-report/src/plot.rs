//! Plots of an experiment's rows, drawn with `plotters` to SVG (inlined in the report) and
//! PNG (beside it). Text uses the embedded DejaVu Sans, so a machine without fonts draws
//! the same pixels.
//!
//! - `bars`: the mean of `y` per `x` value (normally the policy), one cluster per `series`
//!   value, with the 95 % Student-t confidence interval as an error bar.
//! - `lines`: the mean of `y` against the numeric column `x`, one line per `series` value,
//!   with 95 % intervals.
//! - `timeline`: one run (the first that matches `where`): each VM's powered-on intervals
//!   as a Gantt chart above the cumulative bill.
//!
//! A `[[plot]]` of an experiment file has `name` (file stem), `title` (caption), `kind`,
//! `x` and `y` (columns; `x` numeric for lines), `series` (the column whose values make
//! the clusters of bars or the lines), `where` (only rows with these column values),
//! `x_label` and `y_label` (axis captions with their units; default: the column names;
//! bars name each cluster under it, caption the clusters with the `series` column and
//! title the legend of `x` values with `x_label`). Each policy keeps one colour
//! in every figure of the report (its place in the list of built-in policies); lines also
//! differ by marker and dash; ticks of whole numbers print without decimals.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Deserialize;

use frugal_sim::stats::Estimate;

use crate::table::{Filter, Table};

/// The kinds of plot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlotKind {
    /// Clustered bars with confidence intervals.
    Bars,
    /// Lines against a numeric column.
    Lines,
    /// VM on-intervals and the cumulative bill of one run (`simulate` experiments).
    Timeline,
}

/// One `[[plot]]` of an experiment file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    /// File stem of `plots/<experiment>-<name>.{svg,png}`.
    pub name: String,
    /// Caption.
    pub title: String,
    /// Kind of plot.
    pub kind: PlotKind,
    /// Bars: the column of the bars (normally `policy`); lines: the numeric x column.
    #[serde(default)]
    pub x: Option<String>,
    /// The metric column (bars and lines).
    #[serde(default)]
    pub y: Option<String>,
    /// Bars: the column of the clusters; lines: the column of the lines.
    #[serde(default)]
    pub series: Option<String>,
    /// Only rows with these column values.
    #[serde(
        default,
        rename = "where",
        deserialize_with = "crate::table::filter_from_scalars"
    )]
    pub filter: Filter,
    /// Axis captions (default: the column names).
    #[serde(default)]
    pub x_label: Option<String>,
    /// Y axis caption.
    #[serde(default)]
    pub y_label: Option<String>,
}

/// The data of a plot.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Figure {
    /// `values[c][b]`: cluster c, bar b.
    Bars {
        /// Cluster labels (the `series` values, one empty label without `series`).
        clusters: Vec<String>,
        /// Bar labels, the legend.
        bars: Vec<String>,
        /// Estimates, `None` where no run has a value.
        values: Vec<Vec<Option<Estimate>>>,
    },
    /// Lines of (x, estimate) points.
    Lines(Vec<(String, Vec<(f64, Estimate)>)>),
    /// One run's VMs and bill.
    Timeline {
        /// Per VM: label and powered-on intervals (seconds).
        vms: Vec<(String, Vec<(f64, f64)>)>,
        /// (time s, cumulative bill $) steps.
        cost: Vec<(f64, f64)>,
    },
}

impl PlotSpec {
    /// The bars or lines of this plot from `table` (a timeline comes from the run itself).
    ///
    /// # Errors
    /// A missing `x` or `y`, an unknown column, a non-numeric metric or x value.
    pub fn figure(&self, table: &Table) -> Result<Figure, String> {
        let x = self.x.as_deref().ok_or("plot needs `x`")?;
        let y = self.y.as_deref().ok_or("plot needs `y`")?;
        let rows = table.select(&self.filter)?;
        let series = self.series.as_deref();
        let groups = match series {
            Some(s) => table.distinct(&rows, s)?,
            None => vec![String::new()],
        };
        let in_group = |g: &str| -> Result<Vec<&[String]>, String> {
            Ok(match series {
                Some(s) => {
                    let i = table.column(s)?;
                    rows.iter().copied().filter(|r| r[i] == g).collect()
                }
                None => rows.clone(),
            })
        };
        let xi = table.column(x)?;
        match self.kind {
            PlotKind::Bars => {
                let bars = table.distinct(&rows, x)?;
                let mut values = Vec::new();
                for g in &groups {
                    let g_rows = in_group(g)?;
                    let mut row = Vec::new();
                    for b in &bars {
                        let of: Vec<&[String]> =
                            g_rows.iter().copied().filter(|r| r[xi] == *b).collect();
                        row.push(table.estimate(&of, y)?);
                    }
                    values.push(row);
                }
                Ok(Figure::Bars {
                    clusters: groups,
                    bars,
                    values,
                })
            }
            PlotKind::Lines => {
                let mut lines = Vec::new();
                for g in &groups {
                    let g_rows = in_group(g)?;
                    let mut points = Vec::new();
                    for xv in table.distinct(&g_rows, x)? {
                        let xf: f64 = xv
                            .parse()
                            .map_err(|_| format!("{x}: {xv:?} is not a number"))?;
                        let of: Vec<&[String]> =
                            g_rows.iter().copied().filter(|r| r[xi] == xv).collect();
                        if let Some(e) = table.estimate(&of, y)? {
                            points.push((xf, e));
                        }
                    }
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    lines.push((g.clone(), points));
                }
                Ok(Figure::Lines(lines))
            }
            PlotKind::Timeline => Err("a timeline is drawn from a run, not from rows".into()),
        }
    }

    /// Draws `figure` as SVG text and as a PNG file at `png`.
    ///
    /// # Errors
    /// A drawing or file error.
    pub fn render(&self, figure: &Figure, png: &Path) -> Result<String, String> {
        register_font();
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            self.draw(figure, &root, 1)?;
        }
        let big = (SIZE.0 * PNG_SCALE, SIZE.1 * PNG_SCALE);
        let root = BitMapBackend::new(png, big).into_drawing_area();
        self.draw(figure, &root, PNG_SCALE)?;
        Ok(svg)
    }

    /// Draws `figure` on `root`, every length and font size `s` times the SVG's.
    fn draw<DB: DrawingBackend>(
        &self,
        figure: &Figure,
        root: &DrawingArea<DB, Shift>,
        s: u32,
    ) -> Result<(), String> {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing {}: {e:?}", self.name);
        let px = |n: u32| n * s;
        let font = |size: u32| ("sans-serif", f64::from(size * s));
        root.fill(&WHITE).map_err(err)?;
        // The title of bars and lines spans the whole figure, legend column included, and
        // shrinks to fit its width (about 0.55 em per character): centred over the plot area
        // alone, a long title ran off the figure's left edge.
        let body = match figure {
            Figure::Timeline { .. } => root.clone(),
            _ => {
                let chars = self.title.chars().count().max(1) as f64;
                let size = 20.0f64.min(f64::from(SIZE.0 - 24) / (0.55 * chars));
                let title = ("sans-serif", size * f64::from(s));
                root.margin(px(8), 0, 0, 0)
                    .titled(&self.title, title)
                    .map_err(err)?
            }
        };
        // Bars and lines keep their legend in a column of its own, clear of the data.
        let (plot, key) = body.split_horizontally(px(SIZE.0 - LEGEND_WIDTH));
        let x_label = self.x_label.clone().or(self.x.clone()).unwrap_or_default();
        let y_label = self.y_label.clone().or(self.y.clone()).unwrap_or_default();
        match figure {
            Figure::Bars {
                clusters,
                bars,
                values,
            } => {
                let width = bars.len() as f64 + 1.0;
                let top = values
                    .iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.mean + e.ci95.unwrap_or(0.0))
                    .fold(0.0, f64::max)
                    .max(1e-9)
                    * 1.08;
                let colours = colours(bars);
                let mut chart = ChartBuilder::on(&plot)
                    .margin(px(12))
                    .x_label_area_size(px(44))
                    .y_label_area_size(px(70))
                    .build_cartesian_2d(0.0..width * clusters.len() as f64, 0.0..top)
                    .map_err(err)?;
                chart
                    .configure_mesh()
                    .label_style(font(12))
                    .axis_desc_style(font(14))
                    .disable_x_mesh()
                    .x_labels(0)
                    .y_label_formatter(&|v| tick(*v))
                    .y_desc(y_label)
                    .draw()
                    .map_err(err)?;
                // Each cluster's name under its centre (plotters puts ticks at round
                // numbers, not at the clusters), and the series column's name below them.
                let label_style =
                    TextStyle::from(font(12).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
                for (c, name) in clusters.iter().enumerate() {
                    let (x, y) = chart.backend_coord(&(c as f64 * width + width / 2.0, 0.0));
                    root.draw(&Text::new(
                        name.clone(),
                        (x, y + px(6) as i32),
                        label_style.clone(),
                    ))
                    .map_err(err)?;
                }
                if let (Some(series), true) = (&self.series, clusters.len() > 1) {
                    let (x0, y) = chart.backend_coord(&(0.0, 0.0));
                    let (x1, _) = chart.backend_coord(&(width * clusters.len() as f64, 0.0));
                    root.draw(&Text::new(
                        series.clone(),
                        ((x0 + x1) / 2, y + px(24) as i32),
                        TextStyle::from(font(14).into_font())
                            .pos(Pos::new(HPos::Center, VPos::Top)),
                    ))
                    .map_err(err)?;
                }
                for (b, colour) in colours.iter().enumerate() {
                    let at = |c: usize| c as f64 * width + 0.5 + b as f64;
                    chart
                        .draw_series(values.iter().enumerate().filter_map(|(c, row)| {
                            row[b].map(|e| {
                                Rectangle::new(
                                    [(at(c), 0.0), (at(c) + 0.9, e.mean)],
                                    colour.filled(),
                                )
                            })
                        }))
                        .map_err(err)?;
                    chart
                        .draw_series(values.iter().enumerate().filter_map(|(c, row)| {
                            let e = row[b]?;
                            let h = e.ci95?;
                            let x = at(c) + 0.45;
                            Some(ErrorBar::new_vertical(
                                x,
                                e.mean - h,
                                e.mean,
                                e.mean + h,
                                BLACK.stroke_width(s),
                                px(6),
                            ))
                        }))
                        .map_err(err)?;
                }
                legend(&key, self.x_label.as_deref(), bars, &colours, false, s).map_err(err)?;
            }
            Figure::Lines(lines) => {
                // The y range fits the data (with its confidence band) and a margin; it
                // includes 0 only when the data come near it.
                let points = lines.iter().flat_map(|(_, p)| p);
                let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
                let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
                for (x, e) in points {
                    x0 = x0.min(*x);
                    x1 = x1.max(*x);
                    let h = e.ci95.unwrap_or(0.0);
                    y0 = y0.min(e.mean - h);
                    y1 = y1.max(e.mean + h);
                }
                if !x0.is_finite() {
                    (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
                }
                if x1 <= x0 {
                    // One x value (a quick run): centre it.
                    (x0, x1) = (x0 - 1.0, x1 + 1.0);
                }
                let xs: Vec<f64> = {
                    let mut v: Vec<f64> = lines
                        .iter()
                        .flat_map(|(_, p)| p.iter().map(|q| q.0))
                        .collect();
                    v.sort_by(f64::total_cmp);
                    v.dedup();
                    v
                };
                if y0 > 0.0 && y0 < 0.25 * y1 {
                    y0 = 0.0;
                }
                let pad = ((y1 - y0) * 0.08).max(1e-9);
                let (y0, y1) = (if y0 == 0.0 { 0.0 } else { y0 - pad }, y1 + pad);
                let names: Vec<String> = lines.iter().map(|(n, _)| n.clone()).collect();
                let colours = colours(&names);
                let mut chart = ChartBuilder::on(&plot)
                    .margin(px(12))
                    .x_label_area_size(px(40))
                    .y_label_area_size(px(70))
                    .build_cartesian_2d(x0..x1, y0..y1)
                    .map_err(err)?;
                // With few x values, one tick at each.
                let x_ticks = if xs.len() <= 12 { xs.len().max(2) } else { 10 };
                chart
                    .configure_mesh()
                    .label_style(font(12))
                    .axis_desc_style(font(14))
                    .x_labels(x_ticks)
                    .x_label_formatter(&|v| tick(*v))
                    .y_label_formatter(&|v| tick(*v))
                    .x_desc(x_label)
                    .y_desc(y_label)
                    .draw()
                    .map_err(err)?;
                for (k, ((_, pts), &colour)) in lines.iter().zip(&colours).enumerate() {
                    // The 95 % confidence band over the repetitions (seeds), where there
                    // are several.
                    if pts.iter().any(|(_, e)| e.ci95.is_some()) {
                        let band: Vec<(f64, f64)> = pts
                            .iter()
                            .map(|(x, e)| (*x, e.mean + e.ci95.unwrap_or(0.0)))
                            .chain(
                                pts.iter()
                                    .rev()
                                    .map(|(x, e)| (*x, e.mean - e.ci95.unwrap_or(0.0))),
                            )
                            .collect();
                        chart
                            .draw_series(std::iter::once(Polygon::new(band, colour.mix(0.18))))
                            .map_err(err)?;
                    }
                    let line = pts.iter().map(|(x, e)| (*x, e.mean));
                    if k % 2 == 0 {
                        chart
                            .draw_series(LineSeries::new(line, colour.stroke_width(px(2))))
                            .map_err(err)?;
                    } else {
                        chart
                            .draw_series(DashedLineSeries::new(
                                line,
                                px(8),
                                px(5),
                                colour.stroke_width(px(2)),
                            ))
                            .map_err(err)?;
                    }
                    for (x, e) in pts {
                        chart
                            .plotting_area()
                            .draw(&marker(k, (*x, e.mean), px(4), &colour))
                            .map_err(err)?;
                    }
                }
                legend(&key, None, &names, &colours, true, s).map_err(err)?;
            }
            Figure::Timeline { vms, cost } => {
                let end = vms
                    .iter()
                    .flat_map(|(_, iv)| iv.iter().map(|i| i.1))
                    .chain(cost.iter().map(|c| c.0))
                    .fold(1.0, f64::max);
                let (top, bottom) = root.split_vertically(px(SIZE.1 * 3 / 5));
                // One row per VM, labelled with its id and instance type at the row's
                // centre (a segmented axis); at most 30 labels, plotters thinning the rest.
                // A segmented 0..n has a segment for n too: the last row is n − 1.
                let last = vms.len().max(1) as u32 - 1;
                let mut gantt = ChartBuilder::on(&top)
                    .caption(&self.title, font(20))
                    .margin(px(12))
                    .x_label_area_size(px(30))
                    .y_label_area_size(px(130))
                    .build_cartesian_2d(0.0..end, (0..last).into_segmented())
                    .map_err(err)?;
                let label = |v: &SegmentValue<u32>| match v {
                    SegmentValue::CenterOf(k) => vms
                        .get(*k as usize)
                        .map(|v| v.0.clone())
                        .unwrap_or_default(),
                    _ => String::new(),
                };
                gantt
                    .configure_mesh()
                    .label_style(font(11))
                    .axis_desc_style(font(14))
                    .disable_y_mesh()
                    .x_label_formatter(&|v| tick(*v))
                    .y_labels(vms.len().min(30))
                    .y_label_formatter(&label)
                    .draw()
                    .map_err(err)?;
                gantt
                    .draw_series(vms.iter().enumerate().flat_map(|(k, (_, iv))| {
                        let colour = PALETTE[k % PALETTE.len()];
                        let k = k as u32;
                        iv.iter().map(move |(a, b)| {
                            Rectangle::new(
                                [
                                    (*a, SegmentValue::Exact(k)),
                                    (*b, SegmentValue::Exact(k + 1)),
                                ],
                                colour.filled(),
                            )
                        })
                    }))
                    .map_err(err)?;
                let bill = cost.last().map_or(0.0, |c| c.1).max(1e-9);
                let mut line = ChartBuilder::on(&bottom)
                    .margin(px(12))
                    .x_label_area_size(px(40))
                    .y_label_area_size(px(130))
                    .build_cartesian_2d(0.0..end, 0.0..bill * 1.1)
                    .map_err(err)?;
                line.configure_mesh()
                    .label_style(font(12))
                    .axis_desc_style(font(14))
                    .x_label_formatter(&|v| tick(*v))
                    .y_label_formatter(&|v| tick(*v))
                    .x_desc("simulated time (s)")
                    .y_desc("bill so far ($)")
                    .draw()
                    .map_err(err)?;
                line.draw_series(LineSeries::new(
                    cost.iter().copied(),
                    PALETTE[0].stroke_width(px(2)),
                ))
                .map_err(err)?;
            }
        }
        root.present().map_err(err)
    }
}

/// Draws the legend of `names` in their `colours` down the `area` column, under `title`: a
/// swatch (a line with its marker and dash for line plots) and the name, one entry per
/// row; lengths `s` times the SVG's.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: Option<&str>,
    names: &[String],
    colours: &[RGBColor],
    lines: bool,
    s: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let s = s as i32;
    let font = ("sans-serif", f64::from(13 * s)).into_font();
    let row = ((SIZE.1 as i32 - 60) / names.len().max(1) as i32).clamp(10, 20) * s;
    if let Some(t) = title {
        area.draw(&Text::new(t.to_string(), (4 * s, 20 * s), font.clone()))?;
    }
    for (k, (name, colour)) in names.iter().zip(colours).enumerate() {
        let y = 48 * s + k as i32 * row;
        if lines {
            if k % 2 == 0 {
                area.draw(&PathElement::new(
                    vec![(4 * s, y), (26 * s, y)],
                    colour.stroke_width(2 * s as u32),
                ))?;
            } else {
                area.draw(&DashedPathElement::new(
                    vec![(4 * s, y), (26 * s, y)],
                    6 * s,
                    3 * s,
                    colour.stroke_width(2 * s as u32),
                ))?;
            }
            area.draw(&marker(k, (15 * s, y), 4 * s as u32, colour))?;
        } else {
            area.draw(&Rectangle::new(
                [(8 * s, y - 5 * s), (20 * s, y + 5 * s)],
                colour.filled(),
            ))?;
        }
        area.draw(&Text::new(name.clone(), (30 * s, y - 7 * s), font.clone()))?;
    }
    Ok(())
}

/// Width in pixels of the legend column beside bars and lines.
const LEGEND_WIDTH: u32 = 250;

/// A marker told apart by shape as well as colour: circle, triangle, cross, square, in
/// turn, centred at `at`.
fn marker<'a, DB: DrawingBackend + 'a, C: Clone + 'static>(
    k: usize,
    at: C,
    size: u32,
    colour: &RGBColor,
) -> DynElement<'a, DB, C> {
    let filled = colour.filled();
    match k % 4 {
        0 => Circle::new(at, size, filled).into_dyn(),
        1 => TriangleMarker::new(at, size + 1, filled).into_dyn(),
        2 => Cross::new(at, size, colour.stroke_width(2)).into_dyn(),
        _ => (EmptyElement::at(at)
            + Rectangle::new(
                [(-(size as i32), -(size as i32)), (size as i32, size as i32)],
                filled,
            ))
        .into_dyn(),
    }
}

/// A tick label: whole numbers without decimals, others with up to three significant
/// decimals and no trailing zeros.
fn tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 * v.abs().max(1.0) {
        return format!("{}", v.round() as i64);
    }
    let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let t = format!("{v:.digits$}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The colour a name always gets: a built-in placement policy's own, by its place in
/// [`frugal_core::PolicyKind::ALL`] (so FIFO, GIO… look the same in every figure).
fn fixed_colour(name: &str) -> Option<usize> {
    frugal_core::PolicyKind::ALL
        .iter()
        .position(|k| k.name() == name)
}

/// One colour per series name, none reused within a plot: a built-in policy keeps its own
/// ([`fixed_colour`]); trained agents (`rl:<agent>-…`) get shades of one hue per agent,
/// dark to light in order (so the β of a family reads as a ramp), set apart from the
/// baselines; every other name takes the next [`PALETTE`] colour no fixed name of the plot
/// holds.
fn colours(names: &[String]) -> Vec<RGBColor> {
    let family = |n: &str| -> Option<String> {
        let spec: frugal_core::PolicySpec = n.parse().ok()?;
        let agent = spec.checkpoint()?.to_string_lossy();
        Some(agent.split('-').next().unwrap_or(&agent).to_string())
    };
    let mut families: Vec<String> = Vec::new();
    for n in names {
        if let Some(f) = family(n)
            && !families.contains(&f)
        {
            families.push(f);
        }
    }
    let taken: Vec<usize> = names.iter().filter_map(|n| fixed_colour(n)).collect();
    let mut free = (0..PALETTE.len()).filter(|i| !taken.contains(i)).cycle();
    let mut seen: Vec<(String, usize)> = Vec::new();
    names
        .iter()
        .map(|n| match family(n) {
            None => match fixed_colour(n) {
                Some(i) => PALETTE[i % PALETTE.len()],
                None => PALETTE[free.next().unwrap_or(0)],
            },
            Some(f) => {
                let size = names
                    .iter()
                    .filter(|m| family(m).as_ref() == Some(&f))
                    .count();
                let k = match seen.iter_mut().find(|(g, _)| *g == f) {
                    Some((_, k)) => {
                        *k += 1;
                        *k
                    }
                    None => {
                        seen.push((f.clone(), 0));
                        0
                    }
                };
                let hue = families.iter().position(|g| *g == f).unwrap_or(0);
                let (dark, light) = AGENT_RAMPS[hue % AGENT_RAMPS.len()];
                let t = if size > 1 {
                    k as f64 / (size - 1) as f64
                } else {
                    0.0
                };
                let mix =
                    |a: u8, b: u8| (f64::from(a) + t * (f64::from(b) - f64::from(a))).round() as u8;
                RGBColor(
                    mix(dark.0, light.0),
                    mix(dark.1, light.1),
                    mix(dark.2, light.2),
                )
            }
        })
        .collect()
}

/// Dark and light ends of the agents' colour ramps: blue, purple, magenta, brown.
const AGENT_RAMPS: [(RGBColor, RGBColor); 4] = [
    (RGBColor(8, 48, 107), RGBColor(140, 190, 230)),
    (RGBColor(63, 0, 125), RGBColor(190, 175, 225)),
    (RGBColor(110, 1, 60), RGBColor(230, 150, 200)),
    (RGBColor(84, 48, 5), RGBColor(210, 175, 120)),
];

/// Pixel size of every plot.
const SIZE: (u32, u32) = (900, 480);

/// The PNG is drawn at this multiple of the SVG's size (1,800 × 960 px: 6 inches wide at
/// 300 dpi), every length and font scaled alike.
const PNG_SCALE: u32 = 2;

/// Tableau 10 without its blue and purple (the agents' ramps), with olive, a dark grey, a
/// dark teal and a dark red: distinguishable, and readable by most colour-blind viewers.
/// At least as many as the built-in policies, so each keeps its own.
const PALETTE: [RGBColor; 12] = [
    RGBColor(242, 142, 43),
    RGBColor(225, 87, 89),
    RGBColor(118, 183, 178),
    RGBColor(89, 161, 79),
    RGBColor(237, 201, 72),
    RGBColor(255, 157, 167),
    RGBColor(156, 117, 95),
    RGBColor(186, 176, 172),
    RGBColor(188, 189, 34),
    RGBColor(80, 80, 80),
    RGBColor(0, 109, 119),
    RGBColor(140, 29, 64),
];

// Every built-in policy has a colour of its own.
const _: () = assert!(PALETTE.len() >= frugal_core::PolicyKind::ALL.len());

fn register_font() {
    static FONT: Once = Once::new();
    FONT.call_once(|| {
        plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            include_bytes!("../fonts/DejaVuSans.ttf"),
        )
        .map_err(|_| ())
        .expect("the embedded font parses");
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: &str) -> PlotSpec {
        toml::from_str(&format!(
            "name='n'\ntitle='t'\nkind='{kind}'\nx='policy'\ny='cost_usd'\nseries='load'"
        ))
        .unwrap()
    }

    #[test]
    fn bars_estimate_each_cluster_and_render_both_formats() {
        let t = Table::from_csv(b"load,policy,cost_usd\nlight,gio,1\nlight,gio,3\nhigh,ff,2\n")
            .unwrap();
        let f = spec("bars").figure(&t).unwrap();
        let Figure::Bars {
            clusters,
            bars,
            values,
        } = &f
        else {
            panic!()
        };
        assert_eq!(
            (clusters.as_slice(), bars.as_slice()),
            (
                &["light".to_string(), "high".into()][..],
                &["gio".to_string(), "ff".into()][..]
            )
        );
        assert_eq!(values[0][0].unwrap().mean, 2.0);
        assert_eq!(values[0][1], None);
        let dir = std::env::temp_dir().join(format!("frugal-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let png = dir.join("p.png");
        let svg = spec("bars").render(&f, &png).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("gio"), "{svg}");
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The text of every `<text>` element of an SVG, trimmed.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let body = &t[t.find('>')? + 1..];
                Some(body[..body.find("</text>")?].trim().to_string())
            })
            .collect()
    }

    fn has_texts(svg: &str, want: &[&str]) {
        let all = texts(svg);
        for w in want {
            assert!(all.iter().any(|t| t == w), "{w:?} not among {all:?}");
        }
        assert!(
            !all.iter().any(|t| t.ends_with(".0")),
            "a tick ends in .0: {all:?}"
        );
    }

    fn hex(c: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
    }

    /// Renders `figure` with `spec`, returns the SVG and checks the PNG was written.
    fn render(spec: &PlotSpec, figure: &Figure) -> String {
        let dir =
            std::env::temp_dir().join(format!("frugal-plot-{}-{}", std::process::id(), spec.name));
        std::fs::create_dir_all(&dir).unwrap();
        let png = dir.join("p.png");
        let svg = spec.render(figure, &png).unwrap();
        assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
        std::fs::remove_dir_all(dir).unwrap();
        svg
    }

    #[test]
    fn bars_name_their_clusters_and_keep_each_policys_colour() {
        let t = Table::from_csv(
            b"load,policy,cost_usd\nlight,gio,1\nlight,round-robin,3\nhigh,gio,2\nhigh,round-robin,4\n",
        )
        .unwrap();
        let mut s = spec("bars");
        s.name = "bars-a".into();
        s.x_label = Some("policy (legend)".into());
        let svg = render(&s, &s.figure(&t).unwrap());
        // Each cluster's name under it, the series column as the caption, the legend's title.
        has_texts(&svg, &["light", "high", "load", "policy (legend)"]);
        // GIO has its own colour whatever else is in the figure.
        let gio = hex(PALETTE[fixed_colour("gio").unwrap()]);
        let t2 =
            Table::from_csv(b"load,policy,cost_usd\nlight,asq,1\nlight,first-fit,2\nlight,gio,3\n")
                .unwrap();
        let mut s2 = spec("bars");
        s2.name = "bars-b".into();
        let svg2 = render(&s2, &s2.figure(&t2).unwrap());
        assert!(svg.contains(&gio) && svg2.contains(&gio), "{gio}");
    }

    #[test]
    fn lines_differ_by_marker_and_dash_and_tick_whole_numbers() {
        let t = Table::from_csv(
            b"load,policy,cost_usd\n1,gio,1\n2,gio,2\n3,gio,2\n1,first-fit,3\n2,first-fit,1\n3,first-fit,1\n",
        )
        .unwrap();
        let mut s = spec("lines");
        s.name = "lines".into();
        s.x = Some("load".into());
        s.series = Some("policy".into());
        s.x_label = Some("load (jobs/s)".into());
        s.y_label = Some("bill ($)".into());
        let svg = render(&s, &s.figure(&t).unwrap());
        // The second line is dashed (many short segments) and marked by triangles.
        assert!(
            svg.contains("<circle") && svg.contains("<polygon"),
            "markers"
        );
        let polylines = svg.matches("<polyline").count();
        assert!(
            polylines > 6,
            "{polylines} polylines: the dashed line is missing"
        );
        has_texts(&svg, &["load (jobs/s)", "bill ($)", "2"]);
        // A quick run's single x value is centred, not at the left edge.
        let one = Table::from_csv(b"load,policy,cost_usd\n4,gio,1\n").unwrap();
        let svg = render(&s, &s.figure(&one).unwrap());
        has_texts(&svg, &["4"]);
    }

    #[test]
    fn a_timeline_draws_the_vms_and_the_bill() {
        let s: PlotSpec = toml::from_str("name='tl'\ntitle='t'\nkind='timeline'").unwrap();
        let f = Figure::Timeline {
            vms: vec![
                ("0 m1.large".into(), vec![(0.0, 50.0)]),
                ("1 m2.xlarge".into(), vec![(10.0, 90.0)]),
            ],
            cost: vec![(0.0, 0.0), (50.0, 1.0), (90.0, 2.5)],
        };
        let svg = render(&s, &f);
        has_texts(
            &svg,
            &[
                "0 m1.large",
                "1 m2.xlarge",
                "bill so far ($)",
                "simulated time (s)",
            ],
        );
    }

    #[test]
    fn ticks_drop_trailing_zeros() {
        assert_eq!(
            [4.0, 0.25, 1500.0, 0.123_456, -2.0].map(tick),
            ["4", "0.25", "1500", "0.1235", "-2"]
        );
    }

    #[test]
    fn lines_need_numeric_x() {
        let t = Table::from_csv(b"load,policy,cost_usd\nlight,gio,1\n").unwrap();
        let mut s = spec("lines");
        s.x = Some("policy".into());
        assert!(s.figure(&t).unwrap_err().contains("not a number"));
    }
}
