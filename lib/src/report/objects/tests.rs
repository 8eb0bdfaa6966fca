use super::*;
use crate::ignition::dataurl;
use serde_json::json;

fn config(files: &[(&str, u32, &str)], units: Value) -> IgnitionDoc {
    let files: Vec<Value> = files
        .iter()
        .map(|(path, mode, text)| {
            json!({"path": path, "mode": mode,
                   "contents": {"source": dataurl::encode(text.as_bytes())}})
        })
        .collect();
    IgnitionDoc {
        value: json!({"ignition": {"version": "3.2.0"},
                      "storage": {"files": files}, "systemd": {"units": units}}),
    }
}

/// Two views that must compare equal (`a`, `b`) and a third (`c`): the fields in which `c`
/// differs from `a`.
fn fields_differing(a: &IgnitionDoc, b: &IgnitionDoc, c: &IgnitionDoc) -> (Vec<String>, String) {
    let (a, b, c) = (
        object_view(a).unwrap(),
        object_view(b).unwrap(),
        object_view(c).unwrap(),
    );
    assert!(diff_objects(&a, &b, "a", "b").is_empty());
    let d = diff_objects(&a, &c, "a", "c");
    (
        d.changes.iter().map(|c| c.field.clone()).collect(),
        d.to_string(),
    )
}

const INFRA: &str = "/opt/openshift/manifests/cluster-infrastructure-02-config.yml";

fn infra(infra_id: &str, key: &str) -> String {
    format!(
        "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata:\n  name: cluster\n  \
         creationTimestamp: null\nspec:\n  cloudConfig:\n    name: \"\"\nstatus:\n  \
         infrastructureName: {infra_id}\n  {key}: https://api-int.c.example.com:6443\n"
    )
}

#[test]
fn per_run_ids_and_secrets_become_placeholders_and_go_empty_values_go() {
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  \
                  tls.key: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCmFiYwo=\n  other: c2VjcmV0\n";
    let doc = config(
        &[
            (INFRA, 0o644, &infra("c-x7k2p", "apiServerInternalURI")),
            ("/opt/openshift/manifests/s.yaml", 0o600, secret),
            ("/usr/local/bin/run.sh", 0o555, "#!/bin/bash\n"),
        ],
        json!([]),
    );
    let view = object_view(&doc).unwrap();
    let object = view.files[INFRA].object.clone().unwrap();
    assert_eq!(object["status"]["infrastructureName"], "<infraID>");
    assert!(object["metadata"].get("creationTimestamp").is_none());
    assert!(object["spec"].get("cloudConfig").is_none(), "{object}");
    let s = view.files["/opt/openshift/manifests/s.yaml"]
        .object
        .clone()
        .unwrap();
    assert_eq!(s["data"]["tls.key"], "<private key>");
    assert_eq!(s["data"]["other"], "<secret>");
    assert_eq!(view.files["/usr/local/bin/run.sh"].object, None);
    assert_eq!(
        view.files["/usr/local/bin/run.sh"].mode.as_deref(),
        Some("0555")
    );
}

#[test]
fn another_run_of_the_same_cluster_has_the_same_view_and_a_renamed_field_shows() {
    let a = config(
        &[(INFRA, 0o644, &infra("c-aaaaa", "apiServerInternalURI"))],
        json!([]),
    );
    let b = config(
        &[(INFRA, 0o644, &infra("c-bbbbb", "apiServerInternalURI"))],
        json!([]),
    );
    let c = config(
        &[(INFRA, 0o644, &infra("c-ccccc", "apiServerInternalURL"))],
        json!([]),
    );
    let (fields, text) = fields_differing(&a, &b, &c);
    assert_eq!(
        fields,
        [
            "object.status.apiServerInternalURI",
            "object.status.apiServerInternalURL"
        ]
    );
    assert!(text.contains("(absent)"), "{text}");
}

