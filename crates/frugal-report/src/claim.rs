//! Published claims and their verdicts.
//!
//! A claim compares one metric (a column of the rows) between series (the values of the
//! `by` column, normally the policy). It is evaluated in each group of the `per` columns
//! (all matching rows pooled when there are none), over the rows that pass `where`:
//!
//! - `order = ["gio", "<=", "first-fit", "<", "fifo"]`: the series' means are in this
//!   order. `<=` allows `tolerance` percent of the right-hand mean; `<` is strict.
//!   **holds** if every relation holds, **direction only** if only the ends are ordered
//!   (first mean < last mean), **does not hold** otherwise.
//! - `change = ["a", "b"]`: 100·(mean_a / mean_b − 1), percent (−30 = a is 30 % lower).
//!   `a` may end in `*` (`"time-sliced:*"`): every series that starts with the rest is
//!   compared with b as a group of its own, so `over = "max"` reports the family's best.
//! - `mean = "a"` / `median = "a"`: the mean / median of a, in the metric's unit.
//!
//! A numeric claim (`change`, `mean`) has one test: `at_most = x`, `at_least = x` or
//! `between = [lo, hi]`, widened by `tolerance` (in the value's unit). It **holds** if the
//! test passes; a `change` that fails it is **direction only** if it has the sign of the
//! published value (the midpoint of `between`) — a saving, but not as large — and **does
//! not hold** otherwise. With several groups the verdict is the worst group's, unless
//! `over = "min"` or `"max"` picks one group by value ("up to 80 % cheaper": the best case).

use serde::Deserialize;

use crate::table::{Filter, Table};

/// A verdict, from best to worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// The published claim holds on frugal's runs.
    Holds,
    /// The effect has the published direction but not its size (or not every link of an
    /// ordering holds).
    DirectionOnly,
    /// The runs contradict the claim.
    DoesNotHold,
    /// No run produced the metric (a failed run or a filter that matches nothing).
    NoData,
}

impl Verdict {
    /// The report's wording.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DirectionOnly => "direction only",
            Verdict::DoesNotHold => "does not hold",
            Verdict::NoData => "no data",
        }
    }
}

/// Which group a claim with several groups reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Over {
    /// Every group must pass: the worst verdict.
    #[default]
    Each,
    /// The group with the smallest value ("up to N % cheaper" when the value is a change).
    Min,
    /// The group with the largest value.
    Max,
}

/// One published claim (`[[claim]]` in an experiment file).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The statement, as the paper makes it.
    pub claim: String,
    /// Where the paper makes it (paper, section, figure or table).
    pub source: String,
    /// The published value, as text (e.g. `8–10 %`).
    pub published: String,
    /// The column compared.
    pub metric: String,
    /// The column whose values name the series.
    #[serde(default = "policy")]
    pub by: String,
    /// Only rows with these column values.
    #[serde(default, rename = "where")]
    pub filter: Filter,
    /// Columns that split the rows into groups, each checked on its own.
    #[serde(default)]
    pub per: Vec<String>,
    /// How several groups make one verdict.
    #[serde(default)]
    pub over: Over,
    /// An ordering of series, relations between them.
    #[serde(default)]
    pub order: Option<Vec<String>>,
    /// Percent change of the first series against the second.
    #[serde(default)]
    pub change: Option<[String; 2]>,
    /// The mean of one series.
    #[serde(default)]
    pub mean: Option<String>,
    /// The median of one series (the mean of the two middle values for an even count).
    #[serde(default)]
    pub median: Option<String>,
    /// Test: value ≤ x.
    #[serde(default)]
    pub at_most: Option<f64>,
    /// Test: value ≥ x.
    #[serde(default)]
    pub at_least: Option<f64>,
    /// Test: lo ≤ value ≤ hi.
    #[serde(default)]
    pub between: Option<[f64; 2]>,
    /// Slack of the test, in the value's unit (percent of the larger mean for `<=` in an
    /// order).
    #[serde(default)]
    pub tolerance: f64,
    /// Unit of a `mean` (a `change` is in percent).
    #[serde(default)]
    pub unit: Option<String>,
    /// Why frugal's number differs from the paper's, shown unless the claim holds.
    #[serde(default)]
    pub note: Option<String>,
}

/// A group of rows to evaluate: its label, its rows, and the family member it compares
/// (for `change = ["family:*", b]`).
type Group<'t> = (String, Vec<&'t [String]>, Option<String>);

fn policy() -> String {
    "policy".to_string()
}

/// A claim evaluated on a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// frugal's value as shown beside the published one.
    pub frugal: String,
    /// Each group's label, value and verdict (one entry without `per`).
    pub groups: Vec<(String, String, Verdict)>,
}

