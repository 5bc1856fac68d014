//! The tools `memctl mcp` offers (SPEC v3 §13): their names, descriptions and
//! input schemas, and the one read-only command line each call stands for.
//!
//! Pure: a tool call's arguments in, a [`Command`] (or the reason the arguments
//! are refused) out. Only commands that read are built here: `search`, `show`
//! (never `--raw`), `list --format json`, `truncate-check` on the resolved
//! MEMORY.md (never a path or standard input, which is the MCP transport) and
//! `lint` (never `--fix`).

use serde_json::{Map, Value, json};

use crate::cli::{Command, LintArgs, ListArgs, ListFormat, MinSeverity, SearchArgs, ShowArgs, TruncateCheckArgs};

/// Longest `query` a search accepts, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;
/// Longest memory reference `show` accepts, in characters.
pub const MAX_REF_CHARS: usize = 1024;
/// Most results a search returns.
pub const MAX_LIMIT: u64 = 200;
/// Most entries in a `types` array (there are five types).
pub const MAX_TYPES: usize = 5;

/// One tool: its name, what the model reads about it, and its arguments' schema.
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub schema: fn() -> Value,
}

/// Every tool, in the order `tools/list` gives them.
pub const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "search",
        title: "Search memories",
        description: "Search Claude Code's auto memory by words (every word must match the start of a word; \
            case-insensitive, accents folded). Searches this project's memory dir, or every project's with \
            all_projects. Returns `memctl search --json`: results ranked name, description, then body, each \
            with its file, name, type, best line and score.",
        schema: search_schema,
    },
    ToolDef {
        name: "show",
        title: "Show one memory",
        description: "Show one memory of this project by relative path, file stem or frontmatter name. Returns \
            `memctl show --json`: its file, frontmatter, body, age and whether MEMORY.md indexes it.",
        schema: show_schema,
    },
    ToolDef {
        name: "list",
        title: "List memories",
        description: "List this project's memories (or every project's with all_projects) in the order Claude \
            Code scans them, with type, name, description, age and whether each is in the manifest Claude \
            Code shows. Returns `memctl list --json`.",
        schema: list_schema,
    },
    ToolDef {
        name: "truncate_check",
        title: "What Claude Code loads from MEMORY.md",
        description: "Report exactly what Claude Code loads from this project's MEMORY.md (or every project's \
            with all_projects) and what it drops: lines and UTF-16 units against the 200-line and 25 000-unit \
            caps, the first dropped line, and the entries lost. Returns `memctl truncate-check --json`.",
        schema: truncate_check_schema,
    },
    ToolDef {
        name: "lint",
        title: "Lint memory",
        description: "Check this project's memory dir (or every project's with all_projects) for what makes \
            Claude Code lose or misread memories. Returns `memctl lint --json`: a summary of counts by \
            severity and the findings (rule, severity, file, line, message). Never fixes anything.",
        schema: lint_schema,
    },
];

/// The tool named `name`.
pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn all_projects_property() -> Value {
    json!({"type": "boolean", "default": false, "description": "Every project's memory dir (see `memctl projects`) instead of this project's"})
}

fn types_property() -> Value {
    json!({
        "type": "array",
        "items": {"type": "string", "enum": ["user", "feedback", "project", "reference", "none"]},
        "maxItems": MAX_TYPES,
        "description": "Only memories of these types (none: no or an unknown type)",
    })
}

fn search_schema() -> Value {
    object(
        json!({
            "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS, "description": "The words to find"},
            "all_projects": all_projects_property(),
            "types": types_property(),
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 20, "description": "At most this many results"},
        }),
        &["query"],
    )
}

fn show_schema() -> Value {
    object(
        json!({
            "ref": {"type": "string", "minLength": 1, "maxLength": MAX_REF_CHARS, "description": "The memory: relative path (feedback_tests.md), file stem or frontmatter name"},
        }),
        &["ref"],
    )
}

fn list_schema() -> Value {
    object(
        json!({
            "all_projects": all_projects_property(),
            "types": types_property(),
            "all": {"type": "boolean", "default": false, "description": "Lift Claude Code's 200-file cap"},
        }),
        &[],
    )
}

fn truncate_check_schema() -> Value {
    object(json!({"all_projects": all_projects_property()}), &[])
}

fn lint_schema() -> Value {
    object(
        json!({
            "all_projects": all_projects_property(),
            "min_severity": {"type": "string", "enum": ["error", "warning", "info"], "default": "info", "description": "Hide findings below this severity"},
        }),
        &[],
    )
}

