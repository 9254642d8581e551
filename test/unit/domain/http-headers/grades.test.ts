import { describe, expect, it } from 'vitest';
import { grade } from '../../../../domain/http-headers/grades.ts';

describe('HTTP header analysis', () => {
  it('grades on the Observatory scale', () => {
    expect([100, 95, 89, 84, 75, 66, 61, 55, 46, 41, 31, 26, 10].map(grade)).toEqual([
      'A+',
      'A',
      'A-',
      'B+',
      'B',
      'B-',
      'C+',
      'C',
      'C-',
      'D+',
      'D',
      'D-',
      'F',
    ]);
  });
});
