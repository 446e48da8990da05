// Infra tests: assertions on the synthesized CloudFormation templates (aws-cdk-lib/assertions),
// unit tests of the CloudFront Function and the object-created handler, and the DynamoDB ledger
// on DynamoDB Local (Amazon's own engine, a local JVM reached on loopback: test/support/dynamodb-local.ts),
// which the global setup starts once per run. Node, no network beyond loopback.
const path = require('node:path');

/** @type {import('jest').Config} */
module.exports = {
  displayName: 'infra',
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: { module: 'commonjs', isolatedModules: true, esModuleInterop: true, rootDir: path.resolve(__dirname, '..') } }],
  },
  // One DynamoDB Local for every test file of the run (CommonJS: loaded without a transform).
  globalSetup: '<rootDir>/test/support/dynamodb-global-setup.cjs',
  globalTeardown: '<rootDir>/test/support/dynamodb-global-teardown.cjs',
  // Synthesizing a stack that bundles a function with esbuild takes seconds.
  testTimeout: 60000,
};
