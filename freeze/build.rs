//! Generates the parser from `../grammar/apy.lalrpop`, as apy's own build script does.

fn main() {
    println!("cargo:rerun-if-changed=../grammar");
    lalrpop::Configuration::new()
        .set_in_dir("../grammar")
        .set_out_dir(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .process()
        .expect("the grammar compiles");
}
