// Shared by every project's jest.config.ts: SWC transpiles TypeScript (decorator metadata
// included) far faster than ts-jest; type checking is a separate step (`npm run typecheck`).
const path = require('node:path');

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+/node_modules/@nestjs/bull(mq|-shared)/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
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
  // @nestjs/bullmq (and its shared part) ship only ES modules, which Jest's CommonJS runtime cannot
  // require on this Node; SWC turns them into CommonJS like the project's own files.
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/bull(mq|-shared)/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@app/(auth|bot-delivery|bot-schema|coordination|envelope|idempotency|platform|rate-limits|telegram-shapes|telemetry|testing)$': path.join(__dirname, 'libs/$1/src/index.ts'),
    // Typed clients generated from the OpenAPI documents, for the e2e tests that drive the apps as integrators do.
    '^@clients/(bot-api|voucher-api)$': path.join(__dirname, 'clients/$1/index.ts'),
  },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
};
