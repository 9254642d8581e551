// The media pool's pieces that need no ffmpeg: the MP4 box scan (C2PA manifests at the top level or
// inside moov, 64-bit and to-the-end sizes, malformed files) and the filter graph for regions.
import { mkdtemp, open, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { C2PA_UUID, MalformedBoxError, scanBoxes } from '../../activities/media/boxes.ts';
import { regionProblem, removalGraph } from '../../activities/media/ffmpeg.ts';

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

describe('the region filter graph', () => {
  const source = {
    width: 320,
    height: 240,
    duration_seconds: 10,
    frame_rate: 25,
    video_codec: 'h264',
    has_audio: false,
    audio_codec: null,
  };
  it('uses delogo inside the frame and a bounded blur at its edge, each in its time range, then pads to even sizes', () => {
    const { graph, output } = removalGraph(
      [
        { x: 10, y: 10, width: 50, height: 20, start_seconds: 1, end_seconds: 2 },
        { x: 0, y: 239, width: 1, height: 1 },
        { x: 0, y: 0, width: 320, height: 240 },
      ],
      source,
    );
    expect(output).toBe('out');
    expect(graph).toBe(
      [
        "[0:v]delogo=x=10:y=10:w=50:h=20:enable='between(t,1,2)'[v0]",
        '[v0]split[m1][s1]',
        '[s1]crop=2:2:0:238,gblur=sigma=4:steps=3[b1]', // a 1x1 region at the corner: 2x2, moved inside
        '[m1][b1]overlay=0:238[v1]',
        '[v1]split[m2][s2]',
        '[s2]crop=320:240:0:0,gblur=sigma=64:steps=3[b2]', // the whole frame: sigma capped
        '[m2][b2]overlay=0:0[v2]',
        '[v2]pad=ceil(iw/2)*2:ceil(ih/2)*2[out]',
      ].join(';'),
    );
  });

  it('names a region that reaches outside the frame, or starts after the end', () => {
    expect(regionProblem({ x: 300, y: 0, width: 30, height: 10 }, 2, source)).toBe(
      'regions[2] (30x10 at 300,0) reaches outside the 320x240 frame',
    );
    expect(regionProblem({ x: 0, y: 0, width: 10, height: 10, start_seconds: 12 }, 0, source)).toMatch(
      /starts at 12 s, after the video's end/,
    );
    expect(regionProblem({ x: 0, y: 0, width: 320, height: 240 }, 0, source)).toBeNull();
  });
});
