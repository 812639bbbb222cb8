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
        run_with(&source(STUBBORN_LOOP), config.into()),
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
        run_with(&source(STUBBORN_LOOP), config.into()),
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
            config.into()
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
        run_with(&source("x = 1\n"), config.into())
    };
    assert_eq!(run(3), Ok(()));
    assert_eq!(run(2), Err(Error::Exited(1)));
    assert_eq!(run(0), Err(Error::Exited(1)));
}

/// The smallest budget `text` finishes in.
fn steps_needed(text: &str) -> u64 {
    let finishes = |max| {
        let config = Config {
            max_steps: Some(max),
            ..Config::default()
        };
        run_with(&source(text), config.into()).is_ok()
    };
    (1..1000).find(|&max| finishes(max)).unwrap_or(0)
}

#[test]
fn max_steps_counts_the_instructions_a_fused_await_skips() {
    // `yield from g()` runs g's first step straight from the CALL, skipping
    // GET_YIELD_FROM_ITER, LOAD_CONST and SEND; they still count. As `apy --dis` lists
    // them: 9 module instructions to the FOR_ITER, f's LOAD_GLOBAL, CALL and the three
    // skipped, g's RETURN_CONST, f's END_SEND and RETURN_VALUE, the module's RETURN_CONST.
    let delegating = "def g():\n    return 1\n    yield\n\n\ndef f():\n    \
                      return (yield from g())\n\n\nfor _ in f():\n    pass\n";
    assert_eq!(steps_needed(delegating), 20);
    // `await T()` runs T.__await__'s first step from GET_AWAITABLE, skipping LOAD_CONST
    // and SEND: 42 steps, as when each instruction ran on its own.
    let awaiting = "class T:\n    def __await__(self):\n        return 1\n        yield\n\n\n\
                    async def f():\n    return await T()\n\n\n\
                    try:\n    f().send(None)\nexcept StopIteration:\n    pass\n";
    assert_eq!(steps_needed(awaiting), 42);
}

#[test]
fn max_steps_stops_an_endless_native_iterator() {
    // No instruction runs while list() drains count(): each __next__ counts as a step.
    let config = Config {
        max_steps: Some(50_000),
        ..Config::default()
    };
    let program = "import itertools\nlist(itertools.count())\n";
    assert_eq!(
        run_with(&source(program), config.into()),
        Err(Error::Exited(1))
    );
}

#[test]
fn time_limit_stops_an_endless_native_iterator() {
    let started = Instant::now();
    let config = Config {
        time_limit: Some(Duration::from_millis(200)),
        ..Config::default()
    };
    let program = "import itertools\nsum(itertools.repeat(0))\n";
    assert_eq!(
        run_with(&source(program), config.into()),
        Err(Error::Exited(1))
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}
