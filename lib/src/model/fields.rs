//! Checks of single install-config values. Each returns the reason a value is unusable, in
//! words a user can act on; the caller adds the file, field and line.

/// A DNS label: the cluster name.
pub fn check_cluster_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 63 {
        return Err(format!("`{name}` must be 1 to 63 characters"));
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

/// A DNS domain: the base domain.
pub fn check_domain(domain: &str) -> Result<(), String> {
    let trimmed = domain.trim_end_matches('.');
    if trimmed.is_empty() {
        return Err("must not be empty (for example example.com)".into());
    }
    for label in trimmed.split('.') {
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

/// An OpenSSH public key line: `type base64 [comment]`, where the blob names the same type.
pub fn check_ssh_key(key: &str) -> Result<(), String> {
    use base64::Engine;
    for line in key.lines().filter(|l| !l.trim().is_empty()) {
        let mut parts = line.split_whitespace();
        let (Some(kind), Some(blob)) = (parts.next(), parts.next()) else {
            return Err(
                "is not an OpenSSH public key (expected `ssh-ed25519 AAAA... comment`)".into(),
            );
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob)
            .map_err(|_| format!("the `{kind}` key's data is not valid base64"))?;
        let named = bytes
            .get(..4)
            .and_then(|len| {
                let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
                bytes.get(4..4 + len)
            })
            .map(|name| String::from_utf8_lossy(name).into_owned());
        if named.as_deref() != Some(kind) {
            return Err(format!(
                "the key says it is `{kind}` but its data is not a `{kind}` key"
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
        Some(serde_json::Value::Object(_)) => Ok(()),
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
        pem.parse_x509()
            .map_err(|e| format!("certificate {} does not parse: {e}", index + 1))?;
        count += 1;
    }
    if count == 0 {
        return Err("contains no PEM certificate (-----BEGIN CERTIFICATE-----)".into());
    }
    Ok(count)
}

/// A proxy URL: http:// or https:// with a host.
pub fn check_proxy_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| {
            format!(
                "`{}` must start with http:// or https://",
                redact_userinfo(url)
            )
        })?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err(format!("`{}` has no host", redact_userinfo(url)));
    }
    Ok(())
}

/// Hides `user:password@` in a URL before it goes into a message.
pub fn redact_userinfo(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://***@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let lying = good.replacen("ssh-ed25519", "ssh-rsa", 1);
        assert!(check_ssh_key(&lying).unwrap_err().contains("ssh-rsa"));
    }

    #[test]
    fn pull_secret_errors_do_not_echo_it() {
        let err = check_pull_secret("{\"auths\": topsecret").unwrap_err();
        assert!(!err.contains("topsecret"), "{err}");
        assert!(check_pull_secret("{\"x\":1}").is_err());
        assert!(check_pull_secret("{\"auths\":{}}").is_ok());
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
    }
}
