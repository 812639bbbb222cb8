//! Generates the parser from `grammar/apy.lalrpop` into `OUT_DIR` (included by
//! `src/syntax/parser.rs`), and compiles the library written in apy (`src/asyncio/lib`,
//! `src/stdlib`) into `OUT_DIR/library.image` (read by `src/interp.rs`; the format is in
//! `src/compile/frozen.rs`), with apy's own compiler built for this machine (`freeze/`).

use std::path::Path;

fn main() {
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo:rerun-if-changed=grammar");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(&out_dir)
        .process()
        .expect("the grammar compiles");
    freeze_library(&Path::new(&out_dir).join("library.image"));
    link_at_a_fixed_address();
}

/// Links `apy` as a position-dependent executable on Linux. A PIE's loader first applies
/// some 6,800 relocations, writing into every page of the binary's tables of pointers
/// (vtables, the parser's tables): about 75 page faults, a tenth of a hello-asyncio run's.
fn link_at_a_fixed_address() {
    if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}

/// Library files the browser build leaves out (`src/stdlib/mod.rs` registers them only
/// natively): `sqlite3`, over a native core that needs the C library.
fn is_os_only(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("sqlite3"))
}

/// Compiles every `.apy` file of the library into one image. A file that does not compile
/// is left out with a warning: apy then compiles it when it is imported, and shows the error.
fn freeze_library(image: &Path) {
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "wasm32");
    let mut files = Vec::new();
    for dir in ["src/asyncio/lib", "src/stdlib"] {
        println!("cargo:rerun-if-changed={dir}");
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .expect("the library folder exists")
            .map(|entry| entry.expect("a readable folder").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "apy"))
            .filter(|path| !(wasm && is_os_only(path)))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).expect("a library file is UTF-8");
            match apy_freeze::freeze_file(&text) {
                Ok(code) => files.push((text, code)),
                Err(error) => println!("cargo:warning={} is not frozen: {error}", path.display()),
            }
        }
    }
    std::fs::write(image, apy_freeze::compile::frozen::image(&files)).expect("OUT_DIR is writable");
}
