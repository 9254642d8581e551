// Where `netops listen` is in a webhook's captures, kept in the config folder after every capture it
// handles, so a listen started again (after a crash, a kill, a reboot) forwards what came meanwhile
// and nothing twice. Captures commit slightly out of id order (contract/webhooks/webhooks.ts,
// OUT_OF_ORDER_WINDOW): besides the highest id handled it keeps every id handled within that window
// below it, and a resumed stream starts that far back, skipping those. `floor`: nothing at or below
// it is wanted (--from-now). Beside it, the webhook a listen without an id made for a set of routes.
import { OUT_OF_ORDER_WINDOW } from '../contract.ts';
import { listenEndpointFile, readState, webhookStateFile, writePrivate } from '../config.ts';
import { EVERY_PATH, type Route } from './listen-routes.ts';

interface Saved {
  floor?: number;
  last: number;
  handled: number[];
}

export class ListenPosition {
  private floor = 0;
  private last = 0;
  private handled = new Set<number>();
  private readonly file: string;

  constructor(serviceUrl: string, webhookId: string) {
    this.file = webhookStateFile(serviceUrl, webhookId);
  }

  /** The saved position; false when there was none. */
  load(): boolean {
    const saved = readState<Saved>(this.file);
    if (!saved || typeof saved.last !== 'number') return false;
    this.floor = saved.floor ?? 0;
    this.last = saved.last;
    this.handled = new Set(saved.handled ?? []);
    return true;
  }

  /** Nothing up to `id` is wanted (--from-now). */
  skipTo(id: number): void {
    this.floor = this.last = id;
    this.handled.clear();
    this.save();
  }

  /** The Last-Event-ID to resume the stream with: far enough back for late commits; undefined from the start. */
  resumeFrom(): string | undefined {
    const from = Math.max(this.floor, this.last - OUT_OF_ORDER_WINDOW, 0);
    return this.last > 0 ? String(Math.max(1, from)) : undefined;
  }

  isHandled(id: number): boolean {
    return id <= this.floor || id <= this.last - OUT_OF_ORDER_WINDOW || this.handled.has(id);
  }

  /** `id` forwarded (or filtered out, or given up on): written at once. */
  done(id: number): void {
    this.handled.add(id);
    if (id > this.last) this.last = id;
    for (const h of this.handled) if (h <= this.last - OUT_OF_ORDER_WINDOW) this.handled.delete(h);
    this.save();
  }

  private save(): void {
    writePrivate(this.file, {
      floor: this.floor,
      last: this.last,
      handled: [...this.handled].sort((a, b) => a - b),
    } satisfies Saved);
  }
}

/** A webhook listen made, as saved: one per service, API key and set of routes ("one endpoint per project"). */
export interface SavedEndpoint {
  webhook_id: string;
  webhook_url: string;
}

/** The webhook the last `netops listen` without an id made for this service, key and routes, if any. */
export function savedEndpoint(
  service: { url: string; key: string },
  routes: readonly Route[],
): SavedEndpoint | undefined {
  const saved = readState<Partial<SavedEndpoint>>(listenEndpointFile(service.url, service.key, routesKey(routes)));
  return typeof saved?.webhook_id === 'string' && typeof saved.webhook_url === 'string'
    ? { webhook_id: saved.webhook_id, webhook_url: saved.webhook_url }
    : undefined;
}

export function saveEndpoint(
  service: { url: string; key: string },
  routes: readonly Route[],
  made: SavedEndpoint,
): void {
  writePrivate(listenEndpointFile(service.url, service.key, routesKey(routes)), made);
}

/**
 * What names a set of routes for the webhook an earlier listen made ("one endpoint per project"): the
 * same routes in any order name the same webhook; a lone `--forward-to URL` is named by its URL alone,
 * as before routes, so what a listen of that release saved is found again.
 */
export function routesKey(routes: readonly Route[]): string {
  if (routes.length === 1 && routes[0]!.path === EVERY_PATH) return routes[0]!.url;
  return routes
    .map((r) => `${r.path}=${r.url}`)
    .sort()
    .join('\n');
}
