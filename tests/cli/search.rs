//! `memctl search` (SPEC §9): every word, folded; ranked name > description >
//! body, then BM25; the best line; `--type`, `--limit`, JSON; exit 1 on no match.

use crate::support::{Env, fits, pty_lines, run_in_pty};

fn mem(name: &str, desc: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {desc}\ntype: {ty}\n---\n\n{body}")
}

/// Five memories that each hold `redis` in a different place or amount.
fn ranked() -> Env {
    Env::new()
        .memory(
            "a_body_many.md",
            &mem("Cache notes", "x", "project", "redis redis redis\n"),
        )
        .memory(
            "b_body_once.md",
            &mem(
                "Other notes",
                "x",
                "project",
                "One line.\nWe use redis once, in a body with many more words than the other one.\n",
            ),
        )
        .memory(
            "c_desc.md",
            &mem("Store", "about Redis clusters", "reference", "nothing\n"),
        )
        .memory("d_name.md", &mem("Redis setup", "x", "user", "nothing\n"))
        .memory("e_none.md", &mem("Unrelated", "x", "user", "nothing at all\n"))
        .index("- [Redis](d_name.md) — redis redis\n")
}

#[test]
fn ranks_name_then_description_then_body_by_bm25() {
    ranked().args(["search", "REDIS"]).run().success().stdout(
        "mem/d_name.md:2:name: Redis setup
mem/c_desc.md:3:description: about Redis clusters
mem/a_body_many.md:7:redis redis redis
mem/b_body_once.md:8:We use redis once, in a body with many more words than the other one.
",
    );
}

#[test]
fn accents_and_sharp_s_fold() {
    let env = Env::new()
        .memory("cafe.md", &mem("Café au lait", "x", "user", "Nothing.\n"))
        .memory("street.md", &mem("Addresses", "x", "user", "Hauptstraße 5\n"))
        .memory("upper.md", &mem("Addresses", "x", "user", "HAUPTSTRASSE 7\n"));
    env.args(["search", "CAFE"])
        .run()
        .success()
        .stdout("mem/cafe.md:2:name: Café au lait\n");
    let env = Env::new()
        .memory("street.md", &mem("Addresses", "x", "user", "Hauptstraße 5\n"))
        .memory_aged("upper.md", &mem("Addresses", "x", "user", "HAUPTSTRASSE 7\n"), 48.0);
    // `ß` folds to `ss` (Unicode full case folding): both spellings find both.
    env.args(["search", "hauptstrasse"])
        .run()
        .success()
        .stdout("mem/street.md:7:Hauptstraße 5\nmem/upper.md:7:HAUPTSTRASSE 7\n");
}

#[test]
fn every_word_must_match_across_fields_at_word_starts() {
    let env = || {
        Env::new()
            .memory(
                "both.md",
                &mem("Deploy checklist", "before a Friday release", "project", "Body.\n"),
            )
            .memory("one.md", &mem("Deploy notes", "x", "project", "Body.\n"))
    };
    // `deploy` in the name and `friday` in the description: the description completes it.
    env()
        .args(["search", "deploy", "friday"])
        .run()
        .success()
        .stdout("mem/both.md:3:description: before a Friday release\n");
    // A whole word matches; a prefix only with `*` (issue 32 point 18); the inside
    // of a word never.
    env().args(["search", "check"]).run().code(1).stdout("");
    env()
        .args(["search", "check*"])
        .run()
        .success()
        .stdout("mem/both.md:2:name: Deploy checklist\n");
    env().args(["search", "ploy*"]).run().code(1).stdout("");
}

#[test]
fn the_file_name_counts_as_the_name() {
    Env::new()
        .memory("feedback_testing.md", "No frontmatter here.\n")
        .memory("other.md", &mem("Other", "x", "user", "testing in the body\n"))
        .args(["search", "testing"])
        .run()
        .success()
        .stdout("mem/feedback_testing.md:1:No frontmatter here.\nmem/other.md:7:testing in the body\n");
}

#[test]
fn no_match_exits_1_quietly_when_piped() {
    ranked()
        .args(["search", "redis", "postgres"])
        .run()
        .code(1)
        .stdout("")
        .stderr("");
}

#[test]
fn a_query_without_words_is_a_usage_error() {
    let run = ranked().args(["search", "--", "--- ..."]).run().code(2);
    run.stderr_starts("memctl: the query has no words: `--- ...`");
}

#[test]
fn type_filter_is_lists() {
    ranked()
        .args(["search", "redis", "--type", "Project"])
        .run()
        .success()
        .stdout("mem/a_body_many.md:7:redis redis redis\nmem/b_body_once.md:8:We use redis once, in a body with many more words than the other one.\n")
        .stderr("memctl: note: --type `Project` read as `project`\n");
    ranked()
        .args(["search", "redis", "-t", "user,reference"])
        .run()
        .success()
        .stdout("mem/d_name.md:2:name: Redis setup\nmem/c_desc.md:3:description: about Redis clusters\n");
    ranked().args(["search", "redis", "--type", "users"]).run().code(2);
}

