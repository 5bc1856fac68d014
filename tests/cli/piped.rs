//! Piped output (SPEC §3.13): one tab-separated record per item, the JSON fields
//! in their order, no header; commands without a JSON form refuse `--json`
//! (issue 32 point 12).

use crate::support::Env;

const GOOD: &str = "---\nname: a\ndescription: a thing\ntype: user\n---\nbody\n";

#[test]
fn snapshot_prints_one_record_for_the_snapshot_taken() {
    let env = Env::new().memory("a.md", GOOD).index("- [A](a.md) — a thing\n");
    let out = env.command().args(["snapshot", "-m", "first"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    let fields: Vec<&str> = lines[0].split('\t').collect();
    // id, trigger, changes (compact JSON), message.
    assert_eq!(fields.len(), 4, "{text}");
    assert_eq!(fields[0].len(), 8, "{text}");
    assert_eq!(fields[1], "baseline");
    let changes: serde_json::Value = serde_json::from_str(fields[2]).unwrap();
    assert_eq!(changes.as_array().unwrap().len(), 2, "{changes}");
    assert_eq!(fields[3], "first");
    // Nothing changed: no record, a note on stderr.
    let out = env.command().args(["snapshot"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing changed since"));
}

#[test]
fn hook_status_prints_one_record_per_scope() {
    let env = Env::new();
    let out = env.command().args(["hook", "status"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let settings = env.home().join(".claude/settings.json");
    let first = format!("user\t{}\tfalse\t[]\t-\t-", settings.display());
    assert_eq!(text.lines().next(), Some(first.as_str()), "{text}");
    assert!(text.lines().all(|l| l.split('\t').count() == 6), "{text}");
}

#[test]
fn config_prints_one_record_per_setting() {
    let env = Env::new().file("home/.claude/settings.json", br#"{"autoDreamEnabled": false}"#);
    let out = env.command().arg("config").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let settings = env.home().join(".claude/settings.json");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines.iter().all(|l| l.split('\t').count() == 4), "{text}");
    let f: Vec<&str> = lines[1].split('\t').collect();
    assert_eq!(
        (f[0], f[1], f[3]),
        ("autoDreamEnabled", "false", &*settings.display().to_string()),
        "{text}"
    );
}

#[test]
fn completions_and_man_refuse_json() {
    for args in [&["completions", "bash", "--json"][..], &["man", "--json"][..]] {
        let out = Env::new().command().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--json does not apply"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
