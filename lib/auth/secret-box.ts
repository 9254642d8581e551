// Secrets a user gives us to keep (a webhook's signing secret) sealed at rest with the payload key
// (PAYLOAD_KEY, or DATA_DIR/payload.key: kept apart from the database), by the same AES-256-GCM codec
// that encrypts Temporal payloads. Sealed text names the key it was sealed with.
import type { PayloadCodec } from '@temporalio/common';
import { ENCRYPTED_ENCODING } from '../temporal/codec.ts';

export function secretBox(codec: PayloadCodec) {
  return {
    async seal(secret: string): Promise<string> {
      const [p] = await codec.encode([{ metadata: {}, data: Buffer.from(secret, 'utf8') }]);
      const keyId = Buffer.from(p!.metadata?.['encryption-key-id'] ?? []).toString();
      return `${keyId}.${Buffer.from(p!.data ?? []).toString('base64')}`;
    },
    async open(sealed: string): Promise<string> {
      const [keyId = '', data = ''] = sealed.split('.');
      const [p] = await codec.decode([
        {
          metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), 'encryption-key-id': Buffer.from(keyId) },
          data: Buffer.from(data, 'base64'),
        },
      ]);
      return Buffer.from(p!.data ?? []).toString('utf8');
    },
  };
}

export type SecretBox = ReturnType<typeof secretBox>;
