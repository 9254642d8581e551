// Every stream our code pipes has its errors handled: an 'error' event nobody listens to is logged and
// survived (lib/unhandled.ts), but the request or the job it belonged to would hang or fail unseen.
// Checked on the source tree: `a.pipe(b)` needs an 'error' listener on `a` and on `b` in the same file
// (pipe forwards no errors), and `pipeline(...)` from node:stream/promises must be awaited, returned or
// kept and caught (its rejection is the error). A use this check cannot read is named, to be handled
// or rewritten, not skipped.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.ts';
import { SOURCE_DIRS, sourceFiles } from '../support/source-tree.ts';

const files = SOURCE_DIRS.flatMap(sourceFiles).map((file) => ({
  file,
  text: fs.readFileSync(path.join(ROOT, file), 'utf8'),
}));
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const listensForErrors = (text: string, stream: string) =>
  new RegExp(`${escapeRegExp(stream)}\\s*\\.\\s*(on|once)\\(\\s*'error'`).test(text);

/** `source.pipe(destination)` of streams (zod's `.pipe(z...)` and schema chains are not streams). */
function unhandledPipes(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/([A-Za-z_$][\w$.]*)\.pipe\(\s*([A-Za-z_$][\w$.]*)\s*[,)]/g)) {
    const [, source, destination] = m as unknown as [string, string, string];
    if (
      /^z\b|^z\./.test(destination) ||
      !/\bstream\b|Readable|Writable|PassThrough|Transform|\.req\b|createReadStream|createWriteStream/.test(text)
    )
      continue;
    if (!listensForErrors(text, source) || !listensForErrors(text, destination))
      found.push(`${source}.pipe(${destination})`);
  }
  return found;
}

/** `pipeline(` calls whose promise nobody awaits, returns or catches. */
function unhandledPipelines(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(^|\n)([^\n]*?)\bpipeline\(/g)) {
    const before = m[2]!;
    if (/^\s*(import|\/\/|\*)/.test(before) || /function\s*$/.test(before)) continue;
    if (/\b(await|return)\s*$/.test(before) || /=>\s*$/.test(before)) continue;
    const kept = /(?:const|let)\s+([\w$]+)\s*=\s*$/.exec(before)?.[1];
    if (kept && new RegExp(`\\b${escapeRegExp(kept)}\\s*\\.\\s*(catch|then)\\(`).test(text)) continue;
    found.push(`${before.trimStart()}pipeline(`);
  }
  return found;
}

describe('stream errors', () => {
  it('finds what it looks for', () => {
    expect(unhandledPipes("import { PassThrough } from 'node:stream';\nsource.pipe(out);")).toEqual([
      'source.pipe(out)',
    ]);
    expect(
      unhandledPipes(
        "import { PassThrough } from 'node:stream';\nsource.on('error', f);\nout.once('error', g);\nsource.pipe(out);",
      ),
    ).toEqual([]);
    expect(unhandledPipes("const s = z.string().pipe(z.enum(['a']));")).toEqual([]);
    expect(unhandledPipelines('const p = pipeline(a, b);\n')).toEqual(['const p = pipeline(']);
    expect(unhandledPipelines('const p = pipeline(a, b);\np.catch(() => {});')).toEqual([]);
    expect(unhandledPipelines('  await pipeline(a, b);\n  pipeline(c, d);')).toEqual(['pipeline(']);
  });

  it('every pipe and pipeline in the source tree handles its errors', () => {
    const unhandled = files.flatMap(({ file, text }) =>
      [...unhandledPipes(text), ...unhandledPipelines(text)].map((use) => `${file}: ${use}`),
    );
    expect(unhandled).toEqual([]);
    // The check looked at something: the tree pipes streams in several places.
    expect(files.filter(({ text }) => /\bpipeline\(|\.pipe\(/.test(text)).length).toBeGreaterThan(4);
  });
});
