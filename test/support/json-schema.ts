// Checks on JSON Schemas the service publishes (the OpenAPI document's bodies, the MCP tools' inputs).

/** The objects of a JSON Schema that accept keys they do not name (additionalProperties not false), by path. */
export function looseObjectsOf(schema: any, where = ''): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const here =
    schema.type === 'object' && schema.properties && schema.additionalProperties !== false ? [where || '(top)'] : [];
  return [
    ...here,
    ...Object.entries<any>(schema.properties ?? {}).flatMap(([key, s]) => looseObjectsOf(s, `${where}.${key}`)),
    ...looseObjectsOf(schema.items, `${where}[]`),
    ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap((s: unknown) =>
      looseObjectsOf(s, where),
    ),
  ];
}
