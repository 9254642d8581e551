// A scenario's steps as a start body gives them: read in time linear in what they hold.
import { describe, expect, it } from 'vitest';
import { stepFaults } from '../../../../contract/load/load-steps.ts';

describe('scenario steps', () => {
  it("read a step's path, placeholders and braces alike, in one pass", () => {
    // A run of { took the placeholder search time quadratic in its length (1.2 s for 40,000).
    const step = (path: string) => ({ method: 'GET', path, headers: {}, capture: {} });
    expect(stepFaults([step(`/${'{'.repeat(200_000)}`)], 'https://api.example.com/', 'GET')).toEqual([]);
    expect(stepFaults([step('/orders/{{id}}')], 'https://api.example.com/', 'GET')).toEqual([
      [['steps', 0], 'uses {{id}}, which no earlier step captures'],
    ]);
  });
});
