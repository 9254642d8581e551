import { describe, expect, it } from 'vitest';
import { canConnect } from '../../lib/can-connect.ts';
import { startApp, tempDir } from '../support/processes.ts';

describe('embedded lifecycle', () => {
  it('starts its Temporal dev server with the UI, and stops it and the API on SIGTERM', async () => {
    const app = await startApp({ DATA_DIR: await tempDir('lifecycle') });
    const devPort = Number(app.env.TEMPORAL_DEV_PORT);
    const uiPort = Number(app.env.TEMPORAL_UI_PORT);
    expect(app.output()).toContain(`Temporal UI: http://127.0.0.1:${uiPort}`);
    expect((await fetch(`http://127.0.0.1:${uiPort}/`)).status).toBe(200);
    expect(await canConnect({ host: '127.0.0.1', port: devPort })).toBe(true);

    await app.stop();
    expect(await canConnect({ host: '127.0.0.1', port: devPort })).toBe(false);
    expect(await canConnect({ host: '127.0.0.1', port: Number(new URL(app.baseUrl).port) })).toBe(false);
  });
});
