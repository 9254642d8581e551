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
  const W = 640;
  const H = 220;
  const M = { left: 84, right: 16, top: 30, bottom: 44 }; // room for the tick labels and axis titles
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;

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
  const chart = (title, unit, xs, lines) => {
    const root = el('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}, in ${unit}, by seconds since the start` });
    root.style.width = '100%';
    root.style.maxWidth = `${W}px`;
    const yTicks = ticks(Math.max(0, ...lines.flatMap((l) => l.values)));
    const top = yTicks[yTicks.length - 1];
    const xTicks = ticks(Math.max(1, xs.length ? xs[xs.length - 1] : 1));
    const span = xTicks[xTicks.length - 1];
    const x = (s) => M.left + (s / span) * plotW;
    const y = (v) => M.top + plotH - (v / top) * plotH;
    root.append(el('text', { x: M.left, y: 16, 'font-size': 14, 'font-weight': 600 }, `${title} (${unit})`));
    // Horizontal grid lines with the unit's values up the side.
    for (const v of yTicks) {
      root.append(el('line', { x1: M.left, x2: M.left + plotW, y1: y(v), y2: y(v), stroke: v === 0 ? '#57606a' : '#d0d7de', 'stroke-width': 1 }));
      root.append(el('text', { x: M.left - 6, y: y(v) + 4, 'font-size': 12, 'text-anchor': 'end', class: 'tick-y' }, `${v} ${unit}`));
    }
    // Seconds across, at round values.
    root.append(el('line', { x1: M.left, x2: M.left, y1: M.top, y2: M.top + plotH, stroke: '#57606a', 'stroke-width': 1 }));
    for (const s of xTicks) {
      root.append(el('line', { x1: x(s), x2: x(s), y1: M.top + plotH, y2: M.top + plotH + 4, stroke: '#57606a' }));
      root.append(el('text', { x: x(s), y: M.top + plotH + 18, 'font-size': 12, 'text-anchor': 'middle', class: 'tick-x' }, `${s} s`));
    }
    root.append(el('text', { x: M.left + plotW / 2, y: H - 6, 'font-size': 12, 'text-anchor': 'middle', class: 'axis-x' }, 'seconds since the start'));
    lines.forEach((l, i) => {
      const points = l.values.map((v, k) => `${x(xs[k] ?? k)},${y(v)}`).join(' ');
      root.append(el('polyline', { points, fill: 'none', stroke: l.color, 'stroke-width': 2 }));
      if (lines.length > 1) root.append(el('text', { x: W - M.right - 64 * (lines.length - i), y: 16, 'font-size': 12, fill: l.color }, `— ${l.name}`));
    });
    return root;
  };

  if (statusEl.dataset.ended === 'yes') {
    const r = JSON.parse(box.dataset.series || '{}');
    const rps = r.requests_per_second ?? [];
    const xs = rps.map((_, i) => i);
    box.replaceChildren(
      chart('Requests sent each second', 'req/s', xs, [{ name: 'sent', color: '#1f5fbf', values: rps }]),
      chart('Error rate of each second', '%', xs, [{ name: 'errors', color: '#a40e26', values: r.error_rate_per_second ?? [] }]),
      chart('Latency of each second', 'ms', xs, [
        { name: 'mean', color: '#1a7f37', values: r.avg_response_time_per_second ?? [] },
        { name: 'max', color: '#a40e26', values: r.max_response_time_per_second ?? [] },
      ]),
    );
    box.dataset.points = String(rps.length);
    return;
  }

  const points = [];
  // The test's start (epoch ms), from the page and then from each status event once it is known.
  let startedAt = Date.parse(statusEl.dataset.started || '');
  const draw = () => {
    const t0 = Number.isNaN(startedAt) ? points[0].at : startedAt;
    const xs = points.map((p) => Math.max(0, Math.round((p.at - t0) / 100) / 10));
    box.replaceChildren(
      chart('Requests per second', 'req/s', xs, [{ name: 'rps', color: '#1f5fbf', values: points.map((p) => p.requests_per_second) }]),
      chart('Error rate', '%', xs, [{ name: 'errors', color: '#a40e26', values: points.map((p) => p.error_rate) }]),
      chart('Latency', 'ms', xs, [
        { name: 'p50', color: '#1a7f37', values: points.map((p) => p.p50_response_time) },
        { name: 'p95', color: '#9a6700', values: points.map((p) => p.p95_response_time) },
        { name: 'p99', color: '#a40e26', values: points.map((p) => p.p99_response_time) },
      ]),
    );
    box.dataset.points = String(points.length);
  };

  const source = new EventSource(`/dashboard/load-tests/${encodeURIComponent(statusEl.dataset.test)}/events`);
  source.addEventListener('status', (event) => {
    const s = JSON.parse(event.data);
    if (s.started_at) startedAt = Date.parse(s.started_at);
    statusEl.textContent = `Status ${s.status}, ${s.progress}% done${s.failure_reason ? `: ${s.failure_reason}` : ''}`;
    const m = s.metrics;
    totalsEl.textContent = `${m.total_requests} requests, ${m.throughput} per second, ${m.error_rate}% errors, average ${m.avg_response_time} ms`;
    if (s.status !== 'pending' && s.status !== 'running') {
      source.close();
      setTimeout(() => location.reload(), 300);
    }
  });
  source.addEventListener('point', (event) => {
    points.push(JSON.parse(event.data));
    draw();
  });
})();
