//! The report: one self-contained HTML file (inline CSS and SVG, no script, no network)
//! with a section per paper, and the same claims as Markdown for the README.

use std::fmt::Write;

use crate::claim::{Claim, ClaimOutcome, Setting, Verdict};
use crate::experiment::{Experiment, System};

/// One experiment's part of the report.
#[derive(Clone)]
pub struct Section {
    /// The experiment file's stem (`p000-pricing`).
    pub id: String,
    /// The experiment.
    pub experiment: Experiment,
    /// Its claims and their outcomes.
    pub claims: Vec<(Claim, ClaimOutcome)>,
    /// Its plots: caption, inline SVG text, PNG path relative to the report.
    pub plots: Vec<(String, String, String)>,
    /// Runs (rows).
    pub runs: usize,
    /// A live experiment's simulator against the testbed
    /// ([`crate::live::prediction_summary`]).
    pub prediction: Option<String>,
}

/// The papers' references, for the section headings.
pub fn paper_title(paper: &str) -> Option<&'static str> {
    Some(match paper {
        "000" => {
            "Paper 000 — cost-efficient Spark executor placement on hybrid clouds (FIFO/RR, FF, GIO, MILP)"
        }
        "001" => "Paper 001 — Salamander: big-data jobs on ephemeral capacity, against Cuckoo",
        "002" => "Paper 002 — deep reinforcement learning for executor placement (DQN, REINFORCE)",
        "003" => "Paper 003 — bags of tasks on a hybrid cloud (HA, RA, FFD)",
        "004" => "Paper 004 — deadline-aware Spark placement in the cloud (BFD, ILP, Morpheus)",
        "005" => {
            "Paper 005 — Can't Be Late: one deadline job on spot and on-demand capacity (greedy, Time Sliced, Uniform Progress, the omniscient optimum)"
        }
        "006" => {
            "Paper 006 — SkyNomad: one deadline job on spot capacity across many zones (Uniform Progress variants, the exact multi-zone optimum)"
        }
        _ => return None,
    })
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Holds => "holds",
        Verdict::DirectionOnly => "direction",
        Verdict::Inconclusive => "inconclusive",
        Verdict::DoesNotHold | Verdict::NoData => "fails",
    }
}

/// Groups sections by paper, in paper order.
fn by_paper(sections: &[Section]) -> Vec<(&str, Vec<&Section>)> {
    let mut papers: Vec<&str> = sections
        .iter()
        .map(|s| s.experiment.paper.as_str())
        .collect();
    papers.sort_unstable();
    papers.dedup();
    papers
        .into_iter()
        .map(|p| {
            (
                p,
                sections
                    .iter()
                    .filter(|s| s.experiment.paper == p)
                    .collect(),
            )
        })
        .collect()
}

/// What a quick report (`--quick`) says of itself, at the top of every page it writes.
pub const QUICK_BANNER: &str = "Quick run (--quick: fewer repetitions, smaller scales and \
    solver budgets): these are not the paper-scale verdicts. Where the shipped full run's \
    verdict differs, it is given beside (\"full run: …\").";

/// A claim's verdict as a report shows it: under a quick run (`full`: the shipped full
/// run's verdicts by claim), with the full run's verdict beside it where that differs.
fn verdict_cell(claim: &str, v: Verdict, full: Option<&[(String, String)]>) -> String {
    let shipped = full.and_then(|f| f.iter().find(|(c, _)| c == claim).map(|(_, v)| v));
    match shipped {
        Some(s) if s != v.text() => format!("{} (full run: {s})", v.text()),
        _ => v.text().to_string(),
    }
}

