//! The `apy` binary: reads the command line and hands everything else to `cli`.

mod cli;

use clap::Parser;

/// The system allocator, counting the heap for `--max-memory` and ending apy with
/// `MemoryError` rather than an abort when memory runs out.
#[global_allocator]
static HEAP: apy::common::memory::Accounting = apy::common::memory::Accounting;

fn main() -> std::process::ExitCode {
    cli::main(cli::Cli::parse())
}
