import { describe, expect, it } from 'vitest';
import { InvalidInputError, UpstreamError } from '../../../../lib/errors.ts';

describe('what the API logs of a failure', () => {
  const logged = () => {
    const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
    const at = (level: string) => (fields: Record<string, unknown>, message: string) =>
      void lines.push({ level, fields, message });
    return { lines, logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } as never };
  };

  it(
    "logs a user's target that failed at info without a stack, our own failures at error with theirs, and a " +
      "caller's mistake not at all",
    async () => {
      const { logFailure, toAppError } = await import('../../../../api/middleware/errors.ts');
      const { lines, logger } = logged();
      const upstream = new UpstreamError('https://example.com/ answered 404');
      logFailure(logger, toAppError(upstream), upstream, { path: '/api/v1/site/audit' });
      const bug = new TypeError('x is undefined');
      logFailure(logger, toAppError(bug), bug, { path: '/api/v1/network/dns-lookup' });
      const mistake = new InvalidInputError('domain: is required', 'domain');
      logFailure(logger, mistake, mistake, {});
      expect(lines.map((l) => [l.level, l.message])).toEqual([
        ['info', 'an upstream failed'],
        ['error', 'request failed'],
      ]);
      expect(lines[0]!.fields).toEqual({
        error_code: 'upstream_failed',
        message: 'https://example.com/ answered 404',
        path: '/api/v1/site/audit',
      });
      expect(lines[1]!.fields.err).toBe(bug);
    },
  );
});
