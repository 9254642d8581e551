// Video jobs (workflows/video.ts): a user uploads their own footage once, the media pool removes the
// marks they name (regions of the frame: their logo, a burnt-in timestamp, a recorder's badge), and the
// result is downloaded once. The workflow's state is the job's status; the blobs live under
// `video/<job_id>/` and are deleted whatever the ending.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineJobKind } from './job-kind.ts';

export const VIDEO_JOB_KIND = 'video-job';

/** The removal profiles a job can use; `region` removes the rectangles the request names. */
export const VIDEO_SERVICES = ['region'] as const;
export type VideoProfile = (typeof VIDEO_SERVICES)[number];

export const VIDEO_STATUSES = ['awaiting_upload', 'queued', 'processing', 'done', 'failed', 'expired'] as const;
export type VideoStatus = (typeof VIDEO_STATUSES)[number];

/** A rectangle in pixels of the source frame, optionally only between two times of the video. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
  start_seconds?: number;
  end_seconds?: number;
}

export interface VideoJobInput {
  jobId: string;
  service: VideoProfile;
  regions: Region[];
  /** Seconds the upload link stays usable, and the result waits to be downloaded. */
  uploadTtlSeconds: number;
  downloadTtlSeconds: number;
}

/** What ffprobe says of the upload (activities/media/ffmpeg.ts). */
export interface VideoSource {
  width: number;
  height: number;
  duration_seconds: number;
  frame_rate: number;
  video_codec: string;
  has_audio: boolean;
  /** The first audio stream's codec, or null. */
  audio_codec: string | null;
}

export interface VideoJobState {
  status: VideoStatus;
  /** Percent of the video processed (from ffmpeg's -progress), 100 once done. */
  progress: number;
  /** Why the job failed or expired. */
  reason: string | null;
  /** Epoch ms until which the upload link, then the download link, can be used. */
  uploadExpiresAt: number;
  downloadExpiresAt: number | null;
  uploadBytes: number | null;
  resultBytes: number | null;
  source: VideoSource | null;
  /** The single download happened (the result is deleted then). */
  downloaded: boolean;
}

export type VideoJobWorkflow = (input: VideoJobInput) => Promise<VideoJobState>;
export const VIDEO_JOB = defineJobKind<VideoJobWorkflow>()({
  kind: VIDEO_JOB_KIND,
  workflow: 'videoJob',
  pools: ['media'],
  task: { restStarted: true },
});

export const getVideoJobState = defineQuery<VideoJobState>('getVideoJobState');
/** The upload is stored (its size): the job is queued for the media pool. */
export const videoUploaded = defineSignal<[{ bytes: number }]>('videoUploaded');
/** The result was downloaded once: it is deleted and the job ends. */
export const videoDownloaded = defineSignal('videoDownloaded');

/** Where a job's blobs live: everything under the prefix is deleted when it ends. */
export const videoBlobPrefix = (jobId: string) => `video/${jobId}/`;
export const videoUploadKey = (jobId: string) => `${videoBlobPrefix(jobId)}upload.mp4`;
export const videoResultKey = (jobId: string) => `${videoBlobPrefix(jobId)}result.mp4`;
/** The key-value entry where the processing activity keeps its progress (percent) for the status. */
export const videoProgressKey = (jobId: string) => `video:progress:${jobId}`;
/** The slots of a user's open jobs (the plan's videoJobsAtOnce), each held by its job id until it ends. */
export const videoSlotsKey = (ownerId: number) => `video:jobs:${ownerId}`;
/** Whose job it is, for the activity that ends it to free its slot. */
export const videoOwnerKey = (jobId: string) => `video:owner:${jobId}`;
/**
 * The longest a job can stay open from its start: its upload's time, its processing's (three attempts of
 * 15 minutes to inspect and 6 hours to process), its download's; a slot outlives it by an hour at most.
 * A step that starts renews it for the rest (its wait in the media workers' queue has no bound).
 */
export const videoJobSeconds = (uploadTtlSeconds: number, downloadTtlSeconds: number) =>
  uploadTtlSeconds + 3 * (15 * 60 + 6 * 3600) + downloadTtlSeconds + 3600;
