//! What the report draws on a plot beside its rows ([`Marks`]): each policy under the name
//! its paper gives it ([`crate::names`]), and the published value of every claim the plot
//! shows ([`references`]).
//!
//! A claim is drawn on a plot when it speaks of the plot's metric (`metric` = the plot's
//! `y`) and of the plot's bars or lines (`by` = the bars' `x`, or the lines' `series`),
//! has a published number (`size`, `between`, `at_most` or `at_least`, in the value's unit) and
//! its rows are the plot's:
//!
//! - every `where` of the claim is the plot's own, or picks one cluster (the bars'
//!   `series` column), or — for lines — fixes the x value the mark is drawn at;
//! - every `where` of the plot is the claim's own or one of the claim's `per` columns;
//! - on a plot of several clusters, the claim picks one cluster or is judged per cluster
//!   (`per` holds the `series` column), and does not pick the best group (`over`).
//!
//! The mark is in the plot's unit: a `mean` or `median` claim's range as it is; a `change
//! = [a, b]` claim's range of percent on the bar (or point) of b,
//! mean_b · (1 + range / 100), drawn on a — where a would be if the paper's change held;
//! a `difference = [a, b]`'s at mean_b + range.
//! Orderings have no number and are not drawn.

use crate::claim::{Claim, Over};
use crate::plot::{Figure, Marks, PlotSpec, Reference};
use crate::table::holds;

/// The marks of `spec`'s `figure` in paper `paper`'s report, from its `claims`.
pub fn marks(paper: &str, spec: &PlotSpec, figure: &Figure, claims: &[Claim]) -> Marks {
    let labels: Vec<&String> = match figure {
        Figure::Bars { clusters, bars, .. } => clusters.iter().chain(bars).collect(),
        Figure::Lines { lines, .. } => lines.iter().map(|(n, _)| n).collect(),
        Figure::Timeline { .. } => Vec::new(),
    };
    Marks {
        names: labels
            .into_iter()
            .filter_map(|l| Some((l.clone(), crate::names::paper_name(paper, l)?)))
            .collect(),
        published: references(spec, figure, claims),
        quick: false,
    }
}

