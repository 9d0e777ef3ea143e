//! Writing a run's records: per-job and per-VM CSV, cumulative cost CSV, summary JSON.

use std::io;
use std::path::Path;

use crate::metrics::RunResult;

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_default()
}

/// Writes `jobs.csv`, `vms.csv`, `cost_over_time.csv` and `summary.json` into `dir`
/// (created if missing). Times in seconds, costs in dollars.
///
/// # Errors
/// Any I/O error, with the path that failed.
pub fn write_run(run: &RunResult, dir: &Path) -> io::Result<()> {
    let ctx = |p: &Path| {
        let p = p.display().to_string();
        move |e: io::Error| io::Error::new(e.kind(), format!("{p}: {e}"))
    };
    std::fs::create_dir_all(dir).map_err(ctx(dir))?;
    let mut jobs = String::from(
        "id,kind,executors,arrival_s,deadline_s,start_s,finish_s,status,met_deadline,hybrid,kind_mismatch,placement\n",
    );
    for r in &run.jobs {
        let placement: Vec<String> = r
            .placement
            .iter()
            .map(|(vm, n)| format!("{vm}:{n}"))
            .collect();
        jobs.push_str(&format!(
            "{},{},{},{:.3},{},{},{},{},{},{},{},{}\n",
            r.id,
            r.kind.as_str(),
            r.executors,
            r.arrival,
            opt(r.deadline),
            opt(r.start),
            opt(r.finish),
            serde_json::to_value(r.status)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
            r.met_deadline(),
            r.hybrid,
            r.kind_mismatch,
            placement.join(";"),
        ));
    }
    let mut vms = String::from("vm,instance_type,site,price_per_second,power_ons,on_time_s,cost\n");
    for v in &run.vms {
        let cost: f64 = v
            .intervals
            .iter()
            .map(|(a, b)| run.billing.cost(b - a, v.price_per_second))
            .sum();
        vms.push_str(&format!(
            "{},{},{},{},{},{:.3},{:.6}\n",
            v.id,
            v.instance_type,
            v.site.as_str(),
            v.price_per_second,
            v.intervals.len(),
            v.on_time(),
            cost
        ));
    }
    let mut curve = String::from("time_s,cumulative_cost\n");
    for (t, c) in run.cumulative_cost() {
        curve.push_str(&format!("{t:.3},{c:.6}\n"));
    }
    let summary = serde_json::to_string_pretty(&run.summary).expect("summary serialises");
    for (name, body) in [
        ("jobs.csv", jobs),
        ("vms.csv", vms),
        ("cost_over_time.csv", curve),
        ("summary.json", summary + "\n"),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, body).map_err(ctx(&p))?;
    }
    Ok(())
}
