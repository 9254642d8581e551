// Grades on the chart of MDN's HTTP Observatory: A+ from 100, A 90, A- 85, B+ 80, B 70, B- 65, C+ 60,
// C 50, C- 45, D+ 40, D 30, D- 25, else F. The security grade is the Observatory's score on it; the
// other sections grade their percentage of the points available.
const SCALE: Array<[number, string]> = [
  [100, 'A+'],
  [90, 'A'],
  [85, 'A-'],
  [80, 'B+'],
  [70, 'B'],
  [65, 'B-'],
  [60, 'C+'],
  [50, 'C'],
  [45, 'C-'],
  [40, 'D+'],
  [30, 'D'],
  [25, 'D-'],
];

export function grade(percentage: number): string {
  return SCALE.find(([min]) => percentage >= min)?.[1] ?? 'F';
}

export function percent(score: number, max: number): number {
  return max === 0 ? 100 : Math.round((score / max) * 1000) / 10;
}
