//! `frugal reproduce`, `frugal run` and `frugal merge`: every shipped experiment file
//! produces its rows, plots and claims, the rows do not depend on the thread count, bad
//! files are refused, shards merge into the unsharded run, the binary reproduces from an
//! empty folder, the book shows the committed report, and the report renders in a real
//! browser (ignored: needs Debian's `chromium`, installed by `.ci/run`).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{tmp, tree};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `frugal` in the repository root (the experiment files name checkpoints from there).
fn frugal_in_root(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("frugal runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `frugal` in `dir`: its exit code, stdout and stderr.
fn frugal_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("frugal runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `[[key]]` tables of experiment `e` (none if it has no such key).
fn entries<'a>(e: &'a toml::Table, key: &str) -> impl Iterator<Item = &'a toml::Value> {
    e.get(key).and_then(|v| v.as_array()).into_iter().flatten()
}

fn experiments() -> Vec<(String, toml::Table)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("experiments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let id = p.file_stem().unwrap().to_string_lossy().into_owned();
            (id, std::fs::read_to_string(&p).unwrap().parse().unwrap())
        })
        .collect()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A CSV with the wall-clock columns (the one non-reproducible measurement) blanked.
fn without_timings(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let timed: Vec<bool> = header
        .iter()
        .map(|h| h.starts_with("decision_") && h.ends_with("_us") || h == "solve_s")
        .collect();
    let mut rows = vec![header];
    for rec in r.records() {
        rows.push(
            rec.unwrap()
                .iter()
                .zip(&timed)
                .map(|(v, t)| if *t { String::new() } else { v.to_string() })
                .collect(),
        );
    }
    rows
}

