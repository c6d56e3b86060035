/*
 * What every mutation-testing target shares: Jest run per test (coverageAnalysis perTest, so a
 * mutant runs only the tests that reach it), the project's own Jest config, reports under
 * reports/mutation/<target>/ (git-ignored) and an incremental file there, so a rerun tests only the
 * mutants whose code or tests changed. A score under 90 fails the run.
 */
export const BREAK_BELOW = 90;

/**
 * @param {object} target
 * @param {string} target.name           folder of its reports, and its name on `npm run test:mutation -- <name>`
 * @param {string} target.jestConfig     the Jest project whose tests kill its mutants
 * @param {string[]} target.mutate       the files (and line ranges) mutated
 * @param {string[]} [target.testMatch]  narrows the project's tests to those that reach the code
 * @param {string[]} [target.roots]      where Jest looks for tests, when they sit in more than the project's folder
 * @param {string[]} [target.ignorePatterns] more of the repository the sandbox copies (`!docs/x.md`), when tests read it
 * @param {Record<string, string>} [target.moduleNameMapper] modules the run maps elsewhere, ahead of the preset's
 */
export function mutationTarget({ name, jestConfig, mutate, testMatch, roots, ignorePatterns = [], moduleNameMapper }) {
  const reports = `reports/mutation/${name}`;
  return {
    $schema: '../node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    packageManager: 'npm',
    testRunner: 'jest',
    coverageAnalysis: 'perTest',
    concurrency: 2,
    mutate,
    jest: {
      projectType: 'custom',
      configFile: jestConfig,
      config: {
        ...(testMatch ? { testMatch } : {}),
        ...(roots ? { roots } : {}),
        ...(moduleNameMapper ? { moduleNameMapper } : {}),
      },
    },
    reporters: ['clear-text', 'progress', 'html', 'json'],
    htmlReporter: { fileName: `${reports}/index.html` },
    jsonReporter: { fileName: `${reports}/mutation.json` },
    incremental: true,
    incrementalFile: `${reports}/stryker-incremental.json`,
    thresholds: { high: 95, low: BREAK_BELOW, break: BREAK_BELOW },
    // One sandbox folder per target, so that two targets can run side by side.
    tempDirName: `.stryker-tmp/${name}`,
    cleanTempDir: 'always',
    // The sandbox copies only what the tests import; the rest of the repository is left where it is.
    ignorePatterns: [
      '**',
      '!libs/**',
      '!apps/**',
      '!scripts/**',
      '!jest.preset.js',
      '!jest.config.ts',
      '!tsconfig*.json',
      '!package.json',
      'apps/*/dist/**',
      '**/.data/**',
      ...ignorePatterns,
    ],
  };
}
