//! Checks of single install-config values. Each returns the reason a value is unusable, in
//! words a user can act on; the caller adds the file, field and line.

use crate::url_syntax::{redact_userinfo, strip_scheme};

/// A DNS label: the cluster name.
pub fn check_cluster_name(name: &str) -> Result<(), String> {
    // The installer's limit: it builds machine and resource names from the cluster name.
    if name.is_empty() || name.len() > 54 {
        return Err(format!(
            "`{name}` must be 1 to 54 characters (it has {})",
            name.len()
        ));
    }
    let ok = name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !ok || name.starts_with('-') || name.ends_with('-') {
        return Err(format!(
            "`{name}` must be a DNS label: lowercase letters, digits and '-', not starting or ending with '-'"
        ));
    }
    Ok(())
}

/// The longest DNS name, in characters (RFC 1035's 255 octets on the wire).
pub const MAX_DNS_NAME: usize = 253;

/// A Kubernetes DNS-1123 subdomain: dot-separated labels of lowercase letters, digits and `-`,
/// each starting and ending with a letter or digit, at most 253 characters in all.
pub fn is_dns_subdomain(name: &str) -> bool {
    name.len() <= MAX_DNS_NAME
        && name.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// A vCenter's host as every installer takes it: an IP address or a DNS subdomain, without a
/// scheme, a port or brackets. `port_field` says whether the form it is written in has a
/// `port` of its own.
pub fn check_vcenter_host(host: &str, port_field: bool) -> Result<(), String> {
    if host.parse::<std::net::IpAddr>().is_ok() || is_dns_subdomain(host) {
        return Ok(());
    }
    let shown = redact_userinfo(host);
    let alone = |bare: &str| format!("write the host alone (`{bare}`)");
    let port_hint = if port_field {
        "; a port other than 443 goes in `port`"
    } else {
        ""
    };
    let fix = if let Some((_, rest)) = host.split_once("://") {
        let authority = rest.split('/').next().unwrap_or_default();
        let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let bare = authority
            .strip_prefix('[')
            .and_then(|a| a.split_once(']'))
            .map_or_else(
                || authority.split(':').next().unwrap_or_default(),
                |(v6, _)| v6,
            );
        format!("it is a URL: {}{port_hint}", alone(bare))
    } else if let Some(v6) = host.strip_prefix('[').and_then(|h| h.split_once(']')) {
        format!(
            "write an IPv6 address without brackets (`{}`){port_hint}",
            v6.0
        )
    } else if let Some((bare, _)) = host
        .rsplit_once(':')
        .filter(|(_, port)| port.parse::<u16>().is_ok())
    {
        format!("it names a port: {}{port_hint}", alone(bare))
    } else if host.bytes().any(|b| b.is_ascii_uppercase()) {
        format!(
            "host names are written in lower case: write `{}`",
            host.to_ascii_lowercase()
        )
    } else if let Some(bare) = host.strip_suffix('.') {
        format!("write it without the trailing dot (`{bare}`)")
    } else {
        "it is neither: a host name has lowercase letters, digits, '-' and '.' only".to_string()
    };
    Err(format!(
        "`{shown}` must be the vCenter's host name or IP address, as the installer requires: {fix}"
    ))
}

/// A DNS domain: the base domain.
pub fn check_domain(domain: &str) -> Result<(), String> {
    let trimmed = domain.trim_end_matches('.');
    if trimmed.is_empty() {
        return Err("must not be empty (for example example.com)".into());
    }
    if trimmed.chars().any(|c| c.is_ascii_uppercase()) {
        return Err(format!(
            "`{domain}` has capital letters, which the cluster's DNS names cannot have: write `{}`",
            domain.to_ascii_lowercase()
        ));
    }
    for label in trimmed.split('.') {
        if label.len() > 63 {
            return Err(format!(
                "`{domain}` has a label of {} characters, and a DNS label holds at most 63: the cluster's names under it could not be looked up",
                label.len()
            ));
        }
        let ok = !label.is_empty()
            && label.len() <= 63
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !label.starts_with('-')
            && !label.ends_with('-');
        if !ok {
            return Err(format!(
                "`{domain}` is not a DNS domain such as example.com"
            ));
        }
    }
    Ok(())
}

/// Smallest RSA modulus the nodes' sshd accepts (RHEL 9's default crypto policy).
const MIN_RSA_BITS: usize = 2048;

/// OpenSSH public key lines (`type base64 [comment]`, one per line, or as `authorized_keys`
/// writes them with options first: `from="10.0.0.1" ssh-ed25519 ...`), each parsed in full:
/// the type, a base64 body that holds exactly one key of that type, and a usable key length. A
/// key cut short by a copy and paste fails here rather than locking everyone out of the nodes.
/// `#` comment lines are skipped, as sshd skips them (see [`ssh_comment_lines`]).
pub fn check_ssh_key(key: &str) -> Result<(), String> {
    use ssh_key::public::KeyData;
    // Nothing of it is quoted: a private key pasted here is a secret.
    if key.contains("-----BEGIN") && key.contains("PRIVATE KEY") {
        return Err(
            "is a private key: give its public key, the one line of the .pub file (`ssh-keygen -y -f KEY` prints it)"
                .into(),
        );
    }
    let lines: Vec<&str> = ssh_key_lines(key).collect();
    for (index, line) in lines.iter().enumerate() {
        let which = if lines.len() > 1 {
            format!("key {} ", index + 1)
        } else {
            String::new()
        };
        let (kind, parsed) = parse_key_line(line).map_err(|why| format!("{which}{why}"))?;
        match parsed.key_data() {
            KeyData::Rsa(rsa) => {
                let bits = rsa
                    .n
                    .as_positive_bytes()
                    .map_or(0, |n| n.len() * 8 - n[0].leading_zeros() as usize);
                if bits < MIN_RSA_BITS {
                    return Err(format!(
                        "{which}is a {bits}-bit RSA key; the nodes' sshd needs at least {MIN_RSA_BITS} bits (use ssh-keygen -t ed25519)"
                    ));
                }
            }
            KeyData::Ed25519(_)
            | KeyData::Ecdsa(_)
            | KeyData::SkEd25519(_)
            | KeyData::SkEcdsaSha2NistP256(_) => {}
            _ => {
                return Err(format!(
                    "{which}has type `{kind}`, which the nodes' sshd does not accept (use ssh-ed25519, ecdsa-sha2-nistp256 or ssh-rsa)"
                ))
            }
        }
    }
    Ok(())
}

/// The lines of `sshKey` that hold a key: neither blank nor a `#` comment.
fn ssh_key_lines(key: &str) -> impl Iterator<Item = &str> {
    key.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// The `#` comment lines of `sshKey`, which sshd skips (and installers from 4.21 refuse).
pub fn ssh_comment_lines(key: &str) -> usize {
    key.lines().filter(|l| l.trim().starts_with('#')).count()
}

/// One key line: its type's name and the key.
fn parse_key_line(line: &str) -> Result<(String, ssh_key::PublicKey), String> {
    let mut parts = line.split_whitespace();
    let (Some(kind), Some(body)) = (parts.next(), parts.next()) else {
        return Err("is not an OpenSSH public key (expected `ssh-ed25519 AAAA... comment`)".into());
    };
    if ssh_key::Algorithm::new(kind).is_err() && !kind.starts_with("ssh-") {
        // Options before the key, as authorized_keys takes them (`from="..." ssh-ed25519 ...`).
        let entry: ssh_key::authorized_keys::Entry = line.parse().map_err(|e| {
            format!("is neither an OpenSSH public key (`ssh-ed25519 AAAA... comment`) nor an authorized_keys line with options before the key ({e})")
        })?;
        let key = entry.public_key().clone();
        return Ok((key.algorithm().as_str().to_string(), key));
    }
    if base64::Engine::decode(&base64::engine::general_purpose::STANDARD, body).is_err() {
        return Err(format!("the `{kind}` key's data is not valid base64"));
    }
    let parsed = ssh_key::PublicKey::from_openssh(line).map_err(|e| {
        format!("is not a valid `{kind}` public key ({e}): is it complete? Copy the whole line of the .pub file")
    })?;
    Ok((kind.to_string(), parsed))
}

/// With FIPS on, the nodes' sshd takes only RSA and ECDSA keys.
pub fn check_fips_ssh_key(key: &str) -> Result<(), String> {
    for line in ssh_key_lines(key) {
        let kind = parse_key_line(line).map(|(kind, _)| kind)?;
        if kind != "ssh-rsa" && !kind.starts_with("ecdsa-sha2-nistp") {
            return Err(format!(
                "is a `{kind}` key, which a FIPS node's sshd refuses (nobody could log in): with `fips: true` use an RSA or ECDSA key (ssh-keygen -t ecdsa -b 384)"
            ));
        }
    }
    Ok(())
}

/// A pull secret: a docker config JSON object with an `auths` object.
pub fn check_pull_secret(secret: &str) -> Result<(), String> {
    let value: serde_json::Value = serde_json::from_str(secret)
        .map_err(|e| format!("is not JSON ({}, column {})", classify(&e), e.column()))?;
    match value.get("auths") {
        Some(serde_json::Value::Object(auths)) if auths.is_empty() => Err(
            "has no registry under \"auths\": copy the whole pull secret from console.redhat.com"
                .into(),
        ),
        Some(serde_json::Value::Object(auths)) => {
            // As the installer: every registry needs credentials or a credential store. The
            // registry's name is not secret; what it holds is never shown.
            for (registry, entry) in auths {
                let has = |key: &str| entry.get(key).is_some();
                if !entry.is_object() {
                    return Err(format!(
                        "entry \"{registry}\" under \"auths\" is not a JSON object"
                    ));
                }
                if !has("auth") && !has("credsStore") {
                    return Err(format!(
                        "entry \"{registry}\" under \"auths\" has neither \"auth\" nor \"credsStore\" (OKD's placeholder is {{\"auths\":{{\"fake\":{{\"auth\":\"aWQ6cGFzcwo=\"}}}}}})"
                    ));
                }
            }
            Ok(())
        }
        _ => Err("must be a JSON object with an \"auths\" object (a docker config.json)".into()),
    }
}

/// Names a serde_json error without echoing the (secret) input.
fn classify(e: &serde_json::Error) -> &'static str {
    use serde_json::error::Category;
    match e.classify() {
        Category::Io => "read error",
        Category::Syntax => "syntax error",
        Category::Data => "unexpected value",
        Category::Eof => "unexpected end",
    }
}

/// A PEM bundle of CA certificates: at least one, every one parseable.
pub fn check_trust_bundle(pem_text: &str) -> Result<usize, String> {
    let mut count = 0;
    for (index, pem) in x509_parser::pem::Pem::iter_from_buffer(pem_text.as_bytes()).enumerate() {
        let pem = pem.map_err(|e| format!("PEM block {} does not decode: {e}", index + 1))?;
        if pem.label != "CERTIFICATE" {
            return Err(format!(
                "PEM block {} is a `{}`, not a CERTIFICATE",
                index + 1,
                pem.label
            ));
        }
        pem.parse_x509().map_err(|e| {
            // x509-parser's words (`Parsing Error: NomError(Eof)`) say little to a reader.
            let why = if format!("{e:?}").contains("Eof") {
                "its bytes end early (cut short by a copy and paste?)"
            } else {
                "it is not a valid X.509 certificate"
            };
            format!("certificate {} does not parse: {why}", index + 1)
        })?;
        count += 1;
    }
    if count == 0 {
        return Err("contains no PEM certificate (-----BEGIN CERTIFICATE-----)".into());
    }
    // The installer decodes block after block until nothing is left, so any text after the
    // last block's end line, even a blank line, is a block it cannot decode.
    let last_end = pem_text.rfind("-----END ").unwrap_or_default();
    let after = pem_text[last_end..]
        .find('\n')
        .map_or("", |at| &pem_text[last_end + at + 1..]);
    if !after.is_empty() {
        let what = match after.lines().find(|l| !l.trim().is_empty()) {
            Some(line) => format!("text (`{}`)", line.chars().take(40).collect::<String>()),
            None => "a blank line".into(),
        };
        return Err(format!(
            "has {what} after its last certificate, which the installer refuses (invalid block): end the bundle with the -----END CERTIFICATE----- line"
        ));
    }
    Ok(count)
}

/// A proxy URL: http:// or https:// with a host.
pub fn check_proxy_url(url: &str) -> Result<(), String> {
    let rest = strip_scheme(url, "http")
        .or_else(|| strip_scheme(url, "https"))
        .ok_or_else(|| {
            format!(
                "`{}` must start with http:// or https://",
                redact_userinfo(url)
            )
        })?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err(format!("`{}` has no host", redact_userinfo(url)));
    }
    // As the installer parses it (Go's URL parser): a host with a space, a bracket left open.
    if let Some(why) = crate::url_syntax::parse_problem(url) {
        return Err(format!("`{}` {why}", redact_userinfo(url)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_scheme_is_read_in_any_case_and_a_long_label_named() {
        assert_eq!(check_proxy_url("HTTP://proxy.example.com:3128"), Ok(()));
        assert_eq!(check_proxy_url("Https://proxy.example.com"), Ok(()));
        assert!(check_proxy_url("socks5://proxy.example.com").is_err());
        assert_eq!(strip_scheme("HTTP://p:3128", "http"), Some("p:3128"));
        assert_eq!(strip_scheme("httpx://p", "http"), None);
        let long = format!("{}.example.com", "a".repeat(64));
        let why = check_domain(&long).unwrap_err();
        assert!(why.contains("a label of 64 characters"), "{why}");
        assert_eq!(
            check_domain(&format!("{}.example.com", "a".repeat(63))),
            Ok(())
        );
    }

    /// What the installer refuses as a vCenter's host, each with what to write instead.
    #[test]
    fn a_vcenter_host_is_a_name_or_an_address_alone() {
        for taken in [
            "vc.example.com",
            "vc",
            "192.0.2.10",
            "2001:db8::10",
            "10vc.example.com",
        ] {
            assert_eq!(check_vcenter_host(taken, true), Ok(()), "{taken}");
        }
        for (written, said) in [
            ("https://vc.example.com/sdk", "a URL: write the host alone (`vc.example.com`)"),
            ("https://admin:secret@vc.example.com:443", "write the host alone (`vc.example.com`)"),
            ("https://[2001:db8::10]:443", "write the host alone (`2001:db8::10`)"),
            ("vc.example.com:443", "names a port: write the host alone (`vc.example.com`); a port other than 443 goes in `port`"),
            ("[2001:db8::10]", "without brackets (`2001:db8::10`)"),
            ("VC.Example.com", "write `vc.example.com`"),
            ("vc.example.com.", "without the trailing dot (`vc.example.com`)"),
            ("vc_1.example.com", "lowercase letters, digits, '-' and '.' only"),
            ("", "lowercase letters"),
        ] {
            let why = check_vcenter_host(written, true).unwrap_err();
            assert!(
                why.contains("must be the vCenter's host name or IP address") && why.contains(said),
                "{written}: {why}"
            );
            assert!(!why.contains("secret"), "{why}");
        }
        // The single-vCenter form has no port of its own to point at.
        let why = check_vcenter_host("vc.example.com:8443", false).unwrap_err();
        assert!(!why.contains("`port`"), "{why}");
    }

    #[test]
    fn user_info_is_hidden_whatever_the_scheme() {
        for (url, shown) in [
            ("http://u:pw@proxy:3128", "http://***@proxy:3128"),
            ("socks5://u:pw@proxy:1080/", "socks5://***@proxy:1080/"),
            ("u:pw@proxy.example.net:3128", "***@proxy.example.net:3128"),
            ("http:/u:pw@proxy.example.net", "***@proxy.example.net"),
            ("http://proxy:3128", "http://proxy:3128"),
        ] {
            assert_eq!(redact_userinfo(url), shown);
            let error = check_proxy_url(url).err().unwrap_or_default();
            assert!(!error.contains("pw"), "{error}");
        }
    }

    #[test]
    fn a_proxy_url_that_does_not_parse_is_refused() {
        for bad in [
            "http://proxy example.net:3128",
            "http://[2001:db8::1:3128",
            "http://proxy.example.net:port",
            "http://u:pw@proxy.example.net:3128%zz",
        ] {
            let error = check_proxy_url(bad).unwrap_err();
            assert!(!error.contains("pw"), "{error}");
        }
        // A password holding `/`, `?` or `#` cuts the authority short: none of it is shown.
        for bad in [
            "http://admin:Sup3rpw/x@proxy:3128",
            "http://admin:Hunter2pw?q@proxy:3128",
            "http://admin:P#sspw@proxy:3128",
        ] {
            let error = check_proxy_url(bad).unwrap_err();
            assert!(!error.contains("pw") && !error.contains(":P"), "{error}");
            assert!(error.contains("%2F"), "{error}");
        }
        for good in [
            "http://proxy.example.net:3128",
            "http://[2001:db8::1]:3128",
            "http://u:pw@proxy.example.net:3128/",
        ] {
            assert!(check_proxy_url(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn names_and_domains() {
        assert!(check_cluster_name("my-cluster1").is_ok());
        assert!(check_cluster_name("My_Cluster").is_err());
        assert!(check_cluster_name("-x").is_err());
        assert!(check_domain("example.com.").is_ok());
        assert!(check_domain("exa mple.com").is_err());
        assert!(check_domain("").is_err());
    }

    #[test]
    fn ssh_keys() {
        let good = crate::config::load_default()
            .unwrap()
            .config
            .ssh_key
            .unwrap();
        assert!(check_ssh_key(&good).is_ok());
        assert!(check_ssh_key("ssh-rsa notbase64!!").is_err());
        assert!(check_ssh_key("justoneword").is_err());
        let private = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n";
        let err = check_ssh_key(private).unwrap_err();
        assert!(err.contains("private key") && err.contains(".pub"), "{err}");
        assert!(!err.contains("b3BlbnNzaC1"), "{err}");
        // A public key whose comment says so is a public key.
        let commented = format!("{} PRIVATE KEY backup", good.lines().next().unwrap().trim());
        assert!(check_ssh_key(&commented).is_ok(), "{commented}");
        let lying = good.replacen("ssh-ed25519", "ssh-rsa", 1);
        assert!(check_ssh_key(&lying).unwrap_err().contains("ssh-rsa"));
        // Cut short by four base64 characters: still valid base64, but not a whole key.
        let (kind, rest) = good.split_once(' ').unwrap();
        let body = rest.split_whitespace().next().unwrap();
        let truncated = format!("{kind} {} user@host", &body[..body.len() - 4]);
        let err = check_ssh_key(&truncated).unwrap_err();
        assert!(err.contains("is it complete"), "{err}");
        // Garbled in the middle.
        let garbled = good.replacen(&body[10..14], "@@@@", 1);
        assert!(check_ssh_key(&garbled).is_err());
        // A second, broken key is named as such.
        let two = format!("{good}\n{truncated}");
        assert!(check_ssh_key(&two).unwrap_err().starts_with("key 2 "));
        // authorized_keys lines: options before the key, and comment lines.
        let line = good.lines().next().unwrap().trim();
        let with_options = format!("no-port-forwarding,from=\"10.0.0.1,192.0.2.0/24\" {line}");
        assert!(check_ssh_key(&with_options).is_ok(), "{with_options}");
        let bad_options = format!("no-port-forwarding {kind} {}", &body[..body.len() - 4]);
        assert!(check_ssh_key(&bad_options).is_err(), "{bad_options}");
        let with_comment = format!("# the lab's admins\n{line}\n");
        assert!(check_ssh_key(&with_comment).is_ok());
        assert_eq!(ssh_comment_lines(&with_comment), 1);
        assert!(check_fips_ssh_key(&with_comment).is_err());
    }

    /// An `ssh-rsa` blob with a modulus of `bits` bits (structure only; not a real key pair).
    fn rsa_key(bits: usize) -> String {
        use base64::Engine;
        fn field(out: &mut Vec<u8>, bytes: &[u8]) {
            out.extend((bytes.len() as u32).to_be_bytes());
            out.extend(bytes);
        }
        let mut blob = Vec::new();
        field(&mut blob, b"ssh-rsa");
        field(&mut blob, &[1, 0, 1]);
        let mut modulus = vec![0u8; 1];
        modulus.extend(std::iter::repeat_n(0xc5u8, bits / 8));
        field(&mut blob, &modulus);
        format!(
            "ssh-rsa {} test",
            base64::engine::general_purpose::STANDARD.encode(blob)
        )
    }

    #[test]
    fn short_rsa_keys_are_refused_with_their_length() {
        assert!(check_ssh_key(&rsa_key(2048)).is_ok());
        let err = check_ssh_key(&rsa_key(1024)).unwrap_err();
        assert!(err.contains("1024-bit"), "{err}");
    }

    #[test]
    fn pull_secret_errors_do_not_echo_it() {
        let err = check_pull_secret("{\"auths\": topsecret").unwrap_err();
        assert!(!err.contains("topsecret"), "{err}");
        assert!(check_pull_secret("{\"x\":1}").is_err());
        assert!(check_pull_secret("{\"auths\":{}}").is_err());
        // As the installer: each registry needs "auth" or "credsStore"; OKD's placeholder
        // has one.
        let bare = check_pull_secret("{\"auths\":{\"r\":{\"email\":\"secret@x\"}}}").unwrap_err();
        assert!(
            bare.contains("\"r\"") && !bare.contains("secret@x"),
            "{bare}"
        );
        assert!(check_pull_secret("{\"auths\":{\"r\":{\"credsStore\":\"pass\"}}}").is_ok());
        assert!(check_pull_secret(r#"{"auths":{"fake":{"auth":"aWQ6cGFzcwo="}}}"#).is_ok());
    }

    #[test]
    fn proxy_urls_hide_credentials() {
        let err = check_proxy_url("ftp://user:hunter2@proxy:3128").unwrap_err();
        assert!(!err.contains("hunter2"), "{err}");
        assert!(check_proxy_url("http://proxy.example.com:3128").is_ok());
    }

    #[test]
    fn trust_bundle_needs_certificates() {
        assert!(check_trust_bundle("hello").is_err());
        // A certificate cut short is said so, in plain words.
        let cut = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";
        let err = check_trust_bundle(cut).unwrap_err();
        assert!(
            err.contains("certificate 1 does not parse: its bytes end early")
                && !err.contains("NomError"),
            "{err}"
        );
    }
}
