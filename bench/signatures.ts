// Signature checks in a listing: a page of captures of a webhook whose signatures are checked (Standard
// Webhooks here, whose key is bytes: the base64 after `whsec_`), each checked as the listing checks it.
// Ours (lib/webhooks/webhook-signatures.ts: one checker a page, its key made once) beside the scheme's
// reference library (`standardwebhooks`: one Webhook a page, `verify` each capture, its JSON left
// unparsed) and beside the HMAC alone through node:crypto, given the key as bytes for each capture (no
// header parsing, no time check: what making a key for each capture costs by itself). A warm-up, then BENCH_ROUNDS
// (3) rounds of BENCH_PAGES (20) pages of BENCH_PAGE (500, a listing's largest) captures of 1.5 KB, in
// turn (bench/in-turn.ts); µs a capture.
//   npm run --silent bench:signatures
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signatureChecker, signatureHeaders, type SignedRequest } from '../lib/webhooks/webhook-signatures.ts';
import { inTurn, printBeside } from './in-turn.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const pages = Number(process.env.BENCH_PAGES ?? 20);
const pageSize = Number(process.env.BENCH_PAGE ?? 500);

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const now = new Date();
const page: SignedRequest[] = Array.from({ length: pageSize }, (_, i) => {
  const body = Buffer.from(JSON.stringify({ id: `evt_${i}`, type: 'invoice.paid', data: 'x'.repeat(1450) }));
  return {
    body,
    capturedAt: now,
    headers: signatureHeaders('standard-webhooks', secret, '', { body, at: now, messageId: `msg_${i}` }),
  };
});

/** A page's checks: how many verified. */
type PageCheck = (requests: readonly SignedRequest[]) => number;

const ours: PageCheck = (requests) => {
  const check = signatureChecker('standard-webhooks', secret, '');
  return requests.filter((r) => check(r).status === 'valid').length;
};
const reference: PageCheck = (requests) => {
  const webhook = new Webhook(secret);
  let valid = 0;
  for (const r of requests) {
    webhook.verify(r.body, r.headers, { jsonParse: false }); // throws when it does not verify
    valid += 1;
  }
  return valid;
};
const keyAsBytes: PageCheck = (requests) => {
  let valid = 0;
  for (const r of requests) {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const h = r.headers;
    const signed = Buffer.concat([Buffer.from(`${h['webhook-id']}.${h['webhook-timestamp']}.`), r.body]);
    const expected = createHmac('sha256', key).update(signed).digest();
    const given = Buffer.from((h['webhook-signature'] ?? '').slice('v1,'.length), 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) valid += 1;
  }
  return valid;
};

const checkers: Array<[string, PageCheck]> = [
  ['netops (one checker a page)', ours],
  ['standardwebhooks 1.1.1 (one Webhook a page)', reference],
  ['node:crypto HMAC alone, key as bytes each', keyAsBytes],
];

/** Microseconds a capture over `pages` pages. */
function perCapture(check: PageCheck): number {
  const start = process.hrtime.bigint();
  for (let p = 0; p < pages; p++) if (check(page) !== page.length) throw new Error('a signature did not verify');
  return Number(process.hrtime.bigint() - start) / 1000 / (pages * page.length);
}

console.log(
  `Signature checks (Standard Webhooks), pages of ${pageSize} captures of 1.5 KB, ${pages} pages a round, ` +
    `${rounds} rounds in turn after a warm-up: µs a capture (median of the rounds)`,
);
printBeside(
  checkers.map(([name]) => name),
  await inTurn(checkers, rounds, ([, check]) => perCapture(check)),
  'µs',
);
