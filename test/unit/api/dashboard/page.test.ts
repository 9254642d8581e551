import { describe, expect, it } from 'vitest';
import { breakableUrl, dataTable } from '../../../../api/dashboard/page.ts';

describe('dataTable', () => {
  it('marks a table of seven columns or more wide: it reflows on narrow windows too, not only on a phone', () => {
    const table = (n: number) =>
      String(
        dataTable(
          Array.from({ length: n }, (_, i) => `c${i}`),
          [['x']],
        ),
      );
    expect(table(6)).toContain('<table class="reflow">');
    expect(table(7)).toContain('<table class="reflow wide">');
    expect(String(dataTable(['a', 'b', 'c', 'd', 'e', 'f', 'g'], [], { reflow: false }))).toContain('<table>');
  });
});

describe('breakableUrl', () => {
  it("lets a line break after each slash of the URL's path, never inside its origin", () => {
    expect(String(breakableUrl('https://example.test:8443/webhook/AbC?x=/1'))).toBe(
      'https://example.test:8443/<wbr>webhook/<wbr>AbC?x=/<wbr>1',
    );
    // The scheme and authority as typed, whatever URL would make of them.
    for (const origin of ['HTTPS://Shop.example', 'https://u:p@a.test', 'https://a.test:443', 'https://bücher.example'])
      expect(String(breakableUrl(`${origin}/x/y`))).toBe(`${origin}/<wbr>x/<wbr>y`);
    // Escaped as any text is.
    expect(String(breakableUrl('https://example.test/a<b>/c'))).toBe('https://example.test/<wbr>a&lt;b&gt;/<wbr>c');
  });
});
