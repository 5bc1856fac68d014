//! The projects a command moves by identity (SPEC §11.1): the current one (named
//! by its identity or `--as`), or every project with memories and an identity.
//! `export` and `sync` both choose their projects here.

use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::error::{Error, Kind};
use crate::ops::export::Source;
use crate::output::Output;
use crate::projects::each;

/// The project of the current dir (or `--dir`/`--project`), named by its identity
/// or `--as`.
/// With `require_dir`, a project without a memory dir yet is `not_found`.
pub fn one(ctx: &Context, as_id: Option<&str>, require_dir: bool) -> Result<Source, Error> {
    let res = ctx.resolve_existing()?;
    let main = res.memdir.main().to_path_buf();
    if require_dir && !main.is_dir() {
        return Err(Error::new(
            Kind::NotFound,
            format!("no memory dir: {}", crate::paths::with_sep(&main)),
        )
        .hint("`memctl projects` lists the memory dirs of this machine"));
    }
    let identity = match as_id {
        Some(id) => id.to_string(),
        None => {
            let store = crate::history::store_path(&ctx.history, &main).filter(|s| s.join("HEAD").is_file());
            res.project
                .as_ref()
                .and_then(|p| crate::identity::of_project(Path::new(&p.canonical_root), store.as_deref()))
                .map(|i| i.id)
                .ok_or_else(|| {
                    Error::new(
                        Kind::InvalidInput,
                        "this project has no identity (no git remote `origin`, no commit)",
                    )
                    .hint("name it with `--as ID`, the same ID on every machine")
                })?
        }
    };
    check_identity(&identity)?;
    Ok(Source {
        identity,
        key: key_of(&main),
        project_path: res.project.as_ref().map(|p| PathBuf::from(&p.root)),
        memory_dir: main,
        team: false,
    })
}

/// Every project with memories that has an identity; the others are named in a warning.
/// `command` is `export` or `sync`: the warnings name it, and tell how to run it
/// on the project alone. With `--team` (SPEC v3 §3.14) each project's team dir
/// alone, under the project's identity; projects without one are skipped and
/// counted.
pub fn all(ctx: &Context, out: &mut Output, command: &str) -> Result<Vec<Source>, Error> {
    let team = ctx.request.team;
    let mut sources: Vec<Source> = Vec::new();
    let (done, alone) = match command {
        "sync" => ("synced", "sync it alone with `memctl --dir {} sync --as ID`"),
        _ => (
            "exported",
            "export it alone with `memctl --dir {} export --as ID -o FILE`",
        ),
    };
    for row in each::rows_for(ctx, out, team)? {
        let identity = row.identity_now();
        let Some(identity) = identity.filter(|i| check_identity(i).is_ok()) else {
            out.warn(format!(
                "{} has no identity: not {done} ({})",
                row.name(),
                alone.replace("{}", &row.memory_dir.display().to_string())
            ));
            continue;
        };
        if sources.iter().any(|s| s.identity == identity) {
            out.warn(format!(
                "{} has the identity {identity} of a project already {done}: not {done} (`memctl projects merge` joins them)",
                row.name()
            ));
            continue;
        }
        sources.push(Source {
            identity,
            key: row.key.clone(),
            project_path: row.project_path.clone(),
            memory_dir: row.memory_dir.clone(),
            team,
        });
    }
    Ok(sources)
}

pub fn check_identity(id: &str) -> Result<(), Error> {
    let dir = crate::bundle::member_dir(id);
    if id.is_empty() || !crate::bundle::safe_path(&dir) || id.contains("__") {
        return Err(
            Error::new(Kind::Usage, format!("not a usable identity: {}", id.escape_debug()))
                .hint("an identity is like `github.com/alice/app`: no `..`, `__`, empty parts or control characters"),
        );
    }
    Ok(())
}

/// The key when the memory dir is `<config home>/projects/<key>/memory`.
pub fn key_of(main: &Path) -> Option<String> {
    let key_dir = main.parent()?;
    (main.file_name()? == "memory" && key_dir.parent()?.file_name()? == "projects")
        .then(|| key_dir.file_name()?.to_str().map(str::to_string))
        .flatten()
}
