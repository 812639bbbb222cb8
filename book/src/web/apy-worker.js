// One run of apy in a Web Worker, so the page stays responsive while a program runs and
// Stop can end it (the page terminates the worker). The page sends {type: 'init', module}
// (the compiled apy_bg.wasm) and then one {type: 'run', source, options}; the worker answers
// 'ready' (with the milliseconds instantiating took), then an 'output' message for each
// piece the program writes ({stream, time, text}: time is virtual seconds since the start,
// as src/web.rs reports it) and 'done' with the exit status, or 'crash' when the wasm module itself failed (out of memory, a native stack
// overflow). One run per worker: each gets a fresh instance of the module. The page makes
// the worker from apy.js and this file joined in memory (so a run needs no network once the
// page has loaded); on its own, the worker loads apy.js itself.
if (typeof wasm_bindgen === 'undefined') {
    importScripts('apy.js');
}

onmessage = (event) => {
    const message = event.data;
    if (message.type === 'init') {
        try {
            const start = performance.now();
            wasm_bindgen.initSync({ module: message.module });
            postMessage({ type: 'ready', instantiate: performance.now() - start });
        } catch (error) {
            postMessage({ type: 'crash', message: String(error) });
        }
        return;
    }
    if (message.type === 'run') {
        let time = 0;
        const options = Object.assign({}, message.options, {
            output(stream, at, text) {
                time = at;
                postMessage({ type: 'output', stream, time: at, text });
            },
        });
        try {
            const status = wasm_bindgen.run(message.source, options);
            postMessage({ type: 'done', status, time });
        } catch (error) {
            postMessage({ type: 'crash', message: String(error), time });
        }
    }
};
