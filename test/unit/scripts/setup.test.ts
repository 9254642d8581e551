// scripts/setup, the toolchain step of every npm script, on a PATH made for each case: only this
// Node and the few commands the script uses, so no Go and no Temporal CLI unless a case adds them.
// (Installing Node 24 and building the CLI are proven end to end by .ci/run on a new tools folder.)
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../support/processes.ts';

const SETUP = path.join(ROOT, 'scripts/setup');
const COMMANDS = ['bash', 'env', 'grep', 'sed', 'mkdir', 'ls', 'id', 'cat', 'chmod'];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

async function which(name: string): Promise<string> {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = path.join(dir, name);
    if (
      await fs.access(candidate, fs.constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  throw new Error(`${name} not on PATH`);
}

/** A machine with this Node and nothing else the script could find: returns its bin and tools folders. */
async function bareMachine(): Promise<{ bin: string; tools: string }> {
  const root = await tempDir('setup');
  dirs.push(root);
  const bin = path.join(root, 'bin');
  await fs.mkdir(bin);
  await fs.symlink(process.execPath, path.join(bin, 'node'));
  for (const name of COMMANDS) await fs.symlink(await which(name), path.join(bin, name));
  return { bin, tools: path.join(root, 'tools') };
}

async function setup(args: string[], env: Record<string, string> & { PATH: string }) {
  const result = await promisify(execFile)(path.join(env.PATH.split(':')[0]!, 'bash'), [SETUP, ...args], {
    env,
    cwd: ROOT,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
  return result;
}

async function executable(file: string, body: string) {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}

describe('scripts/setup', () => {
  it('without a Temporal CLI or a Go toolchain, stops with one line that says what to install or set', async () => {
    const { bin, tools } = await bareMachine();
    const r = await setup(['--temporal', '--', 'node', '-e', 'console.log("ran")'], {
      PATH: bin,
      HOME: tools,
      NETOPS_TOOLS: tools,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      'setup: temporal not found and no Go toolchain to build it: install Go 1.25 or later ' +
        '(https://go.dev/dl/), or set TEMPORAL_CLI to a temporal binary',
    ]);
  });

  it(
    'asks for no Temporal CLI when the command needs none, or when TEMPORAL_ADDRESS names a server for `npm ' +
      'start`',
    async () => {
      const { bin, tools } = await bareMachine();
      const base = { PATH: bin, HOME: tools, NETOPS_TOOLS: tools };
      const admin = await setup(['--', 'node', '-e', 'console.log("admin ran")'], base);
      expect(admin).toEqual({ code: 0, stdout: 'admin ran\n', stderr: '' });
      const worker = await setup(['--engine', '--', 'node', '-e', 'console.log("worker ran")'], {
        ...base,
        TEMPORAL_ADDRESS: '127.0.0.1:7233',
      });
      expect(worker).toEqual({ code: 0, stdout: 'worker ran\n', stderr: '' });
      const embedded = await setup(['--engine', '--', 'node', '-e', 'console.log("embedded ran")'], base);
      expect(embedded.code).toBe(1);
      expect(embedded.stderr).toMatch(/temporal not found/);
    },
  );

  it('refuses a TEMPORAL_CLI that cannot be run, naming it', async () => {
    const { bin, tools } = await bareMachine();
    const r = await setup(['--temporal', '--', 'true'], {
      PATH: bin,
      HOME: tools,
      NETOPS_TOOLS: tools,
      TEMPORAL_CLI: '/nonexistent/temporal',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('setup: TEMPORAL_CLI=/nonexistent/temporal is not a program that can be run');
  });

  it(
    'finds what an earlier run installed in the tools folder, ' + 'puts it first on PATH, and installs nothing',
    async () => {
      const { bin, tools } = await bareMachine();
      await executable(path.join(tools, 'bin/temporal'), 'echo "temporal from the tools folder $*"');
      await executable(path.join(bin, 'go'), 'echo "go must not run" >&2; exit 3');
      const env = { PATH: bin, HOME: tools, NETOPS_TOOLS: tools };
      const run = await setup(['--temporal', '--', 'temporal', '--version'], env);
      expect(run).toEqual({ code: 0, stdout: 'temporal from the tools folder --version\n', stderr: '' });
      // Asked for the PATH instead of a command, it says what it found and prints the line last.
      const printed = await setup(['--temporal'], env);
      expect(printed.code).toBe(0);
      expect(printed.stdout).toBe(`PATH=${tools}/node/node_modules/.bin:${tools}/bin:$PATH\n`);
      expect(printed.stderr).toContain(`setup: Temporal CLI found: ${tools}/bin/temporal`);
    },
  );

  it(
    'builds a missing Temporal CLI with go install at the pinned version into the tools folder, outside ' +
      "npm's configuration",
    async () => {
      const { bin, tools } = await bareMachine();
      // A stand-in for Go that records how it was called and "builds" into GOBIN, as go install does.
      await executable(
        path.join(bin, 'go'),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
        'mkdir -p "$GOBIN" && echo "$* GOBIN=$GOBIN npm_config_loglevel=${npm_config_loglevel:-unset}" ' +
          '>"$NETOPS_TOOLS/go-call"\n' +
          'printf "#!/bin/sh\\necho built temporal\\n" >"$GOBIN/temporal" && chmod +x "$GOBIN/temporal"',
      );
      const r = await setup(['--temporal', '--', 'temporal'], {
        PATH: bin,
        HOME: tools,
        NETOPS_TOOLS: tools,
        npm_config_loglevel: 'silent',
      });
      expect(r.stdout).toBe('built temporal\n');
      expect(r.code).toBe(0);
      expect(await fs.readFile(path.join(tools, 'go-call'), 'utf8')).toBe(
        `install github.com/temporalio/cli/cmd/temporal@v1.5.1 GOBIN=${tools}/bin npm_config_loglevel=unset\n`,
      );
      expect(r.stderr).toMatch(
        new RegExp(
          [
            '^setup: temporal not found: building it with go install .*first run only, a few minutes\\)\\nsetup: te',
            'mporal built: ',
          ].join(''),
        ),
      );
    },
  );

  it(
    'before the tests, names the tools a machine lacks ' + 'and it may not install, in one line, and runs nothing',
    async () => {
      const { bin, tools } = await bareMachine();
      await executable(path.join(tools, 'stub', 'temporal'), 'exit 0');
      const r = await setup(['--test', '--', 'node', '-e', 'console.log("ran")'], {
        PATH: bin,
        HOME: tools,
        NETOPS_TOOLS: tools,
        TEMPORAL_CLI: path.join(tools, 'stub', 'temporal'),
        CHROMIUM_PATH: path.join(tools, 'no-chromium'),
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([
        'setup: the tests need ffmpeg openssl chromium, which this machine lacks: install them (Debian: sudo ' +
          'apt-get install ffmpeg openssl chromium), or set CHROMIUM_PATH to a Chromium',
      ]);
      // With them there (a Chromium where CHROMIUM_PATH says), the command runs.
      for (const tool of ['ffmpeg', 'openssl']) await executable(path.join(bin, tool), 'exit 0');
      await executable(path.join(tools, 'no-chromium'), 'exit 0');
      const ok = await setup(['--test', '--', 'node', '-e', 'console.log("ran")'], {
        PATH: bin,
        HOME: tools,
        NETOPS_TOOLS: tools,
        TEMPORAL_CLI: path.join(tools, 'stub', 'temporal'),
        CHROMIUM_PATH: path.join(tools, 'no-chromium'),
      });
      expect([ok.code, ok.stdout]).toEqual([0, 'ran\n']);
    },
  );

  it('every npm script that runs code goes through it, with the needs of its command', async () => {
    const { scripts } = JSON.parse(await fs.readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const [name, command] of Object.entries(scripts)) {
      expect(command, name).toMatch(/^scripts\/setup (--\w+ )?-- /);
    }
    expect(scripts.start).toMatch(/^scripts\/setup --engine -- /);
    expect(scripts.test).toMatch(/^scripts\/setup --test -- /);
    // The benchmarks set up the peers they measure against.
    expect(scripts['bench:capture']).toMatch(/^scripts\/setup --wrk -- /);
    expect(scripts['bench:load']).toMatch(/^scripts\/setup --bench -- /);
  });
});
