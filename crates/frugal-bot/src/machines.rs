//! Machine files: the PMs and VM types of a bag-of-tasks experiment in TOML
//! (`machines/paper003.toml` is the paper's set, identical to [`Setup::paper003`]).
//!
//! ```toml
//! [[pm]]                  # any number; PMs are free to use and draw power
//! name = "type-1"
//! count = 5               # PMs of this type (× the scale factor)
//! cores = 8
//! ghz = 2.378             # per core, a whole number of MHz
//! idle_watts = 70         # Eq. 10's linear power model
//! peak_watts = 110
//!
//! [[vm]]                  # at least one; rented by the started hour
//! name = "c3.large"
//! cores = 2
//! ghz = 2.7
//! usd_per_hour = 0.105
//! ```

use serde::Deserialize;

use crate::model::{MachineType, Setup};

/// A machine file that cannot be used: names the file and the entry.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{file}: {message}")]
pub struct MachinesError {
    /// The file.
    pub file: String,
    /// What is wrong, naming the entry and field.
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    pm: Vec<Pm>,
    #[serde(default)]
    vm: Vec<Vm>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Pm {
    name: String,
    count: u32,
    cores: u32,
    ghz: f64,
    idle_watts: f64,
    peak_watts: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Vm {
    name: String,
    cores: u32,
    ghz: f64,
    usd_per_hour: f64,
}

/// Most PMs in all (after scaling) and most cores of one machine.
const MAX_COUNT: u64 = 1_000_000;
const MAX_CORES: u32 = 4096;

impl Setup {
    /// Reads a machine file; every PM count is multiplied by `scale`.
    ///
    /// # Errors
    /// [`MachinesError`] for TOML that does not parse or has unknown keys, a name used
    /// twice, cores outside 1..=4096, a clock that is not a whole number of MHz in
    /// 1 MHz..=100 GHz, watts outside 0..=100,000 or peak below idle, a price outside
    /// (0, 10,000] $/h, more than 1,000,000 PMs in all, or no VM type.
    pub fn from_toml(text: &str, file: &str, scale: u32) -> Result<Setup, MachinesError> {
        let err = |message: String| MachinesError {
            file: file.to_string(),
            message,
        };
        let parsed: File =
            toml::from_str(text).map_err(|e| err(e.to_string().trim_end().to_string()))?;
        if parsed.vm.is_empty() {
            return Err(err("no [[vm]] entry: at least one VM type is needed".into()));
        }
        let mut names = std::collections::HashSet::new();
        let mut setup = Setup {
            pms: vec![],
            vm_types: vec![],
        };
        for (kind, name, cores, ghz) in (parsed.pm.iter().map(|p| ("pm", &p.name, p.cores, p.ghz)))
            .chain(parsed.vm.iter().map(|v| ("vm", &v.name, v.cores, v.ghz)))
        {
            let at = format!("[[{kind}]] {name:?}");
            if !names.insert(name.clone()) {
                return Err(err(format!("{at}: the name is used twice")));
            }
            if !(1..=MAX_CORES).contains(&cores) {
                return Err(err(format!(
                    "{at}: cores = {cores} is outside 1..={MAX_CORES}"
                )));
            }
            mhz(ghz).ok_or_else(|| {
                err(format!(
                    "{at}: ghz = {ghz} is not a whole number of MHz in 0.001..=100"
                ))
            })?;
        }
        for p in &parsed.pm {
            let at = format!("[[pm]] {:?}", p.name);
            let count = u64::from(p.count) * u64::from(scale);
            if count + setup.pms.len() as u64 > MAX_COUNT {
                return Err(err(format!(
                    "{at}: count × scale = {count} takes the PMs beyond {MAX_COUNT}"
                )));
            }
            let watts_ok = |w: f64| (0.0..=100_000.0).contains(&w);
            if !watts_ok(p.idle_watts) || !watts_ok(p.peak_watts) || p.peak_watts < p.idle_watts {
                return Err(err(format!(
                    "{at}: idle_watts = {} and peak_watts = {} must lie in 0..=100000 with peak ≥ idle",
                    p.idle_watts, p.peak_watts
                )));
            }
            let t = MachineType {
                name: p.name.clone(),
                cores: p.cores,
                mhz: mhz(p.ghz).unwrap_or_default(),
                price_per_hour: None,
                watts: (p.idle_watts, p.peak_watts),
            };
            setup.pms.extend(std::iter::repeat_n(t, count as usize));
        }
        for v in &parsed.vm {
            if !(v.usd_per_hour > 0.0 && v.usd_per_hour <= 10_000.0) {
                return Err(err(format!(
                    "[[vm]] {:?}: usd_per_hour = {} is outside (0, 10000]",
                    v.name, v.usd_per_hour
                )));
            }
            setup.vm_types.push(MachineType {
                name: v.name.clone(),
                cores: v.cores,
                mhz: mhz(v.ghz).unwrap_or_default(),
                price_per_hour: Some(v.usd_per_hour),
                watts: (0.0, 0.0),
            });
        }
        Ok(setup)
    }
}

/// `ghz` as whole MHz, if it is one (to a billionth) and within 1 MHz..=100 GHz.
fn mhz(ghz: f64) -> Option<u64> {
    let m = ghz * 1000.0;
    let r = m.round();
    ((1.0..=100_000.0).contains(&r) && (m - r).abs() < 1e-6).then_some(r as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_file_is_table_3() {
        let s = Setup::paper003(2);
        assert_eq!(s.pms.len(), 30);
        assert_eq!(s.pms.iter().map(|p| p.cores).sum::<u32>(), 200);
        let ghz: u64 = s.pms.iter().map(|p| p.capacity_mhz()).sum();
        assert_eq!(ghz, 2 * 232_640);
        assert_eq!(
            (s.pms[19].name.as_str(), s.pms[20].name.as_str()),
            ("type-2", "type-3")
        );
        assert_eq!(
            (
                s.pms[0].watts,
                s.vm_types[0].mhz,
                s.vm_types[0].price_per_hour
            ),
            ((70.0, 110.0), 2700, Some(0.105))
        );
    }

    #[test]
    fn bad_files_name_the_entry() {
        let vm = "[[vm]]\nname = \"v\"\ncores = 2\nghz = 2.7\nusd_per_hour = 0.1\n";
        let cases = [
            ("", "no [[vm]] entry"),
            (
                &format!("{vm}[[vm]]\nname = \"v\"\ncores = 2\nghz = 2.7\nusd_per_hour = 1\n"),
                "\"v\": the name is used twice",
            ),
            (
                &vm.replace("2.7", "2.7001"),
                "ghz = 2.7001 is not a whole number of MHz",
            ),
            (
                &vm.replace("cores = 2", "cores = 0"),
                "cores = 0 is outside",
            ),
            (&vm.replace("0.1", "-1"), "usd_per_hour = -1 is outside"),
            (&vm.replace("cores", "cpus"), "unknown field `cpus`"),
            (
                &format!(
                    "{vm}[[pm]]\nname = \"p\"\ncount = 1\ncores = 4\nghz = 2\nidle_watts = 90\npeak_watts = 80\n"
                ),
                "peak ≥ idle",
            ),
        ];
        for (text, want) in cases {
            let e = Setup::from_toml(text, "m.toml", 1).unwrap_err().to_string();
            assert!(e.starts_with("m.toml: ") && e.contains(want), "{e}");
        }
    }

    proptest::proptest! {
        /// Any text — arbitrary, or the shipped file with one number replaced — is a
        /// setup or an error naming the file; never a panic.
        #[test]
        fn any_text_parses_or_is_refused(text in "[\\[\\]a-z_=\".0-9\n -]{0,200}", n in "-?[0-9]{0,12}(\\.[0-9]{0,12})?", which in 0usize..12) {
            for t in [text.clone(), {
                let mut nums = 0;
                crate::model::PAPER003.split_inclusive('\n').map(|l| match l.split_once(" = ") {
                    Some((k, v)) if v.trim().parse::<f64>().is_ok() => {
                        nums += 1;
                        if nums - 1 == which { format!("{k} = {n}\n") } else { l.to_string() }
                    }
                    _ => l.to_string(),
                }).collect::<String>()
            }] {
                match Setup::from_toml(&t, "m.toml", 3) {
                    Ok(s) => proptest::prop_assert!(!s.vm_types.is_empty()),
                    Err(e) => proptest::prop_assert!(e.to_string().starts_with("m.toml: ")),
                }
            }
        }
    }
}
