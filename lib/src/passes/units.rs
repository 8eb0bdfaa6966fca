//! Holding and masking units.
//!
//! A hold must survive what systemd really does: bootkube.service has no [Install] section and
//! is pulled in by enabled units' `Wants=`, so `enabled: false` alone changes nothing, masking
//! also blocks a manual start, and a drop-in cannot remove a dependency. A drop-in can add a
//! condition, though: the held unit gets `ConditionPathExists=!<hold file>`, and the config
//! creates the hold file. While it exists, every start (at boot or by `Wants=`) is skipped.
//! A skipped unit has not failed, so systemd still starts the units that require it: those
//! (`Requires=`, `BindsTo=`, `Requisite=`, transitively) get the same condition and wait for
//! the same release. `bootgen-release UNIT` removes the hold file and starts the unit and the
//! units the hold skipped. Enablement is left as it is, so a released unit starts at the next
//! boot as before.

use super::doc_edit::{set_file_text, unit_mut};
use super::Change;
use crate::error::Result;
use crate::ignition::read::{hold_condition, holds_in_dropin};
use crate::ignition::unit_text::{list_values, parse_unit};
use crate::ignition::IgnitionDoc;
use serde_json::{json, Value};
use std::collections::BTreeSet;

pub use crate::ignition::read::{HOLD_DIR, HOLD_DROPIN};
/// The script that releases a hold. Named by its full path wherever a person is told to run it:
/// RHEL's sudo `secure_path` leaves out /usr/local/bin.
pub const RELEASE_SCRIPT: &str = "/usr/local/bin/bootgen-release";

/// Dependencies under which a unit does not work without the other: a unit that declares one
/// of them on a held unit is held with it.
const NEEDS: [&str; 3] = ["Requires", "BindsTo", "Requisite"];

/// The drop-in ([`HOLD_DROPIN`]) of a unit held by the holds of `holds` (the unit itself, or
/// units it needs): it starts only when none of their hold files exists.
pub fn hold_dropin(holds: &[&str]) -> String {
    let mut text = format!(
        "# Held by bootgen: this unit does not start while a hold file below {HOLD_DIR} named\n\
         # here exists. Release a hold with: sudo {RELEASE_SCRIPT} UNIT\n\
         [Unit]\n"
    );
    for held in holds {
        text.push_str(&hold_condition(held));
        text.push('\n');
    }
    text
}

