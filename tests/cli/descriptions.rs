//! Memories without a description and type suggestions (issue 30 point 8, SPEC v3
//! §3.14, §3.9.3 ML108): an index line memctl writes or suggests for a memory
//! without a description uses its name as the hook, never a bare trailing dash;
//! ML108 suggests the type the file name's prefix says.

use crate::support::{Env, read};

const NO_DESC: &str = "---\nname: no-desc\nmetadata:\n  type: feedback\n---\nbody\n";

#[test]
fn restore_of_a_memory_without_a_description_writes_its_name_as_the_hook() {
    let e = Env::new()
        .index("- [A](a.md) — a\n")
        .memory("a.md", "---\nname: a\ndescription: a\ntype: user\n---\n")
        .memory("feedback_nodesc.md", NO_DESC);
    let d = e.dir();
    let run = |args: &[&str]| {
        let o = e.command().args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    run(&["snapshot"]);
    run(&["forget", "feedback_nodesc", "--yes"]);
    run(&["restore", "feedback_nodesc"]);
    assert_eq!(
        read(&d, "MEMORY.md"),
        "- [A](a.md) — a\n- [no-desc](feedback_nodesc.md) — no-desc\n"
    );
}

#[test]
fn ml108_suggests_the_type_of_the_file_name_prefix_else_the_nearest_spelling() {
    let bad = |ty: &str| format!("---\nname: n\ndescription: d\nmetadata:\n  type: {ty}\n---\nbody\n");
    let e = Env::new()
        .index("- [n](feedback_pref.md) — d\n- [n](notes.md) — d\n- [n](user_x.md) — d\n")
        .memory("feedback_pref.md", &bad("preference"))
        .memory("notes.md", &bad("preference"))
        .memory("user_x.md", &bad("User"));
    let run = e.args(["lint", "--rule", "ML108", "--json"]).run().code(1);
    let doc = run.json();
    let msgs: Vec<(String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = f["path"].as_str().unwrap_or_default();
            let base = file.rsplit('/').next().unwrap_or(file).to_string();
            (base, f["message"].as_str().unwrap().to_string())
        })
        .collect();
    let said = |name: &str| {
        msgs.iter()
            .find(|(f, _)| f == name)
            .map(|(_, m)| m.clone())
            .unwrap_or_else(|| panic!("{name}: {msgs:?}"))
    };
    assert!(said("feedback_pref.md").ends_with("write `type: feedback`"), "{msgs:?}");
    assert!(said("notes.md").ends_with("write `type: reference`"), "{msgs:?}");
    assert!(said("user_x.md").ends_with("write `type: user`"), "{msgs:?}");
}
