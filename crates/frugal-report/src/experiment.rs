//! Experiment files: one TOML file per published figure or table (or a user's own sweep).
//!
//! A file names the system that runs it (a `frugal` subcommand), the fields of its typed
//! spec every configuration shares (`[args]`, the subcommand's flags without `--`), the
//! swept fields (`[sweep]`, every combination is one configuration: the grid is expanded
//! here, once), the fields that `--quick` overrides (`[quick]`), the plots and the published
//! claims to check. Each configuration is a table that deserialises straight into the
//! system's spec, so the spec's own check refuses what the command line would, naming the
//! key; its argument vector is kept for messages and for `frugal live`, which runs it.
//!
//! Values: a string, number or boolean as the spec takes it, a list for a list field; as
//! flags, an array is joined with `,` and `true` is the bare flag, `false` left out.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::claim::Claim;
use crate::plot::PlotSpec;

/// Flags by name, as an experiment file writes them.
type Flags = BTreeMap<String, toml::Value>;

/// One point of the sweep: (flag, value) per swept flag.
type Point = Vec<(String, toml::Value)>;

/// The `frugal` subcommand an experiment runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum System {
    /// `frugal simulate`: executor placement (papers 000, 002, 004); rows as `results.csv`.
    Simulate,
    /// `frugal bag-of-tasks`: bags of tasks on a hybrid cloud (paper 003).
    BagOfTasks,
    /// `frugal ephemeral`: MapReduce on ephemeral capacity (paper 001).
    Ephemeral,
    /// `frugal ephemeral planners`: the planners against the problem size (paper 001 Fig. 4).
    EphemeralPlanners,
    /// `frugal learning-curves`: trained agents' learning curves (paper 002 Fig. 4–5).
    LearningCurves,
    /// `frugal spot`: one deadline job on spot and on-demand capacity (Wu et al., NSDI
    /// 2024). Its keys are the fields of `frugal_spot::SpotSpec` (`job_fraction`, not
    /// `job-fraction`): the file deserialises straight into the spec.
    Spot,
    /// `frugal zones`: one deadline job on spot across many zones (SkyNomad, NSDI '27). Its
    /// keys are the fields of `frugal_spot::zones::experiment::ZonesSpec`.
    Zones,
    /// `frugal live`: real Spark jobs on this machine's hybrid testbed (papers 000 §7 and
    /// 004 §6 measured real clusters). Runs need root, Java 17 and pyspark and take up to
    /// hours, so `frugal reproduce` reads the rows recorded in `[recorded]` (which a live
    /// experiment must have) and `frugal reproduce --live <id>` runs them again. Paths in
    /// its flags are relative to the experiment file's folder.
    Live,
}

/// One experiment file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// Heading in the report.
    pub title: String,
    /// The paper it reproduces (`000` … `004`), or any label for a user's sweep.
    pub paper: String,
    /// Where the published figure is (e.g. `paper 000, §6.2, Fig. 5`).
    #[serde(default)]
    pub source: Option<String>,
    /// A paragraph for the report: what is run and how it maps to the paper.
    #[serde(default)]
    pub description: Option<String>,
    /// The inputs that stand in for the paper's in every claim of the paper's setting that
    /// names none of its own (the claim's `substitute`): a short name, e.g. `"Google
    /// cluster data for the paper's host traces"`.
    #[serde(default)]
    pub substitute: Option<String>,
    /// The subcommand that runs each configuration.
    pub system: System,
    /// Flags shared by every configuration.
    #[serde(default)]
    pub args: BTreeMap<String, toml::Value>,
    /// Named cases (`[[case]]`, each a `name`, flags and optional `labels`): the sweep is
    /// run once per case, and the rows get a `case` column and one column per label (e.g.
    /// `labels = { protocol = "paper" }`). For settings that change together (an hour and
    /// its job count).
    #[serde(default, rename = "case")]
    pub cases: Vec<BTreeMap<String, toml::Value>>,
    /// Swept flags and their values; one configuration per combination.
    #[serde(default)]
    pub sweep: BTreeMap<String, Vec<toml::Value>>,
    /// Flags replaced (or added) under `--quick`, except where a `[[case]]` sets the flag
    /// itself (the case's value stays).
    #[serde(default)]
    pub quick: BTreeMap<String, toml::Value>,
    /// Plots drawn from the rows.
    #[serde(default, rename = "plot")]
    pub plots: Vec<PlotSpec>,
    /// Published values checked against the rows.
    #[serde(default, rename = "claim")]
    pub claims: Vec<Claim>,
    /// Rows recorded once and shipped, for runs the default build cannot make.
    #[serde(default)]
    pub recorded: Option<Recorded>,
}

