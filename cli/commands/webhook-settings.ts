// netops webhook create|update: what a webhook answers (a response, rules), how its captures are
// judged (a JSON Schema, a signature), where they go (forward_url) and how many it keeps. The API's
// own schema checks the body first, so a bad value is exit 2 naming its flag before any request.
// They run from actions/webhook-settings.ts, loaded then.
import { Option, type Command } from 'commander';
import { SIGNATURE_SCHEMES } from '../contract.ts';
import { UsageError } from '../errors.ts';
import type { SettingFlags } from '../webhooks/webhook-settings-body.ts';
import { examples, positiveInt, wholeNumber } from './parse.ts';
const repeat = (v: string, all: string[] = []) => [...all, v];
const actions = () => import('../actions/webhook-settings.ts');

/** `scheme[:header]`: the scheme checked here (an enumeration), the header by the API. */
function signatureFlag(value: string): string {
  const scheme = value.split(':')[0]!;
  if (!(SIGNATURE_SCHEMES as readonly string[]).includes(scheme))
    throw new UsageError(`--signature: "${scheme}" is not one of ${SIGNATURE_SCHEMES.join(', ')}`);
  return value;
}

/** The flags that set a webhook's settings: create's and update's alike. */
function settingOptions(cmd: Command): Command {
  return cmd
    .option('--rules <file>', 'response rules: a JSON list of {match, response} (- reads stdin)')
    .option('--schema <file>', "a JSON Schema (draft 2020-12) every capture's body is checked against (- reads stdin)")
    .option(
      '--signature <scheme[:header]>',
      `check signatures: ${SIGNATURE_SCHEMES.join(', ')} (hmac-sha256:Header-Name); ` +
        'the secret is asked for, or read from stdin',
      signatureFlag,
    )
    .option('--response-status <code>', 'the status senders get (200-599)', positiveInt('--response-status'))
    .option('--response-body <text>', 'the body senders get (@FILE reads a file)')
    .option('--response-header <name:value>', 'a header senders get (repeat it; "Name:" removes one)', repeat)
    .option('--response-delay <ms>', 'answer after this many milliseconds (0-30000)', wholeNumber('--response-delay'))
    .option('--forward-url <url>', 'pass each new capture on to this URL (the service sends it: it must reach it)')
    .option('--keep <n>', 'how many captures it keeps (default 500; the plan bounds it)', positiveInt('--keep'))
    .option('--keep-days <n>', "for how many days it keeps them (default: the plan's)", positiveInt('--keep-days'));
}

/** Clearing a setting (null) goes with no flag that sets it. */
function clearOption(flag: string, what: string, conflicts: string[]): Option {
  return new Option(flag, what).conflicts(conflicts);
}

export function registerWebhookSettings(webhook: Command): void {
  settingOptions(webhook.command('create').description('Create a webhook and print its capture URL'))
    .addOption(new Option('--status <code>', 'same as --response-status').argParser(positiveInt('--status')).hideHelp())
    .addOption(new Option('--body <text>', 'same as --response-body').hideHelp())
    .addOption(new Option('--header <name:value>', 'same as --response-header').argParser(repeat).hideHelp())
    .option('--json', 'print the API answer')
    .addHelpText(
      'after',
      examples(
        'netops webhook create --response-status 202 --response-header "Content-Type: text/plain" --response-body ok',
        'netops webhook create --rules rules.json --schema order.schema.json --keep 2000',
        'echo "$STRIPE_WEBHOOK_SECRET" | netops webhook create --signature stripe',
      ),
    )
    .action(async (o: SettingFlags & { json?: boolean }) => (await actions()).create(o));

  settingOptions(
    webhook
      .command('update')
      .description('Change what a webhook answers, checks, forwards and keeps (what no flag names stays as it is)')
      .argument('<id>', 'the webhook id'),
  )
    .addOption(clearOption('--clear-rules', 'no response rules', ['rules']))
    .addOption(clearOption('--clear-schema', 'no JSON Schema check', ['schema']))
    .addOption(clearOption('--clear-signature', 'no signature check', ['signature']))
    .addOption(
      clearOption('--clear-response', 'the default JSON answer', [
        'responseStatus',
        'responseBody',
        'responseHeader',
        'responseDelay',
      ]),
    )
    .addOption(clearOption('--clear-forward-url', 'stop forwarding', ['forwardUrl']))
    .addOption(clearOption('--clear-retention', 'keep what the plan keeps by default', ['keep', 'keepDays']))
    .option('--json', 'print the API answer')
    .addHelpText(
      'after',
      examples(
        'netops webhook update wh_123 --rules rules.json',
        'netops webhook update wh_123 --response-status 503 --response-header "Retry-After: 5"',
        'netops webhook update wh_123 --signature stripe < stripe-secret.txt',
        'netops webhook update wh_123 --clear-rules --clear-forward-url',
      ),
    )
    .action(async (id: string, o: SettingFlags & { json?: boolean }) => (await actions()).update(id, o));
}
