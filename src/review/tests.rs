use super::*;

const DAY: f64 = 86_400_000.0;

fn mem(rel: &str, ty: &str, name: &str, desc: &str, body: &str, mtime_ms: f64) -> (Memory, String) {
    let text = format!("---\nname: {name}\ndescription: {desc}\ntype: {ty}\n---\n\n{body}\n");
    let mut m = Memory::from_text(rel, &text);
    m.mtime_ms = mtime_ms;
    (m, text)
}

fn claude(lines: &str, mtime_ms: f64) -> ClaudeFile {
    ClaudeFile {
        layer: Layer::Claude,
        label: "CLAUDE.md".into(),
        statements: crate::claude_md::statements(&crate::claude_md::lines(lines.as_bytes())),
        mtime_ms,
    }
}

fn run(mems: &[(Memory, String)], claude: &[ClaudeFile], team_dir: bool) -> Vec<Proposal> {
    let memories: Vec<Memory> = mems.iter().map(|m| m.0.clone()).collect();
    let texts: Vec<Option<String>> = mems.iter().map(|m| Some(m.1.clone())).collect();
    let team: Vec<bool> = memories.iter().map(|m| m.rel.starts_with("team/")).collect();
    analyze(&Input {
        memories: &memories,
        texts: &texts,
        team: &team,
        claude,
        team_dir,
        thresholds: THRESHOLDS,
        now_ms: 100.0 * DAY,
    })
    .proposals
}

fn kinds(p: &[Proposal]) -> Vec<(Kind, &str, Option<&str>)> {
    p.iter()
        .map(|p| (p.kind, p.memory.as_str(), p.target.as_deref()))
        .collect()
}

#[test]
fn remove_when_claude_md_says_it() {
    let m = [mem(
        "a.md",
        "feedback",
        "a",
        "tests",
        "Run the unit tests before every commit.",
        DAY,
    )];
    let c = [claude("# Rules\n- Run the unit tests before every commit\n", DAY)];
    let p = run(&m, &c, false);
    assert_eq!(kinds(&p), [(Kind::Remove, "a.md", None)]);
    assert_eq!(p[0].evidence[1].line, 2);
    assert!(p[0].reason.contains("≥ 0.70"), "{}", p[0].reason);
}

#[test]
fn update_when_commands_differ_and_newer_side_named() {
    let m = [mem(
        "a.md",
        "feedback",
        "a",
        "tests",
        "Run `bun test` before pushing changes.",
        50.0 * DAY,
    )];
    let c = [claude("- Run `npm test` before pushing to main\n", DAY)];
    let p = run(&m, &c, false);
    assert_eq!(kinds(&p), [(Kind::Update, "a.md", Some("CLAUDE.md"))]);
    assert!(
        p[0].reason.contains("`bun`") && p[0].reason.contains("`npm`"),
        "{}",
        p[0].reason
    );
    // Same command on both sides: no update (the line says it: a removal).
    let m = [mem(
        "a.md",
        "feedback",
        "a",
        "tests",
        "Run `npm test` before pushing changes upstream to GitHub.",
        50.0 * DAY,
    )];
    assert_eq!(kinds(&run(&m, &c, false)), [(Kind::Remove, "a.md", None)]);
}

#[test]
fn promotions_by_type_and_topic() {
    let m = [
        mem(
            "b.md",
            "feedback",
            "b",
            "how to open PRs",
            "Open a draft PR first.",
            DAY,
        ),
        mem("e.md", "feedback", "e", "editor", "The user edits in vim.", DAY),
        mem("p.md", "project", "p", "release", "Releases are cut on Fridays.", DAY),
        mem("u.md", "user", "u", "who", "Senior Go developer.", DAY),
        mem(
            "r.md",
            "reference",
            "r",
            "dashboards",
            "Grafana board for the tests.",
            DAY,
        ),
    ];
    let p = run(&m, &[], false);
    assert_eq!(
        kinds(&p),
        [
            (Kind::Promote, "p.md", Some("CLAUDE.md")),
            (Kind::Promote, "u.md", Some("CLAUDE.local.md")),
            (Kind::Ambiguous, "b.md", None),
        ]
    );
    // The ambiguous one's action names its own number.
    assert!(
        p[2].action.contains("3=claude, 3=local to") && !p[2].action.contains("N="),
        "{}",
        p[2].action
    );
    // With a team dir, the project convention goes to team/.
    let p = run(&m, &[], true);
    assert_eq!(p[0].target.as_deref(), Some("team/"));
}

#[test]
fn merge_keeps_the_newest() {
    let m = [
        mem("x.md", "project", "deploy notes", "how deploys run", "Old text.", DAY),
        mem("y.md", "project", "deploy notes", "deploys", "New text.", 2.0 * DAY),
    ];
    let p: Vec<Proposal> = run(&m, &[], false)
        .into_iter()
        .filter(|p| p.kind == Kind::Merge)
        .collect();
    // The memory folded in, and the one kept as the target.
    assert_eq!(kinds(&p), [(Kind::Merge, "x.md", Some("y.md"))]);
    assert_eq!(p[0].detail.others, ["x.md"]);
}

#[test]
fn conflict_between_private_feedback_and_team() {
    let m = [
        mem(
            "a.md",
            "feedback",
            "a",
            "lint",
            "Format Python code with `black` before review.",
            DAY,
        ),
        mem(
            "team/t.md",
            "feedback",
            "t",
            "lint",
            "Format Python code with `ruff` before review.",
            DAY,
        ),
    ];
    let p: Vec<Proposal> = run(&m, &[], true)
        .into_iter()
        .filter(|p| p.kind == Kind::Conflict)
        .collect();
    assert_eq!(kinds(&p), [(Kind::Conflict, "a.md", None)]);
    let m = [
        mem(
            "a.md",
            "feedback",
            "a",
            "lint",
            "Format Python code with `ruff` before review.",
            DAY,
        ),
        mem(
            "team/t.md",
            "feedback",
            "t",
            "lint",
            "Format Python code with `ruff` before review.",
            DAY,
        ),
    ];
    assert!(run(&m, &[], true).iter().all(|p| p.kind != Kind::Conflict));
}

#[test]
fn numbering_is_stable_and_ordered() {
    let m = [
        mem("z.md", "user", "z", "style", "Likes short replies.", DAY),
        mem("a.md", "user", "a", "background", "Writes Rust.", DAY),
    ];
    let p = run(&m, &[], false);
    let got: Vec<(usize, &str)> = p.iter().map(|p| (p.n, p.memory.as_str())).collect();
    assert_eq!(got, [(1, "a.md"), (2, "z.md")]);
}

#[test]
fn a_newer_memory_naming_another_command_is_an_update_never_a_remove() {
    // SPEC §12's own example: the lines share most words (similarity ≥ 0.6) but
    // name different commands; forgetting the memory would lose the correction.
    let m = [mem(
        "testing.md",
        "feedback",
        "testing",
        "how to test",
        "Run `bun test` before committing changes to the repository.\n\n**Why:** the project moved from npm to bun.",
        50.0 * DAY,
    )];
    let c = [claude(
        "# Rules\n- Run `npm test` before committing changes to the repository.\n",
        DAY,
    )];
    let p = run(&m, &c, false);
    assert_eq!(kinds(&p), [(Kind::Update, "testing.md", Some("CLAUDE.md"))]);
    assert!(p[0].score.unwrap() >= THRESHOLDS.related, "{:?}", p[0].score);
}
