// Test videos made with this machine's ffmpeg (never downloaded): 3 s of a grey 320x240 frame at 25 fps,
// H.264 in MP4.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** Writes the grey clip to `file`: with a filled white `box` drawn on it, and an AAC tone of `toneHz`, when given. */
export async function greyClip(
  file: string,
  o: { box?: { x: number; y: number; width: number; height: number }; toneHz?: number } = {},
): Promise<void> {
  const { box, toneHz } = o;
  await promisify(execFile)('ffmpeg', [
    ...['-v', 'error', '-f', 'lavfi', '-i', 'color=c=0x808080:s=320x240:r=25:d=3'],
    ...(toneHz ? ['-f', 'lavfi', '-i', `sine=frequency=${toneHz}:duration=3`] : []),
    ...(box ? ['-vf', `drawbox=x=${box.x}:y=${box.y}:w=${box.width}:h=${box.height}:color=white:t=fill`] : []),
    ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p'],
    ...(toneHz ? ['-c:a', 'aac', '-shortest'] : []),
    file,
  ]);
}
