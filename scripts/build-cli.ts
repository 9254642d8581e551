// Builds the `netops` command (cli/, TypeScript) into JavaScript in dist/ that Node 22.12 and later
// run without flags: Node strips types only outside node_modules, and not at all before 22.18 without
// a flag, so what users install must be JavaScript. dist/netops.js is the entry; what each command
// does when it runs, and the libraries and API schemas it uses, are chunks in dist/chunks/ that it
// loads then (esbuild's code splitting), so `netops --version`, `--help` and a command's start load
// only the command's declarations. `npm install` runs it (the `prepare` script); the test suites run
// it too, so they never test a stale build.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
let esbuild: typeof import('esbuild');
try {
  esbuild = await import('esbuild');
} catch {
  // An install that lost esbuild (a dependency: it also bundles the dashboard's scripts) builds nothing.
  console.error('netops: the command line was not built (esbuild is missing: run `npm ci`)');
  process.exit(0);
}

// cli/contract.ts, evaluated here, goes into the bundle as its values: the operations' paths and the
// constants the command names, without the zod schemas and server modules they are declared with.
const contractFile = path.join(root, 'cli/contract.ts');
const contract: Record<string, unknown> = { ...(await import(pathToFileURL(contractFile).href)) };
for (const [name, value] of Object.entries(contract))
  assert.deepEqual(JSON.parse(JSON.stringify(value)), value, `cli/contract.ts: ${name} is not plain data`);
const contractAsData: import('esbuild').Plugin = {
  name: 'contract-as-data',
  setup(build) {
    build.onLoad({ filter: /[\\/]cli[\\/]contract\.ts$/ }, (args) =>
      args.path === contractFile
        ? {
            loader: 'js',
            contents: Object.entries(contract)
              .map(([name, value]) => `export const ${name} = ${JSON.stringify(value)};`)
              .join('\n'),
          }
        : undefined,
    );
  },
};

const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { netops: path.join(root, 'cli/main.ts') },
  outdir: dist,
  bundle: true,
  // Each dynamic import() of cli/ (a command's action, a schema it checks with) becomes a chunk of its own.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node22.12',
  // Bundled CommonJS packages (cli-table3, cli-progress) call require() for Node's own modules.
  banner: {
    js:
      "import { createRequire as __netopsRequire } from 'node:module'; const require = " +
      '__netopsRequire(import.meta.url);',
  },
  // Smaller files to parse; names kept, so stack traces still read.
  minify: true,
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  plugins: [contractAsData],
});

// Chunks of earlier builds (their names carry a hash of their content) go, so dist/ holds this build only.
const built = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(root, file)));
const chunks = path.join(dist, 'chunks');
for (const file of fs.readdirSync(chunks)) {
  if (!built.has(path.join(chunks, file))) fs.rmSync(path.join(chunks, file), { force: true });
}

if (process.argv.includes('--sizes')) console.log(esbuild.analyzeMetafileSync(result.metafile));
