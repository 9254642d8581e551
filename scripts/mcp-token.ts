// npm run --silent mcp-token -- --url <BASE_URL>/mcp --email <email> [--scope mcp:tools|mcp:read]
// (password from MCP_PASSWORD, or --password)
// Connects to the MCP endpoint as an MCP client would (401 -> metadata -> registration -> sign-in and
// consent through the service's own forms -> token) and prints one JSON line: the access token, the
// refresh token, the client's id (a refresh needs it), and the MCP Inspector command that lists the tools with it.
import { parseArgs } from 'node:util';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { FormSignInClient } from './oauth-forms.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    scope: { type: 'string' },
  },
  strict: true,
});
const password = values.password ?? process.env.MCP_PASSWORD;
if (!values.url || !values.email || !password) {
  console.error(
    'usage: mcp-token --url <BASE_URL>/mcp --email <email> [--scope mcp:tools|mcp:read] (password in ' +
      'MCP_PASSWORD or --password)',
  );
  process.exit(2);
}
const client = new FormSignInClient(
  { email: values.email, password },
  { name: 'netops mcp-token script', scope: values.scope },
);
try {
  // First round: registration and the authorization step (the forms); second: the code for tokens.
  if ((await auth(client, { serverUrl: values.url, scope: values.scope })) === 'REDIRECT') {
    await auth(client, { serverUrl: values.url, authorizationCode: client.code, scope: values.scope });
  }
} catch (err) {
  console.error(`sign-in failed: ${(err as Error).message}`);
  process.exit(1);
}
const tokens = client.tokens();
if (!tokens) {
  console.error('sign-in failed: the service gave no tokens');
  process.exit(1);
}
console.log(
  JSON.stringify({
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token ?? null,
    client_id: client.clientInformation()?.client_id ?? null,
    expires_in: tokens.expires_in,
    scope: tokens.scope,
    inspector:
      `npx @modelcontextprotocol/inspector --cli ${values.url} --transport http --method tools/list --header ` +
      `"Authorization: Bearer ${tokens.access_token}"`,
  }),
);
