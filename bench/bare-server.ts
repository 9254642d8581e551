// The peer of the capture benchmark: a bare node:http server that reads the body and answers the
// same small JSON as a capture, storing nothing. Prints its port on stdout.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const id = (req.url ?? '').split('/')[2] ?? '';
    const body = JSON.stringify({ success: true, message: 'Request captured', webhook_id: id });
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
