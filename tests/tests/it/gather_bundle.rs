//! The log bundle bootgen's `installer-gather.sh` writes has the installer's layout, so that
//! `openshift-install gather bootstrap` merges it without nesting and its analysis
//! (`pkg/gather/service`) finds the service records.
//!
//! The script runs for real against a scripted node (`bootgen_conformance::failing_node`), whose
//! service records come from bootgen's real `bootstrap-service-record.sh`. The facts checked are
//! the installer's (releases 4.10 to 4.21 and main): the archive's top directory is
//! `log-bundle-ID` (its `tar --transform` of `.`), records are at
//! `TOP/bootstrap/services/SERVICE.json` with no dot in SERVICE (the analysis' path pattern, which
//! also accepts `TOP/log-bundle-bootstrap/bootstrap/services/` for a single node), each a JSON array
//! of objects with the fields of its `Entry` type and its phase and result words.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read as _;
use std::path::Path;

use bootgen_conformance::failing_node::FailingNode;
use serde_json::Value;

/// The fields of the installer's service `Entry` (`pkg/gather/service/entry.go`). Before main,
/// the Go tag of the stage was `string` (a typo), so those releases' analysis never sees the
/// stage; the scripts of every release write `stage`.
const ENTRY_FIELDS: &[&str] = &[
    "timestamp",
    "phase",
    "result",
    "stage",
    "preCommand",
    "postCommand",
    "errorLine",
    "errorMessage",
];

/// The installer's `Phase` values.
const PHASES: &[&str] = &[
    "service start",
    "service end",
    "stage start",
    "stage end",
    "pre-command start",
    "pre-command end",
    "post-command start",
    "post-command end",
];

/// The installer's `Result` values.
const RESULTS: &[&str] = &["success", "failure"];

/// Reads every regular file of a tar.gz: name to contents; directories as names ending in `/`.
fn bundle_entries(path: &Path) -> BTreeMap<String, Vec<u8>> {
    let file = fs::File::open(path).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut entries = BTreeMap::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().display().to_string();
        let mut contents = Vec::new();
        entry.read_to_end(&mut contents).unwrap();
        entries.insert(name, contents);
    }
    entries
}

/// The service name if `name` is where the installer's analysis looks for service records:
/// `TOP/bootstrap/services/SERVICE.json` or `TOP/log-bundle-bootstrap/bootstrap/services/...`,
/// TOP one path component, SERVICE without a dot.
fn analysed_service(name: &str) -> Option<&str> {
    let parts: Vec<&str> = name.split('/').collect();
    let rest = match parts.as_slice() {
        [top, rest @ ..] if !top.is_empty() => rest,
        _ => return None,
    };
    let rest = match rest {
        ["log-bundle-bootstrap", rest @ ..] => rest,
        rest => rest,
    };
    match rest {
        ["bootstrap", "services", file] => {
            let service = file.strip_suffix(".json")?;
            (!service.is_empty() && !service.contains('.')).then_some(service)
        }
        _ => None,
    }
}

/// The records of a service file, checked against the installer's `Entry` type.
fn entries_of(name: &str, contents: &[u8]) -> Vec<Value> {
    let Value::Array(entries) = serde_json::from_slice::<Value>(contents).unwrap() else {
        panic!("{name} is not a JSON array");
    };
    for entry in &entries {
        let object = entry.as_object().unwrap();
        for (key, value) in object {
            assert!(
                ENTRY_FIELDS.contains(&key.as_str()),
                "{name}: field {key} is not in the installer's Entry"
            );
            assert!(value.is_string(), "{name}: {key} is not a string");
        }
        let phase = entry["phase"].as_str().unwrap();
        assert!(PHASES.contains(&phase), "{name}: phase {phase:?}");
        if let Some(result) = entry.get("result") {
            assert!(
                RESULTS.contains(&result.as_str().unwrap()),
                "{name}: result {result}"
            );
        }
    }
    entries
}

/// A node whose release image was pulled and whose bootkube failed in etcd-bootstrap.
fn failed_node() -> FailingNode {
    FailingNode::release_pulled()
        .unwrap()
        .journal(
            "bootkube.service",
            "2026-01-01T01:02:03+0000 bootstrap bootkube.sh[2001]: Starting etcd\n\
             2026-01-01T01:02:04+0000 bootstrap bootkube.sh[2001]: etcd render failed\n",
        )
        .unwrap()
        .service(
            "bootkube",
            "record_service_stage_start openshift-manifests\nrecord_service_stage_success\n\
             record_service_stage_start etcd-bootstrap\nexit 1",
        )
        .unwrap()
        .file("/opt/openshift/openshift-manifests.done", "")
        .unwrap()
        .failed_unit("bootkube.service")
        .unwrap()
        .crio_container("etcd", "0a1b2c", "etcd log line\n")
        .unwrap()
        .podman_container("etcd-render", "3d4e5f", "render log line\n")
        .unwrap()
}

