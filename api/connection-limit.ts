// Slow or greedy clients cannot hold the port: at most `max` open connections per client address
// (the socket's peer, an IPv6 one as its /64; trusted proxies are not counted, since every client
// comes through them: behind a proxy, bound connections there), and
// the server's own header and request timeouts (api/server.ts) cut off senders that trickle bytes.
import type { Server } from 'node:http';
import { addressKey, plainIp } from '../lib/net/client-ip.ts';

export function limitConnectionsPerClient(server: Server, max: number, isTrustedProxy: (ip: string) => boolean): void {
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const peer = plainIp(socket.remoteAddress ?? '');
    if (isTrustedProxy(peer)) return;
    const ip = addressKey(peer); // an IPv6 client counts as its /64
    const count = (open.get(ip) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(ip, count);
    socket.once('close', () => {
      const left = (open.get(ip) ?? 1) - 1;
      if (left > 0) open.set(ip, left);
      else open.delete(ip);
    });
  });
}
