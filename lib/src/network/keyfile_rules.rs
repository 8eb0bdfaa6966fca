//! NetworkManager's rules for the keys a keyfile holds (nm-settings-keyfile(5) and
//! nm-settings-nmcli(5)), as data: each setting (`[group]`) with its keys and the kind of value
//! each takes. A keyfile whose group, key or value NetworkManager would drop or refuse is
//! refused naming the group, key and value: NetworkManager drops what it cannot read with only
//! a log line, and a node without its network cannot be reached to find out why.

use super::keyfile_syntax::Group;
use std::net::IpAddr;

/// The kind of value a key takes.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// Any text.
    Text,
    /// GLib's boolean: `true`, `false`, `1` or `0`.
    Bool,
    /// A whole number within bounds.
    Int(i64, i64),
    /// A UUID, `8-4-4-4-12` hex digits.
    Uuid,
    /// A MAC address (six octets), or one of the words given.
    Mac(&'static [&'static str]),
    /// One of the words given.
    OneOf(&'static [&'static str]),
    /// An address of the group's family.
    Ip,
    /// `ADDRESS/PREFIX[,GATEWAY]` of the group's family.
    Address,
    /// `DESTINATION/PREFIX[,GATEWAY[,METRIC]]` of the group's family.
    Route,
    /// Addresses of the group's family, each ended by `;`.
    IpList,
}

use Kind::*;

const BOOL: Kind = Bool;
const U32: Kind = Int(0, u32::MAX as i64);
const I32: Kind = Int(i32::MIN as i64, i32::MAX as i64);

/// The connection types NetworkManager knows (`connection.type`).
const TYPES: &[&str] = &[
    "802-3-ethernet",
    "ethernet",
    "802-11-wireless",
    "wifi",
    "bond",
    "bridge",
    "vlan",
    "team",
    "infiniband",
    "ip-tunnel",
    "macvlan",
    "vxlan",
    "veth",
    "dummy",
    "loopback",
    "ovs-bridge",
    "ovs-port",
    "ovs-interface",
    "wireguard",
    "tun",
    "vrf",
    "generic",
    "macsec",
    "ipvlan",
    "hsr",
    "pppoe",
    "gsm",
    "cdma",
    "bluetooth",
    "vpn",
    "adsl",
    "wpan",
    "6lowpan",
    "olpc-mesh",
    "wifi-p2p",
    "802-11-olpc-mesh",
    "802-1x",
];

/// The port types a controller takes (`connection.slave-type`, `port-type`).
const PORT_TYPES: &[&str] = &["bond", "bridge", "team", "ovs-port", "ovs-bridge", "vrf"];

/// `cloned-mac-address`' words besides a MAC.
const CLONED_MAC_WORDS: &[&str] = &["preserve", "permanent", "random", "stable", "stable-ssid"];

const CONNECTION: &[(&str, Kind)] = &[
    ("id", Text),
    ("uuid", Uuid),
    ("type", OneOf(TYPES)),
    ("interface-name", Text),
    ("autoconnect", BOOL),
    ("autoconnect-priority", Int(-999, 999)),
    ("autoconnect-retries", Int(-1, i32::MAX as i64)),
    ("autoconnect-slaves", Int(-1, 1)),
    ("autoconnect-ports", Int(-1, 1)),
    ("master", Text),
    ("controller", Text),
    ("slave-type", OneOf(PORT_TYPES)),
    ("port-type", OneOf(PORT_TYPES)),
    ("multi-connect", Int(0, 3)),
    ("permissions", Text),
    ("zone", Text),
    ("timestamp", Int(0, i64::MAX)),
    ("read-only", BOOL),
    ("secondaries", Text),
    ("gateway-ping-timeout", Int(0, 600)),
    ("metered", Int(0, 4)),
    ("lldp", Int(-1, 1)),
    ("mdns", Int(-1, 2)),
    ("llmnr", Int(-1, 2)),
    ("dns-over-tls", Int(-1, 2)),
    ("auth-retries", Int(-1, i32::MAX as i64)),
    ("wait-device-timeout", Int(-1, i32::MAX as i64)),
    ("wait-activation-delay", Int(-1, i32::MAX as i64)),
    ("stable-id", Text),
    ("mud-url", Text),
    ("mptcp-flags", U32),
];

