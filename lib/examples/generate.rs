//! Generate a bootstrap config with the library and write it to a directory.
//!
//! `cargo run -p bootgen --example generate -- [install-config.yaml] [out-dir]`

use bootgen::{config, generate, output, Options};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let loaded = match args.next() {
        Some(path) => config::load(PathBuf::from(path).as_path())?,
        None => config::load_default()?,
    };
    let out = PathBuf::from(args.next().unwrap_or_else(|| "bootgen-example-out".into()));
    // The library never reads the clock itself: the caller decides what "now" is.
    let options = Options::new(time::OffsetDateTime::now_utc());
    let generated = generate(&loaded, &options)?;
    for warning in &generated.warnings {
        eprintln!("warning: {warning}");
    }
    output::write_dir(&out, &output::output_files(&generated), true)?;
    println!(
        "{}: {} bytes of Ignition for {}",
        out.join("bootstrap.ign").display(),
        generated.bootstrap.to_bytes().len(),
        generated.model.cluster_domain()
    );
    Ok(())
}
