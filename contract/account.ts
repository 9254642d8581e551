// The caller's own account: who the key belongs to and what its plan allows (the CLI's `whoami`).
import { get, ok, operations } from './operation.ts';
import * as R from './responses.ts';

export const accountOperations = operations('Account', {
  show: get('/account', {
    summary: "The account the API key belongs to: its email, plan and the plan's limits",
    success: ok(R.accountResult, 'Your account'),
    errors: [],
  }),
});
