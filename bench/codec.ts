// The payload codec (lib/temporal/codec.ts): every payload the service hands Temporal (a job's input, a
// status query's answer, a shard's heartbeat) is encrypted, and read back decrypted. Per payload,
// encoded then decoded, one at a time as Temporal hands them over: ours beside a codec of the same
// format through WebCrypto (`crypto.subtle`, AES-GCM, the key imported once: how Temporal's encryption
// sample encrypts; one payload a call is WebCrypto's worst case), and beside node:crypto given the key as
// bytes on each call. A warm-up round of each, then BENCH_ROUNDS (3) rounds of BENCH_PAYLOADS (20,000)
// each, every round starting with the next codec (none always runs after the same one); the medians.
//   npm run --silent bench:codec
import { createCipheriv, createDecipheriv, randomBytes, webcrypto } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { AesGcmCodec } from '../lib/temporal/codec.ts';
import { inTurn, printBeside } from './in-turn.ts';

const { temporal } = proto;
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const count = Number(process.env.BENCH_PAYLOADS ?? 20_000);
const IV = 12;
const TAG = 16;

interface Codec {
  encode(p: Payload[]): Promise<Payload[]>;
  decode(p: Payload[]): Promise<Payload[]>;
}

/** Node's buffers lie on an ArrayBuffer (never a shared one): what WebCrypto's types ask to be told. */
const bytes = (b: Uint8Array) => b as Uint8Array<ArrayBuffer>;

/** The same bytes as ours (IV, ciphertext, tag) through WebCrypto, its key imported once. */
async function webCryptoCodec(raw: Buffer): Promise<Codec> {
  const key = await webcrypto.subtle.importKey('raw', bytes(raw), 'AES-GCM', false, ['encrypt', 'decrypt']);
  return {
    encode: (payloads) =>
      Promise.all(
        payloads.map(async (p) => {
          const iv = webcrypto.getRandomValues(new Uint8Array(IV));
          const plain = temporal.api.common.v1.Payload.encode(p).finish();
          const sealed = await webcrypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, bytes(plain));
          return { metadata: {}, data: Buffer.concat([iv, new Uint8Array(sealed)]) };
        }),
      ),
    decode: (payloads) =>
      Promise.all(
        payloads.map(async (p) => {
          const data = p.data ?? new Uint8Array();
          const plain = await webcrypto.subtle.decrypt(
            { name: 'AES-GCM', iv: bytes(data.subarray(0, IV)) },
            key,
            bytes(data.subarray(IV)),
          );
          return temporal.api.common.v1.Payload.decode(new Uint8Array(plain));
        }),
      ),
  };
}

/** The same bytes through node:crypto, the key given as bytes to each cipher. */
function keyAsBytesCodec(raw: Buffer): Codec {
  return {
    encode: async (payloads) =>
      payloads.map((p) => {
        const iv = randomBytes(IV);
        const cipher = createCipheriv('aes-256-gcm', raw, iv);
        const plain = temporal.api.common.v1.Payload.encode(p).finish();
        return { metadata: {}, data: Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]) };
      }),
    decode: async (payloads) =>
      payloads.map((p) => {
        const data = Buffer.from(p.data ?? []);
        const decipher = createDecipheriv('aes-256-gcm', raw, data.subarray(0, IV));
        decipher.setAuthTag(data.subarray(data.length - TAG));
        const plain = Buffer.concat([decipher.update(data.subarray(IV, data.length - TAG)), decipher.final()]);
        return temporal.api.common.v1.Payload.decode(plain);
      }),
  };
}

/** Microseconds a payload, encoded then decoded, `count` one after another. */
async function perPayload(codec: Codec, payload: Payload): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const [decoded] = await codec.decode(await codec.encode([payload]));
    if (decoded?.data?.length !== payload.data?.length) throw new Error('the codec lost bytes');
  }
  return Number(process.hrtime.bigint() - start) / 1000 / count;
}

const key = randomBytes(32);
const codecs: Array<[string, Codec]> = [
  ['netops (node:crypto, key imported once)', new AesGcmCodec(key)],
  ['WebCrypto, key imported once', await webCryptoCodec(key)],
  ['node:crypto, key as bytes on each call', keyAsBytesCodec(key)],
];
const payloads: Array<[string, Payload]> = [
  ['a status (300 B)', defaultPayloadConverter.toPayload({ status: 'running', progress: 42, note: 'x'.repeat(240) })],
  ['a job input (4 KiB)', defaultPayloadConverter.toPayload({ input: 'y'.repeat(4096) })],
];

console.log(
  `Payload codec, ${count.toLocaleString('en-US')} payloads a round, ${rounds} rounds in turn after a warm-up: ` +
    'µs a payload, encoded then decoded (median of the rounds)',
);
for (const [label, payload] of payloads) {
  const medians = await inTurn(codecs, rounds, ([, codec]) => perPayload(codec, payload));
  console.log(`  ${label}`);
  printBeside(
    codecs.map(([name]) => name),
    medians,
    'µs',
  );
}
