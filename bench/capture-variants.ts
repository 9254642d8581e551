// The kinds of webhook bench:capture measures (bench/capture.ts), with their settings.

/** 20 rules that the bench's request meets none of, each failing at its last test (the most work). */
const RULES = Array.from({ length: 20 }, (_, i) => ({
  match: [
    { method: 'POST', body: { pointer: '/id', equals: `evt_${i}` } },
    { header: { 'content-type': { regex: '^application/json' } }, path: `/orders/${i}/**` },
    { method: ['POST', 'PUT'], query: { mode: `m${i}` } },
    { header: { 'content-type': true }, body: { regex: `"amount":\\s*${i}99\\b` } },
  ][i % 4],
  response: {
    status: 409,
    headers: { 'Content-Type': 'application/json' },
    body: `{"rule":${i},"id":"{{uuid}}"}`,
  },
}));
/**
 * The kinds of webhook (forwarding to `receiverUrl`), each keeping up to 10,000 captures (so no round reaches a
 * webhook's bound).
 */
export const captureVariants = (receiverUrl: string): Array<[string, Record<string, unknown>]> =>
  (
    [
      ['plain', {}],
      ['custom response', { response: { status: 201, headers: { 'Content-Type': 'text/plain' }, body: 'queued' } }],
      ['20 rules', { rules: RULES }],
      [
        '20 simple rules',
        {
          rules: Array.from({ length: 20 }, (_, i) => ({
            match: { method: 'DELETE', path: `/x${i}` },
            response: { status: 409 },
          })),
        },
      ],
      ['forwarding', { forward_url: receiverUrl }],
    ] as Array<[string, Record<string, unknown>]>
  ).map(([name, settings]): [string, Record<string, unknown>] => [
    name,
    { ...settings, retention: { max_requests: 10_000 } },
  ]);
