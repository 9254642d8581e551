// The settings flags of `webhook create` and `webhook update` as the body of my-webhook-create or
// my-webhook-update (contract/webhooks/webhook-settings.ts, webhook-rules.ts), with which flag gave which
// field, so a refusal names the flag as typed. An update changes only what its flags name: the parts
// of the answer and of the retention left out stay as they are.
import fs from 'node:fs';
import type { Webhook } from './captures.ts';
import { UsageError } from '../errors.ts';
import type { FieldFlags } from '../flag-errors.ts';
import { readSecret } from '../secret-prompt.ts';

export interface SettingFlags {
  rules?: string;
  schema?: string;
  signature?: string;
  responseStatus?: number;
  responseBody?: string;
  responseHeader?: string[];
  responseDelay?: number;
  forwardUrl?: string;
  keep?: number;
  keepDays?: number;
  clearRules?: boolean;
  clearSchema?: boolean;
  clearSignature?: boolean;
  clearResponse?: boolean;
  clearForwardUrl?: boolean;
  clearRetention?: boolean;
  /** create's short forms of --response-status, --response-body, --response-header. */
  status?: number;
  body?: string;
  header?: string[];
}

/** A JSON file, or standard input for `-`. */
function readJson(file: string, flag: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${flag}: ${file === '-' ? 'standard input' : file} is not JSON: ${(e as Error).message}`);
  }
}

/** `Name: value` lines over `headers` (a name in any case replaces it; `Name:` with no value removes it). */
function withHeaders(headers: Record<string, string>, lines: string[], flag: string): Record<string, string> {
  const out = { ...headers };
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at <= 0) throw new UsageError(`${flag}: "${line}" is not "Name: value"`);
    const name = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    for (const k of Object.keys(out)) if (k.toLowerCase() === name.toLowerCase()) delete out[k];
    if (value) out[name] = value;
  }
  return out;
}

/** `--response-body @FILE` reads the file. */
function bodyText(value: string, flag: string): string {
  if (!value.startsWith('@')) return value;
  try {
    return fs.readFileSync(value.slice(1), 'utf8');
  } catch (e) {
    throw new UsageError(`${flag}: cannot read ${value.slice(1)}: ${(e as Error).message}`);
  }
}

/** Whether any flag of the answer (not its clearing) is given. */
export const changesResponse = (o: SettingFlags) =>
  [o.responseStatus, o.responseBody, o.responseHeader, o.responseDelay, o.status, o.body, o.header].some(
    (v) => v !== undefined,
  );
export const changesRetention = (o: SettingFlags) => o.keep !== undefined || o.keepDays !== undefined;

/**
 * The settings of the body and the flag each came from. `current`: the webhook an update changes
 * (its answer and retention are the base of the flags that change a part of them).
 */
export async function settingsOf(
  o: SettingFlags,
  current?: Webhook,
): Promise<{ settings: Record<string, unknown>; flags: FieldFlags }> {
  const stdinReaders = [o.rules === '-' && '--rules -', o.schema === '-' && '--schema -'].filter(Boolean);
  if (stdinReaders.length > 1 || (stdinReaders.length && o.signature !== undefined && !process.stdin.isTTY))
    throw new UsageError(
      `${[...stdinReaders, o.signature !== undefined && '--signature (its secret)'].filter(Boolean).join(' and ')}: ` +
        'standard input can give only one of them (name a file instead)',
    );
  const s: Record<string, unknown> = {};
  const typed = (long: string, short: string, shortValue: unknown) => (shortValue !== undefined ? short : long);
  const flags: FieldFlags = {
    webhook_id: '<id>',
    rules: o.clearRules ? '--clear-rules' : '--rules',
    schema: o.clearSchema ? '--clear-schema' : '--schema',
    signature: o.clearSignature ? '--clear-signature' : '--signature',
    forward_url: o.clearForwardUrl ? '--clear-forward-url' : '--forward-url',
    'response.status': typed('--response-status', '--status', o.status),
    'response.body': typed('--response-body', '--body', o.body),
    'response.headers': typed('--response-header', '--header', o.header),
    'response.delay_ms': '--response-delay',
    retention: o.clearRetention ? '--clear-retention' : o.keep !== undefined ? '--keep' : '--keep-days',
    'retention.max_requests': '--keep',
    'retention.max_age_days': '--keep-days',
  };
  if (o.rules !== undefined) s.rules = readJson(o.rules, '--rules');
  if (o.clearRules) s.rules = null;
  if (o.schema !== undefined) s.schema = readJson(o.schema, '--schema');
  if (o.clearSchema) s.schema = null;
  if (o.forwardUrl !== undefined) s.forward_url = o.forwardUrl;
  if (o.clearForwardUrl) s.forward_url = null;
  if (o.signature !== undefined) {
    const [scheme, header] = o.signature.split(/:(.*)/s);
    const secret = await readSecret(`Signing secret for ${scheme}: `, '--signature');
    s.signature = { scheme, secret, ...(header ? { header } : {}) };
  }
  if (o.clearSignature) s.signature = null;
  if (changesResponse(o)) {
    const base = current?.response ?? {};
    const status = o.responseStatus ?? o.status;
    const body = o.responseBody ?? o.body;
    const delay = o.responseDelay;
    const headerLines = o.responseHeader ?? o.header;
    s.response = {
      ...base,
      ...(status !== undefined ? { status } : {}),
      ...(body !== undefined ? { body: bodyText(body, flags['response.body']!) } : {}),
      ...(headerLines
        ? { headers: withHeaders(current?.response?.headers ?? {}, headerLines, flags['response.headers']!) }
        : {}),
      ...(delay !== undefined ? { delay_ms: delay } : {}),
    };
    flags.response = [
      [status, flags['response.status']],
      [body, flags['response.body']],
      [headerLines, flags['response.headers']],
      [delay, '--response-delay'],
    ].find(([v]) => v !== undefined)?.[1] as string;
  }
  if (o.clearResponse) s.response = null;
  if (changesRetention(o))
    s.retention = {
      ...(current ? current.retention : {}),
      ...(o.keep !== undefined ? { max_requests: o.keep } : {}),
      ...(o.keepDays !== undefined ? { max_age_days: o.keepDays } : {}),
    };
  if (o.clearRetention) s.retention = null;
  return { settings: s, flags };
}
