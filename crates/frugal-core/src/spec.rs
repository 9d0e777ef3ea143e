//! What the systems' typed specs share: an error that names the field at fault (each face
//! renders it its own way — the command line as `--field-name`, Python as the keyword, an
//! experiment file as the key) and a field that takes one value or a list.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, IntoDeserializer, SeqAccess, Visitor};

/// A spec's field cannot be used as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct SpecError {
    /// The field, as the spec names it (`vm_usd_per_hour`).
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl SpecError {
    /// An error of `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The field as a command-line flag: `vm_usd_per_hour` ↦ `--vm-usd-per-hour`.
    pub fn flag(&self) -> String {
        format!("--{}", self.field.replace('_', "-"))
    }
}

/// Checks that every value of `field` is in `[lo, hi]`.
///
/// # Errors
/// [`SpecError`] naming the field, the value and the range.
pub fn each_in<T: PartialOrd + fmt::Display + Copy>(
    field: &str,
    values: &[T],
    lo: T,
    hi: T,
) -> Result<(), SpecError> {
    match values.iter().find(|v| !(lo..=hi).contains(*v)) {
        Some(v) => Err(SpecError::new(
            field,
            format!("{v} is outside [{lo}, {hi}]"),
        )),
        None => Ok(()),
    }
}

/// Deserialises a list from a list or from one value (`trace = "nasa"` as well as
/// `trace = ["nasa", "kth"]`), for the list fields of specs that experiment files sweep.
///
/// # Errors
/// The value's own error when it is neither.
pub fn one_or_many<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct OneOrMany<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> OneOrMany<T> {
        fn one<E: de::Error, V: IntoDeserializer<'de, E>>(v: V) -> Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|x| vec![x])
        }
    }

    impl<'de, T: Deserialize<'de>> Visitor<'de> for OneOrMany<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a value or a list of values")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::new();
            while let Some(x) = seq.next_element()? {
                out.push(x);
            }
            Ok(out)
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<T>, E> {
            Self::one(v.to_string())
        }

        fn visit_string<E: de::Error>(self, v: String) -> Result<Vec<T>, E> {
            Self::one(v)
        }

        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Vec<T>, E> {
            Self::one(v)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vec<T>, E> {
            Self::one(v)
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vec<T>, E> {
            Self::one(v)
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Vec<T>, E> {
            Self::one(v)
        }
    }

    d.deserialize_any(OneOrMany(PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Spec {
        #[serde(deserialize_with = "one_or_many")]
        names: Vec<String>,
        #[serde(deserialize_with = "one_or_many")]
        counts: Vec<u32>,
    }

    #[test]
    fn a_list_field_takes_one_value_or_a_list() {
        let one: Spec = toml::from_str("names = \"nasa\"\ncounts = 3").unwrap();
        assert_eq!((one.names, one.counts), (vec!["nasa".to_string()], vec![3]));
        let many: Spec = toml::from_str("names = [\"a\", \"b\"]\ncounts = [1, 2]").unwrap();
        assert_eq!((many.names.len(), many.counts), (2, vec![1, 2]));
        let e = toml::from_str::<Spec>("names = \"a\"\ncounts = -1").unwrap_err();
        assert!(e.to_string().contains("counts"), "{e}");
        let json: Spec = serde_json::from_str(r#"{"names": "x", "counts": [4]}"#).unwrap();
        assert_eq!(json.counts, vec![4]);
    }

    #[test]
    fn errors_name_the_field_and_its_flag() {
        let e = SpecError::new("vm_usd_per_hour", "must be positive");
        assert_eq!(e.to_string(), "vm_usd_per_hour: must be positive");
        assert_eq!(e.flag(), "--vm-usd-per-hour");
        assert_eq!(
            each_in("alpha", &[1, 0], 1, 1000).unwrap_err().to_string(),
            "alpha: 0 is outside [1, 1000]"
        );
    }
}
