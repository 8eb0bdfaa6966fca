//! What a config gets before its rules are checked: JSON syntax (checked as a tree would
//! check it, without the tree), a spec version bootgen reads, and the schema, each problem
//! with its place in the file.

use super::problem::{Check, Location, Problem, Severity};
use crate::ignition::place::{schema_place, syntax_place};
use crate::ignition::schema::{duplicate_key_message, without_position, SchemaError};
use crate::ignition::READABLE_VERSIONS;
use serde_json::Value;
use std::fmt;

pub(super) fn syntax_problem(bytes: &[u8], e: &serde_json::Error) -> Problem {
    let trimmed = String::from_utf8_lossy(bytes);
    let trimmed = trimmed.trim_start();
    let hint = if trimmed.is_empty() {
        " (the file is empty)"
    } else if trimmed.starts_with("variant:") || trimmed.starts_with("version:") {
        " (this looks like Butane YAML: translate it with `butane` first)"
    } else {
        ""
    };
    let mut problem = Problem::new(
        Severity::Error,
        Check::Ignition,
        "json-syntax",
        "$",
        format!("not valid JSON: {}{hint}", without_position(&e.to_string())),
    );
    let (line, column) = syntax_place(e);
    problem.location = Location {
        path: None,
        line: Some(line),
        column: Some(column),
    };
    problem
}

/// The minor number of a 3.x.0 version bootgen reads.
fn spec_minor(version: &str) -> Option<u32> {
    READABLE_VERSIONS
        .contains(&version)
        .then(|| version.split('.').nth(1).and_then(|m| m.parse().ok()))
        .flatten()
}

pub(super) fn version_problem(value: &Value) -> Result<(String, u32), Problem> {
    let problem = |message: String| {
        Problem::new(
            Severity::Error,
            Check::Ignition,
            "version",
            "$.ignition.version",
            message,
        )
    };
    let Some(version) = value.pointer("/ignition/version").and_then(Value::as_str) else {
        return Err(problem(
            "no ignition.version: is this an Ignition config?".to_string(),
        ));
    };
    match spec_minor(version) {
        Some(minor) => Ok((version.to_string(), minor)),
        None if version.starts_with("2.") => Err(problem(format!(
            "spec {version} is Ignition spec 2 (RHCOS before OCP 4.6); spec 3 is needed: {}",
            READABLE_VERSIONS.join(", ")
        ))),
        None => Err(problem(format!(
            "unsupported config version {version}; supported: {}",
            READABLE_VERSIONS.join(", ")
        ))),
    }
}

/// Any JSON value, checked as [`serde_json::Value`] checks it (numbers in range, strings and
/// escapes decoded, nesting limited) but kept nowhere: the same errors at the same places.
pub(super) struct Checked;

impl<'de> serde::Deserialize<'de> for Checked {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Checked)
    }
}

impl<'de> serde::de::Visitor<'de> for Checked {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        while map.next_key::<Checked>()?.is_some() {
            map.next_value::<Checked>()?;
        }
        Ok(Checked)
    }
}

pub(super) fn schema_problem(e: &SchemaError, bytes: &[u8], version: &str) -> Problem {
    let mut problem = Problem::new(
        Severity::Error,
        Check::Ignition,
        if e.duplicate_key.is_some() {
            "duplicate-key"
        } else {
            "schema"
        },
        "$",
        match &e.duplicate_key {
            // Not Ignition's rule (Go keeps the last value) but bootgen's: one of the two would
            // be dropped without a word.
            Some(key) => duplicate_key_message(key),
            None => format!(
                "does not match the Ignition {version} schema: {}",
                e.message
            ),
        },
    );
    if let Some((path, line, column)) = schema_place(e, bytes) {
        problem.location = Location {
            path,
            line: Some(line),
            column: Some(column),
        };
    }
    problem
}
