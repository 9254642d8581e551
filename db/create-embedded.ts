// Makes a new embedded database in the folder given (PGlite's initdb, then every migration), then
// ends: connect.ts runs it as a child process, so that the memory this takes (most of it for the
// migrations' first run) is given back when this process ends.
import { Kysely, PGliteDialect } from 'kysely';
import { openPglite } from './pglite.ts';
import { migrateToLatest } from './migrate.ts';
import type { Database } from './schema.ts';

const [, , dir] = process.argv;
if (!dir) throw new Error('usage: create-embedded.ts <folder>');
const pglite = await openPglite(dir);
const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
await migrateToLatest(db);
await db.destroy(); // closes pglite, its files written
process.exit(0); // whatever handle is left, this process is done
