// A small HTTP client for the integration suites, and helpers that make accounts through the admin command.
import { inject } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Target } from './global-setup.ts';
import { runScript } from './processes.ts';
import { errorResult } from '../../contract/responses.ts';
import { operationFor, statusesOf } from '../../api/openapi/document.ts';

export const targets = (): Target[] => inject('targets');

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = any>(
  target: Target,
  method: string,
  path: string,
  options: {
    key?: string;
    bearer?: string;
    json?: unknown;
    body?: RequestInit['body'];
    headers?: Record<string, string>;
  } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['X-API-Key'] = options.key;
  if (options.bearer) headers.Authorization = `Bearer ${options.bearer}`;
  let body = options.body;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const res = await fetch(target.baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  conformsToDocument(method, path, res.status, parsed, text);
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/**
 * The calls of `/api/v1/network/<path>` with the key of `account` (an account, or the promise `newAccount`
 * gives), `json` as the body when given.
 */
export function networkApi(target: Target, account: { key: string } | Promise<{ key: string }>) {
  return async (method: string, path: string, json?: unknown) =>
    call(target, method, `/api/v1/network/${path}`, {
      key: (await account).key,
      ...(json === undefined ? {} : { json }),
    });
}

/** The captures `account` lists of its webhook `webhookId`: the first page, newest first. */
export async function webhookCaptures<T = any>(
  target: Target,
  account: { key: string } | Promise<{ key: string }>,
  webhookId: string,
): Promise<T[]> {
  return (await networkApi(target, account)('GET', `my-webhook-requests?webhook_id=${webhookId}`)).body.data.requests;
}

/**
 * Every answer an integration suite receives from /api/v1 is checked against the OpenAPI document's
 * operations (api/openapi/document.ts): a status it does not list, or a body that does not match the
 * schema it gives for that status, fails the suite that received it.
 */
function conformsToDocument(method: string, path: string, status: number, body: unknown, text: string): void {
  if (!path.startsWith('/api/v1/') || path.startsWith('/api/v1/openapi.json')) return;
  const op = operationFor(method, path);
  if (!op) {
    if (status === 404 || status === 405) return; // no such route: nothing to document
    throw new Error(`OpenAPI drift: ${method} ${path} answered ${status} but the document has no such operation`);
  }
  if (status === 304 && op.method === 'get') return;
  if (!statusesOf(op).includes(status))
    throw new Error(
      `OpenAPI drift: ${method} ${op.path} answered ${status}, the document lists ` +
        `${statusesOf(op).join(', ')}: ${text.slice(0, 300)}`,
    );
  const schema = status === op.success.status ? op.success.schema : errorResult;
  if (!schema) return;
  const checked = schema.safeParse(body);
  if (!checked.success)
    throw new Error(
      `OpenAPI drift: ${method} ${op.path} ${status} does not match its schema: ${checked.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
}

/** The admin command on the backends of `target` (a suite's target, or an app of a test's own). */
export async function admin(target: Pick<Target, 'env'>, args: string[]) {
  return runScript('scripts/admin.ts', args, target.env);
}

/** A new user with a new key on `plan`; unique email so suites never share a rate-limit window. */
export async function newAccount(
  target: Pick<Target, 'env'>,
  plan: 'free' | 'pro' | 'enterprise' = 'enterprise',
): Promise<{ userId: number; key: string; email: string }> {
  const email = `user-${randomUUID()}@example.test`;
  const result = await admin(target, ['create-key', '--email', email, '--plan', plan]);
  if (result.code !== 0) throw new Error(`admin create-key failed: ${result.stderr}`);
  const { user_id, api_key } = JSON.parse(result.stdout);
  return { userId: user_id, key: api_key, email };
}

/** The error body of ARCHITECTURE.md. */
export function expectErrorShape(reply: Reply, status: number): void {
  if (reply.status !== status) throw new Error(`expected ${status}, got ${reply.status}: ${reply.text}`);
  const b = reply.body;
  if (
    b?.success !== false ||
    b.code !== status ||
    typeof b.error !== 'string' ||
    typeof b.message !== 'string' ||
    !b.message
  ) {
    throw new Error(`not the error shape: ${reply.text}`);
  }
}

/**
 * Limits count per fixed window aligned to the clock (a plan's minute, a sign-in's quarter hour): a burst
 * that must fit in one window waits, when a window of these lengths has less than `spareSeconds` left,
 * for the next to begin. Call it just before the burst's first counted request.
 */
export async function freshWindow(spareSeconds = 20, windowsSeconds: readonly number[] = [60]): Promise<void> {
  const now = Date.now() / 1000;
  const left = windowsSeconds.map((w) => w - (now % w));
  const wait = Math.max(0, ...left.map((l) => (l < spareSeconds ? l + 0.2 : 0)));
  if (wait > 0) await new Promise((r) => setTimeout(r, wait * 1000));
}
