// A statement's text without its comments, as Postgres reads it (db/sql-text.ts), so that the
// embedded database's socket sees a COPY after any of them (the socket itself is tested against
// PGlite in test/contract/embedded-socket.test.ts).
import { describe, expect, it } from 'vitest';
import { withoutComments } from '../../../db/sql-text.ts';

describe('withoutComments', () => {
  it('takes out line comments and block comments, nested ones whole', () => {
    expect(withoutComments('-- rows\ncopy t from stdin')).toBe(' \ncopy t from stdin');
    expect(withoutComments('/* a */ /* b */copy t')).toBe('   copy t');
    expect(withoutComments('/* a /* nested */ still a comment */ copy t from stdin')).toBe('  copy t from stdin');
    expect(withoutComments('select 1 /* never closed')).toBe('select 1  ');
    expect(withoutComments('select 1 -- to the end')).toBe('select 1  ');
  });

  it('keeps strings, quoted names and dollar quotes whole, whatever they hold', () => {
    for (const text of [
      "select '-- not a comment', 'it''s /* text */'",
      'select "a/*b" from "t--x"',
      'select $$ -- x /* y $$, $tag$ /* $$ */ $tag$',
      "select E'it\\'s -- still text', e'\\\\'",
    ])
      expect(withoutComments(text)).toBe(text);
    expect(withoutComments("select e'\\\\' -- done")).toBe("select e'\\\\'  ");
    // A parameter is not a dollar quote: what follows it is read as usual.
    expect(withoutComments('select $1 -- a comment')).toBe('select $1  ');
    expect(withoutComments("select 'never closed -- x")).toBe("select 'never closed -- x");
  });
});
