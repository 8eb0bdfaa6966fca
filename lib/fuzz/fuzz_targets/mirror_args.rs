//! The disconnected-install arguments (--mirror, --add-host, --insecure-registry,
//! --registry-auth, --trust-bundle) and registries.conf parsing must never panic.
#![no_main]

use bootgen::passes::mirrors::{self, HostEntry, MirrorRule, RegistryAuth, TrustBundle};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = MirrorRule::parse(text);
        let _ = HostEntry::parse(text).map(|h| h.line());
        let _ = mirrors::parse_insecure_registry(text);
        let _ = bootgen::release::check_repository(text);
        let _ = text.parse::<bootgen::release::PullSpec>();
        let _ = mirrors::check_host_port(text);
        let _ = mirrors::parse_registries_conf(text);
    }
    let _ = RegistryAuth::parse("fuzz-auth.json", data);
    let _ = TrustBundle::parse("fuzz-ca.pem", data);
});
