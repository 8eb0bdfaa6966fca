//! Turns the release table (`src/release/releases.toml`, its one source) into compact JSON in
//! `OUT_DIR` at build time, which the library embeds and reads: every process loads the table,
//! and a TOML parse of it cost a re-run as much as exec did (its token list alone some 150
//! fresh pages). The table's own checks still run when it loads (`release/table.rs`).

use std::path::PathBuf;

const TABLE: &str = "src/release/releases.toml";

fn main() {
    println!("cargo:rerun-if-changed={TABLE}");
    println!("cargo:rerun-if-changed=build.rs");
    let text = match std::fs::read_to_string(TABLE) {
        Ok(text) => text,
        Err(e) => fail(&format!("{TABLE}: {e}")),
    };
    let table: toml::Table = match toml::from_str(&text) {
        Ok(table) => table,
        Err(e) => fail(&format!("{TABLE}: {e}")),
    };
    let json = match serde_json::to_string(&table) {
        Ok(json) => json,
        Err(e) => fail(&format!("{TABLE} as JSON: {e}")),
    };
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("releases.json");
    if let Err(e) = std::fs::write(&out, json) {
        fail(&format!("{}: {e}", out.display()));
    }
}

/// Stops the build with `message`, which cargo shows.
fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1)
}