/// The HTML report. `command` is the command line that produced it; `full`, for a quick
/// run, the shipped full run's verdicts by claim ([`verdict_cell`], [`QUICK_BANNER`]).
pub fn html(sections: &[Section], command: &str, full: Option<&[(String, String)]>) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>frugal: published results beside frugal's</title><style>{CSS}</style></head><body>\n\
         <h1>Published results beside frugal's</h1>\n<p>Produced by <code>{}</code>. Every \
         number below comes from the runs in <code>results/</code> (one CSV row per run). \
         Verdicts: <span class=\"holds\">holds</span>, <span class=\"direction\">direction \
         only</span> (the effect has the published sign but not its size), <span class=\"inconclusive\">inconclusive</span> (the runs' 95 % \
         intervals can neither establish nor exclude the claim), <span class=\"fails\">does \
         not hold</span>.</p>\n",
        escape(command)
    );
    if full.is_some() {
        let _ = writeln!(
            h,
            "<p class=\"quick\"><strong>{}</strong></p>",
            escape(QUICK_BANNER)
        );
    }
    h.push_str(
        "<p>Only the paper's setting gives the verdict on a published claim; rows in the \
         authors' code or in frugal's extensions are labelled as such.</p><table><thead><tr>\
         <th>setting</th><th>claims</th><th>holds</th><th>direction only</th>\
         <th>inconclusive</th><th>does not hold</th><th>no data</th></tr></thead><tbody>\n",
    );
    for (label, n) in tally(sections) {
        let cells: String = n
            .iter()
            .map(|c| format!("<td class=\"num\">{c}</td>"))
            .collect();
        let _ = writeln!(h, "<tr><td>{}</td>{cells}</tr>", escape(label));
    }
    h.push_str("</tbody></table>\n");
    for (paper, secs) in by_paper(sections) {
        let title = paper_title(paper).map_or_else(|| format!("Experiments {paper}"), String::from);
        let _ = writeln!(
            h,
            "<h2 id=\"paper-{}\">{}</h2>",
            escape(paper),
            escape(&title)
        );
        for s in secs {
            let e = &s.experiment;
            let _ = writeln!(h, "<h3 id=\"{}\">{}</h3>", escape(&s.id), escape(&e.title));
            let _ = writeln!(
                h,
                "<p class=\"meta\">{}<code>experiments/{}.toml</code> · {} runs · rows in <code>results/{}.csv</code></p>",
                e.source
                    .as_deref()
                    .map(|x| format!("{} · ", escape(x)))
                    .unwrap_or_default(),
                escape(&s.id),
                s.runs,
                escape(&s.id)
            );
            if let Some(d) = &e.description {
                let _ = writeln!(h, "<p>{}</p>", escape(d));
            }
            if let Some(r) = &e.recorded {
                let _ = writeln!(
                    h,
                    "<p class=\"meta\">Recorded rows: {}</p>",
                    escape(&r.note)
                );
            }
            if let Some(p) = &s.prediction {
                let _ = writeln!(h, "<p class=\"meta\">Prediction: {}</p>", escape(p));
            }
            if !s.claims.is_empty() {
                h.push_str(
                    "<table><thead><tr><th>claim</th><th>setting</th><th>source</th>\
                     <th>published</th><th>frugal</th><th>verdict</th></tr></thead><tbody>\n",
                );
                for (c, o) in &s.claims {
                    let detail = if o.groups.len() > 1 {
                        let items: String = o
                            .groups
                            .iter()
                            .map(|(l, v, verdict)| {
                                format!(
                                    "<li>{}: {} <span class=\"{}\">{}</span></li>",
                                    escape(l),
                                    escape(v),
                                    verdict_class(*verdict),
                                    verdict.text()
                                )
                            })
                            .collect();
                        format!("<details><summary>per case</summary><ul>{items}</ul></details>")
                    } else {
                        String::new()
                    };
                    let _ = writeln!(
                        h,
                        "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}{}</td>\
                         <td class=\"{}\">{}</td></tr>",
                        escape(&c.claim),
                        escape(&c.label(s.experiment.system == System::Live)),
                        escape(&c.source),
                        escape(&c.published),
                        escape(&o.frugal),
                        detail,
                        verdict_class(o.verdict),
                        escape(&verdict_cell(&c.claim, o.verdict, full))
                    );
                    if o.verdict != Verdict::Holds
                        && let Some(n) = &c.note
                    {
                        let _ = writeln!(
                            h,
                            "<tr class=\"why\"><td colspan=\"6\">Why: {}</td></tr>",
                            escape(n)
                        );
                    }
                }
                h.push_str("</tbody></table>\n");
            }
            for (caption, svg, png) in &s.plots {
                let _ = writeln!(
                    h,
                    "<figure>{svg}<figcaption>{} (<a href=\"{}\">PNG</a>)</figcaption></figure>",
                    escape(caption),
                    escape(png)
                );
            }
        }
    }
    h.push_str("</body></html>\n");
    h
}

