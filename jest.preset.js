// Shared by every project's jest.config.ts: SWC transpiles TypeScript (decorator metadata
// included) far faster than ts-jest; type checking is a separate step (`npm run typecheck`).
const path = require('node:path');

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@app/(auth|envelope|idempotency|platform|rate-limits|telegram-shapes|testing|webhook-queue)$': path.join(__dirname, 'libs/$1/src/index.ts'),
    // Typed clients generated from the OpenAPI documents, for the e2e tests that drive the apps as integrators do.
    '^@clients/(bot-api|voucher-api)$': path.join(__dirname, 'clients/$1/index.ts'),
  },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
};
