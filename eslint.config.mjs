// `npm run lint`: ESLint over every workspace. Besides correctness (typescript-eslint's
// type-checked rules, React's hook rules, jsx-a11y), it guards the architecture:
// - imports never run back up: shared imports no app; a remote imports neither the shell nor the
//   other remote; the shell imports no remote's sources (it loads them through federation);
//   nothing imports the sandbox, and the sandbox reaches shared through its package;
// - every package an app imports is declared in that app's own package.json (hoisting would
//   otherwise hide a missing one until another app's dependency moves);
// - type-only imports are marked so, which keeps them out of the bundles;
// - the source holds its shape: no import circles, files of at most 400 lines and functions of at
//   most 150 (blank lines and comments not counted), the uploader's layers (model/ and services/
//   import nothing above them), and the upload journal reached through its one owner.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';

const PACKAGES = ['shared', 'shell', 'auth-remote', 'uploader-remote', 'sandbox', 'infra', 'webpack'];

/**
 * A `no-restricted-imports` pattern refusing imports of the named workspaces, whether by package
 * name (`@trailsense/shell`) or by a relative path that climbs out of the current one
 * (`../../shell/src/…`).
 */
function refuse(names, message) {
  return names.flatMap((name) => [
    { regex: `^(\\.\\./)+${name}(/|$)`, message },
    { regex: `^@trailsense/${name}(/|$)`, message },
  ]);
}

const climbing = (message) => ({ regex: `^(\\.\\./)+(${PACKAGES.join('|')})/`, message });

const REMOTES = ['auth-remote', 'uploader-remote'];
/** The product's source files (not its tests, tools or benchmarks). */
const SOURCE = ['{shared,shell,auth-remote,uploader-remote,sandbox,infra}/src/**/*.{ts,tsx}', 'infra/bin/**/*.ts', 'webpack/*.js', 'scripts/*.mjs'];

/** What a remote may not import: the shell, the other remote, the sandbox, another workspace by path. */
function remotePatterns(remote) {
  return [
    ...refuse(
      ['shell', ...REMOTES.filter((other) => other !== remote)],
      'A remote depends on the shared package only, never on the shell or the other remote: each is released alone.',
    ),
    ...refuse(['sandbox'], 'The sandbox is a local backend; apps talk to it over the network only.'),
    climbing('Reach another workspace through its package (@trailsense/…), not a relative path.'),
  ];
}

