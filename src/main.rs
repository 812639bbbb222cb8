//! The `apy` binary: reads the command line and hands everything else to `cli`.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    cli::main(cli::Cli::parse())
}
