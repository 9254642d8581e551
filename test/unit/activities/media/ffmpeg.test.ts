// The media pool's filter graph for regions, built without running ffmpeg.
import { describe, expect, it } from 'vitest';
import { regionProblem, removalGraph } from '../../../../activities/media/ffmpeg.ts';

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
  it(
    'uses delogo inside the frame and a bounded blur at its edge, ' + 'each in its time range, then pads to even sizes',
    () => {
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
    },
  );

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
