//! Locating and reading CLAUDE files.
