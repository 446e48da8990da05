// Sandbox tests: Node integration tests that start the sandbox and drive it with the real
// aws-amplify v6 client. Each test file's sandbox takes every port from the OS, S3's too
// (test/support/sandbox.ts FREE_PORTS), so the files run in parallel, under any worker count.
// The worker count is the run's (a global option: jest warns when a project sets it). Its default
// is one fewer than the cores, so one, in band, on a 2-core machine; `npm test -w sandbox` asks for
// one per core.
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
