// SPDX-License-Identifier: MIT
/*
 * The lesson page's size and load time in Debian's Chromium (headless,
 * driven by playwright-core from tests/js/node_modules, as the browser
 * tests are). For each page: its bytes, gzip'd bytes, and over N loads
 * (each in a fresh context, so nothing is cached) the time from navigation
 * to the lesson's script ready (body.nt-ready) and to the model compiled,
 * instantiated and its first prediction drawn (#nt-model.nt-model-ready),
 * stamped in the page itself by an observer installed before its scripts.
 *
 * usage: node tests/bench/bench_lesson_page.mjs [--loads N] PAGE.html...
 * Figures and the commands that made the pages: docs/performance.md.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { resolve } from 'node:path';
import process from 'node:process';

const require = createRequire(new URL('../js/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const args = process.argv.slice(2);
let loads = 7;
if (args[0] === '--loads') {
	loads = Number(args[1]);
	args.splice(0, 2);
}
if (!args.length || !(loads >= 1)) {
	process.stderr.write('usage: bench_lesson_page.mjs [--loads N] PAGE.html...\n');
	process.exit(2);
}

/* Runs in the page before its own scripts: when each ready class appears. */
function stamp() {
	window.__nt = {};
	new MutationObserver(() => {
		if (!window.__nt.lesson && document.body && document.body.classList.contains('nt-ready'))
			window.__nt.lesson = performance.now();
		const m = document.getElementById('nt-model');
		if (!window.__nt.model && m && m.classList.contains('nt-model-ready'))
			window.__nt.model = performance.now();
	}).observe(document, { attributes: true, subtree: true, attributeFilter: ['class'] });
}

const fmt = (v) => (v.length ? `${median(v).toFixed(0)} ms (${Math.min(...v).toFixed(0)}-` +
	`${Math.max(...v).toFixed(0)})` : '-');
function median(v) {
	const s = [...v].sort((a, b) => a - b);
	return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const browser = await chromium.launch({ executablePath: process.env.NT_CHROMIUM || '/usr/bin/chromium',
	args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
process.stdout.write('| page | bytes | gzip | lesson ready | model ready |\n| --- | ---: | ---: | ---: | ---: |\n');
for (const file of args) {
	const html = readFileSync(file);
	const lesson = [], model = [];
	for (let i = 0; i < loads; i++) {
		const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
		const page = await ctx.newPage();
		await page.addInitScript(stamp);
		await page.goto('file://' + resolve(file));
		await page.waitForSelector('body.nt-ready');
		const hasModel = html.includes('id="nt-wasm"');
		if (hasModel)
			await page.waitForSelector('#nt-model.nt-model-ready', { state: 'attached' });
		const t = await page.evaluate(() => window.__nt);
		lesson.push(t.lesson);
		if (hasModel)
			model.push(t.model);
		await ctx.close();
	}
	process.stdout.write(`| ${file} | ${html.length} | ${gzipSync(html).length} | ${fmt(lesson)} | ` +
		`${fmt(model)} |\n`);
}
await browser.close();