/// `[recorded]`: rows of runs that need what the default build leaves out (a solver behind
/// a cargo feature), made once with the same sweep and `args` and shipped beside the file,
/// as trained agents are. `frugal reproduce` adds them to the live rows (they must have the
/// same columns) and says so; `frugal reproduce --rerecord`, in a build that can make them,
/// runs them again and uses the new rows.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recorded {
    /// The rows (CSV), relative to the experiment file's folder.
    pub rows: std::path::PathBuf,
    /// The rows of the `--quick` configurations, likewise.
    pub quick_rows: std::path::PathBuf,
    /// Flags that replace `[args]`'s and `[quick]`'s for the recorded runs (e.g. the
    /// planners that need the solver; `false` leaves a flag out).
    pub args: BTreeMap<String, toml::Value>,
    /// What was recorded, with which build and how to record it again; printed with the
    /// verdicts.
    pub note: String,
}

/// `v`, a relative path of a file or folder beside the experiment file in `dir`, as that
/// path; anything else as it is.
fn beside(v: &mut toml::Value, dir: &Path) {
    if let toml::Value::String(p) = v
        && Path::new(p.as_str()).is_relative()
        && dir.join(p.as_str()).exists()
    {
        *p = dir.join(p.as_str()).display().to_string();
    }
}

/// One configuration of an experiment: the swept flags' values and the argument vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Configuration {
    /// (swept flag, value) in the file's key order; these become the first columns of
    /// the configuration's rows.
    pub labels: Vec<(String, String)>,
    /// The subcommand's words followed by its flags.
    pub argv: Vec<String>,
    /// The same settings as a table (key → value), for systems that read a typed spec.
    pub spec: toml::Table,
}

impl Experiment {
    /// Reads and checks an experiment file.
    ///
    /// # Errors
    /// A message naming the file: unreadable, not TOML, an unknown key, a flag value of a
    /// kind the command line cannot take, an empty sweep, or a claim or plot that is
    /// malformed.
    pub fn read(path: &Path) -> Result<Experiment, String> {
        let name = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
        Experiment::parse(&text).map_err(|e| format!("{name}: {e}"))
    }

