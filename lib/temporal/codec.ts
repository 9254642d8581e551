// Payload codec: every payload the client and workers send to Temporal (workflow inputs and results,
// activity arguments, queries, memo, and failure messages) is encrypted with AES-256-GCM, so secrets a
// job carries (load-test target credentials, say) never sit in Temporal history in plain text.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

const { temporal } = proto; // a CommonJS module: no named ES exports

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class AesGcmCodec implements PayloadCodec {
  /**
   * A KeyObject made once: given the key as bytes, each cipher took about three times as long to encrypt and
   * decrypt a small payload (figures: docs/benchmarks.md, `npm run bench:codec`).
   */
  readonly #key: KeyObject;
  /** Names the key without revealing it, so a rotated key can be told apart in history. */
  readonly keyId: string;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new TypeError('payload key must be 32 bytes');
    this.#key = createSecretKey(key);
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), 'encryption-key-id': Buffer.from(this.keyId) },
        data,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (Buffer.from(payload.metadata?.encoding ?? []).toString() !== ENCRYPTED_ENCODING) return payload;
      const keyId = Buffer.from(payload.metadata?.['encryption-key-id'] ?? []).toString();
      if (keyId !== this.keyId)
        throw new Error(
          `payload was encrypted with key ${keyId}, this process has key ${this.keyId} (check PAYLOAD_KEY)`,
        );
      const data = Buffer.from(payload.data ?? []);
      // A whole tag, never a shorter one GCM would also take: a forger's odds grow as the tag shrinks.
      if (data.length < IV_BYTES + TAG_BYTES) throw new Error('encrypted payload shorter than its IV and tag');
      const decipher = createDecipheriv('aes-256-gcm', this.#key, data.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}

export const FAILURE_CONVERTER_PATH = fileURLToPath(new URL('./failure-converter.ts', import.meta.url));

/** The data converter that client and workers share: the codec, and failure messages encoded too. */
export function encryptingDataConverter(key: Buffer): DataConverter {
  return {
    payloadCodecs: [new AesGcmCodec(key)],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}

/**
 * PAYLOAD_KEY when set. Otherwise the key in DATA_DIR/payload.key, made on first use: right for the
 * embedded mode, where every process shares DATA_DIR. Processes on different machines must share
 * PAYLOAD_KEY (config refuses a TEMPORAL_ADDRESS without it).
 */
export async function loadPayloadKey(payloadKey: string | undefined, dataDir: string): Promise<Buffer> {
  if (payloadKey) return Buffer.from(payloadKey, 'base64');
  const file = path.join(dataDir, 'payload.key');
  await fs.mkdir(dataDir, { recursive: true });
  // Written whole under a temporary name, then linked into place: a process starting at the same
  // moment sees either no key file or a complete one, and the first link wins.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await fs.writeFile(tmp, randomBytes(32).toString('base64'), { mode: 0o600 });
  try {
    await fs.link(tmp, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Volumes without hard links (some network and desktop mounts): exclusive create, not atomic.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EXDEV') {
      await fs
        .writeFile(file, await fs.readFile(tmp), { flag: 'wx', mode: 0o600 })
        .catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
        });
    } else if (code !== 'EEXIST') throw err;
  } finally {
    await fs.rm(tmp, { force: true });
  }
  return Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64');
}
