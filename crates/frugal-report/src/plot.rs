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
//! title the legend of `x` values with `x_label`; one cluster names each bar under it and
//! captions them with `x_label`). Each policy keeps one colour in every figure of the
//! report (its place in the list of built-in policies); lines also differ by marker and
//! dash; ticks of whole numbers print without decimals.
//!
//! What the report adds ([`Marks`], from [`crate::marks`]): labels under the names their
//! paper gives them ([`crate::names`]); each claim's published value on the bar or point it
//! speaks of, a dashed black line (a band for a range) on bars and a hollow diamond on
//! lines, keyed "published" under the legend; and under the legend how many runs each bar
//! or point averages ("one run per bar", "mean of 5 runs per point, 95 % CI"). A y axis
//! whose positive values span more than [`LOG_SPAN`] (100×) is logarithmic, ticked at the
//! powers of ten and captioned "log scale"; a bar then rises from the power of ten below
//! the smallest value.

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
        /// How many runs each bar averages.
        runs: RunsPerPoint,
    },
    /// Lines of (x, estimate) points.
    Lines {
        /// Each line's label and points.
        lines: Vec<(String, Vec<(f64, Estimate)>)>,
        /// How many runs each point averages.
        runs: RunsPerPoint,
    },
    /// One run's VMs and bill.
    Timeline {
        /// Per VM: label and powered-on intervals (seconds).
        vms: Vec<(String, Vec<(f64, f64)>)>,
        /// (time s, cumulative bill $) steps.
        cost: Vec<(f64, f64)>,
    },
}

/// The fewest and the most runs behind one bar or point of a figure (rows with a value).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunsPerPoint {
    /// The fewest.
    pub min: usize,
    /// The most.
    pub max: usize,
}

impl RunsPerPoint {
    fn add(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        self.min = if self.max == 0 { n } else { self.min.min(n) };
        self.max = self.max.max(n);
    }

    /// What the figure states about its runs: `one run per bar`, `mean of 5 runs per
    /// point, 95 % CI`, `mean of 3–5 runs per bar, 95 % CI`.
    pub fn caption(&self, point: &str) -> String {
        match (self.min, self.max) {
            (_, 0) => String::new(),
            (1, 1) => format!("one run per {point}"),
            (a, b) if a == b => format!("mean of {a} runs per {point}, 95 % CI"),
            (a, b) => format!("mean of {a}–{b} runs per {point}, 95 % CI"),
        }
    }
}

/// What the report draws on a plot beyond its rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    /// The paper's name of a bar, cluster or line label (a policy's identifier → the name
    /// its paper gives it); a label without one is shown as it is. Colours follow the
    /// label, not the name, so a policy keeps its colour in every paper.
    pub names: std::collections::BTreeMap<String, String>,
    /// Published values.
    pub published: Vec<Reference>,
    /// Drawn from a quick run (`--quick`): the runs' caption says so.
    pub quick: bool,
}

impl Marks {
    /// What the figure says of its runs ([`RunsPerPoint::caption`]), marked as a quick
    /// run's where it is one.
    fn runs(&self, runs: &RunsPerPoint, point: &str) -> String {
        let caption = runs.caption(point);
        if self.quick {
            format!("quick run (--quick): {caption}")
        } else {
            caption
        }
    }

    /// The name shown for `label`.
    pub fn name<'a>(&'a self, label: &'a str) -> &'a str {
        self.names.get(label).map_or(label, String::as_str)
    }
}

/// A published value drawn on a plot (a claim's number, in the plot's unit): a line where
/// `lo == hi`, else a band from `lo` to `hi`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Bars: the cluster (`None`: the only one); lines: unused.
    pub cluster: Option<String>,
    /// Bars: the bar; lines: the line.
    pub series: String,
    /// Lines: the x value the claim is at (bars: unused).
    pub x: Option<f64>,
    /// The published range, in the plot's y unit.
    pub lo: f64,
    /// Its upper end (`lo` for a point).
    pub hi: f64,
}

