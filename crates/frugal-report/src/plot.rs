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

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
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
    #[serde(default, rename = "where")]
    pub filter: Filter,
    /// Axis captions (default: the column names).
    #[serde(default)]
    pub x_label: Option<String>,
    /// Y axis caption.
    #[serde(default)]
    pub y_label: Option<String>,
}

/// The data of a plot.
#[derive(Clone, Debug, PartialEq)]
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
            self.draw(figure, &root)?;
        }
        let root = BitMapBackend::new(png, SIZE).into_drawing_area();
        self.draw(figure, &root)?;
        Ok(svg)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        figure: &Figure,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), String> {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing {}: {e:?}", self.name);
        root.fill(&WHITE).map_err(err)?;
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
                    * headroom(bars.len());
                let mut chart = ChartBuilder::on(root)
                    .caption(&self.title, ("sans-serif", 20))
                    .margin(12)
                    .x_label_area_size(40)
                    .y_label_area_size(70)
                    .build_cartesian_2d(0.0..width * clusters.len() as f64, 0.0..top)
                    .map_err(err)?;
                // Cluster names go in the axis caption, left to right: plotters puts ticks at
                // round numbers, not at the clusters' centres.
                let caption = match (&self.series, clusters.len()) {
                    (Some(s), n) if n > 1 => {
                        format!("{s}, left to right: {}", clusters.join(" · "))
                    }
                    _ => String::new(),
                };
                chart
                    .configure_mesh()
                    .disable_x_mesh()
                    .x_labels(0)
                    .x_desc(caption)
                    .y_desc(y_label)
                    .draw()
                    .map_err(err)?;
                for (b, name) in bars.iter().enumerate() {
                    let colour = PALETTE[b % PALETTE.len()];
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
                        .map_err(err)?
                        .label(name.as_str())
                        .legend(move |(x, y)| {
                            Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled())
                        });
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
                                BLACK.stroke_width(1),
                                6,
                            ))
                        }))
                        .map_err(err)?;
                }
                legend(&mut chart).map_err(err)?;
            }
            Figure::Lines(lines) => {
                let points = lines.iter().flat_map(|(_, p)| p);
                let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
                for (x, e) in points {
                    x0 = x0.min(*x);
                    x1 = x1.max(*x);
                    y1 = y1.max(e.mean + e.ci95.unwrap_or(0.0));
                }
                if !x0.is_finite() {
                    (x0, x1) = (0.0, 1.0);
                }
                if x1 <= x0 {
                    x1 = x0 + 1.0;
                }
                let mut chart = ChartBuilder::on(root)
                    .caption(&self.title, ("sans-serif", 20))
                    .margin(12)
                    .x_label_area_size(40)
                    .y_label_area_size(70)
                    .build_cartesian_2d(x0..x1, 0.0..y1.max(1e-9) * headroom(lines.len()))
                    .map_err(err)?;
                chart
                    .configure_mesh()
                    .x_desc(x_label)
                    .y_desc(y_label)
                    .draw()
                    .map_err(err)?;
                for (k, (name, pts)) in lines.iter().enumerate() {
                    let colour = PALETTE[k % PALETTE.len()];
                    chart
                        .draw_series(LineSeries::new(
                            pts.iter().map(|(x, e)| (*x, e.mean)),
                            colour.stroke_width(2),
                        ))
                        .map_err(err)?
                        .label(name.as_str())
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 14, y)], colour.stroke_width(2))
                        });
                    chart
                        .draw_series(pts.iter().map(|(x, e)| {
                            let h = e.ci95.unwrap_or(0.0);
                            ErrorBar::new_vertical(
                                *x,
                                e.mean - h,
                                e.mean,
                                e.mean + h,
                                colour.filled(),
                                6,
                            )
                        }))
                        .map_err(err)?;
                }
                legend(&mut chart).map_err(err)?;
            }
            Figure::Timeline { vms, cost } => {
                let end = vms
                    .iter()
                    .flat_map(|(_, iv)| iv.iter().map(|i| i.1))
                    .chain(cost.iter().map(|c| c.0))
                    .fold(1.0, f64::max);
                let (top, bottom) = root.split_vertically(SIZE.1 * 3 / 5);
                let mut gantt = ChartBuilder::on(&top)
                    .caption(&self.title, ("sans-serif", 20))
                    .margin(12)
                    .x_label_area_size(30)
                    .y_label_area_size(70)
                    .build_cartesian_2d(0.0..end, 0.0..vms.len().max(1) as f64)
                    .map_err(err)?;
                gantt
                    .configure_mesh()
                    .disable_y_mesh()
                    .y_labels(0)
                    .y_desc("VMs (on = bar)")
                    .draw()
                    .map_err(err)?;
                gantt
                    .draw_series(vms.iter().enumerate().flat_map(|(k, (_, iv))| {
                        let colour = PALETTE[k % PALETTE.len()];
                        iv.iter().map(move |(a, b)| {
                            Rectangle::new(
                                [(*a, k as f64 + 0.15), (*b, k as f64 + 0.85)],
                                colour.filled(),
                            )
                        })
                    }))
                    .map_err(err)?;
                let bill = cost.last().map_or(0.0, |c| c.1).max(1e-9);
                let mut line = ChartBuilder::on(&bottom)
                    .margin(12)
                    .x_label_area_size(40)
                    .y_label_area_size(70)
                    .build_cartesian_2d(0.0..end, 0.0..bill * 1.1)
                    .map_err(err)?;
                line.configure_mesh()
                    .x_desc("simulated time (s)")
                    .y_desc("bill so far ($)")
                    .draw()
                    .map_err(err)?;
                line.draw_series(LineSeries::new(
                    cost.iter().copied(),
                    PALETTE[0].stroke_width(2),
                ))
                .map_err(err)?;
            }
        }
        root.present().map_err(err)
    }
}

type Linear = Cartesian2d<RangedCoordf64, RangedCoordf64>;

fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Linear>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()
}

/// How far above the highest value the y axis goes, so that a legend of `entries` lines
/// (drawn in the upper right) does not hide the data.
fn headroom(entries: usize) -> f64 {
    1.1 + 0.045 * entries as f64
}

/// Pixel size of every plot.
const SIZE: (u32, u32) = (900, 480);

/// Tableau 10: distinguishable, and readable by most colour-blind viewers.
const PALETTE: [RGBColor; 10] = [
    RGBColor(78, 121, 167),
    RGBColor(242, 142, 43),
    RGBColor(225, 87, 89),
    RGBColor(118, 183, 178),
    RGBColor(89, 161, 79),
    RGBColor(237, 201, 72),
    RGBColor(176, 122, 161),
    RGBColor(255, 157, 167),
    RGBColor(156, 117, 95),
    RGBColor(186, 176, 172),
];

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

    #[test]
    fn lines_need_numeric_x() {
        let t = Table::from_csv(b"load,policy,cost_usd\nlight,gio,1\n").unwrap();
        let mut s = spec("lines");
        s.x = Some("policy".into());
        assert!(s.figure(&t).unwrap_err().contains("not a number"));
    }
}
