//! Holding and masking units.
//!
//! A hold must survive what systemd really does: bootkube.service has no [Install] section and
//! is pulled in by enabled units' `Wants=`, so `enabled: false` alone changes nothing, masking
//! also blocks a manual start, and a drop-in cannot remove a dependency. A drop-in can add a
//! condition, though: the held unit gets `ConditionPathExists=!<hold file>`, and the config
//! creates the hold file. While it exists, every start (at boot or by `Wants=`) is skipped;
//! `bootgen-release UNIT` removes it and starts the unit.

use super::doc_edit::{set_file_text, unit_mut};
use super::Change;
use crate::error::Result;
use crate::ignition::IgnitionDoc;
use serde_json::{json, Value};

pub use crate::ignition::read::{HOLD_DIR, HOLD_DROPIN};
/// The script that releases a hold.
pub const RELEASE_SCRIPT: &str = "/usr/local/bin/bootgen-release";

/// The drop-in that holds `unit` (its text; the name is [`HOLD_DROPIN`]).
pub fn hold_dropin(unit: &str) -> String {
    format!(
        "# Held by bootgen: this unit does not start while {HOLD_DIR}/{unit} exists.\n\
         # Release it with: sudo bootgen-release {unit}\n\
         [Unit]\n\
         ConditionPathExists=!{HOLD_DIR}/{unit}\n"
    )
}

/// The text of [`RELEASE_SCRIPT`]. A name without a unit type is a service, as systemctl reads
/// it (`bootgen-release bootkube`); a unit that is not held is said so (exit 1), never "released"
/// while its hold stays.
pub fn release_script() -> String {
    format!(
        "#!/usr/bin/env bash\n\
         # Releases units held by bootgen: removes the hold file, then starts the unit.\n\
         set -euo pipefail\n\
         held() {{ ls -1 {HOLD_DIR} >&2 2>/dev/null || true; }}\n\
         if [ \"$#\" -eq 0 ]; then\n\
         \x20   echo \"usage: bootgen-release UNIT...\" >&2\n\
         \x20   echo \"held units:\" >&2\n\
         \x20   held\n\
         \x20   exit 2\n\
         fi\n\
         status=0\n\
         for unit in \"$@\"; do\n\
         \x20   case \"$unit\" in\n\
         \x20       */* | .* | \"\") echo \"bootgen-release: '$unit' is not a unit name\" >&2; exit 2 ;;\n\
         \x20       *.service | *.socket | *.target | *.timer | *.path | *.mount | *.automount | *.swap | *.slice | *.device | *.scope) ;;\n\
         \x20       *) unit=\"$unit.service\" ;;\n\
         \x20   esac\n\
         \x20   if [ ! -e \"{HOLD_DIR}/$unit\" ]; then\n\
         \x20       echo \"bootgen-release: $unit is not held; held units:\" >&2\n\
         \x20       held\n\
         \x20       status=1\n\
         \x20       continue\n\
         \x20   fi\n\
         \x20   rm -f \"{HOLD_DIR}/$unit\"\n\
         \x20   echo \"released $unit; starting it\"\n\
         \x20   systemctl start --no-block \"$unit\"\n\
         done\n\
         exit \"$status\"\n"
    )
}

/// The text of `unit`'s hold file.
pub fn hold_file_text(unit: &str) -> String {
    format!("{unit} is held by bootgen. Release it with: sudo bootgen-release {unit}\n")
}

