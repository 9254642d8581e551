// cli/contract.ts is what the command takes from the API's declarations; the build puts its exports in
// the bundle as their JSON, so each must be plain data, and each operation the method and path the API
// serves.
import { describe, expect, it } from 'vitest';
import { webhookOperations } from '../../../contract/webhooks/webhooks.ts';
import * as contract from '../../../cli/contract.ts';

describe('the contract the command is built with', () => {
  it('is plain data, as JSON keeps it', () => {
    for (const [name, value] of Object.entries(contract))
      expect(JSON.parse(JSON.stringify(value)), name).toEqual(value);
  });

  it("holds each operation's method and path as the API declares them, and nothing of its schemas", () => {
    for (const [name, op] of Object.entries(webhookOperations))
      expect(contract.webhookOperations[name as keyof typeof webhookOperations]).toEqual({
        method: op.method,
        path: op.path,
      });
  });
});
