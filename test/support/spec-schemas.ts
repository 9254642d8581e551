// The response shapes live with the API (they generate its OpenAPI document); the suites use the same ones.
export * from '../../contract/responses.ts';
export * from '../../contract/responses-domains.ts';
export * from '../../contract/load/responses-load-tests.ts';
export * from '../../contract/webhooks/responses-webhooks.ts';
