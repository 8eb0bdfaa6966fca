//! `ignition.proxy` (spec 3.1 and later): each proxy an http or https URL Ignition can parse; an
//! `httpsProxy` over plain HTTP is warned about, as `ignition-validate` does.

use super::{str_at, Rules};
use crate::checks::problem::{Check, Problem, Severity};
use crate::checks::source::{check_http_url, scheme_of};
use serde_json::Value;

impl Rules {
    pub(super) fn proxy(&mut self, config: &Value) {
        let Some(proxy) = config
            .pointer("/ignition/proxy")
            .filter(|_| self.minor >= 1)
        else {
            return;
        };
        for key in ["httpProxy", "httpsProxy"] {
            let Some(url) = str_at(proxy, key) else {
                continue;
            };
            let at = format!("$.ignition.proxy.{key}");
            if let Err(why) = check_http_url(url, "proxies must be http(s)") {
                self.error(
                    Check::Ignition,
                    "proxy",
                    at,
                    format!(
                        "{why} (`{}`)",
                        crate::ignition::redact::Redact::Marker.inline(url)
                    ),
                );
            } else if key == "httpsProxy" && scheme_of(url).is_ok_and(|s| s == "http") {
                self.problems.push(Problem::new(
                    Severity::Warning,
                    Check::Ignition,
                    "proxy",
                    at,
                    "insecure plaintext HTTP proxy specified for HTTPS resources",
                ));
            }
        }
    }
}