/// A figure whose positive values span more than this factor is drawn on a log axis.
pub const LOG_SPAN: f64 = 100.0;

/// The y axis of a figure: linear from its range, or log₁₀ when every value is positive
/// and they span more than [`LOG_SPAN`] (drawn as log₁₀ of the value on a linear axis,
/// ticks at the powers of ten; a bar starts at the axis' floor).
#[derive(Clone, Copy, Debug, PartialEq)]
struct YAxis {
    log: bool,
    /// log axes: the floor, in the value's unit.
    floor: f64,
}

impl YAxis {
    fn of(values: impl Iterator<Item = f64> + Clone) -> YAxis {
        let positive = values.clone().all(|v| v > 0.0);
        let lo = values.clone().fold(f64::INFINITY, f64::min);
        let hi = values.fold(f64::NEG_INFINITY, f64::max);
        if positive && lo.is_finite() && hi / lo > LOG_SPAN {
            YAxis {
                log: true,
                floor: 10f64.powf(lo.log10().floor()),
            }
        } else {
            YAxis {
                log: false,
                floor: 0.0,
            }
        }
    }

    /// Where `v` is drawn.
    fn at(&self, v: f64) -> f64 {
        if self.log {
            v.max(self.floor).log10()
        } else {
            v
        }
    }

    /// A tick's label: the value at `v` (a power of ten on a log axis, nothing between).
    fn tick(&self, v: f64) -> String {
        if !self.log {
            return tick(v);
        }
        if (v - v.round()).abs() > 1e-6 {
            return String::new();
        }
        tick(10f64.powi(v.round() as i32))
    }

    /// How many y ticks between `bottom` and `top` (drawn units): one per power of ten on
    /// a log axis, 10 on a linear one.
    fn ticks(&self, bottom: f64, top: f64) -> usize {
        if self.log {
            (top - bottom).round() as usize + 1
        } else {
            10
        }
    }