#[test]
fn embedded_documents_compare_by_content_and_units_by_their_graph() {
    let stored = |body: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-config-v1\ndata:\n  \
             install-config: |\n{}",
            body.lines()
                .map(|l| format!("    {l}\n"))
                .collect::<String>()
        )
    };
    let unit = |after: &str| {
        json!([{"name": "a.service", "enabled": true,
                "contents": format!("[Unit]\nAfter={after}\nDescription=x\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n")}])
    };
    let path = "/opt/openshift/manifests/cluster-config.yaml";
    let a = config(
        &[(path, 0o644, &stored("baseDomain: x\npublish: External\n"))],
        unit("b.service c.service"),
    );
    let b = config(
        &[(path, 0o644, &stored("publish: External\nbaseDomain: x\n"))],
        unit("c.service b.service"),
    );
    let c = config(
        &[(path, 0o644, &stored("baseDomain: x\n"))],
        unit("c.service"),
    );
    let (fields, _) = fields_differing(&a, &b, &c);
    assert_eq!(
        fields,
        [
            "object.data.install-config.publish",
            "directives.Unit.After"
        ]
    );
}

#[test]
fn scripts_keep_the_images_they_pull_and_nothing_else() {
    let script = "#!/usr/bin/env bash\nset -eu\n# e.g. example.com/not/this:1\n\
                  RELEASE_IMAGE=quay.io/openshift-release-dev/ocp-release:4.22.0-x86_64\n\
                  podman inspect \"registry.example.com:5000/a/b@sha256:abcd\" --format json\n\
                  TOOL=/usr/bin/x\nURL=https://x.example.com/a\nDERIVED=${RELEASE_IMAGE}\n";
    let doc = config(&[("/usr/local/bin/pull.sh", 0o555, script)], json!([]));
    let view = object_view(&doc).unwrap();
    let images: Vec<&str> = view.files["/usr/local/bin/pull.sh"]
        .images
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(
        images,
        [
            "quay.io/openshift-release-dev/ocp-release:4.22.0-x86_64",
            "registry.example.com:5000/a/b@sha256:abcd"
        ]
    );
}

#[test]
fn a_containers_flags_compare_in_any_order_but_not_their_values() {
    let pod = |args: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    args: [{args}]\n"
        )
    };
    let path = "/opt/openshift/p.yaml";
    let view = |args: &str| object_view(&config(&[(path, 0o644, &pod(args))], json!([]))).unwrap();
    let a = view("--a=1, --b=2");
    assert!(diff_objects(&a, &view("--b=2, --a=1"), "a", "b").is_empty());
    assert!(!diff_objects(&a, &view("--b=3, --a=1"), "a", "b").is_empty());
    // Positional words keep their order.
    assert!(!diff_objects(&view("run, x"), &view("x, run"), "a", "b").is_empty());
}

#[test]
fn a_unit_written_as_a_file_keeps_its_directives_and_a_changed_one_shows() {
    let pull = |after: &str| {
        format!(
            "[Unit]\nRequires=network.target NetworkManager.service\nAfter={after}\n\
             [Service]\nExecStart=/usr/local/bin/pull.sh\n[Install]\nWantedBy=multi-user.target\n"
        )
    };
    let dropin = "[Unit]\nConditionPathExists=!/etc/skip\n";
    let doc = |after: &str| {
        config(
            &[
                ("/etc/systemd/system/pull.service", 0o600, &pull(after)),
                (
                    "/etc/systemd/system/crio.service.d/10-x.conf",
                    0o644,
                    dropin,
                ),
                (
                    "/etc/systemd/system.conf.d/10-env.conf",
                    0o644,
                    "[Manager]\nAfter=x\n",
                ),
                ("/etc/systemd/system/notes.txt", 0o644, "After=x\n"),
            ],
            json!([]),
        )
    };
    let view = object_view(&doc("network.target")).unwrap();
    let unit = &view.files["/etc/systemd/system/pull.service"].directives;
    assert_eq!(unit["Unit.After"], ["network.target"]);
    assert_eq!(
        unit["Unit.Requires"],
        ["NetworkManager.service", "network.target"]
    );
    assert_eq!(unit["Install.WantedBy"], ["multi-user.target"]);
    let dropin = &view.files["/etc/systemd/system/crio.service.d/10-x.conf"].directives;
    assert_eq!(dropin["Unit.ConditionPathExists"], ["!/etc/skip"]);
    // Neither the manager's configuration nor a file that is no unit is read as a unit.
    assert!(view.files["/etc/systemd/system.conf.d/10-env.conf"]
        .directives
        .is_empty());
    assert!(view.files["/etc/systemd/system/notes.txt"]
        .directives
        .is_empty());

    let (fields, text) = fields_differing(
        &doc("network.target"),
        &doc("network.target"),
        &doc("network.target network-online.target"),
    );
    assert_eq!(fields, ["directives.Unit.After"], "{text}");
}