/// The text of [`RELEASE_SCRIPT`]. A name without a unit type is a service, as systemctl reads
/// it (`bootgen-release bootkube`); a unit that is not held is said so (exit 1), never "released"
/// while its hold stays. With the unit it starts the units held with it that the hold skipped
/// (their drop-in names the hold, and their last condition check failed): what the boot
/// would have started.
pub fn release_script() -> String {
    // The line a unit held by `$unit`'s hold has in its drop-in.
    let condition = hold_condition("$unit");
    format!(
        "#!/usr/bin/env bash\n\
         # Releases units held by bootgen: removes the hold file, then starts the unit and the\n\
         # units held with it that the hold kept from starting.\n\
         set -euo pipefail\n\
         hold_dir=\"${{BOOTGEN_HOLD_DIR:-{HOLD_DIR}}}\"\n\
         unit_dir=\"${{BOOTGEN_UNIT_DIR:-/etc/systemd/system}}\"\n\
         held() {{ ls -1 \"$hold_dir\" >&2 2>/dev/null || true; }}\n\
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
         \x20   if [ ! -e \"$hold_dir/$unit\" ]; then\n\
         \x20       echo \"bootgen-release: $unit is not held; held units:\" >&2\n\
         \x20       held\n\
         \x20       status=1\n\
         \x20       continue\n\
         \x20   fi\n\
         \x20   rm -f \"$hold_dir/$unit\"\n\
         \x20   skipped=()\n\
         \x20   for dropin in \"$unit_dir\"/*.d/{HOLD_DROPIN}; do\n\
         \x20       [ -e \"$dropin\" ] || continue\n\
         \x20       grep -qxF \"{condition}\" \"$dropin\" || continue\n\
         \x20       with=\"$(basename \"$(dirname \"$dropin\")\")\"\n\
         \x20       with=\"${{with%.d}}\"\n\
         \x20       [ \"$with\" != \"$unit\" ] || continue\n\
         \x20       if [ \"$(systemctl show --property=ConditionResult --value \"$with\")\" = no ]; then\n\
         \x20           skipped+=(\"$with\")\n\
         \x20       fi\n\
         \x20   done\n\
         \x20   echo \"released $unit; starting it${{skipped[*]+ and ${{skipped[*]}}}}\"\n\
         \x20   systemctl start --no-block \"$unit\" ${{skipped[@]+\"${{skipped[@]}}\"}}\n\
         done\n\
         exit \"$status\"\n"
    )
}

/// The text of `unit`'s hold file; `with` are the units held with it.
pub fn hold_file_text(unit: &str, with: &[String]) -> String {
    let mut text = format!("{unit} is held by bootgen");
    if !with.is_empty() {
        text.push_str(&format!(
            ", and with it the units that need it: {}",
            with.join(", ")
        ));
    }
    text.push_str(&format!(
        ". Release it with: sudo {RELEASE_SCRIPT} {unit}\n"
    ));
    text
}

/// The config's units that need `unit` (see [`NEEDS`]), directly or through each other, in the
/// config's order. The hold drop-in itself is not read: it adds only conditions.
pub fn units_needing(doc: &IgnitionDoc, unit: &str) -> Vec<String> {
    let units: Vec<(String, Vec<String>)> = doc
        .value
        .pointer("/systemd/units")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|u| {
            let name = u.get("name").and_then(Value::as_str)?.to_string();
            let mut entries = u
                .get("contents")
                .and_then(Value::as_str)
                .and_then(|t| parse_unit(t).ok())
                .unwrap_or_default();
            for d in u
                .get("dropins")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if d.get("name").and_then(Value::as_str) == Some(HOLD_DROPIN) {
                    continue;
                }
                if let Some(t) = d.get("contents").and_then(Value::as_str) {
                    entries.extend(parse_unit(t).unwrap_or_default());
                }
            }
            let needs = NEEDS
                .iter()
                .flat_map(|key| list_values(&entries, "Unit", key))
                .map(str::to_string)
                .collect();
            Some((name, needs))
        })
        .collect();
    let mut held = BTreeSet::from([unit.to_string()]);
    loop {
        let before = held.len();
        for (name, needs) in &units {
            if needs.iter().any(|n| held.contains(n)) {
                held.insert(name.clone());
            }
        }
        if held.len() == before {
            break;
        }
    }
    units
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| name != unit && held.contains(name))
        .collect()
}

/// Adds the hold of `held` to `unit`'s hold drop-in (made when it has none), keeping the holds
/// it names already.
fn add_hold(doc: &mut IgnitionDoc, unit: &str, held: &str) -> Result<()> {
    let entry = unit_mut(doc, unit)?;
    let dropins = entry.entry("dropins").or_insert_with(|| json!([]));
    if let Some(list) = dropins.as_array_mut() {
        let existing = list
            .iter()
            .position(|d| d.get("name").and_then(Value::as_str) == Some(HOLD_DROPIN));
        let mut holds = existing
            .and_then(|i| list[i].get("contents").and_then(Value::as_str))
            .map(holds_in_dropin)
            .unwrap_or_default();
        if !holds.iter().any(|h| h == held) {
            holds.push(held.to_string());
        }
        let names: Vec<&str> = holds.iter().map(String::as_str).collect();
        let dropin = json!({"contents": hold_dropin(&names), "name": HOLD_DROPIN});
        match existing {
            Some(i) => list[i] = dropin,
            None => list.push(dropin),
        }
    }
    Ok(())
}

