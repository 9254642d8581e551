// A file the caller downloads, streamed as it is written (an export of captures, say): JSON, never cached.
import { Readable } from 'node:stream';
import type { Context } from 'koa';

export function sendDownload(ctx: Context, filename: string, chunks: AsyncIterable<string>): void {
  ctx.type = 'application/json';
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = Readable.from(chunks);
}