fn pointer(source: &str, hash: Option<&str>) -> IgnitionDoc {
    let mut merge = json!({"source": source});
    if let Some(hash) = hash {
        merge["verification"] = json!({"hash": hash});
    }
    IgnitionDoc {
        value: json!({"ignition": {"version": "3.2.0", "config": {"merge": [merge]}}}),
    }
}

/// Two pointer configs that fetch from different places, or verify different hashes, are not
/// the same objects; a URL's credentials and signature stay out of the view.
#[test]
fn what_a_config_fetches_is_part_of_its_objects() {
    let url = "https://api-int.a.example.com:22623/config/master";
    let a = object_view(&pointer(url, None)).unwrap();
    assert_eq!(a.fetched["config.merge[0]"].source, url);
    assert!(a.has_fetched());
    let elsewhere = object_view(&pointer("https://evil.example.net/master", None)).unwrap();
    let d = diff_objects(&a, &elsewhere, "a", "b");
    assert_eq!(d.changes.len(), 1, "{d}");
    assert_eq!(
        (d.changes[0].what, d.changes[0].field.as_str()),
        ("fetch", "source")
    );
    let hashed = object_view(&pointer(url, Some("sha512-00"))).unwrap();
    assert!(!diff_objects(&a, &hashed, "a", "b").is_empty());
    let secret = object_view(&pointer(
        "https://user:hunter2@h.example/x.ign?X-Amz-Signature=abcdef",
        None,
    ))
    .unwrap();
    let shown = serde_json::to_string(&secret).unwrap();
    assert!(
        !shown.contains("hunter2") && !shown.contains("abcdef"),
        "{shown}"
    );
    // An inline merged config is told by a digest long enough to tell any two apart.
    let inline =
        |text: &str| object_view(&pointer(&dataurl::encode(text.as_bytes()), None)).unwrap();
    assert!(inline("{}").fetched["config.merge[0]"]
        .source
        .starts_with("data: ("));
    assert!(!diff_objects(&inline("{}"), &inline("{ }"), "a", "b").is_empty());
    assert!(!a.clone().without_fetched().has_fetched());
}

/// A file the node fetches is told by its URL and hash, as an inline one by its contents.
#[test]
fn a_remote_file_is_told_by_where_it_comes_from() {
    let remote = |source: &str| IgnitionDoc {
        value: json!({"ignition": {"version": "3.2.0"}, "storage": {"files": [
            {"path": "/etc/x", "contents": {"source": source,
             "httpHeaders": [{"name": "Authorization", "value": "Bearer s3cr3t-t0ken"}]}}]}}),
    };
    let a = object_view(&remote("https://a.example/x")).unwrap();
    let b = object_view(&remote("https://b.example/x")).unwrap();
    assert_eq!(a.files["/etc/x"].fetched[0].headers, ["Authorization"]);
    assert!(!serde_json::to_string(&a).unwrap().contains("s3cr3t"));
    let d = diff_objects(&a, &b, "a", "b");
    assert_eq!(d.changes.len(), 1, "{d}");
    assert_eq!(d.changes[0].field, "fetched[0].source");
}