/** Patterns refusing imports of the named sibling layers of a feature (`../controller/…`). */
const above = (layers, message) => [{ regex: `^(\\.\\./)+(${layers.join('|')})(/|$)`, message }];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'test-results/**',
      'playwright-report/**',
      '.sandbox-data/**',
      'coverage/**',
      'e2e/fixtures/**',
      '**/cdk.out/**',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    // TypeScript sources import each other without extensions: resolved as the bundler does.
    settings: {
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] })],
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Passing on what a platform callback or an abort signal rejected with (typed any/unknown)
      // is allowed, as only-throw-error allows rethrowing it; rejecting with a literal is not.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      'import-x/no-extraneous-dependencies': ['error', { includeTypes: true }],
      'import-x/no-duplicates': 'error',
    },
  },
  // Plain JavaScript (configs, scripts, the webpack factory): no type information.
  {
    files: ['**/*.{js,cjs,mjs}'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node } },
  },
  {
    files: ['**/*.cjs', 'webpack/**/*.js', '*/webpack.config.js', 'test-support/*.js'],
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The browser apps.
  {
    files: ['{shared,shell,auth-remote,uploader-remote}/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.tsx'],
    ...jsxA11y.flatConfigs.recommended,
    rules: {
      ...jsxA11y.flatConfigs.recommended.rules,
      // `<ol role="list">` is deliberate where the list's markers are styled away: Safari's
      // VoiceOver stops announcing such a list as a list unless the role is explicit.
      'jsx-a11y/no-redundant-roles': ['error', { nav: ['navigation'], ol: ['list'], ul: ['list'] }],
    },
  },
  {
    files: ['{shared,shell,auth-remote,uploader-remote,test-support}/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  // Tests, the browser tests and the benchmarks are the repository's own tools: their imports
  // come from the root package.json.
  {
    files: ['**/test/**', 'test-support/**', 'e2e/**', 'bench/**', 'scripts/**', '*.config.*', '**/*.test.*'],
    rules: {
      'import-x/no-extraneous-dependencies': ['error', { includeTypes: true, packageDir: [import.meta.dirname, '.'] }],
    },
  },
  // Test doubles implement async interfaces with synchronous bodies: `async` is what makes them
  // reject (rather than throw) like the real thing, so an `async` without `await` is deliberate.
  // jest's asymmetric matchers and untyped mocks are `any` (expect.stringMatching, mock.calls), so
  // the no-unsafe-* rules would flag every matcher inside toEqual; they stay on for the sources.
  {
    files: ['**/test/**', 'test-support/**', 'e2e/**'],
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  { files: ['**/test/**/*.{js,mjs,cjs}'], languageOptions: { globals: { ...globals.jest } } },
  // Architecture: which workspace may import which.
  {
    files: ['shared/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: refuse(['shell', 'auth-remote', 'uploader-remote', 'sandbox', 'infra'], 'shared is used by every app and imports none of them.'),
        },
      ],
    },
  },
  {
    files: ['shell/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...refuse(
              ['auth-remote', 'uploader-remote'],
              'The shell loads remotes through federation (shell/src/remotes), never from their sources: each is released alone.',
            ),
            ...refuse(['sandbox'], 'The sandbox is a local backend; apps talk to it over the network only.'),
            climbing('Reach another workspace through its package (@trailsense/…), not a relative path.'),
          ],
        },
      ],
    },
  },
  ...REMOTES.map((remote) => ({
    files: [`${remote}/**/*.{ts,tsx}`],
    rules: { 'no-restricted-imports': ['error', { patterns: remotePatterns(remote) }] },
  })),
  // The uploader's layers (docs/architecture.md#the-uploaders-layers): model/ is pure rules and
  // imports no other layer; services/ (the browser and the network) may use the model only.
  // (A later block's no-restricted-imports replaces an earlier one's: the remote's patterns are repeated.)
  {
    files: ['uploader-remote/src/features/upload/model/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...remotePatterns('uploader-remote'),
            ...above(['controller', 'services', 'hooks', 'components'], 'model/ is pure rules: it imports no other layer.'),
          ],
        },
      ],
    },
  },
  {
    files: ['uploader-remote/src/features/upload/services/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...remotePatterns('uploader-remote'),
            ...above(['controller', 'hooks', 'components'], 'services/ serves the layers above it and imports only the model.'),
          ],
        },
      ],
    },
  },
  // The upload journal has one owner in the controller (controller/batch-journal.ts): every read
  // and write goes through it, so its failures are handled in one place.
  {
    files: ['uploader-remote/src/features/upload/{controller,hooks,components}/**/*.{ts,tsx}'],
    ignores: ['uploader-remote/src/features/upload/controller/batch-journal.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "MemberExpression[property.name='journal'][object.property.name='services'], MemberExpression[property.name='journal'][object.name='services']",
          message: 'Reach the upload journal through BatchJournal (controller/batch-journal.ts), its one owner.',
        },
      ],
    },
  },
  // Size and circles: source only (tests may be longer). No exception is granted here; a file
  // that needs one carries an eslint-disable comment with its reason.
  {
    files: SOURCE,
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['sandbox/**/*.ts'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...refuse(['shell', 'auth-remote', 'uploader-remote'], 'The sandbox emulates the backend; it knows the apps only through the shared package.'),
            climbing('Reach another workspace through its package (@trailsense/shared/…, @trailsense/infra/…), not a relative path.'),
          ],
        },
      ],
    },
  },
  // The production definition: it reads the apps' builds as files, never their sources.
  {
    files: ['infra/**/*.ts'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...refuse(['shell', 'auth-remote', 'uploader-remote'], "The infrastructure deploys the apps' builds; it imports only the shared package."),
            ...refuse(['sandbox'], 'Production code never depends on the local sandbox (the sandbox runs production code, not the reverse).'),
            climbing('Reach another workspace through its package (@trailsense/…), not a relative path.'),
          ],
        },
      ],
    },
  },
);