    /// Parses and checks the text of an experiment file.
    ///
    /// # Errors
    /// As [`Experiment::read`], without the file name.
    pub fn parse(text: &str) -> Result<Experiment, String> {
        // Every missing key at once, not the first serde stops at.
        if let Ok(table) = text.parse::<toml::Table>() {
            let missing: Vec<&str> = ["title", "paper", "system"]
                .into_iter()
                .filter(|k| !table.contains_key(*k))
                .collect();
            if !missing.is_empty() {
                return Err(format!(
                    "missing key{} {}: an experiment file needs title, paper and system",
                    if missing.len() > 1 { "s" } else { "" },
                    missing.join(", ")
                ));
            }
        }
        let mut e: Experiment = toml::from_str(text).map_err(|e| e.to_string())?;
        for c in &mut e.claims {
            if c.setting == crate::claim::Setting::Paper && c.substitute.is_none() {
                c.substitute.clone_from(&e.substitute);
            }
        }
        for (flag, values) in &e.sweep {
            if values.is_empty() {
                return Err(format!("[sweep] {flag}: no values"));
            }
            if e.args.contains_key(flag) {
                return Err(format!("[sweep] {flag}: also set in [args]"));
            }
            for v in values {
                flag_value(flag, v)?;
            }
        }
        for (flag, v) in e.args.iter().chain(&e.quick) {
            flag_value(flag, v)?;
        }
        let mut names = Vec::new();
        for case in &e.cases {
            match case.get("name") {
                Some(toml::Value::String(n)) if !names.contains(n) => names.push(n.clone()),
                Some(toml::Value::String(n)) => return Err(format!("[[case]] {n}: named twice")),
                _ => return Err("[[case]]: each needs a string `name`".into()),
            }
            if let Some(l) = case.get("labels") {
                let toml::Value::Table(t) = l else {
                    return Err(format!(
                        "[[case]] {}: `labels` is a table of columns",
                        names.last().expect("named above")
                    ));
                };
                for (column, v) in t {
                    if matches!(v, toml::Value::Array(_) | toml::Value::Table(_)) {
                        return Err(format!(
                            "[[case]] labels.{column}: a label is a string or a number"
                        ));
                    }
                    if column == "case" || e.sweep.contains_key(column) {
                        return Err(format!(
                            "[[case]] labels.{column}: also a column of the runner's"
                        ));
                    }
                }
            }
            for (flag, v) in case.iter().filter(|(k, _)| !is_case_key(k)) {
                if e.sweep.contains_key(flag) {
                    return Err(format!("[[case]] {flag}: also swept"));
                }
                flag_value(flag, v)?;
            }
        }
        for c in &e.claims {
            c.check().map_err(|m| format!("claim {:?}: {m}", c.claim))?;
        }
        if e.system == System::Live && e.recorded.is_none() {
            return Err(
                "system = \"live\": a live experiment needs [recorded] rows (made by \
                 `frugal reproduce --live`)"
                    .into(),
            );
        }
        Ok(e)
    }

    /// Every `rl:<checkpoint>` value of the file (in `[args]`, `[quick]`, the sweep and the
    /// cases: policies of `simulate`, checkpoints of `learning-curves`), mutable.
    pub fn agent_paths_mut(&mut self) -> Vec<&mut String> {
        let values = self
            .args
            .values_mut()
            .chain(self.quick.values_mut())
            .chain(self.sweep.values_mut().flatten())
            .chain(self.cases.iter_mut().flat_map(|c| c.values_mut()));
        let mut out = Vec::new();
        for v in values {
            let toml::Value::Array(items) = v else {
                continue;
            };
            for item in items {
                if let toml::Value::String(s) = item
                    && matches!(s.parse(), Ok(frugal_core::PolicySpec::Rl(_)))
                {
                    out.push(s);
                }
            }
        }
        out
    }

    /// The experiment that makes the recorded rows: `[args]` with `[recorded].args`
    /// replacing theirs (and `[quick]`'s: the recorded flags hold in both modes), the same
    /// cases and sweep, no plots, claims or recorded rows.
    pub fn recording(&self) -> Option<Experiment> {
        let r = self.recorded.as_ref()?;
        let mut e = self.clone();
        e.args.extend(r.args.clone());
        e.quick.retain(|k, _| !r.args.contains_key(k));
        e.plots.clear();
        e.claims.clear();
        e.recorded = None;
        Some(e)
    }

    /// Makes every relative `rl:` path, the recorded rows' path, a live experiment's files
    /// (`jobs-csv`, `cluster`) and the inputs its system's [`Entry::path_keys`](crate::systems::Entry::path_keys) name
    /// (where a file or folder of that name is beside it) relative to `dir` (the experiment
    /// file's folder), so a file runs the checkpoints and reads the files beside it from any
    /// working directory.
    pub fn resolve_agents(&mut self, dir: &std::path::Path) {
        // A user's own file names its inputs relative to itself, wherever it is run from:
        // a relative value of a path key that names a file or folder beside the
        // experiment file becomes that path (a preset or set name, such as `nasa` or
        // `2-week`, names none and stays as written).
        let keys = self.system.entry().path_keys;
        let tables = std::iter::once(&mut self.args)
            .chain(self.cases.iter_mut())
            .chain(std::iter::once(&mut self.quick));
        for table in tables {
            for key in keys {
                let values = match table.get_mut(*key) {
                    Some(toml::Value::Array(items)) => items.iter_mut().collect(),
                    Some(v) => vec![v],
                    None => Vec::new(),
                };
                values.into_iter().for_each(|v| beside(v, dir));
            }
        }
        for (key, values) in &mut self.sweep {
            if keys.contains(&key.as_str()) {
                values.iter_mut().for_each(|v| beside(v, dir));
            }
        }
        if let Some(r) = &mut self.recorded {
            for p in [&mut r.rows, &mut r.quick_rows] {
                if p.is_relative() {
                    *p = dir.join(&*p);
                }
            }
        }
        for s in self.agent_paths_mut() {
            if let Ok(frugal_core::PolicySpec::Rl(path)) = s.parse()
                && path.is_relative()
            {
                *s = frugal_core::PolicySpec::Rl(dir.join(path)).to_string();
            }
        }
    }

