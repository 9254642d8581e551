import net from 'node:net';

/** True when something accepts a connection at this TCP address or Unix socket path. */
export function canConnect(target: { host: string; port: number } | { path: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(target);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
