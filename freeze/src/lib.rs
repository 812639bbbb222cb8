//! apy's lower layers (`common`, `syntax`, `compile`) built a second time, for the build
//! machine, from the very same source files (`#[path]`), so that apy's `build.rs` can compile
//! the library written in apy (`src/asyncio/lib`, `src/stdlib`) ahead of time. The binary
//! then carries each file's code objects (`compile::frozen`) and `import asyncio` does not
//! parse and compile some 10,000 lines on every run, as CPython's frozen modules spare it.
//!
//! Nothing is written here but this file: the layers are apy's own.

// Only part of each layer is used from here (the rest serves the VM above them).
#![allow(dead_code, unused_imports)]

#[path = "../../src/common/mod.rs"]
pub mod common;
#[path = "../../src/compile/mod.rs"]
pub mod compile;
#[path = "../../src/syntax/mod.rs"]
pub mod syntax;

/// The frozen form of one library file: its module code compiled as `import` compiles it
/// (file name `<frozen>`: the loader puts the real one back), or the compile error.
pub fn freeze_file(text: &str) -> Result<Vec<u8>, String> {
    let module = syntax::parse_module(text).map_err(|e| format!("{e:?}"))?;
    let code = compile::compile_module(
        &module,
        text,
        compile::frozen::FILENAME,
        compile::Mode::Exec,
    )
    .map_err(|e| format!("{e:?}"))?;
    Ok(compile::frozen::freeze(&code))
}
