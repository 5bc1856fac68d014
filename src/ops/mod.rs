//! Write operations, one file each: a pure `plan(..)` that returns a typed plan, and
//! an `apply(plan, &mut Writer)` that carries it out through the one [`Writer`]
//! (crate::store::Writer). Commands gather input, call these, and render.

pub mod add;
pub mod export;
pub mod forget;
pub mod import;
pub mod merge;
pub mod place;
pub mod rebuild;
pub mod restore;
pub mod review;
pub mod survey;
pub mod undo;
