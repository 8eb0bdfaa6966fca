use super::*;
use serde_json::json;

#[test]
fn summarizes_files_units_users_and_budget() {
    let doc = IgnitionDoc {
        value: json!({
            "ignition": {"version": "3.2.0"},
            "passwd": {"users": [{"name": "core", "sshAuthorizedKeys": ["ssh-ed25519 AAAA a"]}]},
            "storage": {"files": [
                {"path": "/usr/local/bin/a.sh", "mode": 493, "overwrite": true,
                 "contents": {"source": "data:,%23!%2Fbin%2Fsh%0A"}},
                {"path": "/etc/motd", "append": [{"source": "data:,hi"}]},
                {"path": "/etc/remote", "contents": {"source": "https://example.com/x"}}
            ]},
            "systemd": {"units": [
                {"name": "a.service", "enabled": false, "contents": "[Unit]\n",
                 "dropins": [{"name": HOLD_DROPIN, "contents": "[Unit]\n"}]},
                {"name": "b.service", "mask": true},
                {"name": "c.service", "contents": ""}
            ]}
        }),
    };
    let summary = summarize(&doc, &[b' '; 500]).unwrap();
    assert_eq!(summary.files[0].kind, FileKind::Script);
    assert_eq!(summary.files[0].write, "overwrite");
    assert_eq!(summary.files[1].write, "append");
    assert_eq!(summary.files[2].kind, FileKind::Remote);
    assert!(summary.units[0].held && !summary.units[0].masked);
    assert!(summary.units[1].masked);
    assert!(summary.units[0].has_contents && !summary.units[2].has_contents);
    assert_eq!(summary.users[0].ssh_keys, 1);
    let text = summary.to_string();
    assert!(text.contains("0755"), "{text}");
    assert!(text.contains("10-bootgen-hold.conf"), "{text}");
    assert!(text.contains("size budget"), "{text}");
}
