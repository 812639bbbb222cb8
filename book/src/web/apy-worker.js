// One run of apy in a Web Worker, so the page stays responsive while a program runs and
// Stop can end it (the page terminates the worker). book/web.sh joins the glue (apy.js) and
// this file into apy-worker-source.js, from which the page (apy-load.js) makes each worker
// in memory. The first worker is named by the module's URL: it fetches and compiles
// apy_bg.wasm itself, from its first line, and sends the page the compiled module
// ({type: 'module'}); a later one is sent {type: 'init', module} (the module the first one
// compiled; or `error`, why there is none). Each is sent one {type: 'run', source,
// options}, which may come before the module is ready: it runs once the instance is. The
// worker answers 'ready' (with when its script started and when it was ready, and the
// milliseconds instantiating took), then an 'output' message for each piece the program
// writes ({stream, time, text}: time is virtual seconds since the start, as src/web.rs
// reports it) and 'done' with the exit status, or 'crash' when apy could not be loaded or
// the wasm module itself failed (out of memory, a native stack overflow). One run per
// worker: each gets a fresh instance of the module. Times sent to the page are
// milliseconds since the epoch (performance.timeOrigin + now()), for its timing marks.
//
// V8 compiles a function of the module at its first call, and the module's code is shared
// by every instance and worker: a first run spends most of its time compiling. So the
// first worker, once ready with no run waiting, warms the module up (WARM_UP, step by step,
// each on an instance of its own: `apyGlue()` makes a copy of the glue, book/web.sh), and a
// learner's first Run finds the code compiled.
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

let ready = false;
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

// What a lesson does, in steps from the commonest: printing (the interpreter, the parser,
// the compiler), a class, a generator and an exception, then tasks on the event loop and
// the timeline's picture. Each step runs on an instance of its own, as a task of its own,
// so a run that comes meanwhile waits for one step at most, and no step starts after it.
const WARM_UP = [
    'print(f"{1 + 2} {[x * 2 for x in range(3)]}")\n',
    `class Box:
    def __init__(self, value):
        self.value = value

def numbers(n):
    for i in range(n):
        yield i * 2

try:
    raise ValueError(sum(numbers(3)))
except ValueError as error:
    print(repr(error), Box(1).value, {1: "one"}.get(1))
`,
    `import asyncio

async def work(name, delay):
    await asyncio.sleep(delay)
    return name

async def main():
    print(await asyncio.gather(work("a", 0.1), work("b", 0.2)))

asyncio.run(main())
`,
];

function warmUp(module, step) {
    if (pending || step === WARM_UP.length) {
        postMessage({ type: 'warm', warm: now(), steps: step });
        return;
    }
    try {
        const glue = apyGlue();
        glue.initSync({ module });
        glue.run(WARM_UP[step], { timeline: 'svg', output() {} });
    } catch (error) {
        // Only a warm-up: the learner's run says what went wrong, if anything does.
    }
    setTimeout(() => warmUp(module, step + 1), 0);
}

// The module: instantiated once it is there, then the run that came meanwhile, or (the
// first worker) the warm-up.
function loaded(module, first) {
    module.then(instantiate).then(() => {
        ready = true;
        if (pending) {
            run(pending);
        } else if (first) {
            module.then((module) => setTimeout(() => warmUp(module, 0), 0));
        }
    }, (error) => postMessage({ type: 'crash', message: `apy could not be loaded: ${error.message}` }));
}

if (self.name !== '') {
    loaded(load(self.name), true);
}

onmessage = (event) => {
    const message = event.data;
    if (message.type === 'init') {
        loaded(message.error === undefined ? Promise.resolve(message.module) : Promise.reject(new Error(message.error)), false);
    } else if (message.type === 'run') {
        // Else the run waits for the instance (had that failed, the crash was sent already).
        pending = message;
        if (ready) {
            run(message);
        }
    }
};
