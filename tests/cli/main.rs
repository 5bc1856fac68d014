//! memctl's integration tests: one binary, one module per subcommand.

mod support;

mod add;
mod all_projects;
mod bad_input;
mod bundle;
mod config;
mod contract;
mod dream;
mod edit;
mod forget;
mod generated;
mod global;
mod history;
mod hook;
mod identity;
mod index;
mod lint;
mod lint_fix;
mod list;
mod lock;
mod merge;
mod oracle_types;
mod path;
mod projects;
mod restore;
mod review;
mod safety;
mod search;
mod show;
mod sync;
mod sync_machines;
mod truncate_check;
mod undo;
