//! The unit-graph lint (for holding units while debugging): `enabled: false` does nothing for a unit that enabled
//! units pull in with `Wants=`, masking also blocks a manual start, and an enabled unit without
//! [Install] is never enabled. So for each held or masked unit it names what wants it, and it
//! warns about disables that change nothing, enabled units without [Install], and references
//! to units or scripts that are neither in the config nor part of the OS.

use crate::checks::{Check, Problem, Severity};
use crate::ignition::read::{holds_in_dropin, HOLD_DIR, HOLD_DROPIN};
use crate::ignition::unit_text::{list_values, parse_unit, UnitEntry};
use crate::ignition::IgnitionDoc;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Dependencies that pull a unit in when the depending unit starts.
const PULLS: &[&str] = &["Wants", "Requires", "Requisite", "BindsTo", "Upholds"];
/// Dependencies that make the depending unit fail when the unit cannot start.
const HARD: &[&str] = &["Requires", "Requisite", "BindsTo"];
/// Every [Unit] key that names other units.
const REFERENCES: &[&str] = &[
    "Wants",
    "Requires",
    "Requisite",
    "BindsTo",
    "PartOf",
    "Upholds",
    "After",
    "Before",
    "OnFailure",
    "OnSuccess",
];
const EXEC_KEYS: &[&str] = &[
    "ExecStart",
    "ExecStartPre",
    "ExecStartPost",
    "ExecCondition",
    "ExecReload",
    "ExecStop",
    "ExecStopPost",
];

/// Units every RHCOS/FCOS node has: referring to them is fine.
pub const OS_UNITS: &[&str] = &[
    "basic.target",
    "chronyd.service",
    "crio.service",
    "dbus.service",
    "default.target",
    // CoreOS ships dnsmasq; OKD's pivot (4.16-4.18) orders itself before it.
    "dnsmasq.service",
    "getty.target",
    "graphical.target",
    "local-fs.target",
    "multi-user.target",
    "network-online.target",
    "network-pre.target",
    "network.target",
    "NetworkManager-wait-online.service",
    "NetworkManager.service",
    "nss-lookup.target",
    "podman.service",
    "remote-fs.target",
    "rpc-statd.service",
    "rpm-ostreed.service",
    "shutdown.target",
    "sockets.target",
    "sshd.service",
    "sysinit.target",
    "time-sync.target",
    "timers.target",
    "zincati.service",
];

/// Directories whose executables come with the OS image.
const OS_BIN_DIRS: &[&str] = &[
    "/usr/bin/",
    "/usr/sbin/",
    "/bin/",
    "/sbin/",
    "/usr/lib/",
    "/usr/libexec/",
];

fn is_os_unit(name: &str) -> bool {
    OS_UNITS.contains(&name)
        || name.starts_with("systemd-")
        || [".slice", ".device", ".mount", ".swap", ".scope"]
            .iter()
            .any(|s| name.ends_with(s))
}

/// A unit as the lint sees it.
struct LintUnit {
    index: usize,
    name: String,
    enabled: Option<bool>,
    masked: bool,
    /// The holds its hold drop-in names (its own, or those of units it requires).
    holds: Option<Vec<String>>,
    has_contents: bool,
    has_install: bool,
    /// The unit's entries followed by its drop-ins'.
    entries: Vec<UnitEntry>,
}

fn lint_units_of(doc: &IgnitionDoc) -> Vec<LintUnit> {
    let units = doc
        .value
        .pointer("/systemd/units")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    units
        .iter()
        .enumerate()
        .map(|(index, u)| {
            let text = u.get("contents").and_then(Value::as_str);
            let mut entries = text.and_then(|t| parse_unit(t).ok()).unwrap_or_default();
            let has_install = entries.iter().any(|e| e.section == "Install");
            let dropins = u.get("dropins").and_then(Value::as_array);
            let mut holds = None;
            for d in dropins.into_iter().flatten() {
                if d.get("name").and_then(Value::as_str) == Some(HOLD_DROPIN) {
                    let text = d
                        .get("contents")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    holds = Some(holds_in_dropin(text));
                }
                if let Some(t) = d.get("contents").and_then(Value::as_str) {
                    entries.extend(parse_unit(t).unwrap_or_default());
                }
            }
            LintUnit {
                index,
                name: u
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                enabled: u.get("enabled").and_then(Value::as_bool),
                masked: u.get("mask").and_then(Value::as_bool) == Some(true),
                holds,
                has_contents: text.is_some_and(|t| !t.trim().is_empty()),
                has_install,
                entries,
            }
        })
        .collect()
}

