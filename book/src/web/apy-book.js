// apy in the book's pages (README.md, "apy in the browser"): Run and Edit under every
// `python` example, with Output, Trace and Timeline tabs (the picture `--timeline` draws);
// and the playground page (an editor, an examples menu, share-by-URL). apy itself is
// apy_bg.wasm (src/web.rs), run in a Web Worker (apy-worker.js), one fresh worker per run.
// A program runs at once on apy's virtual clock, and its output is replayed here at the
// virtual times it was printed (a `sleep(1)` shows its line a second later), at the speed
// chosen, or all at once.
// Everything is served from the book's own folder: no network beyond it.
(function () {
    'use strict';

    // The same limit a learner can set with `apy --max-steps`.
    const DEFAULT_MAX_STEPS = 20000000;
    const SPEEDS = [['instant', 'instant'], ['1', '1×'], ['2', '2×'], ['10', '10×']];
    // Book examples that reach for sockets, processes or threads: a page has none.
    const NEEDS_SOCKETS = /^\s*(import|from)\s+(socket|selectors|subprocess|signal|threading|_thread|queue|concurrent)\b|\b(start_server|open_connection|create_server|create_connection|create_datagram_endpoint|create_subprocess_\w+|subprocess_\w+|connect_\w+_pipe|to_thread|run_in_executor|run_coroutine_threadsafe|sock_\w+)\(/m;

    // apy and its workers come from apy-load.js, which the page's head loads first.
    const takeWorker = () => window.apyLoad.takeWorker();

    function speedSetting() {
        return localStorage.getItem('apy-speed') || '1';
    }

    // Runs `source` with `options` ({trace, explain, dis, maxSteps, name}); `sink` gets
    // chunk(stream, time, text) as the replay reaches each piece, then end(status, problem).
    // Returns {stop()}.
    function startRun(source, options, sink) {
        const speed = speedSetting();
        const msPerSecond = speed === 'instant' ? 0 : 1000 / Number(speed);
        // The replay's clock: virtual time 0 is when the first piece arrived, less its time.
        const run = { queue: [], timer: null, start: null, worker: null, over: false };
        function pump() {
            run.timer = null;
            while (run.queue.length > 0) {
                const item = run.queue[0];
                const wait = run.start + item.time * msPerSecond - performance.now();
                if (wait > 1) {
                    run.timer = setTimeout(pump, wait);
                    return;
                }
                run.queue.shift();
                if (item.type === 'output') {
                    sink.chunk(item.stream, item.time, item.text);
                } else {
                    run.over = true;
                    sink.end(item.type === 'done' ? item.status : null, item.message);
                }
            }
        }
        function later(item) {
            if (run.start === null) {
                run.start = performance.now() - item.time * msPerSecond;
            }
            run.queue.push(item);
            if (run.timer === null) {
                pump();
            }
        }
        takeWorker().then((worker) => {
            if (run.over) {
                worker.terminate();
                return;
            }
            run.worker = worker;
            worker.onmessage = (event) => {
                const message = event.data;
                if (message.type === 'ready' || message.type === 'module' || message.type === 'warm') {
                    return;
                }
                once('apy-first-piece');
                if (message.type !== 'output') {
                    worker.terminate();
                    if (message.type === 'crash') {
                        message.message = crashText(message.message);
                    }
                }
                later(message);
            };
            if (worker.apyCrash !== undefined) {
                // It could not load apy before it was taken (apy-load.js).
                worker.terminate();
                later({ type: 'crash', message: worker.apyCrash, time: 0 });
                return;
            }
            once('apy-run-sent');
            worker.postMessage({ type: 'run', source, options });
        }, (error) => {
            run.over = true;
            sink.end(null, `apy could not be loaded: ${error.message}`);
        });
        return {
            stop() {
                if (run.over) {
                    return;
                }
                run.over = true;
                if (run.worker) {
                    run.worker.terminate();
                }
                clearTimeout(run.timer);
                run.queue = [];
                sink.end(null, 'Stopped.');
            },
        };
    }

    // The first run's marks, for the timing of the first load (tests/browser/).
    function once(mark) {
        if (performance.getEntriesByName(mark).length === 0) {
            performance.mark(mark);
        }
    }

    function crashText(message) {
        if (message.startsWith('apy could not be loaded')) {
            return message;
        }
        if (/memory/i.test(message)) {
            return `apy ran out of memory in the page (${message})\nMemoryError`;
        }
        if (/call stack|recursion/i.test(message)) {
            return `the program recursed deeper than the page's stack holds (${message})\nRecursionError`;
        }
        return `apy stopped unexpectedly in the page: ${message}`;
    }

    // ---- the output panel: Output, Trace and Timeline tabs ------------------------------

    function element(tag, className, text) {
        const node = document.createElement(tag);
        if (className) {
            node.className = className;
        }
        if (text !== undefined) {
            node.textContent = text;
        }
        return node;
    }

    // The SVG of a timeline with its ids (the arrowhead marker) made this page's own: every
    // picture names its marker `arrow`, and a reference to an id in a hidden tab draws
    // nothing.
    let pictures = 0;
    function ownIds(svg) {
        pictures += 1;
        const ids = new Set(Array.from(svg.matchAll(/\bid="([^"]+)"/g), (m) => m[1]));
        return svg.replace(/\bid="([^"]+)"|url\(#([^)]+)\)/g, (match, id, ref) => {
            if (id !== undefined) {
                return `id="${id}-apy${pictures}"`;
            }
            return ids.has(ref) ? `url(#${ref}-apy${pictures})` : match;
        });
    }

    function speedControl() {
        const label = element('label', 'apy-speed', 'replay ');
        const select = element('select');
        for (const [value, text] of SPEEDS) {
            const option = element('option', null, text);
            option.value = value;
            select.append(option);
        }
        select.value = speedSetting();
        select.title = 'how fast the output is replayed: at the virtual times it was printed, faster, or all at once';
        select.addEventListener('change', () => {
            localStorage.setItem('apy-speed', select.value);
            for (const other of document.querySelectorAll('.apy-speed select')) {
                other.value = select.value;
            }
        });
        label.append(select);
        return label;
    }

    // The result of the runs of one program: tabs, and what the last run wrote. For the
    // browser test, `panel.apyRun` keeps every piece in order ({stream, time, text}) and
    // the exit status.
    function outputPanel() {
        const panel = element('div', 'apy-panel');
        panel.hidden = true;
        const tabs = element('div', 'apy-tabs');
        const views = {
            output: element('pre', 'apy-output'),
            trace: element('pre', 'apy-trace'),
            timeline: element('div', 'apy-timeline'),
        };
        const buttons = {};
        for (const [name, title] of [['output', 'Output'], ['trace', 'Trace'], ['timeline', 'Timeline']]) {
            const button = element('button', 'apy-tab', title);
            button.type = 'button';
            button.dataset.tab = name;
            button.addEventListener('click', () => show(name));
            buttons[name] = button;
            tabs.append(button);
        }
        const status = element('div', 'apy-status');
        panel.append(tabs, views.output, views.trace, views.timeline, status);
        function show(name) {
            for (const key of Object.keys(views)) {
                views[key].hidden = key !== name;
                buttons[key].classList.toggle('apy-active', key === name);
            }
        }
        return {
            panel,
            begin() {
                panel.hidden = false;
                panel.apyRun = { chunks: [], status: undefined, done: false };
                views.output.textContent = '';
                views.trace.textContent = '';
                views.timeline.textContent = '';
                buttons.trace.hidden = true;
                // The timeline tab shows once a run sends its picture (the `timeline`
                // stream: what `--timeline` draws, src/web.rs), when the program ran a loop.
                buttons.timeline.hidden = true;
                status.textContent = 'running…';
                status.className = 'apy-status';
                show('output');
            },
            chunk(stream, time, text) {
                panel.apyRun.chunks.push({ stream, time, text });
                if (stream === 'trace') {
                    buttons.trace.hidden = false;
                    views.trace.append(text);
                } else if (stream === 'timeline') {
                    buttons.timeline.hidden = false;
                    if (text.startsWith('<svg')) {
                        views.timeline.innerHTML = ownIds(text);
                        const svg = views.timeline.querySelector('svg');
                        svg.style.minWidth = `${0.6 * Number(svg.getAttribute('width'))}px`;
                    } else {
                        // A note: the picture was too big for the page (src/web.rs).
                        views.timeline.append(element('p', 'apy-note', text));
                    }
                } else {
                    const span = element('span', `apy-${stream}`, text);
                    views.output.append(span);
                }
            },
            end(statusCode, problem) {
                panel.apyRun.status = statusCode;
                panel.apyRun.done = true;
                if (problem) {
                    views.output.append(element('span', 'apy-stderr', problem.endsWith('\n') ? problem : problem + '\n'));
                }
                status.textContent = statusCode === null || statusCode === undefined
                    ? (problem === 'Stopped.' ? 'stopped' : 'failed')
                    : `exit status ${statusCode}`;
                status.className = 'apy-status' + (statusCode === 0 ? ' apy-ok' : ' apy-failed');
                if (views.output.textContent === '') {
                    views.output.append(element('span', 'apy-nothing', '(no output)'));
                }
            },
        };
    }

    // Run / Stop on a toolbar: `run()` returns the source and options of the next run.
    function runner(toolbar, panel, what, onEnd) {
        const run = element('button', 'apy-run', '▶ Run');
        run.type = 'button';
        const stop = element('button', 'apy-stop', '■ Stop');
        stop.type = 'button';
        stop.disabled = true;
        let current = null;
        run.addEventListener('click', () => {
            if (current) {
                current.stop();
            }
            const { source, options } = what();
            panel.begin();
            stop.disabled = false;
            const mine = startRun(source, options, {
                chunk: panel.chunk,
                end(status, problem) {
                    panel.end(status, problem);
                    if (current === mine) {
                        current = null;
                        stop.disabled = true;
                    }
                    if (onEnd) {
                        onEnd(status);
                    }
                },
            });
            current = mine;
        });
        stop.addEventListener('click', () => {
            if (current) {
                current.stop();
            }
        });
        toolbar.append(run, stop);
        return run;
    }

    // ---- the book's examples ------------------------------------------------------------

    // The ```text blocks right after an example (its stdout, then stderr): kept as they are.
    function expectedBlocks(pre) {
        const blocks = [];
        let next = pre.nextElementSibling;
        while (next && next.tagName === 'PRE') {
            const code = next.querySelector('code.language-text');
            if (!code || code.classList.contains('repl')) {
                break;
            }
            blocks.push(next);
            next = next.nextElementSibling;
        }
        return blocks;
    }

    // The options an example's tag asks for (`args=--trace=hooks`, `args=--dis`).
    function exampleOptions(code) {
        const options = { maxSteps: DEFAULT_MAX_STEPS, timeline: 'svg' };
        for (const name of code.classList) {
            if (!name.startsWith('args=')) {
                continue;
            }
            const arg = name.slice('args='.length);
            if (arg === '--dis') {
                options.dis = true;
            } else if (arg.startsWith('--trace')) {
                options.trace = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : true;
            } else if (arg === '--explain') {
                options.explain = true;
            }
        }
        return options;
    }

    function decorate(code, index) {
        const pre = code.parentElement;
        const original = code.textContent;
        const example = element('div', 'apy-example');
        example.dataset.example = String(index);
        const toolbar = element('div', 'apy-toolbar');
        const expected = expectedBlocks(pre);
        const last = expected.length > 0 ? expected[expected.length - 1] : pre;
        pre.after(toolbar);
        const view = outputPanel();
        last.after(view.panel);
        example.apy = { toolbar, panel: view.panel, pre, expected };
        toolbar.apyExample = example.apy;
        if (NEEDS_SOCKETS.test(original)) {
            toolbar.append(element('span', 'apy-note',
                'This one needs sockets, processes or threads, which a page does not have: run it with apy on your machine.'));
            toolbar.dataset.runnable = 'no';
            return;
        }
        toolbar.dataset.runnable = 'yes';
        let editor = null;
        runner(toolbar, view, () => ({
            source: editor ? editor.value : original,
            options: exampleOptions(code),
        }));
        const edit = element('button', 'apy-edit', 'Edit');
        edit.type = 'button';
        edit.addEventListener('click', () => {
            if (editor) {
                editor.remove();
                editor = null;
                pre.hidden = false;
                edit.textContent = 'Edit';
                return;
            }
            editor = element('textarea', 'apy-editor');
            editor.spellcheck = false;
            editor.value = original;
            editor.rows = Math.min(40, original.split('\n').length + 1);
            pre.hidden = true;
            pre.after(editor);
            editor.focus();
            edit.textContent = 'Reset';
        });
        toolbar.append(edit, speedControl());
    }

    // ---- the playground -----------------------------------------------------------------

    function encode(text) {
        const bytes = new TextEncoder().encode(text);
        let binary = '';
        for (const byte of bytes) {
            binary += String.fromCharCode(byte);
        }
        return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    }

    function decode(text) {
        const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
        return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    }

    function playground(place) {
        // The examples menu: the ```py blocks of the page, each under its title.
        const examples = [];
        for (const code of document.querySelectorAll('.apy-examples code.language-py')) {
            const title = code.parentElement.previousElementSibling;
            examples.push({ title: title ? title.textContent : `example ${examples.length + 1}`, source: code.textContent });
        }
        const menu = element('select', 'apy-examples-menu');
        menu.append(element('option', null, 'Examples…'));
        examples.forEach((example, i) => {
            const option = element('option', null, example.title);
            option.value = String(i);
            menu.append(option);
        });
        const editor = element('textarea', 'apy-editor apy-playground-editor');
        editor.spellcheck = false;
        editor.rows = 14;
        const shared = /^#code=([A-Za-z0-9_-]*)$/.exec(location.hash);
        try {
            editor.value = shared ? decode(shared[1]) : (examples[0] ? examples[0].source : 'print("hello")\n');
        } catch (error) {
            editor.value = `# the link's program could not be read: ${error.message}\n`;
        }
        menu.addEventListener('change', () => {
            const example = examples[Number(menu.value)];
            if (example) {
                editor.value = example.source;
            }
            menu.selectedIndex = 0;
        });
        const trace = element('input');
        trace.type = 'checkbox';
        trace.className = 'apy-trace-option';
        const explain = element('input');
        explain.type = 'checkbox';
        explain.className = 'apy-explain-option';
        const steps = element('input', 'apy-steps-option');
        steps.type = 'number';
        steps.min = '1';
        steps.value = String(DEFAULT_MAX_STEPS);
        const label = (input, text) => {
            const node = element('label', 'apy-option');
            node.append(input, ' ' + text);
            return node;
        };
        const stepsLabel = element('label', 'apy-option', 'step limit ');
        stepsLabel.append(steps);
        const share = element('button', 'apy-share', 'Share');
        share.type = 'button';
        const shareNote = element('span', 'apy-note');
        share.addEventListener('click', () => {
            const url = new URL(location.href);
            url.hash = 'code=' + encode(editor.value);
            history.replaceState(null, '', url);
            shareNote.textContent = 'The link in the address bar holds the program.';
            if (navigator.clipboard) {
                navigator.clipboard.writeText(url.href).then(
                    () => { shareNote.textContent = 'Link copied: it holds the program.'; },
                    () => {});
            }
        });
        const toolbar = element('div', 'apy-toolbar');
        const view = outputPanel();
        runner(toolbar, view, () => ({
            source: editor.value,
            options: {
                trace: trace.checked,
                explain: explain.checked,
                maxSteps: Math.max(1, Number(steps.value) || DEFAULT_MAX_STEPS),
                timeline: 'svg',
                name: 'main.py',
            },
        }));
        toolbar.append(menu, label(trace, 'trace'), label(explain, 'explain'), stepsLabel,
            speedControl(), share, shareNote);
        place.append(editor, toolbar, view.panel);
        place.apy = { editor, panel: view.panel, toolbar };
    }

    // ---- start --------------------------------------------------------------------------

    // The page's head runs this script (book/theme/head.hbs), so each example gets its Run
    // button as soon as the parser is past it and past its expected output, without
    // waiting for the page's other scripts, styles and fonts (DOMContentLoaded).
    const decorated = new WeakSet();
    let examplesSeen = 0;

    // Whether the parser is done with `pre` and the expected output blocks after it: an
    // element follows them (a `pre` as that element must itself be closed, since it could
    // still become an expected block).
    function parsedPast(pre) {
        let next = pre.nextElementSibling;
        while (next && next.tagName === 'PRE') {
            const code = next.querySelector('code');
            if (!code || !code.classList.contains('language-text') || code.classList.contains('repl')) {
                return next.nextSibling !== null;
            }
            next = next.nextElementSibling;
        }
        return next !== null;
    }

    function decorateParsed(all) {
        for (const code of document.querySelectorAll('main pre > code.language-python')) {
            if (!decorated.has(code) && (all || parsedPast(code.parentElement))) {
                decorated.add(code);
                decorate(code, examplesSeen);
                examplesSeen += 1;
            }
        }
    }

    function start() {
        decorateParsed(true);
        const place = document.getElementById('apy-playground');
        if (place) {
            playground(place);
        }
        if (examplesSeen === 0 && !place) {
            // Nothing here runs apy: the worker started with the page is not needed.
            window.apyLoad.discard();
        }
        document.documentElement.dataset.apyReady = 'yes';
    }

    if (document.readyState === 'loading') {
        const observer = new MutationObserver(() => decorateParsed(false));
        observer.observe(document, { childList: true, subtree: true });
        document.addEventListener('DOMContentLoaded', () => {
            observer.disconnect();
            start();
        });
    } else {
        start();
    }
})();
