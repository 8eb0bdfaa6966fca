//! One node's profile: the files, units, stages and switches the release table gives a node in
//! one flow, on one platform, of one distribution, with the opt-ins its install-config chooses.
//! Everything that asks "does the node have X" asks a [`NodeProfile`], which a [`Profile`] makes
//! ([`Profile::for_node`], here beside what it makes, so that the profiles need not know it).

use super::dimensions::{Dimensions, Distribution, Flow, NodeFile, NodeUnit, Platform};
use super::profile::{Profile, Stage};
use super::switch::{Switch, Switches};

impl Profile {
    /// What a node of this release gets in `flow`, on `platform`, of `distribution`, with the
    /// opt-ins `chosen` ([`Profile::opt_ins_chosen`]).
    pub fn for_node(
        &self,
        flow: Flow,
        platform: Platform,
        distribution: Distribution,
        chosen: &[String],
    ) -> NodeProfile<'_> {
        let dims = Dimensions {
            flow,
            platform,
            distribution,
        };
        let switches = self.switches(dims);
        NodeProfile {
            profile: self,
            dims,
            opt_ins: chosen.to_vec(),
            files: self
                .files
                .iter()
                .filter(|f| f.scope.admits(dims, &switches, chosen))
                .collect(),
            units: self
                .units
                .iter()
                .filter(|u| u.scope.admits(dims, &switches, chosen))
                .collect(),
            switches,
        }
    }
}

/// What one node gets of its release.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct NodeProfile<'p> {
    /// The release's profile.
    pub profile: &'p Profile,
    /// Flow, platform and distribution.
    pub dims: Dimensions,
    /// The opt-ins the install-config chooses (see [`Profile::opt_ins_chosen`]).
    pub opt_ins: Vec<String>,
    /// The switches that are on.
    pub switches: Switches,
    /// The files the node can have (each still subject to its [`Condition`](super::Condition)), in table order.
    pub files: Vec<&'p NodeFile>,
    /// The units the node has, in table order.
    pub units: Vec<&'p NodeUnit>,
}

impl<'p> NodeProfile<'p> {
    /// Whether `switch` is on for this node.
    pub fn has(&self, switch: Switch) -> bool {
        self.switches.has(switch)
    }

    /// bootkube's stages on this node, in run order.
    pub fn stages(&self) -> impl Iterator<Item = &'p Stage> + '_ {
        self.profile.stages.iter().filter(move |s| {
            s.flow.is_none_or(|f| f == self.dims.flow)
                && s.opt_in.as_ref().is_none_or(|g| self.opt_ins.contains(g))
        })
    }

    /// The file row for `path`, when the node can have it.
    pub fn file(&self, path: &str) -> Option<&'p NodeFile> {
        self.files.iter().copied().find(|f| f.path == path)
    }
}
