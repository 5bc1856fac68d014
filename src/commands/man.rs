//! `memctl man [COMMAND]` (SPEC §3.13).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ManArgs;
use crate::error::{Error, Kind};
use crate::generate;
use crate::output::Output;

/// `--json` is refused: there is no JSON form of a man page (roff) (issue 32 point 12).
fn refuse_json(out: &Output) -> Result<(), Error> {
    if out.json {
        return Err(Error::new(
            Kind::Usage,
            "--json does not apply to `memctl man`: it prints a man page (roff)",
        )
        .hint("drop --json"));
    }
    Ok(())
}

/// On a terminal the page is rendered by `man -l -` (issue 34 point 11); piped,
/// or when `man` cannot be run, the roff source is printed as it is.
pub fn run(args: &ManArgs, out: &mut Output) -> Result<ExitCode> {
    refuse_json(out)?;
    let page = generate::man_page(args.command.as_deref())?;
    if out.stdout_tty && render(&page, out)? {
        return Ok(ExitCode::SUCCESS);
    }
    out.write_bytes(&page)?;
    Ok(ExitCode::SUCCESS)
}

/// Show `page` through `man -l -` (it pages and formats for the terminal).
/// `false` when `man` cannot be started (not installed): print the roff then.
fn render(page: &[u8], out: &mut Output) -> Result<bool> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let _ = out.flush();
    let mut child = match Command::new("man").args(["-l", "-"]).stdin(Stdio::piped()).spawn() {
        Ok(c) => c,
        Err(_) => return Ok(false),
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A pager the user quits early closes the pipe: not an error.
        let _ = stdin.write_all(page);
    }
    let status = child.wait()?;
    if !status.success() {
        out.warn(format!(
            "`man -l -` failed ({status}); printing the page's roff source instead"
        ));
        return Ok(false);
    }
    Ok(true)
}
