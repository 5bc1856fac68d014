use std::process::ExitCode;

use clap::Parser;
use memctl::cli::Cli;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // The hidden dynamic-completion entry point the shell scripts call (SPEC §3.13).
    if args.get(1).is_some_and(|a| a == "__complete") {
        let words: Vec<String> = args[2..].iter().map(|a| a.to_string_lossy().into_owned()).collect();
        return ExitCode::from(memctl::complete::main(&words));
    }
    let json_arg = args.iter().any(|a| a == "--json");
    memctl::install_panic_hook(json_arg);
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => match memctl::usage_error(&e, &args) {
            Some(err) => return memctl::print_error(&err, json_arg),
            None => e.exit(),
        },
    };
    let json = memctl::wants_json(&cli);
    let policy = memctl::exit_policy(&cli);
    if policy != memctl::error::ExitPolicy::Standard {
        memctl::install_panic_hook_with(json_arg, policy);
    }
    match memctl::run(cli) {
        Ok(code) => code,
        Err(err) if memctl::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => memctl::report_with(&err, json, policy),
    }
}
