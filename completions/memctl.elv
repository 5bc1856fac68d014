
use builtin;
use str;

set edit:completion:arg-completer[memctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'memctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'memctl'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand path 'Print the memory dir Claude Code uses for this project'
            cand list 'List memories in Claude Code''s scan order'
            cand show 'Show one memory'
            cand truncate-check 'Report exactly what Claude Code loads from MEMORY.md, and what it drops'
            cand lint 'Check the memory dir for everything that makes Claude Code lose or misread memories'
            cand add 'Create a memory file and its index line'
            cand forget 'Remove memories and their index lines, keeping a copy in history (.trash/ with history off)'
            cand edit 'Edit a memory (or, with --index, MEMORY.md) in $VISUAL or $EDITOR'
            cand lock 'Inspect the auto-dream lock (.consolidate-lock)'
            cand completions 'Print a shell completion script'
            cand man 'Print a man page (memctl''s, or one command''s)'
            cand dream 'Preview auto-dream: whether it would run now, and a consolidation plan'
            cand snapshot 'Record a history snapshot of the memory dir now (nothing when unchanged)'
            cand history 'List the history snapshots of the memory dir (or of one memory), newest first'
            cand diff 'Show what changed between two snapshots, or since the last one'
            cand restore 'Bring back one memory as a snapshot (or .trash/) has it: bytes, mtime, index line'
            cand undo 'Revert the changes of a snapshot (default: the newest), or of the last dream run'
            cand index 'Keep MEMORY.md within what Claude Code loads'
            cand hook 'Claude Code hook: check each write into memory as it happens'
            cand config 'Show or change Claude Code''s memory settings and where each comes from'
            cand projects 'Every memory dir on this machine: sizes, index budget, and what is stranded'
            cand search 'Find memories by words in their name, description or body'
            cand export 'Write a project''s memory (or every project''s) into a .tar.gz bundle'
            cand import 'Place the projects of a bundle into this machine''s memory dirs, by identity'
            cand sync 'Keep this project''s memory (or every project''s) in step across machines over git'
            cand review 'Propose moving memories into CLAUDE.md, CLAUDE.local.md or team/, and apply the chosen'
            cand mcp 'Serve read-only memory tools to Claude Code (or any MCP client) over stdio'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;path'= {
            cand --key-for 'Print the project key Claude Code derives from STRING (lexically)'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --index 'Print the MEMORY.md path instead'
            cand --transcripts 'Print the session transcripts dir instead'
            cand --explain 'Explain every step of the resolution'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;list'= {
            cand -t 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)'
            cand --type 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)'
            cand -f 'Output format [default: table, or json with --json]'
            cand --format 'Output format [default: table, or json with --json]'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --all 'Lift Claude Code''s 200-file cap'
            cand --all-projects 'List the memories of every project (see `memctl projects`), grouped by project'
            cand -0 'With --format paths: end each path with a NUL byte and print it exactly (no escapes)'
            cand --null 'With --format paths: end each path with a NUL byte and print it exactly (no escapes)'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;show'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --raw 'Write the file''s bytes unchanged, nothing else'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;truncate-check'= {
            cand --warn-at 'Also exit 1 when lines or units reach PERCENT of a cap'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --print-loaded 'Print exactly the text the model reads (after Claude Code''s clean-up), and nothing else'
            cand --all-projects 'Check the index of every project (see `memctl projects`)'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;lint'= {
            cand -f 'Output format [default: text, or json with --json]'
            cand --format 'Output format [default: text, or json with --json]'
            cand --explain 'Explain one rule (an id in any case or a rule name): what Claude Code does, why it matters, how to fix it'
            cand --rule 'Run only this rule: an id in any case or a rule name (repeatable or comma-separated)'
            cand --disable 'Skip this rule: an id in any case or a rule name (repeatable or comma-separated)'
            cand --min-severity 'Hide findings below this severity'
            cand --warn-at 'ML207 threshold: warn when lines or units reach PERCENT of a cap'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --list-rules 'Print the rule table (id, name, severity, fixable, what Claude Code does) and exit'
            cand --summary 'Print only the counts of findings by rule (text format)'
            cand --strict 'Warnings also cause exit status 1'
            cand --fix 'Apply the fixes of fixable rules (ML102, ML111, ML203, ML132)'
            cand -n 'With --fix: print unified diffs and write nothing'
            cand --dry-run 'With --fix: print unified diffs and write nothing'
            cand --force 'With --fix: write even while a live auto-dream holds the lock'
            cand --all-projects 'Lint (with --fix: fix) every project''s memory dir (see `memctl projects`); exit 1 when any has findings'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;add'= {
            cand -t 'Memory type: user, feedback, project or reference'
            cand --type 'Memory type: user, feedback, project or reference'
            cand --name 'Name (one line, 1–100 characters)'
            cand --description 'One-line description, the manifest''s hook (1–500 characters)'
            cand --body 'The memory''s content'
            cand --body-file 'Read the content from a file, or - for standard input'
            cand --why 'Why the rule or fact holds (feedback and project only)'
            cand --how 'How to apply it (feedback and project only)'
            cand --file 'File name instead of the generated <type>_<slug>.md'
            cand --title 'Index line title [default: the name]'
            cand --hook 'Index line hook [default: the description]'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --edit 'Compose the content in the editor'
            cand --no-index 'Do not touch MEMORY.md'
            cand --strict 'Refuse to write when there is any warning'
            cand -n 'Print the file and the index diff; write nothing'
            cand --dry-run 'Print the file and the index diff; write nothing'
            cand --at-top 'Put the index line at the top of MEMORY.md instead of in its type''s section'
            cand --force 'Write even while a live auto-dream holds the lock, and even when the index line would be cut or push another entry past the cut'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;forget'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand -n 'Show what would be moved and the index diff; change nothing'
            cand --dry-run 'Show what would be moved and the index diff; change nothing'
            cand --force 'Write even while a live auto-dream holds the lock, and remove index lines that also link other memories'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;edit'= {
            cand --from 'Save DRAFT (one kept after a failed edit) instead of starting the editor; it is checked and saved like an edit'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --index 'Edit MEMORY.md (the team index with --team)'
            cand -y 'With --index: create a missing MEMORY.md without asking'
            cand --yes 'With --index: create a missing MEMORY.md without asking'
            cand --strict 'With --index: exit 1 when Claude Code would truncate the saved index'
            cand --force 'Save even while a live auto-dream holds the lock'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;lock'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand status 'Show the lock''s state and what Claude Code''s next acquire would do'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;lock;status'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;lock;help'= {
            cand status 'Show the lock''s state and what Claude Code''s next acquire would do'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;lock;help;status'= {
        }
        &'memctl;lock;help;help'= {
        }
        &'memctl;completions'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;man'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;dream'= {
            cand --min-hours 'What-if threshold for the time gate, in hours [default: the cached flag''s minHours, else 24]'
            cand --min-sessions 'What-if threshold for the sessions gate [default: the cached flag''s minSessions, else 5]'
            cand --current-session 'Exclude this session id, as Claude Code excludes the session doing the check'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -n 'Show the gates and the plan; change nothing (the default, and the only mode)'
            cand --dry-run 'Show the gates and the plan; change nothing (the default, and the only mode)'
            cand --run 'Consolidate now: memctl cannot (it needs a model), and says what to do instead'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;snapshot'= {
            cand -m 'A note kept in the snapshot''s message'
            cand --message 'A note kept in the snapshot''s message'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --all-projects 'Take a snapshot of every project with memories (see `memctl projects`)'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;history'= {
            cand --limit 'Show at most N snapshots'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;diff'= {
            cand --from 'From this state: a snapshot id (7+ hex digits), @~N, or a time (2026-03-10, 3h, 2d)'
            cand --to 'To this state (default: the dir now)'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --stat 'Print changed files with line counts only'
            cand --dream 'The changes of the last dream run'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;restore'= {
            cand --at 'From this snapshot (default: the newest one that has it)'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -n 'Show what would be restored; change nothing'
            cand --dry-run 'Show what would be restored; change nothing'
            cand --force 'Overwrite a file with different content; write while a live auto-dream holds the lock'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;undo'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --dream 'Revert the whole last dream run'
            cand -n 'Show what would be reverted; change nothing'
            cand --dry-run 'Show what would be reverted; change nothing'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --force 'Revert files changed again since, too; write while a live auto-dream holds the lock'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;index'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand rebuild 'Rewrite MEMORY.md to load whole within a budget, moving the least important entries into a hub file it links; no memory is ever unlinked'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;index;rebuild'= {
            cand --budget 'Percent of both caps (200 lines, 25 000 units) the loaded index may use'
            cand --pin 'Keep this memory''s line in MEMORY.md (repeatable; or end its line with `<!-- pin -->`)'
            cand --hub 'The hub file entries move into'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -n 'Print the diff and the summary; change nothing'
            cand --dry-run 'Print the diff and the summary; change nothing'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --force 'Write even while a live auto-dream holds the lock'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;index;help'= {
            cand rebuild 'Rewrite MEMORY.md to load whole within a budget, moving the least important entries into a hub file it links; no memory is ever unlinked'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;index;help;rebuild'= {
        }
        &'memctl;index;help;help'= {
        }
        &'memctl;hook'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand install 'Add memctl''s hooks to a Claude Code settings file'
            cand uninstall 'Remove memctl''s hooks from a Claude Code settings file'
            cand status 'Show where memctl''s hooks are installed and whether Claude Code runs them'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;hook;install'= {
            cand --scope 'The settings file to edit'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -n 'Print the diff; change nothing'
            cand --dry-run 'Print the diff; change nothing'
            cand -y 'Accepted for scripts (these commands never ask)'
            cand --yes 'Accepted for scripts (these commands never ask)'
            cand --no-gate 'Leave out the PreToolUse gate that refuses a Write or Edit which would lose memory'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;hook;uninstall'= {
            cand --scope 'The settings file to edit'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -n 'Print the diff; change nothing'
            cand --dry-run 'Print the diff; change nothing'
            cand -y 'Accepted for scripts (these commands never ask)'
            cand --yes 'Accepted for scripts (these commands never ask)'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;hook;status'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;hook;help'= {
            cand install 'Add memctl''s hooks to a Claude Code settings file'
            cand uninstall 'Remove memctl''s hooks from a Claude Code settings file'
            cand status 'Show where memctl''s hooks are installed and whether Claude Code runs them'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;hook;help;install'= {
        }
        &'memctl;hook;help;uninstall'= {
        }
        &'memctl;hook;help;status'= {
        }
        &'memctl;hook;help;help'= {
        }
        &'memctl;config'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand set 'Write a memory setting into a settings file'
            cand unset 'Remove a memory setting from a settings file'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;config;set'= {
            cand --scope 'The settings file to edit (project only for the two booleans)'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -n 'Print the diff; change nothing'
            cand --dry-run 'Print the diff; change nothing'
            cand -y 'Accepted for scripts (these commands never ask)'
            cand --yes 'Accepted for scripts (these commands never ask)'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;config;unset'= {
            cand --scope 'The settings file to edit'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -n 'Print the diff; change nothing'
            cand --dry-run 'Print the diff; change nothing'
            cand -y 'Accepted for scripts (these commands never ask)'
            cand --yes 'Accepted for scripts (these commands never ask)'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;config;help'= {
            cand set 'Write a memory setting into a settings file'
            cand unset 'Remove a memory setting from a settings file'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;config;help;set'= {
        }
        &'memctl;config;help;unset'= {
        }
        &'memctl;config;help;help'= {
        }
        &'memctl;projects'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --all 'Include memory dirs that hold no memories'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand merge 'Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;projects;merge'= {
            cand --into-dir 'Take DIR as the receiving memory dir as it is, whatever it holds'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -n 'Print what would move; change nothing'
            cand --dry-run 'Print what would move; change nothing'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --force 'Write even while a live auto-dream holds either lock'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;projects;help'= {
            cand merge 'Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;projects;help;merge'= {
        }
        &'memctl;projects;help;help'= {
        }
        &'memctl;search'= {
            cand -t 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)'
            cand --type 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)'
            cand --limit 'Show at most N results (0: all)'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --all-projects 'Search the memory dirs of every project (see `memctl projects`)'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;export'= {
            cand -o 'The bundle to write (a .tar.gz)'
            cand --output 'The bundle to write (a .tar.gz)'
            cand --as 'The identity to record for a project that has none (no git remote, no commit)'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --all-projects 'Export every project with memories (see `memctl projects`)'
            cand --strict 'Secret-like tokens (lint ML121) refuse as strict_refused (exit 1) instead of exit 2'
            cand --allow-secrets 'Write memories that hold secret-like tokens (lint ML121) into the bundle; refused by default'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;import'= {
            cand --into 'The memory dir to import into (for a bundle of one project)'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -n 'Print what would be imported; change nothing'
            cand --dry-run 'Print what would be imported; change nothing'
            cand -y 'Do not ask for confirmation (required without a terminal)'
            cand --yes 'Do not ask for confirmation (required without a terminal)'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;sync'= {
            cand --remote 'The git remote to sync through (set once; remembered in the sync repository)'
            cand --as 'The identity to use for a project that has none (no git remote, no commit)'
            cand --resolve 'Mark a conflict done, keeping the local version (the conflict file goes to .trash/)'
            cand --purge 'Remove FILE (a path below the project''s dir in the sync repository, e.g. user_a.md) from the sync remote''s whole history'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --all-projects 'Sync every project with memories (see `memctl projects`)'
            cand -n 'Show what a sync would change; write and push nothing'
            cand --dry-run 'Show what a sync would change; write and push nothing'
            cand --status 'List unresolved conflicts (exit 1 when there are any)'
            cand --allow-mass-delete 'Apply a change (sent or received) that deletes more than half of a project''s memories'
            cand --accept-remote 'After the remote was rolled back or rewritten: take it as it is (deletes here what it no longer holds)'
            cand --push-local 'After the remote was rolled back or rewritten: restore it from this machine'
            cand --strict 'Secret-like tokens (lint ML121) refuse as strict_refused (exit 1) instead of exit 2'
            cand --allow-secrets 'Push memories that hold secret-like tokens (lint ML121); refused by default'
            cand -y 'Accepted for scripts; sync never prompts'
            cand --yes 'Accepted for scripts; sync never prompts'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;review'= {
            cand --apply 'Apply these proposals (numbers as printed, e.g. 2,5)'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand -y 'Do not ask for confirmation (required with --apply without a terminal)'
            cand --yes 'Do not ask for confirmation (required with --apply without a terminal)'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;mcp'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --team 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand --no-history 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;help'= {
            cand path 'Print the memory dir Claude Code uses for this project'
            cand list 'List memories in Claude Code''s scan order'
            cand show 'Show one memory'
            cand truncate-check 'Report exactly what Claude Code loads from MEMORY.md, and what it drops'
            cand lint 'Check the memory dir for everything that makes Claude Code lose or misread memories'
            cand add 'Create a memory file and its index line'
            cand forget 'Remove memories and their index lines, keeping a copy in history (.trash/ with history off)'
            cand edit 'Edit a memory (or, with --index, MEMORY.md) in $VISUAL or $EDITOR'
            cand lock 'Inspect the auto-dream lock (.consolidate-lock)'
            cand completions 'Print a shell completion script'
            cand man 'Print a man page (memctl''s, or one command''s)'
            cand dream 'Preview auto-dream: whether it would run now, and a consolidation plan'
            cand snapshot 'Record a history snapshot of the memory dir now (nothing when unchanged)'
            cand history 'List the history snapshots of the memory dir (or of one memory), newest first'
            cand diff 'Show what changed between two snapshots, or since the last one'
            cand restore 'Bring back one memory as a snapshot (or .trash/) has it: bytes, mtime, index line'
            cand undo 'Revert the changes of a snapshot (default: the newest), or of the last dream run'
            cand index 'Keep MEMORY.md within what Claude Code loads'
            cand hook 'Claude Code hook: check each write into memory as it happens'
            cand config 'Show or change Claude Code''s memory settings and where each comes from'
            cand projects 'Every memory dir on this machine: sizes, index budget, and what is stranded'
            cand search 'Find memories by words in their name, description or body'
            cand export 'Write a project''s memory (or every project''s) into a .tar.gz bundle'
            cand import 'Place the projects of a bundle into this machine''s memory dirs, by identity'
            cand sync 'Keep this project''s memory (or every project''s) in step across machines over git'
            cand review 'Propose moving memories into CLAUDE.md, CLAUDE.local.md or team/, and apply the chosen'
            cand mcp 'Serve read-only memory tools to Claude Code (or any MCP client) over stdio'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memctl;help;path'= {
        }
        &'memctl;help;list'= {
        }
        &'memctl;help;show'= {
        }
        &'memctl;help;truncate-check'= {
        }
        &'memctl;help;lint'= {
        }
        &'memctl;help;add'= {
        }
        &'memctl;help;forget'= {
        }
        &'memctl;help;edit'= {
        }
        &'memctl;help;lock'= {
            cand status 'Show the lock''s state and what Claude Code''s next acquire would do'
        }
        &'memctl;help;lock;status'= {
        }
        &'memctl;help;completions'= {
        }
        &'memctl;help;man'= {
        }
        &'memctl;help;dream'= {
        }
        &'memctl;help;snapshot'= {
        }
        &'memctl;help;history'= {
        }
        &'memctl;help;diff'= {
        }
        &'memctl;help;restore'= {
        }
        &'memctl;help;undo'= {
        }
        &'memctl;help;index'= {
            cand rebuild 'Rewrite MEMORY.md to load whole within a budget, moving the least important entries into a hub file it links; no memory is ever unlinked'
        }
        &'memctl;help;index;rebuild'= {
        }
        &'memctl;help;hook'= {
            cand install 'Add memctl''s hooks to a Claude Code settings file'
            cand uninstall 'Remove memctl''s hooks from a Claude Code settings file'
            cand status 'Show where memctl''s hooks are installed and whether Claude Code runs them'
        }
        &'memctl;help;hook;install'= {
        }
        &'memctl;help;hook;uninstall'= {
        }
        &'memctl;help;hook;status'= {
        }
        &'memctl;help;config'= {
            cand set 'Write a memory setting into a settings file'
            cand unset 'Remove a memory setting from a settings file'
        }
        &'memctl;help;config;set'= {
        }
        &'memctl;help;config;unset'= {
        }
        &'memctl;help;projects'= {
            cand merge 'Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)'
        }
        &'memctl;help;projects;merge'= {
        }
        &'memctl;help;search'= {
        }
        &'memctl;help;export'= {
        }
        &'memctl;help;import'= {
        }
        &'memctl;help;sync'= {
        }
        &'memctl;help;review'= {
        }
        &'memctl;help;mcp'= {
        }
        &'memctl;help;help'= {
        }
    ]
    $completions[$command]
}
