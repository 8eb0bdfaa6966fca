//! Templates as the library renders them, for the tests that check each template's output on
//! its own (shellcheck, YAML and TOML parsers, exact bytes): the library's own renderer (strict
//! variables, the `sh`/`systemd`/`toml` quoting filters, minijinja's HTML-safe `tojson`) and
//! the library's own context, made by a real generation from an install-config. A test then
//! changes only the fields it is about.

use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::{HarnessError, Result};

/// Renders `templates/<rel>` with `context` through `bootgen::templates::Renderer`: a `.j2`
/// file filled in, any other file as it is.
pub fn render(rel: &str, context: &Value) -> Result<String> {
    let file = bootgen::templates::template(rel)
        .ok_or_else(|| HarnessError(format!("templates/{rel} is not a template")))?;
    let bytes = bootgen::templates::Renderer::new(context)
        .render(&file)
        .map_err(|err| HarnessError(format!("cannot render templates/{rel}: {err}")))?;
    String::from_utf8(bytes).map_err(|_| HarnessError(format!("templates/{rel} is not UTF-8")))
}

/// The context a generation from `install_config` (YAML) gives its templates, for release
/// `version`, with [`crate::quick_options`]. Each pair is generated once per test binary.
pub fn context_of(install_config: &str, version: &str) -> Result<Value> {
    made_context(install_config, version, false)
}

/// The same for OKD: the cluster of `install_config` with OKD's payload of `version`
/// (`quay.io/okd/scos-release:<version>-okd-scos.0`).
pub fn okd_context_of(install_config: &str, version: &str) -> Result<Value> {
    made_context(install_config, version, true)
}

fn made_context(install_config: &str, version: &str, okd: bool) -> Result<Value> {
    static MADE: Mutex<BTreeMap<(String, String, bool), Value>> = Mutex::new(BTreeMap::new());
    let key = (install_config.to_string(), version.to_string(), okd);
    if let Some(context) = lock(&MADE).get(&key) {
        return Ok(context.clone());
    }
    let loaded = bootgen::config::parse(install_config, "install-config.yaml")
        .map_err(|err| HarnessError(format!("install-config: {err}")))?;
    let mut options = crate::quick_options(Some(version));
    if okd {
        options.model.release_version = None;
        options.model.release_image =
            Some(format!("quay.io/okd/scos-release:{version}-okd-scos.0"));
    }
    let generated = bootgen::generate(&loaded, &options)
        .map_err(|err| HarnessError(format!("generating for {version}: {err}")))?;
    let context = generated.template_context().to_value();
    lock(&MADE).insert(key, context.clone());
    Ok(context)
}

/// The cache, even after a test panicked holding it (its entries are still whole).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
