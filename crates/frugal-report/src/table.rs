//! Tidy tables: one row per run, every value kept as the CSV text the system wrote, so a
//! table read back from `results/*.csv` is the table that was written.

use std::collections::BTreeMap;
use std::path::Path;

use frugal_sim::stats::Estimate;

/// A header and rows of cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<String>>,
}

/// A row filter: column → the value it must have. A cell matches a value with the same
/// text, or when both are numbers, with the same number (`8` matches `8.0`).
pub type Filter = BTreeMap<String, String>;

/// Reads a [`Filter`] whose values are any TOML scalars (`{ policy = "up", first_zones = 8,
/// ratio = 1.2, bill = true }`), each kept as its text.
///
/// # Errors
/// A value that is a table or an array (named by its key).
pub fn filter_from_scalars<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Filter, D::Error> {
    use serde::Deserialize;
    use serde::de::Error;
    let raw = BTreeMap::<String, toml::Value>::deserialize(d)?;
    raw.into_iter()
        .map(|(k, v)| {
            let text = match v {
                toml::Value::String(s) => s,
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => f.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(D::Error::custom(format!(
                        "where.{k}: {} is not a string, number or boolean",
                        other.type_str()
                    )));
                }
            };
            Ok((k, text))
        })
        .collect()
}

/// Whether a cell holds a filter's value: the same text, or the same number.
pub(crate) fn holds(cell: &str, value: &str) -> bool {
    cell == value
        || matches!(
            (cell.parse::<f64>(), value.parse::<f64>()),
            (Ok(a), Ok(b)) if a == b
        )
}

impl Table {
    /// Reads CSV text with a header line.
    ///
    /// # Errors
    /// Malformed CSV (rows of unequal length, invalid UTF-8).
    pub fn from_csv(bytes: &[u8]) -> Result<Table, csv::Error> {
        let mut r = csv::Reader::from_reader(bytes);
        let header = r.headers()?.iter().map(str::to_string).collect();
        let rows = r
            .records()
            .map(|rec| rec.map(|r| r.iter().map(str::to_string).collect()))
            .collect::<Result<_, _>>()?;
        Ok(Table { header, rows })
    }

    /// Appends `other`'s rows with `labels` as leading columns, except the labels the rows
    /// already carry. The first table appended fixes the header; later ones must have the
    /// same columns.
    ///
    /// # Errors
    /// A table whose columns differ from the first one's.
    pub fn append(&mut self, labels: &[(String, String)], other: Table) -> Result<(), String> {
        // A label the rows already carry (the same name, `-` read as `_`: a swept
        // `--chunk-mib` and the rows' `chunk_mib`) is not repeated.
        let norm = |s: &str| s.replace('-', "_");
        let labels: Vec<&(String, String)> = labels
            .iter()
            .filter(|(k, _)| !other.header.iter().any(|h| norm(h) == norm(k)))
            .collect();
        let header: Vec<String> = labels
            .iter()
            .map(|(k, _)| k.clone())
            .chain(other.header)
            .collect();
        if self.header.is_empty() {
            self.header = header;
        } else if self.header != header {
            return Err(format!(
                "columns differ between configurations: {:?} and {:?}",
                self.header, header
            ));
        }
        for row in other.rows {
            self.rows
                .push(labels.iter().map(|(_, v)| v.clone()).chain(row).collect());
        }
        Ok(())
    }

