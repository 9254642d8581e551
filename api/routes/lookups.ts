import Router from '@koa/router';
import { z } from 'zod';
import { isIP } from 'node:net';
import { DNS_TYPES, type DnsType } from '../../activities/dns/lookup.ts';
import { createClientIp, plainIp } from '../../lib/net/client-ip.ts';
import { normalizeDomain } from '../../lib/domain-name.ts';
import type { ApiDeps } from '../context.ts';
import { lookupServices } from '../services.ts';
import type { AuthState } from '../middleware/auth.ts';
import { validate } from '../validate.ts';

export const dnsQuery = z.object({
  domain: z.string({ error: 'must be a string' }),
  type: z
    .string()
    .transform((t) => t.toUpperCase())
    .pipe(z.enum(['ALL', ...DNS_TYPES], { error: `must be one of ALL, ${DNS_TYPES.join(', ')}` }))
    .default('ALL'),
});

export const ipQuery = z.object({
  ip: z
    .string({ error: 'must be a string' })
    .trim()
    .refine((v) => v === '' || isIP(v) !== 0, 'must be an IPv4 or IPv6 address')
    .optional(),
});

export const headersQuery = z.object({
  url: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'is required')
    .refine((v) => /^https?:\/\//i.test(v), 'must be a full http:// or https:// URL'),
});

/** Lookups answered in the request (ARCHITECTURE.md: the API calls the activity code directly). */
export function lookupRoutes({ config }: ApiDeps): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: '/network' });
  const { dnsLookup, ipInfo, headerCheck } = lookupServices(config);
  const clientIp = createClientIp(config.trustedProxies);

  router.get('/dns-lookup', async (ctx) => {
    const query = validate(dnsQuery, ctx.query, 'query');
    const domain = normalizeDomain(query.domain);
    const types: readonly DnsType[] = query.type === 'ALL' ? DNS_TYPES : [query.type];
    ctx.body = { success: true, domain, type: query.type, records: await dnsLookup(domain, types) };
  });

  router.get('/ip-info', async (ctx) => {
    const { ip } = validate(ipQuery, ctx.query, 'query');
    const address = plainIp(ip || clientIp(ctx.req));
    ctx.body = { success: true, ip: address, data: await ipInfo(address) };
  });

  router.get('/http-headers', async (ctx) => {
    const { url } = validate(headersQuery, ctx.query, 'query');
    ctx.body = { success: true, ...(await headerCheck(url)) };
  });

  return router;
}
