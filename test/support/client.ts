// A small HTTP client for the integration suites, and helpers that make accounts through the admin command.
import { inject } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Target } from './global-setup.ts';
import { runScript } from './processes.ts';

export const targets = (): Target[] => inject('targets');

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = any>(target: Target, method: string, path: string, options: { key?: string; bearer?: string; json?: unknown; body?: RequestInit['body']; headers?: Record<string, string> } = {}): Promise<Reply<T>> {
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
  let parsed: any = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export async function admin(target: Target, args: string[]) {
  return runScript('scripts/admin.ts', args, target.env);
}

/** A new user with a new key on `plan`; unique email so suites never share a rate-limit window. */
export async function newAccount(target: Target, plan: 'free' | 'pro' | 'enterprise' = 'enterprise'): Promise<{ userId: number; key: string; email: string }> {
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
  if (!b || b.success !== false || b.code !== status || typeof b.error !== 'string' || typeof b.message !== 'string' || !b.message) {
    throw new Error(`not the error shape: ${reply.text}`);
  }
}
