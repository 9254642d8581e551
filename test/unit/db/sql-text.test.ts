// A statement's shape as Postgres's lexer reads it (db/sql-text.ts): comments out, quoted texts
// emptied, so that the embedded database's socket sees a COPY after any comment and is not misled by
// what strings and names hold (the socket itself is tested against PGlite in
// test/contract/embedded-socket.test.ts).
import { describe, expect, it } from 'vitest';
import { sqlShape } from '../../../db/sql-text.ts';

describe('sqlShape', () => {
  it('takes out line comments (to \\n or \\r) and block comments, nested ones whole', () => {
    expect(sqlShape('-- rows\ncopy t from stdin')).toBe(' \ncopy t from stdin');
    expect(sqlShape('select 1; -- note\rcopy t from stdin')).toBe('select 1;  \rcopy t from stdin');
    expect(sqlShape('/* a */ /* b */copy t')).toBe('   copy t');
    expect(sqlShape('/* a /* nested */ still a comment */ copy t from stdin')).toBe('  copy t from stdin');
    expect(sqlShape('select 1 /* never closed')).toBe('select 1  ');
  });

  it('empties strings, quoted names and dollar quotes, whatever they hold', () => {
    expect(sqlShape("select '-- not a comment', 'it''s /* text */; copy x from stdin'")).toBe("select '', ''");
    expect(sqlShape('copy "a;b" ("x;y") from stdin')).toBe('copy "" ("") from stdin');
    expect(sqlShape('select $$ -- x /* y $$, $tag$ /* $$ */ $tag$, $é$ /* $é$')).toBe(
      'select $$$$, $tag$$tag$, $é$$é$',
    );
    expect(sqlShape("select E'it\\'s -- still text', e'\\\\' -- done")).toBe("select E'', e''  ");
    // A name's e before a quote does not make an E string: the backslash there is text.
    expect(sqlShape("select date'\\' -- x")).toBe("select date''  ");
  });

  it('reads a $ that opens no quote as text: a parameter, or inside a name', () => {
    expect(sqlShape('select $1 -- a comment')).toBe('select $1  ');
    expect(sqlShape('select a$$ from t; /* c */ copy t from stdin')).toBe('select a$$ from t;   copy t from stdin');
    expect(sqlShape("select x$y$ from t where 'a' = 'a'")).toBe("select x$y$ from t where '' = ''");
  });
});
