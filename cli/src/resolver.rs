//! Host-name lookups for the mirror pre-flight: the system resolver, with a time limit.

use bootgen::checks::preflight::Resolution;
use std::net::ToSocketAddrs;
use std::sync::mpsc;
use std::time::Duration;

/// How long one name lookup may take before the pre-flight gives up on it.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(3);

/// Resolves a name with the system resolver, giving up after [`RESOLVE_TIMEOUT`] (the lookup
/// thread is left to finish on its own).
pub fn resolve(name: &str) -> Resolution {
    let (send, receive) = mpsc::channel();
    let owned = name.to_string();
    std::thread::spawn(move || {
        let answer = (owned.as_str(), 443)
            .to_socket_addrs()
            .map(|mut addresses| addresses.next().is_some());
        let _ = send.send(answer);
    });
    match receive.recv_timeout(RESOLVE_TIMEOUT) {
        Ok(Ok(true)) => Resolution::Resolved,
        Ok(Ok(false)) => Resolution::Failed("no address".into()),
        Ok(Err(e)) => Resolution::Failed(e.to_string()),
        Err(_) => Resolution::Failed(format!("no answer within {} s", RESOLVE_TIMEOUT.as_secs())),
    }
}
