use super::*;

const D: Redact = Redact::WithDigest;

#[test]
fn a_secrets_data_and_string_data_are_hidden_with_a_digest() {
    let text = "apiVersion: v1\ndata:\n  user: dXNlcg==\n  \"vc.password\": \"cGFzcw==\"\nkind: Secret\nstringData:\n  tls.key: |\n    -----BEGIN EC PRIVATE KEY-----\n    MHcCAQEE\n    -----END EC PRIVATE KEY-----\nmetadata:\n  name: creds\n---\nkind: ConfigMap\ndata:\n  plain: visible\n";
    let shown = D.text(text);
    for hidden in ["dXNlcg", "cGFzcw", "MHcCAQEE", "PRIVATE KEY"] {
        assert!(!shown.contains(hidden), "{hidden} in\n{shown}");
    }
    assert!(
        shown.contains(&format!("  user: <redacted {}>\n", digest(b"dXNlcg=="))),
        "{shown}"
    );
    assert!(shown.contains("  tls.key: <redacted hmac:"), "{shown}");
    assert!(shown.contains("metadata:\n  name: creds\n"), "{shown}");
    assert!(shown.contains("  plain: visible\n"), "{shown}");
}

/// `kind` as the YAML parser reads it (the Secret bootgen writes 0600), not as one spelling:
/// a comment after it, more spaces, quotes, and the Secrets inside a `List`.
#[test]
fn a_secret_is_known_however_its_kind_is_written() {
    for kind in [
        "kind: Secret  # registry credentials",
        "kind:   Secret",
        "kind: \"Secret\" # quoted",
        "kind: 'Secret'",
    ] {
        let text = format!(
            "apiVersion: v1\n{kind}\nmetadata:\n  name: creds\n  data: shown\ndata:\n  creds: U2VjcmV0T25lQUFB\nstringData:\n  plain: PlainTextSecret9\n"
        );
        let shown = D.text(&text);
        for hidden in ["U2VjcmV0T25lQUFB", "PlainTextSecret9"] {
            assert!(!shown.contains(hidden), "{kind}: {hidden} in\n{shown}");
        }
        assert!(shown.contains("  name: creds\n  data: shown\n"), "{shown}");
    }
    let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n  data:\n    creds: U2VjcmV0T25lQUFB\n- kind: Secret\n  stringData:\n    token: |\n      PlainTextSecret9\n";
    let shown = D.text(list);
    for hidden in ["U2VjcmV0T25lQUFB", "PlainTextSecret9"] {
        assert!(!shown.contains(hidden), "{hidden} in\n{shown}");
    }
    assert!(shown.contains("    name: a\n"), "{shown}");
    // A ConfigMap alone keeps its data.
    let config_map = "kind: ConfigMap # not a Secret\ndata:\n  plain: visible\n";
    assert_eq!(D.text(config_map), config_map);
}

/// Password hashes of every crypt scheme a node or an htpasswd file uses; prices and shell
/// variables are not hashes.
#[test]
fn password_hashes_of_each_crypt_scheme_are_hidden() {
    for hash in [
        "$6$rounds=5000$Zm9vYmFy$Q1w2e3r4t5y6u7i8o9p0aSdFgHjKlZxCvBnM1234567890abcdefghijklmnopqrstuvwxyzABCDEF.",
        "$6$Zm9vYmFyYmF6$Q1w2e3r4t5y6u7i8o9p0aSdFgHjKlZxCvBnM123456",
        "$5$Zm9vYmFy$Q1w2e3r4t5y6u7i8o9p0aSdFgHjKlZxCvBn",
        "$y$j9T$Zm9vYmFyYmF6cXV4$Q1w2e3r4t5y6u7i8o9p0aSdFgHjKlZxCvBnM12345",
        "$apr1$Zm9vYmFy$Q1w2e3r4t5y6u7i8o9p0aS",
        "$1$Zm9vYmFy$Q1w2e3r4t5y6u7i8o9p0aS",
        &format!("$2y$10${}", "b".repeat(53)),
    ] {
        let text = format!("core:{hash}:19000:0:99999:7:::\nadmin:{hash}\n");
        let shown = D.text(&text);
        assert!(!shown.contains("Q1w2e3r4") && !shown.contains("bbbbbbbb"), "{shown}");
        assert!(shown.starts_with("core:<password hash hmac:"), "{shown}");
    }
    for kept in [
        "costs $6$ a month",
        "echo $HOME$PATH",
        "price: $5$10$20",
        "$1$abc$short",
    ] {
        assert_eq!(D.text(kept), kept);
    }
}

