// SPDX-License-Identifier: MIT
/*
 * The lesson page in a real browser: Debian's chromium, driven over the
 * DevTools protocol by playwright-core (no browser of its own: it is pointed
 * at /usr/bin/chromium). Run by ctest (tests/js/CMakeLists.txt) with
 * NAGLE_TRACE set; node's own test runner.
 *
 * The pages: an analyze report of a capture in tests/golden/captures (no
 * privileges needed) and live runs under `unshare -Urn` (the ping-pong
 * sawtooth, and every variant), and `predict --format html` (the model in
 * WebAssembly, no lab). Checked: deep links through chromium's own
 * --dump-dom, keyboard stepping (after a dropdown choice too), predict mode
 * (nothing that gives the verdict away before the reveal), projector mode at
 * 1024x768 (nothing cut off, no label under 18 px), the what-if panel (each
 * knob moves the model's ladder as `predict --format json` says), and not one
 * network request.
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
	pages.compare = trace(join(dir, 'compare.html'), ['--compare', 'default,nodelay',
		'--rounds', '4']);
	pages.predict = join(dir, 'predict.html');
	execFileSync(NT, ['predict', '--format', 'html', '--rounds', '8', '-o', pages.predict]);
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
	await page.click('#nt-guess button[data-band="ge100"]');
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

test('1024x768 and 1920x1080: no horizontal overflow; projector mode fits without scrolling', async () => {
	for (const [W, H] of [[1024, 768], [1920, 1080]])
	for (const [name, f] of Object.entries(pages)) {
		const { page, context } = await open(f, '', { width: W, height: H });
		const wide = await page.evaluate(() => document.documentElement.scrollWidth);
		assert.ok(wide <= W, `${name} at ${W}: ${wide} px wide`);
		if (name === 'predict') {
			// No lesson to project: the what-if panel alone.
			await context.close();
			continue;
		}
		await page.keyboard.press('f');
		await page.keyboard.press('End');
		const [w, h] = await page.evaluate(() => [document.documentElement.scrollWidth,
			document.documentElement.scrollHeight]);
		assert.ok(w <= W && h <= H, `${name} projector at ${W}x${H}: ${w}x${h}`);
		if (W > 1024) {
			// The larger screen: the same rule for every label, at the end of the round.
			const l = await layout(page);
			assert.deepEqual(l.bad, [], `${name} at ${W}x${H}`);
			assert.ok(l.smallest >= 17.95, `${name} at ${W}x${H}: ${l.smallest} px: ${l.where}`);
		}
		if (name === 'sawtooth' && W === 1024 && process.env.NT_LESSON_SCREENSHOT) {
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
		// The keys did what they do (a step on, projector mode on), and then the
		// network stayed quiet for 500 ms (Playwright's networkidle): waited for,
		// not slept for, so a request the keys set off is seen. predict's page
		// (the what-if panel alone) has no steps to key through.
		if (await page.$('#nt-projector')) {
			const before = Number((await state(page)).step);
			await page.keyboard.press('ArrowRight');
			await page.keyboard.press('f');
			await page.waitForSelector('body.nt-projector');
			assert.equal(Number((await state(page)).step), before + 1);
		}
		await page.waitForLoadState('networkidle');
		const outside = requests.filter((u) => !u.startsWith('file://' + f) &&
			!u.startsWith('data:'));
		assert.deepEqual(outside, []);
		assert.equal(requests.length, 1);
		await context.close();
	}
});

/* The what-if panel: set one knob as a reader would, and read what the page now shows. */
async function setKnob(page, knob, value) {
	const sel = `#nt-model [data-knob="${knob}"]`;
	const kind = await page.$eval(sel, (e) => (e.tagName === 'SELECT' ? 'select' : e.type));
	if (kind === 'select')
		await page.selectOption(sel, String(value));
	else if (kind === 'checkbox')
		await page.setChecked(sel, !!value);
	else
		await page.fill(sel, String(value));
	return page.evaluate(() => ({ ...document.getElementById('nt-model').dataset,
		ladder: document.getElementById('nt-model-ladder').textContent,
		depart: document.getElementById('nt-depart').textContent,
		changed: document.querySelectorAll('#nt-model .nt-knob.nt-changed').length }));
}

async function openModel(file, hash) {
	const o = await open(file, hash, { width: 1280, height: 900 });
	await o.page.waitForSelector('#nt-model.nt-model-ready');
	return o;
}

