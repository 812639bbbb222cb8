//! What apy asks of the browser it runs in (built for `wasm32`, `src/web.rs`): the two
//! clocks and a random seed, the JavaScript functions wasm-bindgen imports. Everything else
//! an operating system gives a native apy (files, sockets, signals, the calendar of the C
//! library) a page does not have.

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`: monotonic milliseconds since the page (or worker) started.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    pub fn performance_now() -> f64;
    /// `Date.now()`: milliseconds since the epoch.
    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    pub fn date_now() -> f64;
    /// `Math.random()`: a float in [0, 1), to seed `random`.
    #[wasm_bindgen(js_namespace = Math, js_name = random)]
    pub fn math_random() -> f64;
}