    /// The y axis' caption: `label`, with ", log scale" on a log axis.
    fn caption(&self, label: String) -> String {
        if self.log {
            format!("{label}, log scale")
        } else {
            label
        }
    }
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
                let mut runs = RunsPerPoint::default();
                for g in &groups {
                    let g_rows = in_group(g)?;
                    let mut row = Vec::new();
                    for b in &bars {
                        let of: Vec<&[String]> =
                            g_rows.iter().copied().filter(|r| r[xi] == *b).collect();
                        runs.add(table.count(&of, y)?);
                        row.push(table.estimate(&of, y)?);
                    }
                    values.push(row);
                }
                Ok(Figure::Bars {
                    clusters: groups,
                    bars,
                    values,
                    runs,
                })
            }
            PlotKind::Lines => {
                let mut lines = Vec::new();
                let mut runs = RunsPerPoint::default();
                for g in &groups {
                    let g_rows = in_group(g)?;
                    let mut points = Vec::new();
                    for xv in table.distinct(&g_rows, x)? {
                        let xf: f64 = xv
                            .parse()
                            .map_err(|_| format!("{x}: {xv:?} is not a number"))?;
                        let of: Vec<&[String]> =
                            g_rows.iter().copied().filter(|r| r[xi] == xv).collect();
                        runs.add(table.count(&of, y)?);
                        if let Some(e) = table.estimate(&of, y)? {
                            points.push((xf, e));
                        }
                    }
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    lines.push((g.clone(), points));
                }
                Ok(Figure::Lines { lines, runs })
            }
            PlotKind::Timeline => Err("a timeline is drawn from a run, not from rows".into()),
        }
    }

    /// Draws `figure` with `marks` as SVG text and as a PNG file at `png`.
    ///
    /// # Errors
    /// A drawing or file error.
    pub fn render(&self, figure: &Figure, marks: &Marks, png: &Path) -> Result<String, String> {
        register_font();
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            self.draw(figure, marks, &root, 1)?;
        }
        let big = (SIZE.0 * PNG_SCALE, SIZE.1 * PNG_SCALE);
        let root = BitMapBackend::new(png, big).into_drawing_area();
        self.draw(figure, marks, &root, PNG_SCALE)?;
        Ok(svg)
    }

    /// Draws `figure` on `root`, every length and font size `s` times the SVG's.
    fn draw<DB: DrawingBackend>(
        &self,
        figure: &Figure,
        marks: &Marks,
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
                runs,
            } => {
                let width = bars.len() as f64 + 1.0;
                let single = clusters.len() == 1;
                let cluster_of = |c: usize| (!single).then(|| clusters[c].clone());
                // The published values of each bar, where its cluster has one.
                let published = |c: usize, b: usize| {
                    marks
                        .published
                        .iter()
                        .filter(move |r| r.series == bars[b] && r.cluster == cluster_of(c))
                };
                let data = values.iter().flatten().flatten().flat_map(|e| {
                    let h = e.ci95.unwrap_or(0.0);
                    [e.mean, e.mean + h]
                });
                let refs = (0..clusters.len())
                    .flat_map(|c| (0..bars.len()).map(move |b| (c, b)))
                    .flat_map(|(c, b)| published(c, b).flat_map(|r| [r.lo, r.hi]))
                    .collect::<Vec<f64>>();
                let axis = YAxis::of(
                    values
                        .iter()
                        .flatten()
                        .flatten()
                        .map(|e| e.mean)
                        .chain(refs.iter().copied()),
                );
                let top = data
                    .chain(refs.iter().copied())
                    .map(|v| axis.at(v))
                    .fold(if axis.log { f64::NEG_INFINITY } else { 0.0 }, f64::max);
                let bottom = axis.at(axis.floor);
                let top = if axis.log {
                    top.ceil().max(bottom + 1.0)
                } else {
                    top.max(1e-9) * 1.08
                };
                let colours = colours(bars);
                // One cluster: two rows of bar names above the caption.
                let (names_area, caption_at) = if single { (58, 40) } else { (44, 26) };
                let mut chart = ChartBuilder::on(&plot)
                    .margin(px(12))
                    .x_label_area_size(px(names_area))
                    .y_label_area_size(px(70))
                    .build_cartesian_2d(0.0..width * clusters.len() as f64, bottom..top)
                    .map_err(err)?;
                let y_ticks = axis.ticks(bottom, top);
                chart
                    .configure_mesh()
                    .label_style(font(12))
                    .axis_desc_style(font(14))
                    .disable_x_mesh()
                    .x_labels(0)
                    .y_labels(y_ticks)
                    .y_label_formatter(&|v| axis.tick(*v))
                    .y_desc(axis.caption(y_label))
                    .draw()
                    .map_err(err)?;
                // Each cluster's name under its centre (plotters puts ticks at round
                // numbers, not at the clusters), and the series column's name below them.
                // One cluster: each bar's name under it instead, and the bars' caption.
                let label_style =
                    TextStyle::from(font(12).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
                let under = |x: f64| {
                    let (x, y) = chart.backend_coord(&(x, bottom));
                    (x, y + px(6) as i32)
                };
                if single {
                    let small = TextStyle::from(font(10).into_font())
                        .pos(Pos::new(HPos::Center, VPos::Top));
                    for (b, name) in bars.iter().enumerate() {
                        // Alternate rows, so that neighbours' names do not overlap.
                        let (x, y) = under(0.5 + b as f64 + 0.45);
                        let y = y + if b % 2 == 1 { px(12) as i32 } else { 0 };
                        root.draw(&Text::new(
                            marks.name(name).to_string(),
                            (x, y),
                            small.clone(),
                        ))
                        .map_err(err)?;
                    }
                } else {
                    for (c, name) in clusters.iter().enumerate() {
                        root.draw(&Text::new(
                            marks.name(name).to_string(),
                            under(c as f64 * width + width / 2.0),
                            label_style.clone(),
                        ))
                        .map_err(err)?;
                    }
                }
                let caption = if single {
                    Some(x_label.clone())
                } else {
                    self.series.clone()
                };
                if let Some(caption) = caption.filter(|c| !c.is_empty()) {
                    let (x0, y) = chart.backend_coord(&(0.0, bottom));
                    let (x1, _) = chart.backend_coord(&(width * clusters.len() as f64, bottom));
                    root.draw(&Text::new(
                        caption,
                        ((x0 + x1) / 2, y + px(caption_at) as i32),
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
                                    [(at(c), bottom), (at(c) + 0.9, axis.at(e.mean))],
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
                                axis.at(e.mean - h),
                                axis.at(e.mean),
                                axis.at(e.mean + h),
                                BLACK.stroke_width(s),
                                px(6),
                            ))
                        }))
                        .map_err(err)?;
                    // The published value: a band, or a line for a point, across the bar.
                    for c in 0..clusters.len() {
                        for r in published(c, b) {
                            let (x0, x1) = (at(c) - 0.05, at(c) + 0.95);
                            let (lo, hi) = (axis.at(r.lo), axis.at(r.hi));
                            if hi > lo {
                                chart
                                    .draw_series(std::iter::once(Rectangle::new(
                                        [(x0, lo), (x1, hi)],
                                        BLACK.mix(0.25).filled(),
                                    )))
                                    .map_err(err)?;
                            }
                            chart
                                .draw_series(std::iter::once(DashedPathElement::new(
                                    vec![(x0, (lo + hi) / 2.0), (x1, (lo + hi) / 2.0)],
                                    px(4),
                                    px(3),
                                    BLACK.stroke_width(px(2)),
                                )))
                                .map_err(err)?;
                        }
                    }
                }
                let names: Vec<String> = bars.iter().map(|b| marks.name(b).to_string()).collect();
                let key_title = self.x_label.as_deref();
                legend(&key, key_title, &names, &colours, false, s).map_err(err)?;
                notes(
                    &key,
                    names.len(),
                    !refs.is_empty(),
                    &marks.runs(runs, "bar"),
                    s,
                )
                .map_err(err)?;
            }
            Figure::Lines { lines, runs } => {
                // The y range fits the data (with its confidence band), the published
                // values and a margin; it includes 0 only when the data come near it.
                let refs: Vec<&Reference> = marks
                    .published
                    .iter()
                    .filter(|r| r.x.is_some() && lines.iter().any(|(n, _)| *n == r.series))
                    .collect();
                let points = lines.iter().flat_map(|(_, p)| p);
                let axis = YAxis::of(
                    points
                        .clone()
                        .map(|(_, e)| e.mean)
                        .chain(refs.iter().flat_map(|r| [r.lo, r.hi])),
                );
                let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
                let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
                for (x, e) in points {
                    x0 = x0.min(*x);
                    x1 = x1.max(*x);
                    let h = e.ci95.unwrap_or(0.0);
                    y0 = y0.min(axis.at(e.mean - h));
                    y1 = y1.max(axis.at(e.mean + h));
                }
                for r in &refs {
                    y0 = y0.min(axis.at(r.lo));
                    y1 = y1.max(axis.at(r.hi));
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
                let (y0, y1) = if axis.log {
                    (y0.floor(), y1.ceil().max(y0.floor() + 1.0))
                } else {
                    if y0 > 0.0 && y0 < 0.25 * y1 {
                        y0 = 0.0;
                    }
                    let pad = ((y1 - y0) * 0.08).max(1e-9);
                    (if y0 == 0.0 { 0.0 } else { y0 - pad }, y1 + pad)
                };
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
                let y_ticks = axis.ticks(y0, y1);
                chart
                    .configure_mesh()
                    .label_style(font(12))
                    .axis_desc_style(font(14))
                    .x_labels(x_ticks)
                    .y_labels(y_ticks)
                    .x_label_formatter(&|v| tick(*v))
                    .y_label_formatter(&|v| axis.tick(*v))
                    .x_desc(x_label)
                    .y_desc(axis.caption(y_label))
                    .draw()
                    .map_err(err)?;
                for (k, ((_, pts), &colour)) in lines.iter().zip(&colours).enumerate() {
                    // The 95 % confidence band over the repetitions (seeds), where there
                    // are several.
                    if pts.iter().any(|(_, e)| e.ci95.is_some()) {
                        let band: Vec<(f64, f64)> = pts
                            .iter()
                            .map(|(x, e)| (*x, axis.at(e.mean + e.ci95.unwrap_or(0.0))))
                            .chain(
                                pts.iter()
                                    .rev()
                                    .map(|(x, e)| (*x, axis.at(e.mean - e.ci95.unwrap_or(0.0)))),
                            )
                            .collect();
                        chart
                            .draw_series(std::iter::once(Polygon::new(band, colour.mix(0.18))))
                            .map_err(err)?;
                    }
                    let line = pts.iter().map(|(x, e)| (*x, axis.at(e.mean)));
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
                            .draw(&marker(k, (*x, axis.at(e.mean)), px(4), &colour))
                            .map_err(err)?;
                    }
                }
                // Published values: a hollow black diamond at the claim's x, with its
                // range as a vertical bar where it is one.
                for r in &refs {
                    let x = r.x.unwrap_or_default();
                    let (lo, hi) = (axis.at(r.lo), axis.at(r.hi));
                    if hi > lo {
                        chart
                            .draw_series(std::iter::once(PathElement::new(
                                vec![(x, lo), (x, hi)],
                                BLACK.stroke_width(px(2)),
                            )))
                            .map_err(err)?;
                    }
                    chart
                        .plotting_area()
                        .draw(&diamond((x, (lo + hi) / 2.0), px(6), s))
                        .map_err(err)?;
                }
                let shown: Vec<String> = names.iter().map(|n| marks.name(n).to_string()).collect();
                legend(&key, None, &shown, &colours, true, s).map_err(err)?;
                notes(
                    &key,
                    shown.len(),
                    !refs.is_empty(),
                    &runs.caption("point"),
                    s,
                )
                .map_err(err)?;
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

/// Under the legend's `entries`: the published values' key (where the figure has any) and
/// what each bar or point averages (`runs`); lengths `s` times the SVG's.
fn notes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: usize,
    published: bool,
    runs: &str,
    s: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let si = s as i32;
    let font = ("sans-serif", f64::from(12 * s)).into_font();
    let row = ((SIZE.1 as i32 - 60) / entries.max(1) as i32).clamp(10, 20) * si;
    let mut y = 48 * si + entries as i32 * row + 10 * si;
    if published {
        area.draw(&DashedPathElement::new(
            vec![(4 * si, y), (26 * si, y)],
            4 * si,
            3 * si,
            BLACK.stroke_width(2 * s),
        ))?;
        area.draw(&Text::new("published", (30 * si, y - 7 * si), font.clone()))?;
        y += 20 * si;
    }
    // The runs' caption, wrapped at the column's width (about 0.55 em per character).
    let per_line = ((LEGEND_WIDTH - 10) as f64 / (0.55 * 12.0)) as usize;
    let mut line = String::new();
    for word in runs.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > per_line {
            area.draw(&Text::new(line.clone(), (4 * si, y), font.clone()))?;
            y += 16 * si;
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        area.draw(&Text::new(line, (4 * si, y), font))?;
    }
    Ok(())
}