    /// Every configuration: each case (in file order) × the sweep, the sweep's last key
    /// varying fastest (keys in name order). Flags: `[args]`, then the case's, then under
    /// `quick` the `[quick]` ones — each replacing the one before; a swept flag set in
    /// `[quick]` takes that one value, or that list's values.
    pub fn configurations(&self, quick: bool) -> Vec<Configuration> {
        let fixed = &self.args;
        // A case is a point of its own: its flags after [args], its name as a label.
        let cases: Vec<Option<&Flags>> = if self.cases.is_empty() {
            vec![None]
        } else {
            self.cases.iter().map(Some).collect()
        };
        let mut grid: Vec<(Option<&Flags>, Point)> =
            cases.into_iter().map(|c| (c, Vec::new())).collect();
        for (flag, values) in &self.sweep {
            let values = match self.quick.get(flag) {
                Some(toml::Value::Array(list)) if quick => list.as_slice(),
                Some(v) if quick => std::slice::from_ref(v),
                _ => values.as_slice(),
            };
            grid = grid
                .into_iter()
                .flat_map(|(case, point)| {
                    values.iter().map(move |v| {
                        let mut p = point.clone();
                        p.push((flag.clone(), v.clone()));
                        (case, p)
                    })
                })
                .collect();
        }
        grid.into_iter()
            .map(|(case, point)| {
                let mut argv: Vec<String> = self
                    .system
                    .entry()
                    .words
                    .iter()
                    .map(|w| w.to_string())
                    .collect();
                let mut flags = fixed.clone();
                let mut labels = Vec::new();
                if let Some(case) = case {
                    labels.push(("case".to_string(), label(&case["name"])));
                    if let Some(toml::Value::Table(t)) = case.get("labels") {
                        labels.extend(t.iter().map(|(k, v)| (k.clone(), label(v))));
                    }
                    flags.extend(
                        case.iter()
                            .filter(|(k, _)| !is_case_key(k))
                            .map(|(k, v)| (k.clone(), v.clone())),
                    );
                }
                if quick {
                    // A case's own flag wins: it pins what the case needs (one run of a
                    // fixed job file, one run of a trace hour).
                    flags.extend(
                        self.quick
                            .iter()
                            .filter(|(k, _)| !self.sweep.contains_key(*k))
                            .filter(|(k, _)| !case.is_some_and(|c| c.contains_key(*k)))
                            .map(|(k, v)| (k.clone(), v.clone())),
                    );
                }
                let mut spec = toml::Table::new();
                for (flag, v) in flags.iter().chain(point.iter().map(|(f, v)| (f, v))) {
                    argv.extend(flag_value(flag, v).expect("checked by parse"));
                    spec.insert(flag.clone(), v.clone());
                }
                labels.extend(point.iter().map(|(f, v)| (f.clone(), label(v))));
                Configuration { labels, argv, spec }
            })
            .collect()
    }
}

/// The keys of a `[[case]]` that are not flags: its `name` and its extra `labels`.
fn is_case_key(k: &str) -> bool {
    k == "name" || k == "labels"
}

