// One jest run for every workspace: the web apps and the shared package in jsdom, the sandbox
// and the infrastructure in Node (their own configs). `isolatedModules` makes ts-jest about twice as fast (docs/architecture.md#unit-tests).
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }];

const web = (name) => ({
  displayName: name,
  rootDir: __dirname,
  testEnvironment: 'jsdom',
  roots: [`<rootDir>/${name}`],
  testMatch: ['**/test/**/*.test.ts?(x)'],
  transform: {
    '^.+\\.tsx?$': tsJest,
    // ky 2 ships ESM only: compile its files to CommonJS for jest.
    '/node_modules/ky/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!ky/)'],
  moduleNameMapper: {
    // First match wins: a CSS Module's class names are their own keys (styles.row === 'row').
    '\\.module\\.css$': 'identity-obj-proxy',
    '\\.css$': '<rootDir>/test-support/style-stub.js',
    '\\.(svg|png|jpe?g)$': '<rootDir>/test-support/style-stub.js',
  },
  setupFilesAfterEnv: ['<rootDir>/test-support/jest-setup-dom.ts'],
  globals: { __APP_VERSION__: '0.0.0-test', __APP_NAME__: `@trailsense/${name}` },
});

/**
 * The repo's Node scripts (scripts/*.mjs) and the TypeScript they import (the static server: the
 * shared package's server headers), compiled to CommonJS for jest (by esbuild).
 */
const scripts = {
  displayName: 'scripts',
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/scripts'],
  testMatch: ['**/test/**/*.test.mjs'],
  transform: { '^.+\\.(mjs|ts)$': '<rootDir>/scripts/test/esm-to-cjs.cjs' },
};

module.exports = {
  // Jest applies the run's testTimeout, not a project's (infra's and sandbox's 60 s were ignored:
  // their tests got the default 5 s, which spawning a CLI or a JVM request storm can exceed on a
  // busy 2-core machine). A test that hangs still fails, after a minute.
  testTimeout: 60_000,
  // Two workers even on a 2-core machine (jest's default there is one): most test files wait on
  // servers, emulators and fake clocks more than they compute, and every sandbox a test starts
  // takes ports of its own (sandbox/README.md), so files run side by side.
  maxWorkers: 2,
  projects: [
    web('shared'),
    web('shell'),
    web('auth-remote'),
    web('uploader-remote'),
    scripts,
    '<rootDir>/infra/jest.config.cjs',
    '<rootDir>/sandbox/jest.config.cjs',
  ],
};
