
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'memctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'memctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'memctl' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the memory dir Claude Code uses for this project')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List memories in Claude Code''s scan order')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one memory')
            [CompletionResult]::new('truncate-check', 'truncate-check', [CompletionResultType]::ParameterValue, 'Report exactly what Claude Code loads from MEMORY.md, and what it drops')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Check the memory dir for everything that makes Claude Code lose or misread memories')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Create a memory file and its index line')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove memories and their index lines, keeping a copy in history (.trash/ with history off)')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Edit a memory (or, with --index, MEMORY.md) in $VISUAL or $EDITOR')
            [CompletionResult]::new('lock', 'lock', [CompletionResultType]::ParameterValue, 'Inspect the auto-dream lock (.consolidate-lock)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print a man page (memctl''s, or one command''s)')
            [CompletionResult]::new('dream', 'dream', [CompletionResultType]::ParameterValue, 'Preview auto-dream: whether it would run now, and a consolidation plan')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Record a history snapshot of the memory dir now (nothing when unchanged)')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'List the history snapshots of the memory dir (or of one memory), newest first')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Show what changed between two snapshots, or since the last one')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring back one memory as a snapshot (or .trash/) has it: bytes, mtime, index line')
            [CompletionResult]::new('undo', 'undo', [CompletionResultType]::ParameterValue, 'Revert the changes of a snapshot (default: the newest), or of the last dream run')
            [CompletionResult]::new('index', 'index', [CompletionResultType]::ParameterValue, 'Keep MEMORY.md within what Claude Code loads')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Claude Code hook: check each write into memory as it happens')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show or change Claude Code''s memory settings and where each comes from')
            [CompletionResult]::new('projects', 'projects', [CompletionResultType]::ParameterValue, 'Every memory dir on this machine: sizes, index budget, and what is stranded')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Find memories by words in their name, description or body')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a project''s memory (or every project''s) into a .tar.gz bundle')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Place the projects of a bundle into this machine''s memory dirs, by identity')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Keep this project''s memory (or every project''s) in step across machines over git')
            [CompletionResult]::new('review', 'review', [CompletionResultType]::ParameterValue, 'Propose moving memories into CLAUDE.md, CLAUDE.local.md or team/, and apply the chosen')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve read-only memory tools to Claude Code (or any MCP client) over stdio')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;path' {
            [CompletionResult]::new('--key-for', '--key-for', [CompletionResultType]::ParameterName, 'Print the project key Claude Code derives from STRING (lexically)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Print the MEMORY.md path instead')
            [CompletionResult]::new('--transcripts', '--transcripts', [CompletionResultType]::ParameterName, 'Print the session transcripts dir instead')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Explain every step of the resolution')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;list' {
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format [default: table, or json with --json]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: table, or json with --json]')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Lift Claude Code''s 200-file cap')
            [CompletionResult]::new('--all-projects', '--all-projects', [CompletionResultType]::ParameterName, 'List the memories of every project (see `memctl projects`), grouped by project')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'With --format paths: end each path with a NUL byte and print it exactly (no escapes)')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'With --format paths: end each path with a NUL byte and print it exactly (no escapes)')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;show' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Write the file''s bytes unchanged, nothing else')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;truncate-check' {
            [CompletionResult]::new('--warn-at', '--warn-at', [CompletionResultType]::ParameterName, 'Also exit 1 when lines or units reach PERCENT of a cap')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--print-loaded', '--print-loaded', [CompletionResultType]::ParameterName, 'Print exactly the text the model reads (after Claude Code''s clean-up), and nothing else')
            [CompletionResult]::new('--all-projects', '--all-projects', [CompletionResultType]::ParameterName, 'Check the index of every project (see `memctl projects`)')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;lint' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format [default: text, or json with --json]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text, or json with --json]')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Explain one rule (an id in any case or a rule name): what Claude Code does, why it matters, how to fix it')
            [CompletionResult]::new('--rule', '--rule', [CompletionResultType]::ParameterName, 'Run only this rule: an id in any case or a rule name (repeatable or comma-separated)')
            [CompletionResult]::new('--disable', '--disable', [CompletionResultType]::ParameterName, 'Skip this rule: an id in any case or a rule name (repeatable or comma-separated)')
            [CompletionResult]::new('--min-severity', '--min-severity', [CompletionResultType]::ParameterName, 'Hide findings below this severity')
            [CompletionResult]::new('--warn-at', '--warn-at', [CompletionResultType]::ParameterName, 'ML207 threshold: warn when lines or units reach PERCENT of a cap')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--list-rules', '--list-rules', [CompletionResultType]::ParameterName, 'Print the rule table (id, name, severity, fixable, what Claude Code does) and exit')
            [CompletionResult]::new('--summary', '--summary', [CompletionResultType]::ParameterName, 'Print only the counts of findings by rule (text format)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Warnings also cause exit status 1')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Apply the fixes of fixable rules (ML102, ML111, ML203, ML132)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'With --fix: print unified diffs and write nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'With --fix: print unified diffs and write nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'With --fix: write even while a live auto-dream holds the lock')
            [CompletionResult]::new('--all-projects', '--all-projects', [CompletionResultType]::ParameterName, 'Lint (with --fix: fix) every project''s memory dir (see `memctl projects`); exit 1 when any has findings')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;add' {
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Memory type: user, feedback, project or reference')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Memory type: user, feedback, project or reference')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Name (one line, 1–100 characters)')
            [CompletionResult]::new('--description', '--description', [CompletionResultType]::ParameterName, 'One-line description, the manifest''s hook (1–500 characters)')
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'The memory''s content')
            [CompletionResult]::new('--body-file', '--body-file', [CompletionResultType]::ParameterName, 'Read the content from a file, or - for standard input')
            [CompletionResult]::new('--why', '--why', [CompletionResultType]::ParameterName, 'Why the rule or fact holds (feedback and project only)')
            [CompletionResult]::new('--how', '--how', [CompletionResultType]::ParameterName, 'How to apply it (feedback and project only)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'File name instead of the generated <type>_<slug>.md')
            [CompletionResult]::new('--title', '--title', [CompletionResultType]::ParameterName, 'Index line title [default: the name]')
            [CompletionResult]::new('--hook', '--hook', [CompletionResultType]::ParameterName, 'Index line hook [default: the description]')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--edit', '--edit', [CompletionResultType]::ParameterName, 'Compose the content in the editor')
            [CompletionResult]::new('--no-index', '--no-index', [CompletionResultType]::ParameterName, 'Do not touch MEMORY.md')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Refuse to write when there is any warning')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Print the file and the index diff; write nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the file and the index diff; write nothing')
            [CompletionResult]::new('--at-top', '--at-top', [CompletionResultType]::ParameterName, 'Put the index line at the top of MEMORY.md instead of in its type''s section')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write even while a live auto-dream holds the lock, and even when the index line would be cut or push another entry past the cut')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;forget' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show what would be moved and the index diff; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be moved and the index diff; change nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write even while a live auto-dream holds the lock, and remove index lines that also link other memories')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;edit' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Save DRAFT (one kept after a failed edit) instead of starting the editor; it is checked and saved like an edit')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Edit MEMORY.md (the team index with --team)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'With --index: create a missing MEMORY.md without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'With --index: create a missing MEMORY.md without asking')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'With --index: exit 1 when Claude Code would truncate the saved index')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Save even while a live auto-dream holds the lock')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;lock' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the lock''s state and what Claude Code''s next acquire would do')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;lock;status' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;lock;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the lock''s state and what Claude Code''s next acquire would do')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;lock;help;status' {
            break
        }
        'memctl;lock;help;help' {
            break
        }
        'memctl;completions' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;man' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;dream' {
            [CompletionResult]::new('--min-hours', '--min-hours', [CompletionResultType]::ParameterName, 'What-if threshold for the time gate, in hours [default: the cached flag''s minHours, else 24]')
            [CompletionResult]::new('--min-sessions', '--min-sessions', [CompletionResultType]::ParameterName, 'What-if threshold for the sessions gate [default: the cached flag''s minSessions, else 5]')
            [CompletionResult]::new('--current-session', '--current-session', [CompletionResultType]::ParameterName, 'Exclude this session id, as Claude Code excludes the session doing the check')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show the gates and the plan; change nothing (the default, and the only mode)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the gates and the plan; change nothing (the default, and the only mode)')
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'Consolidate now: memctl cannot (it needs a model), and says what to do instead')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;snapshot' {
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'A note kept in the snapshot''s message')
            [CompletionResult]::new('--message', '--message', [CompletionResultType]::ParameterName, 'A note kept in the snapshot''s message')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--all-projects', '--all-projects', [CompletionResultType]::ParameterName, 'Take a snapshot of every project with memories (see `memctl projects`)')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;history' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N snapshots')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;diff' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'From this state: a snapshot id (7+ hex digits), @~N, or a time (2026-03-10, 3h, 2d)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'To this state (default: the dir now)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--stat', '--stat', [CompletionResultType]::ParameterName, 'Print changed files with line counts only')
            [CompletionResult]::new('--dream', '--dream', [CompletionResultType]::ParameterName, 'The changes of the last dream run')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;restore' {
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'From this snapshot (default: the newest one that has it)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show what would be restored; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be restored; change nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite a file with different content; write while a live auto-dream holds the lock')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;undo' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--dream', '--dream', [CompletionResultType]::ParameterName, 'Revert the whole last dream run')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show what would be reverted; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be reverted; change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Revert files changed again since, too; write while a live auto-dream holds the lock')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;index' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('rebuild', 'rebuild', [CompletionResultType]::ParameterValue, 'Rewrite MEMORY.md to load whole within a budget, moving the least important entries into a hub file it links; no memory is ever unlinked')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;index;rebuild' {
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'Percent of both caps (200 lines, 25 000 units) the loaded index may use')
            [CompletionResult]::new('--pin', '--pin', [CompletionResultType]::ParameterName, 'Keep this memory''s line in MEMORY.md (repeatable; or end its line with `<!-- pin -->`)')
            [CompletionResult]::new('--hub', '--hub', [CompletionResultType]::ParameterName, 'The hub file entries move into')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Print the diff and the summary; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the diff and the summary; change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write even while a live auto-dream holds the lock')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;index;help' {
            [CompletionResult]::new('rebuild', 'rebuild', [CompletionResultType]::ParameterValue, 'Rewrite MEMORY.md to load whole within a budget, moving the least important entries into a hub file it links; no memory is ever unlinked')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;index;help;rebuild' {
            break
        }
        'memctl;index;help;help' {
            break
        }
        'memctl;hook' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add memctl''s hooks to a Claude Code settings file')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove memctl''s hooks from a Claude Code settings file')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show where memctl''s hooks are installed and whether Claude Code runs them')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;hook;install' {
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'The settings file to edit')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Print the diff; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the diff; change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Accepted for scripts (these commands never ask)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Accepted for scripts (these commands never ask)')
            [CompletionResult]::new('--no-gate', '--no-gate', [CompletionResultType]::ParameterName, 'Leave out the PreToolUse gate that refuses a Write or Edit which would lose memory')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;hook;uninstall' {
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'The settings file to edit')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Print the diff; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the diff; change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Accepted for scripts (these commands never ask)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Accepted for scripts (these commands never ask)')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;hook;status' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;hook;help' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add memctl''s hooks to a Claude Code settings file')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove memctl''s hooks from a Claude Code settings file')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show where memctl''s hooks are installed and whether Claude Code runs them')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;hook;help;install' {
            break
        }
        'memctl;hook;help;uninstall' {
            break
        }
        'memctl;hook;help;status' {
            break
        }
        'memctl;hook;help;help' {
            break
        }
        'memctl;config' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Write a memory setting into a settings file')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a memory setting from a settings file')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;config;set' {
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'The settings file to edit (project only for the two booleans)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Print the diff; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the diff; change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Accepted for scripts (these commands never ask)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Accepted for scripts (these commands never ask)')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;config;unset' {
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'The settings file to edit')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Print the diff; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the diff; change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Accepted for scripts (these commands never ask)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Accepted for scripts (these commands never ask)')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;config;help' {
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Write a memory setting into a settings file')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a memory setting from a settings file')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;config;help;set' {
            break
        }
        'memctl;config;help;unset' {
            break
        }
        'memctl;config;help;help' {
            break
        }
        'memctl;projects' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Include memory dirs that hold no memories')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;projects;merge' {
            [CompletionResult]::new('--into-dir', '--into-dir', [CompletionResultType]::ParameterName, 'Take DIR as the receiving memory dir as it is, whatever it holds')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Print what would move; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would move; change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write even while a live auto-dream holds either lock')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;projects;help' {
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;projects;help;merge' {
            break
        }
        'memctl;projects;help;help' {
            break
        }
        'memctl;search' {
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N results (0: all)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--all-projects', '--all-projects', [CompletionResultType]::ParameterName, 'Search the memory dirs of every project (see `memctl projects`)')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;export' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The bundle to write (a .tar.gz)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The bundle to write (a .tar.gz)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The identity to record for a project that has none (no git remote, no commit)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--all-projects', '--all-projects', [CompletionResultType]::ParameterName, 'Export every project with memories (see `memctl projects`)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Secret-like tokens (lint ML121) refuse as strict_refused (exit 1) instead of exit 2')
            [CompletionResult]::new('--allow-secrets', '--allow-secrets', [CompletionResultType]::ParameterName, 'Write memories that hold secret-like tokens (lint ML121) into the bundle; refused by default')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;import' {
            [CompletionResult]::new('--into', '--into', [CompletionResultType]::ParameterName, 'The memory dir to import into (for a bundle of one project)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Print what would be imported; change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be imported; change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required without a terminal)')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;sync' {
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'The git remote to sync through (set once; remembered in the sync repository)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The identity to use for a project that has none (no git remote, no commit)')
            [CompletionResult]::new('--resolve', '--resolve', [CompletionResultType]::ParameterName, 'Mark a conflict done, keeping the local version (the conflict file goes to .trash/)')
            [CompletionResult]::new('--purge', '--purge', [CompletionResultType]::ParameterName, 'Remove FILE (a path below the project''s dir in the sync repository, e.g. user_a.md) from the sync remote''s whole history')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--all-projects', '--all-projects', [CompletionResultType]::ParameterName, 'Sync every project with memories (see `memctl projects`)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show what a sync would change; write and push nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what a sync would change; write and push nothing')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'List unresolved conflicts (exit 1 when there are any)')
            [CompletionResult]::new('--allow-mass-delete', '--allow-mass-delete', [CompletionResultType]::ParameterName, 'Apply a change (sent or received) that deletes more than half of a project''s memories')
            [CompletionResult]::new('--accept-remote', '--accept-remote', [CompletionResultType]::ParameterName, 'After the remote was rolled back or rewritten: take it as it is (deletes here what it no longer holds)')
            [CompletionResult]::new('--push-local', '--push-local', [CompletionResultType]::ParameterName, 'After the remote was rolled back or rewritten: restore it from this machine')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Secret-like tokens (lint ML121) refuse as strict_refused (exit 1) instead of exit 2')
            [CompletionResult]::new('--allow-secrets', '--allow-secrets', [CompletionResultType]::ParameterName, 'Push memories that hold secret-like tokens (lint ML121); refused by default')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Accepted for scripts; sync never prompts')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Accepted for scripts; sync never prompts')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;review' {
            [CompletionResult]::new('--apply', '--apply', [CompletionResultType]::ParameterName, 'Apply these proposals (numbers as printed, e.g. 2,5)')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required with --apply without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required with --apply without a terminal)')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;mcp' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Resolve for this project instead of the current directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour')
            [CompletionResult]::new('--team', '--team', [CompletionResultType]::ParameterName, 'Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in CLAUDE_MEMORY_STORES, else <memdir>team/)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document on stdout (errors as JSON on stderr)')
            [CompletionResult]::new('--no-history', '--no-history', [CompletionResultType]::ParameterName, 'Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'memctl;help' {
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the memory dir Claude Code uses for this project')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List memories in Claude Code''s scan order')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one memory')
            [CompletionResult]::new('truncate-check', 'truncate-check', [CompletionResultType]::ParameterValue, 'Report exactly what Claude Code loads from MEMORY.md, and what it drops')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Check the memory dir for everything that makes Claude Code lose or misread memories')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Create a memory file and its index line')
            [CompletionResult]::new('forget', 'forget', [CompletionResultType]::ParameterValue, 'Remove memories and their index lines, keeping a copy in history (.trash/ with history off)')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Edit a memory (or, with --index, MEMORY.md) in $VISUAL or $EDITOR')
            [CompletionResult]::new('lock', 'lock', [CompletionResultType]::ParameterValue, 'Inspect the auto-dream lock (.consolidate-lock)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print a man page (memctl''s, or one command''s)')
            [CompletionResult]::new('dream', 'dream', [CompletionResultType]::ParameterValue, 'Preview auto-dream: whether it would run now, and a consolidation plan')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Record a history snapshot of the memory dir now (nothing when unchanged)')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'List the history snapshots of the memory dir (or of one memory), newest first')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Show what changed between two snapshots, or since the last one')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring back one memory as a snapshot (or .trash/) has it: bytes, mtime, index line')
            [CompletionResult]::new('undo', 'undo', [CompletionResultType]::ParameterValue, 'Revert the changes of a snapshot (default: the newest), or of the last dream run')
            [CompletionResult]::new('index', 'index', [CompletionResultType]::ParameterValue, 'Keep MEMORY.md within what Claude Code loads')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Claude Code hook: check each write into memory as it happens')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show or change Claude Code''s memory settings and where each comes from')
            [CompletionResult]::new('projects', 'projects', [CompletionResultType]::ParameterValue, 'Every memory dir on this machine: sizes, index budget, and what is stranded')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Find memories by words in their name, description or body')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a project''s memory (or every project''s) into a .tar.gz bundle')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Place the projects of a bundle into this machine''s memory dirs, by identity')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Keep this project''s memory (or every project''s) in step across machines over git')
            [CompletionResult]::new('review', 'review', [CompletionResultType]::ParameterValue, 'Propose moving memories into CLAUDE.md, CLAUDE.local.md or team/, and apply the chosen')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve read-only memory tools to Claude Code (or any MCP client) over stdio')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memctl;help;path' {
            break
        }
        'memctl;help;list' {
            break
        }
        'memctl;help;show' {
            break
        }
        'memctl;help;truncate-check' {
            break
        }
        'memctl;help;lint' {
            break
        }
        'memctl;help;add' {
            break
        }
        'memctl;help;forget' {
            break
        }
        'memctl;help;edit' {
            break
        }
        'memctl;help;lock' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the lock''s state and what Claude Code''s next acquire would do')
            break
        }
        'memctl;help;lock;status' {
            break
        }
        'memctl;help;completions' {
            break
        }
        'memctl;help;man' {
            break
        }
        'memctl;help;dream' {
            break
        }
        'memctl;help;snapshot' {
            break
        }
        'memctl;help;history' {
            break
        }
        'memctl;help;diff' {
            break
        }
        'memctl;help;restore' {
            break
        }
        'memctl;help;undo' {
            break
        }
        'memctl;help;index' {
            [CompletionResult]::new('rebuild', 'rebuild', [CompletionResultType]::ParameterValue, 'Rewrite MEMORY.md to load whole within a budget, moving the least important entries into a hub file it links; no memory is ever unlinked')
            break
        }
        'memctl;help;index;rebuild' {
            break
        }
        'memctl;help;hook' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add memctl''s hooks to a Claude Code settings file')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove memctl''s hooks from a Claude Code settings file')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show where memctl''s hooks are installed and whether Claude Code runs them')
            break
        }
        'memctl;help;hook;install' {
            break
        }
        'memctl;help;hook;uninstall' {
            break
        }
        'memctl;help;hook;status' {
            break
        }
        'memctl;help;config' {
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Write a memory setting into a settings file')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a memory setting from a settings file')
            break
        }
        'memctl;help;config;set' {
            break
        }
        'memctl;help;config;unset' {
            break
        }
        'memctl;help;projects' {
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)')
            break
        }
        'memctl;help;projects;merge' {
            break
        }
        'memctl;help;search' {
            break
        }
        'memctl;help;export' {
            break
        }
        'memctl;help;import' {
            break
        }
        'memctl;help;sync' {
            break
        }
        'memctl;help;review' {
            break
        }
        'memctl;help;mcp' {
            break
        }
        'memctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
