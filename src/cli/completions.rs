//! `memctl completions`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to print the script for
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Install bash completion for your user:
    memctl completions bash > ~/.local/share/bash-completion/completions/memctl
  Install zsh completion (with fpath+=(~/.zfunc) in ~/.zshrc):
    memctl completions zsh > ~/.zfunc/_memctl
  Install fish completion:
    memctl completions fish > ~/.config/fish/completions/memctl.fish";
