//! `frugal live`: a workload replayed on a real Spark cluster on this machine's hybrid
//! testbed, once per policy and repetition (`frugal_report::live::LiveSpec`).

use anyhow::Result;

use frugal_report::live::LiveSpec;

/// Runs every workload under every policy live, writes the rows into `--out` and prints
/// them.
pub fn run_live(spec: &LiveSpec) -> Result<()> {
    let rows = spec.run(&std::env::current_exe()?)?;
    let mut out = csv::Writer::from_writer(std::io::stdout().lock());
    for r in &rows {
        out.serialize(r)?;
    }
    out.flush()?;
    Ok(())
}
