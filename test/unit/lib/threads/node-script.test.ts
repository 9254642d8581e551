// The service's malloc settings are set wherever its process is started: npm start, the image, the tests'
// apps (test/support/processes.ts). glibc reads them at a process's start only, so each start sets them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_MALLOC_ENV } from '../../../../lib/threads/node-script.ts';
import { ROOT } from '../../../support/processes.ts';

const settings = Object.entries(SERVICE_MALLOC_ENV).map(([name, value]) => `${name}=${value}`);

describe('SERVICE_MALLOC_ENV', () => {
  it('is what npm start and the image set', () => {
    const start = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
    const image = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    for (const setting of settings) {
      expect(start.split(' ')).toContain(setting);
      expect(image).toMatch(new RegExp(`^ENV .*\\b${setting}\\b`, 'm'));
    }
  });
});
