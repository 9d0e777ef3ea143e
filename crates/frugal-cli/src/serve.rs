//! `frugal serve`: the scheduler service, on the emulated backend or a real Spark
//! standalone cluster. Its flags are [`ServeSpec`]'s fields (derived on the spec in
//! `frugal-service`), over the configuration file `--config` names.

use frugal_core::spec::ConfigFile;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use frugal_service::ServeSpec;

/// Options of `frugal serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// A configuration file (TOML, one key per flag, e.g. `policy = "first-fit"`,
    /// `testbed = true`); a flag given on the command line wins over its key.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The service's settings.
    #[command(flatten)]
    pub spec: ServeSpec,
}

impl ServeArgs {
    /// The flags over the configuration file's keys.
    ///
    /// # Errors
    /// The file cannot be read or holds a key or value that is not a setting's.
    pub fn spec(&self) -> Result<ServeSpec> {
        match &self.config {
            Some(file) => {
                let base = ServeSpec::read(file).map_err(|m| crate::Usage(anyhow::anyhow!(m)))?;
                Ok(self.spec.over(&base))
            }
            None => Ok(self.spec.clone()),
        }
    }
}

/// Starts the service and serves until interrupted; an error (exit status 1) if the
/// scheduling loop ever stops.
pub fn run(a: &ServeArgs) -> Result<()> {
    frugal_service::raise_file_limit();
    let (cfg, policy) = a.spec()?.build(&frugal_agents::load_policy)?;
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(frugal_service::serve(cfg, policy))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::parsed;

    /// Every flag of `frugal serve`, each with a value that is not its default.
    const EVERY_FLAG: &str = "serve --bind 0.0.0.0:9000 --metrics-bind 127.0.0.1:9001 \
        --db s.db --database-url sqlite:x.db --durability power --token-file t \
        --apps-dir apps --backend spark-standalone --python py --spark-dir sd \
        --spark-port 1 --spark-ui-port 2 --provisioner netns --netns-prefix ab \
        --netns-subnet 10.1.2.0 --testbed --testbed-core-share 0.5 \
        --testbed-mib-per-gib 512 --testbed-in-site-mbit 100 --testbed-cross-site-mbit 50 \
        --hosts-dir h --ec2-cluster-id c --ec2-region r --ec2-endpoint http://e \
        --ec2-image-id ami-1 --ec2-launch-template lt-1 --ec2-subnet s \
        --ec2-security-groups g1,g2 --ec2-instance-profile p --ec2-key-name k \
        --ec2-tag a=b --ec2-tag c=d --ec2-power-off stop --ec2-service-url http://s \
        --ec2-user-data u --ec2-frugal-path /f --agent-token-file at --host-timeout 3 \
        --boot-timeout 4 --cluster large-hybrid --pricing 2 --policy first-fit \
        --queue edf --admission-control --kind-penalty 0 --contention c.toml \
        --backfill none --budget-per-hour 25 --keep-alive paid-hour --speedup 2 \
        --max-connections 5 --header-timeout 6 --request-timeout 7 --max-queued 8 \
        --retention 9 --wal-limit-mib 10";

    /// The configuration file has one key per flag, named as the flag: every flag given
    /// writes the key of its name, and the file reads back as the flags' spec.
    #[test]
    fn the_configuration_file_has_a_key_per_flag() {
        let argv: Vec<&str> = EVERY_FLAG.split_whitespace().collect();
        let (a, _) = parsed::<ServeArgs>(&argv);
        let text = a.spec.to_toml();
        let table: toml::Table = toml::from_str(&text).unwrap();
        let mut keys: Vec<&str> = table.keys().map(String::as_str).collect();
        let cmd = <ServeArgs as clap::Args>::augment_args(clap::Command::new("serve"));
        let mut longs: Vec<&str> = cmd
            .get_arguments()
            .filter_map(|arg| arg.get_long())
            .filter(|l| *l != "config")
            .collect();
        keys.sort_unstable();
        longs.sort_unstable();
        assert_eq!(keys, longs);
        assert_eq!(toml::from_str::<ServeSpec>(&text).unwrap(), a.spec);
    }

    /// A flag wins over the file's key; the file's other keys stay; nothing given is the
    /// default spec.
    #[test]
    fn a_flag_wins_over_the_files_key() {
        let dir = std::env::temp_dir().join(format!("frugal-serve-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("serve.toml");
        std::fs::write(
            &file,
            "policy = \"gio\"\nbudget-per-hour = 25\ntestbed = true\n",
        )
        .unwrap();
        let f = file.to_str().unwrap();
        let (a, _) = parsed::<ServeArgs>(&["serve", "--config", f, "--policy", "first-fit"]);
        let s = a.spec().unwrap();
        assert_eq!(s.policy, Some("first-fit".parse().unwrap()));
        assert_eq!((s.budget_per_hour, s.testbed), (Some(25.0), true));
        assert_eq!(
            parsed::<ServeArgs>(&["serve"]).0.spec().unwrap(),
            ServeSpec::default()
        );
        std::fs::write(&file, "policy = \"gio\"\nbnid = \"0.0.0.0:1\"\n").unwrap();
        let err = format!("{:#}", a.spec().unwrap_err());
        assert!(
            err.contains(f) && err.contains("line 2") && err.contains("bnid"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
