// SPDX-License-Identifier: MIT
/*
 * model.js - the lesson page's what-if panel (written by
 * src/render/lesson_model.c). The model is nagle-trace's own C
 * (src/model/, entry point predict_wasm.c) compiled to WebAssembly and
 * inlined in base64; this script writes the knobs into the module's linear
 * memory, calls nt_wasm_predict() and draws the JSON it returns: the stall
 * count, the median wait, packets per request, one strip of verdicts beside
 * the measured one, and the selected round's ladder with the rule that
 * decided each segment. It decides nothing itself.
 *
 * State on <section id="nt-model">: data-stalled, data-median-ns,
 * data-ppr (packets per request), data-round, data-departs ("1" when the
 * knobs are not the recorded run's) and data-ms (the last prediction's
 * time), for tests and for the reader.
 */
(function () {
	'use strict';
	var sec = document.getElementById('nt-model');
	var data = document.getElementById('nt-model-data');
	var b64 = document.getElementById('nt-wasm');
	if (!sec || !data || !b64)
		return;
	var runs = JSON.parse(data.textContent).runs;
	var $ = function (sel) { return sec.querySelector(sel); };
	var controls = Array.prototype.slice.call(sec.querySelectorAll('[data-knob]'));
	var wasm = null, index = {}, base = runs[0], knobs = {}, last = null, pick = 1;
	var SVGNS = 'http://www.w3.org/2000/svg';
	var MAX_ROUNDS = 64; /* NT_PREDICT_PAGE_ROUNDS_MAX */

	function bytes(text) {
		var s = atob(text.replace(/\s+/g, ''));
		var u = new Uint8Array(s.length);
		for (var i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
		return u;
	}
	function cstr(p) {
		var m = new Uint8Array(wasm.memory.buffer), q = p;
		while (m[q]) q++;
		return new TextDecoder().decode(m.subarray(p, q));
	}
	/* The module imports a few WASI calls wasi-libc links in; the model never makes them. */
	function imports(mod) {
		var o = {};
		WebAssembly.Module.imports(mod).forEach(function (im) {
			o[im.module] = o[im.module] || {};
			if (im.kind === 'function')
				o[im.module][im.name] = function () { return 52; }; /* ENOSYS */
		});
		return o;
	}
	function predict(k) {
		var v = new Float64Array(wasm.memory.buffer, wasm.nt_wasm_knobs(), wasm.nt_wasm_knob_count());
		Object.keys(index).forEach(function (name) { v[index[name]] = k[name]; });
		var n = wasm.nt_wasm_predict();
		var text = new TextDecoder().decode(new Uint8Array(wasm.memory.buffer,
			wasm.nt_wasm_output(), Math.abs(n)));
		return n < 0 && text.charAt(0) !== '{' ? { error: 'model error ' + n } : JSON.parse(text);
	}

	var NAMES = { header_bytes: 'header', body_bytes: 'body', pattern: 'write pattern',
		client_nodelay: 'client TCP_NODELAY', server_quickack: 'server TCP_QUICKACK',
		route_quickack: 'route quickack', server_nodelay: 'server TCP_NODELAY',
		client_autocork: 'autocorking', pingpong_thresh: 'ping-pong threshold',
		handler_ns: 'handler', write_gap_ns: 'write gap', pause_ns: 'pause', rtt_ns: 'RTT',
		hz: 'HZ', kernel: 'kernel', rounds: 'rounds' };

	function kernelOf(k) { return k.kernel_major + '.' + k.kernel_minor; }
	function fromControls() {
		controls.forEach(function (c) {
			var name = c.dataset.knob;
			if (name === 'kernel') {
				var p = c.value.split('.');
				knobs.kernel_major = parseInt(p[0], 10);
				knobs.kernel_minor = parseInt(p[1], 10);
				knobs.kernel_patch = 0;
				if (kernelOf(base.knobs) === c.value)
					knobs.kernel_patch = base.knobs.kernel_patch;
			} else if (c.type === 'checkbox') {
				knobs[name] = c.checked ? 1 : 0;
			} else {
				var x = parseFloat(c.value) * parseFloat(c.dataset.scale || '1');
				knobs[name] = isFinite(x) ? Math.max(0, Math.round(x)) : base.knobs[name];
			}
		});
	}
	function toControls() {
		controls.forEach(function (c) {
			var name = c.dataset.knob;
			if (name === 'kernel') {
				var v = kernelOf(knobs);
				if (!Array.prototype.some.call(c.options, function (o) { return o.value === v; })) {
					var o = document.createElement('option');
					o.textContent = v;
					c.appendChild(o);
				}
				c.value = v;
			} else if (c.type === 'checkbox') {
				c.checked = !!knobs[name];
			} else {
				c.value = String(knobs[name] / parseFloat(c.dataset.scale || '1'));
			}
		});
	}
	function start(variant) {
		runs.forEach(function (r) { if (r.variant === variant) base = r; });
		knobs = JSON.parse(JSON.stringify(base.knobs));
		knobs.rounds = Math.min(knobs.rounds, MAX_ROUNDS);
		toControls();
		update();
	}

	function ms(ns) {
		var v = ns / 1e6;
		return (v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3)) + ' ms';
	}
	function el(tag, attrs, text, ns) {
		var e = ns ? document.createElementNS(SVGNS, tag) : document.createElement(tag);
		Object.keys(attrs || {}).forEach(function (a) { e.setAttribute(a, attrs[a]); });
		if (text !== undefined) e.textContent = text;
		return e;
	}

	/* What differs from the recorded run: the what-if's departure from the measurement. */
	function departures() {
		var out = [];
		controls.forEach(function (c) {
			var name = c.dataset.knob, changed;
			if (name === 'kernel')
				changed = kernelOf(knobs) !== kernelOf(base.knobs);
			else if (name === 'rounds')
				changed = knobs.rounds !== Math.min(base.knobs.rounds, MAX_ROUNDS);
			else
				changed = knobs[name] !== base.knobs[name];
			c.closest('.nt-knob').classList.toggle('nt-changed', changed);
			if (changed) out.push(NAMES[name] || name);
		});
		return out;
	}

	/* The measured verdicts of the recorded run, as the lesson's strip shows them. */
	function measured() {
		var m = {};
		var t = document.querySelector('.nt-track[data-variant="' + CSS.escape(base.variant) + '"]');
		if (!t || !base.measured) return m;
		t.querySelectorAll('.nt-cell[data-round]').forEach(function (c) {
			var v = Array.prototype.filter.call(c.classList, function (k) {
				return k.indexOf('v-') === 0;
			})[0];
			if (!c.dataset.last && v) m[c.dataset.round] = v.slice(2);
		});
		return m;
	}

	function strips(pred, meas, departs) {
		var box = $('#nt-model-strips');
		box.innerHTML = '';
		function row(label, cells) {
			var r = el('div', { 'class': 'nt-model-row' });
			r.appendChild(el('span', { 'class': 'nt-model-rowlabel' }, label));
			var s = el('div', { 'class': 'nt-strip nt-model-strip' });
			cells.forEach(function (c) { s.appendChild(c); });
			r.appendChild(s);
			box.appendChild(r);
		}
		var max = 1;
		pred.rounds.forEach(function (r) { max = Math.max(max, r.client_wait_ns || 0); });
		var cells = pred.rounds.map(function (r) {
			var h = Math.max(0.15, Math.log(Math.max(r.client_wait_ns || 0, 1e4) / 1e4) /
				Math.log(Math.max(max, 2e4) / 1e4));
			var b = el('button', { type: 'button', 'class': 'nt-cell v-' + r.verdict +
				(r.index === pick ? ' nt-here' : ''), 'data-model-round': String(r.index),
				style: '--h:' + h.toFixed(2),
				title: 'round ' + r.index + ': ' + r.verdict + ', client waits ' + ms(r.client_wait_ns || 0),
				'aria-label': 'model round ' + r.index + ' ' + r.verdict });
			if (!departs && meas[r.index] && meas[r.index] !== r.verdict &&
			    r.verdicts.indexOf(meas[r.index]) < 0)
				b.classList.add('nt-differs');
			return b;
		});
		row(departs ? 'what-if' : 'model', cells);
		if (Object.keys(meas).length) {
			row('measured', pred.rounds.map(function (r) {
				var v = meas[r.index];
				return el('span', { 'class': 'nt-cell ' + (v ? 'v-' + v : '') +
					(departs ? ' nt-stale' : ''), style: '--h:1',
					title: v ? 'measured round ' + r.index + ': ' + v : 'not measured' });
			}));
		}
	}

	/*
	 * Where each end of each segment goes down the page: the times are the
	 * model's (each segment's client_ns and target_ns, write(body)'s
	 * return), so a lane's points keep the simulation's order. One band per
	 * instant: first what arrives then, then what leaves then, a row each, so
	 * segments of one instant (no RTT, everything in one jiffy) stay apart.
	 */
	/*
	 * Segments no decision of their own sent (the full segments of a long
	 * body), one after another in the same direction and size, are one row:
	 * "body 1448 B x12" at the first one's times.
	 */
	function collapse(ladder) {
		var out = [];
		ladder.forEach(function (s) {
			var p = out[out.length - 1];
			if (p && !s.why && !p.why && p.dir === s.dir && p.what === s.what &&
			    p.bytes === s.bytes && !s.first) {
				p.count++;
				return;
			}
			out.push(Object.assign({ count: 1 }, s));
		});
		return out;
	}

	function rows(r, segs, top, stepH, arrH) {
		var ends = [];
		segs.forEach(function (s, i) {
			var dep = s.dir === 'c2t' ? s.client_ns : s.target_ns;
			var arr = s.dir === 'c2t' ? s.target_ns : s.client_ns;
			ends.push({ t: dep, k: 1, i: i, dep: true });
			if (arr !== dep) ends.push({ t: arr, k: 0, i: i, dep: false });
		});
		/* write(body) returns after B leaves, or before, when B waits in the queue. */
		var b = segs.findIndex(function (s) { return s.what.indexOf('body') >= 0 && s.first; });
		var wi = b < 0 ? segs.length : b + (r.body_held ? -0.5 : 0.5);
		if (r.write_body_ns !== null)
			ends.push({ t: r.write_body_ns, k: 1, i: wi, dep: true, w: true });
		/* An instant's arrivals first (an ACK releases what leaves with it), then sends in order. */
		ends.sort(function (x, y) { return x.t - y.t || x.k - y.k || x.i - y.i; });
		var y = top, prev = null, at = {}, breaks = [];
		ends.forEach(function (e) {
			if (prev !== null && e.t - prev >= 5e6) {
				breaks.push({ y: y + 4, gap: e.t - prev });
				y += 30;
			}
			prev = e.t;
			/* Room to say what the ladder left out, before the reply it always keeps. */
			if (e.dep && e.i === segs.length - 1 && r.ladder_dropped) {
				at.dropped = y + 8;
				y += 34;
			}
			at[e.w ? 'w' : e.i + (e.dep ? 'd' : 'a')] = y;
			/* write(body)'s mark needs room for the label of what leaves after it. */
			y += e.w ? 40 : e.dep ? stepH : arrH;
		});
		return { at: at, breaks: breaks, bottom: y };
	}

	/* The round's ladder: client and target, each segment with the rule that sent it. */
	function ladder(r) {
		var box = $('#nt-model-ladder');
		box.innerHTML = '';
		var W = 640, L = 160, R = 500, top = 56, slant = 18;
		var segs = collapse(r.ladder);
		var pos = rows(r, segs, top, 48, 24);
		var H = pos.bottom + 36;
		var svg = el('svg', { viewBox: '0 0 ' + W + ' ' + H, 'class': 'nt-model-svg',
			role: 'img', 'aria-label': 'model ladder, round ' + r.index }, undefined, true);
		svg.appendChild(el('text', { x: L, y: 22, 'text-anchor': 'middle', 'class': 'nt-ml-end' },
			'client', true));
		svg.appendChild(el('text', { x: R, y: 22, 'text-anchor': 'middle', 'class': 'nt-ml-end' },
			'target', true));
		svg.appendChild(el('line', { x1: L, y1: 30, x2: L, y2: H - 24, 'class': 'nt-ml-axis' }, undefined, true));
		svg.appendChild(el('line', { x1: R, y1: 30, x2: R, y2: H - 24, 'class': 'nt-ml-axis' }, undefined, true));
		pos.breaks.forEach(function (b) {
			svg.appendChild(el('text', { x: L - 8, y: b.y + 10, 'text-anchor': 'end',
				'class': 'nt-ml-wait' }, '\u22ee ' + ms(b.gap), true));
		});
		if (r.write_body_ns !== null) {
			var wy = pos.at.w;
			svg.appendChild(el('line', { x1: L - 10, y1: wy, x2: L + 10, y2: wy,
				'class': 'nt-ml-axis' }, undefined, true));
			svg.appendChild(el('text', { x: L + 14, y: wy + 6, 'class': 'nt-ml-time' },
				'write(body) +' + ms(r.write_body_ns), true));
		}
		segs.forEach(function (s, i) {
			var c2t = s.dir === 'c2t';
			var y0 = pos.at[i + 'd'];
			var y1 = pos.at[i + 'a'] !== undefined ? pos.at[i + 'a'] : y0 + slant;
			var yc = c2t ? y0 : y1; /* where it passes the client's end: the capture */
			var x0 = c2t ? L : R, x1 = c2t ? R - 4 : L + 4, dx = c2t ? -1 : 1;
			var held = s.why && s.why.rule === 'released_by_ack';
			var g = el('g', { 'class': 'nt-ml-seg ' + (c2t ? 'nt-c2t' : 'nt-t2c') +
				(held ? ' nt-ml-held' : '') }, undefined, true);
			g.appendChild(el('line', { x1: x0, y1: y0, x2: x1, y2: y1, 'class': 'nt-ml-arrow' },
				undefined, true));
			g.appendChild(el('path', { d: 'M' + x1 + ',' + y1 + ' l' + (dx * 16) + ',-7 l0,14Z',
				'class': 'nt-ml-head' }, undefined, true));
			/* Above its start, clear of the line, which runs down and away from it. */
			g.appendChild(el('text', { x: c2t ? L + 12 : R - 12, y: y0 - 8,
				'text-anchor': c2t ? 'start' : 'end', 'class': 'nt-ml-label' }, s.what + (s.bytes ? ' ' + s.bytes + ' B' : '') +
				(s.count > 1 ? ' \u00d7' + s.count : '') +
				(s.why ? ' \u2014 ' + s.why.rule : ''), true));
			g.appendChild(el('text', { x: L - 8, y: yc + 6, 'text-anchor': 'end',
				'class': 'nt-ml-time' }, '+' + ms(s.client_ns), true));
			g.appendChild(el('title', {}, s.why ? s.why.text : s.what, true));
			svg.appendChild(g);
		});
		if (r.ladder_dropped)
			svg.appendChild(el('text', { x: (L + R) / 2, y: pos.at.dropped,
				'text-anchor': 'middle', 'class': 'nt-ml-wait' }, '\u2026 ' + r.ladder_dropped +
				' more segments before the reply', true));
		svg.appendChild(el('text', { x: (L + R) / 2, y: H - 6, 'text-anchor': 'middle',
			'class': 'nt-ml-time' }, r.client_wait_ns === null ? 'the reply never came' :
			'the client waits ' + ms(r.client_wait_ns), true));
		box.appendChild(svg);
		/*
		 * On a projector no label may read under 18 px: a ladder with more
		 * rows is drawn smaller, so its text is set larger to make up for it.
		 */
		if (document.body.classList.contains('nt-projector') && svg.getScreenCTM()) {
			var px = parseFloat(getComputedStyle(svg).fontSize) * svg.getScreenCTM().a;
			if (px > 0 && px < 18.5)
				svg.style.fontSize = (parseFloat(getComputedStyle(svg).fontSize) * 18.5 / px)
					.toFixed(1) + 'px';
		}
		var list = el('ol', { 'class': 'nt-ml-why' });
		r.ladder.forEach(function (s) {
			if (!s.why) return;
			var li = el('li');
			li.appendChild(el('strong', {}, s.what + ' +' + ms(s.client_ns) + ': '));
			li.appendChild(document.createTextNode(s.why.text + ' (' + s.why.rule + ')'));
			list.appendChild(li);
		});
		var v = el('li');
		v.appendChild(el('strong', {}, 'verdict ' + r.verdict + ': '));
		v.appendChild(document.createTextNode(r.why.verdict ? r.why.verdict.text : ''));
		list.appendChild(v);
		box.appendChild(list);
	}

	function update() {
		if (!wasm) return;
		var t0 = performance.now();
		fromControls();
		var pred = predict(knobs);
		var dt = performance.now() - t0;
		last = pred;
		var stats = $('#nt-model-stats');
		var dep = $('#nt-depart');
		if (pred.error) {
			stats.textContent = 'The model does not take these knobs: ' + pred.error;
			sec.dataset.stalled = '';
			return;
		}
		var changed = departures();
		var departs = base.measured && changed.length > 0;
		sec.classList.toggle('nt-departs', departs);
		dep.textContent = !base.measured ? 'Predicted only: nothing on this page was measured.' :
			departs ? 'What-if, not measured: ' + changed.join(', ') +
				(changed.length === 1 ? ' differs' : ' differ') + ' from the recorded run (' +
				base.variant + ').' :
			'The recorded run\u2019s knobs: the model beside what was measured.';
		var s = pred.summary;
		pick = Math.max(1, Math.min(pick, pred.rounds.length));
		stats.textContent = s.verdicts.stalled + ' of ' + s.rounds + ' rounds stalled; ' +
			'the client waits ' + ms(s.median_wait_ns) + ' (median, on the model\u2019s nominal ' +
			'path); ' +
			s.packets_per_request.toFixed(1) + ' client packets per request; MSS ' +
			pred.knobs.mss + ', ping-pong threshold ' + pred.knobs.pingpong_thresh + '.';
		sec.dataset.stalled = String(s.verdicts.stalled);
		sec.dataset.medianNs = String(s.median_wait_ns);
		sec.dataset.ppr = String(s.packets_per_request);
		sec.dataset.round = String(pick);
		sec.dataset.departs = departs ? '1' : '0';
		sec.dataset.verdicts = pred.rounds.map(function (r) { return r.verdict; }).join(',');
		strips(pred, measured(), departs);
		ladder(pred.rounds[pick - 1]);
		sec.dataset.ms = (performance.now() - t0).toFixed(1);
		sec.dataset.modelMs = dt.toFixed(1);
	}

	sec.addEventListener('input', function (e) {
		if (e.target.dataset.knob) update();
	});
	sec.addEventListener('change', function (e) {
		if (e.target.dataset.knob) update();
		if (e.target.id === 'nt-model-run') start(e.target.value);
		/* Give the keys back to the lesson: arrows step, not change the control. */
		if (e.target.tagName === 'SELECT' || e.target.type === 'checkbox') e.target.blur();
	});
	sec.addEventListener('click', function (e) {
		var c = e.target.closest ? e.target.closest('[data-model-round]') : null;
		if (c) { pick = parseInt(c.dataset.modelRound, 10); update(); }
		if (e.target.id === 'nt-model-reset') { start(base.variant); e.target.blur(); }
	});
	/* The lesson's round is the panel's round. */
	new MutationObserver(function () {
		var r = parseInt(document.body.dataset.round, 10);
		var v = document.body.dataset.variant;
		if (v && v !== base.variant && runs.some(function (x) { return x.variant === v; })) {
			$('#nt-model-run').value = v;
			pick = r || pick;
			start(v);
		} else if (r && r !== pick) {
			pick = r;
			update();
		}
	}).observe(document.body, { attributes: true, attributeFilter: ['data-round', 'data-variant'] });
	/* Projector mode and the what-if view size the ladder's text (ladder()): draw it again. */
	var modes = document.body.className;
	new MutationObserver(function () {
		if (document.body.className === modes) return;
		modes = document.body.className;
		update();
	}).observe(document.body, { attributes: true, attributeFilter: ['class'] });

	WebAssembly.compile(bytes(b64.textContent)).then(function (mod) {
		return WebAssembly.instantiate(mod, imports(mod));
	}).then(function (inst) {
		wasm = inst.exports;
		if (wasm._initialize) wasm._initialize();
		for (var i = 0; i < wasm.nt_wasm_knob_count(); i++)
			index[cstr(wasm.nt_wasm_knob_name(i))] = i;
		pick = parseInt(document.body.dataset.round, 10) || 1;
		var v = document.body.dataset.variant;
		start(runs.some(function (x) { return x.variant === v; }) ? v : runs[0].variant);
		$('#nt-model-run').value = base.variant;
		sec.classList.add('nt-model-ready');
	}).catch(function (e) {
		$('#nt-model-stats').textContent = 'The model did not load: ' + e;
	});
})();