/// Why a call's arguments were refused: a sentence naming the argument.
#[derive(Debug, PartialEq, Eq)]
pub struct Refused(pub String);

/// The read-only command a call of `tool` with `args` runs.
pub fn command(tool: &ToolDef, args: &Map<String, Value>) -> Result<Command, Refused> {
    let a = Args::new(tool, args)?;
    Ok(match tool.name {
        "search" => Command::Search(SearchArgs {
            query: vec![a.string("query", MAX_QUERY_CHARS)?.ok_or_else(|| a.missing("query"))?],
            all_projects: a.flag("all_projects")?,
            types: a.types()?,
            limit: a.limit()?,
        }),
        "show" => Command::Show(ShowArgs {
            reference: a.string("ref", MAX_REF_CHARS)?.ok_or_else(|| a.missing("ref"))?,
            raw: false,
        }),
        "list" => Command::List(ListArgs {
            types: a.types()?,
            format: Some(ListFormat::Json),
            all: a.flag("all")?,
            all_projects: a.flag("all_projects")?,
            null: false,
        }),
        "truncate_check" => Command::TruncateCheck(TruncateCheckArgs {
            path: None,
            print_loaded: false,
            warn_at: None,
            all_projects: a.flag("all_projects")?,
        }),
        "lint" => Command::Lint(lint_args(a.flag("all_projects")?, a.min_severity()?)),
        other => return Err(Refused(format!("unknown tool `{other}`"))),
    })
}

fn lint_args(all_projects: bool, min_severity: MinSeverity) -> LintArgs {
    LintArgs {
        format: None,
        list_rules: false,
        explain: None,
        summary: false,
        strict: false,
        fix: false,
        dry_run: false,
        rules: Vec::new(),
        disable: Vec::new(),
        min_severity,
        warn_at: 90.0,
        force: false,
        all_projects,
    }
}

/// A call's arguments, checked against the tool's schema's property names.
struct Args<'a> {
    tool: &'static str,
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    fn new(tool: &ToolDef, map: &'a Map<String, Value>) -> Result<Args<'a>, Refused> {
        let schema = (tool.schema)();
        let known = schema["properties"].as_object();
        if let Some(k) = map.keys().find(|k| known.is_none_or(|p| !p.contains_key(k.as_str()))) {
            let names: Vec<&str> = known
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let expected = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            return Err(Refused(format!(
                "{}: unknown argument `{}` (arguments: {expected})",
                tool.name,
                cut(k)
            )));
        }
        Ok(Args { tool: tool.name, map })
    }

    fn missing(&self, name: &str) -> Refused {
        Refused(format!("{}: missing argument `{name}`", self.tool))
    }

    fn wrong(&self, name: &str, expected: &str) -> Refused {
        Refused(format!("{}: `{name}` must be {expected}", self.tool))
    }

    fn string(&self, name: &str, max: usize) -> Result<Option<String>, Refused> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Err(self.wrong(name, "a non-empty string")),
            Some(Value::String(s)) if s.chars().count() > max => {
                Err(self.wrong(name, &format!("at most {max} characters")))
            }
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.wrong(name, "a string")),
        }
    }

    fn flag(&self, name: &str) -> Result<bool, Refused> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.wrong(name, "true or false")),
        }
    }

    fn types(&self) -> Result<Vec<String>, Refused> {
        let items = match self.map.get("types") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(items)) if items.len() <= MAX_TYPES => items,
            Some(_) => return Err(self.wrong("types", &format!("an array of at most {MAX_TYPES} type names"))),
        };
        items
            .iter()
            .map(|t| match t {
                Value::String(s) if matches!(s.as_str(), "user" | "feedback" | "project" | "reference" | "none") => {
                    Ok(s.clone())
                }
                _ => Err(self.wrong("types", "type names: user, feedback, project, reference, none")),
            })
            .collect()
    }

    fn limit(&self) -> Result<usize, Refused> {
        match self.map.get("limit") {
            None | Some(Value::Null) => Ok(20),
            Some(v) => match v.as_u64() {
                Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n as usize),
                _ => Err(self.wrong("limit", &format!("an integer from 1 to {MAX_LIMIT}"))),
            },
        }
    }

    fn min_severity(&self) -> Result<MinSeverity, Refused> {
        match self.map.get("min_severity").map(|v| v.as_str()) {
            None => Ok(MinSeverity::Info),
            Some(Some("error")) => Ok(MinSeverity::Error),
            Some(Some("warning")) => Ok(MinSeverity::Warning),
            Some(Some("info")) => Ok(MinSeverity::Info),
            Some(_) => Err(self.wrong("min_severity", "one of error, warning, info")),
        }
    }
}

