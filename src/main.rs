use std::process::ExitCode;

use clap::Parser;
use memctl::cli::Cli;

fn main() -> ExitCode {
    let json_arg = std::env::args_os().any(|a| a == "--json");
    memctl::install_panic_hook(json_arg);
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match memctl::usage_error(&e) {
            Some(err) => return memctl::print_error(&err, json_arg),
            None => e.exit(),
        },
    };
    let json = memctl::wants_json(&cli);
    match memctl::run(cli) {
        Ok(code) => code,
        Err(err) if memctl::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => memctl::report(&err, json),
    }
}
