//! Dynamic completion (SPEC §3.13): the hidden `memctl __complete --shell SHELL --
//! WORDS…` that the scripts in `completions/` call. WORDS are the command line up to
//! and including the word under the cursor. When that word is a `REF` (of `show`,
//! `edit`, `forget`), a `--type` value or a `--rule`/`--disable`/`--explain` id, it
//! prints one candidate per line and exits 0; for any other word it prints nothing
//! and exits 1, and the script falls back to clap_complete's static completion.
//!
//! clap_complete's own dynamic engine (`CompleteEnv`, `ArgValueCandidates`) sits
//! behind its `unstable-dynamic` feature; this is the small stable equivalent.

use crate::lint::RULES;
use crate::memory::MemoryType;
use crate::paths::{self, Env, Request};
use crate::scan;

/// The shells whose scripts call `__complete`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    pub fn parse(s: &str) -> Option<Shell> {
        match s {
            "bash" => Some(Shell::Bash),
            "zsh" => Some(Shell::Zsh),
            "fish" => Some(Shell::Fish),
            _ => None,
        }
    }
}

/// What the word under the cursor names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A `--type` value; `list` also takes `none`.
    Type { none: bool },
    /// A lint rule id or name.
    Rule,
    /// A memory reference.
    Ref,
}

/// The word under the cursor, understood.
#[derive(Clone, Debug)]
pub struct Position {
    pub slot: Slot,
    /// The part of the value being completed (after `--opt=` and the last comma).
    pub partial: String,
    /// The items already in a comma list (`user,` in `user,fe`).
    pub list_prefix: String,
    /// The global options typed so far.
    pub request: Request,
}

/// One completion candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub value: String,
    pub help: String,
}

/// Where the last of `words` (`memctl …`, the current word last) stands. Bash splits
/// `--type=fe` into `--type`, `=`, `fe`; those are joined back first.
pub fn position(words: &[String], shell: Shell) -> Option<Position> {
    let words = join_equals(words, shell);
    let (current, before) = words.split_last()?;
    let root = crate::command_tree::command();
    let mut sub: Option<&clap::Command> = None;
    let mut request = Request::default();
    let mut positionals = 0usize;
    let mut pending: Option<String> = None;
    let mut only_positionals = false;
    for w in before.iter().skip(1) {
        if let Some(opt) = pending.take() {
            record(&mut request, &opt, w);
            continue;
        }
        if only_positionals || !w.starts_with('-') || w == "-" {
            match sub {
                None => sub = root.find_subcommand(w),
                Some(_) => positionals += 1,
            }
            continue;
        }
        if w == "--" {
            only_positionals = true;
            continue;
        }
        let Some((long, attached)) = option(&root, sub, w) else {
            continue;
        };
        match attached {
            Some(v) => record(&mut request, &long, &v),
            None if takes_value(&root, sub, &long) => pending = Some(long),
            None => record(&mut request, &long, ""),
        }
    }
    let sub_name = sub.map(clap::Command::get_name).unwrap_or("");
    let (slot, value) = match pending {
        Some(opt) => (value_slot(sub_name, &opt)?, current.clone()),
        None if !only_positionals && current.starts_with('-') => {
            let (long, attached) = option(&root, sub, current)?;
            (value_slot(sub_name, &long)?, attached?)
        }
        None => {
            let takes_ref = REF_COMMANDS.contains(&sub_name) && (sub_name == "forget" || positionals == 0);
            if !takes_ref {
                return None;
            }
            (Slot::Ref, current.clone())
        }
    };
    let (list_prefix, partial) = match slot {
        Slot::Ref => (String::new(), value),
        _ => match value.rfind(',') {
            Some(i) => (value[..=i].to_string(), value[i + 1..].to_string()),
            None => (String::new(), value),
        },
    };
    Some(Position {
        slot,
        partial,
        list_prefix,
        request,
    })
}

/// `--type`, `=`, `fe` → `--type=fe` (bash's COMP_WORDBREAKS contains `=`).
fn join_equals(words: &[String], shell: Shell) -> Vec<String> {
    if shell != Shell::Bash {
        return words.to_vec();
    }
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut glue = false;
    for w in words {
        match out.last_mut() {
            Some(last) if w == "=" && last.starts_with("--") && !last.contains('=') => {
                last.push('=');
                glue = true;
            }
            Some(last) if glue => {
                last.push_str(w);
                glue = false;
            }
            _ => out.push(w.clone()),
        }
    }
    out
}

