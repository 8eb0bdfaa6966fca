//! Parsing, decoding, viewing and patching any bytes as an Ignition config must never panic.
#![no_main]

use bootgen::ignition::IgnitionDoc;
use bootgen::passes::{self, PassOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(mut doc) = IgnitionDoc::parse(data, "fuzz.ign") else {
        return;
    };
    if let Ok(decoded) = bootgen::ignition::decode(&doc) {
        let _ = bootgen::ignition::readable_view(&decoded);
    }
    let units = passes::unit_names(&doc);
    let options = PassOptions {
        hold_units: units.iter().take(1).cloned().collect(),
        mask_units: units.iter().skip(1).take(1).cloned().collect(),
        debug: units.iter().any(|u| u == "bootkube.service"),
        ..PassOptions::default()
    };
    if passes::apply(&mut doc, &options).is_ok() {
        // Whatever a pass writes must still parse.
        let bytes = doc.to_bytes();
        assert!(IgnitionDoc::parse(&bytes, "patched.ign").is_ok());
    }
});
