//! Ignition units: the release table's unit rows for this node ([`NodeProfile::units`]), each with
//! its text and drop-ins from its template directory.

use super::{Dropin, Unit};
use crate::error::{Error, Result};
use crate::release::NodeProfile;
use crate::render::{files_under, Renderer};

/// Renders every unit of the node, with its drop-ins, sorted by name.
pub fn node_units(renderer: &Renderer, node: &NodeProfile) -> Result<Vec<Unit>> {
    let mut units = Vec::new();
    // Each template directory (units/, an overlay's units/) is listed once, not once per unit.
    let mut listed: std::collections::BTreeMap<&str, Vec<crate::render::TemplateFile>> =
        std::collections::BTreeMap::new();
    for row in &node.units {
        let (dir, name) = row
            .template_dir
            .rsplit_once('/')
            .unwrap_or(("", &row.template_dir));
        let mut unit = Unit {
            name: row.name.clone(),
            enabled: row.enabled.then_some(true),
            contents: None,
            dropins: Vec::new(),
        };
        let dropins = format!("{name}.d/");
        for template in listed.entry(dir).or_insert_with(|| files_under(dir)).iter() {
            let relative = template
                .output_name()
                .strip_prefix(dir)
                .and_then(|r| r.strip_prefix('/'))
                .unwrap_or_default();
            let text = || {
                String::from_utf8(renderer.render(template)?).map_err(|_| Error::Template {
                    name: template.name.into(),
                    message: "renders to non-UTF-8 text".into(),
                })
            };
            if relative == name {
                unit.contents = Some(text()?);
            } else if let Some(dropin) = relative.strip_prefix(&dropins) {
                unit.dropins.push(Dropin {
                    name: dropin.to_string(),
                    contents: text()?,
                });
            }
        }
        unit.dropins.sort_by(|a, b| a.name.cmp(&b.name));
        units.push(unit);
    }
    units.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(units)
}
