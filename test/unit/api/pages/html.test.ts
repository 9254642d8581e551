// A page's own files in its Content-Security-Policy: below their paths on the host the page was asked
// on, never the whole origin (capture URLs may share it); 'self' only for a host CSP cannot name.
import { describe, expect, it } from 'vitest';
import { ownFiles } from '../../../../api/pages/html.ts';

describe("a page's own files", () => {
  it('names the paths on the host and port the page was asked on', () => {
    expect(ownFiles({ host: 'netops.example.com' }, '/dashboard/assets/')).toBe('netops.example.com/dashboard/assets/');
    expect(ownFiles({ host: '127.0.0.1:3000' }, '/docs/', '/x/')).toBe('127.0.0.1:3000/docs/ 127.0.0.1:3000/x/');
  });

  it("falls back to 'self' for a host CSP has no syntax for, or one that could end the directive", () => {
    expect(ownFiles({ host: '[::1]:3000' }, '/dashboard/assets/')).toBe("'self'");
    expect(ownFiles({ host: "evil; script-src 'unsafe-inline'" }, '/dashboard/assets/')).toBe("'self'");
    expect(ownFiles({ host: '' }, '/dashboard/assets/')).toBe("'self'");
  });
});
