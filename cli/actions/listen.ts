// netops listen when it runs (its flags: commands/listen.ts): the webhook's event stream followed,
// resumed after the service restarts or the network drops, each capture forwarded by its route.
import { sentPath, type Capture } from '../webhooks/captures.ts';
import { client, pathOf } from '../client.ts';
import { currentService } from '../config.ts';
import { webhookOperations as ops } from '../contract.ts';
import { ApiError, NetworkError } from '../errors.ts';
import { forward, type Forwarded } from '../webhooks/forward.ts';
import {
  EVERY_PATH,
  isUnder,
  parseRoutes,
  type Route,
  routeFlags,
  routeOf,
  routePath,
  shellWord,
  throughRoute,
} from '../webhooks/listen-routes.ts';
import { ListenPosition, saveEndpoint, savedEndpoint } from '../webhooks/listen-state.ts';
import { err, localTime, note, out, print, printJsonLine } from '../output.ts';
import { follow, sleep } from '../sse.ts';
import { createWebhook } from '../webhooks/webhook-api.ts';

export interface ListenOptions {
  forwardTo?: string;
  forward: string[];
  fromNow?: boolean;
  method?: string;
  path?: string;
  retries: number;
  insecure?: boolean;
  json?: boolean;
  new?: boolean;
}

/** How long the first call may take: a service that cannot be reached fails the command, not a retry loop. */
const FIRST_CALL_TIMEOUT_MS = 10_000;