/// The published values of `claims` that `spec`'s `figure` shows (module doc).
pub fn references(spec: &PlotSpec, figure: &Figure, claims: &[Claim]) -> Vec<Reference> {
    let (Some(x), Some(y)) = (spec.x.as_deref(), spec.y.as_deref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in claims.iter().filter(|c| c.metric == y) {
        let Some((lo, hi)) = published(c) else {
            continue;
        };
        let points = c.difference.is_some();
        let scaled = |base: f64| {
            if points {
                (base + lo, base + hi)
            } else {
                (base * (1.0 + lo / 100.0), base * (1.0 + hi / 100.0))
            }
        };
        match figure {
            Figure::Bars {
                clusters,
                bars,
                values,
                ..
            } if c.by == x => {
                let several = clusters.len() > 1;
                for (k, cluster) in clusters.iter().enumerate() {
                    let picked = spec.series.as_deref().map(|s| (s, cluster.as_str()));
                    if !same_rows(c, spec, picked.filter(|_| several), None) {
                        continue;
                    }
                    let cluster = several.then(|| cluster.clone());
                    if let Some(a) = c.mean.as_ref().or(c.median.as_ref()) {
                        if bars.contains(a) {
                            out.push(Reference {
                                cluster,
                                series: a.clone(),
                                x: None,
                                lo,
                                hi,
                            });
                        }
                    } else if let Some([a, b]) = c.compared()
                        && bars.contains(a)
                        && let Some(j) = bars.iter().position(|v| v == b)
                        && let Some(base) = values[k][j]
                    {
                        let (lo, hi) = scaled(base.mean);
                        out.push(Reference {
                            cluster,
                            series: a.clone(),
                            x: None,
                            lo: lo.min(hi),
                            hi: lo.max(hi),
                        });
                    }
                }
            }
            Figure::Lines { lines, .. } if spec.series.as_deref() == Some(c.by.as_str()) => {
                let Some(at) = c.filter.get(x).and_then(|v| v.parse::<f64>().ok()) else {
                    continue;
                };
                if !same_rows(c, spec, None, Some(x)) {
                    continue;
                }
                let point = |name: &str| {
                    lines
                        .iter()
                        .find(|(n, _)| n == name)
                        .and_then(|(_, p)| p.iter().find(|(px, _)| *px == at))
                        .map(|(_, e)| e.mean)
                };
                if let Some(a) = c.mean.as_ref().or(c.median.as_ref()) {
                    if lines.iter().any(|(n, _)| n == a) {
                        out.push(Reference {
                            cluster: None,
                            series: a.clone(),
                            x: Some(at),
                            lo,
                            hi,
                        });
                    }
                } else if let Some([a, b]) = c.compared()
                    && lines.iter().any(|(n, _)| n == a)
                    && let Some(base) = point(b)
                {
                    let (lo, hi) = scaled(base);
                    out.push(Reference {
                        cluster: None,
                        series: a.clone(),
                        x: Some(at),
                        lo: lo.min(hi),
                        hi: lo.max(hi),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// A claim's published range in its value's unit: `between`, or the stated `size` or the
/// bound of `at_most` / `at_least` as a point; `None` for an ordering or a family (`a*`)
/// comparison.
fn published(c: &Claim) -> Option<(f64, f64)> {
    if c.compared().is_some_and(|[a, _]| a.ends_with('*')) {
        return None;
    }
    if c.compared().is_none() && c.mean.is_none() && c.median.is_none() {
        return None;
    }
    if let Some(v) = c.size {
        return Some((v, v));
    }
    match (c.between, c.at_most, c.at_least) {
        (Some([lo, hi]), _, _) => Some((lo.min(hi), lo.max(hi))),
        (None, Some(v), None) | (None, None, Some(v)) => Some((v, v)),
        _ => None,
    }
}

/// Whether `c` is judged on the rows `spec` draws (module doc): `cluster` is the column
/// and value of the cluster drawn (several clusters), `at` the x column a line mark fixes.
fn same_rows(c: &Claim, spec: &PlotSpec, cluster: Option<(&str, &str)>, at: Option<&str>) -> bool {
    let claim_ok = c.filter.iter().all(|(k, v)| match spec.filter.get(k) {
        Some(p) => holds(p, v),
        None => {
            cluster.is_some_and(|(s, value)| s == k.as_str() && holds(value, v))
                || at == Some(k.as_str())
        }
    });
    let plot_ok = spec
        .filter
        .keys()
        .all(|k| c.filter.contains_key(k) || c.per.contains(k));
    let cluster_ok = cluster.is_none_or(|(s, _)| {
        c.filter.contains_key(s) || (c.per.iter().any(|p| p == s) && c.over == Over::Each)
    });
    claim_ok && plot_ok && cluster_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Table;

    fn claim(toml: &str) -> Claim {
        toml::from_str(&format!(
            "claim = 'c'\nsource = 's'\npublished = 'p'\nmetric = 'cost_usd'\n{toml}"
        ))
        .unwrap()
    }

    fn bars(series: bool, filter: &str) -> PlotSpec {
        let series = if series { "series = 'load'\n" } else { "" };
        toml::from_str(&format!(
            "name = 'n'\ntitle = 't'\nkind = 'bars'\nx = 'policy'\ny = 'cost_usd'\n{series}{filter}"
        ))
        .unwrap()
    }

    const ROWS: &[u8] =
        b"load,policy,cost_usd\nlight,fifo,10\nlight,bfd,8\nhigh,fifo,20\nhigh,bfd,12\n";

    #[test]
    fn a_change_is_drawn_on_its_bar_from_the_baselines_mean() {
        let t = Table::from_csv(ROWS).unwrap();
        // Judged per load: one mark per cluster, at fifo's mean × (1 − 21 %).
        let c = claim("change = ['bfd', 'fifo']\nbetween = [-21, -21]\nper = ['load']");
        let spec = bars(true, "");
        let f = spec.figure(&t).unwrap();
        let r = references(&spec, &f, &[c]);
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].cluster.as_deref(), r[0].series.as_str()),
            (Some("light"), "bfd")
        );
        assert!((r[0].lo - 7.9).abs() < 1e-12 && r[0].lo == r[0].hi, "{r:?}");
        assert!((r[1].lo - 15.8).abs() < 1e-12, "{r:?}");
        // Pooled over the loads, it is not either cluster's number: not drawn.
        let pooled = claim("change = ['bfd', 'fifo']\nbetween = [-21, -21]");
        assert!(references(&spec, &f, std::slice::from_ref(&pooled)).is_empty());
        // On a plot of the pooled rows (one cluster) it is.
        let one = bars(false, "");
        let f1 = one.figure(&t).unwrap();
        let r = references(&one, &f1, &[pooled]);
        assert_eq!((r.len(), r[0].cluster.clone()), (1, None));
        assert!((r[0].lo - 11.85).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn a_claim_on_other_rows_or_without_a_number_is_not_drawn() {
        let t = Table::from_csv(ROWS).unwrap();
        let spec = bars(true, "where = { load = 'light' }");
        let f = spec.figure(&t).unwrap();
        // The claim's where picks the plot's rows: drawn, as a band.
        let light = claim("mean = 'bfd'\nbetween = [7, 9]\nwhere = { load = 'light' }");
        let r = references(&spec, &f, &[light]);
        assert_eq!((r.len(), r[0].lo, r[0].hi), (1, 7.0, 9.0));
        // Another load, another metric, an ordering, a best-group pick: none.
        let high = claim("mean = 'bfd'\nbetween = [7, 9]\nwhere = { load = 'high' }");
        let mut other = claim("mean = 'bfd'\nat_most = 9");
        other.metric = "jct_s".into();
        let order = claim("order = ['bfd', '<', 'fifo']");
        let spec2 = bars(true, "");
        let f2 = spec2.figure(&t).unwrap();
        let best =
            claim("change = ['bfd', 'fifo']\nbetween = [-40, -40]\nper = ['load']\nover = 'min'");
        assert!(references(&spec, &f, &[high, other, order]).is_empty());
        assert!(references(&spec2, &f2, &[best]).is_empty());
    }

    #[test]
    fn a_line_mark_sits_at_the_x_its_claim_fixes() {
        let t = Table::from_csv(b"load,policy,cost_usd\n1,fifo,10\n2,fifo,20\n1,bfd,5\n2,bfd,9\n")
            .unwrap();
        let spec: PlotSpec = toml::from_str(
            "name = 'n'\ntitle = 't'\nkind = 'lines'\nx = 'load'\ny = 'cost_usd'\nseries = 'policy'",
        )
        .unwrap();
        let f = spec.figure(&t).unwrap();
        let c = claim("change = ['bfd', 'fifo']\nbetween = [-50, -40]\nwhere = { load = 2 }");
        let r = references(&spec, &f, &[c]);
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].x, r[0].series.as_str()), (Some(2.0), "bfd"));
        assert!((r[0].lo - 10.0).abs() < 1e-12 && (r[0].hi - 12.0).abs() < 1e-12);
        // Without a fixed x there is no point to mark.
        let free = claim("change = ['bfd', 'fifo']\nbetween = [-50, -40]");
        assert!(references(&spec, &f, &[free]).is_empty());
    }
}