/// Holds `unit`: not started at boot even when enabled units want it; released by one command.
pub fn hold_unit(doc: &mut IgnitionDoc, unit: &str) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    let entry = unit_mut(doc, unit)?;
    if entry.get("enabled") == Some(&Value::Bool(true)) {
        entry.insert("enabled".into(), Value::Bool(false));
        changes.push(Change {
            target: unit.to_string(),
            action: "enabled: true -> false".into(),
        });
    }
    let dropins = entry.entry("dropins").or_insert_with(|| json!([]));
    if let Some(list) = dropins.as_array_mut() {
        let dropin = json!({"contents": hold_dropin(unit), "name": HOLD_DROPIN});
        match list
            .iter_mut()
            .find(|d| d.get("name").and_then(Value::as_str) == Some(HOLD_DROPIN))
        {
            Some(existing) => *existing = dropin,
            None => list.push(dropin),
        }
    }
    changes.push(Change {
        target: unit.to_string(),
        action: format!("held: drop-in {HOLD_DROPIN} adds ConditionPathExists=!{HOLD_DIR}/{unit}"),
    });
    let hold_file = format!("{HOLD_DIR}/{unit}");
    set_file_text(doc, &hold_file, &hold_file_text(unit), 0o644)?;
    changes.push(Change {
        target: hold_file,
        action: "hold file added".into(),
    });
    set_file_text(doc, RELEASE_SCRIPT, &release_script(), 0o555)?;
    Ok(changes)
}

/// Masks `unit` (it cannot be started at all until unmasked).
pub fn mask_unit(doc: &mut IgnitionDoc, unit: &str) -> Result<Vec<Change>> {
    let entry = unit_mut(doc, unit)?;
    entry.insert("mask".into(), Value::Bool(true));
    if entry.get("enabled") == Some(&Value::Bool(true)) {
        entry.insert("enabled".into(), Value::Bool(false));
    }
    Ok(vec![Change {
        target: unit.to_string(),
        action: "masked".into(),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> IgnitionDoc {
        IgnitionDoc {
            value: json!({
                "ignition": {"version": "3.2.0"},
                "systemd": {"units": [
                    {"contents": "[Unit]\n", "enabled": true, "name": "approve-csr.service"},
                    {"contents": "[Unit]\n", "name": "bootkube.service"}
                ]}
            }),
        }
    }

    #[test]
    fn hold_adds_condition_file_and_release_script() {
        let mut d = doc();
        hold_unit(&mut d, "bootkube.service").unwrap();
        let dropin = d
            .value
            .pointer("/systemd/units/1/dropins/0/contents")
            .unwrap();
        assert!(dropin
            .as_str()
            .unwrap()
            .contains("ConditionPathExists=!/etc/bootgen/hold/bootkube.service"));
        assert!(super::super::file_text(&d, "/etc/bootgen/hold/bootkube.service").is_some());
        assert!(super::super::file_text(&d, RELEASE_SCRIPT)
            .unwrap()
            .contains("systemctl start"));
        // Holding twice does not duplicate the drop-in.
        hold_unit(&mut d, "bootkube.service").unwrap();
        assert_eq!(
            d.value
                .pointer("/systemd/units/1/dropins")
                .unwrap()
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn hold_disables_an_enabled_unit_and_mask_masks() {
        let mut d = doc();
        hold_unit(&mut d, "approve-csr.service").unwrap();
        assert_eq!(
            d.value.pointer("/systemd/units/0/enabled"),
            Some(&Value::Bool(false))
        );
        mask_unit(&mut d, "bootkube.service").unwrap();
        assert_eq!(
            d.value.pointer("/systemd/units/1/mask"),
            Some(&Value::Bool(true))
        );
    }

    #[test]
    fn unknown_units_list_the_known_ones() {
        let err = hold_unit(&mut doc(), "nope.service")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("nope.service") && err.contains("approve-csr.service, bootkube.service"),
            "{err}"
        );
    }

    /// bootkube-reset.sh checks for bootkube's hold file where the hold pass puts it.
    #[test]
    fn the_reset_script_looks_for_holds_where_they_are() {
        let script = crate::render::TEMPLATES
            .get_file("node/usr/local/bin/bootkube-reset.sh")
            .and_then(|f| f.contents_utf8())
            .unwrap();
        assert!(
            script.contains(&format!(
                "${{BOOTGEN_HOLD_DIR:-{HOLD_DIR}}}/bootkube.service"
            )),
            "{script}"
        );
    }
}
