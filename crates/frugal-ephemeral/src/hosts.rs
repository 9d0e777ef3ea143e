//! The 42 hosts of the three data centres (paper 001 §IV-A, Table II) and their capacities.
//!
//! The paper gives only each data centre's totals and number of distinct configurations;
//! per-host capacities are not stated (spec A8). frugal's resolution, kept in the data file
//! `data/ephemeral/hosts.csv` so that real values can replace it: host `h` (numbered from 0
//! inside its data centre) has configuration `g = h mod G` of weight `w_g = 1 + g/(G − 1)`,
//! and gets the data centre's total × `w_g / Σ_h w_{g(h)}`. [`generate`] writes that file;
//! [`Hosts::embedded`] reads the shipped copy.

use frugal_core::spec::Choice;
use std::fmt;
use std::io::Read;

use serde::{Deserialize, Serialize};

use crate::DataError;

/// A data centre of paper 001 (Table II).
///
/// Named `pc-1`, `pc-2` and `university` in flags, experiment files and Python
/// ([`Choice`](frugal_core::spec::Choice)); written as Table II labels it, `PC-1`, `PC-2`
/// and `University` (tables, rows, JSON, the shipped `data/ephemeral/hosts.csv`: `Display`
/// and `Serialize`), so the results read as the paper's. A file may give either spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DataCentre {
    /// Private Company 1: 9 hosts, 6 configurations, 2,208 GFLOP/s, 1.2 TB.
    Pc1,
    /// Private Company 2: 27 hosts, 13 configurations, 3,552 GFLOP/s, 3.8 TB.
    Pc2,
    /// University: 6 hosts, 6 configurations, 1,363 GFLOP/s, 1.5 TB.
    University,
}

frugal_core::choice! {
    impl Choice (names only) for DataCentre {
        Pc1 = "pc-1": "Private Company 1: 9 hosts, 2,208 GFLOP/s, 1.2 TB",
        Pc2 = "pc-2": "Private Company 2: 27 hosts, 3,552 GFLOP/s, 3.8 TB",
        University = "university": "University: 6 hosts, 1,363 GFLOP/s, 1.5 TB",
    }
}

impl std::str::FromStr for DataCentre {
    type Err = String;

    fn from_str(s: &str) -> Result<DataCentre, String> {
        <DataCentre as frugal_core::spec::Choice>::from_name(s)
    }
}

impl Serialize for DataCentre {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

impl<'de> Deserialize<'de> for DataCentre {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DataCentre, D::Error> {
        let text: String = frugal_core::spec::from_text(d)?;
        <DataCentre as frugal_core::spec::Choice>::ALL
            .iter()
            .copied()
            .find(|dc| dc.label() == text)
            .map_or_else(|| text.parse().map_err(serde::de::Error::custom), Ok)
    }
}

impl DataCentre {
    /// Table II: (hosts, distinct configurations, total CPU in GFLOP/s, total RAM in TB).
    /// TB is read as TiB (spec A28), so RAM in GiB is `TB × 1024`.
    pub fn table2(self) -> (usize, usize, f64, f64) {
        match self {
            DataCentre::Pc1 => (9, 6, 2208.0, 1.2),
            DataCentre::Pc2 => (27, 13, 3552.0, 3.8),
            DataCentre::University => (6, 6, 1363.0, 1.5),
        }
    }

    /// The paper's label (`PC-1`, `PC-2`, `University`).
    pub fn label(self) -> &'static str {
        match self {
            DataCentre::Pc1 => "PC-1",
            DataCentre::Pc2 => "PC-2",
            DataCentre::University => "University",
        }
    }
}

impl fmt::Display for DataCentre {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One host: its capacity C(k, m) of Eq. 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Host {
    /// Index over all 42 hosts (the trace files' `host` column).
    pub host: usize,
    /// Its data centre.
    pub dc: DataCentre,
    /// Its configuration number inside the data centre (0 ..< G).
    pub configuration: usize,
    /// CPU capacity, GFLOP/s.
    pub cpu_gflops: f64,
    /// RAM capacity, GiB.
    pub ram_gib: f64,
}

/// Every host of the three data centres, in `host` order.
#[derive(Clone, Debug, PartialEq)]
pub struct Hosts(pub Vec<Host>);

const EMBEDDED: &str = include_str!("../../../data/ephemeral/hosts.csv");

impl Hosts {
    /// The shipped `data/ephemeral/hosts.csv`.
    pub fn embedded() -> Hosts {
        Hosts::parse(EMBEDDED.as_bytes(), "data/ephemeral/hosts.csv")
            .expect("the shipped hosts.csv is valid (tested)")
    }