const ETHERNET: &[(&str, Kind)] = &[
    ("mac-address", Mac(&[])),
    ("cloned-mac-address", Mac(CLONED_MAC_WORDS)),
    ("generate-mac-address-mask", Text),
    ("mac-address-blacklist", Text),
    ("mac-address-denylist", Text),
    ("mtu", U32),
    ("auto-negotiate", BOOL),
    ("speed", U32),
    ("duplex", OneOf(&["half", "full"])),
    ("port", OneOf(&["tp", "aui", "bnc", "mii"])),
    ("wake-on-lan", U32),
    ("wake-on-lan-password", Text),
    ("accept-all-mac-addresses", Int(-1, 1)),
    ("s390-subchannels", Text),
    ("s390-nettype", Text),
];

/// Keys both IP settings take.
const IP_COMMON: &[(&str, Kind)] = &[
    ("address#", Address),
    ("address#_options", Text),
    ("addresses", Address),
    ("route#", Route),
    ("route#_options", Text),
    ("routes", Route),
    ("routing-rule#", Text),
    ("gateway", Ip),
    ("dns", IpList),
    ("dns-search", Text),
    ("dns-options", Text),
    ("dns-priority", I32),
    ("ignore-auto-dns", BOOL),
    ("ignore-auto-routes", BOOL),
    ("never-default", BOOL),
    ("may-fail", BOOL),
    ("required-timeout", Int(-1, i32::MAX as i64)),
    ("route-metric", Int(-1, u32::MAX as i64)),
    ("route-table", U32),
    ("dhcp-hostname", Text),
    ("dhcp-hostname-flags", U32),
    ("dhcp-send-hostname", BOOL),
    ("dhcp-timeout", Int(0, i32::MAX as i64)),
    ("dhcp-iaid", Text),
    ("dhcp-reject-servers", Text),
    ("dhcp-dscp", Text),
    ("dad-timeout", Int(-1, 30000)),
    ("link-local", Int(0, 4)),
    ("auto-route-ext-gw", Int(-1, 1)),
    ("replace-local-rule", Int(-1, 1)),
    // Keys of releases newer than Debian's NetworkManager 1.42, taken as their manual gives them.
    ("dhcp-send-release", Int(-1, 1)),
    ("routed-dns", Int(-1, 1)),
];

const IPV4: &[(&str, Kind)] = &[
    (
        "method",
        OneOf(&["auto", "link-local", "manual", "shared", "disabled"]),
    ),
    ("dhcp-client-id", Text),
    ("dhcp-fqdn", Text),
    ("dhcp-vendor-class-identifier", Text),
    ("dhcp-ipv6-only-preferred", Int(-1, 1)),
    // Newer than Debian's NetworkManager 1.42, as their manual gives them.
    ("forwarding", Int(-1, 2)),
    ("shared-dhcp-range", Text),
    ("shared-dhcp-lease-time", Int(0, i32::MAX as i64)),
];

const IPV6: &[(&str, Kind)] = &[
    (
        "method",
        OneOf(&[
            "auto",
            "dhcp",
            "link-local",
            "manual",
            "shared",
            "ignore",
            "disabled",
        ]),
    ),
    (
        "addr-gen-mode",
        OneOf(&[
            "eui64",
            "stable-privacy",
            "default-or-eui64",
            "default",
            "0",
            "1",
            "2",
            "3",
        ]),
    ),
    ("ip6-privacy", Int(-1, 2)),
    ("token", Ip),
    ("dhcp-duid", Text),
    ("dhcp-pd-hint", Text),
    ("ra-timeout", Int(0, i32::MAX as i64)),
    ("mtu", U32),
    ("temp-valid-lifetime", Int(0, i32::MAX as i64)),
    ("temp-preferred-lifetime", Int(0, i32::MAX as i64)),
];

const VLAN: &[(&str, Kind)] = &[
    ("id", Int(0, 4094)),
    ("parent", Text),
    ("flags", Int(0, 15)),
    ("ingress-priority-map", Text),
    ("egress-priority-map", Text),
    ("protocol", Text),
];

