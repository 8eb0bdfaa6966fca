//! One section of the install-config read into its serde types: a value of the wrong shape
//! refused naming its field path and line, the keys the types do not have collected for the
//! caller to refuse in its own words.
//!
//! The section comes from the raw map `config::load` keeps (in the user's key order), so it is
//! read only once the release is chosen and the installer's own refusals have run. The leaf
//! types below say, in their errors, what a value must be, so a message is the same whatever
//! serde would have called the mismatch.

use crate::config::LoadedConfig;
use crate::error::{Error, Result};
use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::marker::PhantomData;

/// Reads the section at `at` (`platform.vsphere`) from its raw `value` into `T`. Keys no field
/// of `T` reads (dotted paths below `at`, in the order met) go to `refuse_unknown`, whose error
/// is returned, also when they come before a value of the wrong shape (as a reader that checks
/// a map's keys before its values); a value of the wrong shape is an error naming its field.
pub(crate) fn read<T: DeserializeOwned>(
    loaded: &LoadedConfig,
    at: &str,
    value: &Value,
    refuse_unknown: impl FnOnce(&[String]) -> Error,
) -> Result<T> {
    let mut unknown = Vec::new();
    let mut note = |path: serde_ignored::Path| {
        unknown.push(crate::config::dotted_path(&path.to_string()));
    };
    let ignoring = serde_ignored::Deserializer::new(value.clone(), &mut note);
    let read: std::result::Result<T, _> = serde_path_to_error::deserialize(ignoring);
    if !unknown.is_empty() {
        return Err(refuse_unknown(&unknown));
    }
    read.map_err(|e| loaded.field_error(&field_of(at, e.path()), e.inner().to_string()))
}

/// `at` and the path below it, dotted (`platform.vsphere.vcenters.0.port`).
fn field_of(at: &str, path: &serde_path_to_error::Path) -> String {
    let mut field = at.to_string();
    for segment in path.iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => field.push_str(&format!(".{index}")),
            serde_path_to_error::Segment::Map { key } => field.push_str(&format!(".{key}")),
            serde_path_to_error::Segment::Enum { variant } => {
                field.push_str(&format!(".{variant}"))
            }
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    field
}

/// For `#[serde(deserialize_with = "written")]` with `#[serde(default)]`: `Some` whenever the
/// key is written, even as null, so that a key written empty still counts as written.
pub(crate) fn written<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> std::result::Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// A string value; `None` for null; any other value an error saying what it `must` be.
pub(crate) fn string<'de, D: Deserializer<'de>>(
    deserializer: D,
    must: &'static str,
) -> std::result::Result<Option<String>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        _ => Err(de::Error::custom(must)),
    }
}

/// A string setting, trimmed; `""` when null or left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Text(pub String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let text = string(deserializer, "must be a string")?;
        Ok(Text(text.unwrap_or_default().trim().to_string()))
    }
}

/// The scalar visits of a visitor whose value is a collection: each is the error `$must`.
macro_rules! refuse_scalars {
    ($must:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
            Err(E::custom($must))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
            Err(E::custom($must))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
            Err(E::custom($must))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
            Err(E::custom($must))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<Self::Value, E> {
            Err(E::custom($must))
        }
    };
}

/// What a value of the wrong shape is told it must be, for [`List`] and [`Object`].
pub(crate) trait Shape {
    /// The message, e.g. `must be a list`.
    const MUST: &'static str;
}

/// Any list: "must be a list".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AnyList;

impl Shape for AnyList {
    const MUST: &'static str = "must be a list";
}

/// Any map: "must be a map".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AnyMap;

impl Shape for AnyMap {
    const MUST: &'static str = "must be a map";
}

/// A list; empty when null or left out; any other value the error `S` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct List<T, S = AnyList>(pub Vec<T>, PhantomData<S>);

impl<T, S> From<Vec<T>> for List<T, S> {
    fn from(items: Vec<T>) -> Self {
        List(items, PhantomData)
    }
}

impl<T, S> Default for List<T, S> {
    fn default() -> Self {
        List(Vec::new(), PhantomData)
    }
}

