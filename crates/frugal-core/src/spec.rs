//! What the systems' typed specs share: an error that names the field at fault (each face
//! renders it its own way — the command line as `--field-name`, Python as the keyword, an
//! experiment file as the key) and a field that takes one value or a list.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, IntoDeserializer, SeqAccess, Visitor};

/// A spec's field cannot be used as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The field, as the spec names it (`vm-usd-per-hour`).
    pub field: String,
    /// What is wrong with it; other fields it names are written `{field}`, so that each
    /// face names them its own way ([`SpecError::named`]).
    pub message: String,
}

impl fmt::Display for SpecError {
    /// The fields as the spec names them: `jobs-csv: cannot be used with hour`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.named(str::to_string))
    }
}

impl std::error::Error for SpecError {}

impl SpecError {
    /// An error of `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> SpecError {
        SpecError {
            field: field.into(),
            message: message.into(),
        }
    }

    /// `field` cannot be given with `other`.
    pub fn conflict(field: &str, other: &str) -> SpecError {
        SpecError::new(field, format!("cannot be used with {{{other}}}"))
    }

    /// The error with its fields named as a face names them (`name("vm-usd-per-hour")`:
    /// the flag `--vm-usd-per-hour`, the keyword `vm_usd_per_hour`): the field at fault,
    /// then the message with each `{field}` it names.
    pub fn named(&self, name: impl Fn(&str) -> String) -> String {
        let mut text = format!("{}: ", name(&self.field));
        let mut rest = self.message.as_str();
        while let Some(open) = rest.find('{') {
            let close = rest[open..].find('}').map(|c| open + c);
            match close {
                Some(close)
                    if rest[open + 1..close]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
                {
                    text.push_str(&rest[..open]);
                    text.push_str(&name(&rest[open + 1..close]));
                    rest = &rest[close + 1..];
                }
                _ => {
                    text.push_str(&rest[..=open]);
                    rest = &rest[open + 1..];
                }
            }
        }
        text.push_str(rest);
        text
    }

    /// A field as a command-line flag: `vm-usd-per-hour` (or `vm_usd_per_hour`) ↦
    /// `--vm-usd-per-hour`.
    pub fn flag(field: &str) -> String {
        format!("--{}", field.replace('_', "-"))
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

/// Deserialises a value by its text form (`FromStr`) from a string or a number (`hour = 10`
/// as well as `hour = "day"`, `keep_alive = 60` as well as `"paid-hour"`), so a file's value
/// is read with the same words as the command line's; the parse error is the message.
///
/// # Errors
/// The value's `FromStr` error; a value that is neither a string nor a number.
pub fn from_text<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: fmt::Display,
{
    struct Text;

    impl Visitor<'_> for Text {
        type Value = String;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string or a number")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
            Ok(v.to_string())
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
            Ok(v.to_string())
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
            Ok(v.to_string())
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
            Ok(v.to_string())
        }
    }

    d.deserialize_any(Text)?.parse().map_err(de::Error::custom)
}

/// A spec that is also a configuration file (`frugal serve --config`, `frugal agent
/// --config`): TOML with one key per flag, named as the flag, unset fields left out (so
/// every field is an `Option` or a list skipped when empty).
pub trait ConfigFile: serde::Serialize + serde::de::DeserializeOwned {
    /// Reads the file at `path`.
    ///
    /// # Errors
    /// `--config <path>: …`: the file cannot be read, or a key or value is not a
    /// setting's (named with its line).
    fn read(path: &std::path::Path) -> Result<Self, String> {
        let at = |e: &dyn fmt::Display| format!("--config {}: {e}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| at(&e))?;
        toml::from_str(&text).map_err(|e| at(&e))
    }

    /// The spec as its file.
    fn to_toml(&self) -> String {
        toml::to_string(self).expect("every field has a TOML form")
    }

    /// This spec's set fields over `base`'s: a field set in both takes this one's value
    /// (the command line's over its configuration file's).
    fn over(&self, base: &Self) -> Self {
        let table = |s: &Self| toml::Table::try_from(s).expect("every field has a TOML form");
        let mut merged = table(base);
        merged.extend(table(self));
        merged.try_into().expect("a merge of two specs is one")
    }
}

/// A closed set of named values (a queue discipline, a billing granularity): the names a
/// spec, a flag or a keyword takes, each with a one-line help that `--help` lists. Declared
/// with [`choice!`](crate::choice), which also gives serde by name, or implemented by types
/// that have their names already ([`crate::PolicyKind`]).
pub trait Choice: Copy + Send + Sync + 'static {
    /// Every value, in the order help lists them.
    const ALL: &'static [Self];

    /// The value's name.
    fn name(self) -> &'static str;

    /// One line on what it means, with its source.
    fn help(self) -> &'static str;

    /// The value named `name`.
    ///
    /// # Errors
    /// The name and every valid one.
    fn from_name(name: &str) -> Result<Self, String> {
        Self::ALL
            .iter()
            .copied()
            .find(|c| c.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "invalid value {name:?} [possible values: {}]",
                    names.join(", ")
                )
            })
    }
}

