// The wasm build runs a program under Node, without a browser: `node tests/browser/smoke.mjs`
// after `bash book/web.sh --no-book`. Prints what the program wrote, stream by stream, with
// the virtual time of each piece, and the exit status. APY_TRACE=loop (or another `--trace`
// category list) traces the event loop.
import { readFileSync } from 'node:fs';
import { runInThisContext } from 'node:vm';

const web = new URL('../../book/src/web/', import.meta.url);
runInThisContext(readFileSync(new URL('apy.js', web), 'utf8') + '\nglobalThis.wasm_bindgen = wasm_bindgen;');
globalThis.wasm_bindgen.initSync({ module: readFileSync(new URL('apy_bg.wasm', web)) });

const source = process.argv[2] ?? 'import asyncio\n\nasync def main():\n    print("hello")\n    await asyncio.sleep(1)\n    print("world")\n\nasyncio.run(main())\n';
const status = globalThis.wasm_bindgen.run(source, {
    trace: process.env.APY_TRACE,
    output(stream, time, text) {
        process.stdout.write(`[${stream} t=${time}] ${text}`);
    },
});
console.log(`exit status ${status}`);
