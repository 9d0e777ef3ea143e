//! On-demand prices from a file, for `frugal cluster ec2` (the AWS Pricing API is not part
//! of EC2's, so prices come from the region's price list or a table of one's own):
//!
//! - a CSV with the header `instance_type,price_per_hour` (dollars per hour);
//! - the AWS price-list offer file of the region (`.json`, as published at
//!   `https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.json`):
//!   the hourly on-demand price of each instance type for Linux, shared tenancy, no
//!   pre-installed software, capacity status `Used`.

use std::collections::BTreeMap;

use serde_json::Value;

/// Hourly on-demand prices by instance type, from `text` (a CSV or a price-list JSON; the
/// kind is told by its first character). `name` prefixes errors.
///
/// # Errors
/// A message naming the file, and the line and field (CSV) or the product (JSON), of a
/// malformed entry; a type priced twice.
pub fn on_demand_prices(text: &str, name: &str) -> Result<BTreeMap<String, f64>, String> {
    if text.trim_start().starts_with('{') {
        price_list(text, name)
    } else {
        csv_prices(text, name)
    }
}

fn csv_prices(text: &str, name: &str) -> Result<BTreeMap<String, f64>, String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Row {
        instance_type: String,
        price_per_hour: f64,
    }
    let mut out = BTreeMap::new();
    let mut r = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    for (k, row) in r.deserialize::<Row>().enumerate() {
        let line = k + 2;
        let row = row.map_err(|e| format!("{name}: line {line}: {e}"))?;
        if !(row.price_per_hour.is_finite() && row.price_per_hour >= 0.0) {
            return Err(format!(
                "{name}: line {line}: price_per_hour = {}: must be finite and ≥ 0",
                row.price_per_hour
            ));
        }
        if out
            .insert(row.instance_type.clone(), row.price_per_hour)
            .is_some()
        {
            return Err(format!(
                "{name}: line {line}: instance_type {} is priced twice",
                row.instance_type
            ));
        }
    }
    Ok(out)
}

fn price_list(text: &str, name: &str) -> Result<BTreeMap<String, f64>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("{name}: {e}"))?;
    let products = v
        .get("products")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{name}: no `products` object: not an AWS price-list offer file"))?;
    let terms = v
        .pointer("/terms/OnDemand")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{name}: no `terms.OnDemand` object"))?;
    let mut out = BTreeMap::new();
    for (sku, p) in products {
        let attr = |k: &str| {
            p.pointer(&format!("/attributes/{k}"))
                .and_then(Value::as_str)
        };
        let wanted = attr("operatingSystem") == Some("Linux")
            && attr("tenancy") == Some("Shared")
            && attr("preInstalledSw") == Some("NA")
            && attr("capacitystatus") == Some("Used");
        let Some(instance_type) = attr("instanceType").filter(|_| wanted) else {
            continue;
        };
        let price = terms
            .get(sku)
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|offers| offers.values())
            .filter_map(|o| o.get("priceDimensions").and_then(Value::as_object))
            .flat_map(|d| d.values())
            .find(|d| d.get("unit").and_then(Value::as_str) == Some("Hrs"))
            .and_then(|d| d.pointer("/pricePerUnit/USD"))
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{name}: product {sku} ({instance_type}): no hourly USD price"))?
            .parse::<f64>()
            .map_err(|e| format!("{name}: product {sku} ({instance_type}): {e}"))?;
        if out.insert(instance_type.to_string(), price).is_some() {
            return Err(format!(
                "{name}: {instance_type}: two Linux shared on-demand products"
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_gives_hourly_prices_and_bad_rows_name_their_line() {
        let p = on_demand_prices(
            "instance_type,price_per_hour\nm5.xlarge,0.192\nc5.2xlarge, 0.34\n",
            "p.csv",
        )
        .unwrap();
        assert_eq!(p["m5.xlarge"], 0.192);
        assert_eq!(p["c5.2xlarge"], 0.34);
        let e =
            on_demand_prices("instance_type,price_per_hour\nm5.xlarge,-1\n", "p.csv").unwrap_err();
        assert!(e.starts_with("p.csv: line 2: price_per_hour"), "{e}");
        let e = on_demand_prices("instance_type,price_per_hour\na,1\na,2\n", "p.csv").unwrap_err();
        assert!(e.contains("line 3") && e.contains("twice"), "{e}");
        let e = on_demand_prices("type,price\na,1\n", "p.csv").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn the_price_list_gives_the_linux_shared_on_demand_hourly_price() {
        let text = r#"{
          "products": {
            "SKU1": {"attributes": {"instanceType": "m5.xlarge", "operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used"}},
            "SKU2": {"attributes": {"instanceType": "m5.xlarge", "operatingSystem": "Windows", "tenancy": "Shared", "preInstalledSw": "NA", "capacitystatus": "Used"}},
            "SKU3": {"attributes": {"instanceType": "m5.xlarge", "operatingSystem": "Linux", "tenancy": "Dedicated", "preInstalledSw": "NA", "capacitystatus": "Used"}}
          },
          "terms": {"OnDemand": {
            "SKU1": {"SKU1.JRTCKXETXF": {"priceDimensions": {"SKU1.JRTCKXETXF.6YS6EN2CT7": {"unit": "Hrs", "pricePerUnit": {"USD": "0.1920000000"}}}}},
            "SKU2": {"SKU2.JRTCKXETXF": {"priceDimensions": {"x": {"unit": "Hrs", "pricePerUnit": {"USD": "0.3760000000"}}}}}
          }}
        }"#;
        let p = on_demand_prices(text, "index.json").unwrap();
        assert_eq!(p.len(), 1);
        assert!((p["m5.xlarge"] - 0.192).abs() < 1e-12);
        assert!(
            on_demand_prices("{\"x\": 1}", "i.json")
                .unwrap_err()
                .contains("products")
        );
    }
}
