// Debian's chromium for the browser suites (never a downloaded browser): headless, no sandbox (the
// suites run as root in a container), none of the browser's own traffic.
import fs from 'node:fs';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium() {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(
      `no browser at ${CHROMIUM}: run scripts/setup --ci (it installs Debian's chromium), or set CHROMIUM_PATH`,
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
