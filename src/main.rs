use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: apy FILE [ARGS...]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("apy: can't open file '{path}': {e}");
            return ExitCode::from(2);
        }
    };
    let config = apy::vm::Config {
        argv: args.clone(),
        ..Default::default()
    };
    let status = apy::interp::run(
        apy::interp::SourceFile {
            name: path.clone(),
            text,
        },
        config,
    );
    ExitCode::from(status as u8)
}
