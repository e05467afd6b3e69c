// SPDX-License-Identifier: MIT
/*
 * The lesson page's model, run outside the browser: for each page given,
 * take the WebAssembly module and the knob vectors the page carries
 * (src/render/lesson_model.c), run the module under Node's WASI exactly as
 * the page's script drives it (src/render/lesson/model.js: knobs into linear
 * memory, nt_wasm_predict(), JSON back), and print one line of JSON per page:
 * {"page": FILE, "runs": [{"variant": ..., "prediction": {...}}]}.
 *
 * usage: node wasm_model.mjs PAGE.html...
 * NT_WASM_OVERRIDE='{"body_bytes": 1448}' changes knobs before the run
 * (for the test that shows a difference is caught).
 */
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';
import process from 'node:process';

const override = JSON.parse(process.env.NT_WASM_OVERRIDE || '{}');
const modules = new Map();

function between(html, id) {
	const m = html.match(new RegExp(`<script[^>]*id="${id}"[^>]*>([\\s\\S]*?)</script>`));
	if (!m)
		throw new Error(`no #${id} in the page`);
	return m[1];
}

async function instance(b64) {
	if (!modules.has(b64))
		modules.set(b64, await WebAssembly.compile(Buffer.from(b64.trim(), 'base64')));
	const wasi = new WASI({ version: 'preview1', args: [], env: {} });
	const inst = await WebAssembly.instantiate(modules.get(b64), wasi.getImportObject());
	wasi.initialize(inst);
	return inst.exports;
}

for (const file of process.argv.slice(2)) {
	const html = readFileSync(file, 'utf8');
	const data = JSON.parse(between(html, 'nt-model-data'));
	const e = await instance(between(html, 'nt-wasm'));
	const cstr = (p) => {
		const m = new Uint8Array(e.memory.buffer);
		let q = p;
		while (m[q])
			q++;
		return Buffer.from(m.subarray(p, q)).toString('utf8');
	};
	const runs = [];
	for (const run of data.runs) {
		const knobs = { ...run.knobs, ...override };
		const v = new Float64Array(e.memory.buffer, e.nt_wasm_knobs(), e.nt_wasm_knob_count());
		for (let i = 0; i < e.nt_wasm_knob_count(); i++) {
			const name = cstr(e.nt_wasm_knob_name(i));
			if (!(name in knobs))
				throw new Error(`${file}: the page has no knob ${name}`);
			v[i] = knobs[name];
		}
		const n = e.nt_wasm_predict();
		const text = Buffer.from(new Uint8Array(e.memory.buffer, e.nt_wasm_output(),
			Math.abs(n))).toString('utf8');
		runs.push({ variant: run.variant, status: n < 0 ? n : 0, prediction: JSON.parse(text) });
	}
	process.stdout.write(JSON.stringify({ page: file, runs }) + '\n');
}
