//! Serde through a type's text form: serialised by its `Display`, deserialised by its
//! `FromStr` from a string or a number (whose error becomes the deserialiser's message, so a bad value in a file is
//! refused with the same words as on the command line). For the specs users name by a
//! string — a placement policy, a spot policy.

#[doc(hidden)]
pub use serde as __serde;

/// Implements `serde::Serialize` (by `Display`) and `serde::Deserialize` (by `FromStr`)
/// for `$t`.
#[macro_export]
macro_rules! serde_as_text {
    ($t:ty) => {
        impl $crate::text_serde::__serde::Serialize for $t {
            fn serialize<S: $crate::text_serde::__serde::Serializer>(
                &self,
                s: S,
            ) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> $crate::text_serde::__serde::Deserialize<'de> for $t {
            fn deserialize<D: $crate::text_serde::__serde::Deserializer<'de>>(
                d: D,
            ) -> Result<$t, D::Error> {
                $crate::spec::from_text(d)
            }
        }
    };
}
