// Loaded by path (also inside the workflow sandbox): failure messages and stack traces go through
// the payload codec like every other payload.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
