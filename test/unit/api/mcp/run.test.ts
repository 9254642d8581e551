// A tool's answer: summary, the data as JSON text, or past INLINE_JSON_BYTES a link to its REST resource.
import { describe, expect, it } from 'vitest';
import { INLINE_JSON_BYTES, toolResult } from '../../../../api/mcp/run.ts';

describe('toolResult', () => {
  const link = 'https://tools.example.test/api/v1/load-testing/results/abc';

  it('carries the data as JSON text beside the summary while it is small', () => {
    const out = { test_id: 'abc', total: 3 };
    expect(toolResult(out, 'three', link)).toEqual({
      content: [
        { type: 'text', text: 'three' },
        { type: 'text', text: JSON.stringify(out) },
      ],
      structuredContent: out,
    });
  });

  it('offers a resource_link instead of JSON text past the limit, and keeps structuredContent whole', () => {
    const out = { test_id: 'abc', series: 'x'.repeat(INLINE_JSON_BYTES) };
    const result = toolResult(out, 'big', link);
    expect(result.content[1]).toMatchObject({
      type: 'resource_link',
      uri: link,
      mimeType: 'application/json',
      name: 'results/abc',
    });
    expect(result.structuredContent).toBe(out);
    // Without a REST resource to point at, the JSON stays inline however large.
    expect(toolResult(out, 'big').content[1]).toEqual({ type: 'text', text: JSON.stringify(out) });
  });
});