function native(args) {
	return JSON.parse(execFileSync(NT, ['predict', '--format', 'json', '--rounds', '8', ...args],
		{ encoding: 'utf8' }));
}

test('each knob moves the model as predict --format json says, within 50 ms', async () => {
	const { page, context, errors } = await openModel(pages.predict);
	const cases = [
		['body_bytes', 1447, ['--body', '1447']], ['body_bytes', 1448, ['--body', '1448']],
		['header_bytes', 1448, ['--header', '1448']], ['pattern', 2, ['--variant', 'writev']],
		['client_nodelay', true, ['--variant', 'nodelay']],
		['server_quickack', 2, ['--variant', 'quickack-rearm']],
		['server_quickack', 1, ['--variant', 'quickack-once']],
		['route_quickack', true, ['--variant', 'route-quickack']],
		['server_nodelay', true, ['--variant', 'nodelay-server']],
		['client_autocork', false, ['--variant', 'autocork-off']],
		['pingpong_thresh', 2, ['--pingpong-thresh', '2']],
		['handler_ns', 60, ['--handler-ms', '60']], ['write_gap_ns', 60, ['--write-gap-ms', '60']],
		['pause_ns', 300, ['--pause', '300']], ['rtt_ns', 5, ['--rtt', '5']],
		['hz', 1000, ['--hz', '1000']], ['kernel', '5.4', ['--kernel', '5.4']],
		['rounds', 12, ['--rounds', '12']],
	];
	const times = [];
	for (const [knob, value, args] of cases) {
		await page.click('#nt-model-reset');
		const got = await setKnob(page, knob, value);
		const want = native(args);
		assert.equal(got.verdicts, want.rounds.map((r) => r.verdict).join(','), `${knob}=${value}`);
		assert.equal(got.stalled, String(want.summary.verdicts.stalled), `${knob}=${value}`);
		// The ladder drawn is the model's round: the rules it names are the native ones.
		const r = want.rounds[Number(got.round) - 1];
		for (const w of [r.why.header, r.why.reply])
			assert.ok(got.ladder.includes(w.rule), `${knob}=${value}: ladder lacks ${w.rule}`);
		times.push(Number(got.ms));
	}
	times.sort((a, b) => a - b);
	const median = times[times.length >> 1];
	process.stdout.write(`# model redraw: median ${median} ms, max ${times.at(-1)} ms\n`);
	assert.ok(median <= 50, `the panel redraws in ${median} ms (median)`);
	assert.deepEqual(errors, []);
	await context.close();
});

test('what-if beside the recorded run: 1447 -> 1448 B removes the stall, nodelay is unheld', async () => {
	const { page, context, errors } = await openModel(pages.all, '#variant=default&round=2&step=0');
	let s = await page.evaluate(() => ({ ...document.getElementById('nt-model').dataset }));
	assert.equal(s.departs, '0');
	assert.equal(await page.locator('#nt-model .nt-model-row').count(), 2, 'model and measured');
	s = await setKnob(page, 'body_bytes', 1447);
	assert.ok(Number(s.stalled) > 0, `1447 B: ${s.verdicts}`);
	assert.equal(s.departs, '1');
	assert.equal(s.changed, 1);
	assert.match(s.depart, /not measured: body/);
	s = await setKnob(page, 'body_bytes', 1448);
	assert.equal(s.stalled, '0', `1448 B: ${s.verdicts}`);
	await page.click('#nt-model-reset');
	s = await setKnob(page, 'client_nodelay', true);
	// Round 1's ACK is back before write(body) returns (the model's own answer); then unheld.
	assert.equal(s.stalled, '0', s.verdicts);
	assert.match(s.verdicts, /^\w+(,unheld)+$/);
	assert.ok(Number(s.ppr) >= 2, `nodelay: ${s.ppr} packets per request`);
	await page.click('#nt-model-reset');
	s = await setKnob(page, 'pattern', 2);
	assert.equal(s.ppr, '1', 'writev: one packet per request');
	// The lesson's round is the panel's round.
	await page.keyboard.press('ArrowDown');
	assert.equal(await page.getAttribute('#nt-model', 'data-round'), '3');
	assert.deepEqual(errors, []);
	await context.close();
});