/// The command-line words of `--flag value`.
fn flag_value(flag: &str, v: &toml::Value) -> Result<Vec<String>, String> {
    if flag.starts_with('-') || flag.is_empty() {
        return Err(format!("{flag:?}: write flags without the leading `--`"));
    }
    let long = format!("--{flag}");
    Ok(match v {
        toml::Value::Boolean(true) => vec![long],
        toml::Value::Boolean(false) => vec![],
        toml::Value::Array(items) => {
            let parts = items
                .iter()
                .map(|i| match i {
                    toml::Value::Array(_) | toml::Value::Table(_) => {
                        Err(format!("{flag}: a list holds strings or numbers"))
                    }
                    other => Ok(label(other)),
                })
                .collect::<Result<Vec<_>, _>>()?;
            vec![long, parts.join(",")]
        }
        toml::Value::Table(_) | toml::Value::Datetime(_) => {
            return Err(format!(
                "{flag}: a flag takes a string, number, boolean or list"
            ));
        }
        other => vec![long, label(other)],
    })
}

/// A scalar as the command line spells it.
fn label(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
title = "t"
paper = "000"
system = "simulate"
[args]
cluster = "small-hybrid"
policies = ["gio", "first-fit"]
admission-control = true
backfill = false
repetitions = 5
[sweep]
pricing = [1, 2]
load = ["light", "high"]
[quick]
repetitions = 2
"#;

    #[test]
    fn inputs_beside_the_file_are_found_from_any_folder() {
        let dir = std::env::temp_dir().join(format!("frugal-beside-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("jobs.csv"), "").unwrap();
        let mut e = Experiment::parse(
            "title = \"t\"\npaper = \"x\"\nsystem = \"simulate\"\n[args]\njobs-csv = \"jobs.csv\"\ncluster = \"small-hybrid\"\n",
        )
        .unwrap();
        e.resolve_agents(&dir);
        let path = dir.join("jobs.csv").display().to_string();
        assert_eq!(e.args["jobs-csv"].as_str(), Some(path.as_str()));
        // A preset's name names no file: it stays.
        assert_eq!(e.args["cluster"].as_str(), Some("small-hybrid"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The experiment's `substitute` labels its paper-setting claims that name none; a
    /// claim's own wins, and the authors' code and extensions keep theirs (none).
    #[test]
    fn substitute_inputs_label_the_papers_setting_only() {
        let claim = |extra: &str| {
            format!(
                "[[claim]]\nclaim = 'c'\nsource = 's'\npublished = 'p'\nmetric = 'm'\nmean = 'a'\nbetween = [0, 1]\n{extra}\n"
            )
        };
        let e = Experiment::parse(&format!(
            "title = 't'\npaper = 'x'\nsystem = 'simulate'\nsubstitute = 'GCD'\n{}{}{}",
            claim(""),
            claim("substitute = 'KTH'"),
            claim("setting = 'extension'")
        ))
        .unwrap();
        let subs: Vec<Option<&str>> = e.claims.iter().map(|c| c.substitute.as_deref()).collect();
        assert_eq!(subs, [Some("GCD"), Some("KTH"), None]);
        let c = &e.claims[0];
        assert_eq!(
            c.setting
                .label(c.real_cluster, false, c.substitute.as_deref()),
            "paper; substitute inputs: GCD"
        );
        assert_eq!(
            c.setting.label(true, true, None),
            "paper (real cluster; testbed at reduced scale, measured live here)"
        );
    }

    #[test]
    fn every_missing_key_is_named_at_once() {
        let e = Experiment::parse("paper = \"000\"\n[args]\n").unwrap_err();
        assert!(e.starts_with("missing keys title, system"), "{e}");
        let e = Experiment::parse("title = \"t\"\npaper = \"000\"\n").unwrap_err();
        assert!(e.starts_with("missing key system"), "{e}");
    }

    #[test]
    fn configurations_cross_the_sweep_and_quick_overrides() {
        let e = Experiment::parse(FILE).unwrap();
        let c = e.configurations(false);
        assert_eq!(c.len(), 4);
        // toml sorts keys: load before pricing, pricing varies fastest.
        assert_eq!(
            c[1].labels,
            [
                ("load".to_string(), "light".to_string()),
                ("pricing".into(), "2".into())
            ]
        );
        assert_eq!(
            c[0].argv,
            [
                "simulate",
                "--admission-control",
                "--cluster",
                "small-hybrid",
                "--policies",
                "gio,first-fit",
                "--repetitions",
                "5",
                "--load",
                "light",
                "--pricing",
                "1"
            ]
        );
        let q = e.configurations(true);
        assert!(q[0].argv.windows(2).any(|w| w == ["--repetitions", "2"]));
        assert!(!q[0].argv.iter().any(|a| a == "5"));
        // A swept flag set in [quick] keeps its label column, with the one value.
        let e = Experiment::parse(&format!("{FILE}pricing = 3\n")).unwrap();
        let q = e.configurations(true);
        assert_eq!(q.len(), 2);
        let list = Experiment::parse(&format!("{FILE}load = ['high']\n")).unwrap();
        assert_eq!(list.configurations(true).len(), 2);
        assert_eq!(list.configurations(true)[0].labels[0].1, "high");
        assert_eq!(q[0].labels[1], ("pricing".to_string(), "3".to_string()));
        assert_eq!(q[0].argv.iter().filter(|a| *a == "--pricing").count(), 1);
    }

    #[test]
    fn cases_label_their_rows_and_replace_args() {
        let e = Experiment::parse(&format!(
            "{FILE}[[case]]\nname = 'busy'\nhour = 10\nrepetitions = 1\n[[case]]\nname = 'idle'\nhour = 0\n"
        ))
        .unwrap();
        let c = e.configurations(false);
        assert_eq!(c.len(), 8);
        assert_eq!(c[0].labels[0], ("case".to_string(), "busy".to_string()));
        assert!(c[0].argv.windows(2).any(|w| w == ["--hour", "10"]));
        assert!(c[0].argv.windows(2).any(|w| w == ["--repetitions", "1"]));
        assert!(c[7].argv.windows(2).any(|w| w == ["--repetitions", "5"]));
        // Under --quick the case's own repetitions stay; the other case takes [quick]'s.
        let q = e.configurations(true);
        let reps = |k: usize| {
            q[k].argv
                .windows(2)
                .any(|w| w[0] == "--repetitions" && w[1] == "1")
        };
        assert!(reps(0) && !reps(q.len() - 1));
        assert!(
            q[q.len() - 1]
                .argv
                .windows(2)
                .any(|w| w == ["--repetitions", "2"])
        );
        let labelled = Experiment::parse(&format!(
            "{FILE}[[case]]\nname = 'p'\nlabels = {{ protocol = 'paper', seed = 3 }}\nhour = 6\n"
        ))
        .unwrap();
        let c = labelled.configurations(false);
        assert_eq!(
            c[0].labels[..3],
            [
                ("case".to_string(), "p".to_string()),
                ("protocol".to_string(), "paper".to_string()),
                ("seed".to_string(), "3".to_string())
            ]
        );
        assert!(!c[0].argv.iter().any(|a| a.contains("labels")));
        for bad in [
            "labels = 3",
            "labels = { x = [1] }",
            "labels = { pricing = 'a' }",
        ] {
            let text = format!("{FILE}[[case]]\nname = 'p'\n{bad}\n");
            assert!(
                Experiment::parse(&text).unwrap_err().contains("labels"),
                "{bad}"
            );
        }
        let twice = format!("{FILE}[[case]]\nname = 'a'\n[[case]]\nname = 'a'\n");
        assert!(
            Experiment::parse(&twice)
                .unwrap_err()
                .contains("named twice")
        );
    }

    #[test]
    fn bad_files_are_refused_with_the_key() {
        let bad = |s: &str| {
            Experiment::parse(&format!("title='t'\npaper='0'\nsystem='simulate'\n{s}")).unwrap_err()
        };
        assert!(bad("[sweep]\npricing = []").contains("pricing: no values"));
        assert!(bad("[args]\n'--load' = 'x'").contains("without the leading"));
        assert!(bad("[args]\nx = { a = 1 }").contains("x: a flag takes"));
        assert!(bad("colour = 1").contains("unknown field"));
        assert!(bad("[args]\nload='x'\n[sweep]\nload=['y']").contains("also set in [args]"));
        assert!(
            Experiment::parse("title='t'\npaper='0'\nsystem='spreadsheet'")
                .unwrap_err()
                .contains("unknown variant")
        );
    }
}
