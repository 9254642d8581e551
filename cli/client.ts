// The service's public REST API, as the command calls it: the key in X-API-Key, paths from the API's
// own operation declarations (contract/, as cli/contract.ts takes them), every failure an ApiError
// (status, error_code, message) or a NetworkError naming what was asked.
import type { z } from 'zod';
import type { Operation } from '../contract/operation.ts';
import { ApiError, NetworkError } from './errors.ts';
import type { Service } from './config.ts';

export { VERSION } from '../lib/version.ts';
import { VERSION } from '../lib/version.ts';
/** A plain call that gets no answer in this long has failed (streams and downloads have none). */
const CALL_TIMEOUT_MS = 120_000;

export type Query = Record<string, string | number | boolean | undefined>;

/** `/api/v1` and the operation's path, its `{name}` parts filled in. */
export function pathOf(op: Pick<Operation, 'path'>, params: Record<string, string> = {}, query: Query = {}): string {
  const filled = op.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const q = new URLSearchParams(Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
  return `/api/v1${filled}${q.size ? `?${q}` : ''}`;
}

export interface CallOptions {
  json?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** No time limit (a stream, a download). */
  open?: boolean;
}

export function client(service: Service) {
  async function send(method: string, path: string, options: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      'X-API-Key': service.key,
      'User-Agent': `netops-cli/${VERSION}`,
      ...options.headers,
    };
    if (options.json !== undefined) headers['Content-Type'] = 'application/json';
    const signals = [options.signal, options.open ? undefined : AbortSignal.timeout(CALL_TIMEOUT_MS)].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    let res: Response;
    try {
      res = await fetch(service.url + path, {
        method,
        headers,
        body: options.json === undefined ? undefined : JSON.stringify(options.json),
        signal: signals.length ? AbortSignal.any(signals) : undefined,
      });
    } catch (e) {
      if (options.signal?.aborted) throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new NetworkError(
        `${method} ${service.url}${path} failed: ${cause?.code ?? cause?.message ?? (e as Error).message}`,
      );
    }
    if (!res.ok) throw await apiError(`${method} ${path}`, res);
    return res;
  }
  return {
    url: service.url,
    send,
    /** The JSON answer of a call. */
    async call<T = unknown>(method: 'GET' | 'POST', path: string, options: CallOptions = {}): Promise<T> {
      const res = await send(method, path, options);
      const text = await res.text();
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ApiError(
          `${method} ${path}`,
          res.status,
          'not_json',
          `the answer is not JSON: ${text.slice(0, 200)}`,
        );
      }
    },
  };
}

export type Client = ReturnType<typeof client>;

async function apiError(what: string, res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let body: { error_code?: string; error?: string; message?: string } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not our error shape (a proxy's page): its status says enough
  }
  const code =
    body.error_code ??
    (body.error
      ? body.error.toLowerCase().replace(/\s+/g, '_')
      : res.statusText.toLowerCase().replace(/\s+/g, '_') || 'error');
  const retryAfter = Number(res.headers.get('retry-after'));
  return new ApiError(
    what,
    res.status,
    code,
    body.message ?? (text.slice(0, 200).trim() || res.statusText),
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

/** The answer of an operation as its schema (contract/) reads it: what `call` answers for it. */
export type AnswerOf<O extends { success: { schema: z.ZodType | null } }> = z.output<
  NonNullable<O['success']['schema']>
>;