#[test]
fn quick_reproduction_writes_every_result_plot_and_claim_whatever_the_threads() {
    let one = tmp("reproduce-1");
    let two = tmp("reproduce-2");
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        let out = dir.display().to_string();
        let (code, err) =
            frugal_in_root(&["reproduce", "--quick", "--out", &out, "--threads", threads]);
        assert_eq!(code, 0, "{err}");
    }
    let report = std::fs::read_to_string(two.join("report.html")).unwrap();
    // A quick report cannot be taken for the full one: every page says so.
    assert!(
        report.contains("<p class=\"quick\"><strong>Quick run"),
        "no banner"
    );
    for page in ["results.md", "results-000.md", "results-006.md"] {
        let md = std::fs::read_to_string(two.join(page)).unwrap();
        assert!(md.starts_with("> **Quick run"), "{page}");
    }
    // A verdict cell, not the tally's "no data" column heading.
    assert!(!report.contains(">no data</td>"), "a claim without data");
    assert!(
        ["src=", "<link", "<script", "href=\"http", "url("]
            .iter()
            .all(|t| !report.contains(t)),
        "the report loads nothing"
    );
    let experiments = experiments();
    assert!(experiments.len() >= 10);
    let mut papers = Vec::new();
    for (id, e) in &experiments {
        papers.push(e["paper"].as_str().unwrap().to_string());
        let csv = two.join("results").join(format!("{id}.csv"));
        let rows = without_timings(&csv);
        assert!(rows.len() > 1, "{id}: no rows");
        assert_eq!(
            rows,
            without_timings(&one.join("results").join(format!("{id}.csv"))),
            "{id}: rows depend on the thread count"
        );
        for plot in entries(e, "plot") {
            let name = plot["name"].as_str().unwrap();
            let png = std::fs::read(two.join("plots").join(format!("{id}-{name}.png"))).unwrap();
            assert_eq!(&png[1..4], b"PNG", "{id}-{name}.png");
            let svg = std::fs::read_to_string(two.join("plots").join(format!("{id}-{name}.svg")))
                .unwrap();
            assert!(svg.starts_with("<svg"), "{id}-{name}.svg");
            assert!(
                report.contains(&svg),
                "{id}-{name}: the SVG is inline in the report"
            );
        }
        for claim in entries(e, "claim") {
            let text = escape(claim["claim"].as_str().unwrap());
            let published = escape(claim["published"].as_str().unwrap());
            let row = report
                .lines()
                .find(|l| l.starts_with("<tr><td>") && l.contains(&format!("<td>{text}</td>")))
                .unwrap_or_else(|| panic!("{id}: claim {text:?} missing from the report"));
            assert!(
                row.contains(&format!("<td class=\"num\">{published}</td>")),
                "{id}: {text}: published value"
            );
            // A quick report gives the full run's verdict beside one that differs.
            let verdicts = ["holds", "direction only", "inconclusive", "does not hold"];
            assert!(
                verdicts.iter().any(|v| {
                    row.ends_with(&format!("{v}</td></tr>"))
                        || verdicts
                            .iter()
                            .any(|f| row.ends_with(&format!("{v} (full run: {f})</td></tr>")))
                }),
                "{id}: {text}: verdict in {row}"
            );
        }
    }
    for p in ["000", "001", "002", "003", "004", "005", "006"] {
        assert!(papers.iter().any(|q| q == p), "no experiment for paper {p}");
    }
    for d in [one, two] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn bad_experiment_files_are_refused_naming_the_file_and_flag() {
    let dir = tmp("reproduce-bad");
    let file = dir.join("mine.toml");
    let out = dir.join("out").display().to_string();
    let write = |text: &str| std::fs::write(&file, text).unwrap();
    let f = file.display().to_string();
    write("title = 't'\npaper = 'x'\nsystem = 'simulate'\n[args]\npricing = 9\n");
    let (code, err) = frugal_in_root(&["run", &f, "--out", &out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("mine") && err.contains("--pricing"), "{err}");
    write("title = 't'\npaper = 'x'\nsystem = 'simulate'\ncolour = 'red'\n");
    let (code, err) = frugal_in_root(&["run", &f, "--out", &out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("mine.toml") && err.contains("colour"), "{err}");
    write(
        "title = 't'\npaper = 'x'\nsystem = 'simulate'\n[args]\nload = 'light'\npolicies = ['gio']\n\
         [[claim]]\nclaim = 'c'\nsource = 's'\npublished = 'p'\nmetric = 'no_such_column'\nmean = 'gio'\nat_most = 1\n",
    );
    let (code, err) = frugal_in_root(&["run", &f, "--out", &out]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no_such_column") && err.contains("columns: "),
        "{err}"
    );
    let (code, err) = frugal_in_root(&["reproduce", "003", "--retrain", "--out", &out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--retrain"), "{err}");
    // A user's own sweep runs and reports.
    write(
        "title = 'mine'\npaper = 'x'\nsystem = 'simulate'\n[args]\nload = 'light'\npolicies = ['gio', 'first-fit']\n\
         [sweep]\npricing = [1, 3]\n[[plot]]\nname = 'cost'\ntitle = 'cost'\nkind = 'lines'\nx = 'pricing'\ny = 'cost_usd'\nseries = 'policy'\n",
    );
    let (code, err) = frugal_in_root(&["run", &f, "--out", &out]);
    assert_eq!(code, 0, "{err}");
    let rows = without_timings(&dir.join("out/results/mine.csv"));
    assert_eq!(
        rows.len(),
        7,
        "2 pricing models × (2 policies + the baseline)"
    );
    assert_eq!(rows[0][0], "pricing");
    assert!(dir.join("out/plots/mine-cost.png").exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_sweep_split_in_shards_and_merged_is_the_unsplit_run_byte_for_byte() {
    let dir = tmp("shards");
    let at = |s: &str| dir.join(s).display().to_string();
    // Two experiments (by name, built in), so shards cut across files.
    let names = ["p000-small", "p003-bags"];
    let run = |extra: &[&str], out: &str| {
        let mut args = vec!["run"];
        args.extend(names);
        args.extend(["--quick", "--out", out]);
        args.extend(extra);
        let (code, err) = frugal_in_root(&args);
        assert_eq!(code, 0, "{err}");
    };
    run(&[], &at("whole"));
    for i in 0..3 {
        run(&["--shard", &format!("{i}/3")], &at(&format!("s{i}")));
    }
    let (code, err) = frugal_in_root(&[
        "merge",
        &at("s2"),
        &at("s0"),
        &at("s1"),
        "--out",
        &at("merged"),
    ]);
    assert_eq!(code, 0, "{err}");
    let (whole, merged) = (tree(&dir.join("whole")), tree(&dir.join("merged")));
    assert_eq!(
        whole.keys().collect::<Vec<_>>(),
        merged.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &whole {
        // p003-bags times HA and FFD (overhead_s): only those cells may differ.
        if name.contains("p003-bags") && name.ends_with(".csv") {
            continue;
        }
        assert!(merged[name] == *bytes, "{name} differs");
    }
    // A shard missing or given twice is refused.
    let (code, err) = frugal_in_root(&["merge", &at("s0"), &at("s1"), "--out", &at("bad")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("shard 2/3 is missing"), "{err}");
    let (code, err) = frugal_in_root(&[
        "merge",
        &at("s0"),
        &at("s0"),
        &at("s1"),
        "--out",
        &at("bad"),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("given twice"), "{err}");
    let (code, err) = frugal_in_root(&["run", "p000-small", "--shard", "3/3", "--out", &at("bad")]);
    assert_eq!(code, 2, "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// What `cargo install` gives: the binary alone, run from an empty folder, reproduces
/// with the experiments and checkpoints built into it, and lists and shows them.
/// `[recorded]`: `--rerecord` runs the recorded configurations and writes their rows; a
/// later run reads the shipped rows instead, adds them to its own and says so; rows whose
/// columns differ are refused naming the file.
#[test]
fn recorded_rows_are_made_by_rerecord_and_read_back_unchanged() {
    let dir = tmp("recorded");
    let exp = dir.join("experiments");
    std::fs::create_dir_all(&exp).unwrap();
    std::fs::write(
        exp.join("rec.toml"),
        "title = 't'\npaper = 'x'\nsystem = 'simulate'\n\
         [args]\ncluster = 'small-hybrid'\nhour = 0\njobs = 5\npolicies = ['first-fit']\nbaseline = 'first-fit'\n\
         [sweep]\npricing = [1, 2]\n\
         [recorded]\nrows = 'rows.csv'\nquick_rows = 'quick.csv'\nargs = { policies = ['gio'], baseline = 'gio' }\n\
         note = 'gio recorded once'\n\
         [[claim]]\nclaim = 'GIO no dearer than FF'\nsource = 's'\npublished = 'p'\n\
         metric = 'cost_usd'\norder = ['gio', '<=', 'first-fit']\nper = ['pricing']\n",
    )
    .unwrap();
    let run = |args: &[&str]| frugal_in(&dir, args);
    let (code, _, err) = run(&[
        "reproduce",
        "--experiments",
        "experiments",
        "--rerecord",
        "--out",
        "a",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let made = std::fs::read_to_string(dir.join("a/recorded/rows.csv")).unwrap();
    assert_eq!(
        made.lines().count(),
        3,
        "a header and gio under two pricing models: {made}"
    );
    assert!(made.lines().skip(1).all(|l| l.contains(",gio,")), "{made}");
    std::fs::copy(dir.join("a/recorded/rows.csv"), exp.join("rows.csv")).unwrap();
    let (code, printed, err) = run(&["reproduce", "--experiments", "experiments", "--out", "b"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        printed.contains("recorded rows: gio recorded once"),
        "{printed}"
    );
    let results = |d: &str| std::fs::read_to_string(dir.join(d).join("results/rec.csv")).unwrap();
    assert_eq!(results("a"), results("b"));
    assert_eq!(
        results("b").lines().filter(|l| l.contains(",gio,")).count(),
        2
    );
    // Quick runs read the quick rows, which are missing here.
    let (code, _, err) = run(&[
        "reproduce",
        "--experiments",
        "experiments",
        "--quick",
        "--out",
        "c",
    ]);
    assert_ne!(code, Some(0));
    assert!(err.contains("quick.csv"), "{err}");
    std::fs::write(exp.join("rows.csv"), "other,columns\n1,2\n").unwrap();
    let (code, _, err) = run(&["reproduce", "--experiments", "experiments", "--out", "d"]);
    assert_ne!(code, Some(0));
    assert!(err.contains("rec"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_binary_reproduces_from_an_empty_folder() {
    let empty = tmp("empty-folder");
    let run = |args: &[&str]| frugal_in(&empty, args);
    let (code, list, err) = run(&["experiments", "list"]);
    assert_eq!(code, Some(0), "{err}");
    for (id, _) in experiments() {
        assert!(list.lines().any(|l| l.starts_with(&id)), "{id} not listed");
    }
    let (code, text, _) = run(&["experiments", "show", "p002-burst"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        text,
        std::fs::read_to_string(root().join("experiments/p002-burst.toml")).unwrap()
    );
    let (code, _, err) = run(&["experiments", "show", "p999"]);
    assert_eq!(code, Some(2), "{err}");
    let (code, printed, err) = run(&["reproduce", "000", "003", "--quick", "--out", "out"]);
    assert_eq!(code, Some(0), "{err}");
    // stdout: every claim of the papers run with its verdict, the totals, and the warning
    // that quick-scale verdicts may differ from the shipped full run's.
    for (_, e) in experiments() {
        let paper = e["paper"].as_str().unwrap();
        for claim in entries(&e, "claim") {
            let text = claim["claim"].as_str().unwrap();
            assert_eq!(
                printed.contains(text),
                paper == "000" || paper == "003",
                "{text}"
            );
        }
    }
    assert!(printed.contains(" claims: "), "{printed}");
    assert!(printed.contains("quick-scale"), "{printed}");
    let (code, err) = frugal_in_root(&[
        "reproduce",
        "000",
        "003",
        "--quick",
        "--out",
        &empty.join("in-root").display().to_string(),
        "--experiments",
        "experiments",
    ]);
    assert_eq!(code, 0, "{err}");
    for id in ["p000-small", "p000-large", "p003-bags"] {
        let csv =
            |d: &str| without_timings(&empty.join(d).join("results").join(format!("{id}.csv")));
        assert_eq!(csv("out"), csv("in-root"), "{id}");
    }
    std::fs::remove_dir_all(empty).unwrap();
}

#[test]
fn the_books_results_are_the_committed_reports() {
    // The book shows the committed report's tables: all of them in the experiments guide,
    // each paper's in its chapter.
    let chapter = |p: &str| std::fs::read_to_string(root().join("docs/book/src").join(p)).unwrap();
    assert!(chapter("guide/experiments.md").contains("{{#include ../../../report/results.md}}"));
    for paper in ["000", "001", "002", "003", "004", "005", "006"] {
        let include = format!("{{{{#include ../../../report/results-{paper}.md}}}}");
        assert!(
            chapter(&format!("papers/{paper}.md")).contains(&include),
            "paper {paper}"
        );
        assert!(
            root()
                .join(format!("docs/report/results-{paper}.md"))
                .exists(),
            "paper {paper}"
        );
    }
    let results = std::fs::read_to_string(root().join("docs/report/results.md")).unwrap();
    for (id, e) in experiments() {
        assert!(
            root()
                .join(format!("docs/report/results/{id}.csv"))
                .exists(),
            "{id}: not committed"
        );
        for claim in entries(&e, "claim") {
            let text = claim["claim"].as_str().unwrap();
            let line = results
                .lines()
                .find(|l| l.starts_with(&format!("| {} |", text.replace('|', "\\|"))))
                .unwrap_or_else(|| panic!("{id}: {text}: not in the committed results"));
            // Every claim that does not hold says why.
            if !line.ends_with("| holds |") {
                assert!(
                    claim.get("note").is_some(),
                    "{id}: {text}: no note says why"
                );
            }
        }
    }
}

/// Chromium's log lines of the page's console (none expected: the report has no script).
fn render(page: &Path, shot: &Path, profile: &Path) -> (bool, String) {
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1200,2000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs (apt-get install chromium)");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    (out.status.success(), console.join("\n"))
}

#[test]
#[ignore = "needs Debian's chromium; run by .ci/run"]
fn report_renders_in_chromium_without_console_errors() {
    let dir = tmp("reproduce-chromium");
    let out = dir.join("report").display().to_string();
    let (code, err) = frugal_in_root(&["reproduce", "--quick", "--out", &out, "003", "004"]);
    assert_eq!(code, 0, "{err}");
    // The console check can fail: a page that logs an error is caught.
    let bad = dir.join("bad.html");
    std::fs::write(
        &bad,
        "<html><body><script>console.error('boom')</script></body></html>",
    )
    .unwrap();
    let (_, console) = render(&bad, &dir.join("bad.png"), &dir.join("profile-bad"));
    assert!(
        console.contains("boom"),
        "the console detector missed an error"
    );
    let shot = dir.join("report.png");
    let (ok, console) = render(&dir.join("report/report.html"), &shot, &dir.join("profile"));
    assert!(ok, "chromium failed");
    assert!(console.is_empty(), "console output: {console}");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1200, 2000));
    let px = info.line_size / info.width as usize;
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    let inked = pixels
        .iter()
        .filter(|p| p[..3].iter().any(|c| *c < 200))
        .count();
    assert!(
        inked * 100 > pixels.len(),
        "the screenshot is blank: {inked} dark pixels"
    );
    let colours: std::collections::BTreeSet<&[u8]> = pixels.iter().copied().collect();
    assert!(
        colours.len() > 20,
        "only {} colours: no plot drawn",
        colours.len()
    );
    std::fs::remove_dir_all(dir).unwrap();
}
