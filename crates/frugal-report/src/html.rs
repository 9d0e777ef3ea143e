//! The report: one self-contained HTML file (inline CSS and SVG, no script, no network)
//! with a section per paper, and the same claims as Markdown for the README.

use std::fmt::Write;

use crate::claim::{Claim, Outcome, Verdict};
use crate::experiment::Experiment;

/// One experiment's part of the report.
#[derive(Clone)]
pub struct Section {
    /// The experiment file's stem (`p000-pricing`).
    pub id: String,
    /// The experiment.
    pub experiment: Experiment,
    /// Its claims and their outcomes.
    pub claims: Vec<(Claim, Outcome)>,
    /// Its plots: caption, inline SVG text, PNG path relative to the report.
    pub plots: Vec<(String, String, String)>,
    /// Runs (rows).
    pub runs: usize,
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

/// The HTML report. `command` is the command line that produced it.
pub fn html(sections: &[Section], command: &str) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>frugal: published results beside frugal's</title><style>{CSS}</style></head><body>\n\
         <h1>Published results beside frugal's</h1>\n<p>Produced by <code>{}</code>. Every \
         number below comes from the runs in <code>results/</code> (one CSV row per run). \
         Verdicts: <span class=\"holds\">holds</span>, <span class=\"direction\">direction \
         only</span> (the effect has the published sign but not its size, or only the ends of \
         an ordering hold), <span class=\"inconclusive\">inconclusive</span> (the runs' 95 % \
         intervals can neither establish nor exclude the claim), <span class=\"fails\">does \
         not hold</span>.</p>\n",
        escape(command)
    );
    let total: usize = sections.iter().map(|s| s.claims.len()).sum();
    let count = |v: Verdict| {
        sections
            .iter()
            .flat_map(|s| &s.claims)
            .filter(|(_, o)| o.verdict == v)
            .count()
    };
    let _ = writeln!(
        h,
        "<p>{total} claims: {} hold, {} direction only, {} inconclusive, {} do not hold, {} \
         without data.</p>",
        count(Verdict::Holds),
        count(Verdict::DirectionOnly),
        count(Verdict::Inconclusive),
        count(Verdict::DoesNotHold),
        count(Verdict::NoData)
    );
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
            if !s.claims.is_empty() {
                h.push_str(
                    "<table><thead><tr><th>claim</th><th>source</th><th>published</th>\
                     <th>frugal</th><th>verdict</th></tr></thead><tbody>\n",
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
                        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}{}</td>\
                         <td class=\"{}\">{}</td></tr>",
                        escape(&c.claim),
                        escape(&c.source),
                        escape(&c.published),
                        escape(&o.frugal),
                        detail,
                        verdict_class(o.verdict),
                        o.verdict.text()
                    );
                    if o.verdict != Verdict::Holds
                        && let Some(n) = &c.note
                    {
                        let _ = writeln!(
                            h,
                            "<tr class=\"why\"><td colspan=\"5\">Why: {}</td></tr>",
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

/// The claims as Markdown: one table per paper (the book's results, `results.md`).
pub fn markdown(sections: &[Section]) -> String {
    let mut m = String::new();
    for (paper, secs) in by_paper(sections) {
        let title = paper_title(paper).map_or_else(|| format!("Experiments {paper}"), String::from);
        let _ = writeln!(m, "**{title}**\n");
        m.push_str("| claim | source | published | frugal | verdict |\n|---|---|---|---|---|\n");
        for s in secs {
            for (c, o) in &s.claims {
                let _ = writeln!(
                    m,
                    "| {} | {} | {} | {} | {} |",
                    c.claim.replace('|', "\\|"),
                    c.source.replace('|', "\\|"),
                    c.published.replace('|', "\\|"),
                    o.frugal.replace('|', "\\|"),
                    o.verdict.text()
                );
            }
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
            (cells.len() == 5).then(|| (cells[0].clone(), cells[4].clone()))
        })
        .collect()
}

/// The plain-text summary `frugal reproduce` prints: per paper, each claim's published
/// value, frugal's and the verdict, and the totals. With `shipped` (the shipped full run's
/// verdicts by claim, for a quick run), the verdicts are marked as quick-scale and those
/// that differ from the shipped ones name both.
pub fn summary(sections: &[Section], shipped: Option<&[(String, String)]>) -> String {
    let mut t = String::new();
    let all: Vec<&(Claim, Outcome)> = sections.iter().flat_map(|s| &s.claims).collect();
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
                let _ = writeln!(
                    t,
                    "  {:<14} {}\n                 published {} · frugal {}{mark}",
                    o.verdict.text(),
                    c.claim,
                    c.published,
                    o.frugal
                );
            }
        }
    }
    let count = |v: Verdict| all.iter().filter(|(_, o)| o.verdict == v).count();
    let _ = writeln!(
        t,
        "{} claims: {} hold, {} direction only, {} inconclusive, {} do not hold, {} without data",
        all.len(),
        count(Verdict::Holds),
        count(Verdict::DirectionOnly),
        count(Verdict::Inconclusive),
        count(Verdict::DoesNotHold),
        count(Verdict::NoData)
    );
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