/// Per setting, and for all: the number of claims of `sections`, then how many hold, hold
/// in direction only, are inconclusive, do not hold and have no data.
fn tally(sections: &[Section]) -> Vec<(&'static str, [usize; 6])> {
    // `keep(claim, live)`: live = the claim is judged on a live experiment's rows.
    // The rows partition the claims: a live claim is the testbed's whatever its inputs.
    let own =
        |c: &Claim, live: bool| c.setting == Setting::Paper && !live && c.substitute.is_none();
    let count = |keep: &dyn Fn(&Claim, bool) -> bool| {
        let mut n = [0; 6];
        for s in sections {
            let live = s.experiment.system == System::Live;
            for (_, o) in s.claims.iter().filter(|(c, _)| keep(c, live)) {
                n[0] += 1;
                n[1 + Verdict::ALL
                    .iter()
                    .position(|v| *v == o.verdict)
                    .unwrap_or(4)] += 1;
            }
        }
        n
    };
    let mut rows: Vec<(&'static str, [usize; 6])> = vec![
        (
            "paper's setting and inputs, simulated by the paper",
            count(&|c, live| own(c, live) && !c.real_cluster),
        ),
        (
            "paper's setting and inputs, real cluster in the paper (simulated here)",
            count(&|c, live| own(c, live) && c.real_cluster),
        ),
        (
            "paper's setting, substitute inputs (named in each row)",
            count(&|c, live| c.setting == Setting::Paper && !live && c.substitute.is_some()),
        ),
        (
            "paper's setting, testbed at reduced scale (measured live here)",
            count(&|c, live| c.setting == Setting::Paper && live),
        ),
        (
            "the authors' code",
            count(&|c, _| c.setting == Setting::AuthorsCode),
        ),
        (
            "frugal's extensions",
            count(&|c, _| c.setting == Setting::Extension),
        ),
    ];
    rows.retain(|(_, n)| n[0] > 0);
    rows.push(("all", count(&|_, _| true)));
    rows
}

/// The claims as Markdown (the book's results, `results.md`, and each paper chapter's):
/// the verdicts counted per setting, then one table per paper, each followed by the reason
/// for every claim that does not hold, with the rows and the command behind it.
///
/// `full`, for a quick run: the shipped full run's verdicts by claim; the page then opens
/// with [`QUICK_BANNER`] and gives the full run's verdict beside each that differs.
pub fn markdown(sections: &[Section], full: Option<&[(String, String)]>) -> String {
    let mut m = String::new();
    if full.is_some() {
        let _ = writeln!(m, "> **{QUICK_BANNER}**\n");
    }
    m.push_str(
        "| setting | claims | holds | direction only | inconclusive | does not hold | no data |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for (label, n) in tally(sections) {
        let cells: String = n.iter().map(|c| format!(" {c} |")).collect();
        let _ = writeln!(m, "| {label} |{cells}");
    }
    m.push('\n');
    for (paper, secs) in by_paper(sections) {
        let title = paper_title(paper).map_or_else(|| format!("Experiments {paper}"), String::from);
        let _ = writeln!(m, "**{title}**\n");
        m.push_str(
            "| claim | setting | source | published | frugal | verdict |\n|---|---|---|---|---|---|\n",
        );
        let mut why = String::new();
        for s in &secs {
            if let Some(r) = &s.experiment.recorded {
                let _ = writeln!(why, "- Recorded rows: {}", r.note);
            }
            if let Some(p) = &s.prediction {
                let _ = writeln!(why, "- Prediction ({}): {p}", s.id);
            }
        }
        for s in secs {
            for (c, o) in &s.claims {
                let _ = writeln!(
                    m,
                    "| {} | {} | {} | {} | {} | {} |",
                    c.claim.replace('|', "\\|"),
                    c.label(s.experiment.system == System::Live),
                    c.source.replace('|', "\\|"),
                    c.published.replace('|', "\\|"),
                    o.frugal.replace('|', "\\|"),
                    verdict_cell(&c.claim, o.verdict, full)
                );
                if o.verdict != Verdict::Holds
                    && let Some(n) = &c.note
                {
                    let _ = writeln!(
                        why,
                        "- *{}* ({}; rows in `results/{}.csv`): {}",
                        c.claim,
                        o.verdict.text(),
                        s.id,
                        n
                    );
                }
            }
        }
        if !why.is_empty() {
            let _ = write!(
                m,
                "\nWhy frugal's numbers differ (re-run with `frugal reproduce {paper} --out DIR`; \
                 the rows are then in `DIR/results/`):\n\n{why}"
            );
        }
        m.push('\n');
    }
    m
}

