// Names of AI video generators (products and their makers). A video job never removes the marks such a
// generator puts on its output to disclose that it is generated: a `service` naming one of them is
// refused with 422 provenance_mark (video.ts). Compared without case, spaces or punctuation. Kept in
// code, not read from a file, so the contract loads no file (and reaches nothing of node:fs).
// Each name squashed (lower case, letters and digits); keep them sorted.

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The AI video generators, squashed (lower case, letters and digits). */
export const AI_VIDEO_GENERATORS: ReadonlySet<string> = new Set([
  'cogvideo',
  'dreammachine',
  'genmo',
  'hailuo',
  'haiper',
  'hunyuanvideo',
  'kling',
  'klingai',
  'lumaai',
  'lumalabs',
  'midjourneyvideo',
  'minimax',
  'moonvalley',
  'openai',
  'openaisora',
  'pika',
  'pikalabs',
  'pixverse',
  'runway',
  'runwaygen3',
  'runwayml',
  'sora',
  'sora2',
  'stablevideodiffusion',
  'synthesia',
  'veo',
  'veo2',
  'veo3',
  'vidu',
  'wan',
]);

/** Whether `service` names an AI video generator (its mark discloses generated content: never removed). */
export function namesAiVideoGenerator(service: string): boolean {
  return AI_VIDEO_GENERATORS.has(squash(service));
}
