// Task queues, one per worker pool. Workflows run only on `workflows`; activities only on their pool.
export const TASK_QUEUES = {
  workflows: 'workflows',
  network: 'network',
  load: 'load',
  media: 'media',
} as const;

export type ActivityPool = 'network' | 'load' | 'media';
export const ACTIVITY_POOLS: readonly ActivityPool[] = ['network', 'load', 'media'];

/** The activity header that carries the id of the API request behind a job (workflows/interceptors.ts). */
export const REQUEST_ID_HEADER = 'netops-request-id';
