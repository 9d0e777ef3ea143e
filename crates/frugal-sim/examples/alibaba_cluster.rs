//! Prints `data/alibaba-gpu-2023/cluster.toml`, the cluster of the Alibaba GPU trace's
//! node list priced as equivalent cloud VMs (`frugal_sim::workload::alibaba_cluster`):
//! `cargo run -p frugal-sim --example alibaba_cluster > data/alibaba-gpu-2023/cluster.toml`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    print!("{}", frugal_sim::workload::alibaba_cluster_toml()?);
    Ok(())
}
