//! `bootgen diff` on hand-written configs of any spec: each pair differs in one thing the node
//! acts on, and the diff must name it (exit 1) without showing a secret.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{json, Value};
use std::process::Output;

/// Writes `a` and `b` into a temporary directory and runs `bootgen diff` (with `extra`) on them.
fn diff(a: &Value, b: &Value, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.ign"), dir.path().join("b.ign"));
    std::fs::write(&pa, a.to_string()).unwrap();
    std::fs::write(&pb, b.to_string()).unwrap();
    bootgen_conformance::bootgen!()
        .arg("diff")
        .args(extra)
        .args([&pa, &pb])
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A 3.3.0 config with one file `/etc/a` made of `entry` (`path` added).
fn with_file(entry: Value) -> Value {
    let mut entry = entry;
    entry["path"] = json!("/etc/a");
    json!({"ignition": {"version": "3.3.0"}, "storage": {"files": [entry]}})
}

/// Asserts that the diff of `a` and `b` exits 1 and says each of `expected`.
fn differs(a: &Value, b: &Value, extra: &[&str], expected: &[&str]) -> String {
    let output = diff(a, b, extra);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{a} {b}: {output:?}");
    for fragment in expected {
        assert!(
            shown.contains(fragment),
            "{a} {b}: no `{fragment}` in\n{shown}"
        );
    }
    shown
}

fn remote(extra: Value) -> Value {
    let mut contents = json!({
        "source": "https://example.com/a",
        "verification": {"hash": format!("sha512-{}", "ab".repeat(64))},
    });
    for (key, value) in extra.as_object().unwrap() {
        contents[key] = value.clone();
    }
    with_file(json!({"contents": contents}))
}

#[test]
fn what_the_node_checks_of_a_fetched_resource_is_a_difference() {
    let base = remote(json!({}));
    let other_hash = format!("sha512-{}", "ac".repeat(64));
    differs(
        &base,
        &remote(json!({"verification": {"hash": other_hash}})),
        &[],
        &["contents hash sha512-abab", "-> sha512-acac"],
    );
    let with_header =
        remote(json!({"httpHeaders": [{"name": "Authorization", "value": "Bearer s3cr3tT0ken"}]}));
    let shown = differs(
        &base,
        &with_header,
        &[],
        &["contents HTTP headers [] -> [Authorization: <redacted hmac:"],
    );
    assert!(!shown.contains("s3cr3tT0ken"), "{shown}");
    differs(
        &base,
        &remote(json!({"compression": "gzip"})),
        &[],
        &["contents compression unset -> gzip"],
    );
    differs(
        &base,
        &remote(json!({"compression": "gzip"})),
        &["--objects"],
        &["compression"],
    );
    let append = |hash: &str| {
        with_file(json!({"append": [{
            "source": "https://h/x",
            "verification": {"hash": format!("sha256-{}", hash.repeat(64))},
        }]}))
    };
    differs(
        &append("a"),
        &append("b"),
        &[],
        &["append[0] hash sha256-aaaa"],
    );
    // A data URL's hash the files stage checks too: a wrong one fails the boot.
    let data = with_file(json!({"contents": {"source": "data:,x"}}));
    let zeros = format!("sha256-{}", "0".repeat(64));
    differs(
        &data,
        &with_file(json!({"contents": {"source": "data:,x", "verification": {"hash": zeros}}})),
        &[],
        &["contents hash unset -> sha256-0000"],
    );
}

#[test]
fn a_files_group_and_a_directorys_or_links_owner_are_differences() {
    let file = |group: Value| with_file(json!({"contents": {"source": "data:,x"}, "group": group}));
    differs(
        &file(json!({"id": 0})),
        &file(json!({"id": 10})),
        &[],
        &["group unset -> 10"],
    );
    differs(
        &file(json!({})),
        &file(json!({"name": "wheel"})),
        &[],
        &["group unset -> wheel"],
    );
    for (list, what) in [("directories", "directory"), ("links", "link")] {
        let entry = |group: Value| {
            let mut entry = json!({"path": "/etc/d", "group": group});
            if list == "links" {
                entry["target"] = json!("/etc/t");
            }
            json!({"ignition": {"version": "3.3.0"}, "storage": {list: [entry]}})
        };
        let changed = format!("~ {what} /etc/d\n    group unset -> {{\"id\":10}}");
        differs(
            &entry(json!({"id": 0})),
            &entry(json!({"id": 10})),
            &[],
            &[&changed],
        );
        same(&entry(json!({"id": 0})), &entry(json!({})));
    }
}

#[test]
fn objects_compare_what_a_user_may_do_without_showing_its_password_hash() {
    let user = |fields: Value| {
        let mut user = json!({"name": "u"});
        for (key, value) in fields.as_object().unwrap() {
            user[key] = value.clone();
        }
        json!({"ignition": {"version": "3.3.0"}, "passwd": {"users": [user]}})
    };
    let plain = user(json!({}));
    let hash = "$6$rounds=4096$saltsalt$Hunter2HashTail";
    for (fields, expected) in [
        (
            json!({"groups": ["wheel"]}),
            "~ user u: groups: (absent) -> [\"wheel\"]",
        ),
        (json!({"uid": 1001}), "~ user u: uid: (absent) -> 1001"),
        (json!({"shell": "/bin/sh"}), "shell"),
        (json!({"homeDir": "/srv/u"}), "homeDir"),
        (json!({"system": true}), "system"),
        (
            json!({"passwordHash": hash}),
            "~ user u: passwordHash: (absent) -> \"<redacted>\"",
        ),
    ] {
        let shown = differs(&plain, &user(fields), &["--objects"], &[expected]);
        assert!(!shown.contains("Hunter2HashTail"), "{shown}");
    }
    let output = diff(&plain, &user(json!({"groups": []})), &["--objects"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

/// Asserts that `a` and `b` are the same config to `diff`.
fn same(a: &Value, b: &Value) {
    let output = diff(a, b, &[]);
    assert_eq!(output.status.code(), Some(0), "{a} {b}: {}", text(&output));
}

#[test]
fn defaults_spelled_out_are_no_difference() {
    let file = |extra: Value| {
        let mut entry = json!({"contents": {"source": "data:,x"}});
        for (key, value) in extra.as_object().unwrap() {
            entry[key] = value.clone();
        }
        with_file(entry)
    };
    let plain = file(json!({}));
    same(&plain, &file(json!({"overwrite": false})));
    same(&plain, &file(json!({"mode": 420})));
    same(
        &plain,
        &file(json!({"user": {"id": 0}, "group": {"id": 0}})),
    );
    let unit = |extra: Value| {
        let mut unit = json!({"name": "a.service", "contents": "[Service]\nExecStart=/bin/true\n"});
        for (key, value) in extra.as_object().unwrap() {
            unit[key] = value.clone();
        }
        json!({"ignition": {"version": "3.3.0"}, "systemd": {"units": [unit]}})
    };
    same(&unit(json!({})), &unit(json!({"mask": false})));
    // What is not a default still is a difference.
    differs(
        &plain,
        &file(json!({"mode": 384})),
        &[],
        &["mode 0644 -> 0600"],
    );
    differs(
        &plain,
        &file(json!({"user": {"id": 1000}})),
        &[],
        &["owner unset -> 1000"],
    );
}

#[test]
fn directories_links_and_groups_are_matched_by_path_or_name() {
    let storage = |directories: Value, links: Value, groups: Value| {
        json!({"ignition": {"version": "3.3.0"},
               "storage": {"directories": directories, "links": links},
               "passwd": {"groups": groups}})
    };
    let a = storage(
        json!([{"path": "/a"}, {"path": "/b", "mode": 493}]),
        json!([{"path": "/l1", "target": "/a"}, {"path": "/l2", "target": "/b"}]),
        json!([{"name": "g1"}, {"name": "g2", "gid": 2000}]),
    );
    let reordered = storage(
        json!([{"path": "/b", "mode": 493}, {"path": "/a", "overwrite": false, "mode": 493}]),
        json!([{"path": "/l2", "target": "/b", "hard": false}, {"path": "/l1", "target": "/a"}]),
        json!([{"name": "g2", "gid": 2000}, {"name": "g1"}]),
    );
    same(&a, &reordered);
    let changed = storage(
        json!([{"path": "/a"}, {"path": "/b", "mode": 448}]),
        json!([{"path": "/l1", "target": "/a"}, {"path": "/l2", "target": "/c"}]),
        json!([{"name": "g1"}, {"name": "g2", "gid": 2001, "passwordHash": "$6$salt$GroupHashSecret"}]),
    );
    let shown = differs(
        &a,
        &changed,
        &[],
        &[
            "~ directory /b\n    mode unset -> 448",
            "~ link /l2\n    target \"/b\" -> \"/c\"",
            "~ group g2\n    gid 2000 -> 2001",
            "passwordHash unset -> <password hash hmac:",
        ],
    );
    assert!(!shown.contains("GroupHashSecret"), "{shown}");
}

/// A user or group without a name (`{}`, `"name": null`, or a `null` entry: Go reads the name as
/// empty, and Ignition takes one) is named by its place, as its list and index, in each
/// config, and matched with the other config's nameless one: added, removed, or changed
/// (its password hash as a digest).
#[test]
fn an_entry_without_a_name_is_named_by_its_place() {
    let passwd = |users: Value, groups: Value| json!({"ignition": {"version": "3.3.0"}, "passwd": {"users": users, "groups": groups}});
    let named = passwd(json!([{"name": "core"}]), json!([{"name": "g"}]));
    let nameless = passwd(
        json!([{"name": "core"}, {"uid": 5}]),
        json!([null, {"name": "g"}]),
    );
    differs(
        &named,
        &nameless,
        &[],
        &[
            "+ user (no name) at $.passwd.users[1]\n",
            "+ group (no name) at $.passwd.groups[0]\n",
        ],
    );
    let shown = differs(
        &nameless,
        &named,
        &[],
        &[
            "- user (no name) at $.passwd.users[1]\n",
            "- group (no name) at $.passwd.groups[0]\n",
        ],
    );
    assert!(!shown.contains("user \n"), "{shown}");
    let changed = passwd(
        json!([{"name": null, "uid": 6, "passwordHash": "$6$salt$UserHashSecret"}, {"name": "core"}]),
        json!([{"name": "g"}, {"gid": 7}]),
    );
    let shown = differs(
        &nameless,
        &changed,
        &[],
        &[
            "~ user (no name) at $.passwd.users[0]\n    password hash changed (unset -> <password hash hmac:",
            "    uid changed",
            "~ group (no name) at $.passwd.groups[1]\n    gid unset -> 7",
        ],
    );
    assert!(!shown.contains("UserHashSecret"), "{shown}");
}

/// A key given twice in one JSON object is named as what it is, with its place, not as a
/// schema mismatch; so is it by `inspect --objects` and `diff --objects`.
#[test]
fn a_key_given_twice_is_named_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let twice = dir.path().join("twice.ign");
    std::fs::write(
        &twice,
        r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/a","mode":420,"mode":384}]}}"#,
    )
    .unwrap();
    let once = dir.path().join("once.ign");
    std::fs::write(&once, with_file(json!({})).to_string()).unwrap();
    for args in [
        vec!["diff", "once.ign", "twice.ign"],
        vec!["diff", "--objects", "once.ign", "twice.ign"],
        vec!["inspect", "twice.ign"],
    ] {
        let output = bootgen_conformance::bootgen!()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert_ne!(output.status.code(), Some(0), "{args:?}: {output:?}");
        assert!(
            said.contains("twice.ign: key `mode` is given twice in one object")
                && said.contains("(line 1, column 82)")
                && !said.contains("schema"),
            "{args:?}: {said}"
        );
    }
}

#[test]
fn a_config_that_defines_a_path_twice_is_refused() {
    let twice = json!({"ignition": {"version": "3.3.0"}, "storage": {"files": [
        {"path": "/etc/a", "contents": {"source": "data:,x"}},
        {"path": "/etc/a", "contents": {"source": "data:,y"}}]}});
    let once = with_file(json!({"contents": {"source": "data:,y"}}));
    let output = diff(&twice, &once, &[]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(said.contains("/etc/a is also $.storage.files[0]"), "{said}");
}

/// An added file shows its text as added lines, its secrets hidden as in every view: a pull
/// secret's auth and a key never appear.
#[test]
fn an_added_file_shows_its_text_with_secrets_hidden() {
    let auth = "dXNlcjpzM2NyM3RQdWxsU2VjcmV0";
    let pull = json!({"auths": {"quay.io": {"auth": auth}}}).to_string();
    let data = |text: &str| format!("data:,{}", bootgen_conformance::percent_encode(text));
    let old = json!({"ignition": {"version": "3.3.0"}});
    let new = json!({"ignition": {"version": "3.3.0"}, "storage": {"files": [
        {"path": "/etc/motd", "mode": 420, "contents": {"source": data("welcome to the node\n")}},
        {"path": "/var/lib/kubelet/config.json", "mode": 384, "contents": {"source": data(&pull)}}
    ]}});
    let shown = differs(
        &old,
        &new,
        &[],
        &[
            "+ file /etc/motd\n    mode 0644, 20 bytes, text\n    +welcome to the node\n",
            "+ file /var/lib/kubelet/config.json",
            "quay.io",
        ],
    );
    assert!(
        !shown.contains(auth) && !shown.contains("s3cr3t"),
        "{shown}"
    );
}

/// Two pointer configs whose merges differ only by `"compression": null` against no field are
/// the same config as Ignition reads it; a merge that does differ names the field, old and new.
#[test]
fn a_null_field_is_the_absent_one_and_a_merge_names_what_differs() {
    let pointer =
        |merge: Value| json!({"ignition": {"version": "3.2.0", "config": {"merge": [merge]}}});
    let source = "https://api-int.example.com:22623/config/worker";
    let absent = pointer(json!({"source": source}));
    let null = pointer(json!({"source": source, "compression": null}));
    let output = diff(&absent, &null, &[]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        text(&output).ends_with("are the same config\n"),
        "{output:?}"
    );
    differs(
        &null,
        &pointer(json!({"source": source, "compression": "gzip"})),
        &[],
        &["+ other $.ignition.config.merge[0].compression\n    \"gzip\"\n"],
    );
    let with_credentials = "https://user:hunter2pass@api-int.example.com:22623/config/worker";
    let shown = differs(
        &absent,
        &pointer(json!({"source": with_credentials})),
        &[],
        &[&format!(
            "~ other $.ignition.config.merge[0].source\n    \"{source}\" -> \"https://"
        )],
    );
    assert!(!shown.contains("hunter2pass"), "{shown}");
}

/// A config against the live ISO that embeds it is compared with the embedded config: the same
/// config (exit 0); a config the ISO does not embed differs by what differs in the configs.
/// (What only media carry, the kernel arguments and install target, is compared between two
/// media.)
#[test]
fn a_config_against_the_iso_embedding_it_compares_the_embedded_config() {
    use bootgen_conformance::live_iso::{live_iso, EMBED_SIZE};
    let dir = tempfile::tempdir().unwrap();
    let live = live_iso(dir.path(), "x86_64", EMBED_SIZE);
    let motd = |text: &str| {
        json!({"ignition": {"version": "3.2.0"}, "storage": {"files": [
            {"path": "/etc/motd", "mode": 420,
             "contents": {"source": format!("data:,{}", bootgen_conformance::percent_encode(text))}}
        ]}})
    };
    let (config, other) = (dir.path().join("a.ign"), dir.path().join("b.ign"));
    std::fs::write(&config, motd("hello\n").to_string()).unwrap();
    std::fs::write(&other, motd("goodbye\n").to_string()).unwrap();
    let embedded = dir.path().join("node.iso");
    let made = bootgen_conformance::bootgen!()
        .arg("iso")
        .arg(&live)
        .arg("-c")
        .arg(&config)
        .arg("-o")
        .arg(&embedded)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let run = |a: &std::path::Path, b: &std::path::Path| {
        bootgen_conformance::bootgen!()
            .arg("diff")
            .args([a, b])
            .output()
            .unwrap()
    };
    for (a, b) in [(&config, &embedded), (&embedded, &config)] {
        let same = run(a, b);
        assert_eq!(same.status.code(), Some(0), "{}", text(&same));
        assert!(
            text(&same).ends_with("are the same config\n"),
            "{}",
            text(&same)
        );
        assert!(!text(&same).contains("boot media"), "{}", text(&same));
    }
    let differs = run(&other, &embedded);
    let shown = text(&differs);
    assert_eq!(differs.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains("~ file /etc/motd")
            && shown.contains("-goodbye")
            && shown.contains("+hello"),
        "{shown}"
    );
    assert!(!shown.contains("boot media"), "{shown}");
}
