// Search attributes every job carries, so operators filter by them in Temporal UI
// (`NetopsKind = "load-test" AND NetopsOwner = 42`). The API registers them on the namespace at start
// when they are missing (the dev server and self-hosted servers allow it); where it cannot, jobs start
// without them rather than failing.
import type { Client } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import proto from '@temporalio/proto';

const { temporal } = proto;

export const KIND_ATTRIBUTE = defineSearchAttributeKey('NetopsKind', SearchAttributeType.KEYWORD);
export const OWNER_ATTRIBUTE = defineSearchAttributeKey('NetopsOwner', SearchAttributeType.INT);

let available = false;

export async function ensureSearchAttributes(
  client: Client,
  namespace: string,
  log: (message: string) => void,
): Promise<boolean> {
  const wanted = {
    NetopsKind: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    NetopsOwner: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  };
  try {
    const existing = await client.connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.fromEntries(
      Object.entries(wanted).filter(([name]) => !(name in (existing.customAttributes ?? {}))),
    );
    if (Object.keys(missing).length)
      await client.connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
    available = true;
  } catch (err) {
    available = false;
    log(`search attributes NetopsKind/NetopsOwner unavailable, jobs start without them: ${(err as Error).message}`);
  }
  return available;
}

/** The pairs for a job, when the namespace has the attributes. */
export function jobSearchAttributes(kind: string, ownerId: number): SearchAttributePair[] | undefined {
  return available
    ? [
        { key: KIND_ATTRIBUTE, value: kind },
        { key: OWNER_ATTRIBUTE, value: ownerId },
      ]
    : undefined;
}
