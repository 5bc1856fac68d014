//! Recall mode (SPEC v3 §2.13, §2.16): lint ML404 names the lever.

use std::fs;

use crate::support::Env;

fn ml404(env: Env) -> Vec<String> {
    let doc = env.args(["lint", "--json"]).run().json();
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "ML404")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn ml404_names_the_variable_or_the_cached_flag() {
    assert_eq!(ml404(Env::new()), Vec::<String>::new());
    let got = ml404(Env::new().env("CLAUDE_MEMORY_STORES", r#"["/orgs/acme/shared"]"#));
    assert_eq!(got.len(), 1);
    assert!(
        got[0].starts_with("recall mode is on (env CLAUDE_MEMORY_STORES)"),
        "{got:?}"
    );
    // A blank value is not recall mode; an invalid one is.
    assert!(ml404(Env::new().env("CLAUDE_MEMORY_STORES", "  ")).is_empty());
    assert_eq!(ml404(Env::new().env("CLAUDE_MEMORY_STORES", "nope")).len(), 1);
    let flagged = || {
        let env = Env::new();
        let claude = env.home().join(".claude");
        fs::create_dir_all(&claude).unwrap();
        fs::write(
            claude.join(".claude.json"),
            r#"{"cachedGrowthBookFeatures": {"tengu_moth_copse": true}}"#,
        )
        .unwrap();
        env
    };
    let got = ml404(flagged());
    assert!(
        got[0].starts_with("recall mode is on (cached flag tengu_moth_copse)"),
        "{got:?}"
    );
    // Feature flags off: Claude Code sees no value, so no recall mode.
    assert!(ml404(flagged().env("CLAUDE_CODE_DISABLE_FEATURE_FLAGS", "1")).is_empty());
}