/// A name from the caller, cut for an error message.
fn cut(s: &str) -> String {
    crate::output::fit_end(s, 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &str, args: Value) -> Result<Command, Refused> {
        let Value::Object(map) = args else {
            panic!("args must be an object")
        };
        command(find(tool).expect("tool"), &map)
    }

    #[test]
    fn every_tool_has_an_object_schema_without_extra_properties() {
        for t in TOOLS {
            let s = (t.schema)();
            assert_eq!(s["type"], "object", "{}", t.name);
            assert_eq!(s["additionalProperties"], false, "{}", t.name);
        }
    }

    #[test]
    fn search_builds_the_read_only_search_command() {
        let Ok(Command::Search(a)) = call(
            "search",
            json!({"query": "deploy freeze", "all_projects": true, "types": ["feedback"], "limit": 5}),
        ) else {
            panic!("not a search")
        };
        assert_eq!(a.query, ["deploy freeze"]);
        assert!(a.all_projects);
        assert_eq!(a.types, ["feedback"]);
        assert_eq!(a.limit, 5);
    }

    #[test]
    fn search_limit_defaults_to_20_and_is_bounded() {
        let Ok(Command::Search(a)) = call("search", json!({"query": "x"})) else {
            panic!()
        };
        assert_eq!(a.limit, 20);
        assert_eq!(
            call("search", json!({"query": "x", "limit": 0})).unwrap_err(),
            Refused("search: `limit` must be an integer from 1 to 200".into())
        );
        assert!(call("search", json!({"query": "x", "limit": 201})).is_err());
        assert!(call("search", json!({"query": "x", "limit": -1})).is_err());
        assert!(call("search", json!({"query": "x", "limit": 1.5})).is_err());
    }

    #[test]
    fn oversized_or_missing_strings_are_refused() {
        let long = "a".repeat(MAX_QUERY_CHARS + 1);
        assert_eq!(
            call("search", json!({"query": long})).unwrap_err(),
            Refused("search: `query` must be at most 1000 characters".into())
        );
        assert_eq!(
            call("search", json!({})).unwrap_err(),
            Refused("search: missing argument `query`".into())
        );
        assert_eq!(
            call("show", json!({"ref": 7})).unwrap_err(),
            Refused("show: `ref` must be a string".into())
        );
        assert!(call("show", json!({"ref": "x".repeat(MAX_REF_CHARS + 1)})).is_err());
    }

    #[test]
    fn unknown_arguments_are_refused_with_the_known_ones() {
        assert_eq!(
            call("show", json!({"ref": "a", "raw": true})).unwrap_err(),
            Refused("show: unknown argument `raw` (arguments: ref)".into())
        );
        assert_eq!(
            call("truncate_check", json!({"path": "-"})).unwrap_err(),
            Refused("truncate_check: unknown argument `path` (arguments: all_projects)".into())
        );
        assert!(call("lint", json!({"fix": true})).is_err());
    }

    #[test]
    fn no_tool_builds_a_writing_or_stdin_reading_command() {
        let Ok(Command::Lint(l)) = call("lint", json!({"min_severity": "warning"})) else {
            panic!()
        };
        assert!(!l.fix && !l.dry_run && l.min_severity == MinSeverity::Warning);
        let Ok(Command::TruncateCheck(t)) = call("truncate_check", json!({})) else {
            panic!()
        };
        assert!(t.path.is_none() && !t.print_loaded);
        let Ok(Command::Show(s)) = call("show", json!({"ref": "a"})) else {
            panic!()
        };
        assert!(!s.raw);
        let Ok(Command::List(l)) = call("list", json!({"types": ["user", "none"]})) else {
            panic!()
        };
        assert_eq!(l.format, Some(ListFormat::Json));
        assert_eq!(l.types, ["user", "none"]);
    }

    #[test]
    fn bad_types_and_severities_are_refused() {
        assert!(call("list", json!({"types": ["secret"]})).is_err());
        assert!(call("list", json!({"types": "user"})).is_err());
        assert!(call("list", json!({"types": vec!["user"; 6]})).is_err());
        assert!(call("lint", json!({"min_severity": "fatal"})).is_err());
        assert!(call("list", json!({"all": "yes"})).is_err());
    }
}
