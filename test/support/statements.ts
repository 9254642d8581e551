// A database handle that shows each statement to the test before it runs: to count them, or (by
// throwing) to make one fail.
import type { Kysely, RootOperationNode } from 'kysely';

export function watchStatements<DB>(db: Kysely<DB>, see: (node: RootOperationNode) => void): Kysely<DB> {
  return db.withPlugin({
    transformQuery: (args) => {
      see(args.node);
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
}
