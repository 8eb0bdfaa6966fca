//! Writes the test-only PKI under `fixtures/pki/` (see its README): cluster `example`, base
//! domain `example.com`, service network 172.30.0.0/16, RSA 2048, clock fixed at
//! 2026-01-01T00:00:00Z.
//!
//! Run from the workspace root: `cargo run -p bootgen --example make_fixture_pki [DIR]`.
//! Regenerating changes every key, so every snapshot that relies on the fixture changes too.

use std::path::PathBuf;

use bootgen::pki::{KeyAlgorithm, Pki, PkiRequest};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/pki"));
    let request = PkiRequest {
        cluster_name: "example".into(),
        api_host: "api.example.example.com".into(),
        api_int_host: "api-int.example.example.com".into(),
        service_network_ips: vec!["172.30.0.1".parse()?],
        machine_config_server_ips: Vec::new(),
        kubelet_client_in_all_service_accounts: true,
        key_algorithm: KeyAlgorithm::Rsa2048,
        signer_key_algorithm: KeyAlgorithm::Rsa2048,
        now: time::OffsetDateTime::from_unix_timestamp(1_767_225_600)?, // 2026-01-01T00:00:00Z
        lifetimes: Default::default(),
        renew_expired: false,
    };
    let (pki, _) = Pki::build(&request, None)?;
    std::fs::create_dir_all(&dir)?;
    for file in pki.store_files() {
        std::fs::write(dir.join(&file.name), &file.contents)?;
    }
    println!(
        "wrote {} files to {}",
        pki.store_files().len(),
        dir.display()
    );
    Ok(())
}
