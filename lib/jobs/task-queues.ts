// Task queues, one per worker pool. Workflows run only on `workflows`; activities only on their pool.
export const TASK_QUEUES = {
  workflows: 'workflows',
  network: 'network',
  load: 'load',
  media: 'media',
  /**
   * The media pool's steps that copy an upload and run ffprobe or ffmpeg, on a queue of their own: each
   * media worker takes at most VIDEO_JOBS_PER_WORKER of them at once (the rest wait in Temporal's queue,
   * which no timeout of theirs counts, for whichever worker is free first), while the deletions on
   * `media` never wait behind them.
   */
  mediaWork: 'media-work',
} as const;

export type ActivityPool = 'network' | 'load' | 'media';
export const ACTIVITY_POOLS: readonly ActivityPool[] = ['network', 'load', 'media'];

/** The activity header that carries the id of the API request behind a job (workflows/interceptors.ts). */
export const REQUEST_ID_HEADER = 'netops-request-id';