    /// Reads a hosts file (`host,dc,configuration,cpu_gflops,ram_gib`).
    ///
    /// # Errors
    /// [`DataError`] naming `name` and the line for a malformed row, a capacity that is not
    /// a positive finite number, hosts out of order or not numbered 0, 1, 2, …, or a data
    /// centre whose host count differs from Table II.
    pub fn parse(reader: impl Read, name: &str) -> Result<Hosts, DataError> {
        let mut out = Vec::new();
        let mut rdr = csv::Reader::from_reader(reader);
        for (i, rec) in rdr.deserialize::<Host>().enumerate() {
            let line = i + 2;
            let h = rec.map_err(|e| DataError::new(name, line, e.to_string()))?;
            if h.host != out.len() {
                return Err(DataError::new(
                    name,
                    line,
                    format!("host {} where host {} was expected", h.host, out.len()),
                ));
            }
            for (field, v) in [("cpu_gflops", h.cpu_gflops), ("ram_gib", h.ram_gib)] {
                if !(v.is_finite() && v > 0.0) {
                    return Err(DataError::new(
                        name,
                        line,
                        format!("{field} = {v}: a capacity must be a positive number"),
                    ));
                }
            }
            out.push(h);
        }
        for &dc in DataCentre::ALL {
            let n = out.iter().filter(|h| h.dc == dc).count();
            if n != dc.table2().0 {
                return Err(DataError::new(
                    name,
                    0,
                    format!("{dc} has {n} hosts; Table II says {}", dc.table2().0),
                ));
            }
        }
        Ok(Hosts(out))
    }

    /// The hosts of one data centre, in `host` order.
    pub fn of(&self, dc: DataCentre) -> Vec<Host> {
        self.0.iter().filter(|h| h.dc == dc).cloned().collect()
    }
}

/// The capacities by frugal's rule (module docs), data centres in Table II's order.
pub fn generate() -> Hosts {
    let mut out = Vec::new();
    for &dc in DataCentre::ALL {
        let (n, g, cpu, ram_tb) = dc.table2();
        let weight = |h: usize| 1.0 + (h % g) as f64 / (g - 1) as f64;
        let total: f64 = (0..n).map(weight).sum();
        for h in 0..n {
            out.push(Host {
                host: out.len(),
                dc,
                configuration: h % g,
                cpu_gflops: cpu * weight(h) / total,
                ram_gib: ram_tb * 1024.0 * weight(h) / total,
            });
        }
    }
    Hosts(out)
}

/// `hosts` as the CSV text of `data/ephemeral/hosts.csv`.
pub fn to_csv(hosts: &Hosts) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for h in &hosts.0 {
        w.serialize(h).expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("CSV is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::DataCentre;
    use frugal_core::spec::Choice;

    /// Flags and files name a data centre `pc-1`; rows and the shipped hosts file write
    /// Table II's `PC-1`, which a file may also give.
    #[test]
    fn a_data_centre_is_read_by_name_or_label_and_written_as_its_label() {
        let read = |s: &str| serde_json::from_str::<DataCentre>(s);
        assert_eq!(read("\"pc-1\"").unwrap(), DataCentre::Pc1);
        assert_eq!(read("\"PC-1\"").unwrap(), DataCentre::Pc1);
        assert_eq!(read("\"University\"").unwrap(), DataCentre::University);
        let e = read("\"pc1\"").unwrap_err().to_string();
        assert!(
            e.contains("[possible values: pc-1, pc-2, university]"),
            "{e}"
        );
        assert_eq!(serde_json::to_string(&DataCentre::Pc2).unwrap(), "\"PC-2\"");
        assert_eq!(
            (DataCentre::Pc2.name(), DataCentre::Pc2.to_string()),
            ("pc-2", "PC-2".into())
        );
    }
}
