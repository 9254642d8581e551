// login, logout, whoami when they run (their flags: commands/auth.ts).
import fs from 'node:fs';
import { accountOperations } from '../contract.ts';
import { client, pathOf } from '../client.ts';
import { currentService, forgetService, normalizeUrl, saveService } from '../config.ts';
import { UsageError } from '../errors.ts';
import { fields, out, print, printJson } from '../output.ts';

interface Account {
  email: string;
  plan: string;
  limits: Record<string, number>;
}

const accountOf = (service: { url: string; key: string }) =>
  client(service).call<Account & { success: true }>('GET', pathOf(accountOperations.show));

export async function login(opts: { url: string; key: string; json?: boolean }): Promise<void> {
  const key = opts.key === '-' ? fs.readFileSync(0, 'utf8').trim() : opts.key.trim();
  if (!key) throw new UsageError('--key: is empty');
  const service = { url: normalizeUrl(opts.url), key };
  const account = await accountOf(service);
  const file = saveService(service);
  if (opts.json) return printJson(account);
  print(`Signed in to ${out.bold(service.url)} as ${out.bold(account.email)} (${account.plan} plan). Saved in ${file}`);
}

export function logout(): void {
  print(forgetService() ? 'Signed out: the saved service and key are gone' : 'Nothing was saved');
}

export async function whoami(opts: { json?: boolean }): Promise<void> {
  const service = currentService();
  const account = await accountOf(service);
  if (opts.json) return printJson(account);
  const l = account.limits;
  print(
    fields([
      ['Service', `${service.url} (${service.from})`],
      ['Email', account.email],
      ['Plan', account.plan],
      ['Requests', `${l.requests_per_minute}/minute, ${l.requests_per_day}/day`],
      [
        'Webhooks',
        `${l.webhooks} (${l.forwarding_webhooks} forwarding), ${l.captures_kept} captures kept for ` +
          `${l.capture_days} days`,
      ],
      ['Load tests', `${l.load_tests_at_once} at once, up to ${l.load_test_users} users for ${l.load_test_seconds} s`],
      // Absent from a service of the release before.
      ['Video jobs', l.video_jobs_at_once === undefined ? undefined : `${l.video_jobs_at_once} at once`],
    ]),
  );
}
