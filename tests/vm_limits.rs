//! The sandbox switches: an instruction budget and a wall-clock limit stop a program that
//! would run forever, even one that catches every exception, with a non-zero status.

use std::time::{Duration, Instant};

use apy::interp::{Error, SourceFile, run_with};
use apy::vm::Config;

fn source(text: &str) -> SourceFile {
    SourceFile {
        name: "limits.apy".into(),
        text: text.into(),
    }
}

const STUBBORN_LOOP: &str =
    "while True:\n    try:\n        pass\n    except BaseException:\n        pass\n";

#[test]
fn max_steps_stops_a_loop_that_catches_everything() {
    let config = Config {
        max_steps: Some(50_000),
        ..Config::default()
    };
    assert_eq!(
        run_with(&source(STUBBORN_LOOP), config),
        Err(Error::Exited(1))
    );
}

#[test]
fn time_limit_stops_an_endless_loop() {
    let started = Instant::now();
    let config = Config {
        time_limit: Some(Duration::from_millis(200)),
        ..Config::default()
    };
    assert_eq!(
        run_with(&source(STUBBORN_LOOP), config),
        Err(Error::Exited(1))
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_program_within_its_budget_finishes_normally() {
    let config = Config {
        max_steps: Some(1_000_000),
        ..Config::default()
    };
    assert_eq!(
        run_with(
            &source("total = 0\nfor i in range(100):\n    total += i\n"),
            config
        ),
        Ok(())
    );
}

#[test]
fn max_steps_counts_every_instruction_exactly() {
    // `x = 1` compiles to LOAD_CONST, STORE_NAME, RETURN_CONST (see `apy --dis`).
    let run = |max| {
        let config = Config {
            max_steps: Some(max),
            ..Config::default()
        };
        run_with(&source("x = 1\n"), config)
    };
    assert_eq!(run(3), Ok(()));
    assert_eq!(run(2), Err(Error::Exited(1)));
    assert_eq!(run(0), Err(Error::Exited(1)));
}
