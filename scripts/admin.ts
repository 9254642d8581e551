// npm run --silent admin -- create-key --email <email> --plan <free|pro|enterprise> [--name <label>] [--set-plan]
//   (the plan is a new user's; an existing user keeps theirs unless --set-plan says to change it)
// npm run --silent admin -- revoke-key --key <api key>
// npm run --silent admin -- create-user --email <email> --password <password> [--plan <plan>]
//   (sign-in for the MCP endpoint's OAuth flow; an existing user keeps its plan and keys)
// Prints one JSON line on success; one line on stderr and a non-zero exit on failure.
// Works against DATABASE_URL, or the embedded database under DATA_DIR (also while `npm start` runs).
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { issueApiKey, revokeApiKey } from '../db/api-keys.ts';
import { openDatabase } from '../db/connect.ts';
import { findOrCreateUser, setUserPassword, upsertUser } from '../db/users.ts';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../lib/auth/passwords.ts';
import { ConfigError, loadConfig } from '../lib/config.ts';
import { PLANS } from '../lib/plans.ts';

const USAGE =
  'usage: admin create-key --email <email> --plan <free|pro|enterprise> [--name <label>] [--set-plan] | ' +
  'admin revoke-key --key <api key> | ' +
  'admin create-user --email <email> --password <password> [--plan <plan>]';

class UsageError extends Error {}

/**
 * An email address as the HTML standard's email inputs take it (so the sign-in form takes it too),
 * which allows a host without a dot: the first run's admin@localhost is one.
 */
const emailAddress = z
  .string()
  .max(254)
  .regex(
    new RegExp(
      [
        "^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@",
        '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$',
      ].join(''),
    ),
  );

async function main(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      plan: { type: 'string' },
      name: { type: 'string' },
      key: { type: 'string' },
      password: { type: 'string' },
      'set-plan': { type: 'boolean' },
    },
    strict: true,
  });
  if (command === 'create-key') {
    const email = emailAddress.safeParse(values.email);
    if (!email.success)
      throw new UsageError(`--email must be an email address (got ${JSON.stringify(values.email ?? '')})`);
    const plan = z.enum(PLANS).safeParse(values.plan);
    if (!plan.success)
      throw new UsageError(`--plan must be one of ${PLANS.join(', ')} (got ${JSON.stringify(values.plan ?? '')})`);
    return withDb(async (db) => {
      const user = values['set-plan']
        ? await upsertUser(db, email.data, plan.data)
        : await findOrCreateUser(db, email.data, plan.data);
      if (user.plan !== plan.data)
        console.error(
          `admin: ${user.email} stays on the ${user.plan} plan (add --set-plan to move it to ${plan.data})`,
        );
      const key = await issueApiKey(db, user.id, values.name ?? null);
      return { user_id: user.id, api_key: key.apiKey };
    });
  }
  if (command === 'create-user') {
    const email = emailAddress.safeParse(values.email);
    if (!email.success)
      throw new UsageError(`--email must be an email address (got ${JSON.stringify(values.email ?? '')})`);
    const password = values.password ?? '';
    if (password.length < MIN_PASSWORD_LENGTH)
      throw new UsageError(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
    const plan = values.plan === undefined ? undefined : z.enum(PLANS).safeParse(values.plan);
    if (plan && !plan.success)
      throw new UsageError(`--plan must be one of ${PLANS.join(', ')} (got ${JSON.stringify(values.plan)})`);
    const hash = await hashPassword(password);
    return withDb(async (db) => {
      const user = await setUserPassword(db, email.data, hash, plan?.data);
      return { user_id: user.id, email: user.email, plan: user.plan };
    });
  }
  if (command === 'revoke-key') {
    if (!values.key) throw new UsageError('--key is required');
    const key = values.key;
    return withDb(async (db) => {
      if (!(await revokeApiKey(db, key))) throw new UsageError('no active API key matches --key');
      return { revoked: true };
    });
  }
  throw new UsageError(USAGE);
}

async function withDb<T>(work: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, maxConnections: 1 });
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

try {
  console.log(JSON.stringify(await main(process.argv.slice(2))));
} catch (err) {
  const known =
    err instanceof UsageError ||
    err instanceof ConfigError ||
    (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  console.error(known ? `admin: ${(err as Error).message}` : `admin: failed: ${(err as Error).message}`);
  process.exit(known ? 2 : 1);
}
