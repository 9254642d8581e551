// Prompts for the common jobs: each one a user message that names the tools (and resources) the job
// takes, in the order a careful person would use them, filled in with the user's arguments. Prompt
// arguments are strings (the protocol's rule); the tools check the values when they are called.
import type { GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const userSays = (text: string): GetPromptResult => ({ messages: [{ role: 'user', content: { type: 'text', text } }] });
const optional = (description: string) => z.string().optional().describe(description);

export function registerPrompts(server: McpServer, offered: { loadTests: boolean; site: boolean }): void {
  if (offered.loadTests)
    server.registerPrompt(
      'load_test_staging',
      {
        title: 'Load test my staging URL',
        description:
          'Proves you control the URL, runs a load test against it with pass/fail thresholds and explains the results.',
        argsSchema: z.object({
          url: z.string().describe('The URL to test, e.g. https://staging.example.com/health'),
          users: optional('Concurrent virtual users (default 20)'),
          duration_seconds: optional('How long the test runs, in seconds (default 60)'),
          p95_ms: optional('The p95 response time that passes, in milliseconds (default 500)'),
        }),
      },
      ({ url, users, duration_seconds, p95_ms }) =>
        userSays(
          [
            `Load test ${url} for me, carefully.`,
            '1. If the test is refused because the target is not verified, call ' +
              `load_test_verify_target with targetUrl ${url} and tell me exactly what to publish ` +
              '(the file or DNS record it answers), then wait for me to confirm before going on.',
            `2. Start it with load_test_start: targetUrl ${url}, concurrentUsers ${users ?? 20}, ` +
              `testDuration ${duration_seconds ?? 60}, a rampUpTime of about a tenth of the ` +
              `duration, and thresholds that fail it when p95 exceeds ${p95_ms ?? 500} ms or more ` +
              'than 1% of requests fail (abortOnFail for the error rate).',
            '3. While it runs, report its progress (load_test_status) briefly; stop it with ' +
              'load_test_stop if the error rate climbs past 20%.',
            '4. When it ends, read netops://load-tests/{test_id}/report and summarise: the ' +
              'verdict, throughput, p50/p95/p99, the errors by kind, and the likely bottleneck, ' +
              'with one concrete next step.',
          ].join('\n'),
        ),
    );

  server.registerPrompt(
    'debug_webhook_handler',
    {
      title: 'Debug why my webhook handler fails',
      description:
        'Looks at what a webhook of yours captured, replays a capture to your handler and ' +
        'compares a request that worked with one that did not.',
      argsSchema: z.object({
        webhook_id: optional('The webhook that receives the deliveries (when left out, pick it from webhook_list)'),
        handler_url: optional('Your handler’s URL, to replay captures to (e.g. https://staging.example.com/hooks)'),
        symptom: optional('What goes wrong, in your words (e.g. "401 on every order.paid event")'),
      }),
    },
    ({ webhook_id, handler_url, symptom }) =>
      userSays(
        [
          `My webhook handler fails${symptom ? `: ${symptom}` : ''}. Find out why.`,
          webhook_id
            ? `1. Read netops://webhooks/${webhook_id}/requests (or call webhook_requests with ` +
              `webhook_id ${webhook_id}).`
            : '1. Call webhook_list, pick the webhook these deliveries go to (ask me if it is ' +
              'unclear), and read its netops://webhooks/{webhook_id}/requests.',
          '2. Look at the captures: content type, body shape, the signature check and the JSON ' +
            'Schema check when set, and the delivery to my forward URL with its status.',
          handler_url
            ? `3. Replay the most recent failing capture to ${handler_url} with webhook_replay and ` +
              'show me the status and body my handler answered.'
            : '3. If I give you my handler’s URL, replay the most recent failing capture to it with webhook_replay.',
          '4. When one capture worked and another did not, compare them with webhook_diff.',
          '5. Tell me the most likely cause, the evidence for it, and the change to make in the handler.',
        ].join('\n'),
      ),
  );

  if (offered.site)
    server.registerPrompt(
      'review_page_design',
      {
        title: 'Review a page’s design',
        description: 'Finds the main pages of a site and audits the design of the one you name or the most important.',
        argsSchema: z.object({
          url: z.string().describe('The site or page, e.g. https://example.com'),
          focus: optional('What matters most (e.g. "accessibility", "mobile", "checkout")'),
        }),
      },
      ({ url, focus }) =>
        userSays(
          [
            `Review the design of ${url}${focus ? `, with a focus on ${focus}` : ''}.`,
            `1. If ${url} is a site rather than one page, call discover_site_pages and pick its ` +
              'most important page (say which and why).',
            '2. Audit that page with audit_page_design.',
            '3. Give me the five findings that matter most, each with where it is on the page ' +
              'and the fix, most important first.',
          ].join('\n'),
        ),
    );
}
