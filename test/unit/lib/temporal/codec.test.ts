// The payload codec (lib/temporal/codec.ts): what it writes to Temporal is AES-256-GCM under the
// process's key, named by its id; what it reads back is the payload it was given, or a refusal.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { AesGcmCodec, ENCRYPTED_ENCODING } from '../../../../lib/temporal/codec.ts';

const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString();
const payload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);

describe('AesGcmCodec', () => {
  const key = randomBytes(32);
  const codec = new AesGcmCodec(key);
  const secret = { target: 'https://example.test/', headers: { authorization: 'Bearer s3cr3t-token' } };

  it('gives back each payload it encoded, metadata included', async () => {
    const given = [payload(secret), payload(null), payload('x'.repeat(100_000))];
    const encoded = await codec.encode(given);
    const decoded = await new AesGcmCodec(Buffer.from(key)).decode(encoded);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([secret, null, 'x'.repeat(100_000)]);
    expect(decoded.map((p) => text(p.metadata?.encoding))).toEqual(given.map((p) => text(p.metadata?.encoding)));
  });

  it('writes no plain text, a new IV each time, and names its key without revealing it', async () => {
    const [a, b] = await codec.encode([payload(secret), payload(secret)]);
    for (const p of [a!, b!]) {
      expect(text(p.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(text(p.metadata?.['encryption-key-id'])).toBe(codec.keyId);
      expect(Buffer.from(p.data!).includes('s3cr3t-token')).toBe(false);
    }
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
    expect(codec.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(key.toString('hex')).not.toContain(codec.keyId);
  });

  it('refuses a payload changed after encoding, or encrypted under another key', async () => {
    const [encoded] = await codec.encode([payload(secret)]);
    const changed = Buffer.from(encoded!.data!);
    changed[20]! ^= 1;
    await expect(codec.decode([{ ...encoded!, data: changed }])).rejects.toThrow(/authenticate/);
    await expect(new AesGcmCodec(randomBytes(32)).decode([encoded!])).rejects.toThrow(/check PAYLOAD_KEY/);
  });

  it('passes through what it did not encrypt, and takes only a 32-byte key', async () => {
    const plain = payload({ a: 1 });
    expect(await codec.decode([plain])).toEqual([plain]);
    expect(() => new AesGcmCodec(randomBytes(16))).toThrow(/32 bytes/);
  });
});
