//! A policy as every face of frugal names it — the command line, experiment files, the
//! service's configuration and its stored starts, `whatif`, Python: a built-in policy
//! ([`PolicyKind::ALL`] is the one list), a trained agent `rl:<checkpoint>` (paper 002 §5),
//! or `offline` (the search over whole runs that knows every job). Parsed by [`FromStr`]
//! and printed by [`Display`] here and nowhere else, so a printed name parses back to the
//! same policy.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::PolicyKind;

/// A policy named by the user.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PolicySpec {
    /// One of the built-in policies.
    Builtin(PolicyKind),
    /// A checkpoint written by `frugal train` (paper 002 §5), as `rl:<path>`.
    Rl(PathBuf),
    /// Not an online policy: the best schedule a search that knows every job finds, with
    /// the proven lower bound on any schedule's bill (`frugal_sim::offline`).
    Offline,
}

/// The prefix of a trained agent's name.
const RL: &str = "rl:";

impl PolicySpec {
    /// Every built-in policy a run of every policy includes, in table order (not those
    /// that need a contention model: [`PolicyKind::in_default_set`]).
    pub fn all_builtin() -> Vec<PolicySpec> {
        let kinds = PolicyKind::ALL
            .into_iter()
            .filter(PolicyKind::in_default_set);
        kinds.map(PolicySpec::Builtin).collect()
    }

    /// Why a run of `policies` cannot go ahead without a contention model: the first one
    /// that prices with it ([`PolicyKind::needs_contention`]), in the words every face
    /// gives under its `contention` field. `None` if none needs one.
    pub fn missing_contention(policies: &[PolicySpec]) -> Option<String> {
        policies.iter().find_map(|p| match p {
            PolicySpec::Builtin(k) if k.needs_contention() => Some(format!(
                "{} prices placements with a contention model: give one (a file as \
                 `frugal contention` writes)",
                k.name()
            )),
            _ => None,
        })
    }

    /// The checkpoint of an `rl:` policy.
    pub fn checkpoint(&self) -> Option<&Path> {
        match self {
            PolicySpec::Rl(p) => Some(p),
            _ => None,
        }
    }

    /// Every accepted form, as error messages and `--help` list them.
    pub fn forms() -> String {
        let mut names: Vec<&str> = PolicyKind::ALL.iter().map(PolicyKind::name).collect();
        names.extend(["rl:<checkpoint>", "offline"]);
        names.join(", ")
    }
}

impl fmt::Display for PolicySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicySpec::Builtin(k) => f.write_str(k.name()),
            PolicySpec::Rl(p) => write!(f, "{RL}{}", p.display()),
            PolicySpec::Offline => f.write_str("offline"),
        }
    }
}

/// Why a policy name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolicySpecError {
    /// `rl:` without a path.
    #[error("rl: needs a checkpoint path, e.g. rl:agent.safetensors")]
    NoCheckpoint,
    /// Not a policy frugal knows; `suggestion` says which it may be, if any is close.
    #[error("unknown policy '{name}'{}; valid: {}",
            suggestion.as_ref().map(|s| format!(" (did you mean {s}?)")).unwrap_or_default(),
            PolicySpec::forms())]
    Unknown {
        /// The name given.
        name: String,
        /// The policy a paper calls by that name ([`PAPER_NAMES`]), else the closest
        /// built-in name (Jaro–Winkler similarity above 0.8, as clap's), quoted.
        suggestion: Option<String>,
    },
}

/// What the papers call the policies, lower-cased, and the suggestion a refused name of
/// theirs gets: the papers' names are suggestions, not names frugal takes, because one of
/// them means two policies (paper 000's FIFO is Spark's spread, paper 004's its
/// consolidation).
pub const PAPER_NAMES: [(&str, &str); 8] = [
    (
        "fifo",
        "'round-robin' (paper 000's FIFO) or 'spark-consolidate' (paper 004's FIFO)",
    ),
    ("fifo-c", "'round-robin-consolidate' (paper 000's FIFO-C)"),
    ("rrc", "'round-robin-consolidate' (paper 002's RRC)"),
    ("ff", "'first-fit'"),
    ("bfd", "'best-fit-decreasing'"),
    (
        "ilp",
        "'milp' (the papers' ILP) or 'optimal' (its exact per-job optimum)",
    ),
    ("opt", "'optimal'"),
    ("rr", "'round-robin'"),
];