#[test]
fn bundle_has_the_installers_layout_and_records() {
    let node = failed_node();
    let bundle = node.gather("20260101010500").unwrap();
    let entries = bundle_entries(&bundle);
    let top = "log-bundle-20260101010500";

    for name in entries.keys() {
        assert!(
            name == top || name.starts_with(&format!("{top}/")),
            "{name} is outside the top directory {top}"
        );
    }
    for expected in [
        "bootstrap/services/release-image.json",
        "bootstrap/services/bootkube.json",
        "bootstrap/journals/bootkube.log",
        "bootstrap/journals/journal.log.gz",
        "bootstrap/network/resolv.conf",
        "bootstrap/containers/etcd-0a1b2c.log",
        "bootstrap/containers/etcd-0a1b2c.inspect",
        "bootstrap/pods/etcd-render-3d4e5f.log",
        "bootstrap/done-markers.txt",
        "failed-units.txt",
        "unit-status/bootkube.service.txt",
        "unit-status/bootkube.service.log",
        "gather.log",
    ] {
        let name = format!("{top}/{expected}");
        assert!(
            entries.contains_key(&name),
            "no {name} in {:?}",
            entries.keys()
        );
    }
    let journal =
        String::from_utf8_lossy(&entries[&format!("{top}/bootstrap/journals/bootkube.log")]);
    assert!(journal.contains("etcd render failed"), "{journal}");
    let markers = String::from_utf8_lossy(&entries[&format!("{top}/bootstrap/done-markers.txt")]);
    assert!(markers.contains("openshift-manifests.done"), "{markers}");

    // What the installer's analysis reads: both services found, by its path pattern.
    let services: BTreeSet<&str> = entries.keys().filter_map(|n| analysed_service(n)).collect();
    assert_eq!(
        services,
        BTreeSet::from(["bootkube", "release-image"]),
        "services the analysis would find"
    );
    // release-image: its last entry is a successful service end, which is what the analysis
    // counts as a pulled release image.
    let release = entries_of(
        "release-image.json",
        &entries[&format!("{top}/bootstrap/services/release-image.json")],
    );
    let last = release.last().unwrap();
    assert_eq!(
        (last["phase"].as_str(), last["result"].as_str()),
        (Some("service end"), Some("success"))
    );
    // bootkube: the failed stage is closed by a failing "stage end" naming it, with the journal's
    // last lines as the message, then the failing "service end".
    let bootkube = entries_of(
        "bootkube.json",
        &entries[&format!("{top}/bootstrap/services/bootkube.json")],
    );
    let starts = bootkube
        .iter()
        .filter(|e| e["phase"] == "service start")
        .count();
    assert_eq!(starts, 1);
    let n = bootkube.len();
    let (stage_end, service_end) = (&bootkube[n - 2], &bootkube[n - 1]);
    assert_eq!(stage_end["phase"], "stage end");
    assert_eq!(stage_end["stage"], "etcd-bootstrap");
    assert_eq!(stage_end["result"], "failure");
    assert!(
        stage_end["errorMessage"]
            .as_str()
            .unwrap()
            .contains("etcd render failed"),
        "{stage_end}"
    );
    assert_eq!(service_end["phase"], "service end");
    assert_eq!(service_end["result"], "failure");
}

#[test]
fn single_node_bundle_carries_the_pre_reboot_bundle_where_the_analysis_looks() {
    let node = failed_node();
    // Before the reboot: bootstrap-in-place.sh gathers with the ID "bootstrap".
    let first = node.gather("bootstrap").unwrap();
    let carried = node.node_path("/var/log/log-bundle-bootstrap.tar.gz");
    fs::copy(&first, &carried).unwrap();
    let kubelet = "2026-01-01T02:00:00+0000 master-0 kubenswrapper[1900]: I0101 02:00:00.000000    1900 server.go:837] \"Client rotation is on, will bootstrap in background\"\n";
    let node = node.journal("kubelet.service", kubelet).unwrap();

    let bundle = node.gather("20260101020000").unwrap();
    let entries = bundle_entries(&bundle);
    // The installed node as the control plane, by bootgen's real installer-masters-gather.sh
    // streaming its artifacts (the harness checks that nothing is left in its scratch directory).
    let own = "log-bundle-20260101020000/control-plane/master/journals/kubelet.log";
    assert!(
        String::from_utf8_lossy(&entries[own]).contains("Client rotation is on"),
        "{own}"
    );
    let nested = "log-bundle-20260101020000/log-bundle-bootstrap/bootstrap/services/bootkube.json";
    assert!(
        entries.contains_key(nested),
        "no {nested} in {:?}",
        entries.keys()
    );
    assert_eq!(analysed_service(nested), Some("bootkube"));
    entries_of(nested, &entries[nested]);
}

#[test]
fn the_path_rule_matches_the_installers_examples() {
    // The two examples in the installer's comment, and names it does not read.
    assert_eq!(
        analysed_service("log-bundle-20210329190553/bootstrap/services/release-image.json"),
        Some("release-image")
    );
    assert_eq!(
        analysed_service(
            "log-bundle-20210329190553/log-bundle-bootstrap/bootstrap/services/release-image.json"
        ),
        Some("release-image")
    );
    assert_eq!(
        analysed_service("artifacts-1/x/bootstrap/services/a.json"),
        None
    );
    assert_eq!(
        analysed_service("log-bundle-1/bootstrap/progress/a.json"),
        None
    );
    assert_eq!(
        analysed_service("log-bundle-1/bootstrap/services/a.b.json"),
        None
    );
}