#[test]
fn secret_keys_urls_tokens_and_hashes_are_hidden_anywhere() {
    let hash = format!("$2a$10${}", "a".repeat(53));
    let text = format!(
        "{{\n  \"vCenter\": \"vc.example.org\",\n  \"password\": \"VcPass1\",\n  \"x\": 1\n}}\nexport HTTP_PROXY='http://user:ProxyPw@proxy:3128'\nAuthorization: Bearer abc.def-123\nhash {hash}\n    token: sha256~tok3n\n"
    );
    let shown = D.text(&text);
    for hidden in [
        "VcPass1",
        "ProxyPw",
        "user:",
        "abc.def-123",
        "$2a$",
        "tok3n",
    ] {
        assert!(!shown.contains(hidden), "{hidden} in\n{shown}");
    }
    assert!(
        shown.contains("\"vCenter\": \"vc.example.org\","),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("\"password\": <redacted {}>,", digest(b"VcPass1"))),
        "{shown}"
    );
    assert!(shown.contains("'http://<redacted hmac:"), "{shown}");
    assert!(shown.contains("@proxy:3128'"), "{shown}");
    // Prose is not a token.
    assert_eq!(D.text("Bearer authentication\n"), "Bearer authentication\n");
}

#[test]
fn a_pull_secret_keeps_its_registries_and_hides_their_credentials() {
    let text = r#"{"auths":{"quay.io":{"auth":"dXNlcjpwdw==","email":"me@example.com"}}}"#;
    let shown = D.text(text);
    assert!(
        shown.starts_with(r#"{"auths":{"quay.io":"<redacted hmac:"#),
        "{shown}"
    );
    assert!(
        !shown.contains("dXNlcjpw") && !shown.contains("me@"),
        "{shown}"
    );
    // The marker alone for views that must not change from run to run.
    assert_eq!(
        Redact::Marker.text(text),
        r#"{"auths":{"quay.io":"<redacted>"}}"#
    );
}

#[test]
fn the_digest_is_short_and_changes_with_the_value() {
    assert_eq!(digest(b"a").len(), "hmac:".len() + DIGEST_HEX);
    assert_ne!(digest(b"password1"), digest(b"password2"));
    assert_eq!(D.text("password: same\n"), D.text("password: same\n"));
}

#[test]
fn text_without_secrets_is_left_as_it_was() {
    for text in [
        "[Unit]\nAfter=network.target\n",
        "key: value\nlist:\n- a: b\npassword: \"\"\n",
        "https://example.org/path?q=1 and mail@example.org\n",
        "{\"a\": [1, 2]}",
    ] {
        assert_eq!(D.text(text), text);
    }
}

#[test]
fn certificates_in_a_secret_stay_readable_its_key_does_not() {
    use base64::Engine as _;
    let b64 = |t: &str| base64::engine::general_purpose::STANDARD.encode(t);
    let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    let key = "-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\n";
    let both = format!("{cert}{key}");
    let text = format!(
        "kind: Secret\ndata:\n  tls.crt: {}\n  tls.key: {}\n  both: {}\n",
        b64(cert),
        b64(key),
        b64(&both)
    );
    let shown = D.secrets(&text);
    assert!(shown.contains(&b64(cert)), "{shown}");
    let block = "kind: Secret\nstringData:\n  ca.crt: |\n    -----BEGIN CERTIFICATE-----\n    MIIB\n    -----END CERTIFICATE-----\n";
    assert_eq!(D.secrets(block), block);
    assert!(
        !shown.contains(&b64(key)) && !shown.contains(&b64(&both)),
        "{shown}"
    );
}

/// Whatever a config holds (it is user input), hiding its secrets does not panic.
#[test]
fn any_text_is_redacted_without_a_panic() {
    let pieces = [
        "é",
        "\n",
        " ",
        "- ",
        ":",
        "'",
        "\"",
        "|",
        "password",
        "kind: Secret",
        "data:",
        "://",
        "@",
        "Bearer ",
        "$2a$10$",
        "{",
        "[",
        "-----BEGIN ",
        ",",
        "ü:",
        "x",
    ];
    // Every sequence of three pieces.
    let n = pieces.len();
    for i in 0..n.pow(3) {
        let text: String = (0..3).map(|k| pieces[(i / n.pow(k)) % n]).collect();
        for mode in [Redact::WithDigest, Redact::Marker] {
            let _ = mode.text(&text);
            let _ = mode.secrets(&format!("kind: Secret\ndata:\n  {text}\n{text}"));
        }
    }
}

#[test]
fn signing_parameters_of_a_url_are_hidden_and_others_kept() {
    let text = "https://bucket.s3.amazonaws.com/b?X-Amz-Credential=AKIAEXAMPLE&X-Amz-Date=20260101&X-Amz-Signature=deadbeefsecret\nhttps://acct.blob.core.windows.net/c/b.ign?sv=2024&sig=SasSecret%3D&se=x\nhttps://h/p?access_token=Tok3nValue#frag\n";
    let shown = D.inline(text);
    for hidden in ["AKIAEXAMPLE", "deadbeefsecret", "SasSecret", "Tok3nValue"] {
        assert!(!shown.contains(hidden), "{hidden} in\n{shown}");
    }
    for kept in [
        "X-Amz-Date=20260101",
        "sv=2024",
        "se=x",
        "#frag",
        "X-Amz-Signature=<redacted hmac:",
    ] {
        assert!(shown.contains(kept), "{kept} not in\n{shown}");
    }
    assert_eq!(
        D.inline("https://h/p?page=2&sort=name"),
        "https://h/p?page=2&sort=name"
    );
}

/// A script's `DB_PASS=` and curl's `-u user:password` are hidden in every view (the user stays
/// shown); a name that only ends in "pass" (`BYPASS`) and curl's prompt form are not.
#[test]
fn a_pass_variable_and_a_curl_password_in_a_script_are_hidden() {
    let script = "#!/bin/bash\nDB_PASS=hunter2\nBYPASS=1\ncurl -sSu admin:hunter2curl https://h/x\ncurl --user admin https://h/y\n";
    for mode in [Redact::WithDigest, Redact::Marker] {
        let shown = mode.text(script);
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("curl -sSu admin:<redacted"), "{shown}");
        assert!(shown.contains("BYPASS=1\n"), "{shown}");
        assert!(shown.contains("curl --user admin https://h/y"), "{shown}");
    }
}