const BRIDGE: &[(&str, Kind)] = &[
    ("mac-address", Mac(&[])),
    ("stp", BOOL),
    ("priority", Int(0, 65535)),
    ("forward-delay", Int(0, 30)),
    ("hello-time", Int(0, 10)),
    ("max-age", Int(0, 40)),
    ("ageing-time", Int(0, 1_000_000)),
    ("multicast-snooping", BOOL),
    ("vlan-filtering", BOOL),
    ("vlan-default-pvid", Int(0, 4094)),
    ("vlans", Text),
    ("group-forward-mask", Int(0, 65535)),
];

const BRIDGE_PORT: &[(&str, Kind)] = &[
    ("priority", Int(0, 63)),
    ("path-cost", Int(0, 65535)),
    ("hairpin-mode", BOOL),
    ("vlans", Text),
];

const PROXY: &[(&str, Kind)] = &[
    ("method", Int(0, 1)),
    ("browser-only", BOOL),
    ("pac-url", Text),
    ("pac-script", Text),
];

const MATCH: &[(&str, Kind)] = &[
    ("interface-name", Text),
    ("driver", Text),
    ("kernel-command-line", Text),
    ("path", Text),
];

/// What a setting takes: keys from a table, or any key (a bond's options, user data, ethtool
/// features are named by their own subsystem).
#[derive(Debug, Clone, Copy)]
enum Keys {
    Listed(&'static [(&'static str, Kind)]),
    Any,
}

/// Each setting by the names a keyfile may give its group; `[ipv4]` and `[ipv6]` also take
/// [`IP_COMMON`].
const SETTINGS: &[(&[&str], Keys)] = &[
    (&["connection"], Keys::Listed(CONNECTION)),
    (&["ethernet", "802-3-ethernet"], Keys::Listed(ETHERNET)),
    (&["ipv4"], Keys::Listed(IPV4)),
    (&["ipv6"], Keys::Listed(IPV6)),
    (&["vlan"], Keys::Listed(VLAN)),
    (&["bridge"], Keys::Listed(BRIDGE)),
    (&["bridge-port"], Keys::Listed(BRIDGE_PORT)),
    (&["proxy"], Keys::Listed(PROXY)),
    (&["match"], Keys::Listed(MATCH)),
    (&["bond"], Keys::Any),
    (&["bond-port"], Keys::Any),
    (&["ethtool"], Keys::Any),
    (&["user"], Keys::Any),
    (&["team"], Keys::Any),
    (&["team-port"], Keys::Any),
    (&["ovs-bridge"], Keys::Any),
    (&["ovs-port"], Keys::Any),
    (&["ovs-interface"], Keys::Any),
    (&["ovs-patch"], Keys::Any),
    (&["ovs-dpdk"], Keys::Any),
    (&["ovs-external-ids"], Keys::Any),
    (&["ovs-other-config"], Keys::Any),
    (&["wifi", "802-11-wireless"], Keys::Any),
    (&["wifi-security", "802-11-wireless-security"], Keys::Any),
    (&["802-1x"], Keys::Any),
    (&["infiniband"], Keys::Any),
    (&["macvlan"], Keys::Any),
    (&["vxlan"], Keys::Any),
    (&["ip-tunnel"], Keys::Any),
    (&["wireguard"], Keys::Any),
    (&["veth"], Keys::Any),
    (&["vrf"], Keys::Any),
    (&["tun"], Keys::Any),
    (&["macsec"], Keys::Any),
    (&["ipvlan"], Keys::Any),
    (&["hsr"], Keys::Any),
    (&["link"], Keys::Any),
    (&["hostname"], Keys::Any),
    (&["sriov"], Keys::Any),
    (&["tc"], Keys::Any),
    (&["dcb"], Keys::Any),
    (&["loopback"], Keys::Any),
    (&["generic"], Keys::Any),
    (&["serial"], Keys::Any),
    (&["ppp"], Keys::Any),
    (&["pppoe"], Keys::Any),
    (&["gsm"], Keys::Any),
    (&["cdma"], Keys::Any),
    (&["bluetooth"], Keys::Any),
    (&["vpn"], Keys::Any),
    (&["vpn-secrets"], Keys::Any),
    (&["ethernet-s390-options"], Keys::Any),
];

