// What the real `netops` loads to answer: for --version, --help and wrong usage its command
// declarations only; for a command, what that command uses and no more: no zod (nor the API's schemas
// built with it) for a command that checks nothing against them, no YAML or progress library outside
// `load run`, no table library where nothing is printed. Each file of the build the command loads is
// recorded by a module hook (NODE_OPTIONS), and the libraries are told by the names the build keeps
// (esbuild's keepNames); the commands that use each library prove that its name is there to find.
import fs from 'node:fs';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { newAccount, targets } from '../support/client.ts';
import { cliEnv, NETOPS_BIN, runCli } from '../support/cli.ts';
import { tempDir } from '../support/processes.ts';

/** A name each library's code keeps in the build. */
const LIBRARIES = {
  zod: '"ZodError"',
  re2js: '"RE2JS"',
  yaml: '"YAMLParseError"',
  'cli-progress': '"SingleBar"',
  'cli-table3': '"ColSpanCell"',
  'eventsource-parser': '"EventSourceParserStream"',
} as const;
type Library = keyof typeof LIBRARIES;

/** Appends the URL of every module file loaded to $NETOPS_LOADED. */
const RECORD_LOADS = `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({
  load(url, context, next) {
    if (url.startsWith('file:')) appendFileSync(process.env.NETOPS_LOADED, url + '\\n');
    return next(url, context);
  },
});`;

/** Runs `netops args`; with its run, the files of the build it loaded and the libraries among them. */
async function loads(args: string[], env: Record<string, string>) {
  const record = path.join(await tempDir('cli-loads'), 'loaded.txt');
  fs.writeFileSync(record, '');
  const run = await runCli(args, {
    ...env,
    NETOPS_LOADED: record,
    NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(RECORD_LOADS)}`,
  });
  const files = fs
    .readFileSync(record, 'utf8')
    .split('\n')
    .filter((url) => url.includes('/dist/'));
  const code = files.map((url) => fs.readFileSync(new URL(url), 'utf8')).join('\n');
  const libraries = (Object.keys(LIBRARIES) as Library[]).filter((name) => code.includes(LIBRARIES[name]));
  return { run, files, libraries };
}

describe('what netops loads', () => {
  it(
    '--version, --help and wrong usage load the ' + 'declarations of the commands and none of their libraries',
    async () => {
      const env = await cliEnv(undefined, undefined, { NO_COLOR: '1' });
      const version = await loads(['--version'], env);
      expect(version.run.code).toBe(0);
      expect(version.run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      expect(version.files.some((url) => url.endsWith('/dist/netops.js'))).toBe(true);
      expect(version.libraries).toEqual([]);

      for (const args of [['--help'], ['webhook', '--help'], ['load', 'run', '--help'], ['listen', '--help']]) {
        const help = await loads(args, env);
        expect(help.run.code, args.join(' ')).toBe(0);
        expect(help.run.stdout).toMatch(/^Usage: netops /);
        expect(help.libraries, args.join(' ')).toEqual([]);
      }

      // Refused by the parser (a flag's value, a missing argument): exit 2 before any command's code loads.
      const badLimit = await loads(['webhook', 'requests', 'wh_1', '--limit', 'many'], env);
      expect(badLimit.run.code).toBe(2);
      expect(badLimit.run.stderr).toContain('--limit must be a whole number above 0');
      expect(badLimit.libraries).toEqual([]);
      const noId = await loads(['webhook', 'show'], env);
      expect(noId.run.code).toBe(2);
      expect(noId.libraries).toEqual([]);
    },
  );

  it(
    'a command that checks its input with the API schema loads zod; ' + '`load run` its YAML and progress libraries',
    async () => {
      const env = await cliEnv('http://127.0.0.1:9', 'ntk_unused', { NO_COLOR: '1' });
      const since = await loads(['webhook', 'requests', 'wh_1', '--since', 'yesterday'], env);
      expect(since.run.code).toBe(2);
      expect(since.run.stderr).toMatch(/^netops: --since: /);
      expect(since.libraries).toContain('zod');
      expect(since.libraries).not.toContain('yaml');
      expect(since.libraries).not.toContain('cli-progress');

      const missing = await loads(['load', 'run', 'no-such-file.yaml'], env);
      expect(missing.run.code).toBe(2);
      expect(missing.run.stderr).toContain('no-such-file.yaml: no such file');
      expect(missing.libraries).toEqual(expect.arrayContaining(['yaml', 'cli-progress', 'eventsource-parser']));
      expect(missing.libraries).not.toContain('cli-table3');
    },
  );

  it(
    'a command whose file is missing from a copied build ' + "says to install again (exit 1), not a module's path",
    async () => {
      // The build copied with one command's file left out, as a partial copy of dist/ would be.
      const copy = await tempDir('cli-partial');
      const root = path.dirname(path.dirname(NETOPS_BIN));
      fs.cpSync(path.join(root, 'bin'), path.join(copy, 'bin'), { recursive: true });
      fs.cpSync(path.join(root, 'dist'), path.join(copy, 'dist'), { recursive: true });
      fs.writeFileSync(path.join(copy, 'package.json'), '{"type": "module"}');
      const chunks = path.join(copy, 'dist', 'chunks');
      const lookups = fs.readdirSync(chunks).filter((f) => f.startsWith('lookups-'));
      expect(lookups.length).toBeGreaterThan(0);
      for (const f of lookups) fs.rmSync(path.join(chunks, f));
      const env = { ...(await cliEnv('http://127.0.0.1:9', 'ntk_unused', { NO_COLOR: '1' })) };
      const run = promisify(execFile)(process.execPath, [path.join(copy, 'bin', 'netops.js'), 'dns', 'example.com'], {
        env,
      });
      const failed = await run.then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr.trim()).toBe(
        'netops: this command is missing from the installed files: install netops again (npm install)',
      );
    },
  );

  describe.each(targets())('against the service ($name)', (target) => {
    it('webhook list loads its table library, and no zod, API schema or re2js', async () => {
      const env = await cliEnv(target.baseUrl, (await newAccount(target)).key, { NO_COLOR: '1' });
      const created = await loads(['webhook', 'create', '--response-status', '202'], env);
      expect(created.run.code, created.run.stderr).toBe(0);
      expect(created.libraries).toEqual(expect.arrayContaining(['zod', 're2js']));

      const list = await loads(['webhook', 'list'], env);
      expect(list.run.code, list.run.stderr).toBe(0);
      expect(list.run.stdout).toMatch(/Capture URL/);
      expect(list.libraries).toEqual(['cli-table3']);

      const whoami = await loads(['whoami', '--json'], env);
      expect(whoami.run.code, whoami.run.stderr).toBe(0);
      expect(whoami.libraries).toEqual([]);
    });
  });
});
