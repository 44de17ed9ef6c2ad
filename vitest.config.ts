import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each file starts its own embedded PostgreSQL (~1 GB of wasm memory at most); two at a time suit 2 cores.
    maxWorkers: 2,
    pool: 'forks',
  },
});
