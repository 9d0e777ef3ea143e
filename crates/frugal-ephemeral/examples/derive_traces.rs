//! Writes `data/ephemeral/{hosts.csv,utilisation.csv.gz,manifest.csv}` from the Google
//! `GCD_VMs.tar.gz` set by the recipe of `frugal_ephemeral::trace`:
//! `cargo run -p frugal-ephemeral --example derive_traces -- GCD_VMs.tar.gz data/ephemeral`.

use std::io::Write;
use std::path::PathBuf;

use flate2::{Compression, GzBuilder};
use frugal_ephemeral::{hosts, trace};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [gcd, out] = args.as_slice() else {
        return Err("usage: derive_traces GCD_VMs.tar.gz OUT_DIR".into());
    };
    let out = PathBuf::from(out);
    let (samples, manifest) = trace::derive_from_gcd(&PathBuf::from(gcd))?;
    std::fs::write(out.join("hosts.csv"), hosts::to_csv(&hosts::generate()))?;
    let mut m = csv::Writer::from_path(out.join("manifest.csv"))?;
    for row in &manifest {
        m.serialize(row)?;
    }
    m.flush()?;
    let mut s = csv::Writer::from_writer(Vec::new());
    for row in &samples {
        s.serialize(row)?;
    }
    let mut gz = GzBuilder::new().write(
        std::fs::File::create(out.join("utilisation.csv.gz"))?,
        Compression::best(),
    );
    gz.write_all(&s.into_inner()?)?;
    gz.finish()?;
    Ok(())
}
