// The media pool's MP4 box scan, which needs no ffmpeg: C2PA manifests at the top level or inside moov,
// 64-bit and to-the-end sizes, malformed files.
import { mkdtemp, open, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { C2PA_UUID, MalformedBoxError, scanBoxes } from '../../../../activities/media/boxes.ts';

const box = (type: string, payload: Buffer = Buffer.alloc(0)) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, payload]);
};
const c2paBox = () => box('uuid', Buffer.concat([Buffer.from(C2PA_UUID, 'hex'), Buffer.from('manifest store')]));
const otherUuid = () => box('uuid', Buffer.concat([Buffer.alloc(16, 0xab), Buffer.from('something else')]));

async function scan(bytes: Buffer) {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'boxes-')), 'f.mp4');
  await writeFile(file, bytes);
  const handle = await open(file);
  try {
    return await scanBoxes(handle, bytes.length);
  } finally {
    await handle.close();
  }
}

describe('the MP4 box scan', () => {
  const ftyp = box('ftyp', Buffer.from('isom\0\0\0\0isomiso2'));
  it('finds a C2PA manifest box at the top level or inside moov, and no other uuid box', async () => {
    expect(
      await scan(
        Buffer.concat([ftyp, box('moov', box('mvhd', Buffer.alloc(20))), box('mdat', Buffer.alloc(100)), c2paBox()]),
      ),
    ).toEqual({ first: 'ftyp', c2pa: 'top level' });
    expect(
      await scan(
        Buffer.concat([
          ftyp,
          box('moov', Buffer.concat([box('mvhd', Buffer.alloc(20)), c2paBox()])),
          box('mdat', Buffer.alloc(10)),
        ]),
      ),
    ).toEqual({ first: 'ftyp', c2pa: 'inside moov' });
    expect(
      await scan(
        Buffer.concat([
          ftyp,
          box('moov', otherUuid()),
          otherUuid(),
          box('mdat', Buffer.from('d8fec3d61b0e483c92975828877ec481')),
        ]),
      ),
    ).toEqual({ first: 'ftyp', c2pa: null });
    // The UUID's bytes inside a payload are not a box: the scan follows the structure.
    expect(
      (await scan(Buffer.concat([ftyp, box('mdat', Buffer.concat([Buffer.alloc(4), c2paBox()]))]))).c2pa,
    ).toBeNull();
  });

  it('reads 64-bit sizes and a last box that runs to the end', async () => {
    const large = Buffer.alloc(16);
    large.writeUInt32BE(1, 0);
    large.write('mdat', 4, 'latin1');
    large.writeBigUInt64BE(16n + 50n, 8);
    const toEnd = Buffer.concat([Buffer.from([0, 0, 0, 0]), Buffer.from('free'), Buffer.alloc(30)]);
    expect(await scan(Buffer.concat([ftyp, large, Buffer.alloc(50), c2paBox(), toEnd]))).toEqual({
      first: 'ftyp',
      c2pa: 'top level',
    });
  });

  it('refuses a box that claims more than its container holds, or a header cut short', async () => {
    const lying = box('moov', Buffer.alloc(10));
    lying.writeUInt32BE(1000, 0);
    await expect(scan(Buffer.concat([ftyp, lying]))).rejects.toBeInstanceOf(MalformedBoxError);
    await expect(scan(Buffer.concat([ftyp, Buffer.from([0, 0, 0, 4]), Buffer.from('free')]))).rejects.toBeInstanceOf(
      MalformedBoxError,
    );
  });
});
