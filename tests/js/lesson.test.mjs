// SPDX-License-Identifier: MIT
/*
 * The lesson page in a real browser: Debian's chromium, driven over the
 * DevTools protocol by playwright-core (no browser of its own: it is pointed
 * at /usr/bin/chromium). Run by ctest (tests/js/CMakeLists.txt) with
 * NAGLE_TRACE set; node's own test runner.
 *
 * The pages: an analyze report of a capture in tests/golden/captures (no
 * privileges needed) and live runs under `unshare -Urn` (the ping-pong
 * sawtooth, and every variant). Checked: deep links through chromium's own
 * --dump-dom, keyboard stepping, predict mode, projector mode at 1024x768
 * without scrolling, no horizontal overflow, and not one network request.
 * NT_LESSON_SCREENSHOT=FILE also writes the README's screenshot.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.NT_CHROMIUM || '/usr/bin/chromium';
const NT = process.env.NAGLE_TRACE;
const SRC = process.env.NT_SOURCE_DIR;
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
	'--disable-component-update', '--disable-sync', '--no-first-run'];
const dir = mkdtempSync(join(tmpdir(), 'nt-lesson-'));
const pages = {};
let browser;

function trace(file, args) {
	execFileSync('unshare', ['-Urn', NT, ...args, '--format', 'html', '-o', file],
		{ stdio: ['ignore', 'ignore', 'inherit'] });
	return file;
}

before(() => {
	assert.ok(NT && SRC, 'NAGLE_TRACE and NT_SOURCE_DIR must be set');
	pages.analyze = join(dir, 'analyze.html');
	execFileSync('sh', ['-c', `"${NT}" analyze ` +
		`"${SRC}/tests/golden/captures/tcpdump-tests-bgp-4byte-asn.pcap" --format html > ` +
		`"${pages.analyze}"`]);
	pages.sawtooth = trace(join(dir, 'sawtooth.html'),
		['--pingpong-thresh', '2', '--rounds', '8', '--expect', 'any']);
	pages.all = trace(join(dir, 'all.html'), ['--variant', 'all', '--rounds', '3']);
});

after(async () => {
	if (browser)
		await browser.close();
	rmSync(dir, { recursive: true, force: true });
});

async function open(file, hash, viewport = { width: 1024, height: 768 }) {
	if (!browser)
		browser = await chromium.launch({ executablePath: CHROMIUM,
			args: FLAGS.filter((f) => f !== '--headless') });
	const context = await browser.newContext({ viewport });
	const page = await context.newPage();
	const requests = [];
	page.on('request', (r) => requests.push(r.url()));
	const errors = [];
	page.on('pageerror', (e) => errors.push(String(e)));
	await page.goto('file://' + file + (hash || ''));
	await page.waitForSelector('body.nt-ready');
	return { page, context, requests, errors };
}

const state = (page) => page.evaluate(() => ({ ...document.body.dataset }));

test('the page is one file: one <style>, inline script, nothing referenced', () => {
	for (const f of Object.values(pages)) {
		const html = readFileSync(f, 'utf8');
		assert.equal((html.match(/<style[\s>]/g) || []).length, 1, f);
		assert.doesNotMatch(html, /<script[^>]+src=|<link[\s>]|@import|url\(http|@font-face/i);
		assert.doesNotMatch(html, /https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
	}
});

test('a deep link opens the page there (chromium --dump-dom)', () => {
	const url = `file://${pages.sawtooth}#variant=default&round=5&step=3`;
	const dom = execFileSync(CHROMIUM, [...FLAGS, `--user-data-dir=${join(dir, 'dump')}`,
		'--virtual-time-budget=3000', '--dump-dom', url], { encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'ignore'], timeout: 60000 });
	const body = dom.match(/<body[^>]*>/)[0];
	assert.match(body, /data-variant="default"/);
	assert.match(body, /data-round="5"/);
	assert.match(body, /data-step="3"/);
});

test('keys step through rounds and variants; the state is mirrored in the URL', async () => {
	const { page, context, errors } = await open(pages.all, '#variant=default&round=2&step=0');
	assert.deepEqual(await state(page), { variant: 'default', round: '2', step: '0' });
	for (let i = 0; i < 3; i++)
		await page.keyboard.press('ArrowRight');
	assert.equal((await state(page)).step, '3');
	// Steps beyond the current one are hidden, the current one highlighted.
	const vis = await page.evaluate(() => {
		const f = document.querySelector('.nt-track:not([hidden]) .nt-round:not([hidden])');
		return [...f.querySelectorAll('g.nt-st')].map((g) =>
			getComputedStyle(g).visibility);
	});
	assert.deepEqual(vis.slice(0, 4), ['visible', 'visible', 'visible', 'hidden']);
	assert.match(await page.textContent('#nt-what'), /write\(body\)|header|ACK/);
	await page.keyboard.press('ArrowLeft');
	assert.equal((await state(page)).step, '2');
	await page.keyboard.press('ArrowDown');
	assert.deepEqual(await state(page), { variant: 'default', round: '3', step: '0' });
	await page.keyboard.press('ArrowRight');
	await page.selectOption('#nt-variant', 'writev');
	// Another variant: the same round and step.
	assert.deepEqual(await state(page), { variant: 'writev', round: '3', step: '1' });
	assert.match(page.url(), /#variant=writev&round=3&step=1$/);
	await page.keyboard.press('v');
	assert.notEqual((await state(page)).variant, 'writev');
	assert.deepEqual(errors, []);
	await context.close();
});

test('predict mode asks for the verdict before the step that shows it', async () => {
	const { page, context } = await open(pages.sawtooth, '#variant=default&round=2&step=0');
	await page.keyboard.press('g');
	const reveal = Number(await page.getAttribute(
		'.nt-track:not([hidden]) .nt-round:not([hidden])', 'data-reveal'));
	const verdict = await page.getAttribute(
		'.nt-track:not([hidden]) .nt-round:not([hidden])', 'data-verdict');
	assert.ok(reveal > 1);
	assert.equal(await page.isVisible('.nt-round:not([hidden]) .nt-verdict'), false);
	for (let i = 0; i < reveal + 2; i++)
		await page.keyboard.press('ArrowRight');
	assert.equal((await state(page)).step, String(reveal - 1), 'stops before the reveal');
	assert.ok(await page.isVisible('#nt-guess'));
	await page.click(`#nt-guess button[data-verdict="${verdict}"]`);
	assert.equal((await state(page)).step, String(reveal));
	assert.match(await page.textContent('#nt-result'), /^Right/);
	assert.ok(await page.isVisible('.nt-round:not([hidden]) .nt-verdict'));
	await context.close();
});

test('the strip shows every round: the ping-pong sawtooth', async () => {
	const { page, context } = await open(pages.sawtooth);
	const cells = await page.$$eval('.nt-track:not([hidden]) .nt-strip .nt-cell', (cs) =>
		cs.map((c) => [...c.classList].find((k) => k.startsWith('v-'))));
	assert.equal(cells.length, 8);
	assert.ok(cells.includes('v-stalled'), cells.join());
	assert.ok(cells.includes('v-held'), cells.join());
	await page.click('.nt-track:not([hidden]) .nt-cell[data-round="4"]');
	assert.equal((await state(page)).round, '4');
	await context.close();
});

test('1024x768: no horizontal overflow; projector mode fits without scrolling', async () => {
	for (const [name, f] of Object.entries(pages)) {
		const { page, context } = await open(f);
		const wide = await page.evaluate(() => document.documentElement.scrollWidth);
		assert.ok(wide <= 1024, `${name}: ${wide} px wide`);
		await page.keyboard.press('f');
		await page.keyboard.press('End');
		const [w, h] = await page.evaluate(() => [document.documentElement.scrollWidth,
			document.documentElement.scrollHeight]);
		assert.ok(w <= 1024 && h <= 768, `${name} projector: ${w}x${h}`);
		if (name === 'sawtooth' && process.env.NT_LESSON_SCREENSHOT) {
			await page.keyboard.press('f');
			await page.goto('file://' + f + '#variant=default&round=3&step=7');
			await page.waitForSelector('body.nt-ready');
			await page.screenshot({ path: process.env.NT_LESSON_SCREENSHOT });
		}
		await context.close();
	}
});

test('not one network request', async () => {
	for (const f of Object.values(pages)) {
		const { page, context, requests } = await open(f, '#variant=default&round=2&step=4');
		const before = Number((await state(page)).step);
		await page.keyboard.press('ArrowRight');
		await page.keyboard.press('f');
		// The keys did what they do (a step on, projector mode on), and then the
		// network stayed quiet for 500 ms (Playwright's networkidle): waited for,
		// not slept for, so a request the keys set off is seen.
		await page.waitForSelector('body.nt-projector');
		assert.equal(Number((await state(page)).step), before + 1);
		await page.waitForLoadState('networkidle');
		const outside = requests.filter((u) => !u.startsWith('file://' + f) &&
			!u.startsWith('data:'));
		assert.deepEqual(outside, []);
		assert.equal(requests.length, 1);
		await context.close();
	}
});