/// The verdicts of a results table written by [`markdown`], by claim text.
pub fn verdicts_of_markdown(md: &str) -> Vec<(String, String)> {
    md.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| claim |"))
        .filter_map(|l| {
            // Cells are split on `|` not escaped as `\|`.
            let cells: Vec<String> = l
                .trim_matches('|')
                .replace("\\|", "\u{0}")
                .split('|')
                .map(|c| c.trim().replace('\u{0}', "|"))
                .collect();
            (cells.len() == 6).then(|| (cells[0].clone(), cells[5].clone()))
        })
        .collect()
}

/// The plain-text summary `frugal reproduce` prints: per paper, each claim's published
/// value, frugal's and the verdict, and the totals. With `shipped` (the shipped full run's
/// verdicts by claim, for a quick run), the verdicts are marked as quick-scale and those
/// that differ from the shipped ones name both.
pub fn summary(sections: &[Section], shipped: Option<&[(String, String)]>) -> String {
    let mut t = String::new();
    let all: Vec<&(Claim, ClaimOutcome)> = sections.iter().flat_map(|s| &s.claims).collect();
    let mut differ = 0;
    for (paper, secs) in by_paper(sections) {
        let title = paper_title(paper).map_or_else(|| format!("Experiments {paper}"), String::from);
        let _ = writeln!(t, "{title}");
        for s in secs {
            for (c, o) in &s.claims {
                let full = shipped.and_then(|v| v.iter().find(|(k, _)| *k == c.claim));
                let mark = match full {
                    Some((_, f)) if f != o.verdict.text() => {
                        differ += 1;
                        format!(" (full run: {f})")
                    }
                    _ => String::new(),
                };
                let label = c.label(s.experiment.system == System::Live);
                let setting = match label.as_str() {
                    "paper" => String::new(),
                    label => format!(" [{label}]"),
                };
                let _ = writeln!(
                    t,
                    "  {:<14} {}{setting}\n                 published {} · frugal {}{mark}",
                    o.verdict.text(),
                    c.claim,
                    c.published,
                    o.frugal
                );
            }
            if let Some(r) = &s.experiment.recorded {
                let _ = writeln!(t, "  recorded rows: {}", r.note);
            }
            if let Some(p) = &s.prediction {
                let _ = writeln!(t, "  prediction: {p}");
            }
        }
    }
    for (label, [all, holds, direction, inconclusive, fails, none]) in tally(sections) {
        let _ = writeln!(
            t,
            "{label}: {all} claims: {holds} hold, {direction} direction only, {inconclusive} \
             inconclusive, {fails} do not hold, {none} without data"
        );
    }
    if shipped.is_some() {
        let _ = writeln!(
            t,
            "These verdicts are quick-scale (--quick: fewer repetitions, smaller scales and \
             budgets); {differ} of {} differ from the shipped full run's, marked above.",
            all.len()
        );
    }
    t
}

const CSS: &str = "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;width:100%;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;\
vertical-align:top;text-align:left}th{background:#f3f3f3}td.num{white-space:nowrap}\
.holds{color:#1a7f37;font-weight:600}.direction{color:#9a6700;font-weight:600}.inconclusive{color:#57606a;font-weight:600}.fails{color:#cf222e;font-weight:600}\
tr.why td{background:#fafafa;font-size:90%}p.meta{color:#555;font-size:90%}figure{margin:1em 0}\
figure svg{max-width:100%;height:auto}figcaption{font-size:90%;color:#555}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quick_report_says_so_and_gives_the_full_runs_verdict_where_it_differs() {
        let full = vec![
            ("a".to_string(), "holds".to_string()),
            ("b".to_string(), "inconclusive".to_string()),
        ];
        let full = Some(full.as_slice());
        assert_eq!(
            verdict_cell("a", Verdict::Inconclusive, full),
            "inconclusive (full run: holds)"
        );
        assert_eq!(
            verdict_cell("b", Verdict::Inconclusive, full),
            "inconclusive"
        );
        assert_eq!(verdict_cell("new", Verdict::Holds, full), "holds");
        assert_eq!(
            verdict_cell("a", Verdict::Inconclusive, None),
            "inconclusive"
        );
        assert!(markdown(&[], full).starts_with(&format!("> **{QUICK_BANNER}**")));
        assert!(!markdown(&[], None).contains("Quick run"));
        assert!(html(&[], "frugal reproduce --quick", full).contains(&escape(QUICK_BANNER)));
        assert!(!html(&[], "frugal reproduce", None).contains("Quick run"));
    }
}
