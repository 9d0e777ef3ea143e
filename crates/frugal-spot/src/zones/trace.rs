//! Zone traces in the SkyNomad artifact's format (spec §6), as shipped in
//! `data/skynomad/` (Apache-2.0, see its NOTICE).
//!
//! A file is `<zone>_<device>/full.json`, one JSON object `{"metadata": {"gap_seconds": g,
//! "price_info": {"price": s, "on_demand_price": o, …}, …}, "data": [v, …], "prices": [p,
//! …]}`. **`data` is in the preempted convention: 1 = no spot in the tick, 0 = spot**
//! (the opposite of the public Can't Be Late files [`crate::trace`] reads). `prices` (per
//! tick, $/h), when present, is the spot price billed; otherwise `price_info.price` holds
//! for every tick. `price_info.on_demand_price` is required. The zone is named by the
//! folder, up to its first `_` (`us-east-1c_v100_1` → `us-east-1c`).

use std::path::Path;

use serde_json::Value;

use crate::SpotError;
use crate::zones::model::Zone;

/// One zone's trace: the zone over the whole file and its tick length.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneTrace {
    /// The zone, from tick 0 of the file.
    pub zone: Zone,
    /// g: seconds per tick.
    pub gap_s: f64,
}

impl ZoneTrace {
    /// Reads `<folder>/full.json` (or a file named directly; its folder names the zone).
    ///
    /// # Errors
    /// [`SpotError::Input`] naming the file and the field: unreadable, not JSON, no
    /// positive finite `metadata.gap_seconds`, a `data` entry other than 0 or 1, no
    /// `price_info.on_demand_price`, a price that is negative or not a finite number,
    /// `prices` of another length than `data`.
    pub fn read(path: &Path) -> Result<ZoneTrace, SpotError> {
        let file = if path.is_dir() {
            path.join("full.json")
        } else {
            path.to_path_buf()
        };
        let text = std::fs::read_to_string(&file)
            .map_err(|e| SpotError::Input(format!("{}: {e}", file.display())))?;
        let folder = file
            .parent()
            .and_then(|p| p.file_name())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = folder.split('_').next().unwrap_or_default().to_string();
        ZoneTrace::parse(&name, &text)
            .map_err(|m| SpotError::Input(format!("{}: {m}", file.display())))
    }

    /// Parses the text of a trace of zone `name`; errors name the field.
    ///
    /// # Errors
    /// As [`ZoneTrace::read`].
    pub fn parse(name: &str, text: &str) -> Result<ZoneTrace, String> {
        if name.is_empty() {
            return Err("the folder must name the zone (<zone>_<device>/full.json)".into());
        }
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let meta = v.get("metadata").ok_or("metadata: missing")?;
        let price = |x: Option<&Value>, field: &str| -> Result<f64, String> {
            let x = x.ok_or_else(|| format!("{field}: missing"))?;
            x.as_f64()
                .filter(|p| p.is_finite() && *p >= 0.0)
                .ok_or_else(|| format!("{field}: {x} is not a price ≥ 0 in $/h"))
        };
        let gap = meta
            .get("gap_seconds")
            .ok_or("metadata.gap_seconds: missing")?;
        let gap_s = gap
            .as_f64()
            .filter(|g| g.is_finite() && *g > 0.0)
            .ok_or_else(|| format!("metadata.gap_seconds: {gap} must be a positive number"))?;
        let info = meta
            .get("price_info")
            .ok_or("metadata.price_info: missing")?;
        let on_demand = price(
            info.get("on_demand_price"),
            "metadata.price_info.on_demand_price",
        )?;
        let data = v
            .get("data")
            .and_then(Value::as_array)
            .ok_or("data: missing or not a list")?;
        let available = data
            .iter()
            .enumerate()
            .map(|(i, x)| match x.as_u64() {
                Some(0) => Ok(true),
                Some(1) => Ok(false),
                _ => Err(format!(
                    "data[{i}]: {x} is neither 1 (preempted) nor 0 (available)"
                )),
            })
            .collect::<Result<Vec<bool>, String>>()?;
        let spot_per_h = match v.get("prices") {
            None | Some(Value::Null) => {
                let p = price(info.get("price"), "metadata.price_info.price")?;
                vec![p; available.len()]
            }
            Some(Value::Array(ps)) => {
                if ps.len() != available.len() {
                    return Err(format!(
                        "prices: {} entries for {} ticks of data",
                        ps.len(),
                        available.len()
                    ));
                }
                ps.iter()
                    .enumerate()
                    .map(|(i, x)| price(Some(x), &format!("prices[{i}]")))
                    .collect::<Result<Vec<f64>, String>>()?
            }
            Some(other) => return Err(format!("prices: {other} is not a list")),
        };
        Ok(ZoneTrace {
            zone: Zone {
                name: name.to_string(),
                available,
                spot_per_h,
                on_demand_per_h: on_demand,
            },
            gap_s,
        })
    }

    /// The zone from tick `start` on (empty past the end).
    pub fn window(&self, start: usize) -> Zone {
        let from = start.min(self.zone.available.len());
        Zone {
            name: self.zone.name.clone(),
            available: self.zone.available[from..].to_vec(),
            spot_per_h: self.zone.spot_per_h[from..].to_vec(),
            on_demand_per_h: self.zone.on_demand_per_h,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preempted_convention_and_the_price_rules() {
        let t = ZoneTrace::parse(
            "us-east-1c",
            r#"{"metadata": {"gap_seconds": 195, "price_info": {"price": 0.9, "on_demand_price": 3.06}},
                "data": [1, 0, 0], "prices": [1.2, 1.1, 1.0]}"#,
        )
        .unwrap();
        assert_eq!(t.zone.available, vec![false, true, true]);
        assert_eq!(t.zone.spot_per_h, vec![1.2, 1.1, 1.0]);
        assert_eq!(t.zone.on_demand_per_h, 3.06);
        assert_eq!(t.window(1).available, vec![true, true]);
        let flat = ZoneTrace::parse(
            "z",
            r#"{"metadata": {"gap_seconds": 600, "price_info": {"price": 18.5, "on_demand_price": 82}},
                "data": [0, 1]}"#,
        )
        .unwrap();
        assert_eq!(flat.zone.spot_per_h, vec![18.5, 18.5]);
        let bad = |text: &str| ZoneTrace::parse("z", text).unwrap_err();
        assert!(bad("[").contains("not JSON"));
        assert!(bad(r#"{"metadata": {"gap_seconds": -5}}"#).contains("gap_seconds"));
        let base =
            r#""metadata": {"gap_seconds": 60, "price_info": {"price": 1, "on_demand_price": 3}}"#;
        assert!(bad(&format!("{{{base}, \"data\": [0, 2]}}")).contains("data[1]"));
        assert!(bad(&format!("{{{base}, \"data\": [0], \"prices\": [-1]}}")).contains("prices[0]"));
        assert!(bad(&format!("{{{base}, \"data\": [0], \"prices\": [1, 2]}}")).contains("prices:"));
        assert!(
            bad(r#"{"metadata": {"gap_seconds": 60, "price_info": {"price": 1}}, "data": [0]}"#)
                .contains("on_demand_price")
        );
    }
}