impl<'de, T: Deserialize<'de>, S: Shape> Deserialize<'de> for List<T, S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Items<T, S>(PhantomData<(T, S)>);
        impl<'de, T: Deserialize<'de>, S: Shape> Visitor<'de> for Items<T, S> {
            type Value = List<T, S>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(List::default())
            }
            fn visit_none<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(List::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut items: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut list = Vec::new();
                while let Some(item) = items.next_element()? {
                    list.push(item);
                }
                Ok(List::from(list))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                _: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                Err(de::Error::custom(S::MUST))
            }
            refuse_scalars!(S::MUST);
        }
        deserializer.deserialize_any(Items(PhantomData))
    }
}

/// A map read into `T`; `T`'s default when null or left out; any other value the error `S`
/// says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Object<T, S = AnyMap>(pub T, PhantomData<S>);

impl<T, S> From<T> for Object<T, S> {
    fn from(value: T) -> Self {
        Object(value, PhantomData)
    }
}

impl<'de, T: Deserialize<'de> + Default, S: Shape> Deserialize<'de> for Object<T, S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Fields<T, S>(PhantomData<(T, S)>);
        impl<'de, T: Deserialize<'de> + Default, S: Shape> Visitor<'de> for Fields<T, S> {
            type Value = Object<T, S>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(Object::from(T::default()))
            }
            fn visit_none<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(Object::from(T::default()))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                fields: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(fields)).map(Object::from)
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                _: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                Err(de::Error::custom(S::MUST))
            }
            refuse_scalars!(S::MUST);
        }
        deserializer.deserialize_any(Fields(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::{read, List, Object, Text};
    use serde::Deserialize;

    #[derive(Debug, Default, Deserialize)]
    #[serde(default)]
    struct Inner {
        name: Text,
    }

    #[derive(Debug, Default, Deserialize)]
    #[serde(default)]
    struct Outer {
        items: List<Object<Inner>>,
    }

    const TEXT: &str = "platform:\n  demo:\n    items:\n    - name: a\n    - name: [b]\n";

    /// What reading `value` as the section `platform.demo` of [`TEXT`] says: its error, or the
    /// names read.
    fn outcome(value: serde_json::Value) -> Result<Vec<String>, String> {
        let loaded = crate::config::parse("apiVersion: v1\n", "ic.yaml").unwrap();
        let loaded = crate::config::LoadedConfig {
            text: TEXT.into(),
            ..loaded
        };
        read::<Outer>(&loaded, "platform.demo", &value, |unknown| {
            loaded.field_error("platform.demo", format!("unknown: {}", unknown.join(" ")))
        })
        .map(|outer| outer.items.0.into_iter().map(|i| i.0.name.0).collect())
        .map_err(|e| e.to_string())
    }

    #[test]
    fn a_wrong_value_is_named_by_its_path_and_line() {
        let wrong = outcome(serde_json::json!({"items": [{"name": "a"}, {"name": ["b"]}]}));
        assert_eq!(
            wrong.unwrap_err(),
            "ic.yaml: field `platform.demo.items[1].name` (line 5): must be a string"
        );
        let not_a_list = outcome(serde_json::json!({"items": "a"})).unwrap_err();
        assert!(not_a_list.ends_with("`platform.demo.items` (line 3): must be a list"));
        let not_a_map = outcome(serde_json::json!({"items": [3]})).unwrap_err();
        assert!(not_a_map.ends_with("`platform.demo.items[0]` (line 4): must be a map"));
        // Null is the value left out; strings are trimmed.
        let read = outcome(serde_json::json!({"items": [null, {"name": " c "}]}));
        assert_eq!(read.unwrap(), ["", "c"]);
    }

    #[test]
    fn unknown_keys_are_handed_back_in_the_order_met_before_a_wrong_value() {
        let unknown = outcome(serde_json::json!({
            "colour": 1,
            "items": [{"size": 2}, {"name": 5}],
        }));
        assert!(
            unknown
                .unwrap_err()
                .ends_with("unknown: colour items.0.size"),
            "the keys before the wrong value"
        );
    }
}