#[test]
fn a_users_groups_uid_shell_and_password_are_compared_but_never_its_hash() {
    let user = |fields: Value| {
        let mut user = json!({"name": "u", "sshAuthorizedKeys": ["ssh-ed25519 AAAA a"]});
        for (key, value) in fields.as_object().unwrap() {
            user[key] = value.clone();
        }
        IgnitionDoc {
            value: json!({"ignition": {"version": "3.3.0"}, "passwd": {"users": [user]}}),
        }
    };
    let plain = user(json!({"groups": [], "system": false}));
    let view = object_view(&plain).unwrap();
    assert_eq!(view.users["u"], UserObject::Keys(1));
    for (fields, field) in [
        (json!({"groups": ["wheel"]}), "groups"),
        (json!({"uid": 1001}), "uid"),
        (json!({"shell": "/bin/sh"}), "shell"),
        (json!({"homeDir": "/srv/u"}), "homeDir"),
        (json!({"system": true}), "system"),
        (
            json!({"passwordHash": "$6$saltsalt$SecretHashValue"}),
            "passwordHash",
        ),
    ] {
        let (fields_differing, text) = fields_differing(&plain, &user(json!({})), &user(fields));
        assert_eq!(fields_differing, [field], "{text}");
        assert!(!text.contains("SecretHashValue"), "{text}");
    }
    // A view recorded with users as key counts reads back as the same users.
    let recorded: ObjectView =
        serde_json::from_value(json!({"files": {}, "units": {}, "users": {"u": 1}})).unwrap();
    assert!(diff_objects(&recorded, &view, "a", "b").is_empty());
}

/// Ignition refuses a config defining a path twice, so the view keeps neither entry: it
/// refuses the config, naming both.
#[test]
fn a_path_defined_twice_is_refused_naming_both_entries() {
    let doc = config(
        &[("/etc/a", 0o644, "one"), ("/etc/a", 0o600, "two")],
        json!([]),
    );
    let error = object_view(&doc).unwrap_err().to_string();
    assert!(
        error.contains("$.storage.files[1]: /etc/a is also $.storage.files[0]"),
        "{error}"
    );
    assert!(object_view(&config(&[("/etc/a", 0o644, "one")], json!([]))).is_ok());
}

/// registries.conf, written line by line, keeps its empty values: a `blocked = false` line one
/// writer writes and another leaves out is a difference; a view made before the view kept them
/// (holding none) is compared with them dropped.
#[test]
fn a_toml_files_empty_values_stay_and_a_missing_line_shows() {
    const CONF: &str = "/etc/containers/registries.conf";
    let table =
        "[[registry]]\nlocation = \"q.io/a\"\ninsecure = false\nmirror-by-digest-only = true\n";
    let with_line =
        format!("{table}blocked = false\n\n[[registry.mirror]]\nlocation = \"m.io/a\"\n");
    let without = format!("{table}\n[[registry.mirror]]\nlocation = \"m.io/a\"\n");
    let (a, b, c) = (
        config(&[(CONF, 0o644, &with_line)], json!([])),
        config(&[(CONF, 0o644, &with_line)], json!([])),
        config(&[(CONF, 0o644, &without)], json!([])),
    );
    let (fields, text) = fields_differing(&a, &b, &c);
    assert_eq!(fields, ["object.registry[0].blocked"], "{text}");
    let view = object_view(&a).unwrap();
    assert_eq!(
        view.files[CONF].object.as_ref().unwrap()["registry"][0]["insecure"],
        false
    );
    assert!(view.has_toml_empty_values());
    // A view without them (an older recording's) equals one with them dropped.
    let mut older = view.clone();
    let registry = older.files.get_mut(CONF).unwrap().object.as_mut().unwrap();
    registry["registry"][0]
        .as_object_mut()
        .unwrap()
        .retain(|_, v| v != false);
    assert!(!older.has_toml_empty_values());
    let dropped = view.without_toml_empty_values();
    assert!(diff_objects(&older, &dropped, "older", "dropped").is_empty());
    assert!(!dropped.has_toml_empty_values());
}
