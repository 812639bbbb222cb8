// One run of apy in a Web Worker, so the page stays responsive while a program runs and
// Stop can end it (the page terminates the worker). book/web.sh joins the glue (apy.js) and
// this file into apy-worker-source.js, from which the page (apy-load.js) makes each worker
// in memory. The page sends either {type: 'load', url} (the first worker: it fetches and
// compiles apy_bg.wasm itself, and sends the page the compiled module, {type: 'module'}) or
// {type: 'init', module} (a later worker: the module the first one compiled; or `error`,
// why there is none), and one {type: 'run', source, options}, which may come before the
// module is ready: it runs once the instance is. The worker answers 'ready' (with when its
// script started and when it was ready, and the milliseconds instantiating took), then an
// 'output' message for each piece the program writes ({stream, time, text}: time is
// virtual seconds since the start, as src/web.rs reports it) and 'done' with the exit
// status, or 'crash' when apy could not be loaded or the wasm module itself failed (out of
// memory, a native stack overflow). One run per worker: each gets a fresh instance of the
// module. Times sent to the page are milliseconds since the epoch (performance.timeOrigin
// + now()), for its timing marks.
const now = () => performance.timeOrigin + performance.now();
const started = now();

// The first worker's module, compiled as it downloads (should that fail, for a server that
// does not say `application/wasm`, compiled once downloaded), and sent to the page.
function load(url) {
    return WebAssembly.compileStreaming(fetch(url, { priority: 'high' })).catch(() => fetch(url).then((response) => {
        if (!response.ok) {
            throw new Error(`${response.url} is missing (build it: bash book/web.sh)`);
        }
        return response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes));
    })).then((module) => {
        const download = performance.getEntriesByType('resource').find((r) => r.name.endsWith('/apy_bg.wasm'));
        postMessage({
            type: 'module',
            module,
            compiled: now(),
            fetchStart: download ? performance.timeOrigin + download.fetchStart : null,
            responseEnd: download ? performance.timeOrigin + download.responseEnd : null,
        });
        return module;
    });
}

let ready = null;
let pending = null;

function instantiate(module) {
    const start = performance.now();
    wasm_bindgen.initSync({ module });
    postMessage({ type: 'ready', started, ready: now(), instantiate: performance.now() - start });
}

function run(message) {
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

onmessage = (event) => {
    const message = event.data;
    if (message.type === 'load' || message.type === 'init') {
        let module;
        if (message.type === 'load') {
            module = load(message.url);
        } else if (message.error === undefined) {
            module = Promise.resolve(message.module);
        } else {
            module = Promise.reject(new Error(message.error));
        }
        ready = module.then(instantiate);
        ready.then(() => {
            if (pending) {
                run(pending);
            }
        }, (error) => postMessage({ type: 'crash', message: `apy could not be loaded: ${error.message}` }));
    } else if (message.type === 'run') {
        if (ready === null) {
            pending = message;
        } else {
            // The run waits for the instance (had that failed, the crash was sent already).
            ready.then(() => run(message), () => {});
        }
    }
};
