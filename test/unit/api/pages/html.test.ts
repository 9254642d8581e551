// A page's own files in its Content-Security-Policy: below their paths on BASE_URL's origin and on the
// host the page was asked on, never the whole origin (capture URLs may share it); 'self' only when CSP
// can name neither.
import { describe, expect, it } from 'vitest';
import { ownFiles } from '../../../../api/pages/html.ts';

describe("a page's own files", () => {
  it("names the paths on BASE_URL's origin, and on another host the page was asked on", () => {
    const base = 'https://netops.example.com';
    expect(ownFiles({ host: 'netops.example.com', pagesOrigin: base }, '/a/')).toBe('https://netops.example.com/a/');
    // A proxy that passes the Host without the port the browser used: BASE_URL's still matches.
    expect(ownFiles({ host: 'localhost', pagesOrigin: 'http://localhost:8080' }, '/a/')).toBe(
      'http://localhost:8080/a/ localhost/a/',
    );
    expect(ownFiles({ host: '[::1]:3000', pagesOrigin: base }, '/a/')).toBe('https://netops.example.com/a/');
  });

  it('names the paths on the host and port the page was asked on', () => {
    expect(ownFiles({ host: 'netops.example.com' }, '/dashboard/assets/')).toBe('netops.example.com/dashboard/assets/');
    expect(ownFiles({ host: '127.0.0.1:3000' }, '/docs/', '/x/')).toBe('127.0.0.1:3000/docs/ 127.0.0.1:3000/x/');
  });

  it("falls back to 'self' for a host CSP has no syntax for, or one that could end the directive", () => {
    expect(ownFiles({ host: '[::1]:3000' }, '/dashboard/assets/')).toBe("'self'");
    expect(ownFiles({ host: "evil; script-src 'unsafe-inline'" }, '/dashboard/assets/')).toBe("'self'");
    expect(ownFiles({ host: '' }, '/dashboard/assets/')).toBe("'self'");
    expect(ownFiles({ host: '[::1]:3000', pagesOrigin: 'http://[::1]:3000' }, '/a/')).toBe("'self'");
  });
});
