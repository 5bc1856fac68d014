//! memctl's integration tests: one binary, one module per subcommand.

mod support;

mod generated;
mod global;
mod lint;
mod list;
mod path;
mod show;
mod truncate_check;
