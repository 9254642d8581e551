// The check a video job's upload passes on its way into the blob store (api/services/video/video.ts): its
// first bytes must show an MP4 or MOV, or nothing of it is kept.
import { Transform } from 'node:stream';
import { UnsupportedMediaTypeError } from '../../../lib/errors.ts';

/** Passes the bytes through once their start shows an ISO media file (`ftyp` at offset 4); 415 otherwise. */
export function ftypSignature(): Transform {
  let head = Buffer.alloc(0);
  let checked = false;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (checked) return done(null, chunk);
      head = Buffer.concat([head, chunk]);
      if (head.length < 8) return done();
      checked = true;
      if (head.toString('latin1', 4, 8) !== 'ftyp')
        return done(
          new UnsupportedMediaTypeError('video: the file is not an MP4 or MOV (it does not start with an ftyp box)'),
        );
      done(null, head);
    },
    flush(done) {
      done(checked ? null : new UnsupportedMediaTypeError('video: the file is too short to be an MP4 or MOV'));
    },
  });
}
