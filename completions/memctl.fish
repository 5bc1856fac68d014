# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_memctl_global_optspecs
    string join \n dir= project= team json color= no-history h/help V/version
end

function __fish_memctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_memctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_memctl_using_subcommand
    set -l cmd (__fish_memctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c memctl -n "__fish_memctl_needs_command" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_needs_command" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_needs_command" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_needs_command" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_needs_command" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_needs_command" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_needs_command" -s V -l version -d 'Print version'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "path" -d 'Print the memory dir Claude Code uses for this project'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "list" -d 'List memories in Claude Code\'s scan order'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "show" -d 'Show one memory'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "truncate-check" -d 'Report exactly what Claude Code loads from MEMORY.md, and what it drops'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "lint" -d 'Check the memory dir for everything that makes Claude Code lose or misread memories'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "add" -d 'Create a memory file and its index line'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "forget" -d 'Remove memories and their index lines, keeping a copy in history (.trash/ with history off)'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "edit" -d 'Edit a memory (or, with --index, MEMORY.md) in $VISUAL or $EDITOR'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "lock" -d 'Inspect the auto-dream lock (.consolidate-lock)'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "man" -d 'Print a man page (memctl\'s, or one command\'s)'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "dream" -d 'Preview auto-dream: whether it would run now, and a consolidation plan'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "snapshot" -d 'Record a history snapshot of the memory dir now (nothing when unchanged)'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "history" -d 'List the history snapshots of the memory dir (or of one memory), newest first'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "diff" -d 'Show what changed between two snapshots, or since the last one'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "restore" -d 'Bring back one memory as a snapshot (or .trash/) has it: bytes, mtime, index line'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "undo" -d 'Revert the changes of a snapshot (default: the newest), or of the last dream run'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "index" -d 'Keep MEMORY.md within what Claude Code loads'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "hook" -d 'Claude Code hook: check each write into memory as it happens'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "config" -d 'Show or change Claude Code\'s memory settings and where each comes from'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "projects" -d 'Every memory dir on this machine: sizes, index budget, and what is stranded'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "search" -d 'Find memories by words in their name, description or body'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "export" -d 'Write a project\'s memory (or every project\'s) into a .tar.gz bundle'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "import" -d 'Place the projects of a bundle into this machine\'s memory dirs, by identity'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "sync" -d 'Keep this project\'s memory (or every project\'s) in step across machines over git'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "review" -d 'Propose moving memories into CLAUDE.md, CLAUDE.local.md or team/, and apply the chosen'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "mcp" -d 'Serve read-only memory tools to Claude Code (or any MCP client) over stdio'
complete -c memctl -n "__fish_memctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand path" -l key-for -d 'Print the project key Claude Code derives from STRING (lexically)' -r
complete -c memctl -n "__fish_memctl_using_subcommand path" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand path" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand path" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand path" -l index -d 'Print the MEMORY.md path instead'
complete -c memctl -n "__fish_memctl_using_subcommand path" -l transcripts -d 'Print the session transcripts dir instead'
complete -c memctl -n "__fish_memctl_using_subcommand path" -l explain -d 'Explain every step of the resolution'
complete -c memctl -n "__fish_memctl_using_subcommand path" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand path" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand path" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand path" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand list" -s t -l type -d 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)' -r
complete -c memctl -n "__fish_memctl_using_subcommand list" -s f -l format -d 'Output format [default: table, or json with --json]' -r -f -a "table\t'A table on a terminal, tab-separated records otherwise'
manifest\t'Exactly the manifest Claude Code shows the model'
json\t'One JSON document'
paths\t'One absolute path per line'"
complete -c memctl -n "__fish_memctl_using_subcommand list" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand list" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand list" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand list" -l all -d 'Lift Claude Code\'s 200-file cap'
complete -c memctl -n "__fish_memctl_using_subcommand list" -l all-projects -d 'List the memories of every project (see `memctl projects`), grouped by project'
complete -c memctl -n "__fish_memctl_using_subcommand list" -s 0 -l null -d 'With --format paths: end each path with a NUL byte and print it exactly (no escapes)'
complete -c memctl -n "__fish_memctl_using_subcommand list" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand list" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand list" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand show" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand show" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand show" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand show" -l raw -d 'Write the file\'s bytes unchanged, nothing else'
complete -c memctl -n "__fish_memctl_using_subcommand show" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand show" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand show" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand truncate-check" -l warn-at -d 'Also exit 1 when lines or units reach PERCENT of a cap' -r
complete -c memctl -n "__fish_memctl_using_subcommand truncate-check" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand truncate-check" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand truncate-check" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand truncate-check" -l print-loaded -d 'Print exactly the text the model reads (after Claude Code\'s clean-up), and nothing else'
complete -c memctl -n "__fish_memctl_using_subcommand truncate-check" -l all-projects -d 'Check the index of every project (see `memctl projects`)'
complete -c memctl -n "__fish_memctl_using_subcommand truncate-check" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand truncate-check" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand truncate-check" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand truncate-check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -s f -l format -d 'Output format [default: text, or json with --json]' -r -f -a "text\t'One line per finding, and a summary on stderr'
json\t'One JSON document'
sarif\t'SARIF 2.1.0, for code-scanning tools'
github\t'GitHub Actions workflow commands'"
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l explain -d 'Explain one rule (an id in any case or a rule name): what Claude Code does, why it matters, how to fix it' -r
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l rule -d 'Run only this rule: an id in any case or a rule name (repeatable or comma-separated)' -r
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l disable -d 'Skip this rule: an id in any case or a rule name (repeatable or comma-separated)' -r
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l min-severity -d 'Hide findings below this severity' -r -f -a "error\t''
warning\t''
info\t''"
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l warn-at -d 'ML207 threshold: warn when lines or units reach PERCENT of a cap' -r
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l list-rules -d 'Print the rule table (id, name, severity, fixable, what Claude Code does) and exit'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l summary -d 'Print only the counts of findings by rule (text format)'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l strict -d 'Warnings also cause exit status 1'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l fix -d 'Apply the fixes of fixable rules (ML102, ML111, ML203, ML132)'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -s n -l dry-run -d 'With --fix: print unified diffs and write nothing'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l force -d 'With --fix: write even while a live auto-dream holds the lock'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l all-projects -d 'Lint (with --fix: fix) every project\'s memory dir (see `memctl projects`); exit 1 when any has findings'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand lint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand add" -s t -l type -d 'Memory type: user, feedback, project or reference' -r
complete -c memctl -n "__fish_memctl_using_subcommand add" -l name -d 'Name (one line, 1–100 characters)' -r
complete -c memctl -n "__fish_memctl_using_subcommand add" -l description -d 'One-line description, the manifest\'s hook (1–500 characters)' -r
complete -c memctl -n "__fish_memctl_using_subcommand add" -l body -d 'The memory\'s content' -r
complete -c memctl -n "__fish_memctl_using_subcommand add" -l body-file -d 'Read the content from a file, or - for standard input' -r -F
complete -c memctl -n "__fish_memctl_using_subcommand add" -l why -d 'Why the rule or fact holds (feedback and project only)' -r
complete -c memctl -n "__fish_memctl_using_subcommand add" -l how -d 'How to apply it (feedback and project only)' -r
complete -c memctl -n "__fish_memctl_using_subcommand add" -l file -d 'File name instead of the generated <type>_<slug>.md' -r
complete -c memctl -n "__fish_memctl_using_subcommand add" -l title -d 'Index line title [default: the name]' -r
complete -c memctl -n "__fish_memctl_using_subcommand add" -l hook -d 'Index line hook [default: the description]' -r
complete -c memctl -n "__fish_memctl_using_subcommand add" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand add" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand add" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand add" -l edit -d 'Compose the content in the editor'
complete -c memctl -n "__fish_memctl_using_subcommand add" -l no-index -d 'Do not touch MEMORY.md'
complete -c memctl -n "__fish_memctl_using_subcommand add" -l strict -d 'Refuse to write when there is any warning'
complete -c memctl -n "__fish_memctl_using_subcommand add" -s n -l dry-run -d 'Print the file and the index diff; write nothing'
complete -c memctl -n "__fish_memctl_using_subcommand add" -l at-top -d 'Put the index line at the top of MEMORY.md instead of in its type\'s section'
complete -c memctl -n "__fish_memctl_using_subcommand add" -l force -d 'Write even while a live auto-dream holds the lock, and even when the index line would be cut or push another entry past the cut'
complete -c memctl -n "__fish_memctl_using_subcommand add" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand add" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand add" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand forget" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand forget" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand forget" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand forget" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c memctl -n "__fish_memctl_using_subcommand forget" -s n -l dry-run -d 'Show what would be moved and the index diff; change nothing'
complete -c memctl -n "__fish_memctl_using_subcommand forget" -l force -d 'Write even while a live auto-dream holds the lock, and remove index lines that also link other memories'
complete -c memctl -n "__fish_memctl_using_subcommand forget" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand forget" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand forget" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand forget" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand edit" -l from -d 'Save DRAFT (one kept after a failed edit) instead of starting the editor; it is checked and saved like an edit' -r -F
complete -c memctl -n "__fish_memctl_using_subcommand edit" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand edit" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand edit" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand edit" -l index -d 'Edit MEMORY.md (the team index with --team)'
complete -c memctl -n "__fish_memctl_using_subcommand edit" -s y -l yes -d 'With --index: create a missing MEMORY.md without asking'
complete -c memctl -n "__fish_memctl_using_subcommand edit" -l strict -d 'With --index: exit 1 when Claude Code would truncate the saved index'
complete -c memctl -n "__fish_memctl_using_subcommand edit" -l force -d 'Save even while a live auto-dream holds the lock'
complete -c memctl -n "__fish_memctl_using_subcommand edit" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand edit" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand edit" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand edit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and not __fish_seen_subcommand_from status help" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand lock; and not __fish_seen_subcommand_from status help" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand lock; and not __fish_seen_subcommand_from status help" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand lock; and not __fish_seen_subcommand_from status help" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and not __fish_seen_subcommand_from status help" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and not __fish_seen_subcommand_from status help" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and not __fish_seen_subcommand_from status help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and not __fish_seen_subcommand_from status help" -f -a "status" -d 'Show the lock\'s state and what Claude Code\'s next acquire would do'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and not __fish_seen_subcommand_from status help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and __fish_seen_subcommand_from status" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand lock; and __fish_seen_subcommand_from status" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand lock; and __fish_seen_subcommand_from status" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand lock; and __fish_seen_subcommand_from status" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and __fish_seen_subcommand_from status" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and __fish_seen_subcommand_from status" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the lock\'s state and what Claude Code\'s next acquire would do'
complete -c memctl -n "__fish_memctl_using_subcommand lock; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand completions" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand completions" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand completions" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand completions" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand completions" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand completions" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand man" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand man" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand man" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand man" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand man" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand man" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand dream" -l min-hours -d 'What-if threshold for the time gate, in hours [default: the cached flag\'s minHours, else 24]' -r
complete -c memctl -n "__fish_memctl_using_subcommand dream" -l min-sessions -d 'What-if threshold for the sessions gate [default: the cached flag\'s minSessions, else 5]' -r
complete -c memctl -n "__fish_memctl_using_subcommand dream" -l current-session -d 'Exclude this session id, as Claude Code excludes the session doing the check' -r
complete -c memctl -n "__fish_memctl_using_subcommand dream" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand dream" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand dream" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand dream" -s n -l dry-run -d 'Show the gates and the plan; change nothing (the default, and the only mode)'
complete -c memctl -n "__fish_memctl_using_subcommand dream" -l run -d 'Consolidate now: memctl cannot (it needs a model), and says what to do instead'
complete -c memctl -n "__fish_memctl_using_subcommand dream" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand dream" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand dream" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand dream" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand snapshot" -s m -l message -d 'A note kept in the snapshot\'s message' -r
complete -c memctl -n "__fish_memctl_using_subcommand snapshot" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand snapshot" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand snapshot" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand snapshot" -l all-projects -d 'Take a snapshot of every project with memories (see `memctl projects`)'
complete -c memctl -n "__fish_memctl_using_subcommand snapshot" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand snapshot" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand snapshot" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand snapshot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand history" -l limit -d 'Show at most N snapshots' -r
complete -c memctl -n "__fish_memctl_using_subcommand history" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand history" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand history" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand history" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand history" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand history" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand diff" -l from -d 'From this state: a snapshot id (7+ hex digits), @~N, or a time (2026-03-10, 3h, 2d)' -r
complete -c memctl -n "__fish_memctl_using_subcommand diff" -l to -d 'To this state (default: the dir now)' -r
complete -c memctl -n "__fish_memctl_using_subcommand diff" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand diff" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand diff" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand diff" -l stat -d 'Print changed files with line counts only'
complete -c memctl -n "__fish_memctl_using_subcommand diff" -l dream -d 'The changes of the last dream run'
complete -c memctl -n "__fish_memctl_using_subcommand diff" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand diff" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand diff" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand restore" -l at -d 'From this snapshot (default: the newest one that has it)' -r
complete -c memctl -n "__fish_memctl_using_subcommand restore" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand restore" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand restore" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand restore" -s n -l dry-run -d 'Show what would be restored; change nothing'
complete -c memctl -n "__fish_memctl_using_subcommand restore" -l force -d 'Overwrite a file with different content; write while a live auto-dream holds the lock'
complete -c memctl -n "__fish_memctl_using_subcommand restore" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand restore" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand restore" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand undo" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand undo" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand undo" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand undo" -l dream -d 'Revert the whole last dream run'
complete -c memctl -n "__fish_memctl_using_subcommand undo" -s n -l dry-run -d 'Show what would be reverted; change nothing'
complete -c memctl -n "__fish_memctl_using_subcommand undo" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c memctl -n "__fish_memctl_using_subcommand undo" -l force -d 'Revert files changed again since, too; write while a live auto-dream holds the lock'
complete -c memctl -n "__fish_memctl_using_subcommand undo" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand undo" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand undo" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand undo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand index; and not __fish_seen_subcommand_from rebuild help" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand index; and not __fish_seen_subcommand_from rebuild help" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand index; and not __fish_seen_subcommand_from rebuild help" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand index; and not __fish_seen_subcommand_from rebuild help" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand index; and not __fish_seen_subcommand_from rebuild help" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand index; and not __fish_seen_subcommand_from rebuild help" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand index; and not __fish_seen_subcommand_from rebuild help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand index; and not __fish_seen_subcommand_from rebuild help" -f -a "rebuild" -d 'Rewrite MEMORY.md to load whole within a budget, moving the least important entries into a hub file it links; no memory is ever unlinked'
complete -c memctl -n "__fish_memctl_using_subcommand index; and not __fish_seen_subcommand_from rebuild help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -l budget -d 'Percent of both caps (200 lines, 25 000 units) the loaded index may use' -r
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -l pin -d 'Keep this memory\'s line in MEMORY.md (repeatable; or end its line with `<!-- pin -->`)' -r
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -l hub -d 'The hub file entries move into' -r
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -s n -l dry-run -d 'Print the diff and the summary; change nothing'
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -l force -d 'Write even while a live auto-dream holds the lock'
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from rebuild" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from help" -f -a "rebuild" -d 'Rewrite MEMORY.md to load whole within a budget, moving the least important entries into a hub file it links; no memory is ever unlinked'
complete -c memctl -n "__fish_memctl_using_subcommand index; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -f -a "install" -d 'Add memctl\'s hooks to a Claude Code settings file'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -f -a "uninstall" -d 'Remove memctl\'s hooks from a Claude Code settings file'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -f -a "status" -d 'Show where memctl\'s hooks are installed and whether Claude Code runs them'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and not __fish_seen_subcommand_from install uninstall status help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -l scope -d 'The settings file to edit' -r -f -a "user\t'<config home>/settings.json'
local\t'<project>/.claude/settings.local.json'
project\t'<project>/.claude/settings.json (usually committed)'"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -s n -l dry-run -d 'Print the diff; change nothing'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -s y -l yes -d 'Accepted for scripts (these commands never ask)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -l no-gate -d 'Leave out the PreToolUse gate that refuses a Write or Edit which would lose memory'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -l scope -d 'The settings file to edit' -r -f -a "user\t'<config home>/settings.json'
local\t'<project>/.claude/settings.local.json'
project\t'<project>/.claude/settings.json (usually committed)'"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -s n -l dry-run -d 'Print the diff; change nothing'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -s y -l yes -d 'Accepted for scripts (these commands never ask)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from uninstall" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from status" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from status" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from status" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from status" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from status" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from status" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "install" -d 'Add memctl\'s hooks to a Claude Code settings file'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "uninstall" -d 'Remove memctl\'s hooks from a Claude Code settings file'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show where memctl\'s hooks are installed and whether Claude Code runs them'
complete -c memctl -n "__fish_memctl_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand config; and not __fish_seen_subcommand_from set unset help" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand config; and not __fish_seen_subcommand_from set unset help" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand config; and not __fish_seen_subcommand_from set unset help" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand config; and not __fish_seen_subcommand_from set unset help" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand config; and not __fish_seen_subcommand_from set unset help" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand config; and not __fish_seen_subcommand_from set unset help" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand config; and not __fish_seen_subcommand_from set unset help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand config; and not __fish_seen_subcommand_from set unset help" -f -a "set" -d 'Write a memory setting into a settings file'
complete -c memctl -n "__fish_memctl_using_subcommand config; and not __fish_seen_subcommand_from set unset help" -f -a "unset" -d 'Remove a memory setting from a settings file'
complete -c memctl -n "__fish_memctl_using_subcommand config; and not __fish_seen_subcommand_from set unset help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from set" -l scope -d 'The settings file to edit (project only for the two booleans)' -r -f -a "user\t'<config home>/settings.json'
local\t'<project>/.claude/settings.local.json'
project\t'<project>/.claude/settings.json (usually committed)'"
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from set" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from set" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from set" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from set" -s n -l dry-run -d 'Print the diff; change nothing'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from set" -s y -l yes -d 'Accepted for scripts (these commands never ask)'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from set" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from set" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from set" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from unset" -l scope -d 'The settings file to edit' -r -f -a "user\t'<config home>/settings.json'
local\t'<project>/.claude/settings.local.json'
project\t'<project>/.claude/settings.json (usually committed)'"
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from unset" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from unset" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from unset" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from unset" -s n -l dry-run -d 'Print the diff; change nothing'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from unset" -s y -l yes -d 'Accepted for scripts (these commands never ask)'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from unset" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from unset" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from unset" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from unset" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "set" -d 'Write a memory setting into a settings file'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "unset" -d 'Remove a memory setting from a settings file'
complete -c memctl -n "__fish_memctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l all -d 'Include memory dirs that hold no memories'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -f -a "merge" -d 'Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and not __fish_seen_subcommand_from merge help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -l into-dir -d 'Take DIR as the receiving memory dir as it is, whatever it holds' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -s n -l dry-run -d 'Print what would move; change nothing'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -l force -d 'Write even while a live auto-dream holds either lock'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)'
complete -c memctl -n "__fish_memctl_using_subcommand projects; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand search" -s t -l type -d 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)' -r
complete -c memctl -n "__fish_memctl_using_subcommand search" -l limit -d 'Show at most N results (0: all)' -r
complete -c memctl -n "__fish_memctl_using_subcommand search" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand search" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand search" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand search" -l all-projects -d 'Search the memory dirs of every project (see `memctl projects`)'
complete -c memctl -n "__fish_memctl_using_subcommand search" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand search" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand search" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand export" -s o -l output -d 'The bundle to write (a .tar.gz)' -r -F
complete -c memctl -n "__fish_memctl_using_subcommand export" -l as -d 'The identity to record for a project that has none (no git remote, no commit)' -r
complete -c memctl -n "__fish_memctl_using_subcommand export" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand export" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand export" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand export" -l all-projects -d 'Export every project with memories (see `memctl projects`)'
complete -c memctl -n "__fish_memctl_using_subcommand export" -l strict -d 'Secret-like tokens (lint ML121) refuse as strict_refused (exit 1) instead of exit 2'
complete -c memctl -n "__fish_memctl_using_subcommand export" -l allow-secrets -d 'Write memories that hold secret-like tokens (lint ML121) into the bundle; refused by default'
complete -c memctl -n "__fish_memctl_using_subcommand export" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand export" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand export" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand import" -l into -d 'The memory dir to import into (for a bundle of one project)' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand import" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand import" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand import" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand import" -s n -l dry-run -d 'Print what would be imported; change nothing'
complete -c memctl -n "__fish_memctl_using_subcommand import" -s y -l yes -d 'Do not ask for confirmation (required without a terminal)'
complete -c memctl -n "__fish_memctl_using_subcommand import" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand import" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand import" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l remote -d 'The git remote to sync through (set once; remembered in the sync repository)' -r
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l as -d 'The identity to use for a project that has none (no git remote, no commit)' -r
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l resolve -d 'Mark a conflict done, keeping the local version (the conflict file goes to .trash/)' -r -F
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l purge -d 'Remove FILE (a path below the project\'s dir in the sync repository, e.g. user_a.md) from the sync remote\'s whole history' -r
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l all-projects -d 'Sync every project with memories (see `memctl projects`)'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -s n -l dry-run -d 'Show what a sync would change; write and push nothing'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l status -d 'List unresolved conflicts (exit 1 when there are any)'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l allow-mass-delete -d 'Apply a change (sent or received) that deletes more than half of a project\'s memories'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l accept-remote -d 'After the remote was rolled back or rewritten: take it as it is (deletes here what it no longer holds)'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l push-local -d 'After the remote was rolled back or rewritten: restore it from this machine'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l strict -d 'Secret-like tokens (lint ML121) refuse as strict_refused (exit 1) instead of exit 2'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l allow-secrets -d 'Push memories that hold secret-like tokens (lint ML121); refused by default'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -s y -l yes -d 'Accepted for scripts; sync never prompts'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand sync" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand review" -l apply -d 'Apply these proposals (numbers as printed, e.g. 2,5)' -r
complete -c memctl -n "__fish_memctl_using_subcommand review" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand review" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand review" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand review" -s y -l yes -d 'Do not ask for confirmation (required with --apply without a terminal)'
complete -c memctl -n "__fish_memctl_using_subcommand review" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand review" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand review" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand review" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand mcp" -l dir -d 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand mcp" -l project -d 'Resolve for this project instead of the current directory' -r -f -a "(__fish_complete_directories)"
complete -c memctl -n "__fish_memctl_using_subcommand mcp" -l color -d 'When to use colour' -r -f -a "auto\t'Colour when the stream is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even when NO_COLOR is set'
never\t'Never colour'"
complete -c memctl -n "__fish_memctl_using_subcommand mcp" -l team -d 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)'
complete -c memctl -n "__fish_memctl_using_subcommand mcp" -l json -d 'Print one JSON document on stdout (errors as JSON on stderr)'
complete -c memctl -n "__fish_memctl_using_subcommand mcp" -l no-history -d 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]'
complete -c memctl -n "__fish_memctl_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "path" -d 'Print the memory dir Claude Code uses for this project'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "list" -d 'List memories in Claude Code\'s scan order'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "show" -d 'Show one memory'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "truncate-check" -d 'Report exactly what Claude Code loads from MEMORY.md, and what it drops'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "lint" -d 'Check the memory dir for everything that makes Claude Code lose or misread memories'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "add" -d 'Create a memory file and its index line'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "forget" -d 'Remove memories and their index lines, keeping a copy in history (.trash/ with history off)'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "edit" -d 'Edit a memory (or, with --index, MEMORY.md) in $VISUAL or $EDITOR'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "lock" -d 'Inspect the auto-dream lock (.consolidate-lock)'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "completions" -d 'Print a shell completion script'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "man" -d 'Print a man page (memctl\'s, or one command\'s)'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "dream" -d 'Preview auto-dream: whether it would run now, and a consolidation plan'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "snapshot" -d 'Record a history snapshot of the memory dir now (nothing when unchanged)'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "history" -d 'List the history snapshots of the memory dir (or of one memory), newest first'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "diff" -d 'Show what changed between two snapshots, or since the last one'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "restore" -d 'Bring back one memory as a snapshot (or .trash/) has it: bytes, mtime, index line'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "undo" -d 'Revert the changes of a snapshot (default: the newest), or of the last dream run'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "index" -d 'Keep MEMORY.md within what Claude Code loads'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "hook" -d 'Claude Code hook: check each write into memory as it happens'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "config" -d 'Show or change Claude Code\'s memory settings and where each comes from'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "projects" -d 'Every memory dir on this machine: sizes, index budget, and what is stranded'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "search" -d 'Find memories by words in their name, description or body'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "export" -d 'Write a project\'s memory (or every project\'s) into a .tar.gz bundle'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "import" -d 'Place the projects of a bundle into this machine\'s memory dirs, by identity'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "sync" -d 'Keep this project\'s memory (or every project\'s) in step across machines over git'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "review" -d 'Propose moving memories into CLAUDE.md, CLAUDE.local.md or team/, and apply the chosen'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "mcp" -d 'Serve read-only memory tools to Claude Code (or any MCP client) over stdio'
complete -c memctl -n "__fish_memctl_using_subcommand help; and not __fish_seen_subcommand_from path list show truncate-check lint add forget edit lock completions man dream snapshot history diff restore undo index hook config projects search export import sync review mcp help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memctl -n "__fish_memctl_using_subcommand help; and __fish_seen_subcommand_from lock" -f -a "status" -d 'Show the lock\'s state and what Claude Code\'s next acquire would do'
complete -c memctl -n "__fish_memctl_using_subcommand help; and __fish_seen_subcommand_from index" -f -a "rebuild" -d 'Rewrite MEMORY.md to load whole within a budget, moving the least important entries into a hub file it links; no memory is ever unlinked'
complete -c memctl -n "__fish_memctl_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "install" -d 'Add memctl\'s hooks to a Claude Code settings file'
complete -c memctl -n "__fish_memctl_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "uninstall" -d 'Remove memctl\'s hooks from a Claude Code settings file'
complete -c memctl -n "__fish_memctl_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "status" -d 'Show where memctl\'s hooks are installed and whether Claude Code runs them'
complete -c memctl -n "__fish_memctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "set" -d 'Write a memory setting into a settings file'
complete -c memctl -n "__fish_memctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "unset" -d 'Remove a memory setting from a settings file'
complete -c memctl -n "__fish_memctl_using_subcommand help; and __fish_seen_subcommand_from projects" -f -a "merge" -d 'Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)'

# Dynamic values (memory names, types, rule ids) from `memctl __complete`.
function __memctl_dynamic
    memctl __complete --shell fish -- (commandline -opc) (commandline -ct) 2>/dev/null
end
complete -c memctl -n "__fish_memctl_using_subcommand show" -f -a "(__memctl_dynamic)"
complete -c memctl -n "__fish_memctl_using_subcommand edit" -f -a "(__memctl_dynamic)"
complete -c memctl -n "__fish_memctl_using_subcommand forget" -f -a "(__memctl_dynamic)"
complete -c memctl -n "__fish_memctl_using_subcommand list" -s t -l type -r -f -a "(__memctl_dynamic)"
complete -c memctl -n "__fish_memctl_using_subcommand search" -s t -l type -r -f -a "(__memctl_dynamic)"
complete -c memctl -n "__fish_memctl_using_subcommand add" -s t -l type -r -f -a "(__memctl_dynamic)"
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l rule -r -f -a "(__memctl_dynamic)"
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l disable -r -f -a "(__memctl_dynamic)"
complete -c memctl -n "__fish_memctl_using_subcommand lint" -l explain -r -f -a "(__memctl_dynamic)"
