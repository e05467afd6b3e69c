// SPDX-License-Identifier: MIT
/*
 * lesson.js - steps a class through the ladders nagle-trace drew (the page
 * is written by src/render/lesson.c; every picture is the C ladder's SVG).
 *
 * The page holds tracks (a variant of a run, or a flow of a capture), each
 * with a strip of its rounds and one <figure> per round whose ladder was
 * kept. Every drawn item of a ladder carries data-step; the figure's
 * <ol class="nt-steps"> says, per step, what happened (the item's text) and
 * why (data-why, empty when nothing is known yet). This script only shows,
 * hides and highlights; it draws nothing and loads nothing.
 *
 * State: variant, round, step. The URL fragment
 * #variant=NAME&round=N&step=K opens the page there, and the page mirrors
 * its state on <body data-variant data-round data-step> and in the fragment.
 */
(function () {
	'use strict';
	var body = document.body;
	var tracks = Array.prototype.slice.call(document.querySelectorAll('.nt-track'));
	if (!tracks.length) {
		body.classList.add('nt-ready');
		return;
	}
	var $ = function (sel, root) { return (root || document).querySelector(sel); };
	var state = {
		variant: body.dataset.variant || tracks[0].dataset.variant,
		round: parseInt(body.dataset.round, 10) || 1,
		step: parseInt(body.dataset.step, 10) || 0
	};
	var guessed = {};
	var results = {};
	var waited = {};
	/* Every bar's tooltip, kept aside while predict mode hides it. */
	var tips = new Map();
	Array.prototype.forEach.call(document.querySelectorAll('.nt-cell[data-round]'), function (c) {
		tips.set(c, { title: c.getAttribute('title'), aria: c.getAttribute('aria-label') });
	});

	function track() {
		for (var i = 0; i < tracks.length; i++)
			if (tracks[i].dataset.variant === state.variant)
				return tracks[i];
		return tracks[0];
	}
	function rounds(t) { return parseInt(t.dataset.rounds, 10) || 1; }
	function figure(t) { return $('.nt-round[data-round="' + state.round + '"]', t); }
	function nsteps(f) { return f ? parseInt(f.dataset.steps, 10) || 0 : 0; }
	function key() { return state.variant + '/' + state.round; }
	function predicting() { return body.classList.contains('nt-predict') && !state.sbs; }
	function revealed(f) {
		return !predicting() || guessed[key()] || !f || !f.dataset.reveal ||
			state.step >= parseInt(f.dataset.reveal, 10);
	}
	/* Predict mode asks how long the client waits too, where the round says. */
	function asksWait(f) { return !!(f && f.dataset.waitMs); }
	function waitBand(ms) { return ms < 1 ? 'lt1' : ms < 10 ? 'lt10' : ms < 100 ? 'lt100' : 'ge100'; }

	function readHash() {
		var h = location.hash.replace(/^#/, '');
		h.split('&').forEach(function (kv) {
			var p = kv.split('=');
			var v = decodeURIComponent(p[1] || '');
			if (p[0] === 'variant' && v) state.variant = v;
			if (p[0] === 'round' && /^\d+$/.test(v)) state.round = parseInt(v, 10);
			if (p[0] === 'step' && /^\d+$/.test(v)) state.step = parseInt(v, 10);
			if (p[0] === 'view') state.sbs = v === 'sbs';
			if (p[0] === 'mode') {
				body.classList.toggle('nt-projector', v.indexOf('projector') >= 0);
				body.classList.toggle('nt-predict', v.indexOf('predict') >= 0);
			}
		});
	}

	function clamp() {
		var t = track();
		state.variant = t.dataset.variant;
		state.round = Math.max(1, Math.min(state.round, rounds(t)));
		state.step = Math.max(0, Math.min(state.step, nsteps(figure(t))));
	}

	function showSteps(f, at, now) {
		var items = f.querySelectorAll('[data-step]');
		if (at === undefined) at = now = state.step;
		for (var i = 0; i < items.length; i++) {
			var k = parseInt(items[i].dataset.step, 10);
			items[i].classList.toggle('nt-future', k > at);
			items[i].classList.toggle('nt-now', k === now);
		}
	}

	/*
	 * Side by side (--compare): two variants' rounds of the same number, stepped
	 * together on one clock: each step is the next event of either round in time
	 * order (data-t-ms), and each ladder shows what had happened by then.
	 */
	var cmp = document.getElementById('nt-compare');
	state.sbs = !!cmp;
	function byName(v) {
		for (var i = 0; i < tracks.length; i++)
			if (tracks[i].dataset.variant === v) return tracks[i];
		return null;
	}
	function pair() {
		var a = cmp && byName(cmp.dataset.a), b = cmp && byName(cmp.dataset.b);
		return a && b ? [a, b] : null;
	}
	function sbs() { return state.sbs && !!pair(); }
	function merged() {
		var out = [];
		pair().forEach(function (t, side) {
			var f = figure(t);
			if (!f) return;
			Array.prototype.forEach.call(f.querySelectorAll('.nt-steps li'), function (li) {
				out.push({ t: parseFloat(li.dataset.tMs), side: side, f: f, li: li,
					k: parseInt(li.dataset.step, 10), variant: t.dataset.variant });
			});
		});
		out.sort(function (x, y) { return x.t - y.t || x.side - y.side || x.k - y.k; });
		return out;
	}
	/*
	 * On a projector every label must read at 18 px or more. A ladder the
	 * screen cannot show whole at that size is shown through a window of
	 * its picture: narrowed to what projector mode still draws (side by
	 * side, half the width each), and, when it is taller than the screen,
	 * a band of it that follows the step, with what came before above it.
	 * The picture is the C ladder's; only its viewBox changes, and back.
	 */
	var MIN_PX = 18.5;
	function fit(f, on) {
		var svg = f && $('svg.nt-ladder', f);
		if (!svg || (!on && !svg.dataset.viewBox)) return;
		if (!svg.dataset.viewBox) {
			svg.dataset.viewBox = svg.getAttribute('viewBox');
			svg.dataset.width = svg.getAttribute('width');
			svg.dataset.height = svg.getAttribute('height');
		}
		/* The box's proportions follow width and height: they change with the view. */
		svg.setAttribute('viewBox', svg.dataset.viewBox);
		svg.setAttribute('width', svg.dataset.width);
		svg.setAttribute('height', svg.dataset.height);
		if (!on) return;
		var full = svg.dataset.viewBox.split(' ').map(Number);
		var x0 = full[2], x1 = 0, unit = 1e9, texts = [];
		Array.prototype.forEach.call(svg.querySelectorAll('text, line, path, rect'), function (c) {
			/* Not the background, which spans the whole picture. */
			if (c.tagName === 'rect' && Number(c.getAttribute('width')) >= full[2]) return;
			var cs = getComputedStyle(c);
			if (cs.display === 'none' || (c.parentNode.tagName === 'text' ||
			    !c.getBBox)) return;
			var b = c.getBBox();
			if (!b.width && !b.height) return;
			x0 = Math.min(x0, b.x);
			x1 = Math.max(x1, b.x + b.width);
			if (c.tagName === 'text') {
				unit = Math.min(unit, parseFloat(cs.fontSize));
				if (cs.visibility === 'visible') texts.push(b);
			}
		});
		if (x1 <= x0) return;
		var need = MIN_PX / unit;
		var boxW = svg.parentNode.clientWidth;
		var maxH = parseFloat(getComputedStyle(svg).maxHeight) || innerHeight;
		var vw = full[2], vh = full[3], vx = full[0], vy = full[1];
		if (boxW / vw < need) {
			vw = Math.min(full[2], Math.max(x1 - x0 + 16, boxW / need));
			vx = Math.max(0, Math.min(full[2] - vw, (x0 + x1 - vw) / 2));
		}
		if (maxH / vh < need) {
			vh = maxH / need;
			var shown = svg.querySelectorAll('.nt-st:not(.nt-future)');
			var last = shown.length ? shown[shown.length - 1].getBBox() : null;
			vy = last ? last.y + last.height + 24 - vh : 0;
			vy = Math.max(0, Math.min(full[3] - vh, vy));
			/* No label cut by the window's top edge: start below it. */
			texts.forEach(function (b) {
				if (b.y < vy && b.y + b.height > vy) vy = b.y + b.height + 2;
			});
		}
		svg.setAttribute('viewBox', [vx, vy, vw, vh].map(function (v) {
			return v.toFixed(1);
		}).join(' '));
		svg.setAttribute('width', String(Math.round(vw)));
		svg.setAttribute('height', String(Math.round(vh)));
	}
	/* Fit the figures on screen; give every other one its whole picture back. */
	function fitShown(shown) {
		var on = body.classList.contains('nt-projector');
		Array.prototype.forEach.call(document.querySelectorAll('.nt-round'), function (x) {
			if (shown.indexOf(x) < 0) fit(x, false);
		});
		shown.forEach(function (x) { fit(x, on); });
	}
	function renderSbs() {
		var p = pair();
		state.round = Math.max(1, Math.min(state.round, rounds(p[0]), rounds(p[1])));
		var ev = merged();
		state.step = Math.max(0, Math.min(state.step, ev.length));
		body.classList.add('nt-sbs-on');
		tracks.forEach(function (x) { x.hidden = p.indexOf(x) < 0; });
		var cur = state.step ? ev[state.step - 1] : null;
		p.forEach(function (t) {
			var figs = t.querySelectorAll('.nt-round');
			for (var i = 0; i < figs.length; i++) {
				figs[i].hidden = figs[i].dataset.round !== String(state.round);
				figs[i].classList.add('nt-revealed');
			}
			var f = figure(t), at = 0;
			var none = $('.nt-noladder', t);
			if (none) none.hidden = !!f;
			if (!f) return;
			for (var j = 0; j < state.step; j++)
				if (ev[j].f === f) at = ev[j].k;
			showSteps(f, at, cur && cur.f === f ? cur.k : -1);
			strip(t);
		});
		fitShown(p.map(figure).filter(Boolean));
		$('#nt-step-title').textContent = state.step === 0 ?
			'Both rounds, one clock: press \u2192 to step' :
			'Step ' + state.step + ' of ' + ev.length + ': ' + cur.variant;
		$('#nt-what').textContent = cur ? cur.li.textContent : '';
		$('#nt-why').textContent = cur ? (cur.li.dataset.why || '') : '';
		var kernel = $('#nt-kernel');
		if (kernel) {
			kernel.hidden = !(cur && cur.li.dataset.kernel);
			$('#nt-kernel-text').textContent = cur ? (cur.li.dataset.kernel || '') : '';
		}
		$('#nt-result').textContent = '';
		$('#nt-notes').innerHTML = '';
		$('#nt-guess').hidden = true;
		$('#nt-where').textContent = p[0].dataset.label + ' | ' + p[1].dataset.label +
			', round ' + state.round + ' of ' + Math.min(rounds(p[0]), rounds(p[1]));
		body.dataset.step = String(state.step);
		body.dataset.round = String(state.round);
		body.dataset.sbs = '1';
		return ev.length;
	}

	function panel(f) {
		var li = f ? $('.nt-steps li[data-step="' + state.step + '"]', f) : null;
		var last = f && state.step === nsteps(f);
		$('#nt-step-title').textContent = f ? (state.step === 0 ?
			'Before the round: press \u2192 to step' :
			'Step ' + state.step + ' of ' + nsteps(f)) : 'No ladder for this round';
		$('#nt-what').textContent = li ? li.textContent : (f ? '' :
			(track().dataset.noladder || ''));
		var open = revealed(f);
		/* Before the reveal, a step says only what needs no verdict to say. */
		$('#nt-why').textContent = li ? ((open ? li.dataset.why : li.dataset.plain ||
			li.dataset.why) || '') : '';
		var kernel = $('#nt-kernel');
		if (kernel) {
			kernel.hidden = !(li && li.dataset.kernel && open);
			$('#nt-kernel-text').textContent = li && open ? (li.dataset.kernel || '') : '';
		}
		$('#nt-result').textContent = results[key()] || '';
		var notes = $('#nt-notes');
		notes.innerHTML = '';
		if (f && last && revealed(f)) {
			var src = $('.nt-notes', f);
			if (src) notes.innerHTML = src.innerHTML;
		}
	}

	function strip(t) {
		var cells = t.querySelectorAll('.nt-cell');
		for (var i = 0; i < cells.length; i++) {
			var c = cells[i];
			var from = parseInt(c.dataset.round, 10);
			var to = parseInt(c.dataset.last || c.dataset.round, 10);
			c.classList.toggle('nt-here', state.round >= from && state.round <= to);
			var hide = predicting() && !guessed[state.variant + '/' + from] &&
				!(from === state.round && revealed(figure(t)));
			c.classList.toggle('nt-hide', hide);
			var tip = tips.get(c);
			if (hide) {
				c.removeAttribute('title');
				c.setAttribute('aria-label', 'round ' + from);
			} else if (tip) {
				if (tip.title) c.setAttribute('title', tip.title);
				if (tip.aria) c.setAttribute('aria-label', tip.aria);
			}
		}
	}

	function guess(f) {
		var g = $('#nt-guess');
		var ask = predicting() && f && f.dataset.reveal && !guessed[key()] &&
			state.step + 1 === parseInt(f.dataset.reveal, 10);
		g.hidden = !ask;
		var w = $('#nt-guess-wait');
		if (w) w.hidden = !(ask && asksWait(f) && !waited[key()]);
		var v = $('#nt-guess-verdict');
		if (v) v.hidden = !(ask && !results[key() + '/v']);
		return ask;
	}

	function render() {
		var sb = $('#nt-sbs');
		if (sb) sb.setAttribute('aria-pressed', sbs() ? 'true' : 'false');
		if (sbs()) {
			renderSbs();
			return;
		}
		body.classList.remove('nt-sbs-on');
		delete body.dataset.sbs;
		clamp();
		var t = track();
		tracks.forEach(function (x) { x.hidden = x !== t; });
		var figs = t.querySelectorAll('.nt-round');
		for (var i = 0; i < figs.length; i++)
			figs[i].hidden = figs[i].dataset.round !== String(state.round);
		var f = figure(t);
		var none = $('.nt-noladder', t);
		if (none) none.hidden = !!f;
		if (f) {
			showSteps(f);
			f.classList.toggle('nt-revealed', revealed(f));
		}
		fitShown(f ? [f] : []);
		panel(f);
		strip(t);
		guess(f);
		$('#nt-variant').value = state.variant;
		/* The label counts the verdicts: not while the class is guessing. */
		$('#nt-where').textContent = (predicting() ? state.variant :
			(t.dataset.label || state.variant)) + ', ' +
			(t.dataset.unit || 'round') + ' ' + state.round + ' of ' + rounds(t);
		body.dataset.variant = state.variant;
		body.dataset.round = String(state.round);
		body.dataset.step = String(state.step);
		var h = '#variant=' + encodeURIComponent(state.variant) + '&round=' + state.round +
			'&step=' + state.step;
		if (location.hash !== h && history.replaceState)
			history.replaceState(null, '', h);
	}

	function step(d) {
		if (sbs()) {
			var n = merged().length;
			if (d > 0 && state.step >= n && state.round < Math.min(rounds(pair()[0]),
				rounds(pair()[1]))) {
				state.round++;
				state.step = 0;
			} else {
				state.step += d;
			}
			return render();
		}
		var f = figure(track());
		if (d > 0 && guess(f))
			return;
		if (d > 0 && f && state.step >= nsteps(f) && state.round < rounds(track())) {
			state.round++;
			state.step = 0;
		} else {
			state.step += d;
		}
		render();
	}
	function round(d) { state.round += d; state.step = 0; render(); }
	function variant(d) {
		var i = tracks.indexOf(track());
		state.variant = tracks[(i + d + tracks.length) % tracks.length].dataset.variant;
		render();
	}
	/* The what-if panel: in projector mode it takes the screen; otherwise the page goes to it. */
	function whatIf() {
		var on = body.classList.toggle('nt-whatif');
		$('#nt-whatif').setAttribute('aria-pressed', on ? 'true' : 'false');
		if (on && !body.classList.contains('nt-projector'))
			$('#nt-model').scrollIntoView();
		render();
	}
	function toggle(cls, id) {
		var on = body.classList.toggle(cls);
		$(id).setAttribute('aria-pressed', on ? 'true' : 'false');
		render();
	}

	var BANDS = { lt1: 'under 1 ms', lt10: '1 to 10 ms', lt100: '10 to 100 ms',
		ge100: '100 ms or more' };
	/* Both questions answered (or the only one): the verdict shows, with how it went. */
	function settle(f) {
		if (!results[key() + '/v'] || (asksWait(f) && !waited[key()]))
			return render();
		guessed[key()] = true;
		var text = results[key() + '/v'];
		if (asksWait(f)) {
			var ms = parseFloat(f.dataset.waitMs);
			var band = waitBand(ms);
			text += ' ' + (waited[key()] === band ? 'Right: ' : 'Not quite: ') +
				'the client waited ' + ms.toFixed(3) + ' ms (' + BANDS[band] + ').';
		}
		results[key()] = text;
		state.step++;
		render();
	}
	function answer(v) {
		var f = figure(track());
		if (!f) return;
		var right = v === f.dataset.verdict;
		results[key() + '/v'] = (right ? 'Right: ' : 'Not quite: ') + 'round ' +
			state.round + ' is ' + f.dataset.verdict + '.';
		settle(f);
	}
	function answerWait(b) {
		var f = figure(track());
		if (!f) return;
		waited[key()] = b;
		settle(f);
	}

	document.addEventListener('keydown', function (e) {
		var k = e.key;
		var tag = e.target && e.target.tagName;
		/* A clicker's PageDown/PageUp always step: it takes the keys back from a control. */
		if (tag === 'SELECT' || tag === 'INPUT' || tag === 'TEXTAREA') {
			if (k !== 'PageDown' && k !== 'PageUp' && k !== 'Escape') return;
			e.target.blur();
		}
		if (k === 'ArrowRight' || k === ' ' || k === 'Enter' || k === 'PageDown') step(1);
		else if (k === 'ArrowLeft' || k === 'Backspace' || k === 'PageUp') step(-1);
		else if (k === 'ArrowDown' || k === 'n') round(1);
		else if (k === 'ArrowUp' || k === 'p') round(-1);
		else if (k === 'Escape') return;
		else if (k === 'Home') { state.step = 0; render(); }
		else if (k === 'End') { state.step = 1e9; render(); }
		else if (k === 'v') variant(1);
		else if (k === 'V') variant(-1);
		else if (k === 'f') toggle('nt-projector', '#nt-projector');
		else if (k === 'g') toggle('nt-predict', '#nt-predict');
		else if (k === 'w' && $('#nt-model')) whatIf();
		else if (k === 's' && pair()) { state.sbs = !state.sbs; state.step = 0; render(); }
		else return;
		e.preventDefault();
	});
	document.addEventListener('click', function (e) {
		var el = e.target.closest ? e.target.closest('[data-nt]') : null;
		if (el && el.dataset.nt === 'prev') step(-1);
		else if (el && el.dataset.nt === 'next') step(1);
		else if (el && el.dataset.nt === 'round-') round(-1);
		else if (el && el.dataset.nt === 'round+') round(1);
		else if (el && el.dataset.nt === 'projector') toggle('nt-projector', '#nt-projector');
		else if (el && el.dataset.nt === 'predict') toggle('nt-predict', '#nt-predict');
		else if (el && el.dataset.nt === 'whatif') whatIf();
		else if (el && el.dataset.nt === 'sbs') { state.sbs = !state.sbs; state.step = 0; render(); }
		else if (el && el.dataset.nt === 'guess') answer(el.dataset.verdict);
		else if (el && el.dataset.nt === 'wait') answerWait(el.dataset.band);
		else if (el && el.dataset.nt === 'cell') {
			state.round = parseInt(el.dataset.round, 10);
			state.step = 0;
			render();
		} else if (e.target.closest && e.target.closest('.nt-round')) step(1);
		/* A button clicked keeps no focus: space and Enter step, not press it again. */
		if (el && el.tagName === 'BUTTON') el.blur();
	});
	$('#nt-variant').addEventListener('change', function (e) {
		state.variant = e.target.value;
		/* The keys go back to the lesson: arrows step, not switch variants. */
		e.target.blur();
		render();
	});
	window.addEventListener('hashchange', function () { readHash(); render(); });
	if ($('#nt-model')) {
		var wButton = document.createElement('button');
		wButton.type = 'button';
		wButton.id = 'nt-whatif';
		wButton.dataset.nt = 'whatif';
		wButton.setAttribute('aria-pressed', 'false');
		wButton.title = 'the model: change a knob, see every round (w)';
		wButton.textContent = 'What if';
		$('#nt-projector').parentNode.insertBefore(wButton, $('#nt-projector'));
	}
	if (pair()) {
		/* The bar's own button: side by side or one variant at a time. */
		var sbsButton = document.createElement('button');
		sbsButton.type = 'button';
		sbsButton.id = 'nt-sbs';
		sbsButton.dataset.nt = 'sbs';
		sbsButton.title = 'two variants, the same round, one clock (s)';
		sbsButton.textContent = 'Side by side';
		$('#nt-projector').parentNode.insertBefore(sbsButton, $('#nt-projector'));
	}
	readHash();
	render();
	body.classList.add('nt-ready');
})();
