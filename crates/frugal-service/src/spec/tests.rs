use super::*;
use frugal_core::spec::ConfigFile;

fn spec(text: &str) -> ServeSpec {
    toml::from_str(text).unwrap()
}

/// A set field of the top spec wins; the base's other fields stay; unset fields stay
/// unset (their defaults are taken where they are used).
#[test]
fn a_spec_over_another_takes_its_set_fields() {
    let base =
        spec("policy = \"gio\"\nbudget-per-hour = 25\ntestbed = true\nec2-tag = [\"a=b\"]\n");
    let top = spec("policy = \"first-fit\"\nkeep-alive = \"paid-hour\"\n");
    let s = top.over(&base);
    assert_eq!(s.policy, Some("first-fit".parse().unwrap()));
    assert_eq!(s.keep_alive, Some(KeepAlive::UntilPaidHourEnds));
    assert_eq!((s.budget_per_hour, s.testbed), (Some(25.0), true));
    assert_eq!(s.ec2_tags, vec!["a=b".to_string()]);
    assert_eq!(
        ServeSpec::default().over(&ServeSpec::default()),
        ServeSpec::default()
    );
    assert_eq!(base.over(&ServeSpec::default()), base);
}

/// Values in their text forms, as the flags take them: a number or `paid-hour` for the
/// keep-alive, a preset or a path for the cluster, the choices' names.
#[test]
fn values_read_in_the_flags_spelling() {
    let s = spec(
        "keep-alive = 60\ncluster = \"my/cluster.toml\"\nbackend = \"spark-standalone\"\n\
         provisioner = \"netns\"\nec2-power-off = \"stop\"\nbackfill = \"none\"\n",
    );
    assert_eq!(s.keep_alive, Some(KeepAlive::Seconds(60.0)));
    assert_eq!(
        s.cluster,
        Some(ClusterSource::File("my/cluster.toml".into()))
    );
    assert_eq!(
        (s.backend, s.provisioner, s.ec2_power_off, s.backfill),
        (
            Some(Backend::SparkStandalone),
            Some(Provisioner::Netns),
            Some(PowerOff::Stop),
            Some(Backfill::None)
        )
    );
    assert_eq!(spec(&s.to_toml()), s);
}

/// The rules on values name the field, for a flag and a file's key alike.
#[test]
fn check_names_the_field_at_fault() {
    let err = |t: &str| spec(t).check().unwrap_err().to_string();
    assert_eq!(
        err("host-timeout = 1"),
        "host-timeout: 1 is outside [2, 3600]"
    );
    assert_eq!(
        err("kind-penalty = 101"),
        "kind-penalty: 101 is outside [0, 100]"
    );
    assert_eq!(
        err("testbed-core-share = 0.5"),
        "testbed-core-share: applies to testbed only"
    );
    assert_eq!(
        err("ec2-tag = [\"novalue\"]"),
        "ec2-tag: \"novalue\": expected KEY=VALUE"
    );
    assert!(
        spec("testbed = true\ntestbed-core-share = 0.5")
            .check()
            .is_ok()
    );
    let unknown = toml::from_str::<ServeSpec>("bnid = 1")
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("bnid"), "{unknown}");
}

/// A setting the chosen backend cannot use is refused naming it, before any file is
/// written.
#[test]
fn settings_the_backend_cannot_use_are_refused_by_name() {
    let refused = |t: &str| {
        let e = spec(t).reject_settings_that_cannot_apply().unwrap_err();
        e.named(SpecError::flag)
    };
    assert!(refused("hosts-dir = \"h\"").starts_with("--hosts-dir: cannot apply"));
    assert!(
        refused("backend = \"spark-standalone\"\nspeedup = 2")
            .starts_with("--speedup: cannot apply")
    );
    assert!(
        refused("provisioner = \"loopback\"\nspark-port = 1")
            .contains("applies to --backend spark-standalone only")
    );
    assert!(
        spec("backend = \"spark-standalone\"\npython = \"py\"")
            .reject_settings_that_cannot_apply()
            .is_ok()
    );
}
