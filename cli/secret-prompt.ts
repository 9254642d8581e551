// A secret asked for on the terminal, not echoed (as ssh and sudo ask for a password), or read from
// standard input when that is not a terminal (a pipe, a file, a CI step): never a flag's value, which
// would stay in the shell's history and show in the process list.
import fs from 'node:fs';
import { UsageError } from './errors.ts';

/** The secret: asked on the terminal (hidden), else standard input whole, trimmed. */
export async function readSecret(question: string, flag: string): Promise<string> {
  const secret = process.stdin.isTTY ? await askHidden(question) : fs.readFileSync(0, 'utf8').trim();
  if (!secret) throw new UsageError(`${flag}: no secret given (type it when asked, or pipe it to standard input)`);
  return secret;
}

function askHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  let value = '';
  return new Promise((resolve) => {
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\u0003') {
          // Ctrl-C: raw mode kept the terminal from sending SIGINT; end as it would have.
          done();
          process.kill(process.pid, 'SIGINT');
          return;
        }
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          done();
          resolve(value.trim());
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
