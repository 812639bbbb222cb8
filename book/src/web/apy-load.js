// Loads apy for the page (README.md, "apy in the browser"). The page's head runs this
// (book/theme/head.hbs), so that apy loads while the page itself still does (its scripts,
// styles and fonts, until DOMContentLoaded): the first worker starts at once, from a
// script in memory, and fetches, compiles and instantiates the WebAssembly module on its
// own thread, so that nothing on the way to the first output waits for the page's busy
// main thread. It sends the compiled module back, and each later worker gets it from the
// page: each run has a fresh worker (apy-worker.js) with a fresh instance.
// apy-book.js takes the workers: `apyLoad.takeWorker()` gives a promise of a worker (the
// one waiting, or a new one), to which the page posts its one run at once: the worker
// runs it as soon as its instance is ready. A worker that could not load apy answers
// 'crash' (and `worker.apyCrash` holds why, for a page that takes it after the fact).
// `apyLoad.discard()` ends the waiting one on a page that runs nothing.
// The marks `apy-compiled` (its detail: when the download of the module started and
// ended), `apy-worker-ready` (its detail: when the worker's script started, and how long
// instantiating took) and `apy-warm` (the warm-up's end, when no run was waiting; its
// detail: how many of its steps ran), at the times these happened in the worker, time the first
// load; tests/browser/ reports them.
(function () {
    'use strict';

    const base = new URL('.', document.currentScript.src);
    const url = new URL('apy_bg.wasm', base);
    // A time of the worker's (milliseconds since the epoch) on the page's clock.
    const pageTime = (at) => at - performance.timeOrigin;

    // The workers' script: the glue (apy.js) and apy-worker.js, joined by book/web.sh into
    // apy-worker-source.js, which the head loads just before this: a worker starts without
    // a request (a worker's own script would wait behind the page's styles and fonts), and
    // once the page has loaded, runs need nothing from the network.
    const script = window.apyWorkerSource === undefined ? null
        : URL.createObjectURL(new Blob([window.apyWorkerSource], { type: 'text/javascript' }));

    // The compiled module, from the first worker.
    let gotModule;
    let noModule;
    let moduleArrived = false;
    const modulePromise = new Promise((resolve, reject) => {
        gotModule = resolve;
        noModule = reject;
    });
    modulePromise.then(() => { moduleArrived = true; }, () => {});

    // A worker, and what it says before its run: the module (the first worker), 'ready',
    // or 'crash' when it could not load apy.
    function startWorker(first) {
        const worker = new Worker(script, first ? { name: url.href } : {});
        const failed = (why) => {
            if (worker.apyCrash === undefined) {
                worker.apyCrash = why;
                if (first) {
                    noModule(new Error(why));
                }
            }
        };
        worker.addEventListener('message', (event) => {
            const message = event.data;
            if (message.type === 'module') {
                performance.mark('apy-compiled', {
                    startTime: pageTime(message.compiled),
                    detail: { fetchStart: pageTime(message.fetchStart), responseEnd: pageTime(message.responseEnd) },
                });
                gotModule(message.module);
            } else if (message.type === 'ready' && performance.getEntriesByName('apy-worker-ready').length === 0) {
                performance.mark('apy-worker-ready', {
                    startTime: pageTime(message.ready),
                    detail: { started: pageTime(message.started), instantiate: message.instantiate },
                });
            } else if (message.type === 'warm') {
                performance.mark('apy-warm', { startTime: pageTime(message.warm), detail: message.steps });
            } else if (message.type === 'crash') {
                failed(message.message);
            }
        });
        worker.addEventListener('error', (event) => {
            failed(`apy could not be loaded: ${event.message || 'its worker failed to start'}`);
        });
        return worker;
    }

    // The first worker, named by the module's URL, fetches the module and compiles it as
    // it downloads. Should it be stopped before it has sent the module (Stop, at once),
    // the page compiles the module.
    function firstWorker() {
        const worker = startWorker(true);
        const terminate = worker.terminate.bind(worker);
        worker.apyEnd = terminate;
        worker.terminate = () => {
            terminate();
            if (!moduleArrived) {
                gotModule(fetch(url)
                    .then((response) => response.arrayBuffer())
                    .then((bytes) => WebAssembly.compile(bytes)));
            }
        };
        return worker;
    }

    // A later worker: the module from the page.
    function laterWorker() {
        const worker = startWorker(false);
        modulePromise.then((module) => worker.postMessage({ type: 'init', module }),
            (error) => worker.postMessage({ type: 'init', error: error.message }));
        return worker;
    }

    function newWorker(first) {
        if (script === null) {
            return Promise.reject(new Error('web/apy-worker-source.js is missing (build it: bash book/web.sh)'));
        }
        return Promise.resolve(first ? firstWorker() : laterWorker());
    }

    // One worker is kept waiting, so that Run shows output at once. The next one is made
    // once the run of the one taken has ended, so as not to slow that run down.
    let spare = newWorker(true);
    spare.catch(() => {});

    window.apyLoad = {
        takeWorker() {
            const taken = spare || newWorker(false);
            spare = null;
            taken.then((worker) => {
                worker.addEventListener('message', (event) => {
                    if ((event.data.type === 'done' || event.data.type === 'crash') && spare === null) {
                        spare = newWorker(false);
                    }
                });
            }, () => {});
            return taken;
        },
        discard() {
            if (spare) {
                spare.then((worker) => (worker.apyEnd || worker.terminate).call(worker), () => {});
                spare = null;
            }
        },
    };
})();
