// `netops`: the service's command line. A client of its public REST API only, so it works the same
// against a local `npm start` and a remote instance. Built into dist/ by scripts/build-cli.ts.
import { Command, CommanderError } from 'commander';
import { VERSION } from './client.ts';
import { registerAuth } from './commands/auth.ts';
import { registerListen } from './commands/listen.ts';
import { registerLoad } from './commands/load.ts';
import { registerLookups } from './commands/lookups.ts';
import { registerWebhooks } from './commands/webhooks.ts';
import { EXIT, exitCodeOf } from './errors.ts';
import { err, note } from './output.ts';

const program = new Command('netops')
  .description('Network tools, webhook capture and load tests from the terminal and CI, against a netops service')
  .version(VERSION, '-v, --version')
  .exitOverride()
  .showHelpAfterError('(add --help for usage)')
  .configureOutput({ outputError: (text, write) => write(err.red(text)) })
  .addHelpText(
    'after',
    `
Examples:
  $ netops login --url https://netops.example.com --key ntk_...
  $ netops listen --forward-to http://localhost:4000/webhooks
  $ netops load run smoke.json --threshold "p95 < 300"
  $ netops headers https://example.com

Configuration: NETOPS_URL and NETOPS_API_KEY, else what \`netops login\` saved.
Exit codes: 0 done, 1 the API or the network failed, 2 wrong usage, 98 a load test's target
unreachable, 99 thresholds failed, 124 a wait timed out.`,
  );

registerAuth(program);
registerWebhooks(program);
registerListen(program);
registerLoad(program);
registerLookups(program);

let code: number = EXIT.ok;
try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // Help and --version end well; every other complaint of the parser is wrong usage.
    code = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else if ((e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && /[\\/]dist[\\/]/.test((e as Error).message)) {
    // A command's own file is missing (dist/ copied in part, or rebuilt while this ran), said as
    // bin/netops.js says a build that is not there.
    code = 1;
    process.stderr.write(
      `${err.red('netops: this command is missing from the installed files: install netops again (npm install)')}\n`,
    );
  } else {
    code = exitCodeOf(e);
    note(err.red(`netops: ${(e as Error).message}`));
  }
}
process.exitCode = code;
// Whatever still holds the event loop (a kept-alive connection) must not hold the exit.
process.stdout.write('', () => process.exit(code));
