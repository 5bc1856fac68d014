
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
            cand --team 'Operate on the team memory dir (<memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand path 'Print the memory dir Claude Code uses for this project'
            cand list 'List memories in Claude Code''s scan order'
            cand show 'Show one memory'
            cand truncate-check 'Report exactly what Claude Code loads from MEMORY.md, and what it drops'
            cand lint 'Check the memory dir for everything that makes Claude Code lose or misread memories'
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
            cand --team 'Operate on the team memory dir (<memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;list'= {
            cand --type 'Only these types: user, feedback, project, reference, none (repeatable or comma-separated)'
            cand --format 'Output format [default: table, or json with --json]'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --all 'Lift Claude Code''s 200-file cap'
            cand --team 'Operate on the team memory dir (<memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;show'= {
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --raw 'Write the file''s bytes unchanged, nothing else'
            cand --team 'Operate on the team memory dir (<memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;truncate-check'= {
            cand --warn-at 'Also exit 1 when lines or units reach PERCENT of a cap'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --print-loaded 'Print exactly the text Claude Code loads, and nothing else'
            cand --team 'Operate on the team memory dir (<memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;lint'= {
            cand --format 'Output format [default: text, or json with --json]'
            cand --rule 'Run only this rule (repeatable)'
            cand --disable 'Skip this rule (repeatable)'
            cand --min-severity 'Hide findings below this severity'
            cand --warn-at 'ML207 threshold: warn when lines or units reach PERCENT of a cap'
            cand --dir 'Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]'
            cand --project 'Resolve for this project instead of the current directory'
            cand --color 'When to use colour'
            cand --strict 'Warnings also cause exit status 1'
            cand --fix 'Apply the fixes of fixable rules (ML102, ML111, ML203, ML132)'
            cand --dry-run 'With --fix: print unified diffs and write nothing'
            cand --force 'With --fix: write even while a live auto-dream holds the lock'
            cand --team 'Operate on the team memory dir (<memdir>team/)'
            cand --json 'Print one JSON document on stdout (errors as JSON on stderr)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'memctl;help'= {
            cand path 'Print the memory dir Claude Code uses for this project'
            cand list 'List memories in Claude Code''s scan order'
            cand show 'Show one memory'
            cand truncate-check 'Report exactly what Claude Code loads from MEMORY.md, and what it drops'
            cand lint 'Check the memory dir for everything that makes Claude Code lose or misread memories'
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
        &'memctl;help;help'= {
        }
    ]
    $completions[$command]
}
