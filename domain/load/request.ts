// A load test's request as the bytes written for it: built once per test (or per scenario step and
// its values), never per request.

export interface RequestSpec {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** The request as bytes, written as is for every request. */
export function requestBytes(spec: RequestSpec): Buffer {
  const body = spec.body === undefined ? null : Buffer.from(spec.body);
  const lines = [`${spec.method} ${spec.url.pathname}${spec.url.search} HTTP/1.1`, `host: ${spec.url.host}`];
  for (const [name, value] of Object.entries(spec.headers)) lines.push(`${name}: ${value}`);
  if (body) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return body ? Buffer.concat([head, body]) : head;
}
