//! `memctl lint --explain ID`: one explanation per rule of the table in
//! [`super::rules`] (SPEC §3.9.3), so a user without the README can act on a
//! finding. The match is exhaustive: a new rule does not compile without one.

use super::RuleId;

/// What Claude Code does, why it matters, and how to fix it.
pub struct Explanation {
    pub claude_code: &'static str,
    pub why: &'static str,
    pub fix: &'static str,
}

const fn e(claude_code: &'static str, why: &'static str, fix: &'static str) -> Explanation {
    Explanation { claude_code, why, fix }
}

/// The explanation of `id`.
pub fn explain(id: RuleId) -> Explanation {
    use RuleId::*;
    match id {
        ML101 => e(
            "Claude Code parses a topic file's frontmatter as YAML; when the block does not parse (even after its quote retry), is not a mapping, or exceeds the parser's limits, it drops every field.",
            "The memory is untyped and its manifest line has no description, so the model sees only the file name when it picks memories.",
            "Open the file (`memctl edit REF`) and repair the YAML between the `---` lines: `name:`, `description:` and `type:` as plain `key: value` lines, quoting values that contain `: ` or start with a special character.",
        ),
        ML102 => e(
            "Claude Code looks for frontmatter only on line 1; a block that starts later (e.g. after an HTML comment or a blank line) is plain text.",
            "None of the fields are seen: the memory is untyped and has no description.",
            "`memctl lint --fix` moves the block to line 1 and keeps the lines that preceded it after the closing `---`.",
        ),
        ML103 => e(
            "A file without frontmatter (or with an empty block) is scanned as untyped with no description.",
            "Relevance selection sees only the file name, so the memory is rarely chosen.",
            "Add a block at the top: `---`, `name: …`, `description: <one line saying when it applies>`, `type: user|feedback|project|reference`, `---`.",
        ),
        ML104 => e(
            "The scan reads only the head of a file to find the frontmatter: the first 30 lines and, in 2.1.332, at most 64 KiB.",
            "A block that closes after line 30 or after the first 64 KiB is not seen: the description and type are invisible.",
            "Shorten the frontmatter so it closes by line 30 and within 64 KiB: move long values or comments into the body.",
        ),
        ML105 => e(
            "The manifest line of a memory shows its description; a missing, null or empty one is left out.",
            "The description is the hook the model uses to decide whether to read the memory, and the hook of the index line Claude Code writes itself.",
            "Add `description:` with one line saying when the memory applies.",
        ),
        ML106 => e(
            "Claude Code 2.1.332 reads a description only when it is a non-empty string: a number, a boolean, a list or a mapping is ignored; a multi-line string (a block scalar) is printed with its line breaks.",
            "A non-string description is invisible to the manifest, the recall selection and the index Claude Code writes; a multi-line one spans several manifest lines.",
            "Write the description as a single-line string; quote it (`description: \"42\"`) if it would parse as something else.",
        ),
        ML107 => e(
            "A memory without `type:` is untyped.",
            "Claude Code files and treats memories by type (user, feedback, project, reference); an untyped one loses that.",
            "Add `type: user`, `feedback`, `project` or `reference` to the frontmatter.",
        ),
        ML108 => e(
            "Only the exact, lower-case values user, feedback, project and reference are types; anything else (`User`, `preference`) makes the memory untyped.",
            "The memory loses its type silently.",
            "Write one of the four values exactly, e.g. `type: user`.",
        ),
        ML109 => e(
            "Claude Code 2.1.332 reads the type from `metadata.type` whenever that key exists (also when it is empty or invalid) and ignores a top-level `type` then.",
            "The file names two types; the one Claude Code uses may not be the one you meant, and an empty or invalid `metadata.type` leaves the memory untyped.",
            "Keep one type: write it under `metadata:` (`metadata:` then `  type: feedback`), the shape Claude Code writes, and remove the top-level `type:`.",
        ),
        ML110 => e(
            "Claude Code asks for a `name:` (a short kebab-case slug) in every memory's frontmatter; its first write of a file stores `name: \"\"` when there is none or it is not a string.",
            "The memory does not follow the format; tools, people and `[[name]]` links cannot refer to it by name.",
            "Add `name:` with a short slug such as `testing-policy`.",
        ),
        ML111 => e(
            "When the frontmatter fails to parse, Claude Code retries once with values quoted; this file parses only thanks to that retry.",
            "Stricter YAML readers (and future versions) drop the file's fields.",
            "`memctl lint --fix` quotes exactly the values the retry quotes, when the result parses to the same fields.",
        ),
        ML112 => e(
            "In an unquoted YAML value, ` #` starts a comment.",
            "The text after ` #` is silently dropped from the value.",
            "Quote the value (`description: \"uses C # and F #\"`).",
        ),
        ML113 => e(
            "With a key repeated in one mapping, the last value wins.",
            "The earlier value is lost without notice, and other YAML readers reject the file.",
            "Keep one of the keys and remove the other.",
        ),
        ML114 => e(
            "Nothing: Claude Code uses the `type:` field, not the file name.",
            "A `user_`, `feedback_`, `project_` or `reference_` prefix that disagrees with the type misleads people and tools.",
            "Make the type and the prefix agree: fix the type, or rename the file and its index link.",
        ),
        ML115 => e(
            "Claude Code asks feedback and project memories to say why (`**Why:**`) and how to apply them (`**How to apply:**`).",
            "Without them the model follows the memory blindly or not at all.",
            "Add a line starting `**Why:**` and one starting `**How to apply:**` to the body.",
        ),
        ML116 => e(
            "Memories are loaded in later sessions as written; `today`, `next week` or `3 days ago` are read at load time.",
            "The memory becomes wrong or unreadable as time passes (a warning for project memories).",
            "Write absolute dates (`2026-03-10`).",
        ),
        ML117 => e(
            "Claude Code's guidance: code patterns are derivable from the code, so they are not worth memory.",
            "Mostly-code memories spend the context budget on what the model can read from the repository.",
            "Keep the decision or the pitfall in prose and point to the file instead of copying the code.",
        ),
        ML118 => e(
            "Claude Code's guidance: git history belongs to git.",
            "Lists of commits go stale and spend the context budget.",
            "Keep the lesson learned; leave the commit ids to `git log`.",
        ),
        ML119 => e(
            "CLAUDE.md is loaded into every session already.",
            "The same text in a memory is loaded twice and can drift apart.",
            "Remove the duplicated lines from the memory (or from CLAUDE.md).",
        ),
        ML120 => e(
            "Claude Code's guidance: ephemeral task details (WIP, TODO, session plans, today's tasks) do not belong in memory.",
            "They are loaded into later sessions long after they stop being true.",
            "Remove the memory once the task is done, or rewrite it as the lasting lesson.",
        ),
        ML121 => e(
            "Memory files, and MEMORY.md, are loaded into the model's context.",
            "A token or key in them is sent to the model and kept in every session that loads them; it may also be committed with the memory dir.",
            "Remove the secret, rotate it if it was real, and keep it in a secret store; the finding never prints the token.",
        ),
        ML122 => e(
            "Relevance recall reads only the first 200 lines or 4096 bytes of a file.",
            "Anything later in a large file is not seen when the model recalls it.",
            "Split the memory into smaller ones, or move the essential part to the top.",
        ),
        ML123 => e(
            "Claude Code decodes files as UTF-8 and reads U+FFFD (\u{fffd}) in place of invalid bytes.",
            "The affected text is garbled for the model.",
            "Re-save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`).",
        ),
        ML124 => e(
            "Claude Code removes a leading UTF-8 byte order mark.",
            "Nothing for Claude Code; some other tools mis-read the first line.",
            "Optional: save the file without a BOM.",
        ),
        ML125 => e(
            "The whole file is loaded with the memory.",
            "A trailing `</content>` (left by a tool writing the file) is stray text the model reads.",
            "Remove the `</content>` line.",
        ),
        ML126 => e(
            "Claude Code 2.1.332 ends the frontmatter at the first `---` anywhere after the opening line: inside a value, on an indented line, as the start of `----`, or before other text on the line.",
            "The keys after that `---` are lost and the rest of the block becomes body; Claude Code's first write leaves such a file undated.",
            "Remove the `---` from the frontmatter (rewrite the value without it), so the block ends at a `---` line at column 0.",
        ),
        ML127 => e(
            "Claude Code's scan keeps only the 200 most recently modified topic files (after its exclusions); the manifest built from them reaches the model only in recall mode and in background extraction.",
            "Older memories beyond the cut are never offered to the model when it picks memories.",
            "Merge or remove old memories (`memctl forget`) so fewer than 200 remain.",
        ),
        ML128 => e(
            "Claude Code cannot open a file whose name is not valid UTF-8.",
            "The memory is invisible.",
            "Rename the file with `mv` to a UTF-8 name and update its index link.",
        ),
        ML129 => e(
            "The scan matches `.md` case-sensitively: `x.MD` is not a memory.",
            "The file is never scanned or loaded.",
            "Rename it to end in lower-case `.md` and update its index link.",
        ),
        ML130 => e(
            "Claude Code follows a symlink even when its target is outside the memory dir.",
            "The memory is read, but memctl will not write through it, and the target may change or vanish independently.",
            "Move the file into the memory dir, or accept the finding if the link is intended.",
        ),
        ML131 => e(
            "A `.md` entry that cannot be read (no permission, a dangling symlink, a directory) is silently dropped from the scan.",
            "The memory is lost without notice (info for a directory).",
            "Fix the permission (`chmod u+r`), repair or remove the symlink, or rename the directory.",
        ),
        ML132 => e(
            "Nothing: the file does not end in `.md`; it is a memctl temp file left by an interrupted write.",
            "It clutters the dir.",
            "`memctl lint --fix` moves it into `.trash/`.",
        ),
        ML133 => e(
            "Claude Code loads the bytes as text.",
            "A binary file (NUL bytes) puts garbage into the model's context.",
            "Remove the file or rename it so it does not end in `.md`.",
        ),
        ML134 => e(
            "The model follows relative links in a memory to other memories.",
            "A link to a `.md` file that does not exist leads nowhere.",
            "Fix the link target, or remove the link.",
        ),
        ML135 => e(
            "Nothing: the file does not end in `.md`; it is another machine's version of a memory that `memctl import` or `memctl sync` kept beside the local one because both had changed.",
            "The other machine's change is not in the memory Claude Code loads, and `memctl sync` refuses to run until the conflict is resolved.",
            "Merge what you want to keep into the memory it names (`memctl edit REF`) and delete the conflict file, or run `memctl sync --resolve FILE` to keep the local version; `memctl sync --status` lists them all.",
        ),
        ML136 => e(
            "Claude Code 2.1.332's scan skips every path with a dot-named segment and `logs/`, `sessions/`, `proposals/` and `team/<dir>/` (unless `<dir>` is a team store's mount) at the top of the memory dir.",
            "The file never reaches the manifest or recall; the model can reach it only through a link in MEMORY.md.",
            "Move the file to the top of the memory dir or an ordinary subdirectory (and update its index link), or accept the finding if it is meant to stay out of the scan.",
        ),
        ML137 => e(
            "Claude Code 2.1.332's first Write or Edit of a memory file replaces its `name` with a slug: lower-cased, each run of other chars made `-` (`Testing policy` becomes `testing-policy`).",
            "Lookups by name and `[[name]]` links written with the old name stop matching after Claude Code touches the file.",
            "Write the name as its slug now (the finding names it), and update `[[name]]` links.",
        ),
        ML201 => e(
            "MEMORY.md is loaded into every session; the model follows its links to the topic files.",
            "A link whose target does not exist (or differs in case) points to nothing.",
            "Fix the link in MEMORY.md (`memctl edit --index`), or bring the file back (a file `memctl forget` removed is kept in `.trash/`).",
        ),
        ML202 => e(
            "Links in MEMORY.md may point outside the memory dir (`../x.md`, absolute paths).",
            "Claude Code's memory agents may not write there, and the file is not part of the memory dir.",
            "Move the file into the memory dir and link it by a relative name.",
        ),
        ML203 => e(
            "Claude Code loads only MEMORY.md; a topic file is read when an index line (or an indexed memory) links it.",
            "A file nothing links is never loaded (info when an indexed memory links it).",
            "`memctl lint --fix` appends an index line built from the file's name and description. It skips a file without a string description. It never skips a line for the budget: a line that falls past Claude Code's cut (200 lines / 25 000 units) is added, and a warning names each entry now past the cut; then make room with `memctl index rebuild` (or `memctl edit --index`).",
        ),
        ML204 => e(
            "Claude Code's guidance asks for index lines under ~150 chars; its load warning says ~200.",
            "Long lines consume the 25 000-unit budget of MEMORY.md, so fewer entries fit.",
            "Shorten the hook after the link; details belong in the topic file.",
        ),
        ML205 => e(
            "Claude Code loads only the first 200 lines of MEMORY.md.",
            "The entries after line 200 are never loaded.",
            "Shorten the index (`memctl edit --index`): merge entries, remove stale ones, move content into topic files.",
        ),
        ML206 => e(
            "Claude Code cuts MEMORY.md at the last line break before 25 000 UTF-16 units.",
            "The entries after the cut are never loaded.",
            "Shorten the index (`memctl edit --index`): shorter hooks, fewer entries; `memctl truncate-check` shows exactly what is loaded.",
        ),
        ML207 => e(
            "MEMORY.md is close to Claude Code's caps (200 lines, 25 000 units).",
            "The next entries added will be dropped.",
            "Make room now: shorten hooks, merge or remove entries (`--warn-at` sets the threshold).",
        ),
        ML208 => e(
            "Claude Code strips a frontmatter block from MEMORY.md before loading it; the index has none. Claude Code 2.1.332 ends the block at the first `---` anywhere, so an index that starts with a `---` rule loses everything up to the next `---`.",
            "The block's content is lost, and it may confuse other tools.",
            "Remove the block from MEMORY.md.",
        ),
        ML209 => e(
            "Several index lines link the same file.",
            "The memory is indexed twice: wasted budget and possibly conflicting hooks.",
            "Keep one line per memory.",
        ),
        ML210 => e(
            "Nothing: Claude Code reads any line with a link.",
            "Lines not in the form `- [Title](file.md) — hook` are harder to maintain and for tools to edit.",
            "Rewrite the line in the canonical form.",
        ),
        ML211 => e(
            "Everything in MEMORY.md is loaded and counts toward its caps.",
            "Memory content written into the index spends the budget the entries need.",
            "Move the content into a topic file and link it with one index line.",
        ),
        ML212 => e(
            "Claude Code strips HTML comments from MEMORY.md; an unclosed `<!--` is not a comment.",
            "Everything after it is loaded verbatim, including text meant to be hidden.",
            "Close the comment with `-->` or remove the `<!--`.",
        ),
        ML213 => e(
            "Claude Code loads memories through MEMORY.md only. When it is missing, Claude Code 2.1.332 writes one itself at the next session start: one line per topic file, newest first, at most 140 lines / 17 500 units, leaving out symlinked and hard-linked files and names it cannot link.",
            "Info when Claude Code will write it; a warning when it cannot (recall mode, CLAUDE_CODE_REMOTE or CLAUDE_COWORK_MEMORY_INDEX_CONTENT set, or no file it can link): then no memory is loaded at all.",
            "Write the index yourself, ordered as you want it: `memctl index rebuild` (or `memctl edit --index`, then `memctl lint --fix` adds the lines).",
        ),
        ML214 => e(
            "Nothing: a relative link to a directory or a source file is not a memory.",
            "It is not a memory link, so it indexes nothing.",
            "Link a `.md` memory, or keep the link if it is meant as a reference.",
        ),
        ML215 => e(
            "Each CR of a CRLF line ending counts toward the 25 000 units (unless a comment block is removed); Claude Code 2.1.332 turns it into a line break before the model reads it.",
            "The index fits fewer entries.",
            "Convert MEMORY.md to LF line endings (`dos2unix MEMORY.md`).",
        ),
        ML216 => e(
            "Claude Code 2.1.332 skips a MEMORY.md larger than 4 194 304 bytes (4 MiB), or one that is not a regular file after following links.",
            "Nothing of the index is loaded: no memory reaches the model.",
            "Shorten MEMORY.md far below the caps (200 lines, 25 000 units), or replace it with a regular file.",
        ),
        ML217 => e(
            "Claude Code 2.1.332 never loads team/MEMORY.md unless CLAUDE_MEMORY_STORES configures a team store; files under team/ are then ordinary memories of the main index.",
            "The entries of team/MEMORY.md never reach the model; its files are seen only if MEMORY.md links them.",
            "Link the team files from MEMORY.md, or configure a team store.",
        ),
        ML301 => e(
            "Auto-dream waits until the consolidation lock's mtime is 24 h in the past.",
            "A lock dated in the future blocks consolidation until then.",
            "Touch the lock file (`touch .consolidate-lock`) or delete it.",
        ),
        ML302 => e(
            "An empty consolidation lock means the last consolidation failed or was killed and was rolled back.",
            "The memory dir was not consolidated.",
            "Nothing to do unless it repeats; `memctl lock status` shows the state.",
        ),
        ML401 => e(
            "Claude Code 2.1.332 honours `autoMemoryDirectory` in project settings (.claude/settings.json): in print mode without any trust record and in every interactive session once the folder is trusted; only print-mode runs with CLAUDE_CODE_IGNORE_PERSISTED_TRUST skip it.",
            "A checked-in file decides where every user's memory is written.",
            "Move the setting to .claude/settings.local.json (untracked) or the user settings; `memctl path --explain` shows the resolution.",
        ),
        ML402 => e(
            "Claude Code uses the first defined `autoMemoryDirectory`; when that value is invalid it falls back to the default path, even if a lower settings file holds a valid one.",
            "The default path is used instead of the intended one.",
            "Fix or remove the invalid value; `memctl path --explain` shows each source.",
        ),
        ML403 => e(
            "Auto memory is disabled by a lever memctl can see (safe mode, an environment variable, the managed read restriction or a setting, named in the finding).",
            "Claude Code loads and saves no memory at all.",
            "Remove the lever named in the finding (e.g. `autoMemoryEnabled: false`) if memory should be on.",
        ),
        ML404 => e(
            "Claude Code 2.1.332 runs in recall mode: `CLAUDE_MEMORY_STORES` is set, or the cached server flag `tengu_moth_copse` is on (named in the finding).",
            "MEMORY.md is not injected; for each prompt a small model picks up to 5 memories from the manifest (names and descriptions), each read up to 200 lines and 4 096 bytes.",
            "Nothing to fix: keep descriptions specific and files under 4KB; `memctl list --format manifest` shows what the model chooses from.",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::RULES;

    #[test]
    fn every_rule_has_a_full_explanation() {
        for r in RULES {
            let x = explain(r.id);
            for part in [x.claude_code, x.why, x.fix] {
                assert!(part.len() > 10, "{}: {part:?}", r.id);
                assert!(part.ends_with('.') || part.ends_with(')'), "{}: {part:?}", r.id);
            }
        }
    }
}
