//! Templates as the library renders them, for the tests that check each template's output on
//! its own (shellcheck, YAML and TOML parsers, exact bytes): the library's own renderer (strict
//! variables, the `sh`/`systemd`/`toml` quoting filters, minijinja's HTML-safe `tojson`) and
//! the library's own context, made by a real generation from an install-config. A test then
//! changes only the fields it is about.

use serde_json::Value;

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
/// `version`, with keys fast to make (ECDSA) and a fixed clock.
pub fn context_of(install_config: &str, version: &str) -> Result<Value> {
    let loaded = bootgen::config::parse(install_config, "install-config.yaml")
        .map_err(|err| HarnessError(format!("install-config: {err}")))?;
    let now = time::OffsetDateTime::from_unix_timestamp(1_767_229_200)
        .map_err(|err| HarnessError(err.to_string()))?;
    let mut options = bootgen::Options::new(now);
    options.key_algorithm = bootgen::KeyAlgorithm::EcdsaP256;
    options.model.release_version = Some(version.to_string());
    let generated = bootgen::generate(&loaded, &options)
        .map_err(|err| HarnessError(format!("generating for {version}: {err}")))?;
    Ok(generated.template_context().to_value())
}
