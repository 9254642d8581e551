#!/usr/bin/env node
// The `netops` command: dist/netops.js and the chunks it loads (dist/chunks/), built from cli/ by
// `npm install` (scripts/build-cli.ts).
// Checks first what would otherwise fail obscurely: an old Node, a clone not installed yet.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(`netops needs Node.js 22.12 or later; this is ${process.version}`);
  process.exit(1);
}
// Node keeps the compiled files on disk (in the OS's temp folder): later starts skip compiling them.
(await import('node:module')).enableCompileCache?.();
try {
  await import('../dist/netops.js');
} catch (e) {
  // Missing: dist/ (never built), or a chunk of it (dist/ copied in part).
  const dist = (await import('node:url')).fileURLToPath(new URL('../dist/', import.meta.url));
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes(dist)) throw e;
  console.error('netops is not built yet: run `npm install` in the netops folder');
  process.exit(1);
}
