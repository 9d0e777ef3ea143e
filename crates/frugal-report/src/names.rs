//! What each paper calls the policies, planners and strategies its experiments run: the
//! names a reader of the paper knows, shown in the report's plots in place of frugal's
//! identifiers ([`paper_name`]). An identifier the paper has no name for — frugal's
//! extensions, and identifiers that already are the paper's name — is shown as it is.
//!
//! Sources, per paper: 000 §5–6.2 and Table 4; 001 §III-B and Fig. 4; 002 §5 and §7.1–7.3;
//! 003 §4; 004 §4.4, §6.1.3 and Table 4; 005 §3–5 (`notes/spot-deadlines-spec.md`);
//! 006 §2–4 and Table 2 (`notes/multi-region-spot-spec.md`). Where frugal's identifier
//! names what the paper's label plots but not what its text defines (paper 005's
//! "Omniscient" figures are the authors' heuristic), the name says so.

/// `(paper, identifier, the paper's name)`.
const NAMES: &[(&str, &str, &str)] = &[
    ("000", "round-robin", "FIFO"),
    ("000", "round-robin-consolidate", "FIFO-C"),
    ("000", "first-fit", "FF"),
    ("000", "gio", "GIO"),
    ("000", "asq", "AsQ"),
    ("000", "milp", "ILP"),
    ("001", "cuckoo", "Cuckoo"),
    ("001", "rffd", "RFFD (Alg. 1)"),
    ("001", "ga", "GA"),
    ("001", "ls", "LS"),
    ("002", "round-robin", "RR"),
    ("002", "round-robin-consolidate", "RRC"),
    ("002", "first-fit", "FF"),
    ("002", "aep", "AEP"),
    ("002", "milp", "ILP"),
    ("003", "ffd", "FFD"),
    ("003", "ffd-ra", "FFD+RA"),
    ("003", "ha", "HA"),
    ("003", "ha-ra", "HA+RA"),
    ("004", "spark-consolidate", "FIFO"),
    ("004", "best-fit-decreasing", "BFD"),
    ("004", "morpheus", "Morpheus"),
    ("004", "milp", "ILP"),
    ("005", "on-demand", "On-demand only"),
    ("005", "greedy", "Greedy"),
    ("005", "uniform-progress", "UP"),
    ("005", "uniform-progress-oracle", "UP (lifetime oracle)"),
    ("005", "omniscient", "Omniscient"),
    ("005", "quick-optimal", "Omniscient (authors' code)"),
    (
        "005",
        "quick-optimal:8",
        "Omniscient, 8 slices (authors' code)",
    ),
    ("006", "optimal", "Optimal (exact)"),
    ("006", "skynomad", "SkyNomad"),
    ("006", "skynomad-rate", "SkyNomad"),
    ("006", "skynomad-o", "SkyNomad(o)"),
    ("006", "skynomad-o-rate", "SkyNomad(o)"),
    ("006", "up-s", "UP(S)"),
    ("006", "up-a", "UP(A)"),
    ("006", "up-ap", "UP(AP)"),
    ("006", "up", "UP"),
    ("006", "skynomad-v-alpha05", "α = 0.5"),
    ("006", "skynomad-v-quadratic", "quadratic"),
    ("006", "skynomad-v-hjb-exp", "HJB-exp"),
    ("006", "skynomad-v-time-only", "time-only"),
    ("006", "skynomad-v-neely-dpp", "Neely DPP"),
];

/// The name paper `paper` gives `id`, where it gives one (module doc). Besides the
/// table: paper 002's trained agents, `rl:<agent>-<pattern>-b<β>` → `DQN (β = 0.75)`
/// (the pattern is the plot's); paper 005's `time-sliced:<n>` → `Time Sliced (n = <n>)`
/// and `omniscient-lookahead:<n>` → `Partial Lookahead (<n> slices)`.
pub fn paper_name(paper: &str, id: &str) -> Option<String> {
    if let Some((_, _, name)) = NAMES.iter().find(|(p, i, _)| *p == paper && *i == id) {
        return Some((*name).to_string());
    }
    match paper {
        "002" => {
            let rest = id.strip_prefix("rl:")?;
            let (agent, beta) = rest.rsplit_once("-b")?;
            let agent = match agent.split('-').next()? {
                "dqn" => "DQN",
                "reinforce" => "REINFORCE",
                _ => return None,
            };
            beta.parse::<f64>().ok()?;
            Some(format!("{agent} (β = {beta})"))
        }
        "005" => {
            if let Some(n) = id.strip_prefix("time-sliced:") {
                Some(format!("Time Sliced (n = {n})"))
            } else {
                id.strip_prefix("omniscient-lookahead:")
                    .map(|n| format!("Partial Lookahead ({n} slices)"))
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_paper_names_its_own_policies() {
        // One identifier, two papers, two names: paper 000's FIFO is Spark's spread,
        // paper 004's its consolidation.
        assert_eq!(paper_name("000", "round-robin").as_deref(), Some("FIFO"));
        assert_eq!(paper_name("002", "round-robin").as_deref(), Some("RR"));
        assert_eq!(
            paper_name("004", "spark-consolidate").as_deref(),
            Some("FIFO")
        );
        assert_eq!(paper_name("004", "round-robin"), None);
        assert_eq!(
            paper_name("002", "rl:reinforce-burst-b0.75").as_deref(),
            Some("REINFORCE (β = 0.75)")
        );
        assert_eq!(
            paper_name("002", "rl:dqn-normal-b0").as_deref(),
            Some("DQN (β = 0)")
        );
        assert_eq!(paper_name("002", "rl:ppo-normal-b0"), None);
        assert_eq!(
            paper_name("005", "time-sliced:16").as_deref(),
            Some("Time Sliced (n = 16)")
        );
        assert_eq!(
            paper_name("005", "omniscient-lookahead:8").as_deref(),
            Some("Partial Lookahead (8 slices)")
        );
    }

    /// Within a paper no two identifiers share a name unless they are one policy in two
    /// configurations that never share a plot (paper 006's SkyNomad with reference-cost
    /// or rate-ratio V: Fig 9b uses the second, every other figure the first).
    #[test]
    fn a_name_means_one_policy_per_paper() {
        for (k, (p, i, n)) in NAMES.iter().enumerate() {
            for (q, j, m) in &NAMES[k + 1..] {
                let same_policy = i.trim_end_matches("-rate") == j.trim_end_matches("-rate");
                assert!(
                    !(p == q && n == m) || same_policy,
                    "paper {p}: {i} and {j} are both {n:?}"
                );
            }
        }
    }

    /// The suggestions the policy parser gives for the papers' names
    /// ([`frugal_core::policy::PAPER_NAMES`]) point at the policies this table gives
    /// those names: the two lists cannot drift apart.
    #[test]
    fn the_parsers_suggestions_agree_with_the_papers_names() {
        for (said, hint) in frugal_core::policy::PAPER_NAMES {
            let named: Vec<&str> = NAMES
                .iter()
                .filter(|(_, _, n)| n.eq_ignore_ascii_case(said))
                .map(|(_, i, _)| *i)
                .collect();
            for id in &named {
                assert!(
                    hint.contains(&format!("'{id}'")),
                    "{said:?}: the table names {id} so, the suggestion {hint:?} does not"
                );
            }
        }
    }
}
