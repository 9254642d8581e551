// Builds the `netops` command (cli/, TypeScript) into one JavaScript file, dist/netops.js, that
// Node 22.12 and later run without flags: Node strips types only outside node_modules, and not at
// all before 22.18 without a flag, so what users install must be JavaScript. `npm install` runs it
// (the `prepare` script); the test suites run it too, so they never test a stale build.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let esbuild: typeof import('esbuild');
try {
  esbuild = await import('esbuild');
} catch {
  // An install without dev dependencies (a server image) has no command line to build.
  console.error('netops: the command line was not built (esbuild is a dev dependency: run `npm install` with them)');
  process.exit(0);
}
await esbuild
  .build({
    entryPoints: [path.join(root, 'cli/main.ts')],
    outfile: path.join(root, 'dist/netops.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.12',
    // Bundled CommonJS packages (cli-table3, cli-progress) call require() for Node's own modules.
    banner: {
      js: "import { createRequire as __netopsRequire } from 'node:module'; const require = __netopsRequire(import.meta.url);",
    },
    // A smaller file to parse at every start; names kept, so stack traces still read.
    minify: true,
    keepNames: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: process.argv.includes('--sizes'),
  })
  .then((result) => {
    if (result.metafile) console.log(esbuild.analyzeMetafileSync(result.metafile));
  });