export async function listen(webhookId: string | undefined, o: ListenOptions): Promise<void> {
  // Every value is checked before the first call: a typo is exit 2 naming the flag, nothing sent.
  const routes = parseRoutes(o.forward, o.forwardTo);
  const only = o.path === undefined ? undefined : routePath('--path', o.path);
  // Ctrl-C: the capture in flight is finished (its retries cut short), then exit 0; a second one leaves at once.
  const stop = new AbortController();
  let busy = false;
  let resume = '';
  const onSignal = () => {
    if (stop.signal.aborted || !busy) {
      if (resume) note(resume);
      process.exit(0);
    }
    stop.abort();
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  try {
    const service = currentService();
    const c = client(service);
    const saved = webhookId || o.new ? undefined : savedEndpoint(service, routes);
    // The first call proves the service answers, takes the key and has the webhook, before anything is printed.
    let newest = webhookId || saved ? await firstCall(c, webhookId ?? saved!.webhook_id, !!saved) : undefined;
    if (saved && newest) {
      webhookId = saved.webhook_id;
      const these = catchAllOnly(routes) ? 'this URL' : 'these routes';
      note(
        `Webhook ${webhookId} (made by an earlier listen for ${these}; --new for another). ` +
          `Send requests to ${err.bold(saved.webhook_url)}`,
      );
    } else if (!webhookId) {
      if (saved) note(err.yellow(`The webhook an earlier listen made (${saved.webhook_id}) is gone: making another`));
      const created = await createWebhook(c);
      webhookId = created.webhook_id;
      saveEndpoint(service, routes, { webhook_id: created.webhook_id, webhook_url: created.webhook_url });
      note(`Webhook ${created.webhook_id} created. Send requests to ${err.bold(created.webhook_url)}`);
      newest = [];
    }
    resume = err.dim(`Resume with: netops listen ${resumeArgs(webhookId, routes, o).join(' ')}`);
    const position = new ListenPosition(service.url, webhookId);
    if (o.fromNow) position.skipTo(newest?.[0]?.id ?? 0);
    else if (position.load()) note(err.dim('Resuming after the captures the last listen of this webhook handled'));
    const id = webhookId;
    note(forwarding(id, routes));
    await follow({
      stop: stop.signal,
      finished: () => false,
      open: (signal) => {
        const lastEventId = position.resumeFrom();
        return c.send('GET', pathOf(ops.events, {}, { webhook_id: id }), {
          open: true,
          signal,
          headers: { Accept: 'text/event-stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
        });
      },
      onDisconnect: (reason, waitMs) =>
        note(err.yellow(`Disconnected (${reason}); reconnecting in ${(waitMs / 1000).toFixed(1)} s`)),
      onEvent: async (event) => {
        // The events of the captures stream: `requests` with a page of captures; `end` and `error` with a message.
        const data = event.data as { message?: string; error_code?: string; data?: { requests: Capture[] } } | null;
        if (event.event === 'end')
          throw new ApiError(`listen ${id}`, 404, 'not_found', data?.message ?? 'the webhook was deleted');
        // The key was revoked while the stream was open: no reconnection can change that.
        if (event.event === 'error' && data?.error_code === 'unauthorized')
          throw new ApiError(`listen ${id}`, 401, 'unauthorized', data.message ?? 'the API key was revoked');
        if (event.event === 'error')
          throw new ApiError(`listen ${id}`, 503, 'stream_failed', data?.message ?? 'the stream failed');
        if (event.event !== 'requests') return;
        if (!Array.isArray(data?.data?.requests))
          throw new ApiError(`listen ${id}`, 502, 'bad_event', 'the stream sent a requests event without requests');
        const captures = data.data.requests.filter((r) => !position.isHandled(r.id)).sort((a, b) => a.id - b.id);
        for (const capture of captures) {
          busy = true;
          const handled = await handle(capture, id, position, { ...o, routes, only }, stop.signal);
          busy = false;
          if (!handled || stop.signal.aborted) return;
        }
      },
    });
    if (stop.signal.aborted) note(resume);
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}

/**
 * The webhook's newest capture (none or one): the first call, bounded in time, so that a mistyped
 * service URL, a refused key or an unknown webhook fails the command at once. `mayBeGone`: the webhook
 * an earlier listen made, whose 404 means "make another" (undefined), not a failure.
 */
async function firstCall(
  c: ReturnType<typeof client>,
  webhookId: string,
  mayBeGone: boolean,
): Promise<Capture[] | undefined> {
  const path = pathOf(ops.requests, {}, { webhook_id: webhookId, limit: 1 });
  try {
    const answer = await c.call<{ data: { requests: Capture[] } }>('GET', path, {
      signal: AbortSignal.timeout(FIRST_CALL_TIMEOUT_MS),
    });
    return answer.data.requests;
  } catch (e) {
    if (mayBeGone && e instanceof ApiError && e.status === 404) return undefined;
    if ((e as Error).name === 'TimeoutError')
      throw new NetworkError(`GET ${c.url}${path} failed: no answer within ${FIRST_CALL_TIMEOUT_MS / 1000} s`);
    throw e;
  }
}

/** What handle() goes by: the options, their routes and their --path, checked. */
interface Handling extends ListenOptions {
  routes: Route[];
  only: string | undefined;
}

/**
 * Forwards one capture by its route (or skips it by the filters; one no route takes is shown, not
 * sent); false when Ctrl-C cut its retries short (not done: a later listen sends it).
 */
async function handle(
  capture: Capture,
  webhookId: string,
  position: ListenPosition,
  o: Handling,
  stop: AbortSignal,
): Promise<boolean> {
  const below = capture.path.slice(`/webhook/${webhookId}`.length) || '/';
  const shown = sentPath(capture, webhookId);
  if ((o.method && capture.method.toUpperCase() !== o.method.toUpperCase()) || (o.only && !isUnder(below, o.only))) {
    position.done(capture.id);
    return true;
  }
  const route = routeOf(o.routes, below);
  const line = (outcome: string) =>
    print(`${out.dim(localTime(Date.now()).slice(11))}  ${capture.method.padEnd(6)} ${shown}  -> ${outcome}`);
  if (!route) {
    position.done(capture.id);
    if (o.json) printJsonLine({ ...capture, forwarded: { route: null, error: 'no route takes this path' } });
    else line(out.yellow('not forwarded: no --forward route takes this path'));
    return true;
  }
  const sent = throughRoute(capture, webhookId, route);
  let result: Forwarded = await forward(sent, webhookId, route.url, o.insecure);
  for (let attempt = 1; 'error' in result && attempt <= o.retries; attempt++) {
    note(
      err.dim(
        `  ${capture.method} ${shown}: ${result.error}; attempt ${attempt + 1} of ${o.retries + 1} in ${attempt} s`,
      ),
    );
    await sleep(attempt * 1000, stop);
    if (stop.aborted) return false;
    result = await forward(sent, webhookId, route.url, o.insecure);
  }
  position.done(capture.id);
  if (o.json) {
    printJsonLine({
      ...capture,
      forwarded:
        'error' in result
          ? { route: route.path, error: result.error, duration_ms: result.durationMs }
          : { route: route.path, status: result.status, duration_ms: result.durationMs },
    });
    return true;
  }
  const outcome =
    'error' in result
      ? out.red(`${result.error} (skipped after ${o.retries + 1} attempts)`)
      : `${(result.status < 400 ? out.green : out.red)(String(result.status))} ${result.durationMs} ms`;
  // The route is named when there is a choice of them.
  line(catchAllOnly(o.routes) ? outcome : `${route.path}: ${outcome}`);
  return true;
}

/** A lone `--forward-to URL`: every capture goes there, as before routes. */
const catchAllOnly = (routes: readonly Route[]) => routes.length === 1 && routes[0]!.path === EVERY_PATH;

/** The line that says where captures go: one URL, or each route (longest path first, as they are chosen). */
function forwarding(webhookId: string, routes: readonly Route[]): string {
  if (catchAllOnly(routes))
    return `Forwarding captures of ${webhookId} to ${err.bold(routes[0]!.url)} (Ctrl-C to stop)`;
  const byPath = [...routes].sort((a, b) => b.path.length - a.path.length || a.path.localeCompare(b.path));
  const width = Math.max(...byPath.map((r) => r.path.length));
  return [
    `Forwarding captures of ${webhookId} by path (Ctrl-C to stop):`,
    ...byPath.map((r) => `  ${r.path.padEnd(width)}  -> ${err.bold(r.url)}`),
    ...(routes.some((r) => r.path === EVERY_PATH) ? [] : ['  other paths are shown, not forwarded']),
  ].join('\n');
}

/** The arguments of the listen that resumes this one: its webhook, its routes and its filters. */
function resumeArgs(webhookId: string, routes: readonly Route[], o: ListenOptions): string[] {
  return [
    webhookId,
    ...routeFlags(routes),
    ...(o.path === undefined ? [] : ['--path', shellWord(o.path)]),
    ...(o.method === undefined ? [] : ['--method', shellWord(o.method)]),
    ...(o.insecure ? ['--insecure'] : []),
  ];
}