/// Declares a [`Choice`] enum: each variant with its name and help (also its doc), serde by
/// name (a number is read as its text, so `pricing = 2` is the choice named `2`). With
/// `=> fn method() -> Type` after the name and `=> value` after each help, also the method
/// that gives each choice's library value, so a name and what it stands for are one line.
///
/// `impl Choice for Type { Variant = "name": "help", … }` names the variants of an enum
/// declared elsewhere (a library type with its own docs), with `Display`, `FromStr` and
/// serde by those names, so the type a spec holds is the one its flags parse — one spelling
/// per value. `impl Choice (names only) for Type { … }` gives the names and help alone, for
/// a type whose `Display` says something else (a paper's label in a table); `impl Text for
/// Type` gives `Display` and `FromStr` by the names of a `Choice` implemented by hand.
#[macro_export]
macro_rules! choice {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident => fn $method:ident() -> $target:ty {
            $($variant:ident = $text:literal : $help:literal => $value:expr,)+
        }
    ) => {
        $crate::choice! {
            $(#[$meta])*
            $vis enum $name {
                $($variant = $text : $help,)+
            }
        }

        impl $name {
            #[doc = concat!("What the choice stands for in the library: its `", stringify!($target), "`.")]
            pub fn $method(self) -> $target {
                match self {
                    $($name::$variant => $value),+
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($variant:ident = $text:literal : $help:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $(#[doc = $help] $variant,)+
        }

        $crate::choice! {
            impl Choice for $name {
                $($variant = $text : $help,)+
            }
        }
    };
    (
        impl Choice for $name:ident {
            $($variant:ident = $text:literal : $help:literal,)+
        }
    ) => {
        $crate::choice! {
            impl Choice (names only) for $name {
                $($variant = $text : $help,)+
            }
        }
        $crate::choice! { impl Text for $name }
        $crate::serde_as_text!($name);
    };
    (impl Text for $name:ident) => {
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::spec::Choice::name(*self))
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(s: &str) -> Result<$name, String> {
                <$name as $crate::spec::Choice>::from_name(s)
            }
        }
    };
    (
        impl Choice (names only) for $name:ident {
            $($variant:ident = $text:literal : $help:literal,)+
        }
    ) => {
        impl $crate::spec::Choice for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];

            fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            fn help(self) -> &'static str {
                match self {
                    $($name::$variant => $help),+
                }
            }
        }
    };
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

    crate::choice! {
        /// A test choice.
        enum Billing {
            PerSecond = "per-second": "Each second",
            Hourly = "1": "Each started hour",
        }
    }

    crate::choice! {
        /// A test choice standing for a library value.
        enum Granularity => fn granularity() -> crate::BillingGranularity {
            Second = "second": "Each second" => crate::BillingGranularity::PerSecond,
            Hour = "hour": "Each started hour" => crate::BillingGranularity::PerHour,
        }
    }

    #[test]
    fn a_choice_gives_the_library_value_it_stands_for() {
        assert_eq!(
            Granularity::from_name("hour").map(Granularity::granularity),
            Ok(crate::BillingGranularity::PerHour)
        );
        assert_eq!(Granularity::Second.name(), "second");
    }

    #[derive(Debug, Deserialize)]
    struct Choices {
        billing: Billing,
        #[serde(deserialize_with = "from_text")]
        hour: u32,
    }

    #[test]
    fn choices_are_read_by_name_from_strings_and_numbers() {
        let c: Choices = toml::from_str("billing = \"per-second\"\nhour = \"7\"").unwrap();
        assert_eq!((c.billing, c.hour), (Billing::PerSecond, 7));
        let c: Choices = toml::from_str("billing = 1\nhour = 7").unwrap();
        assert_eq!((c.billing, c.hour), (Billing::Hourly, 7));
        let e = toml::from_str::<Choices>("billing = \"hourly\"\nhour = 1").unwrap_err();
        assert!(
            e.to_string()
                .contains("invalid value \"hourly\" [possible values: per-second, 1]"),
            "{e}"
        );
        assert_eq!(serde_json::to_string(&Billing::Hourly).unwrap(), "\"1\"");
        assert_eq!(Billing::PerSecond.help(), "Each second");
    }

    #[test]
    fn errors_name_the_field_and_its_flag() {
        let e = SpecError::new("vm_usd_per_hour", "must be positive");
        assert_eq!(e.to_string(), "vm_usd_per_hour: must be positive");
        assert_eq!(
            e.named(SpecError::flag),
            "--vm-usd-per-hour: must be positive"
        );
        let r = SpecError::new("jobs", "counts the jobs of {hour} or {swf}; a {brace}}");
        assert_eq!(
            r.named(SpecError::flag),
            "--jobs: counts the jobs of --hour or --swf; a --brace}"
        );
        assert_eq!(
            SpecError::new("x", "{not a field}").to_string(),
            "x: {not a field}"
        );
        let c = SpecError::conflict("jobs-csv", "hour");
        assert_eq!(c.to_string(), "jobs-csv: cannot be used with hour");
        assert_eq!(
            c.named(SpecError::flag),
            "--jobs-csv: cannot be used with --hour"
        );
        assert_eq!(
            each_in("alpha", &[1, 0], 1, 1000).unwrap_err().to_string(),
            "alpha: 0 is outside [1, 1000]"
        );
    }
}
