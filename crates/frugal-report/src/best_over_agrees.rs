//! Paper 001's "minimum median job time" is computed in two places: the book's table
//! (`frugal_ephemeral::summary::improvements`, each strategy's smallest median over the
//! safety margins per data centre and chunk size) and the claim engine (`best_over`, on the
//! rows the experiment writes). This test drives both on the same rows — with a rejected
//! run and an unfinished one, whose times are NaN — so the two cannot drift apart.

use frugal_ephemeral::DataCentre;
use frugal_ephemeral::experiment::EphemeralRow;
use frugal_ephemeral::forecast::ForecasterKind;
use frugal_ephemeral::summary::{cells, improvements};

use crate::{Claim, Table};

/// Rows over 2 data centres × 2 chunk sizes × 3 margins × 3 start hours × 2 strategies,
/// job times from a fixed formula (not symmetric in any key), one rejected run and one
/// that did not end.
fn rows() -> Vec<EphemeralRow> {
    let mut out = Vec::new();
    for (d, dc) in [DataCentre::Pc1, DataCentre::University]
        .into_iter()
        .enumerate()
    {
        for (c, chunk_mib) in [128u32, 256].into_iter().enumerate() {
            for (m, safety_margin_pct) in [0u32, 10, 20].into_iter().enumerate() {
                for start_hour in 0..3u32 {
                    for (s, strategy) in ["cuckoo", "salamander-exact"].into_iter().enumerate() {
                        let k = (d * 7 + c * 5 + m * 3 + start_hour as usize * 11 + s * 13) % 17;
                        let mut job_time_s = 1000.0 + 40.0 * k as f64 - 150.0 * (s * m) as f64;
                        let rejected = s == 1 && d == 1 && c == 0 && m == 2 && start_hour == 0;
                        if rejected || (s == 0 && d == 0 && c == 1 && m == 1 && start_hour == 2) {
                            job_time_s = f64::NAN;
                        }
                        out.push(EphemeralRow {
                            dc,
                            chunk_mib,
                            safety_margin_pct,
                            start_hour,
                            strategy,
                            forecaster: ForecasterKind::SeasonalQuantile,
                            volatility: 1.0,
                            seed: 1,
                            jobs: 3,
                            tasks: 2040,
                            rejected,
                            job_time_s,
                            relaunched_pct: 0.0,
                            remote_pct: 0.0,
                            plan_makespan_s: 0,
                            plan_job_time_s: 0.0,
                            replan_failures: 0,
                            cpu_covered_pct: 99.0,
                            cpu_pinball_pp: 0.0,
                            ram_covered_pct: 99.0,
                            ram_pinball_pp: 0.0,
                        });
                    }
                }
            }
        }
    }
    out
}

/// The leading number of a claim's shown value ("-12.3 % ± …" → −12.3).
fn leading(v: &str) -> f64 {
    v.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn the_claims_best_over_is_the_books_minimum_median() {
    let rows = rows();
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in &rows {
        w.serialize(r).unwrap();
    }
    let table = Table::from_csv(&w.into_inner().unwrap()).unwrap();
    let book = improvements(&cells(&rows));
    assert_eq!(book.len(), 4, "one per data centre and chunk size");
    // The claim's change is strategy / cuckoo − 1: the book's improvement negated.
    let changes: Vec<f64> = book.iter().map(|i| -i.improvement_pct).collect();
    let claim = |over: &str| -> Claim {
        let c: Claim = toml::from_str(&format!(
            "claim='c'\nsource='s'\npublished='p'\nmetric='job_time_s'\nby='strategy'\n\
             change=['salamander-exact','cuckoo']\nbest_over='safety_margin_pct'\n\
             per=['dc','chunk_mib']\nover='{over}'\nsize=-10"
        ))
        .unwrap();
        c.check().unwrap();
        c
    };
    let min = claim("min").evaluate(&table).unwrap();
    let book_min = changes.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(
        (leading(&min.frugal) - book_min).abs() < 0.051,
        "claim {} against the book's {book_min:.2} %",
        min.frugal
    );
    let mean = claim("mean").evaluate(&table).unwrap();
    let book_mean = changes.iter().sum::<f64>() / changes.len() as f64;
    assert!(
        (leading(&mean.frugal) - book_mean).abs() < 0.051,
        "claim {} against the book's {book_mean:.2} %",
        mean.frugal
    );
    // Case by case too: each group's value is its book row's.
    assert_eq!(mean.groups.len(), 4);
    for i in &book {
        let label = |g: &str| g.contains(&i.dc.to_string()) && g.contains(&i.chunk_mib.to_string());
        let (_, value, _) = mean
            .groups
            .iter()
            .find(|(g, _, _)| label(g))
            .unwrap_or_else(|| {
                panic!("no group for {} {} in {:?}", i.dc, i.chunk_mib, mean.groups)
            });
        assert!(
            (leading(value) + i.improvement_pct).abs() < 0.051,
            "{} {}: claim {value}, book {:.2} %",
            i.dc,
            i.chunk_mib,
            -i.improvement_pct
        );
    }
}