/// `--name[=v]` or `-x[v]` as the long name (`type`) and an attached value. Unknown
/// options give `None`.
fn option(root: &clap::Command, sub: Option<&clap::Command>, word: &str) -> Option<(String, Option<String>)> {
    let args = || {
        root.get_arguments()
            .chain(sub.into_iter().flat_map(clap::Command::get_arguments))
    };
    if let Some(rest) = word.strip_prefix("--") {
        let (name, value) = match rest.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (rest, None),
        };
        let arg = args().find(|a| a.get_long() == Some(name))?;
        return Some((arg.get_id().to_string(), value));
    }
    let mut chars = word.strip_prefix('-')?.chars();
    let short = chars.next()?;
    let arg = args().find(|a| a.get_short() == Some(short))?;
    let rest: String = chars.collect();
    let value = (arg.get_action().takes_values() && !rest.is_empty()).then_some(rest);
    Some((arg.get_id().to_string(), value))
}

fn takes_value(root: &clap::Command, sub: Option<&clap::Command>, id: &str) -> bool {
    root.get_arguments()
        .chain(sub.into_iter().flat_map(clap::Command::get_arguments))
        .find(|a| a.get_id() == id)
        .is_some_and(|a| a.get_action().takes_values())
}

/// The global options that choose the memory dir.
fn record(request: &mut Request, id: &str, value: &str) {
    match id {
        "dir" => request.dir = Some(value.into()),
        "project" => request.project = Some(value.into()),
        "team" => request.team = true,
        _ => {}
    }
}

/// The option values completed dynamically: (subcommand, argument id, slot).
const VALUES: &[(&str, &str, Slot)] = &[
    ("list", "types", Slot::Type { none: true }),
    ("search", "types", Slot::Type { none: true }),
    ("add", "memory_type", Slot::Type { none: false }),
    ("lint", "rules", Slot::Rule),
    ("lint", "disable", Slot::Rule),
    ("lint", "explain", Slot::Rule),
];

/// The subcommands whose positionals are `REF`s.
const REF_COMMANDS: &[&str] = &["show", "edit", "forget"];

fn value_slot(sub: &str, id: &str) -> Option<Slot> {
    VALUES
        .iter()
        .find(|(s, i, _)| *s == sub && *i == id)
        .map(|(_, _, slot)| slot.clone())
}

/// The lines the fish script adds to clap_complete's: fish only asks an option's
/// own rules for its value, so each dynamic option gets one, and each `REF` command
/// one for its positionals. Options the CLI does not (yet) have are skipped.
pub fn fish_rules() -> String {
    let root = crate::command_tree::command();
    let mut out = String::from(
        "\n# Dynamic values (memory names, types, rule ids) from `memctl __complete`.\n\
         function __memctl_dynamic\n    \
         memctl __complete --shell fish -- (commandline -opc) (commandline -ct) 2>/dev/null\n\
         end\n",
    );
    for sub in REF_COMMANDS {
        out.push_str(&format!(
            "complete -c memctl -n \"__fish_memctl_using_subcommand {sub}\" -f -a \"(__memctl_dynamic)\"\n"
        ));
    }
    for (sub, id, _) in VALUES {
        let Some(arg) = root
            .find_subcommand(sub)
            .and_then(|c| c.get_arguments().find(|a| a.get_id() == *id))
        else {
            continue;
        };
        let mut flags = String::new();
        if let Some(s) = arg.get_short() {
            flags.push_str(&format!(" -s {s}"));
        }
        if let Some(l) = arg.get_long() {
            flags.push_str(&format!(" -l {l}"));
        }
        out.push_str(&format!(
            "complete -c memctl -n \"__fish_memctl_using_subcommand {sub}\"{flags} -r -f -a \"(__memctl_dynamic)\"\n"
        ));
    }
    out
}

/// The candidates for `pos`, filtered by its partial value (case-insensitively for
/// rule ids and types, which memctl accepts in any case).
pub fn candidates(pos: &Position, env: &Env) -> Vec<Candidate> {
    let lower = pos.partial.to_lowercase();
    let taken: Vec<String> = pos.list_prefix.split(',').map(str::to_lowercase).collect();
    let fresh = |v: &str| !taken.iter().any(|t| *t == v.to_lowercase());
    match pos.slot {
        Slot::Type { none } => {
            let mut all: Vec<Candidate> = MemoryType::ALL
                .iter()
                .map(|t| Candidate {
                    value: t.as_str().to_string(),
                    help: type_help(*t).to_string(),
                })
                .collect();
            if none {
                all.push(Candidate {
                    value: "none".into(),
                    help: "files Claude Code sees as untyped".into(),
                });
            }
            all.retain(|c| c.value.starts_with(&lower) && fresh(&c.value));
            all
        }
        Slot::Rule => {
            let by_name = !lower.is_empty() && !"ml".starts_with(&lower) && !lower.starts_with("ml");
            RULES
                .iter()
                .map(|r| {
                    let (value, help) = if by_name {
                        (r.name.to_string(), r.id.as_str().to_string())
                    } else {
                        (r.id.as_str().to_string(), r.name.to_string())
                    };
                    Candidate { value, help }
                })
                .filter(|c| c.value.to_lowercase().starts_with(&lower) && fresh(&c.value))
                .collect()
        }
        Slot::Ref => refs(pos, env),
    }
}

