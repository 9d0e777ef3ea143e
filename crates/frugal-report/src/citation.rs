//! Every place a `source` cites is one its paper has: sections, figures, tables,
//! equations and algorithms are checked against each paper's list
//! (`experiments/papers/places.toml`), and a figure, table or algorithm cited beside
//! sections must be shown or discussed in one of them, where the list says where it is.
//!
//! What a source may write (the forms the experiment files use):
//!
//! - `§6.3.1`, `§IV-B1`, `§A.2.4`; a range `§6.3.1–6.3.2` (en dash: every section listed
//!   between the two ends, inclusive);
//! - `Fig. 5a`, `Fig 9b`, `Figs. 2–4`, `Fig. 4a–b`, `Figs 9a, 10a`, `Fig. 4 and 5`,
//!   `Fig. 4b against 4d`;
//! - `Table 5`, `Tables III, IV`; `Eq. 15`, `Eqs. 2–6`; `Alg. 1–2`;
//! - anything else (`abstract`, the artifact's file names, notes in parentheses) is read
//!   past. A source that begins `paper NNN` must name the experiment's own paper.
//!
//! A section is *near* another when one is the other or a subsection of it (`6.3.5` and
//! `6.3`; `IV-B1` and `IV-B`); a figure cited beside sections must be near one of them.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The places of every paper, as shipped.
pub const PLACES: &str = include_str!("../../../experiments/papers/places.toml");

/// The places of the papers (`experiments/papers/places.toml`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Places {
    /// By paper (`000` … `006`).
    pub paper: BTreeMap<String, Paper>,
}

/// One paper's places.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// Its sections, in the paper's order and numbering.
    pub sections: Vec<String>,
    /// How many numbered equations it has (not checked where absent).
    #[serde(default)]
    pub equations: Option<u32>,
    /// Its algorithms, each with the sections that give it.
    #[serde(default)]
    pub algorithms: BTreeMap<String, Vec<String>>,
    /// Its figures (by number), each with the sections that show or discuss it.
    pub figures: BTreeMap<String, Vec<String>>,
    /// Its tables, likewise.
    pub tables: BTreeMap<String, Vec<String>>,
}

/// One cited place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A section, or the range from the first to the second.
    Section(String, Option<String>),
    /// A figure or a panel of one (`5a`).
    Figure(String),
    /// A table.
    Table(String),
    /// A numbered equation.
    Equation(String),
    /// An algorithm.
    Algorithm(String),
}

impl Places {
    /// The shipped places.
    ///
    /// # Panics
    /// If the shipped file does not parse (a test reads it).
    pub fn shipped() -> Places {
        toml::from_str(PLACES).expect("experiments/papers/places.toml parses")
    }

    /// What is wrong with `source`, cited in an experiment of `paper`: one line per place
    /// the paper does not have or that is cited beside the wrong sections; empty when all
    /// is well.
    pub fn check(&self, paper: &str, source: &str) -> Vec<String> {
        let Some(p) = self.paper.get(paper) else {
            return vec![format!("paper {paper} has no list of places")];
        };
        let mut problems = Vec::new();
        if let Some(named) = source.strip_prefix("paper ") {
            let named: String = named.chars().take_while(char::is_ascii_digit).collect();
            if named != paper {
                problems.push(format!("cites paper {named}, not paper {paper}"));
            }
        }
        let places = parse(source);
        let mut cited: Vec<&str> = Vec::new();
        for place in &places {
            if let Place::Section(a, b) = place {
                let at = |s: &str| p.sections.iter().position(|x| x == s);
                match (at(a), b.as_deref().map(|b| (b, at(b)))) {
                    (None, _) => problems.push(format!("§{a} is not a section of paper {paper}")),
                    (Some(_), Some((b, None))) => {
                        problems.push(format!("§{b} is not a section of paper {paper}"));
                    }
                    (Some(i), Some((b, Some(j)))) if j < i => {
                        problems.push(format!("§{a}–{b} runs backwards"));
                    }
                    (Some(i), Some((_, Some(j)))) => {
                        cited.extend(p.sections[i..=j].iter().map(String::as_str));
                    }
                    (Some(i), None) => cited.push(p.sections[i].as_str()),
                }
            }
        }
        let placed = |what: &str, id: &str, at: &[String]| -> Option<String> {
            let near_one = at.iter().any(|s| cited.iter().any(|c| near(s, c)));
            (!cited.is_empty() && !at.is_empty() && !near_one).then(|| {
                format!(
                    "{what} {id} is in §{}, not in the sections cited beside it (§{})",
                    at.join(", §"),
                    cited.join(", §")
                )
            })
        };
        for place in &places {
            let problem = match place {
                Place::Section(..) => None,
                Place::Figure(id) => match lookup(&p.figures, id) {
                    None => Some(format!("Fig. {id} is not a figure of paper {paper}")),
                    Some(at) => placed("Fig.", id, at),
                },
                Place::Table(id) => match lookup(&p.tables, id) {
                    None => Some(format!("Table {id} is not a table of paper {paper}")),
                    Some(at) => placed("Table", id, at),
                },
                Place::Algorithm(id) => match p.algorithms.get(id) {
                    None => Some(format!("Alg. {id} is not an algorithm of paper {paper}")),
                    Some(at) => placed("Alg.", id, at),
                },
                Place::Equation(id) => match (p.equations, id.parse::<u32>()) {
                    (Some(n), Ok(k)) if (1..=n).contains(&k) => None,
                    (Some(n), _) => Some(format!("Eq. {id}: paper {paper} has Eqs. 1–{n}")),
                    (None, _) => None,
                },
            };
            problems.extend(problem);
        }
        problems
    }
}

