// The response shapes live with the API (they generate its OpenAPI document); the suites use the same ones.
export * from '../../api/schemas/responses.ts';
export * from '../../api/schemas/responses-domains.ts';
export * from '../../api/schemas/responses-load-tests.ts';
export * from '../../api/schemas/responses-webhooks.ts';