/// `request` with a leading `~` or `~/` of `--dir`/`--project` expanded to the
/// home directory: the shell hands the words to the completion unexpanded, while
/// running the command would get them expanded (issue 34 point 11).
fn expanded(request: &Request, env: &Env) -> Request {
    use std::ffi::OsString;
    use std::path::{Path, PathBuf};
    let home = env.home();
    let expand = |p: &Path| -> Option<PathBuf> {
        let home = home.as_deref()?;
        let rest = p.strip_prefix("~").ok()?;
        Some(Path::new(home).join(rest))
    };
    Request {
        dir: request
            .dir
            .as_ref()
            .map(|d| expand(Path::new(d)).map_or_else(|| d.clone(), OsString::from)),
        project: request.project.as_ref().map(|p| expand(p).unwrap_or_else(|| p.clone())),
        team: request.team,
    }
}

fn type_help(t: MemoryType) -> &'static str {
    match t {
        MemoryType::User => "who the user is: role, expertise, preferences",
        MemoryType::Feedback => "how to work: corrections and confirmed approaches",
        MemoryType::Project => "ongoing work, goals, decisions, deadlines",
        MemoryType::Reference => "where information lives outside the project",
    }
}

/// File stems (relative paths for files in subdirectories) of the memories in the
/// dir the typed options resolve to, and, once a word is begun, the frontmatter
/// names it begins (case-insensitively, as `REF` resolves them); nothing when the dir
/// does not resolve.
fn refs(pos: &Position, env: &Env) -> Vec<Candidate> {
    let lower = pos.partial.to_lowercase();
    let mut request = expanded(&pos.request, env);
    // Inside a memory dir, that dir (SPEC v3 §3.14), as the command would.
    let named =
        request.dir.is_some() || request.project.is_some() || env.get_os("MEMCTL_DIR").is_some_and(|d| !d.is_empty());
    if !named {
        request.dir = paths::memory_dir_around(env).map(Into::into);
    }
    let Ok(res) = paths::resolve(&request, env) else {
        return Vec::new();
    };
    let scan = scan::scan(res.memdir.dir());
    let mut out = Vec::new();
    for m in &scan.memories {
        let stem = match m.rel.strip_suffix(".md") {
            Some(rel) if rel.contains('/') => rel.to_string(),
            _ => m.stem().to_string(),
        };
        let description = m.fields.description.as_ref().map(|d| d.js_string()).unwrap_or_default();
        let name = m
            .name()
            .filter(|n| *n != stem && !n.contains('\n') && !lower.is_empty() && n.to_lowercase().starts_with(&lower));
        if stem.starts_with(&pos.partial) {
            out.push(Candidate {
                value: stem,
                help: one_line(&description),
            });
        }
        if let Some(n) = name {
            out.push(Candidate {
                value: n,
                help: format!("name of {}", m.rel),
            });
        }
    }
    out.sort_by(|a, b| a.value.cmp(&b.value));
    out.dedup_by(|a, b| a.value == b.value);
    out
}

/// A description cut to one short line for a completion menu.
fn one_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// The lines to print for `shell`: bash gets whole words (the comma list included,
/// spaces escaped), zsh `value:help` (its script strips `--opt=` and the list with
/// `compset`), fish `value<TAB>help` with the comma list.
pub fn render(pos: &Position, cands: &[Candidate], shell: Shell) -> String {
    let mut out = String::new();
    for c in cands {
        let line = match shell {
            Shell::Bash => escape_bash(&format!("{}{}", pos.list_prefix, c.value)),
            Shell::Zsh => format!("{}:{}", c.value.replace('\\', "\\\\").replace(':', "\\:"), c.help),
            Shell::Fish => format!("{}{}\t{}", pos.list_prefix, c.value, c.help),
        };
        out.push_str(&line.replace('\n', " "));
        out.push('\n');
    }
    out
}