/// Units started at boot: the enabled ones and, transitively, what they pull in.
fn started_at_boot(units: &[LintUnit]) -> BTreeSet<String> {
    let by_name: BTreeMap<&str, &LintUnit> = units.iter().map(|u| (u.name.as_str(), u)).collect();
    let mut started = BTreeSet::new();
    let mut queue: VecDeque<&str> = units
        .iter()
        .filter(|u| u.enabled == Some(true) && !u.masked)
        .map(|u| u.name.as_str())
        .collect();
    while let Some(name) = queue.pop_front() {
        if !started.insert(name.to_string()) {
            continue;
        }
        if let Some(unit) = by_name.get(name) {
            for key in PULLS {
                queue.extend(list_values(&unit.entries, "Unit", key));
            }
        }
    }
    started
}

/// The units (started at boot) that pull `name` in, with the dependency kind.
fn wanted_by<'a>(
    units: &'a [LintUnit],
    started: &BTreeSet<String>,
    name: &str,
) -> Vec<(&'a str, &'static str)> {
    let mut out = Vec::new();
    for unit in units.iter().filter(|u| started.contains(&u.name)) {
        for key in PULLS {
            if list_values(&unit.entries, "Unit", key).contains(&name) {
                out.push((unit.name.as_str(), *key));
            }
        }
    }
    out
}

/// The [Install] keys whose units an enabled unit is linked into, so that it starts with them.
const INSTALL_PULLS: &[&str] = &["WantedBy", "RequiredBy", "UpheldBy"];

/// What pulls `unit` in at boot: its own enablement (the units its [Install] section names) and
/// the units started at boot that want it (`wanting`).
fn wanted_at_boot_by(unit: &LintUnit, wanting: &[(&str, &str)]) -> String {
    let enabled = unit.enabled == Some(true);
    let mut reasons: Vec<String> = Vec::new();
    if enabled && !unit.has_contents {
        reasons
            .push("the units its OS unit file's [Install] section names, as it is enabled".into());
    }
    if enabled {
        for key in INSTALL_PULLS {
            for target in list_values(&unit.entries, "Install", key) {
                reasons.push(format!("{target} ({key}=, as it is enabled)"));
            }
        }
    }
    let enabled_for_nothing = enabled && unit.has_contents && reasons.is_empty();
    if !wanting.is_empty() {
        reasons.push(describe(wanting));
    }
    let mut text = if reasons.is_empty() {
        "nothing".to_string()
    } else {
        reasons.join(", ")
    };
    if enabled_for_nothing {
        text.push_str(
            " (it is enabled, but its [Install] section names no WantedBy= or RequiredBy=, so enabling it links it into nothing)",
        );
    }
    text
}

