//! The node's templates and what they see: the files under `templates/` (embedded), the
//! renderer that fills them (strict: an unknown variable is an error; the `sh`, `systemd` and
//! `toml` quoting filters), and the typed context a generation gives them, with the release
//! profile's part of it. `templates/README.md` documents every variable.

pub use crate::context::{
    release_context, Capabilities, ClusterContext, MirrorManifest, Networking, NodeIp,
    PlatformContext, PodNetwork, PoolContext, ReleaseContext, StageContext, TemplateContext,
};
pub use crate::render::{
    files_under, quote_sh, quote_systemd, quote_toml, template, Renderer, TemplateFile, TEMPLATES,
    TEMPLATE_SUFFIX,
};
