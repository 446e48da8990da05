// Infra tests: assertions on the synthesized CloudFormation templates (aws-cdk-lib/assertions),
// and unit tests of the CloudFront Function and the object-created handler. Node, no network.
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
  // Synthesizing a stack that bundles a function with esbuild takes seconds.
  testTimeout: 60000,
};