fn describe(wanting: &[(&str, &str)]) -> String {
    wanting
        .iter()
        .map(|(unit, key)| format!("{unit} ({key}=)"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The unit-graph lint: for each held or masked unit, the units started at boot that want or
/// require it; `enabled: false` that changes nothing because started units pull the unit in;
/// enabled units without an \[Install\] section; references to units or scripts that are neither
/// in the config nor part of the OS. `bootgen ignition`, `patch` and `validate` all run it.
pub fn lint_units(doc: &IgnitionDoc) -> Vec<Problem> {
    let files: BTreeSet<&str> = crate::ignition::read::file_entries(doc)
        .into_iter()
        .filter_map(|f| f.get("path").and_then(Value::as_str))
        .collect();
    lint_units_with_files(doc, &files)
}

/// [`lint_units`] of a config whose file paths are `files` (its units are read from `doc`): for
/// a [`crate::ignition::split::SplitDoc`], whose `doc` holds only some of its files.
pub fn lint_units_with_files(doc: &IgnitionDoc, files: &BTreeSet<&str>) -> Vec<Problem> {
    let units = lint_units_of(doc);
    let started = started_at_boot(&units);
    let names: BTreeSet<&str> = units.iter().map(|u| u.name.as_str()).collect();
    let mut problems = Vec::new();
    for unit in &units {
        let at = format!("$.systemd.units[{}]", unit.index);
        let wanting = wanted_by(&units, &started, &unit.name);
        let note =
            |rule, message: String| Problem::new(Severity::Note, Check::Lint, rule, &at, message);
        let warn = |rule, message: String| {
            Problem::new(Severity::Warning, Check::Lint, rule, &at, message)
        };
        if unit.masked {
            let hard: Vec<_> = wanting
                .iter()
                .filter(|(_, k)| HARD.contains(k))
                .cloned()
                .collect();
            if !hard.is_empty() {
                problems.push(warn(
                    "masked-required",
                    format!(
                        "{} is masked but {} require it: they will fail to start",
                        unit.name,
                        describe(&hard)
                    ),
                ));
            }
            problems.push(note(
                "masked",
                format!(
                    "{} is masked (it cannot be started, not even by hand); wanted at boot by: {}",
                    unit.name,
                    wanted_at_boot_by(unit, &wanting)
                ),
            ));
        } else if let Some(holds) = &unit.holds {
            let hold_files: Vec<String> = holds.iter().map(|h| format!("{HOLD_DIR}/{h}")).collect();
            let made: Vec<&String> = hold_files
                .iter()
                .filter(|f| files.contains(f.as_str()))
                .collect();
            if made.is_empty() {
                let missing = if hold_files.is_empty() {
                    "it names no hold file".to_string()
                } else {
                    format!("the config does not create {}", hold_files.join(" or "))
                };
                problems.push(warn(
                    "hold-without-file",
                    format!(
                        "{} has the {HOLD_DROPIN} drop-in but {missing}: it is not held",
                        unit.name
                    ),
                ));
            } else {
                let made = made
                    .iter()
                    .map(|f| f.as_str())
                    .collect::<Vec<_>>()
                    .join(" or ");
                problems.push(note("held", format!(
                    "{} is held: it does not start while {made} exists, even when wanted; wanted at boot by: {}",
                    unit.name, wanted_at_boot_by(unit, &wanting))));
            }
        } else if unit.enabled == Some(false) && !wanting.is_empty() {
            problems.push(warn("ineffective-disable", format!(
                "`enabled: false` does not stop {} from starting: {} pull it in at boot; hold it (a drop-in that keeps it from starting until released) or mask it",
                unit.name, describe(&wanting))));
        }
        if unit.enabled == Some(true) && unit.has_contents && !unit.has_install {
            problems.push(warn(
                "no-install-section",
                format!(
                    "{} is enabled but has no [Install] section, so enabling it does nothing",
                    unit.name
                ),
            ));
        }
        problems.extend(missing_references(unit, &names, files, &at));
    }
    problems
}

fn missing_references(
    unit: &LintUnit,
    names: &BTreeSet<&str>,
    files: &BTreeSet<&str>,
    at: &str,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for key in REFERENCES {
        for target in list_values(&unit.entries, "Unit", key) {
            let template = target.split_once('@').map(|(head, tail)| {
                format!("{head}@.{}", tail.rsplit('.').next().unwrap_or_default())
            });
            let known = names.contains(target)
                || template.as_deref().is_some_and(|t| names.contains(t))
                || is_os_unit(target)
                || target.contains('%');
            if !known && seen.insert(target.to_string()) {
                problems.push(Problem::new(Severity::Warning, Check::Lint, "missing-unit", at, format!(
                    "{} refers to {target} ({key}=), which is neither in the config nor a known OS unit",
                    unit.name)));
            }
        }
    }
    for key in EXEC_KEYS {
        for entry in unit
            .entries
            .iter()
            .filter(|e| e.section == "Service" && e.key == *key)
        {
            let command = entry.value.trim_start_matches(['-', '@', ':', '+', '!']);
            let program = command.split_whitespace().next().unwrap_or_default();
            let os = OS_BIN_DIRS.iter().any(|d| program.starts_with(d));
            if program.starts_with('/')
                && !os
                && !files.contains(program)
                && seen.insert(program.to_string())
            {
                problems.push(Problem::new(
                    Severity::Warning,
                    Check::Lint,
                    "missing-script",
                    at,
                    format!(
                        "{} runs {program} ({key}=), which the config does not create",
                        unit.name
                    ),
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(units: Value, files: Value) -> Vec<(&'static str, String)> {
        let doc = IgnitionDoc {
            value: json!({"ignition": {"version": "3.2.0"},
                          "storage": {"files": files},
                          "systemd": {"units": units}}),
        };
        lint_units(&doc)
            .into_iter()
            .map(|p| (p.rule, p.message))
            .collect()
    }

    const SCRIPT: &str = "/usr/local/bin/bootkube.sh";

    fn script() -> Value {
        json!([{"path": SCRIPT, "contents": {"source": "data:,x"}}])
    }

    #[test]
    fn a_disable_that_changes_nothing_is_named() {
        let found = rules(
            json!([
                {"name": "progress.service", "enabled": true,
                 "contents": "[Unit]\nWants=bootkube.service\n[Service]\nExecStart=/usr/bin/true\n[Install]\nWantedBy=multi-user.target\n"},
                {"name": "bootkube.service", "enabled": false,
                 "contents": format!("[Service]\nExecStart={SCRIPT}\n")}
            ]),
            script(),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "ineffective-disable");
        assert!(
            found[0].1.contains("progress.service (Wants=)"),
            "{found:?}"
        );
    }

    #[test]
    fn held_and_masked_units_name_what_wants_them() {
        let found = rules(
            json!([
                {"name": "a.service", "enabled": true,
                 "contents": "[Unit]\nWants=held.service\nRequires=masked.service\n[Install]\nWantedBy=multi-user.target\n"},
                {"name": "held.service", "contents": "[Unit]\n",
                 "dropins": [{"name": HOLD_DROPIN, "contents": crate::passes::hold_dropin(&["held.service"])}]},
                {"name": "masked.service", "mask": true}
            ]),
            json!([{"path": format!("{HOLD_DIR}/held.service"), "contents": {"source": "data:,"}}]),
        );
        let names: Vec<&str> = found.iter().map(|f| f.0).collect();
        assert_eq!(names, ["held", "masked-required", "masked"], "{found:?}");
        assert!(found[0].1.contains("a.service (Wants=)"));
        assert!(found[1].1.contains("a.service (Requires=)"));
    }

    /// A held unit that is enabled is pulled in by the targets its [Install] section names, not
    /// by "nothing"; one enabled with an [Install] section that names none is said to be so.
    #[test]
    fn an_enabled_held_unit_is_wanted_by_its_install_targets() {
        let held = |name: &str, install: &str| {
            json!({"name": name, "enabled": true,
                   "contents": format!("[Service]\nExecStart={SCRIPT}\n{install}"),
                   "dropins": [{"name": HOLD_DROPIN, "contents": crate::passes::hold_dropin(&[name])}]})
        };
        let found = rules(
            json!([
                held("bootkube.service", "[Install]\nWantedBy=multi-user.target\n"),
                held("alias.service", "[Install]\nAlias=other.service\n"),
                {"name": "os.service", "enabled": true,
                 "dropins": [{"name": HOLD_DROPIN, "contents": crate::passes::hold_dropin(&["os.service"])}]}
            ]),
            json!([
                {"path": SCRIPT, "contents": {"source": "data:,x"}},
                {"path": format!("{HOLD_DIR}/bootkube.service"), "contents": {"source": "data:,"}},
                {"path": format!("{HOLD_DIR}/alias.service"), "contents": {"source": "data:,"}},
                {"path": format!("{HOLD_DIR}/os.service"), "contents": {"source": "data:,"}}
            ]),
        );
        let held: Vec<&String> = found
            .iter()
            .filter(|f| f.0 == "held")
            .map(|f| &f.1)
            .collect();
        assert_eq!(held.len(), 3, "{found:?}");
        assert!(
            held[0].ends_with("wanted at boot by: multi-user.target (WantedBy=, as it is enabled)"),
            "{held:?}"
        );
        assert!(
            held[1].ends_with(
                "wanted at boot by: nothing (it is enabled, but its [Install] section names no \
                 WantedBy= or RequiredBy=, so enabling it links it into nothing)"
            ),
            "{held:?}"
        );
        assert!(
            held[2].contains("its OS unit file's [Install] section"),
            "{held:?}"
        );
    }

    #[test]
    fn missing_install_units_scripts_and_hold_files() {
        let found = rules(
            json!([
                {"name": "a.service", "enabled": true,
                 "contents": "[Unit]\nWants=network-online.target nope.service systemd-udevd.service\nAfter=getty@tty1.service\n[Service]\nExecStart=-/usr/local/bin/missing.sh --flag\nExecStartPre=/usr/bin/mkdir -p /x\n"},
                {"name": "b.service", "contents": "[Unit]\n",
                 "dropins": [{"name": HOLD_DROPIN, "contents": crate::passes::hold_dropin(&["b.service"])}]},
                {"name": "c.service", "contents": "[Unit]\n",
                 "dropins": [{"name": HOLD_DROPIN, "contents": "[Unit]\n"}]}
            ]),
            json!([]),
        );
        let names: Vec<&str> = found.iter().map(|f| f.0).collect();
        assert_eq!(
            names,
            [
                "no-install-section",
                "missing-unit",
                "missing-unit",
                "missing-script",
                "hold-without-file",
                "hold-without-file"
            ],
            "{found:?}"
        );
        assert!(found[1].1.contains("nope.service"));
        assert!(found[3].1.contains("/usr/local/bin/missing.sh"));
    }

    #[test]
    fn a_clean_graph_has_nothing_to_say() {
        let found = rules(
            json!([
                {"name": "kubelet.service", "enabled": true,
                 "contents": format!("[Unit]\nWants=crio.service\nAfter=network-online.target\n[Service]\nExecStart={SCRIPT}\n[Install]\nWantedBy=multi-user.target\n")},
                {"name": "template@.service", "contents": "[Unit]\n"},
                {"name": "user.service", "contents": "[Unit]\nWants=template@x.service\n"},
                {"name": "zincati.service", "enabled": false}
            ]),
            script(),
        );
        assert!(found.is_empty(), "{found:?}");
    }
}