impl FromStr for PolicySpec {
    type Err = PolicySpecError;

    fn from_str(s: &str) -> Result<PolicySpec, PolicySpecError> {
        if let Some(path) = s.strip_prefix(RL) {
            return if path.is_empty() {
                Err(PolicySpecError::NoCheckpoint)
            } else {
                Ok(PolicySpec::Rl(PathBuf::from(path)))
            };
        }
        if s == "offline" {
            return Ok(PolicySpec::Offline);
        }
        if let Some(k) = PolicyKind::ALL.into_iter().find(|k| k.name() == s) {
            return Ok(PolicySpec::Builtin(k));
        }
        let lower = s.to_ascii_lowercase();
        let suggestion = PAPER_NAMES
            .iter()
            .find(|(paper, _)| *paper == lower)
            .map(|(_, hint)| hint.to_string())
            .or_else(|| {
                PolicyKind::ALL
                    .iter()
                    .map(|k| (strsim::jaro_winkler(s, k.name()), k.name()))
                    .filter(|(score, _)| *score > 0.8)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, name)| format!("'{name}'"))
            });
        Err(PolicySpecError::Unknown {
            name: s.to_string(),
            suggestion,
        })
    }
}

crate::serde_as_text!(PolicySpec);

#[cfg(test)]
mod tests {
    use super::*;

    /// The papers' names point only at policies that exist: every quoted name in a hint
    /// parses, so a renamed policy cannot leave a stale suggestion behind.
    #[test]
    fn every_paper_name_suggests_real_policies() {
        for (paper, hint) in PAPER_NAMES {
            // Quoted names: the runs between quotes that are a name (an apostrophe, as
            // in "paper 000's", makes other runs).
            let quoted: Vec<&str> = hint
                .split('\'')
                .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
                .collect();
            assert!(!quoted.is_empty(), "{paper}");
            for name in quoted {
                assert!(
                    PolicyKind::ALL.iter().any(|k| k.name() == name),
                    "{paper}: '{name}' is no policy"
                );
            }
        }
    }

    #[test]
    fn every_form_prints_and_parses_back() {
        let mut all = PolicySpec::all_builtin();
        all.extend([
            PolicySpec::Rl("a/b.safetensors".into()),
            PolicySpec::Offline,
        ]);
        for p in all {
            assert_eq!(p.to_string().parse::<PolicySpec>(), Ok(p.clone()));
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(serde_json::from_str::<PolicySpec>(&json).unwrap(), p);
        }
        assert_eq!(
            "rl:x".parse::<PolicySpec>().unwrap().checkpoint(),
            Some(Path::new("x"))
        );
    }

    #[test]
    fn a_bad_name_is_refused_with_the_closest_one_and_every_form() {
        let e = "gi".parse::<PolicySpec>().unwrap_err();
        assert_eq!(
            e,
            PolicySpecError::Unknown {
                name: "gi".into(),
                suggestion: Some("'gio'".into())
            }
        );
        let text = e.to_string();
        assert!(text.contains("did you mean 'gio'?"), "{text}");
        // The papers' names point to the policies they mean, not to a look-alike.
        let fifo = "FIFO".parse::<PolicySpec>().unwrap_err().to_string();
        assert!(
            fifo.contains("did you mean 'round-robin' (paper 000's FIFO) or 'spark-consolidate'")
                && !fifo.contains("'gio'"),
            "{fifo}"
        );
        assert!(text.contains("round-robin, ") && text.ends_with("rl:<checkpoint>, offline"));
        let far = "zzz".parse::<PolicySpec>().unwrap_err().to_string();
        assert!(!far.contains("did you mean"), "{far}");
        assert_eq!(
            "rl:".parse::<PolicySpec>(),
            Err(PolicySpecError::NoCheckpoint)
        );
        assert!(serde_json::from_str::<PolicySpec>("\"first_fit\"").is_err());
    }
}
