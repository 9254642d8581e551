// The upload and download links of video jobs (api/services/video/video.ts): the job id and an HMAC of it under
// a secret of the server: unguessable, the same on every poll and in every API process, and nothing to store.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import { sharedSecret } from '../../../db/server-secrets.ts';
import type { Config } from '../../../lib/config.ts';
import { NotFoundError } from '../../../lib/errors.ts';
import { PUBLIC_ID_PATTERN } from '../../../lib/auth/tokens.ts';

export type LinkPurpose = 'upload' | 'download';
const LINK_PATH: Record<LinkPurpose, string> = { upload: 'uploads', download: 'downloads' };

export function videoLinks(deps: { config: Pick<Config, 'baseUrl'>; db: Kysely<Database> }) {
  let secret: Promise<string> | undefined;
  const mac = async (purpose: LinkPurpose, jobId: string) => {
    secret ??= sharedSecret(deps.db, 'video-links', () => randomBytes(32).toString('base64url'));
    return createHmac('sha256', await secret)
      .update(`${purpose}:${jobId}`)
      .digest('base64url');
  };

  return {
    /** The link of a job for one purpose: `{BASE_URL}/uploads/<job id>.<HMAC>` or `/downloads/...`. */
    link: async (purpose: LinkPurpose, jobId: string) =>
      `${deps.config.baseUrl}/${LINK_PATH[purpose]}/${jobId}.${await mac(purpose, jobId)}`,

    /** The job a link names, when its HMAC is right; NotFound for anything else (nothing is told apart). */
    async jobOfLink(purpose: LinkPurpose, token: string): Promise<string> {
      const [jobId = '', givenText = ''] = token.split('.');
      const given = Buffer.from(givenText);
      const expected = PUBLIC_ID_PATTERN.test(jobId) ? Buffer.from(await mac(purpose, jobId)) : null;
      if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected))
        throw new NotFoundError(`No such ${purpose} link`);
      return jobId;
    },
  };
}
