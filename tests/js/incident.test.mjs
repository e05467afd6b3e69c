// SPDX-License-Identifier: MIT
/*
 * The incident page of `nagle-trace run --format html` in a real browser:
 * Debian's chromium driven by playwright-core, as lesson.test.mjs does. A
 * live run of the test programs under `unshare -Urn` with three fixes in one
 * page, and one with a single fix. Checked at 1024x768: the summary and the
 * conclusion come before every section; nothing is wider than the window
 * (no horizontal overflow, every table, figure and code block inside it);
 * one latency picture per fix, 16:9, and the first stall's ladder; the
 * command that reproduces it; no script error and not one network request.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.NT_CHROMIUM || '/usr/bin/chromium';
const NT = process.env.NAGLE_TRACE;
const SRC = process.env.NT_SOURCE_DIR;
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
	'--disable-component-update', '--disable-sync', '--no-first-run'];
const dir = mkdtempSync(join(tmpdir(), 'nt-incident-'));
const pages = {};
let browser;

function run(file, fixes) {
	execFileSync('unshare', ['-Urn', NT, 'run',
		'--target', `python3 ${SRC}/tests/programs/server.py 7000`,
		'--client', `python3 ${SRC}/tests/programs/client.py target 7000 10`,
		'--fix', fixes, '--format', 'html', '-o', file],
		{ stdio: ['ignore', 'ignore', 'inherit'] });
	return file;
}

before(() => {
	assert.ok(NT && SRC, 'NAGLE_TRACE and NT_SOURCE_DIR must be set');
	pages.three = run(join(dir, 'three.html'), 'none,nodelay,quickack');
	pages.one = run(join(dir, 'one.html'), 'none');
});

after(async () => {
	if (browser)
		await browser.close();
	rmSync(dir, { recursive: true, force: true });
});

async function open(file) {
	if (!browser)
		browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
	const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
	const page = await context.newPage();
	const requests = [];
	const errors = [];
	page.on('request', (r) => requests.push(r.url()));
	page.on('pageerror', (e) => errors.push(String(e)));
	await page.goto('file://' + file);
	await page.waitForLoadState('load');
	return { page, context, requests, errors };
}

test('summary and conclusion first, then the sections in order', async () => {
	const { page, context } = await open(pages.three);
	const order = await page.evaluate(() => [...document.querySelectorAll(
		'h1, h2, p.summary, p.conclusion')].map((e) => e.tagName === 'P' ? e.className
		: e.textContent.trim()));
	assert.equal(order[1], 'summary', order.join(' | '));
	assert.equal(order[2], 'conclusion', order.join(' | '));
	const h2 = order.slice(3);
	assert.deepEqual(h2.slice(0, 4), ['Before and after', 'Request → answer latency',
		'Which requests stalled', "The target's sockets, as sampled"]);
	assert.ok(h2.some((t) => t.startsWith('The first stall')), h2.join(' | '));
	assert.equal(h2[h2.length - 1], 'Reproduce');
	const concl = await page.textContent('p.conclusion');
	assert.match(concl, /(nodelay|quickack) removed the stalls at the least cost/);
	assert.match(concl, /p50 [0-9.]+ -> [0-9.]+ ms, p90 .* p99 .*stalls [0-9]+ -> 0/);
	const repro = await page.textContent('pre code');
	assert.match(repro, /nagle-trace run --target .* --fix none,nodelay,quickack/);
	await context.close();
});

test('1024x768: nothing cut off, one slide-sized picture per fix, the ladder', async () => {
	for (const [name, f] of Object.entries(pages)) {
		const { page, context } = await open(f);
		const wide = await page.evaluate(() => document.documentElement.scrollWidth);
		assert.ok(wide <= 1024, `${name}: ${wide} px wide`);
		const out = await page.evaluate(() => [...document.querySelectorAll(
			'table, figure, svg, pre, p, h1, h2')].map((e) => {
			const r = e.getBoundingClientRect();
			return { tag: e.tagName, left: r.left, right: r.right, w: r.width };
		}).filter((r) => r.w > 0 && (r.left < 0 || r.right > 1024.5)));
		assert.deepEqual(out, [], `${name}: cut off: ${JSON.stringify(out)}`);
		const pics = await page.evaluate(() => [...document.querySelectorAll('svg.latency')]
			.map((s) => s.viewBox.baseVal.width / s.viewBox.baseVal.height));
		assert.equal(pics.length, name === 'three' ? 3 : 1, name);
		for (const ratio of pics)
			assert.ok(Math.abs(ratio - 16 / 9) < 0.01, `${name}: aspect ${ratio}`);
		assert.equal(await page.locator('svg.nt-ladder').count(), 1, `${name}: no ladder`);
		await context.close();
	}
});

test('which requests stalled: numbered, with their latency and cost', async () => {
	const { page, context } = await open(pages.three);
	const rows = await page.evaluate(() => {
		const h = [...document.querySelectorAll('h2')].find(
			(e) => e.textContent.trim() === 'Which requests stalled');
		const table = h && h.nextElementSibling && h.nextElementSibling.nextElementSibling;
		return table && table.tagName === 'TABLE'
			? [...table.querySelectorAll('tr')].map((r) => [...r.cells].map((c) => c.textContent))
			: null;
	});
	assert.ok(rows, 'no table after the first fix\'s sentence');
	assert.deepEqual(rows[0], ['#', 'request', 'started (ms into the capture)',
		'request → answer', 'held at', 'ACK after', 'time lost']);
	assert.equal(rows[1][1], '2', rows[1].join(' | '));
	assert.match(rows[1][3], /^[0-9.]+ ms$/);
	assert.match(rows[1][6], /^[0-9.]+ ms$/);
	await context.close();
});

test('not one network request, no script error', async () => {
	for (const f of Object.values(pages)) {
		const { context, requests, errors } = await open(f);
		assert.deepEqual(requests, ['file://' + f]);
		assert.deepEqual(errors, []);
		await context.close();
	}
});
