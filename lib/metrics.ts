// Prometheus metrics of this process (prom-client), served by the API at /metrics to operators.
// Counters of what passes through this process (HTTP requests, rate-limit refusals, captures stored,
// jobs started); cluster-wide figures (jobs by outcome, load requests sent) are read when scraped.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  rateLimited: Counter<'plan'>;
  capturesStored: Counter;
  capturesRefused: Counter<'plan'>;
  jobsStarted: Counter<'kind'>;
}

let shared: Metrics | undefined;

/** One set per process (every role in `npm start` shares it). */
export function processMetrics(): Metrics {
  if (shared) return shared;
  const registry = new Registry();
  // prom-client's own names start process_ and nodejs_
  collectDefaultMetrics({ register: registry, prefix: 'netops_' });
  shared = {
    registry,
    httpRequests: new Counter({
      name: 'netops_http_requests_total',
      help: 'HTTP requests answered, by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'netops_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by route template',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'netops_rate_limit_rejections_total',
      help: 'Requests refused with 429 by the per-plan limits',
      labelNames: ['plan'],
      registers: [registry],
    }),
    capturesStored: new Counter({
      name: 'netops_captures_stored_total',
      help: 'Webhook captures committed to the database',
      registers: [registry],
    }),
    capturesRefused: new Counter({
      name: 'netops_captures_refused_total',
      help: "Captures refused with 429 because their webhook took its per-minute captures, by the owner's plan",
      labelNames: ['plan'],
      registers: [registry],
    }),
    jobsStarted: new Counter({
      name: 'netops_jobs_started_total',
      help: 'Workflows started by this API process, by kind',
      labelNames: ['kind'],
      registers: [registry],
    }),
  };
  return shared;
}