/// Holds `unit`: not started at boot even when enabled units want it, and neither are the
/// config's units that need it (which systemd would start without it); released by one command.
pub fn hold_unit(doc: &mut IgnitionDoc, unit: &str) -> Result<Vec<Change>> {
    // Refuses an unknown unit, naming the ones there are.
    unit_mut(doc, unit)?;
    let with = units_needing(doc, unit);
    let mut changes = Vec::new();
    add_hold(doc, unit, unit)?;
    changes.push(Change {
        target: unit.to_string(),
        action: format!("held: drop-in {HOLD_DROPIN} adds {}", hold_condition(unit)),
    });
    for other in &with {
        add_hold(doc, other, unit)?;
        changes.push(Change {
            target: other.clone(),
            action: format!(
                "held with {unit}, which it needs (systemd would start it without): drop-in {HOLD_DROPIN} adds {}",
                hold_condition(unit)
            ),
        });
    }
    let hold_file = format!("{HOLD_DIR}/{unit}");
    set_file_text(doc, &hold_file, &hold_file_text(unit, &with), 0o644)?;
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

    /// A hold leaves enablement alone: a released unit starts at the next boot as before.
    #[test]
    fn hold_keeps_enablement_and_mask_masks() {
        let mut d = doc();
        let changes = hold_unit(&mut d, "approve-csr.service").unwrap();
        assert_eq!(
            d.value.pointer("/systemd/units/0/enabled"),
            Some(&Value::Bool(true))
        );
        assert!(
            !changes.iter().any(|c| c.action.contains("enabled")),
            "{changes:?}"
        );
        mask_unit(&mut d, "bootkube.service").unwrap();
        assert_eq!(
            d.value.pointer("/systemd/units/1/mask"),
            Some(&Value::Bool(true))
        );
    }

    /// A unit skipped by its condition has not failed, so systemd starts what requires it: the
    /// hold of release-image.service holds crio-configure (Requires=), bootkube (Requires=
    /// crio-configure) and a single node's install-to-disk (Requires= bootkube), each with one
    /// drop-in naming every hold it waits for; kubelet, which only wants it, is not held.
    #[test]
    fn a_hold_holds_the_units_that_require_the_held_one() {
        let unit = |name: &str, text: &str| json!({"name": name, "contents": text});
        let mut d = IgnitionDoc {
            value: json!({
                "ignition": {"version": "3.2.0"},
                "systemd": {"units": [
                    unit("release-image.service", "[Unit]\nDescription=r\n"),
                    unit("kubelet.service", "[Unit]\nWants=release-image.service\nAfter=release-image.service\n"),
                    unit("crio-configure.service", "[Unit]\nRequires=release-image.service\n"),
                    unit("bootkube.service", "[Unit]\nRequires=crio-configure.service\nWants=kubelet.service\n"),
                    unit("approve-csr.service", "[Unit]\nWants=bootkube.service\nAfter=bootkube.service\n"),
                    {"name": "install-to-disk.service", "contents": "[Unit]\nDescription=i\n",
                     "dropins": [{"name": "20-x.conf", "contents": "[Unit]\nBindsTo=bootkube.service\n"}]},
                ]}
            }),
        };
        assert_eq!(
            units_needing(&d, "release-image.service"),
            [
                "crio-configure.service",
                "bootkube.service",
                "install-to-disk.service"
            ]
        );
        hold_unit(&mut d, "bootkube.service").unwrap();
        hold_unit(&mut d, "release-image.service").unwrap();
        let dropin = |i: usize| {
            d.value
                .pointer(&format!("/systemd/units/{i}/dropins"))
                .and_then(Value::as_array)
                .and_then(|l| l.iter().find(|x| x["name"] == HOLD_DROPIN))
                .map(|x| x["contents"].as_str().unwrap().to_string())
        };
        assert_eq!(
            dropin(3).unwrap(),
            hold_dropin(&["bootkube.service", "release-image.service"])
        );
        assert_eq!(
            dropin(5).unwrap(),
            hold_dropin(&["bootkube.service", "release-image.service"])
        );
        assert_eq!(dropin(2).unwrap(), hold_dropin(&["release-image.service"]));
        assert_eq!(dropin(1), None, "kubelet only wants it");
        assert_eq!(dropin(4), None, "approve-csr only wants bootkube");
        let hold = super::super::file_text(&d, "/etc/bootgen/hold/release-image.service").unwrap();
        assert!(
            hold.contains("crio-configure.service, bootkube.service, install-to-disk.service")
                && hold.contains("sudo /usr/local/bin/bootgen-release release-image.service"),
            "{hold}"
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
        for needle in [
            format!("${{BOOTGEN_HOLD_DIR:-{HOLD_DIR}}}"),
            format!("/etc/systemd/system/bootkube.service.d/{HOLD_DROPIN}"),
            format!("ConditionPathExists=!{HOLD_DIR}/$held"),
            format!("sudo {RELEASE_SCRIPT} $held"),
        ] {
            assert!(script.contains(&needle), "{needle} not in\n{script}");
        }
    }
}
