// Loads apy for the page (README.md, "apy in the browser"). The page's head runs this
// (book/theme/head.hbs), so the WebAssembly module is fetched and compiled, and the first
// worker started, while the page itself is still loading: the first Run finds apy ready.
// apy-book.js takes the workers: `apyLoad.takeWorker()` gives a promise of a worker with a
// fresh instance of the module, ready for one run (apy-worker.js), and starts the next;
// `apyLoad.discard()` ends the waiting one on a page that runs nothing.
// The marks `apy-compiled` and `apy-worker-ready` (its detail: how long instantiating the
// module took in the worker) time the first load; tests/browser/ reports them.
(function () {
    'use strict';

    const base = new URL('.', document.currentScript.src);

    // Compiled as it downloads, from the page's first lines (head.hbs); should that fail (a
    // server that does not say `application/wasm`, a missing file), fetched again here and
    // compiled once downloaded, or the reason.
    const early = window.apyEarlyModule || Promise.reject(new Error('not started'));
    const modulePromise = early.catch(() => fetch(new URL('apy_bg.wasm', base)).then((response) => {
        if (!response.ok) {
            throw new Error(`${response.url} is missing (build it: bash book/web.sh)`);
        }
        return response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes));
    })).then((module) => {
        performance.mark('apy-compiled');
        return module;
    });
    modulePromise.catch(() => {});

    // The worker's script: the glue (apy.js) and apy-worker.js, fetched once and joined in
    // memory, so that once the page has loaded, runs need nothing from the network.
    const text = (name) => fetch(new URL(name, base)).then((response) => {
        if (!response.ok) {
            throw new Error(`${name} is missing (build it: bash book/web.sh)`);
        }
        return response.text();
    });
    const scriptPromise = Promise.all([text('apy.js'), text('apy-worker.js')]).then((parts) =>
        URL.createObjectURL(new Blob([parts.join('\n')], { type: 'text/javascript' })));
    scriptPromise.catch(() => {});

    // A worker with a fresh instance of the module, ready for one run. The worker starts
    // while the module compiles.
    function newWorker() {
        return scriptPromise.then((script) => {
            const worker = new Worker(script);
            const ready = new Promise((resolve, reject) => {
                worker.onmessage = (event) => {
                    if (event.data.type === 'ready') {
                        if (performance.getEntriesByName('apy-worker-ready').length === 0) {
                            performance.mark('apy-worker-ready', { detail: event.data.instantiate });
                        }
                        resolve(worker);
                    } else {
                        reject(new Error(event.data.message));
                    }
                };
                worker.onerror = (event) => {
                    reject(new Error(event.message || 'the worker failed to start'));
                };
            });
            modulePromise.then((module) => worker.postMessage({ type: 'init', module }), () => {});
            return Promise.all([modulePromise, ready]).then(() => worker, (error) => {
                worker.terminate();
                throw error;
            });
        });
    }

    // One worker is kept waiting, so that Run shows output at once.
    let spare = null;
    function prepare() {
        spare = newWorker();
        spare.catch(() => { spare = null; });
    }
    prepare();

    window.apyLoad = {
        takeWorker() {
            const worker = spare || newWorker();
            prepare();
            return worker;
        },
        discard() {
            if (spare) {
                spare.then((worker) => worker.terminate(), () => {});
                spare = null;
            }
        },
    };
})();
