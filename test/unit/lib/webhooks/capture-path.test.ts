// A capture's path below its webhook: the segments that could climb out of a forward target are
// found as sent (raw, percent-encoded, with a backslash or an encoded separator), and resolved inside
// the path itself when a stored one is sent again.
import { describe, expect, it } from 'vitest';
import { climbingSegment, confinedPath } from '../../../../lib/webhooks/capture-path.ts';

describe('capture paths that climb', () => {
  it('finds the first dot segment, raw or percent-encoded in any case, or with a ;parameter', () => {
    expect(climbingSegment('/../../admin')).toBe('..');
    expect(climbingSegment('/a/./b')).toBe('.');
    expect(climbingSegment('/%2e%2e/admin')).toBe('%2e%2e');
    expect(climbingSegment('/%2E%2e/admin')).toBe('%2E%2e');
    expect(climbingSegment('/.%2E/admin')).toBe('.%2E');
    expect(climbingSegment('/%2e/admin')).toBe('%2e');
    expect(climbingSegment('/..;jsessionid=1/admin')).toBe('..;jsessionid=1');
  });

  it('finds backslashes and encoded slashes or backslashes inside a segment', () => {
    expect(climbingSegment('/a\\b')).toBe('a\\b');
    expect(climbingSegment('/a%2Fb')).toBe('a%2Fb');
    expect(climbingSegment('/a%5cb')).toBe('a%5cb');
  });

  it('finds an empty segment inside the path, which a receiver could read as a host', () => {
    expect(climbingSegment('//evil.example/x')).toBe('');
    expect(climbingSegment('/a//b')).toBe('');
    expect(confinedPath('//evil.example/x')).toBe('/evil.example/x');
  });

  it('leaves dots that are not a whole segment, and ordinary paths, alone', () => {
    for (const below of ['', '/', '/orders/42', '/v1.2/..x/a..', '/...', '/%2e%2e%2e', '/a%20b', '/trailing/'])
      expect(climbingSegment(below), below).toBeNull();
  });

  it('resolves a stored path inside itself, never above its start', () => {
    expect(confinedPath('/a/../../admin/delete')).toBe('/admin/delete');
    expect(confinedPath('/./x/%2e%2e/y/')).toBe('/y/');
    expect(confinedPath('/..')).toBe('/');
    expect(confinedPath('/orders/42')).toBe('/orders/42');
    expect(confinedPath('')).toBe('');
  });
});
