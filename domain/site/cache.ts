// The site jobs' answers in the key-value store: their keys and how they are stored and read back
// (the activities store them; the API answers repeats from them).
import type { KvStore } from '../../lib/kv/index.ts';
import { normalisePageUrl } from './discover.ts';
import type { PageType } from './audit/index.ts';

export interface CachedAnswer<T> {
  value: T;
  storedAt: number;
}

/** Discovery reads the site's origin whatever page of it is given: one answer per origin. */
export const discoveryCacheKey = (url: string) => `site:pages:${URL.canParse(url) ? new URL(url).origin : url}`;
export const auditCacheKey = (url: string, pageType: PageType | undefined) =>
  `site:audit:v2:${pageType ?? 'auto'}:${normalisePageUrl(url) ?? url}`;

export async function readCached<T>(kv: KvStore, key: string): Promise<CachedAnswer<T> | null> {
  const raw = await kv.get(key);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as CachedAnswer<T>;
  } catch {
    return null;
  }
}

export async function store<T>(kv: KvStore, key: string, value: T, ttlSeconds: number): Promise<void> {
  await kv.set(key, JSON.stringify({ value, storedAt: Date.now() } satisfies CachedAnswer<T>), ttlSeconds);
}
