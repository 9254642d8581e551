import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Integration files share the app processes that global setup starts; two cores, so few at once.
    maxWorkers: 2,
  },
});
