//! Online multi-zone policies: each acts on the [`Env`](crate::zones::Env) once per tick
//! under the safety net, learning spot availability only by trying and probing.

pub mod probing;
pub mod single;
pub mod uniform;

pub use probing::UniformProbing;
pub use single::SingleZone;
pub use uniform::UniformFailover;
