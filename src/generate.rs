//! Shell completions and man pages, generated from the clap definition. `memctl
//! completions` and `memctl man` print them for users who installed the binary alone;
//! `completions/` and `man/` hold the same bytes, committed and checked by a test.

use clap_complete::Shell;

pub use crate::command_tree::command;
use crate::error::{Error, Kind};

/// The completion script for `shell`: clap_complete's static script; for bash, zsh
/// and fish with a wrapper that first asks the hidden `memctl __complete` for `REF`,
/// `--type` and rule-id values (SPEC §3.13) and falls back to the static completion
/// for every other word.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut command(), "memctl", &mut buf);
    let script = String::from_utf8_lossy(&buf).into_owned();
    let script = match shell {
        Shell::Bash => bash(&script),
        Shell::Zsh => zsh(&script),
        Shell::Fish => script + &crate::complete::fish_rules(),
        _ => script,
    };
    script.into_bytes()
}

const BASH_DYNAMIC: &str = r#"# Dynamic values (memory names, types, rule ids) from `memctl __complete`; every
# other word is completed by the static _memctl above.
_memctl_dynamic() {
    local out
    if out="$(memctl __complete --shell bash -- "${COMP_WORDS[@]:0:COMP_CWORD+1}" 2>/dev/null)"; then
        compopt +o default +o bashdefault 2>/dev/null
        local IFS=$'
'
        COMPREPLY=($out)
        return 0
    fi
    _memctl "$@"
}

"#;

const ZSH_DYNAMIC: &str = r#"# Dynamic values (memory names, types, rule ids) from `memctl __complete`; every
# other word is completed by the static _memctl_static above.
_memctl() {
    local out
    if out="$(memctl __complete --shell zsh -- "${(@)words[1,CURRENT]}" 2>/dev/null)"; then
        local -a candidates
        candidates=("${(@f)out}")
        compset -P '*[=,]'
        _describe -t values 'value' candidates
        return
    fi
    _memctl_static "$@"
}

"#;

fn bash(script: &str) -> String {
    let tail = "if [[ \"${BASH_VERSINFO[0]}\"";
    let Some(at) = script.rfind(tail) else {
        return script.to_string();
    };
    let (head, rest) = script.split_at(at);
    format!(
        "{head}{BASH_DYNAMIC}{}",
        rest.replace("complete -F _memctl ", "complete -F _memctl_dynamic ")
    )
}

fn zsh(script: &str) -> String {
    let tail = "if [ \"$funcstack[1]\" = \"_memctl\" ]";
    let Some(at) = script.rfind(tail) else {
        return script.to_string();
    };
    let (head, rest) = script.split_at(at);
    let head = head.replacen("\n_memctl() {\n", "\n_memctl_static() {\n", 1);
    format!("{head}{ZSH_DYNAMIC}{rest}")
}

/// Every man page: (file name, roff), `memctl.1` and one `memctl-<sub>.1` per command.
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    fn collect(cmd: &clap::Command, out: &mut Vec<(String, Vec<u8>)>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            collect(sub, out);
        }
        let man = clap_mangen::Man::new(cmd.clone());
        out.push((man.get_filename(), render_man(&man, cmd)));
    }
    let mut cmd = command().disable_help_subcommand(true);
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

/// clap_mangen's sections, with EXAMPLES (from the command's `after_long_help`) in
/// place of its EXTRA section, then EXIT STATUS, ENVIRONMENT, FILES and SEE ALSO.
fn render_man(man: &clap_mangen::Man, cmd: &clap::Command) -> Vec<u8> {
    let mut buf = Vec::new();
    // Rendering into a Vec cannot fail.
    let _ = man.render_title(&mut buf);
    let _ = man.render_name_section(&mut buf);
    let _ = man.render_synopsis_section(&mut buf);
    let _ = man.render_description_section(&mut buf);
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        let _ = man.render_options_section(&mut buf);
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        let _ = man.render_subcommands_section(&mut buf);
    }
    let mut roff = String::new();
    if let Some(help) = cmd.get_after_long_help() {
        examples(&help.to_string(), &mut roff);
    }
    roff.push_str(MAN_TAIL);
    roff.push_str(".SH \"SEE ALSO\"\n");
    roff.push_str(&see_also(cmd.get_bin_name().unwrap_or("memctl")));
    buf.extend_from_slice(roff.as_bytes());
    if cmd.get_version().is_some() {
        let _ = man.render_version_section(&mut buf);
    }
    buf
}