/// A published value's marker on a line plot: a hollow black diamond centred at `at`.
fn diamond<'a, DB: DrawingBackend + 'a>(
    at: (f64, f64),
    size: u32,
    s: u32,
) -> DynElement<'a, DB, (f64, f64)> {
    let r = size as i32;
    (EmptyElement::at(at)
        + PathElement::new(
            vec![(0, -r), (r, 0), (0, r), (-r, 0), (0, -r)],
            BLACK.stroke_width(2 * s),
        ))
    .into_dyn()
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
            runs,
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
        assert_eq!(*runs, RunsPerPoint { min: 1, max: 2 });
        assert_eq!(runs.caption("bar"), "mean of 1–2 runs per bar, 95 % CI");
        let dir = std::env::temp_dir().join(format!("frugal-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let png = dir.join("p.png");
        let svg = spec("bars").render(&f, &Marks::default(), &png).unwrap();
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
        render_marked(spec, figure, &Marks::default())
    }

    /// [`render`] with `marks`.
    fn render_marked(spec: &PlotSpec, figure: &Figure, marks: &Marks) -> String {
        let dir =
            std::env::temp_dir().join(format!("frugal-plot-{}-{}", std::process::id(), spec.name));
        std::fs::create_dir_all(&dir).unwrap();
        let png = dir.join("p.png");
        let svg = spec.render(figure, marks, &png).unwrap();
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
    fn one_cluster_names_each_bar_under_it_with_its_papers_name() {
        let t = Table::from_csv(b"policy,cost_usd\nround-robin,1\ngio,2\nasq,3\n").unwrap();
        let mut s = spec("bars");
        s.name = "bars-one".into();
        s.series = None;
        s.x_label = Some("policy (§6.2)".into());
        let marks = Marks {
            names: [("round-robin".to_string(), "FIFO".to_string())].into(),
            ..Marks::default()
        };
        let svg = render_marked(&s, &s.figure(&t).unwrap(), &marks);
        // Under each bar its name (the paper's where it has one), the caption below them,
        // and what a bar is: one deterministic run.
        has_texts(
            &svg,
            &["FIFO", "gio", "asq", "policy (§6.2)", "one run per bar"],
        );
        assert!(!texts(&svg).iter().any(|t| t == "round-robin"), "{svg}");
        // FIFO keeps round robin's colour.
        assert!(svg.contains(&hex(PALETTE[fixed_colour("round-robin").unwrap()])));
    }

    #[test]
    fn values_spanning_more_than_a_hundredfold_get_a_log_axis() {
        let t = Table::from_csv(b"policy,cost_usd\ngio,0.1\nasq,180\n").unwrap();
        let mut s = spec("bars");
        s.name = "bars-log".into();
        s.series = None;
        s.y_label = Some("decision time (ms)".into());
        let svg = render(&s, &s.figure(&t).unwrap());
        has_texts(
            &svg,
            &[
                "decision time (ms), log scale",
                "0.1",
                "1",
                "10",
                "100",
                "1000",
            ],
        );
        // A hundredfold or less stays linear.
        let t = Table::from_csv(b"policy,cost_usd\ngio,2\nasq,180\n").unwrap();
        s.name = "bars-lin".into();
        let svg = render(&s, &s.figure(&t).unwrap());
        assert!(!svg.contains("log scale"));
        assert!(!YAxis::of([0.0, 500.0].into_iter()).log);
        let lin = YAxis::of([2.0, 180.0].into_iter());
        assert_eq!((lin.log, lin.floor), (false, 0.0));
        let log = YAxis::of([0.5, 80.0, 51.0].into_iter().chain([0.4]));
        assert_eq!((log.log, log.floor), (true, 0.1));
        assert_eq!((log.at(0.01), log.at(100.0)), (-1.0, 2.0));
        assert_eq!(
            (log.tick(2.0), log.tick(0.5)),
            ("100".to_string(), String::new())
        );
    }

    #[test]
    fn published_values_are_marked_and_keyed() {
        let t = Table::from_csv(
            b"load,policy,cost_usd\nlight,gio,1\nlight,gio,3\nlight,asq,3\nlight,asq,3\n",
        )
        .unwrap();
        let mut s = spec("bars");
        s.name = "bars-published".into();
        let marks = Marks {
            names: Default::default(),
            published: vec![Reference {
                cluster: None,
                series: "gio".into(),
                x: None,
                lo: 1.5,
                hi: 2.5,
            }],
            quick: true,
        };
        let plain = render(&s, &s.figure(&t).unwrap());
        let marked = render_marked(&s, &s.figure(&t).unwrap(), &marks);
        // A quick run's plot says so (the caption wraps at the legend column's width).
        has_texts(
            &marked,
            &["published", "quick run (--quick): mean of 2 runs"],
        );
        assert!(!texts(&plain).iter().any(|t| t == "published"));
        // The band is drawn.
        assert!(marked.matches("<rect").count() > plain.matches("<rect").count());
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
