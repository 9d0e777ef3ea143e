//! frugal on Kubernetes: a gang scheduler and node provisioner around the core controller
//! — the third shell beside the simulator and `frugal serve`.
//!
//! Spark's own Kubernetes backend submits (`spark-submit --master k8s://…` with
//! `spark.kubernetes.scheduler.name=frugal`); its driver creates executor pods that name
//! frugal as their scheduler. frugal groups each application's executor pods into one gang
//! ([`gang`]), places the gang with the same controller and policy as the simulator — all
//! or nothing — and binds each pod to its VM's node through the `Binding` subresource; the
//! VMs the controller turns on are the nodes, created and deleted as they go on and off
//! ([`shell`], [`api`]).
//!
//! **Where the state lives.** The API server's objects are the world frugal acts on
//! (pods, nodes, bindings); the controller in memory is frugal's own state — the queue,
//! the placements, the fleet's power record and bill. Every rule is level-triggered (each
//! pass compares the pods and nodes with the controller), so the API server going away
//! and coming back loses no binding and places nothing twice: a bind that failed is asked
//! for again, to the same placement. frugal itself restarting is not yet survived (its
//! controller would start empty); the service's durable store is the natural home for
//! that and is not wired here yet.
//!
//! **What a real kubelet changes.** No container runtime runs on the project's machines,
//! so frugal also plays the kubelet's part ([`kubelet`]): it runs each bound pod's
//! process on its VM's host and reports its phase and IP. On a cluster with kubelets, that
//! part is left out and nothing else changes: the scheduler only binds pods and keeps
//! nodes, and the pods' phases, whoever reports them, end the gangs' jobs ([`shell`]).

pub mod api;
pub mod control_plane;
pub mod gang;
pub mod kubelet;
pub mod shell;

pub use api::{KubeOptions, run};
pub use gang::{GangSpec, SpecError};
pub use kubelet::{Hosts, Kubelet, Loopback, NetnsHosts};
pub use shell::{Action, PodKey, Shell, Waiting};

/// The settings of a shell on `cluster` (billed per second, idle VMs off at once, no boot
/// latency, no admission control, the papers' default model and RUT) with the queue
/// discipline `queue`: the simulator's [`frugal_sim::experiment::Setup`], so that a
/// shell and its replay run under one description.
pub fn setup(
    cluster: frugal_core::Cluster,
    queue: frugal_core::QueueDiscipline,
) -> frugal_sim::experiment::Setup {
    frugal_sim::experiment::Setup {
        queue: Some(queue),
        ..frugal_sim::experiment::Setup::of(cluster)
    }
}