    /// The table as CSV text.
    ///
    /// # Errors
    /// A CSV writer error.
    pub fn to_csv(&self) -> Result<String, csv::Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&self.header)?;
        for row in &self.rows {
            w.write_record(row)?;
        }
        let bytes = w.into_inner().map_err(|e| e.into_error())?;
        Ok(String::from_utf8(bytes).expect("the cells are UTF-8"))
    }

    /// Writes the table as CSV.
    ///
    /// # Errors
    /// I/O errors.
    pub fn write_csv(&self, path: &Path) -> Result<(), csv::Error> {
        let mut w = csv::Writer::from_path(path)?;
        w.write_record(&self.header)?;
        for row in &self.rows {
            w.write_record(row)?;
        }
        w.flush()?;
        Ok(())
    }

    /// The index of `column`.
    ///
    /// # Errors
    /// A message listing the columns there are.
    pub fn column(&self, column: &str) -> Result<usize, String> {
        self.header
            .iter()
            .position(|h| h == column)
            .ok_or_else(|| format!("no column {column:?} (columns: {})", self.header.join(", ")))
    }

    /// The indices of the rows that match every entry of `filter`.
    ///
    /// # Errors
    /// A filter on a column that does not exist.
    pub fn matching(&self, filter: &Filter) -> Result<Vec<usize>, String> {
        let cols = filter
            .iter()
            .map(|(c, v)| Ok((self.column(c)?, v)))
            .collect::<Result<Vec<_>, String>>()?;
        Ok((0..self.rows.len())
            .filter(|&k| cols.iter().all(|(i, v)| holds(&self.rows[k][*i], v)))
            .collect())
    }

    /// The rows that match every entry of `filter`.
    ///
    /// # Errors
    /// A filter on a column that does not exist.
    pub fn select(&self, filter: &Filter) -> Result<Vec<&[String]>, String> {
        Ok(self
            .matching(filter)?
            .into_iter()
            .map(|k| self.rows[k].as_slice())
            .collect())
    }

    /// The distinct values of `column` among `rows`, in first-seen order.
    ///
    /// # Errors
    /// An unknown column.
    pub fn distinct(&self, rows: &[&[String]], column: &str) -> Result<Vec<String>, String> {
        let i = self.column(column)?;
        let mut seen: Vec<String> = Vec::new();
        for r in rows {
            if !seen.contains(&r[i]) {
                seen.push(r[i].clone());
            }
        }
        Ok(seen)
    }

    /// The median of `metric` over `rows` (the mean of the middle two for an even count),
    /// cells as in [`Table::estimate`].
    ///
    /// # Errors
    /// As [`Table::estimate`].
    pub fn median(&self, rows: &[&[String]], metric: &str) -> Result<Option<f64>, String> {
        let mut v = self.values(rows, metric)?;
        v.sort_by(f64::total_cmp);
        let n = v.len();
        Ok(match n {
            0 => None,
            _ if n % 2 == 1 => Some(v[n / 2]),
            _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
        })
    }

    /// Mean and 95 % confidence interval of `metric` over `rows`; cells that are empty or
    /// not finite numbers (a run with no value) are left out. `None` if none is left.
    ///
    /// # Errors
    /// An unknown column, or a cell that is not a number.
    pub fn estimate(&self, rows: &[&[String]], metric: &str) -> Result<Option<Estimate>, String> {
        Ok(Estimate::of(&self.values(rows, metric)?))
    }

    /// How many of `rows` have a finite number in `metric` (the runs behind an estimate).
    ///
    /// # Errors
    /// An unknown column or a non-numeric cell.
    pub fn count(&self, rows: &[&[String]], metric: &str) -> Result<usize, String> {
        Ok(self.values(rows, metric)?.len())
    }

    /// The finite numbers of `metric` among `rows`.
    fn values(&self, rows: &[&[String]], metric: &str) -> Result<Vec<f64>, String> {
        let i = self.column(metric)?;
        let mut values = Vec::with_capacity(rows.len());
        for r in rows {
            let cell = r[i].trim();
            if cell.is_empty() {
                continue;
            }
            let v: f64 = cell
                .parse()
                .map_err(|_| format!("{metric}: {cell:?} is not a number"))?;
            if v.is_finite() {
                values.push(v);
            }
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_prefixes_labels_and_estimates_skip_empty_cells() {
        let mut t = Table::default();
        let part = Table::from_csv(b"policy,cost_usd\ngio,1\nff,\nff,3\n").unwrap();
        t.append(&[("pricing".into(), "1".into())], part.clone())
            .unwrap();
        t.append(&[("pricing".into(), "2".into())], part).unwrap();
        assert_eq!(t.header, ["pricing", "policy", "cost_usd"]);
        assert_eq!(t.rows.len(), 6);
        let ff = t
            .select(&Filter::from([("policy".into(), "ff".into())]))
            .unwrap();
        let e = t.estimate(&ff, "cost_usd").unwrap().unwrap();
        assert_eq!(e.mean, 3.0);
        assert_eq!(e.ci95, Some(0.0));
        assert!(
            t.estimate(&ff, "nope")
                .unwrap_err()
                .contains("columns: pricing")
        );
        let other = Table::from_csv(b"x\n1\n").unwrap();
        assert!(t.append(&[], other).is_err());
    }

    #[test]
    fn a_label_the_rows_carry_is_not_repeated() {
        let mut t = Table::default();
        let part = Table::from_csv(b"dc,chunk_mib,cost\nuni,64,1\n").unwrap();
        let labels = [
            ("case".to_string(), "a".to_string()),
            ("dc".to_string(), "uni".to_string()),
            ("chunk-mib".to_string(), "64".to_string()),
        ];
        t.append(&labels, part).unwrap();
        assert_eq!(t.header, ["case", "dc", "chunk_mib", "cost"]);
        assert_eq!(t.rows[0], ["a", "uni", "64", "1"]);
    }
}
