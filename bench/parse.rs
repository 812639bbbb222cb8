//! How fast the front end is: parses a generated 10,000-line program (every statement
//! kind, f-strings, comprehensions, async forms) with `apy::syntax::parse_module` and prints
//! the best of 10 runs. Issue 2's bar is under 50 ms in a release build.
//!
//! `cargo bench --bench parse` (a benchmark, not a test: timings depend on the machine).

use std::time::{Duration, Instant};

const BLOCK: &str = r#"
class Shape{i}(Base, metaclass=Meta):
    """A generated class."""
    def __init__(self, w, h=2, *rest, scale=1.0, **extra):
        self.w, self.h = w, h
        self.items = [x * scale for x in rest if x % 2 == 0]

    async def area(self, unit="cm"):
        try:
            value = await compute(self.w * self.h ** 2 - (self.w // 3))
        except (ValueError, KeyError) as err:
            raise RuntimeError(f"bad {unit!r}: {err=} {value:>{width}.2f}") from err
        finally:
            done = {k: v for k, v in extra.items()}
        return value if value > 0 else -value

    def walk(self, n):
        while n > 0:
            n -= 1
            if n % 3 == 0 and not n & 1 or n in (1, 2, 3):
                total += sum(i for i in range(n)) + len("abc" "def")
            elif n < -1:
                continue
        return [*self.items, {**extra}, lambda a, /, b=1: a + b]
"#;

fn main() {
    let lines_per_block = BLOCK.lines().count();
    let source: String = (0..10_000 / lines_per_block + 1)
        .map(|i| BLOCK.replace("{i}", &i.to_string()))
        .collect();
    let mut best = Duration::MAX;
    for _ in 0..10 {
        let start = Instant::now();
        let module = apy::syntax::parse_module(&source).expect("the generated program parses");
        best = best.min(start.elapsed());
        assert!(!module.body.is_empty());
    }
    println!(
        "parse_module: {} lines in {:.1} ms (best of 10)",
        source.lines().count(),
        best.as_secs_f64() * 1000.0
    );
}