#[test]
fn limit_cuts_and_says_how_many_more() {
    ranked()
        .args(["search", "redis", "--limit", "1"])
        .run()
        .success()
        .stdout("mem/d_name.md:2:name: Redis setup\n")
        .stderr("memctl: note: 3 more matches (--limit 0 shows all)\n");
    let run = ranked().args(["search", "redis", "--limit", "0"]).run().success();
    assert_eq!(run.stdout.lines().count(), 4);
    let run = ranked()
        .args(["search", "redis", "--limit", "2", "--json"])
        .run()
        .success();
    let doc = run.json();
    assert_eq!(doc["results"].as_array().unwrap().len(), 2);
    assert_eq!(doc["warnings"][0], "note: 2 more matches (--limit 0 shows all)");
}

#[test]
fn json_document() {
    let run = ranked().args(["search", "redis", "--json"]).run().success();
    let doc = run.json();
    assert_eq!(doc["query"], "redis");
    let first = &doc["results"][0];
    let keys: Vec<&str> = first.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["memory_dir", "file", "name", "type", "score", "field", "line", "text"]
    );
    assert_eq!(first["field"], "name");
    assert_eq!(doc["results"][2]["field"], "body");
    assert!(doc["results"][2]["score"].as_f64().unwrap() > doc["results"][3]["score"].as_f64().unwrap());
    let run = ranked().args(["search", "zzz", "--json"]).run().code(1);
    assert_eq!(run.json()["results"], serde_json::json!([]));
}

#[test]
fn a_fifo_does_not_block_and_a_non_utf8_file_does_not_panic() {
    let env = Env::new()
        .memory("good.md", &mem("Good", "x", "user", "needle here\n"))
        .file("mem/latin1.md", b"---\nname: caf\xe9\n---\nneedle in \xff\xfe bytes\n");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        env.dir().join("pipe.md"),
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let run = env.args(["search", "needle"]).run().success();
    let mut lines: Vec<&str> = run.stdout.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "mem/good.md:7:needle here",
            "mem/latin1.md:4:needle in \u{fffd}\u{fffd} bytes"
        ]
    );
    run.stderr_has("pipe.md");
}

#[test]
fn terminal_table_fits_80_columns() {
    let long = format!("{} and the needle comes late in this line", "filler words ".repeat(12));
    let env = Env::new()
        .memory(
            "feedback_a_rather_long_file_name_about_bobbins.md",
            &mem("Long one", "x", "feedback", &format!("{long}\n")),
        )
        .memory("n.md", &mem("Needle", "short", "user", "x\n"))
        .env("COLUMNS", "80");
    let out = run_in_pty(&env, &["--color", "never", "search", "needle", "--limit", "1"], &[]);
    let lines = pty_lines(&out);
    for l in &lines {
        assert!(fits(l, 80), "{l:?} in\n{out}");
    }
    assert_eq!(
        lines[..3],
        [
            "TYPE  FILE  LINE  TEXT",
            "user  n.md  2     name: Needle",
            "… and 1 more match (--limit 0 shows all)"
        ],
        "{out}"
    );
    // A file name too long for the text beside it: each text under its row.
    let out = run_in_pty(&env, &["--color", "never", "search", "needle"], &[]);
    let lines = pty_lines(&out);
    assert!(lines.iter().all(|l| fits(l, 80)), "{out}");
    assert_eq!(
        lines[0], "TYPE      FILE                                               LINE",
        "{out}"
    );
    assert_eq!(lines[2], "  name: Needle", "{out}");
    assert!(
        lines[3].starts_with("feedback  feedback_a_rather_long_file_name_about_bobbins.md  7"),
        "{out}"
    );
    assert!(
        lines[4].starts_with("  …") && lines[4].ends_with("the needle comes late in this line"),
        "{out}"
    );
}

/// Issue 32 point 18: `search pr` found every memory with a word starting with
/// `pr` and ranked the one about PRs low. Words match whole words; `pr*` asks for
/// the prefix, and the exact matches rank before the prefix-only ones.
#[test]
fn words_match_whole_words_and_a_star_asks_for_a_prefix() {
    let env = || {
        Env::new()
            .memory(
                "prod.md",
                &mem("Production deploys", "prod notes", "project", "prod prod prod\n"),
            )
            .memory(
                "habits.md",
                &mem("Team habits", "x", "feedback", "Our process, previously.\n"),
            )
            .memory(
                "review.md",
                &mem("Review", "x", "feedback", "Every PR needs a review.\n"),
            )
    };
    env()
        .args(["search", "pr"])
        .run()
        .success()
        .stdout("mem/review.md:7:Every PR needs a review.\n");
    env().args(["search", "pr*"]).run().success().stdout(
        "mem/review.md:7:Every PR needs a review.
mem/prod.md:2:name: Production deploys
mem/habits.md:7:Our process, previously.
",
    );
    // Text without spaces between words still matches as a substring.
    let env = Env::new().memory("cjk.md", &mem("迁移", "x", "project", "我们的数据库迁移在周五。\n"));
    env.args(["search", "数据"])
        .run()
        .success()
        .stdout("mem/cjk.md:7:我们的数据库迁移在周五。\n");
}