impl Claim {
    /// Checks the claim's shape: one kind, a test for numeric kinds, relations in orders.
    ///
    /// # Errors
    /// What is missing or extra.
    pub fn check(&self) -> Result<(), String> {
        let kinds = [
            self.order.is_some(),
            self.change.is_some(),
            self.mean.is_some(),
            self.median.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err("give exactly one of `order`, `change`, `mean`, `median`".into());
        }
        let tests = [
            self.at_most.is_some(),
            self.at_least.is_some(),
            self.between.is_some(),
        ];
        let n_tests = tests.iter().filter(|t| **t).count();
        if let Some(order) = &self.order {
            if n_tests != 0 {
                return Err("an `order` takes no at_most/at_least/between".into());
            }
            if order.len() < 3 || order.len() % 2 == 0 {
                return Err("`order` alternates series and relations: [a, \"<\", b, …]".into());
            }
            for r in order.iter().skip(1).step_by(2) {
                if r != "<" && r != "<=" {
                    return Err(format!("`order` relation {r:?}: use \"<\" or \"<=\""));
                }
            }
        } else if n_tests != 1 {
            return Err("give exactly one of at_most, at_least, between".into());
        }
        if let Some([lo, hi]) = self.between
            && lo > hi
        {
            return Err(format!("between = [{lo}, {hi}]: low above high"));
        }
        if !(self.tolerance >= 0.0 && self.tolerance.is_finite()) {
            return Err(format!("tolerance {}: must be ≥ 0", self.tolerance));
        }
        Ok(())
    }

    /// Evaluates the claim on `table`.
    ///
    /// # Errors
    /// A column named by the claim that the table lacks, or a non-numeric metric cell.
    pub fn evaluate(&self, table: &Table) -> Result<Outcome, String> {
        let rows = table.select(&self.filter)?;
        let mut groups: Vec<(String, Vec<&[String]>)> = Vec::new();
        let per: Vec<usize> = self
            .per
            .iter()
            .map(|c| table.column(c))
            .collect::<Result<_, _>>()?;
        for r in rows {
            let label = self
                .per
                .iter()
                .zip(&per)
                .map(|(c, &i)| format!("{c}={}", r[i]))
                .collect::<Vec<_>>()
                .join(", ");
            match groups.iter_mut().find(|(l, _)| *l == label) {
                Some((_, g)) => g.push(r),
                None => groups.push((label, vec![r])),
            }
        }
        if groups.is_empty() {
            return Ok(Outcome {
                verdict: Verdict::NoData,
                frugal: "no rows".into(),
                groups: vec![],
            });
        }
        let by = table.column(&self.by)?;
        let mean_of = |rows: &[&[String]], series: &str| -> Result<Option<f64>, String> {
            let of: Vec<&[String]> = rows.iter().copied().filter(|r| r[by] == series).collect();
            Ok(table.estimate(&of, &self.metric)?.map(|e| e.mean))
        };
        let mut evaluated = Vec::new();
        // `change = ["family:*", b]`: every series named `family:…` against b, each its own
        // group (so `over` can pick the best member of a family).
        let mut expanded: Vec<Group> = Vec::new();
        for (label, rows) in &groups {
            match &self.change {
                Some([a, _]) if a.ends_with('*') => {
                    let prefix = &a[..a.len() - 1];
                    let mut members: Vec<&str> = Vec::new();
                    for r in rows {
                        if r[by].starts_with(prefix) && !members.contains(&r[by].as_str()) {
                            members.push(&r[by]);
                        }
                    }
                    for m in members {
                        let l = if label.is_empty() {
                            format!("{}={m}", self.by)
                        } else {
                            format!("{label}, {}={m}", self.by)
                        };
                        expanded.push((l, rows.clone(), Some(m.to_string())));
                    }
                }
                _ => expanded.push((label.clone(), rows.clone(), None)),
            }
        }
        for (label, rows, member) in &expanded {
            let rows = rows.as_slice();
            let (value, shown, verdict) = if let Some(order) = &self.order {
                let (shown, verdict) = self.order_verdict(order, |s| mean_of(rows, s))?;
                (None, shown, verdict)
            } else {
                let v = match (&self.change, &self.mean, &self.median) {
                    (Some([a, b]), _, _) => match (
                        mean_of(rows, member.as_deref().unwrap_or(a))?,
                        mean_of(rows, b)?,
                    ) {
                        (Some(a), Some(b)) if b != 0.0 => Some(100.0 * (a / b - 1.0)),
                        _ => None,
                    },
                    (_, Some(a), _) => mean_of(rows, a)?,
                    (_, _, Some(a)) => {
                        let of: Vec<&[String]> =
                            rows.iter().copied().filter(|r| r[by] == *a).collect();
                        table.median(&of, &self.metric)?
                    }
                    _ => unreachable!("checked"),
                };
                match v {
                    None => (None, "no data".to_string(), Verdict::NoData),
                    Some(v) => (Some(v), self.show(v), self.numeric_verdict(v)),
                }
            };
            evaluated.push((label.clone(), value, shown, verdict));
        }
        let pick = |better: fn(f64, f64) -> bool| {
            evaluated
                .iter()
                .filter_map(|(_, v, s, verdict)| v.map(|v| (v, s.clone(), *verdict)))
                .reduce(|a, b| if better(b.0, a.0) { b } else { a })
        };
        let (frugal, verdict) = match self.over {
            Over::Min | Over::Max if self.order.is_none() => {
                let best = if self.over == Over::Min {
                    pick(|a, b| a < b)
                } else {
                    pick(|a, b| a > b)
                };
                match best {
                    Some((_, s, v)) => (s, v),
                    None => ("no data".to_string(), Verdict::NoData),
                }
            }
            _ => {
                let worst = evaluated.iter().map(|e| e.3).max().expect("non-empty");
                let values: Vec<f64> = evaluated.iter().filter_map(|e| e.1).collect();
                let shown = if self.order.is_some() && evaluated.len() > 1 {
                    let held = evaluated.iter().filter(|e| e.3 == Verdict::Holds).count();
                    format!("holds in {held} of {} cases", evaluated.len())
                } else if values.len() > 1 {
                    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    format!("{} to {}", self.show(lo), self.show(hi))
                } else {
                    evaluated[0].2.clone()
                };
                (shown, worst)
            }
        };
        Ok(Outcome {
            verdict,
            frugal,
            groups: evaluated
                .into_iter()
                .map(|(l, _, s, v)| (l, s, v))
                .collect(),
        })
    }