/* Everything a reader sees: visible text of the page's HTML and of its ladders. */
function visibleText(page) {
	return page.evaluate(() => {
		const out = [];
		const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			const el = n.parentElement;
			if (!n.textContent.trim() || el.closest('script, style, title, .nt-legend, #nt-guess'))
				continue;
			const cs = getComputedStyle(el);
			const r = el.getBoundingClientRect();
			if (cs.visibility !== 'visible' || cs.display === 'none' || !r.width ||
			    !el.checkVisibility({ visibilityProperty: true }))
				continue;
			out.push(n.textContent);
		}
		return out.join(' | ');
	});
}

test('predict mode: nothing gives the verdict away before the reveal', async () => {
	const { page, context } = await open(pages.sawtooth, '#variant=default&round=2&step=0');
	await page.keyboard.press('g');
	const fig = '.nt-track:not([hidden]) .nt-round:not([hidden])';
	const reveal = Number(await page.getAttribute(fig, 'data-reveal'));
	const verdict = await page.getAttribute(fig, 'data-verdict');
	const words = /\b(stalled|stall|held|unheld|coalesced|delayed)\b|\d+ of \d+ rounds/i;
	for (let step = 0; step < reveal; step++) {
		const text = await visibleText(page);
		assert.doesNotMatch(text, words, `step ${step}: ${text.match(words)}`);
		const cells = await page.$$eval('.nt-track:not([hidden]) .nt-cell[data-round]', (cs) =>
			cs.map((c) => [c.getBoundingClientRect().height, getComputedStyle(c).backgroundColor,
				c.getAttribute('title')]));
		assert.equal(new Set(cells.map((c) => c[0] + c[1])).size, 1, `step ${step}: bars differ`);
		assert.ok(cells.every((c) => c[2] === null), `step ${step}: a bar has a tooltip`);
		assert.equal(await page.isVisible('#nt-kernel'), false);
		assert.equal(await page.isVisible('#nt-model'), false);
		// What a screen reader is given, too (bar by bar, the ladder's text, the panel),
		// but for the legend and the answer buttons, which name every verdict.
		const aria = (await page.locator('body').ariaSnapshot())
			.replace(/stalled held unheld coalesced incomplete/, '')
			.replace(/- button "(coalesced|unheld|held|stalled)"/g, '');
		assert.doesNotMatch(aria, words, `step ${step}, accessibility tree: ${aria.match(words)}`);
		if (step + 1 < reveal)
			await page.keyboard.press('ArrowRight');
	}
	// Both questions, then the answer.
	assert.ok(await page.isVisible('#nt-guess-verdict'));
	await page.click(`#nt-guess button[data-verdict="${verdict}"]`);
	assert.ok(await page.isVisible('#nt-guess-wait'));
	assert.equal((await state(page)).step, String(reveal - 1));
	const ms = Number(await page.getAttribute(fig, 'data-wait-ms'));
	const band = ms < 1 ? 'lt1' : ms < 10 ? 'lt10' : ms < 100 ? 'lt100' : 'ge100';
	await page.click(`#nt-guess button[data-band="${band}"]`);
	assert.equal((await state(page)).step, String(reveal));
	assert.match(await page.textContent('#nt-result'),
		new RegExp(`^Right: round 2 is ${verdict}\\. Right: the client waited`));
	assert.match(await visibleText(page), new RegExp(verdict));
	// Another variant, another round: the old result goes.
	await page.keyboard.press('ArrowDown');
	assert.equal(await page.textContent('#nt-result'), '');
	await context.close();
});

test('keys step after a dropdown choice and from a knob (a clicker sends PageDown)', async () => {
	const { page, context } = await openModel(pages.all, '#variant=default&round=2&step=0');
	await page.focus('#nt-variant');
	await page.selectOption('#nt-variant', 'writev');
	await page.keyboard.press('ArrowRight');
	await page.keyboard.press('ArrowRight');
	assert.deepEqual(await state(page), { variant: 'writev', round: '2', step: '2' });
	await page.keyboard.press('PageDown');
	assert.equal((await state(page)).step, '3');
	await page.keyboard.press('PageUp');
	assert.equal((await state(page)).step, '2');
	await page.click('[data-nt="next"]');
	await page.keyboard.press(' ');
	assert.equal((await state(page)).step, '4', 'space after a click steps once');
	await page.focus('#nt-model [data-knob="body_bytes"]');
	await page.keyboard.press('PageDown');
	assert.equal((await state(page)).step, '5');
	await page.keyboard.press('ArrowRight');
	assert.equal((await state(page)).step, '6');
	await context.close();
});