/// Groups named after a peer or an entry (`[wireguard-peer.KEY]`).
const GROUP_PREFIXES: &[&str] = &["wireguard-peer.", "ovs-external-ids.", "ovs-other-config."];

/// The first group, key or value of `groups` NetworkManager would not take as written: the
/// group, the key and what is wrong (the value is named in it).
pub(crate) fn first_broken(groups: &[Group]) -> Option<(String, String, String)> {
    for (group, pairs) in groups {
        let Some(keys) = setting(group) else {
            return Some((
                group.clone(),
                String::new(),
                "NetworkManager has no such setting".into(),
            ));
        };
        let family = match group.as_str() {
            "ipv4" => Some(false),
            "ipv6" => Some(true),
            _ => None,
        };
        for (key, value) in pairs {
            let Keys::Listed(table) = keys else {
                continue;
            };
            let common = if family.is_some() { IP_COMMON } else { &[] };
            let Some(kind) = table
                .iter()
                .chain(common)
                .find(|(name, _)| key_matches(name, key))
                .map(|(_, kind)| *kind)
            else {
                return Some((
                    group.clone(),
                    key.clone(),
                    format!("NetworkManager's [{group}] has no key `{key}`"),
                ));
            };
            if let Err(why) = check_value(kind, value, family.unwrap_or(false)) {
                return Some((group.clone(), key.clone(), format!("`{value}`: {why}")));
            }
        }
    }
    None
}

fn setting(group: &str) -> Option<Keys> {
    if GROUP_PREFIXES.iter().any(|p| group.starts_with(p)) {
        return Some(Keys::Any);
    }
    SETTINGS
        .iter()
        .find(|(names, _)| names.contains(&group))
        .map(|(_, keys)| *keys)
}

/// `address#` matches `address`, `address1`, `address12`; `route#_options` `route1_options`.
fn key_matches(pattern: &str, key: &str) -> bool {
    let Some((stem, rest)) = pattern.split_once('#') else {
        return pattern == key;
    };
    let Some(tail) = key.strip_prefix(stem) else {
        return false;
    };
    let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    tail[digits..] == *rest
}

fn check_value(kind: Kind, value: &str, v6: bool) -> Result<(), String> {
    let family = if v6 { "IPv6" } else { "IPv4" };
    match kind {
        Text => Ok(()),
        Bool => ["true", "false", "1", "0"]
            .contains(&value)
            .then_some(())
            .ok_or_else(|| "not a boolean: write true or false".into()),
        Int(min, max) => match value.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(()),
            _ => Err(format!("not a whole number from {min} to {max}")),
        },
        Uuid => is_uuid(value)
            .then_some(())
            .ok_or_else(|| "not a UUID (8-4-4-4-12 hex digits)".into()),
        Mac(words) => (super::hosts::normalize_mac(value).is_some() && value.contains(':')
            || words.contains(&value))
        .then_some(())
        .ok_or_else(|| match words {
            [] => "not a MAC address such as 52:54:00:12:34:56".to_string(),
            _ => format!("neither a MAC address nor one of {}", words.join(", ")),
        }),
        OneOf(words) => words
            .contains(&value)
            .then_some(())
            .ok_or_else(|| format!("not one of {}", words.join(", "))),
        Ip => ip_of(value, v6).map(|_| ()),
        IpList => {
            let items: Vec<&str> = value.split(';').filter(|s| !s.is_empty()).collect();
            if items.is_empty() {
                return Err(format!("lists no {family} address"));
            }
            items
                .iter()
                .try_for_each(|item| ip_of(item, v6).map(|_| ()))
        }
        Address => {
            let mut parts = value.trim_end_matches(';').split(',');
            prefixed(parts.next().unwrap_or_default(), v6)?;
            if let Some(gateway) = parts.next() {
                ip_of(gateway, v6)?;
            }
            match parts.next() {
                None => Ok(()),
                Some(_) => Err("more than ADDRESS/PREFIX,GATEWAY".into()),
            }
        }
        Route => {
            let mut parts = value.trim_end_matches(';').split(',');
            prefixed(parts.next().unwrap_or_default(), v6)?;
            if let Some(gateway) = parts.next() {
                ip_of(gateway, v6)?;
            }
            if let Some(metric) = parts.next() {
                metric
                    .parse::<u32>()
                    .map_err(|_| format!("metric `{metric}` is not a whole number"))?;
            }
            match parts.next() {
                None => Ok(()),
                Some(_) => Err("more than DESTINATION/PREFIX,GATEWAY,METRIC".into()),
            }
        }
    }
}

