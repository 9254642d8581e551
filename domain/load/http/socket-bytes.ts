// The bytes a shard's connections sent and received, counted on their sockets (generator.ts): an
// open socket's counts are read when asked, a closed one's were added up as it closed.
import type { Socket } from 'node:net';

export class SocketBytes {
  private readonly sockets = new Set<Socket>();
  private closedBytesRead = 0;
  private closedBytesWritten = 0;

  track(socket: Socket) {
    this.sockets.add(socket);
    socket.once('close', () => {
      this.closedBytesRead += socket.bytesRead;
      this.closedBytesWritten += socket.bytesWritten;
      this.sockets.delete(socket);
    });
  }

  /** Bytes sent and received so far, on every socket opened. */
  totals(): { bytesSent: number; bytesReceived: number } {
    let bytesRead = this.closedBytesRead;
    let bytesWritten = this.closedBytesWritten;
    for (const socket of this.sockets) {
      bytesRead += socket.bytesRead;
      bytesWritten += socket.bytesWritten;
    }
    return { bytesSent: bytesWritten, bytesReceived: bytesRead };
  }
}
