//! An interpreter frees what it made when its run ends (`vm::teardown`), reference cycles
//! included: a process running program after program, as an embedder or the `run` fuzz
//! target does, keeps nothing of them. Counted by apy's own allocator, this test binary's
//! global one, which is why it is a binary of its own with a single test.

use apy::common::memory::{self, Accounting};
use apy::interp::{self, SourceFile};

#[global_allocator]
static HEAP: Accounting = Accounting;

/// Classes (each first in its own MRO), functions holding their module's namespace, a
/// method, a closure, an imported module, an exception caught with its traceback.
const PLAIN: &str = r#"
import functools
class Base:
    def method(self):
        return type(self).__name__
class Child(Base):
    pass
def outer(n):
    def inner():
        return n
    return inner
try:
    1 / 0
except ZeroDivisionError as e:
    caught = e
assert (Child().method(), outer(2)(), functools.reduce(lambda a, b: a + b, [1, 2])) == ("Child", 2, 3)
"#;

/// The event loop, tasks and their futures.
const ASYNC: &str = r#"
import asyncio
async def child(i):
    await asyncio.sleep(0.1)
    return i
async def main():
    async with asyncio.TaskGroup() as tg:
        tasks = [tg.create_task(child(i)) for i in range(3)]
    assert sum(t.result() for t in tasks) == 3
asyncio.run(main())
"#;

/// The bytes a run of `program` leaves in use, on average over a few runs after a first.
fn left_per_run(program: &str) -> isize {
    let source = SourceFile {
        name: "<teardown>".into(),
        text: program.into(),
    };
    let run = || {
        let config = apy::vm::Config {
            clock: apy::common::clock::ClockKind::Virtual,
            ..apy::vm::Config::default()
        };
        assert_eq!(interp::run_with(&source, config.into()), Ok(()));
    };
    // The first run makes what the process keeps for good (the program's thread's first
    // allocations in the system allocator's tables are not counted: nothing is counted
    // before the limit is set).
    run();
    memory::set_limit(1 << 40);
    const RUNS: isize = 10;
    for _ in 0..RUNS {
        run();
    }
    let left = memory::in_use() / RUNS;
    memory::set_limit(usize::MAX);
    left
}

#[test]
fn a_run_leaves_nothing_behind() {
    // Before the cycles were broken: some 500 KB a run, 1.3 MB with asyncio.
    for program in [PLAIN, ASYNC] {
        let left = left_per_run(program);
        assert!(
            left < 2_000,
            "{left} bytes left in use per run of {program}"
        );
    }
}