/// An address of the family (`v6`), as NetworkManager parses it.
fn ip_of(text: &str, v6: bool) -> Result<IpAddr, String> {
    let family = if v6 { "IPv6" } else { "IPv4" };
    match text.parse::<IpAddr>() {
        Ok(ip) if ip.is_ipv6() == v6 => Ok(ip),
        _ => Err(format!("`{text}` is not an {family} address")),
    }
}

/// `ADDRESS/PREFIX` of the family, the prefix within its bits.
fn prefixed(text: &str, v6: bool) -> Result<(), String> {
    let Some((ip, prefix)) = text.split_once('/') else {
        return Err(format!("`{text}` has no /PREFIX"));
    };
    ip_of(ip, v6)?;
    let bits = if v6 { 128 } else { 32 };
    match prefix.parse::<u8>() {
        Ok(p) if p <= bits => Ok(()),
        _ => Err(format!("prefix `/{prefix}` is not from 0 to {bits}")),
    }
}

fn is_uuid(text: &str) -> bool {
    let lengths: Vec<usize> = text.split('-').map(str::len).collect();
    lengths == [8, 4, 4, 4, 12] && text.chars().all(|c| c == '-' || c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::parse_groups;

    fn broken(text: &str) -> Option<(String, String, String)> {
        first_broken(&parse_groups(text).unwrap())
    }

    const BASE: &str = "[connection]\nid=a\ntype=ethernet\n";

    #[test]
    fn the_issues_keyfiles_are_refused_naming_group_key_and_value() {
        let (group, key, why) = broken(&format!(
            "{BASE}[ipv4]\nmethod=manual\naddress1=192.168.50.300/24\n"
        ))
        .unwrap();
        assert_eq!((group.as_str(), key.as_str()), ("ipv4", "address1"));
        assert!(why.contains("192.168.50.300/24"), "{why}");
        let (_, key, why) = broken(&format!("{BASE}[ipv4]\nmethod=manul\n")).unwrap();
        assert_eq!(key, "method");
        assert!(why.contains("`manul`") && why.contains("manual"), "{why}");
    }

    #[test]
    fn good_values_pass_and_numbered_keys_match() {
        let good = format!("{BASE}uuid=0a1b2c3d-0000-4000-8000-00000000abcd\nautoconnect=true\n[ethernet]\nmac-address=52:54:00:00:00:01\ncloned-mac-address=stable\n[ipv4]\nmethod=manual\naddress1=10.0.0.5/24,10.0.0.1\nroute1=10.1.0.0/16,10.0.0.1,100\nroute1_options=table=254\ndns=10.0.0.1;10.0.0.2;\n[ipv6]\nmethod=auto\naddr-gen-mode=eui64\n[bond]\nmode=active-backup\n[user]\nnmstate.interface.description=x\n");
        assert_eq!(broken(&good), None);
    }

    #[test]
    fn each_kind_of_mistake_is_named() {
        for (text, key) in [
            ("[ipv4]\nmethod=manual\naddress1=10.0.0.5/33\n", "address1"),
            ("[ipv4]\nmethod=manual\naddress1=10.0.0.5\n", "address1"),
            ("[ipv4]\nmethod=auto\ngateway=1.2.3\n", "gateway"),
            ("[ipv4]\nmethod=auto\ndns=fd00::1;\n", "dns"),
            ("[ipv6]\nmethod=auto\nroute1=fd00::/129\n", "route1"),
            ("[ethernet]\nmtu=abc\n", "mtu"),
            ("[ethernet]\nmac-address=zz\n", "mac-address"),
            ("[ipv4]\ncolour=red\n", "colour"),
            ("[colour]\nx=1\n", ""),
            ("autoconnect=maybe\n", "autoconnect"),
        ] {
            let found = broken(&format!("{BASE}{text}"));
            assert_eq!(
                found.as_ref().map(|f| f.1.as_str()),
                Some(key),
                "{text}: {found:?}"
            );
        }
    }
}