/* Every box with text on screen and inside it; the smallest label's rendered size. */
function layout(page) {
	return page.evaluate(() => {
		const W = innerWidth, H = innerHeight, bad = [];
		let smallest = 1e9, where = '';
		for (const el of document.querySelectorAll('body *')) {
			if (el.closest('script, style, title, defs, marker') || !el.checkVisibility ||
			    !el.checkVisibility({ visibilityProperty: true }))
				continue;
			let r = el.getBoundingClientRect();
			if (!r.width && !r.height)
				continue;
			// A picture shows what is inside its box (a projector's ladder shows a band of
			// its steps): what lies wholly outside is not on screen; a label cut by it is.
			const pic = el.ownerSVGElement && el.ownerSVGElement.getBoundingClientRect();
			if (pic) {
				const cut = { left: Math.max(r.left, pic.left), top: Math.max(r.top, pic.top),
					right: Math.min(r.right, pic.right), bottom: Math.min(r.bottom, pic.bottom) };
				if (cut.right <= cut.left || cut.bottom <= cut.top)
					continue;
				if (el.tagName === 'text' && (cut.left > r.left + 0.5 || cut.right < r.right - 0.5 ||
				    cut.top > r.top + 0.5 || cut.bottom < r.bottom - 0.5))
					bad.push(`text.${el.getAttribute('class')} cut by its picture: ` +
						el.textContent.slice(0, 30));
				r = cut;
			}
			if (r.right > W + 0.5 || r.bottom > H + 0.5 || r.left < -0.5 || r.top < -0.5)
				bad.push(`${el.tagName}.${el.getAttribute('class') || el.id} ${Math.round(r.left)},` +
					`${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
			if (el.scrollHeight > el.clientHeight + 1 && getComputedStyle(el).overflowY !== 'visible')
				bad.push(`${el.tagName}.${el.getAttribute('class') || el.id} cut off: ` +
					`${el.scrollHeight} > ${el.clientHeight}`);
			const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
			if (!own)
				continue;
			let px = parseFloat(getComputedStyle(el).fontSize);
			// In a picture: its scale on screen, viewBox and aspect ratio included.
			if (el.ownerSVGElement)
				px *= el.getScreenCTM().a;
			if (px < smallest) {
				smallest = px;
				where = `${el.tagName}.${el.getAttribute('class') || ''}: ${el.textContent.slice(0, 40)}`;
			}
		}
		return { bad, smallest, where, w: document.documentElement.scrollWidth,
			h: document.documentElement.scrollHeight };
	});
}

test('projector at 1024x768: nothing cut off, every label 18 px or more, every control on screen', async () => {
	for (const [name, f] of Object.entries(pages)) {
		// compare: side by side, stepped on one clock, has a test of its own below.
		if (name === 'predict' || name === 'compare')
			continue;
		const { page, context } = await open(f, '#round=2&step=0&mode=projector');
		const fig = '.nt-track:not([hidden]) .nt-round:not([hidden])';
		const n = Number(await page.getAttribute(fig, 'data-steps'));
		let least = 1e9;
		for (let step = 0; step <= n; step++) {
			const l = await layout(page);
			least = Math.min(least, l.smallest);
			assert.deepEqual(l.bad, [], `${name} step ${step}`);
			assert.ok(l.w <= 1024 && l.h <= 768, `${name} step ${step}: ${l.w}x${l.h}`);
			assert.ok(l.smallest >= 17.95, `${name} step ${step}: ${l.smallest} px: ${l.where}`);
			await page.keyboard.press('ArrowRight');
		}
		process.stdout.write(`# projector ${name}: ${n + 1} steps, smallest label ${least.toFixed(1)} px\n`);
		// The same measure outside projector mode finds the small print: it can fail.
		await page.keyboard.press('f');
		assert.ok((await layout(page)).smallest < 18, `${name}: the check sees no small label`);
		await context.close();
	}
});

test('side by side: two variants, the same round, stepped on one clock, packets a request', async () => {
	const { page, context, errors } = await open(pages.compare, '#variant=default&round=2&step=0');
	assert.equal(await page.getAttribute('body', 'data-sbs'), '1');
	const shown = await page.$$eval('.nt-track:not([hidden]) .nt-round:not([hidden])', (fs) =>
		fs.map((f) => [f.closest('.nt-track').dataset.variant, f.dataset.round]));
	assert.deepEqual(shown, [['default', '2'], ['nodelay', '2']]);
	assert.match(await page.textContent('#nt-where'),
		/default \(.*2\.00 packets a request\) \| nodelay \(.*packets a request\), round 2/);
	// Each step is the next event of either round, in time order.
	let last = -1;
	for (let i = 1; ; i++) {
		await page.keyboard.press('ArrowRight');
		const st = await state(page);
		if (st.round !== '2')
			break;
		const t = await page.evaluate(() => {
			const now = document.querySelector('.nt-track:not([hidden]) .nt-now');
			const f = now && now.closest('.nt-round');
			const li = f && f.querySelector(`.nt-steps li[data-step="${now.dataset.step}"]`);
			return li ? Number(li.dataset.tMs) : null;
		});
		assert.ok(t !== null && t >= last, `step ${i}: ${t} after ${last}`);
		last = t;
		assert.ok(i < 100);
	}
	assert.ok(last > 0);
	const wide = await page.evaluate(() => document.documentElement.scrollWidth);
	assert.ok(wide <= 1024, `${wide} px wide`);
	await page.keyboard.press('s');
	assert.equal(await page.getAttribute('body', 'data-sbs'), null);
	assert.equal(await page.locator('.nt-track:not([hidden])').count(), 1);
	assert.deepEqual(errors, []);
	await context.close();
});

test('side by side in projector mode: every step on screen, every label 18 px or more', async () => {
	const { page, context, errors } = await open(pages.compare, '#round=2&step=0&mode=projector');
	let least = 1e9, steps = 0;
	for (; (await state(page)).round === '2'; steps++) {
		const l = await layout(page);
		least = Math.min(least, l.smallest);
		assert.deepEqual(l.bad, [], `step ${steps}`);
		assert.ok(l.w <= 1024 && l.h <= 768, `step ${steps}: ${l.w}x${l.h}`);
		assert.ok(l.smallest >= 17.95, `step ${steps}: ${l.smallest} px: ${l.where}`);
		assert.equal(await page.locator(
			'.nt-track:not([hidden]) .nt-round:not([hidden]) svg.nt-ladder').count(), 2);
		await page.keyboard.press('ArrowRight');
		assert.ok(steps < 100);
	}
	process.stdout.write(`# projector side by side: ${steps} steps, smallest label ` +
		`${least.toFixed(1)} px\n`);
	// Out of projector mode the ladders get their whole picture back (and its small print).
	await page.keyboard.press('f');
	assert.ok((await layout(page)).smallest < 18, 'the check sees no small label');
	assert.deepEqual(await page.$$eval(
		'.nt-track:not([hidden]) .nt-round:not([hidden]) svg.nt-ladder', (ss) =>
		ss.map((s) => s.getAttribute('viewBox').split(' ')[2])), ['760', '760']);
	assert.deepEqual(errors, []);
	await context.close();
});

test('every step is explained, and round 1 says one thing about its body', () => {
	for (const name of ['sawtooth', 'all', 'compare']) {
		const html = readFileSync(pages[name], 'utf8');
		const steps = html.match(/<li data-step="\d+"[^>]*>/g);
		assert.ok(steps.length > 20, name);
		for (const li of steps)
			assert.doesNotMatch(li, /data-why=""/, `${name}: ${li}`);
		for (const fig of html.split('<figure').slice(1)) {
			if (/This ACK arrived before write\(body\) returned/.test(fig))
				assert.doesNotMatch(fig, /The ACK released the body/, name);
		}
	}
});

test('what-if on the projector (w): on screen, labels 18 px or more, the knobs move it', async () => {
	const { page, context, errors } = await open(pages.all, '#variant=default&round=2&step=0&mode=projector');
	await page.waitForSelector('#nt-model.nt-model-ready', { state: 'attached' });
	await page.keyboard.press('w');
	for (const body of [1447, 1448]) {
		const s = await setKnob(page, 'body_bytes', body);
		assert.equal(s.stalled === '0', body === 1448, `${body} B: ${s.verdicts}`);
		const l = await layout(page);
		assert.deepEqual(l.bad, [], `${body} B`);
		assert.ok(l.w <= 1024 && l.h <= 768, `${body} B: ${l.w}x${l.h}`);
		assert.ok(l.smallest >= 17.95, `${body} B: ${l.smallest} px: ${l.where}`);
	}
	await page.keyboard.press('PageDown');
	assert.equal((await state(page)).step, '1', 'a clicker still steps from a knob');
	assert.deepEqual(errors, []);
	await context.close();
});
