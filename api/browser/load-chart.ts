// The charts of a running load test's page: requests per second, error rate and latency (p50, p95,
// p99 of each interval), drawn by load-figures.ts (the code that draws the report's and an ended
// test's charts on the server) at the width of their box, and drawn again as a point arrives each
// second from Server-Sent Events or the width changes. The totals line shows the last second's rate
// beside the average since the start. Once the test ends the page reloads, and the server draws it.
import { chartFigures, COLORS, observedFigure } from './load-figures.ts';

/** A second's point of the chart stream (api/services/load-tests/load-tests.ts, chartStream). */
interface Point {
  at: number;
  requests_per_second: number;
  p50_response_time: number | null;
  p95_response_time: number | null;
  p99_response_time: number | null;
  error_rate: number;
}

/** A status event: the status answer of the REST API. */
interface Status {
  status: string;
  progress: number;
  started_at?: string | null;
  failure_reason?: string | null;
  metrics: Record<string, number>;
  thresholds?: Array<{ threshold: string; observed: number; pass: boolean }>;
  verdict?: string | null;
}

const statusEl = document.getElementById('load-status');
const box = document.getElementById('load-chart');
if (statusEl && box && statusEl.dataset.ended !== 'yes') follow(statusEl, box);

function follow(statusEl: HTMLElement, box: HTMLElement) {
  /** The test's length in seconds (the charts span it from the start). */
  const duration = Number(statusEl.dataset.duration) || 0;
  const figure = (id: string, text: unknown) => {
    const el = document.getElementById(id);
    if (el) el.textContent = String(text);
  };
  const points: Point[] = [];
  // The test's start (epoch ms), from the page and then from each status event once it is known.
  let startedAt = Date.parse(statusEl.dataset.started || '');
  let lastWidth = 0;
  const draw = () => {
    lastWidth = Math.floor(box.clientWidth);
    if (!points.length || lastWidth < 100) return;
    const t0 = Number.isNaN(startedAt) ? points[0]!.at : startedAt;
    const xs = points.map((p) => Math.max(0, (p.at - t0) / 1000));
    const frame = [{ name: 'live', width: lastWidth, height: lastWidth < 480 ? 250 : 260 }];
    const of = (k: Exclude<keyof Point, 'at'>) => points.map((p) => p[k]);
    box.innerHTML = chartFigures(
      [
        {
          name: 'requests',
          caption: 'Requests per second',
          unit: 'req/s',
          whole: true,
          xs,
          span: duration,
          lines: [{ label: 'sent', color: COLORS.a, values: of('requests_per_second') }],
        },
        {
          name: 'latency',
          caption: 'Latency: p50, p95 and p99 of each second',
          unit: 'ms',
          xs,
          span: duration,
          lines: [
            { label: 'p50', color: COLORS.p50, values: of('p50_response_time') },
            { label: 'p95', color: COLORS.p95, values: of('p95_response_time') },
            { label: 'p99', color: COLORS.p99, values: of('p99_response_time') },
          ],
        },
        {
          name: 'errors',
          caption: 'Error rate of each second',
          unit: '%',
          xs,
          span: duration,
          lines: [{ label: 'errors', color: COLORS.p99, values: of('error_rate') }],
        },
      ],
      frame,
    );
    box.dataset.points = String(points.length);
  };
  new ResizeObserver(() => {
    if (Math.floor(box.clientWidth) !== lastWidth) draw();
  }).observe(box);

  /** The verdict so far and each threshold's figure, from a status event. */
  const verdictEl = document.getElementById('load-verdict');
  const showThresholds = (s: Status) => {
    if (!verdictEl || !s.thresholds?.length) return;
    const passing = s.thresholds.every((t) => t.pass);
    const shown = s.verdict ?? (passing ? 'passing so far' : 'failing so far');
    const cell = (text: string, label: string) => {
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
      tr.append(
        first,
        cell(observedFigure(t.threshold, t.observed), 'Observed'),
        cell(t.pass ? 'pass' : 'fail', 'Outcome'),
      );
      return tr;
    });
    // A page drawn before the first figures has the section empty: its skeleton first.
    if (!verdictEl.querySelector('tbody')) {
      const headings = ['Threshold', 'Observed', 'Outcome'].map((h) => `<th scope="col">${h}</th>`).join('');
      verdictEl.innerHTML =
        '<h2>Verdict: <span class="outcome"></span></h2><div class="table-wrap"><table id="load-thresholds">' +
        `<thead><tr>${headings}</tr></thead><tbody></tbody></table></div>`;
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
  const test = encodeURIComponent(statusEl.dataset.test ?? '');
  const source = new EventSource(`/dashboard/load-tests/${test}/events`);
  source.addEventListener('status', (event) => {
    const s = JSON.parse((event as MessageEvent<string>).data) as Status;
    if (s.started_at) startedAt = Date.parse(s.started_at);
    const reason = s.failure_reason ? `: ${s.failure_reason}` : '';
    statusEl.textContent = `Status ${s.status}, ${s.progress}% done${reason}`;
    const m = s.metrics;
    figure('load-requests', m.total_requests);
    figure('load-rate-avg', m.throughput);
    figure('load-error-rate', m.error_rate);
    figure('load-latency-avg', m.avg_response_time);
    showThresholds(s);
    const ended = s.status !== 'pending' && s.status !== 'running';
    if (stopForm) stopForm.hidden = ended;
    if (ended) {
      source.close();
      setTimeout(() => location.reload(), 300);
    }
  });
  source.addEventListener('point', (event) => {
    const point = JSON.parse((event as MessageEvent<string>).data) as Point;
    points.push(point);
    figure('load-rate-now', point.requests_per_second);
    draw();
  });
}