    fn unit(&self) -> &str {
        if self.change.is_some() {
            "%"
        } else {
            self.unit.as_deref().unwrap_or("")
        }
    }

    fn show(&self, v: f64) -> String {
        let sign = if self.change.is_some() && v > 0.0 {
            "+"
        } else {
            ""
        };
        match self.unit() {
            "" => format!("{sign}{v:.3}"),
            u => format!("{sign}{v:.1} {u}"),
        }
    }

    fn numeric_verdict(&self, v: f64) -> Verdict {
        let t = self.tolerance;
        let (passes, reference) = match (self.at_most, self.at_least, self.between) {
            (Some(x), _, _) => (v <= x + t, x),
            (_, Some(x), _) => (v >= x - t, x),
            (_, _, Some([lo, hi])) => (v >= lo - t && v <= hi + t, (lo + hi) / 2.0),
            _ => unreachable!("checked"),
        };
        if passes {
            Verdict::Holds
        } else if self.change.is_some() && v != 0.0 && v.signum() == reference.signum() {
            Verdict::DirectionOnly
        } else {
            Verdict::DoesNotHold
        }
    }

    fn order_verdict(
        &self,
        order: &[String],
        mean: impl Fn(&str) -> Result<Option<f64>, String>,
    ) -> Result<(String, Verdict), String> {
        let mut means = Vec::new();
        for s in order.iter().step_by(2) {
            match mean(s)? {
                Some(m) => means.push(m),
                None => return Ok((format!("{s}: no data"), Verdict::NoData)),
            }
        }
        let mut shown = format!("{} {:.3}", order[0], means[0]);
        let mut all = true;
        for (k, rel) in order.iter().skip(1).step_by(2).enumerate() {
            let (a, b) = (means[k], means[k + 1]);
            let ok = if rel == "<" {
                a < b
            } else {
                a <= b * (1.0 + self.tolerance / 100.0)
            };
            all &= ok;
            let sym = match (ok, rel.as_str()) {
                (true, "<") => "<",
                (true, _) => "≤",
                (false, _) if a > b => ">",
                (false, _) => "=",
            };
            shown.push_str(&format!(" {sym} {} {:.3}", order[2 * k + 2], b));
        }
        let verdict = if all {
            Verdict::Holds
        } else if means[0] < *means.last().expect("non-empty") {
            Verdict::DirectionOnly
        } else {
            Verdict::DoesNotHold
        };
        Ok((shown, verdict))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(extra: &str) -> Claim {
        let c: Claim = toml::from_str(&format!(
            "claim='c'\nsource='s'\npublished='p'\nmetric='cost_usd'\n{extra}"
        ))
        .unwrap();
        c.check().unwrap();
        c
    }

    fn table() -> Table {
        Table::from_csv(
            b"load,policy,cost_usd\n\
              light,gio,6\nlight,gio,8\nlight,ff,8\nlight,fifo,10\n\
              high,gio,9\nhigh,ff,8\nhigh,fifo,10\n",
        )
        .unwrap()
    }

    #[test]
    fn change_is_percent_of_the_second_series_with_direction_only_below_the_size() {
        // light: gio mean 7 vs fifo 10 → −30 %.
        let c = claim("change=['gio','fifo']\nat_most=-30\nwhere={load='light'}");
        let o = c.evaluate(&table()).unwrap();
        assert_eq!((o.verdict, o.frugal.as_str()), (Verdict::Holds, "-30.0 %"));
        let c = claim("change=['gio','fifo']\nat_most=-50\nwhere={load='light'}");
        assert_eq!(
            c.evaluate(&table()).unwrap().verdict,
            Verdict::DirectionOnly
        );
        let c = claim("change=['fifo','gio']\nat_most=-50\nwhere={load='light'}");
        assert_eq!(c.evaluate(&table()).unwrap().verdict, Verdict::DoesNotHold);
        let c = claim("change=['gio','fifo']\nat_most=-32\ntolerance=2\nwhere={load='light'}");
        assert_eq!(c.evaluate(&table()).unwrap().verdict, Verdict::Holds);
        // gio: 6, 8, 9 → median 8, mean 7.67.
        let c = claim("median='gio'\nbetween=[8,8]\nunit='$'");
        let o = c.evaluate(&table()).unwrap();
        assert_eq!((o.verdict, o.frugal.as_str()), (Verdict::Holds, "8.0 $"));
    }

    #[test]
    fn groups_report_the_worst_or_the_chosen_extreme() {
        // light −30 %, high −10 %.
        let c = claim("change=['gio','fifo']\nat_most=-25\nper=['load']");
        let o = c.evaluate(&table()).unwrap();
        assert_eq!(o.verdict, Verdict::DirectionOnly);
        assert_eq!(o.frugal, "-30.0 % to -10.0 %");
        assert_eq!(o.groups[0].0, "load=light");
        let c = claim("change=['gio','fifo']\nat_most=-25\nper=['load']\nover='min'");
        assert_eq!(c.evaluate(&table()).unwrap().verdict, Verdict::Holds);
    }

    #[test]
    fn a_family_pattern_compares_each_member_and_over_picks_the_best() {
        let t = Table::from_csv(b"policy,savings_pct\ngreedy,10\nts:2,12\nts:8,15\nts:16,11\n")
            .unwrap();
        let c = claim("change=['ts:*','greedy']\nbetween=[40,60]\nover='max'");
        let c = Claim {
            metric: "savings_pct".into(),
            ..c
        };
        let o = c.evaluate(&t).unwrap();
        assert_eq!(o.groups.len(), 3);
        assert_eq!(o.groups[1].0, "policy=ts:8");
        assert_eq!((o.verdict, o.frugal.as_str()), (Verdict::Holds, "+50.0 %"));
    }

    #[test]
    fn orders_hold_fully_by_the_ends_or_not_at_all() {
        let light = "where={load='light'}";
        let c = claim(&format!("order=['gio','<','ff','<','fifo']\n{light}"));
        let o = c.evaluate(&table()).unwrap();
        assert_eq!(o.verdict, Verdict::Holds);
        assert_eq!(o.frugal, "gio 7.000 < ff 8.000 < fifo 10.000");
        // high: gio 9 > ff 8 < fifo 10 — only the ends are ordered.
        let c = claim("order=['gio','<=','ff','<','fifo']\nwhere={load='high'}");
        assert_eq!(
            c.evaluate(&table()).unwrap().verdict,
            Verdict::DirectionOnly
        );
        // 9 ≤ 8·1.125 with a 12.5 % tolerance.
        let c = claim("order=['gio','<=','ff','<','fifo']\nwhere={load='high'}\ntolerance=12.5");
        assert_eq!(c.evaluate(&table()).unwrap().verdict, Verdict::Holds);
        let c = claim("order=['fifo','<','gio']\nwhere={load='high'}");
        assert_eq!(c.evaluate(&table()).unwrap().verdict, Verdict::DoesNotHold);
        let c = claim("order=['gio','<','milp']");
        assert_eq!(c.evaluate(&table()).unwrap().verdict, Verdict::NoData);
    }

    #[test]
    fn malformed_claims_are_refused() {
        let bad = |extra: &str| {
            let c: Claim = toml::from_str(&format!(
                "claim='c'\nsource='s'\npublished='p'\nmetric='m'\n{extra}"
            ))
            .unwrap();
            c.check().unwrap_err()
        };
        assert!(bad("mean='a'").contains("exactly one of at_most"));
        assert!(bad("mean='a'\nchange=['a','b']\nat_most=1").contains("exactly one of `order`"));
        assert!(bad("median='a'\nmean='a'\nat_most=1").contains("exactly one of `order`"));
        assert!(bad("order=['a','>','b']").contains("relation"));
        assert!(bad("order=['a','<']").contains("alternates"));
        assert!(bad("mean='a'\nbetween=[2,1]").contains("low above high"));
    }
}
