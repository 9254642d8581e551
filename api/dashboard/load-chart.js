// The charts of a load test's page: requests per second, error rate and latency, each an SVG with
// its axes (seconds since the start across, the unit up the side, round tick values) and a legend.
// While the test runs they grow by one point a second from Server-Sent Events (latency as the p50,
// p95 and p99 of each second); once it has ended they show the results kept with the test (each
// second's mean and slowest latency, which merge exactly across shards).
(() => {
  const statusEl = document.getElementById('load-status');
  const totalsEl = document.getElementById('load-totals');
  const box = document.getElementById('load-chart');
  if (!statusEl || !box) return;
  const NS = 'http://www.w3.org/2000/svg';
  const H = 220;
  // Drawn at the width the page gives it (one SVG unit a pixel), so that the 12-px text stays 12 px
  // on a phone instead of shrinking with a scaled drawing; drawn again when that width changes.
  const widthNow = () => Math.max(280, Math.min(960, Math.floor(box.clientWidth || 640)));
  /** The test's length in seconds (the live charts span it from the start). */
  const duration = Number(statusEl.dataset.duration) || 0;

  const el = (name, attrs, text) => {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  };
  /** The smallest 1, 2 or 5 times a power of ten at or above `v`: a round step between ticks. */
  const niceStep = (v) => {
    const p = 10 ** Math.floor(Math.log10(v));
    return [1, 2, 5, 10].map((m) => m * p).find((n) => n >= v * (1 - 1e-9));
  };
  /** Round ticks from 0 to at least `max`: at most five, one step apart. */
  const ticks = (max) => {
    const step = niceStep((max > 0 ? max : 1) / 4);
    const count = Math.max(1, Math.ceil(max / step - 1e-9));
    return Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(6)));
  };

  /** One chart: `xs` in seconds since the start, `lines` of values in `unit`. */
  const chart = (title, unit, xs, lines, span0 = 0) => {
    const W = widthNow();
    const narrow = W < 480;
    // Room for the tick labels and axis titles; on a narrow chart the legend goes under the title.
    const M = { left: narrow ? 72 : 84, right: 12, top: narrow && lines.length > 1 ? 44 : 30, bottom: 44 };
    const plotW = W - M.left - M.right;
    const plotH = H - M.top - M.bottom;
    const root = el('svg', {
      viewBox: `0 0 ${W} ${H}`,
      width: W,
      height: H,
      role: 'img',
      'aria-label': `${title}, in ${unit}, by seconds since the start`,
    });
    root.style.maxWidth = '100%';
    const yTicks = ticks(Math.max(0, ...lines.flatMap((l) => l.values)));
    const top = yTicks[yTicks.length - 1];
    const xTicks = ticks(Math.max(1, span0, xs.length ? xs[xs.length - 1] : 1));
    const span = xTicks[xTicks.length - 1];
    const x = (s) => M.left + (s / span) * plotW;
    const y = (v) => M.top + plotH - (v / top) * plotH;
    root.append(el('text', { x: 4, y: 16, 'font-size': 14, 'font-weight': 600 }, `${title} (${unit})`));
    // Horizontal grid lines with the unit's values up the side.
    for (const v of yTicks) {
      root.append(
        el('line', {
          x1: M.left,
          x2: M.left + plotW,
          y1: y(v),
          y2: y(v),
          stroke: v === 0 ? '#57606a' : '#d0d7de',
          'stroke-width': 1,
        }),
      );
      root.append(
        el(
          'text',
          { x: M.left - 6, y: y(v) + 4, 'font-size': 12, 'text-anchor': 'end', class: 'tick-y' },
          `${v} ${unit}`,
        ),
      );
    }
    // Seconds across, at round values.
    root.append(
      el('line', { x1: M.left, x2: M.left, y1: M.top, y2: M.top + plotH, stroke: '#57606a', 'stroke-width': 1 }),
    );
    for (const s of xTicks) {
      root.append(el('line', { x1: x(s), x2: x(s), y1: M.top + plotH, y2: M.top + plotH + 4, stroke: '#57606a' }));
      root.append(
        el(
          'text',
          { x: x(s), y: M.top + plotH + 18, 'font-size': 12, 'text-anchor': 'middle', class: 'tick-x' },
          `${s} s`,
        ),
      );
    }
    root.append(
      el(
        'text',
        { x: M.left + plotW / 2, y: H - 6, 'font-size': 12, 'text-anchor': 'middle', class: 'axis-x' },
        'seconds since the start',
      ),
    );
    // The legend, right-aligned: each entry as wide as its text (about 7 px a character at 12 px).
    let legendX = W - M.right;
    [...lines].reverse().forEach((l) => {
      if (lines.length < 2) return;
      root.append(
        el(
          'text',
          { x: legendX, y: narrow ? 32 : 16, 'font-size': 12, 'text-anchor': 'end', fill: l.color },
          `— ${l.name}`,
        ),
      );
      legendX -= 7 * (l.name.length + 2) + 12;
    });
    for (const l of lines) {
      const points = l.values.map((v, k) => `${x(xs[k] ?? k)},${y(v)}`).join(' ');
      root.append(el('polyline', { points, fill: 'none', stroke: l.color, 'stroke-width': 2 }));
    }
    return root;
  };

  /** Draws the charts with `draw` now and again whenever the page's width changes. */
  let redraw = () => {};
  let lastWidth = 0;
  new ResizeObserver(() => {
    if (widthNow() !== lastWidth) redraw();
  }).observe(box);
  const drawing = (draw) => {
    redraw = () => {
      lastWidth = widthNow();
      draw();
    };
    redraw();
  };

  if (statusEl.dataset.ended === 'yes') {
    const r = JSON.parse(box.dataset.series || '{}');
    const rps = r.requests_per_second ?? [];
    const xs = rps.map((_, i) => i);
    drawing(() =>
      box.replaceChildren(
        chart('Requests sent each second', 'req/s', xs, [{ name: 'sent', color: '#1f5fbf', values: rps }]),
        chart('Error rate of each second', '%', xs, [
          { name: 'errors', color: '#a40e26', values: r.error_rate_per_second ?? [] },
        ]),
        chart('Latency of each second', 'ms', xs, [
          { name: 'mean', color: '#1a7f37', values: r.avg_response_time_per_second ?? [] },
          { name: 'max', color: '#a40e26', values: r.max_response_time_per_second ?? [] },
        ]),
      ),
    );
    box.dataset.points = String(rps.length);
    return;
  }

  const points = [];
  // The test's start (epoch ms), from the page and then from each status event once it is known.
  let startedAt = Date.parse(statusEl.dataset.started || '');
  const draw = () => {
    if (!points.length) return;
    const t0 = Number.isNaN(startedAt) ? points[0].at : startedAt;
    const xs = points.map((p) => Math.max(0, Math.round((p.at - t0) / 100) / 10));
    box.replaceChildren(
      chart(
        'Requests per second',
        'req/s',
        xs,
        [{ name: 'rps', color: '#1f5fbf', values: points.map((p) => p.requests_per_second) }],
        duration,
      ),
      chart(
        'Error rate',
        '%',
        xs,
        [{ name: 'errors', color: '#a40e26', values: points.map((p) => p.error_rate) }],
        duration,
      ),
      chart(
        'Latency',
        'ms',
        xs,
        [
          { name: 'p50', color: '#1a7f37', values: points.map((p) => p.p50_response_time) },
          { name: 'p95', color: '#9a6700', values: points.map((p) => p.p95_response_time) },
          { name: 'p99', color: '#a40e26', values: points.map((p) => p.p99_response_time) },
        ],
        duration,
      ),
    );
    box.dataset.points = String(points.length);
  };
  drawing(draw);

  /** The verdict so far and each threshold's figure, from a status event. */
  const verdictEl = document.getElementById('load-verdict');
  const showThresholds = (s) => {
    if (!verdictEl || !s.thresholds?.length) return;
    const passing = s.thresholds.every((t) => t.pass);
    const shown = s.verdict ?? (passing ? 'passing so far' : 'failing so far');
    const cell = (text, label) => {
      const td = document.createElement('td');
      td.dataset.label = label;
      td.textContent = text;
      return td;
    };
    const rows = s.thresholds.map((t) => {
      const tr = document.createElement('tr');
      if (!t.pass) tr.className = 'failed';
      const code = document.createElement('code');
      code.textContent = t.threshold;
      const first = cell('', 'Threshold');
      first.append(code);
      tr.append(first, cell(String(t.observed), 'Observed'), cell(t.pass ? 'pass' : 'fail', 'Outcome'));
      return tr;
    });
    // A page drawn before the first figures has the section empty: its skeleton first.
    if (!verdictEl.querySelector('tbody')) {
      verdictEl.innerHTML =
        '<h2>Verdict: <span class="outcome"></span></h2><div class="table-wrap"><table class="reflow" id="load-thresholds"><thead><tr><th scope="col">Threshold</th><th scope="col">Observed</th><th scope="col">Outcome</th></tr></thead><tbody></tbody></table></div>';
    }
    const heading = verdictEl.querySelector('h2 .outcome');
    const body = verdictEl.querySelector('tbody');
    if (!heading || !body) return;
    heading.textContent = shown;
    heading.className = `outcome ${shown.includes('fail') ? 'failed' : 'passed'}`;
    body.replaceChildren(...rows);
    verdictEl.hidden = false;
  };

  const stopForm = document.getElementById('load-stop');
  const source = new EventSource(`/dashboard/load-tests/${encodeURIComponent(statusEl.dataset.test)}/events`);
  source.addEventListener('status', (event) => {
    const s = JSON.parse(event.data);
    if (s.started_at) startedAt = Date.parse(s.started_at);
    statusEl.textContent = `Status ${s.status}, ${s.progress}% done${s.failure_reason ? `: ${s.failure_reason}` : ''}`;
    const m = s.metrics;
    totalsEl.textContent = `${m.total_requests} requests, ${m.throughput} per second, ${m.error_rate}% errors, average ${m.avg_response_time} ms`;
    showThresholds(s);
    const ended = s.status !== 'pending' && s.status !== 'running';
    if (stopForm) stopForm.hidden = ended;
    if (ended) {
      source.close();
      setTimeout(() => location.reload(), 300);
    }
  });
  source.addEventListener('point', (event) => {
    points.push(JSON.parse(event.data));
    draw();
  });
})();
