//! Shell completions and man pages, generated from the clap definition. `memctl
//! completions` and `memctl man` print them for users who installed the binary alone;
//! `completions/` and `man/` hold the same bytes, committed and checked by a test.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;
use crate::error::{Error, Kind};

/// The completion script for `shell`.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "memctl", &mut buf);
    buf
}

/// Every man page: (file name, roff), `memctl.1` and one `memctl-<sub>.1` per command.
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    fn collect(cmd: &clap::Command, out: &mut Vec<(String, Vec<u8>)>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            collect(sub, out);
        }
        let man = clap_mangen::Man::new(cmd.clone());
        let mut buf = Vec::new();
        // Rendering into a Vec cannot fail.
        let _ = man.render(&mut buf);
        out.push((man.get_filename(), buf));
    }
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    collect(&cmd, &mut out);
    out.sort();
    out
}

/// The man page of `command` (`lint`, `lock-status`), or of memctl itself.
pub fn man_page(command: Option<&str>) -> Result<Vec<u8>, Error> {
    let file = match command {
        None => "memctl.1".to_string(),
        Some(c) => format!("memctl-{}.1", c.trim().replace(' ', "-")),
    };
    let pages = man_pages();
    if let Some((_, page)) = pages.iter().find(|(name, _)| *name == file) {
        return Ok(page.clone());
    }
    let names: Vec<String> = pages
        .iter()
        .filter_map(|(n, _)| n.strip_prefix("memctl-")?.strip_suffix(".1").map(str::to_string))
        .collect();
    Err(Error::new(
        Kind::Usage,
        format!("no man page for `{}`", command.unwrap_or_default()),
    )
    .hint(format!("pages: {}", names.join(", "))))
}
