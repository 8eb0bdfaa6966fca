//! The arguments of `bootgen iso` and `bootgen pxe`.

use bootgen::model::Arch;
use clap::Args;
use std::path::PathBuf;

/// What `bootgen iso` and `bootgen pxe` put into the media.
#[derive(Debug, Args)]
pub struct MediaArgs {
    /// The config: a file, or an output directory (its single-node live config, else bootstrap.ign).
    #[arg(long, short = 'c', value_name = "FILE|DIR")]
    pub config: PathBuf,
    /// Install to this disk without asking, with the config as the installed system's, then reboot (as `coreos-installer iso customize --dest-device --dest-ignition`).
    #[arg(long, value_name = "DEVICE")]
    pub dest_device: Option<String>,
    /// A kernel argument for the installed system (with --dest-device; repeatable).
    #[arg(long, value_name = "ARG", requires = "dest_device")]
    pub dest_karg_append: Vec<String>,
    /// A console for the installed system, e.g. ttyS0,115200n8 (with --dest-device; repeatable).
    #[arg(long, value_name = "SPEC", requires = "dest_device")]
    pub console: Vec<String>,
    /// A NetworkManager keyfile for the live system, copied to the installed one (repeatable).
    #[arg(long, value_name = "FILE")]
    pub network_keyfile: Vec<PathBuf>,
    /// The config's architecture, when neither the config nor its directory's metadata.json tells it.
    #[arg(long, value_name = "ARCH")]
    pub arch: Option<Arch>,
}

/// `bootgen iso`.
#[derive(Debug, Args)]
pub struct IsoArgs {
    /// The CoreOS live ISO (RHCOS or SCOS).
    #[arg(value_name = "LIVE.iso")]
    pub input: PathBuf,
    /// Write the result here; without it the input ISO is changed in place.
    #[arg(long, short = 'o', value_name = "OUT.iso")]
    pub output: Option<PathBuf>,
    /// Customize an ISO that already holds a config or kernel arguments (replacing them), and replace an existing --output.
    #[arg(long)]
    pub force: bool,
    /// In place: keep the ISO's mode even when others can read it and the config it now holds
    /// carries private keys or passwords (by default such an ISO is made private, 0600).
    #[arg(long)]
    pub keep_mode: bool,
    /// A kernel argument added to the ISO's own for the live system (repeatable).
    #[arg(long, value_name = "ARG")]
    pub live_karg_append: Vec<String>,
    /// A kernel argument taken out of the ISO's own for the live system (repeatable).
    #[arg(long, value_name = "ARG")]
    pub live_karg_delete: Vec<String>,
    /// What goes into the ISO.
    #[command(flatten)]
    pub media: MediaArgs,
}

/// `bootgen pxe`.
#[derive(Debug, Args)]
pub struct PxeArgs {
    /// The CoreOS live ISO whose /images/pxeboot files make the set.
    #[arg(value_name = "LIVE.iso")]
    pub input: PathBuf,
    /// The directory the set is written into.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: PathBuf,
    /// The URL the set is served from, for the boot entries (the rootfs is fetched from it).
    #[arg(long, value_name = "URL")]
    pub base_url: String,
    /// The names' prefix (default: the config's name without .ign), e.g. bootstrap gives bootstrap-vmlinuz.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Replace existing files of the set.
    #[arg(long)]
    pub force: bool,
    /// What goes into the initramfs.
    #[command(flatten)]
    pub media: MediaArgs,
}
