// A my-webhook-diff answer as a terminal reads it: what b changed from a, + added (green), - removed
// (red), ~ changed (yellow), the body by JSON Pointer or as the unified diff's hunks. Colours only where
// they are on (output.ts).
import type { webhookOperations } from '../../contract/webhooks/webhooks.ts';
import type { AnswerOf } from '../client.ts';
import { localTime, out } from '../output.ts';

export type DiffAnswer = AnswerOf<typeof webhookOperations.diff>;
type Named<V> = { added: Record<string, V>; removed: Record<string, V>; changed: Record<string, { a: V; b: V }> };

const shown = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const json = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));

function namedLines<V>(n: Named<V>, sep: string): string[] {
  return [
    ...Object.entries(n.added).map(([k, v]) => out.green(`  + ${k}${sep}${shown(v)}`)),
    ...Object.entries(n.removed).map(([k, v]) => out.red(`  - ${k}${sep}${shown(v)}`)),
    ...Object.entries(n.changed).map(([k, v]) => out.yellow(`  ~ ${k}${sep}${shown(v.a)} → ${shown(v.b)}`)),
  ];
}

function bodyLines(body: DiffAnswer['body']): string[] {
  if (body.same) return [];
  if (body.format === 'binary')
    return [out.bold('Body (binary)'), `  ${body.a_size} bytes → ${body.b_size} bytes, not the same bytes`];
  if (body.format === 'text') {
    const head = out.bold('Body (text)');
    if (body.patch === null)
      return [head, `  too different to show line by line${body.reason ? `: ${body.reason}` : ''}`];
    const lines = body.patch.replace(/\n$/, '').split('\n');
    const coloured = lines.map((l) =>
      l.startsWith('@@') ? out.cyan(l) : l.startsWith('+') ? out.green(l) : l.startsWith('-') ? out.red(l) : l,
    );
    return [head, ...coloured, ...(body.truncated ? [out.dim('  … (the patch is cut at 256 KiB)')] : [])];
  }
  const changes = body.changes.map((c) => {
    const at = c.pointer === '' ? '(the whole body)' : c.pointer;
    if (c.change === 'added') return out.green(`  + ${at}: ${json(c.b)}`);
    if (c.change === 'removed') return out.red(`  - ${at}: ${json(c.a)}`);
    return out.yellow(`  ~ ${at}: ${json(c.a)} → ${json(c.b)}`);
  });
  const more = body.truncated ? [out.dim('  … (more changes: see --json)')] : [];
  return [out.bold('Body (JSON)'), ...changes, ...more];
}

export function diffView(d: DiffAnswer): string {
  const title = `Capture ${d.a.id} (${localTime(d.a.created_at)}) → capture ${d.b.id} (${localTime(d.b.created_at)})`;
  const ignored = d.headers.ignored.length ? out.dim(` (not compared: ${d.headers.ignored.join(', ')})`) : '';
  if (d.same) return `${title}\n${out.green('Same')}${ignored}`;
  const below = (p: string) => p.slice(`/webhook/${d.webhook_id}`.length) || '/';
  const query = namedLines(d.query, ' = ');
  const headers = namedLines(d.headers, ': ');
  return [
    title,
    ...(d.method ? [`${out.bold('Method')}  ${out.yellow(`${d.method.a} → ${d.method.b}`)}`] : []),
    ...(d.path ? [`${out.bold('Path')}    ${out.yellow(`${below(d.path.a)} → ${below(d.path.b)}`)}`] : []),
    ...(query.length ? [out.bold('Query'), ...query] : []),
    ...(headers.length ? [`${out.bold('Headers')}${ignored}`, ...headers] : []),
    ...bodyLines(d.body),
  ].join('\n');
}
