//! Where CPython's order follows memory addresses, apy picks one that is the same on every
//! run and in every build (natively and in a browser, whose addresses differ), so that a
//! lesson's output and its timeline do not change from one run to the next.

use std::process::Command;

/// `asyncio.run` cancels the tasks still pending at its end in the order they were made
/// (CPython: in the order of `all_tasks()`'s set, which follows their addresses).
#[test]
fn asyncio_run_cancels_leftover_tasks_in_the_order_they_were_made() {
    let program = "import asyncio\n\
                   async def handle(i):\n    try:\n        await asyncio.Event().wait()\n    \
                   except asyncio.CancelledError:\n        print(i, end=' ')\n        raise\n\
                   async def main():\n    for i in range(40):\n        \
                   asyncio.create_task(handle(i))\n    await asyncio.sleep(0)\n\
                   asyncio.run(main())\n";
    let output = Command::new(env!("CARGO_BIN_EXE_apy"))
        .args(["-c", program])
        .output()
        .expect("apy runs");
    let made: Vec<String> = (0..40).map(|i| i.to_string()).collect();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("{} ", made.join(" "))
    );
    assert_eq!(output.status.code(), Some(0));
}
