//! Generates the parser from `grammar/apy.lalrpop` into `OUT_DIR` (included by `src/syntax/parser.rs`).

fn main() {
    println!("cargo:rerun-if-changed=grammar");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .process()
        .expect("the grammar compiles");
}