/// A key named as a secret variable is (`secret_access_key`, `client_secret`, `apiKey`,
/// `db_pass`) hides a scalar in YAML and JSON alike; a map under such a key names Secrets and
/// stays shown.
#[test]
fn a_scalar_under_a_key_named_as_a_secret_variable_is_hidden() {
    let yaml = "aws:\n  secret_access_key: AwsSecret1\n  apiKey: 'ApiKey22'\n  private_key: |\n    PrivKey333\n  client_secret: ClientSecret4\n  db_pass: DbPass55\n  region: us-east-1\n";
    let shown = D.text(yaml);
    for hidden in [
        "AwsSecret1",
        "ApiKey22",
        "PrivKey333",
        "ClientSecret4",
        "DbPass55",
    ] {
        assert!(!shown.contains(hidden), "{hidden} in\n{shown}");
    }
    assert!(
        shown.contains("  secret_access_key: <redacted hmac:"),
        "{shown}"
    );
    assert!(shown.contains("  region: us-east-1\n"), "{shown}");
    // A pod's secret volume, a MachineSet's credentials Secret: names, shown as they are.
    let names = "volumes:\n- name: certs\n  secret:\n    secretName: serving-cert\ncredentialsSecret: {name: vsphere-cloud-credentials}\nuserDataSecret:\n  name: worker-user-data\n";
    assert_eq!(D.text(names), names);
    let json = r#"{"aws":{"secret_access_key":"AwsSecret1","apiKey":12345678,"secret":{"name":"shown"},"region":"us-east-1"}}"#;
    let shown = D.text(json);
    for hidden in ["AwsSecret1", "12345678"] {
        assert!(!shown.contains(hidden), "{hidden} in {shown}");
    }
    assert!(
        shown.contains(r#""secret":{"name":"shown"}"#) && shown.contains("us-east-1"),
        "{shown}"
    );
    // `MYSQL_PWD` is a password; the shell's `PWD` and `OLDPWD` are directories.
    let env = "MYSQL_PWD=DbPassword6\nPWD=/root\nOLDPWD=/tmp\n";
    let shown = D.text(env);
    assert!(!shown.contains("DbPassword6"), "{shown}");
    assert!(shown.contains("PWD=/root\nOLDPWD=/tmp\n"), "{shown}");
}