/// A figure's or table's entry: the id itself, or a panel's figure (`4a` → `4`).
fn lookup<'a>(list: &'a BTreeMap<String, Vec<String>>, id: &str) -> Option<&'a Vec<String>> {
    list.get(id).or_else(|| {
        let number = id.trim_end_matches(|c: char| c.is_ascii_lowercase());
        (number != id).then(|| list.get(number)).flatten()
    })
}

/// Whether sections `a` and `b` are one, or one is a subsection of the other.
fn near(a: &str, b: &str) -> bool {
    let under = |deep: &str, top: &str| {
        deep.strip_prefix(top).is_some_and(|rest| {
            rest.starts_with(['.', '-'])
                || (top.ends_with(|c: char| c.is_ascii_uppercase())
                    && rest.starts_with(|c: char| c.is_ascii_digit()))
        })
    };
    a == b || under(a, b) || under(b, a)
}

/// What makes a [`Place`] of an id.
type Make = fn(String) -> Place;

/// The places `source` cites (module doc).
pub fn parse(source: &str) -> Vec<Place> {
    const MARKERS: [(&str, Make); 9] = [
        ("Figs. ", Place::Figure),
        ("Figs ", Place::Figure),
        ("Fig. ", Place::Figure),
        ("Fig ", Place::Figure),
        ("Tables ", Place::Table),
        ("Table ", Place::Table),
        ("Eqs. ", Place::Equation),
        ("Eq. ", Place::Equation),
        ("Alg. ", Place::Algorithm),
    ];
    let mut out = Vec::new();
    let mut rest = source;
    let mut prev: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        let boundary = prev.is_none_or(|p| !p.is_alphanumeric());
        if c == '§' {
            let (a, tail) = token(&rest[c.len_utf8()..]);
            let (b, tail) = match tail.strip_prefix('–') {
                Some(t) => {
                    let (b, t) = token(t);
                    (Some(b.to_string()), t)
                }
                None => (None, tail),
            };
            if !a.is_empty() {
                out.push(Place::Section(a.to_string(), b));
            }
            prev = Some('§');
            rest = tail;
            continue;
        }
        if boundary && let Some((m, make)) = MARKERS.iter().find(|(m, _)| rest.starts_with(m)) {
            rest = ids(&rest[m.len()..], |id| out.push(make(id)));
            prev = Some(' ');
            continue;
        }
        prev = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// A section number at the start of `s` (letters, digits, dots and hyphens, less a
/// sentence's final dot) and what follows it.
fn token(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .unwrap_or(s.len());
    let t = s[..end].trim_end_matches(['.', '-']);
    (t, &s[t.len()..])
}

/// Reads a list of figure, table, equation or algorithm ids at the start of `s` (`2–4`,
/// `4a–b`, `9a, 10a`, `4 and 5`, `4b against 4d`, `III, IV`), giving each to `push`;
/// returns what follows the list. A range gives its two ends; `4a–b` gives `4a` and `4b`.
fn ids(mut s: &str, mut push: impl FnMut(String)) -> &str {
    let id_at = |s: &str| {
        let end = s
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(s.len());
        let id = &s[..end];
        let ok = id.starts_with(|c: char| c.is_ascii_digit())
            || (!id.is_empty() && id.chars().all(|c| "IVXL".contains(c)));
        ok.then_some(end)
    };
    loop {
        let Some(end) = id_at(s) else {
            return s;
        };
        let first = &s[..end];
        push(first.to_string());
        s = &s[end..];
        if let Some(t) = s.strip_prefix('–') {
            let end = t
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(t.len());
            let last = &t[..end];
            if last.chars().all(|c| c.is_ascii_lowercase()) && !last.is_empty() {
                // `4a–b`: a panel of the same figure.
                let number = first.trim_end_matches(|c: char| c.is_ascii_lowercase());
                push(format!("{number}{last}"));
            } else if !last.is_empty() {
                push(last.to_string());
            }
            s = &t[end..];
        }
        let next = [", ", " and ", " against "]
            .iter()
            .find_map(|sep| s.strip_prefix(sep).filter(|t| id_at(t).is_some()));
        match next {
            Some(t) => s = t,
            None => return s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(a: &str) -> Place {
        Place::Section(a.into(), None)
    }

    #[test]
    fn every_form_the_files_use_is_read() {
        use Place::*;
        assert_eq!(
            parse("paper 000, §6.1 and §6.3.1–6.3.2, Figs. 2–4"),
            [
                s("6.1"),
                Section("6.3.1".into(), Some("6.3.2".into())),
                Figure("2".into()),
                Figure("4".into())
            ]
        );
        assert_eq!(
            parse("paper 000, §6.3.2, Fig. 4a–b; §5 Alg. 1–2"),
            [
                s("6.3.2"),
                Figure("4a".into()),
                Figure("4b".into()),
                s("5"),
                Algorithm("1".into()),
                Algorithm("2".into())
            ]
        );
        assert_eq!(
            parse("paper 001, §IV-B1, Tables III, IV (Eqs. 2–6)"),
            [
                s("IV-B1"),
                Table("III".into()),
                Table("IV".into()),
                Equation("2".into()),
                Equation("6".into())
            ]
        );
        assert_eq!(
            parse("paper 006, Figs 9a and 10a; research/data/v100.csv (C1, C2)"),
            [Figure("9a".into()), Figure("10a".into())]
        );
        assert_eq!(
            parse("paper 005, §5.1, Fig. 8, at §6's changeover; Fig. 4b against 4d."),
            [
                s("5.1"),
                Figure("8".into()),
                s("6"),
                Figure("4b".into()),
                Figure("4d".into())
            ]
        );
        // A word that ends in "Fig" or "Table" is no citation.
        assert_eq!(parse("a Timetable 5, ConFig. 3"), []);
    }

    #[test]
    fn places_the_paper_lacks_or_sections_that_do_not_hold_them_are_named() {
        let places = Places::shipped();
        let ok = |paper, source| assert_eq!(places.check(paper, source), Vec::<String>::new());
        ok("000", "paper 000, §6.3.5, Fig. 6");
        ok("000", "paper 000, §7.2–7.4, Figs. 8–10");
        ok("000", "paper 000, §5 Alg. 1–2, §6.2");
        ok("001", "paper 001, §IV-B, Table III");
        ok("004", "paper 004, §6.1–6.2 Fig. 5 and §6.4 Fig. 7");
        ok("006", "paper 006, Fig 9b");
        let bad = |paper, source, want: &str| {
            let p = places.check(paper, source);
            assert!(p.iter().any(|m| m.contains(want)), "{source}: {p:?}");
        };
        bad("001", "paper 001, §V-C, Table III", "§V-C is not a section");
        bad("000", "paper 000, §6.3.2, Fig. 6", "Fig. 6 is in §6.3.5");
        bad("002", "paper 002, §7.2, Fig. 6b", "Fig. 6b is in §7.4");
        bad("000", "paper 000, Fig. 11", "not a figure");
        bad("003", "paper 003, Eq. 11", "has Eqs. 1–10");
        bad("000", "paper 000, §7.4–7.2", "backwards");
        bad("004", "paper 000, §6.2", "cites paper 000");
        assert!(near("IV-B1", "IV-B") && near("6.3", "6.3.5") && !near("1", "10"));
    }

    /// Every source of every shipped experiment cites places its paper has.
    #[test]
    fn every_shipped_source_cites_places_its_paper_has() {
        let places = Places::shipped();
        let mut problems = Vec::new();
        for (id, e) in crate::embedded::list() {
            let sources = e.source.iter().chain(e.claims.iter().map(|c| &c.source));
            for source in sources {
                for p in places.check(&e.paper, source) {
                    problems.push(format!("{id}: {source:?}: {p}"));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
