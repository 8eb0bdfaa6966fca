//! NetworkManager keyfiles (`key=value` under `[group]` headers): a Wi-Fi key, an 802.1X
//! password or PIN, a VPN's secrets. bootgen's own keyfiles hold none (static addresses only),
//! but a user's keyfile or another tool's config may.

use super::{is_secret_key, Redact};

/// Keys of a keyfile whose values are secrets besides those [`is_secret_key`] knows by their
/// ending (`password`, `private-key-password`, `leap-password`, ...).
const KEYFILE_SECRETS: &[&str] = &[
    "psk",
    "pin",
    "password-raw",
    "wep-key0",
    "wep-key1",
    "wep-key2",
    "wep-key3",
    // WireGuard's own key and a peer's pre-shared key; an 802.1X private key given inline.
    "private-key",
    "preshared-key",
    // MACsec's connectivity association key.
    "mka-cak",
];

/// True when `text` reads as a NetworkManager keyfile: its first setting line is a `[group]`
/// header and one of its groups is `[connection]`, wherever it stands (NetworkManager reads
/// groups in any order, and so does `--network-keyfile`).
pub(super) fn is_keyfile(text: &str) -> bool {
    let mut settings = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#') && !line.starts_with(';'));
    settings
        .next()
        .is_some_and(|first| first.starts_with('[') && first.ends_with(']'))
        && text.lines().any(|line| line.trim() == "[connection]")
}

/// The keyfile with the values of secret keys (and every value of `[vpn-secrets]`) hidden.
pub(super) fn redact(mode: Redact, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut group = "";
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim();
        if let Some(name) = trimmed.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            group = name;
        } else if let Some((key, value)) = body.split_once('=') {
            let key_name = key.trim().to_ascii_lowercase();
            let secret = group == "vpn-secrets"
                || KEYFILE_SECRETS.contains(&key_name.as_str())
                || is_secret_key(&key_name);
            if secret && !value.trim().is_empty() {
                out.push_str(key);
                out.push('=');
                out.push_str(&mode.shown("redacted", value.trim().as_bytes()));
                out.push_str(&line[body.len()..]);
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wifi_and_8021x_secrets_are_hidden_the_rest_shown() {
        let text = "[connection]\nid=lab\ntype=wifi\n\n[wifi-security]\nkey-mgmt=wpa-psk\npsk=Sup3rSecret\n\n[802-1x]\neap=peap;\nidentity=node\npassword=Eap-Pass\nprivate-key-password=KeyPass\n\n[vpn-secrets]\ncert-pass=VpnPass\n\n[ipv4]\naddress1=192.0.2.5/24\n";
        assert!(is_keyfile(text));
        let shown = Redact::WithDigest.secrets(text);
        for hidden in ["Sup3rSecret", "Eap-Pass", "KeyPass", "VpnPass"] {
            assert!(!shown.contains(hidden), "{hidden} in\n{shown}");
        }
        for kept in [
            "identity=node\n",
            "key-mgmt=wpa-psk\n",
            "address1=192.0.2.5/24\n",
            "psk=<redacted hmac:",
        ] {
            assert!(shown.contains(kept), "{kept} not in\n{shown}");
        }
        assert!(!is_keyfile("apiVersion: v1\n"));
        assert!(!is_keyfile(
            "[Unit]\nDescription=x\n[Service]\nPassword=x\n"
        ));
    }

    /// A keyfile whose `[connection]` is not first, and WireGuard's and MACsec's keys.
    #[test]
    fn keys_of_any_group_order_and_of_wireguard_are_hidden() {
        let text = "[wifi-security]\nkey-mgmt=wpa-psk\npsk=GoldenWifiPsk77\n\n[connection]\nid=wg0\ntype=wireguard\n\n[wireguard]\nprivate-key=yAnzWgPrivateKeyBase64Value0000000000000000=\nlisten-port=51820\n\n[wireguard-peer.xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=]\npreshared-key=PeerPresharedKey1111111111111111111111111=\nendpoint=192.0.2.9:51820\n\n[macsec]\nmka-cak=0123456789abcdef0123456789abcdef\n";
        assert!(is_keyfile(text));
        let shown = Redact::Marker.secrets(text);
        for hidden in [
            "GoldenWifiPsk77",
            "yAnzWgPrivateKeyBase64",
            "PeerPresharedKey",
            "0123456789abcdef",
        ] {
            assert!(!shown.contains(hidden), "{hidden} in\n{shown}");
        }
        for kept in [
            "listen-port=51820\n",
            "endpoint=192.0.2.9:51820\n",
            "id=wg0\n",
        ] {
            assert!(shown.contains(kept), "{kept} not in\n{shown}");
        }
    }
}
