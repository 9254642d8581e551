// The payload codec (lib/temporal/codec.ts): what it writes to Temporal is AES-256-GCM under the
// process's key, named by its id; what it reads back is the payload it was given, or a refusal.
import { createDecipheriv, randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import proto from '@temporalio/proto';
import { AesGcmCodec, ENCRYPTED_ENCODING } from '../../../../lib/temporal/codec.ts';

const { temporal } = proto;
/**
 * A payload as the codec of an earlier release wrote it to Temporal's history, under a key of 32 sevens: what
 * this one must still read ({ status: 'running', progress: 42 }).
 */
const STORED = {
  key: Buffer.alloc(32, 7),
  keyId: '4bb06f8e4e3a7715',
  data:
    'ffc2596b98e1815895cb2e6b9701fc02463d37c47ff6204a970331555d387e647b3f695a6fd2cde937819b84495132f4549e0bfe82516a' +
    '40f4076cb632c0a7e03c763f48c2407fd30095fc72ac28054e8e34175533a62810',
};

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

  it('reads what an earlier release stored, and writes what AES-256-GCM alone reads: IV, ciphertext, tag', async () => {
    const stored = new AesGcmCodec(STORED.key);
    expect(stored.keyId).toBe(STORED.keyId);
    const old = {
      metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), 'encryption-key-id': Buffer.from(STORED.keyId) },
      data: Buffer.from(STORED.data, 'hex'),
    };
    const [read] = await stored.decode([old]);
    expect(defaultPayloadConverter.fromPayload(read!)).toEqual({ status: 'running', progress: 42 });

    const [written] = await stored.encode([payload(secret)]);
    const data = Buffer.from(written!.data!);
    const decipher = createDecipheriv('aes-256-gcm', STORED.key, data.subarray(0, 12), { authTagLength: 16 });
    decipher.setAuthTag(data.subarray(data.length - 16));
    const plain = Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
    expect(defaultPayloadConverter.fromPayload(temporal.api.common.v1.Payload.decode(plain))).toEqual(secret);
  });

  it('refuses a payload changed after encoding, or encrypted under another key', async () => {
    const [encoded] = await codec.encode([payload(secret)]);
    const changed = Buffer.from(encoded!.data!);
    changed[20]! ^= 1;
    await expect(codec.decode([{ ...encoded!, data: changed }])).rejects.toThrow(/authenticate/);
    await expect(new AesGcmCodec(randomBytes(32)).decode([encoded!])).rejects.toThrow(/check PAYLOAD_KEY/);
    // Cut to its IV and the last 4 bytes: a tag GCM would take as a short one, were its length not fixed.
    const cut = Buffer.from(encoded!.data!).subarray(0, 16);
    await expect(codec.decode([{ ...encoded!, data: cut }])).rejects.toThrow(/shorter than its IV and tag/);
  });

  it('passes through what it did not encrypt, and takes only a 32-byte key', async () => {
    const plain = payload({ a: 1 });
    expect(await codec.decode([plain])).toEqual([plain]);
    expect(() => new AesGcmCodec(randomBytes(16))).toThrow(/32 bytes/);
  });
});
