//! The library image `build.rs` makes (`compile::frozen`) holds every file of the library
//! written in apy, and what it holds for a file is exactly what compiling the file gives.

use std::path::Path;

use apy::compile::{Mode, compile_module, frozen};
use apy::syntax::parse_module;

static LIBRARY_IMAGE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/library.image"));

#[test]
fn every_library_file_is_frozen_as_it_compiles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut checked = 0;
    for dir in ["asyncio/lib", "stdlib"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|ext| ext != "apy") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let name = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
            let thawed = frozen::thaw(LIBRARY_IMAGE, &text, &name)
                .unwrap_or_else(|| panic!("{name} is not in the library image"));
            let thawed = frozen::thaw_all(&thawed);
            let module = parse_module(&text).unwrap();
            let compiled = compile_module(&module, &text, &name, Mode::Exec).unwrap();
            assert!(
                thawed == compiled,
                "{name}: the frozen code differs from the compiled"
            );
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} library files were found");
}
