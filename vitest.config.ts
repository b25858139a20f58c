import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Measurements (minutes long, for docs/BENCHMARKS.md) run only when asked for.
    exclude: process.env.KUBELET_VIZ_MEASURE ? ['**/node_modules/**'] : ['**/node_modules/**', 'test/**/*.measure.test.ts'],
    // Two cores: integration tests spawn real processes, so keep the pool small and the timeouts honest.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
