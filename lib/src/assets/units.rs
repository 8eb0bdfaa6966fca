//! Ignition units from `templates/units`, and which of them are enabled.

use super::{Dropin, Unit};
use crate::error::{Error, Result};
use crate::render::{files_under, Renderer};

/// Units enabled through Ignition's preset (the installer's fixed allow-list; Ignition writes a
/// preset file rather than running `systemctl enable`). Every other unit gets no `enabled`
/// key: bootkube, release-image and crio-configure are pulled in by these units' `Wants=`.
pub const ENABLED_UNITS: &[&str] = &[
    "approve-csr.service",
    "chown-gatewayd-key.service",
    "kubelet.service",
    "progress.service",
    "systemd-journal-gatewayd.socket",
];

/// Units a single node adds, enabled: install-to-disk.service pulls bootkube.service in and
/// installs the node once bootkube is done.
pub const SINGLE_NODE_ENABLED_UNITS: &[&str] = &["install-to-disk.service"];

/// Renders every unit and drop-in of `templates/units` that the release has (the release
/// table's `[[unit]]` rows, as the context's `release.units`), sorted by name.
pub fn node_units(renderer: &Renderer, context: &serde_json::Value) -> Result<Vec<Unit>> {
    let in_release = |unit: &str| {
        context
            .pointer("/release/units")
            .and_then(serde_json::Value::as_array)
            .is_some_and(|units| units.iter().any(|u| u == unit))
    };
    units_under(renderer, "units", ENABLED_UNITS, &in_release)
}

/// Renders the units a single node adds (`templates/single-node/units`).
pub fn single_node_units(renderer: &Renderer) -> Result<Vec<Unit>> {
    units_under(
        renderer,
        "single-node/units",
        SINGLE_NODE_ENABLED_UNITS,
        &|_| true,
    )
}

fn units_under(
    renderer: &Renderer,
    prefix: &str,
    enabled: &[&str],
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<Unit>> {
    let mut units: Vec<Unit> = Vec::new();
    let strip = format!("{prefix}/");
    for template in files_under(prefix) {
        let relative = template.output_name().trim_start_matches(strip.as_str());
        let unit = relative
            .split_once(".d/")
            .map_or(relative, |(unit, _)| unit);
        if !keep(unit) {
            continue;
        }
        let text = String::from_utf8(renderer.render(&template)?).map_err(|_| Error::Template {
            name: template.name.into(),
            message: "renders to non-UTF-8 text".into(),
        })?;
        let (unit_name, dropin) = match relative.split_once(".d/") {
            Some((unit, dropin)) => (unit.to_string(), Some(dropin.to_string())),
            None => (relative.to_string(), None),
        };
        let index = match units.iter().position(|u| u.name == unit_name) {
            Some(i) => i,
            None => {
                units.push(Unit {
                    name: unit_name.clone(),
                    enabled: enabled.contains(&unit_name.as_str()).then_some(true),
                    contents: None,
                    dropins: Vec::new(),
                });
                units.len() - 1
            }
        };
        match dropin {
            Some(name) => units[index].dropins.push(Dropin {
                name,
                contents: text,
            }),
            None => units[index].contents = Some(text),
        }
    }
    for unit in &mut units {
        unit.dropins.sort_by(|a, b| a.name.cmp(&b.name));
    }
    units.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(units)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_enabled_unit_has_a_template() {
        let names: Vec<String> = files_under("units")
            .iter()
            .map(|t| t.output_name().trim_start_matches("units/").to_string())
            .collect();
        for unit in ENABLED_UNITS {
            assert!(names.iter().any(|n| n == unit), "{unit} has no template");
        }
    }
}
