// The release, as package.json names it: what the service says it is (the MCP server's info, the HAR
// export's creator, the load generator's User-Agent) and what the CLI's --version prints.
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