/// `Examples:` text (a two-space description, the four-space command under it) as
/// a roff EXAMPLES section.
fn examples(text: &str, roff: &mut String) {
    roff.push_str(".SH EXAMPLES\n");
    for line in text.lines().skip_while(|l| !l.starts_with("Examples:")).skip(1) {
        if let Some(cmd) = line.strip_prefix("    ") {
            roff.push_str(&format!(".RS 4\n.nf\n\\fB{}\\fR\n.fi\n.RE\n", escape(cmd)));
        } else if let Some(what) = line.strip_prefix("  ") {
            roff.push_str(&format!(".PP\n{}\n", escape(what)));
        }
    }
}

/// Text safe in roff: backslashes and minus signs escaped, no line starting with a
/// control character.
fn escape(text: &str) -> String {
    let s = text.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with(['.', '\'']) {
        format!("\\&{s}")
    } else {
        s
    }
}

/// Every page's SEE ALSO: memctl(1) and the other commands' pages.
fn see_also(bin: &str) -> String {
    let own = bin.replace(' ', "-");
    let mut cmd = command();
    cmd.build();
    let mut pages: Vec<String> = vec!["memctl".into()];
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        pages.push(format!("memctl-{}", sub.get_name()));
    }
    let refs: Vec<String> = pages
        .iter()
        .filter(|p| **p != own)
        .map(|p| format!("\\fB{}\\fR(1)", escape(p)))
        .collect();
    format!("{}\n", refs.join(", "))
}

const MAN_TAIL: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Success; also: no findings, dream gates closed, broken pipe on standard output.
.TP
\fB1\fR
Findings: \fBlint\fR errors (or warnings with \fB\-\-strict\fR), \fBtruncate\-check\fR truncated or over \fB\-\-warn\-at\fR, a refusal caused by \fB\-\-strict\fR, an edit kept as a draft after failed validation.
.TP
\fB2\fR
Usage or runtime error; the message names the file or value, and a \fBhint:\fR line names the fix.
.SH ENVIRONMENT
.TP
\fBMEMCTL_DIR\fR
The memory dir to operate on, like \fB\-\-dir\fR; empty counts as unset.
.TP
\fBMEMCTL_NOW\fR
A fixed "now" in RFC 3339 form (2026\-03\-10T12:00:00Z) for ages, gates and trash stamps.
.TP
\fBNO_COLOR\fR
Disables colour when \fB\-\-color\fR is auto.
.TP
\fBVISUAL\fR, \fBEDITOR\fR
The editor of \fBedit\fR and \fBadd \-\-edit\fR; empty counts as unset.
.TP
\fBHOME\fR
The home directory; when unset or empty, the account's home directory.
.TP
\fBCLAUDE_CONFIG_DIR\fR, \fBCLAUDE_CODE_REMOTE_MEMORY_DIR\fR, \fBCLAUDE_COWORK_MEMORY_PATH_OVERRIDE\fR
Read as Claude Code reads them to resolve the memory dir (see \fBmemctl path \-\-explain\fR).
.TP
\fBCLAUDE_CODE_DISABLE_AUTO_MEMORY\fR, \fBCLAUDE_CODE_SIMPLE\fR, \fBCLAUDE_CODE_REMOTE\fR
Read as Claude Code reads them to decide whether auto memory is enabled.
.SH FILES
.TP
\fI~/.claude/projects/<key>/memory/\fR
The default memory dir of a project (\fB$CLAUDE_CONFIG_DIR\fR replaces \fI~/.claude\fR); \fBMEMORY.md\fR is its index, \fBteam/\fR the team memory dir.
.TP
\fI${XDG_STATE_HOME:\-~/.local/state}/memctl/history/\fR
The history store: snapshots taken around every write (\fBmemctl history\fR); \fBforget\fR keeps removed memories there, and \fBmemctl restore\fR brings them back.
.TP
\fI<memory dir>/.trash/\fR
Where \fBforget\fR keeps removed memories when history is off (\fB\-\-no\-history\fR, \fBMEMCTL_HISTORY=off\fR) or failing, with a command to restore them.
.TP
\fI<memory dir>/.memctl.lock\fR
memctl's write lock.
.TP
\fI<memory dir>/.consolidate-lock\fR
Claude Code's auto\-dream lock (\fBmemctl lock status\fR).
.TP
\fI~/.claude/settings.json\fR, \fI<project>/.claude/settings.json\fR, \fI<project>/.claude/settings.local.json\fR, managed settings
The settings sources of \fBautoMemoryDirectory\fR and \fBautoMemoryEnabled\fR.
"#;

/// The Claude Code plugin's `hooks/hooks.json` (SPEC v3 §13), as committed under
/// `plugins/memctl/`: [`crate::hook::install::plugin_hooks`], pretty-printed, with a
/// final newline.
pub fn plugin_hooks() -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(&crate::hook::install::plugin_hooks()).unwrap_or_default();
    text.push('\n');
    text.into_bytes()
}
