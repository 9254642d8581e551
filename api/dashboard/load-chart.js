// The live page of a load test: status and totals from Server-Sent Events, and three small SVG charts
// (requests per second, error rate, latency p50/p95/p99) that grow by one point a second. When the
// test has ended, the page shows the requests sent in each second of it.
(() => {
  const statusEl = document.getElementById('load-status');
  const totalsEl = document.getElementById('load-totals');
  const box = document.getElementById('load-chart');
  if (!statusEl || !box) return;
  const NS = 'http://www.w3.org/2000/svg';
  const W = 600;
  const H = 140;

  const svg = (title, lines, unit) => {
    const root = document.createElementNS(NS, 'svg');
    root.setAttribute('viewBox', `0 0 ${W} ${H + 20}`);
    root.setAttribute('role', 'img');
    root.setAttribute('aria-label', title);
    root.style.width = '100%';
    root.style.maxWidth = `${W}px`;
    const top = Math.max(1, ...lines.flatMap((l) => l.values));
    const max = top * 1.15; // headroom: a flat line does not sit on the frame
    const n = Math.max(2, ...lines.map((l) => l.values.length));
    const label = document.createElementNS(NS, 'text');
    label.setAttribute('x', '4');
    label.setAttribute('y', '14');
    label.setAttribute('font-size', '13');
    label.textContent = `${title} (max ${Math.round(top * 100) / 100} ${unit})`;
    root.append(label);
    lines.forEach((l, i) => {
      const points = l.values.map((v, x) => `${(x / (n - 1)) * W},${20 + H - (v / max) * H}`).join(' ');
      const line = document.createElementNS(NS, 'polyline');
      line.setAttribute('points', points);
      line.setAttribute('fill', 'none');
      line.setAttribute('stroke', l.color);
      line.setAttribute('stroke-width', '2');
      root.append(line);
      if (lines.length > 1) {
        const key = document.createElementNS(NS, 'text');
        key.setAttribute('x', String(W - 60 * (lines.length - i)));
        key.setAttribute('y', '14');
        key.setAttribute('font-size', '12');
        key.setAttribute('fill', l.color);
        key.textContent = l.name;
        root.append(key);
      }
    });
    return root;
  };

  const points = [];
  const draw = () => {
    box.replaceChildren(
      svg('Requests per second', [{ name: 'rps', color: '#1f5fbf', values: points.map((p) => p.requests_per_second) }], 'req/s'),
      svg('Error rate', [{ name: 'errors', color: '#a40e26', values: points.map((p) => p.error_rate) }], '%'),
      svg('Latency', [
        { name: 'p50', color: '#1a7f37', values: points.map((p) => p.p50_response_time) },
        { name: 'p95', color: '#9a6700', values: points.map((p) => p.p95_response_time) },
        { name: 'p99', color: '#a40e26', values: points.map((p) => p.p99_response_time) },
      ], 'ms'),
    );
    box.dataset.points = String(points.length);
  };

  if (statusEl.dataset.ended === 'yes') {
    const series = JSON.parse(box.dataset.series || '[]');
    box.replaceChildren(svg('Requests sent in each second', [{ name: 'rps', color: '#1f5fbf', values: series }], 'req/s'));
    box.dataset.points = String(series.length);
    return;
  }

  const source = new EventSource(`/dashboard/load-tests/${encodeURIComponent(statusEl.dataset.test)}/events`);
  source.addEventListener('status', (event) => {
    const s = JSON.parse(event.data);
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
