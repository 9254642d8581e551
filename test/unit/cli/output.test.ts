// What the command line writes for a human: what others sent shown, never obeyed by the terminal.
import pc from 'picocolors';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { note, print, visible } from '../../../cli/output.ts';

const colors = pc.createColors(true);

describe('visible', () => {
  it('keeps the colours picocolors writes, nested or not', () => {
    for (const styled of [
      colors.bold('a'),
      colors.dim('b'),
      colors.red(colors.bold('c')),
      colors.green('d'),
      colors.yellow(colors.dim('e')),
      colors.cyan('f'),
      colors.underline('g'),
      colors.gray('h'),
    ])
      expect(visible(styled)).toBe(styled);
  });

  it("shows a sender's escape sequences as text: the clipboard, the title, the cursor, hidden text", () => {
    expect(visible('x\x1b]52;c;SGVsbG8=\x07y')).toBe('x\\x1b]52;c;SGVsbG8=\\x07y');
    expect(visible('\x1b]0;sudo me\x1b\\')).toBe('\\x1b]0;sudo me\\x1b\\');
    expect(visible('ok\x1b[2K\x1b[1Afake')).toBe('ok\\x1b[2K\\x1b[1Afake');
    expect(visible('\x1b[8mhidden\x1b[28m')).toBe('\\x1b[8mhidden\\x1b[28m');
    expect(visible('\x1b[38;5;1mred')).toBe('\\x1b[38;5;1mred');
  });

  it('shows other controls as escapes, C1 and DEL too, and keeps tabs and line ends', () => {
    expect(visible('a\x00b\x7fc\u009b31md')).toBe('a\\x00b\\x7fc\\x9b31md');
    expect(visible('line one\r\nline two\n\tend')).toBe('line one\nline two\n\tend');
    expect(visible('progress 10%\rprogress 99%')).toBe('progress 10%\\rprogress 99%');
    expect(visible('émoji ✓ 漢字')).toBe('émoji ✓ 漢字');
  });
});

describe('print and note', () => {
  afterEach(() => vi.restoreAllMocks());

  it('write what they are given made visible, on stdout and on stderr', () => {
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    print(`${colors.dim('x-evil:')} \x1b]52;c;cm0gLXJmIH4=\x07`);
    note('refused: \x1b[2J');
    expect(stdout).toHaveBeenCalledWith(`${colors.dim('x-evil:')} \\x1b]52;c;cm0gLXJmIH4=\\x07\n`);
    expect(stderr).toHaveBeenCalledWith('refused: \\x1b[2J\n');
  });
});