fn escape_bash(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if " \t'\"\\$`()<>&;|*?[]{}!#~".contains(ch) {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// `memctl __complete --shell SHELL -- WORDS…`: the exit code, after printing.
pub fn main(args: &[String]) -> u8 {
    let mut shell = Shell::Bash;
    let mut rest = args;
    while let Some((first, tail)) = rest.split_first() {
        match first.as_str() {
            "--" => {
                rest = tail;
                break;
            }
            "--shell" => {
                let Some((s, tail)) = tail.split_first() else { return 2 };
                let Some(s) = Shell::parse(s) else { return 2 };
                shell = s;
                rest = tail;
            }
            _ => return 2,
        }
    }
    let Some(pos) = position(rest, shell) else {
        return 1;
    };
    let env = Env::from_process().unwrap_or_default();
    let text = render(&pos, &candidates(&pos, &env), shell);
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: &str, shell: Shell) -> Option<Position> {
        let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
        if line.ends_with(' ') {
            words.pop();
            words.push(String::new());
        }
        position(&words, shell)
    }

    #[test]
    fn refs_are_the_positionals_of_show_edit_and_forget() {
        assert_eq!(pos("memctl show fo", Shell::Zsh).unwrap().slot, Slot::Ref);
        assert!(pos("memctl show a ", Shell::Zsh).is_none());
        assert_eq!(pos("memctl forget a b", Shell::Zsh).unwrap().partial, "b");
        assert_eq!(pos("memctl edit ", Shell::Zsh).unwrap().slot, Slot::Ref);
        assert!(pos("memctl list ", Shell::Zsh).is_none());
        assert!(pos("memctl show --r", Shell::Zsh).is_none());
    }

    #[test]
    fn global_options_before_and_after_the_subcommand_are_honoured() {
        let p = pos("memctl --dir /m show --team x", Shell::Bash).unwrap();
        assert_eq!(p.request.dir.as_deref(), Some(std::ffi::OsStr::new("/m")));
        assert!(p.request.team);
        let p = pos("memctl show --project=/p --color never x", Shell::Bash).unwrap();
        assert_eq!(p.request.project.as_deref(), Some(std::path::Path::new("/p")));
        assert_eq!(p.partial, "x");
    }

    #[test]
    fn option_values_in_every_spelling() {
        for line in [
            "memctl list --type fe",
            "memctl list -t fe",
            "memctl list --type=fe",
            "memctl list -tfe",
        ] {
            let p = pos(line, Shell::Zsh).unwrap();
            assert_eq!(
                (p.slot, p.partial.as_str()),
                (Slot::Type { none: true }, "fe"),
                "{line}"
            );
        }
        let p = pos("memctl list --type = fe", Shell::Bash).unwrap();
        assert_eq!(p.partial, "fe");
        let p = pos("memctl lint --rule ML101,ml2", Shell::Fish).unwrap();
        assert_eq!(
            (p.slot, p.list_prefix.as_str(), p.partial.as_str()),
            (Slot::Rule, "ML101,", "ml2")
        );
        assert_eq!(
            pos("memctl add --type ", Shell::Zsh).unwrap().slot,
            Slot::Type { none: false }
        );
        assert!(pos("memctl --dir ", Shell::Zsh).is_none());
        assert!(pos("memctl lint --format ", Shell::Zsh).is_none());
    }

    #[test]
    fn type_and_rule_candidates() {
        let env = Env::default();
        let p = pos("memctl list --type user,", Shell::Bash).unwrap();
        let values: Vec<String> = candidates(&p, &env).into_iter().map(|c| c.value).collect();
        assert_eq!(values, ["feedback", "project", "reference", "none"]);
        assert_eq!(render(&p, &candidates(&p, &env)[..1], Shell::Bash), "user,feedback\n");
        let p = pos("memctl lint --disable ml20", Shell::Zsh).unwrap();
        assert!(candidates(&p, &env).iter().all(|c| c.value.starts_with("ML20")));
        let p = pos("memctl lint --rule index-", Shell::Zsh).unwrap();
        assert!(candidates(&p, &env).iter().any(|c| c.value == "index-over-bytes"));
    }

    #[test]
    fn bash_escapes_and_zsh_quotes_colons() {
        let p = pos("memctl show ", Shell::Bash).unwrap();
        let c = [Candidate {
            value: "deploy notes".into(),
            help: "a:b".into(),
        }];
        assert_eq!(render(&p, &c, Shell::Bash), "deploy\\ notes\n");
        let c = [Candidate {
            value: "a:b".into(),
            help: "h".into(),
        }];
        assert_eq!(render(&p, &c, Shell::Zsh), "a\\:b:h\n");
    }
}
