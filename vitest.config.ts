import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // A poll answers as soon as its check holds; the bound is for a machine busy with the whole suite,
    // where 1 s (the default) let a browser's first repaint after a message miss it.
    expect: { poll: { timeout: 10_000 } },
    // Integration files share the app processes that global setup starts; two cores, so few at once.
    maxWorkers: 2,
  },
});
