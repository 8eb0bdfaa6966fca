//! The schema check of a split config a part at a time: the config without its file list (the
//! skeleton), then each file entry on its own, with the types of `ignition-config` and its
//! unknown-key detection, so no typed tree of the whole config is ever built.

use serde_json::value::RawValue;

/// A serde path written as `ignition-config` writes it (`$.storage.files.0.mode`).
fn dotted(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => "$".to_string(),
        Path::Seq { parent, index } => format!("{}.{index}", dotted(parent)),
        Path::Map { parent, key } => format!("{}.{key}", dotted(parent)),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => dotted(parent),
    }
}

/// Parses `raw` as a `T`, adding the dotted path of every unknown key (under `prefix`, which
/// stands for the root) to `unknown`; false when it does not fit.
fn part<T: serde::de::DeserializeOwned>(
    raw: &str,
    prefix: &str,
    unknown: &mut Vec<String>,
) -> bool {
    let mut json = serde_json::Deserializer::from_str(raw);
    let parsed: Result<T, _> = serde_ignored::deserialize(&mut json, |path| {
        unknown.push(format!("{prefix}{}", &dotted(&path)[1..]));
    });
    parsed.is_ok() && json.end().is_ok()
}

/// The unknown keys of a config (dotted paths, in the order the check of the whole config
/// reports them) whose skeleton and raw file entries are given; `None` when a part does not
/// fit the schema, or when both the skeleton and the entries have unknown keys (the whole
/// check's order interleaves them by position). Then only the whole check can say.
pub(crate) fn unknown_keys(skeleton: &str, files: &[&RawValue]) -> Option<Vec<String>> {
    use ignition_config::{v3_0, v3_1, v3_2, v3_3, v3_4, v3_5, Config, Warning};
    let (config, warnings) = Config::parse_slice(skeleton.as_bytes()).ok()?;
    let file: fn(&str, &str, &mut Vec<String>) -> bool = match config {
        Config::V3_0(_) => part::<v3_0::File>,
        Config::V3_1(_) => part::<v3_1::File>,
        Config::V3_2(_) => part::<v3_2::File>,
        Config::V3_3(_) => part::<v3_3::File>,
        Config::V3_4(_) => part::<v3_4::File>,
        Config::V3_5(_) => part::<v3_5::File>,
        _ => return None,
    };
    let mut unknown = Vec::new();
    for warning in warnings {
        match warning {
            Warning::UnusedKey(path) => unknown.push(path),
            // A kind of warning this check does not know: the whole check says what it is.
            _ => return None,
        }
    }
    let in_skeleton = unknown.len();
    for (i, raw) in files.iter().enumerate() {
        if !file(raw.get(), &format!("$.storage.files.{i}"), &mut unknown) {
            return None;
        }
    }
    (in_skeleton == 0 || unknown.len() == in_skeleton).then_some(unknown)
}
