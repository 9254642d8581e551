// The box (atom) structure of an MP4/MOV file (ISO/IEC 14496-12 §4.2): each box starts with a 32-bit
// big-endian size and a four-character type; size 1 means a 64-bit size follows, size 0 means "to the
// end of the file"; a `uuid` box carries a 16-byte extended type after its header. Read by offsets,
// box by box, never the payloads: a 300 MB upload costs a few reads.
import type { FileHandle } from 'node:fs/promises';

/** The extended type of the `uuid` box that holds a C2PA manifest store in BMFF files (C2PA 2.x, §A.4). */
export const C2PA_UUID = 'd8fec3d61b0e483c92975828877ec481';

export interface BoxScan {
  /** Where a C2PA manifest box was found, or null. */
  c2pa: 'top level' | 'inside moov' | null;
  /** The type of the first box (an MP4/MOV starts with `ftyp`). */
  first: string | null;
}

export class MalformedBoxError extends Error {
  override name = 'MalformedBoxError';
}

/**
 * At most this many boxes are read: a plain file has a handful at the top and a few dozen in moov; a
 * fragmented one two per fragment (a 2-hour file of 1 s fragments: 14,400).
 */
const MAX_BOXES = 200_000;

export async function scanBoxes(file: FileHandle, fileSize: number): Promise<BoxScan> {
  const scan: BoxScan = { c2pa: null, first: null };
  let boxes = 0;
  const head = Buffer.alloc(16);
  const read = async (at: number, length: number) => {
    const { bytesRead } = await file.read(head, 0, length, at);
    if (bytesRead < length) throw new MalformedBoxError(`the file ends inside a box header at byte ${at}`);
    return head;
  };
  const walk = async (start: number, end: number, where: 'top level' | 'inside moov'): Promise<void> => {
    let at = start;
    while (at + 8 <= end && scan.c2pa === null) {
      if (++boxes > MAX_BOXES) throw new MalformedBoxError(`more than ${MAX_BOXES} boxes`);
      const h = await read(at, 8);
      let size = h.readUInt32BE(0);
      const type = h.toString('latin1', 4, 8);
      let header = 8;
      if (size === 1) {
        size = Number((await read(at + 8, 8)).readBigUInt64BE(0));
        header = 16;
      } else if (size === 0) {
        size = end - at;
      }
      if (size < header || at + size > end)
        throw new MalformedBoxError(
          `box "${type.replace(/[^\x20-\x7e]/g, '?')}" at byte ${at} claims ${size} bytes, past its container`,
        );
      if (where === 'top level' && scan.first === null) scan.first = type;
      if (type === 'uuid' && size >= header + 16 && (await read(at + header, 16)).toString('hex') === C2PA_UUID)
        scan.c2pa = where;
      else if (type === 'moov' && where === 'top level') await walk(at + header, at + size, 'inside moov');
      at += size;
    }
  };
  await walk(0, fileSize, 'top level');
  return scan;
}
