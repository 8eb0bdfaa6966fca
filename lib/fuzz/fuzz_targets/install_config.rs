//! install-config.yaml loading and validation must never panic, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(loaded) = bootgen::config::parse(text, "fuzz.yaml") {
        let _ = bootgen::model::Model::new(&loaded, &bootgen::model::ModelOptions::default());
        for warning in &loaded.warnings {
            let _ = warning.to_string();
        }
    }
});
