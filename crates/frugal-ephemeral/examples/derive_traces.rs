//! Writes `data/ephemeral/{hosts.csv,utilisation.csv.gz,manifest.csv}` from the Google
//! `GCD_VMs.tar.gz` set, and `utilisation-planetlab.csv.gz` with `manifest-planetlab.csv`
//! from `planetlab_20110303.tar.gz`, by the recipes of `frugal_ephemeral::trace`:
//! `cargo run -p frugal-ephemeral --example derive_traces -- GCD_VMs.tar.gz
//! planetlab_20110303.tar.gz data/ephemeral`.

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::{Compression, GzBuilder};
use frugal_ephemeral::trace::{ManifestRow, Sample};
use frugal_ephemeral::{hosts, trace};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [gcd, planetlab, out] = args.as_slice() else {
        return Err("usage: derive_traces GCD_VMs.tar.gz planetlab_20110303.tar.gz OUT_DIR".into());
    };
    let out = PathBuf::from(out);
    let (samples, manifest) = trace::derive_from_gcd(&PathBuf::from(gcd))?;
    std::fs::write(out.join("hosts.csv"), hosts::to_csv(&hosts::generate()))?;
    write(&out, "", &samples, &manifest)?;
    let (stressed, manifest) = trace::derive_planetlab(&PathBuf::from(planetlab), &samples)?;
    write(&out, "-planetlab", &stressed, &manifest)
}

/// Writes `utilisation{suffix}.csv.gz` and `manifest{suffix}.csv` into `out`.
fn write(out: &Path, suffix: &str, samples: &[Sample], manifest: &[ManifestRow]) -> Result<()> {
    let mut m = csv::Writer::from_path(out.join(format!("manifest{suffix}.csv")))?;
    for row in manifest {
        m.serialize(row)?;
    }
    m.flush()?;
    let mut s = csv::Writer::from_writer(Vec::new());
    for row in samples {
        s.serialize(row)?;
    }
    let mut gz = GzBuilder::new().write(
        std::fs::File::create(out.join(format!("utilisation{suffix}.csv.gz")))?,
        Compression::best(),
    );
    gz.write_all(&s.into_inner()?)?;
    gz.finish()?;
    Ok(())
}
