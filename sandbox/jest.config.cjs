// Sandbox tests: Node integration tests that start the sandbox and drive it with the real
// aws-amplify v6 client. They share the fixed S3 port 20005, so test files take a lock
// (test/support/lock.ts) and can run under any worker count.
const path = require('node:path');

/** @type {import('jest').Config} */
module.exports = {
  displayName: 'sandbox',
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: {
    // jose 6 and @scure/@noble (via cognito-local's otplib) ship ESM only; ts-jest turns it (and our TS) into CommonJS for jest.
    '^.+\\.(ts|js|mjs)$': [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true, esModuleInterop: true, rootDir: path.resolve(__dirname, '..') } },
    ],
  },
  transformIgnorePatterns: ['^(?!.*/node_modules/(jose|@scure|@noble)/).*/node_modules/'],
  // Read alone (`jest -c sandbox/jest.config.cjs`); under the root config's projects only the setup file counts.
  testTimeout: 60000,
  // Before any test file loads Amplify: its SRP arithmetic is chosen by sniffing `navigator`.
  setupFiles: ['<rootDir>/../test-support/node-navigator.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/timeout.ts'],
};
