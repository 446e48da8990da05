// The webpack config factory every app calls: one place for loaders, federation wiring, output
// naming and the dev server, so the three apps cannot drift apart.
const path = require('node:path');
const fs = require('node:fs');
const webpack = require('webpack');
const HtmlWebpackPlugin = require('html-webpack-plugin');
const MiniCssExtractPlugin = require('mini-css-extract-plugin');
const CopyPlugin = require('copy-webpack-plugin');
const CompressionPlugin = require('compression-webpack-plugin');
const zlib = require('node:zlib');
const { ModuleFederationPlugin } = require('@module-federation/enhanced/webpack');
const { sharedSingletons, sharedVersions } = require('./shared-singletons');
const { hostDescription, runtimeRange, runtimeVersion, HOST_FILE, RUNTIME_PACKAGE } = require('./federation-check');
const { UnusedKitTokensPlugin } = require('./kit-tokens-plugin');
const { CompileHintsPlugin, isWorkerChunk } = require('./compile-hints');

const repoRoot = path.resolve(__dirname, '..');
/** Text assets worth precompressing (source maps are only fetched by developer tools). */
const COMPRESSIBLE = /\.(js|css|html|json|svg|txt)$/;

/**
 * @typedef {object} AppOptions
 * @property {string} appDir        the app's folder (its package.json, src/, public/)
 * @property {string} name          the federation name (shell, auth, uploader)
 * @property {number} port          the dev-server port
 * @property {'host'|'remote'} kind the shell is the host; remotes expose modules
 * @property {Record<string,string>} [exposes]
 * @property {string} [title]       the standalone page's title
 */

/** Module types that need the federation runtime and share scope, which a worker has not. */
const FEDERATED_MODULE_TYPES = new Set(['consume-shared-module', 'remote-module']);

/**
 * Fails the build when a web worker is not one self-contained chunk. A remote's worker may run
 * from a blob: URL (CrossOriginWorker), where `self.location` is the page's origin, not the
 * remote's: any chunk the worker loaded at runtime (split chunks, `import()`) would be looked up
 * on the wrong origin. And a worker has no federation share scope, so it must not consume shared
 * modules (react, aws-amplify, @trailsense/shared): bundle what it needs, statically.
 */
class SelfContainedWorkersPlugin {
  /** @param {import('webpack').Compiler} compiler */
  apply(compiler) {
    const name = 'SelfContainedWorkersPlugin';
    compiler.hooks.thisCompilation.tap(name, (compilation) => {
      compilation.hooks.afterOptimizeChunks.tap(name, () => {
        for (const entrypoint of compilation.asyncEntrypoints) {
          if (!entrypoint.options.worker || entrypoint.options.worklet) continue;
          const startedBy = entrypoint.origins.map((o) => o.module?.readableIdentifier(compilation.requestShortener)).filter(Boolean);
          const where = `The worker ${entrypoint.options.name ?? ''} started in ${startedBy.join(', ') || '?'}`;
          const problems = [];
          if (entrypoint.chunks.length !== 1) problems.push(`is split into ${entrypoint.chunks.length} chunks`);
          if (entrypoint.getChildren().length > 0) problems.push('loads chunks at runtime (import()); import statically or with webpackMode: "eager"');
          for (const chunk of entrypoint.chunks) {
            for (const module of compilation.chunkGraph.getChunkModulesIterable(chunk)) {
              if (FEDERATED_MODULE_TYPES.has(module.type))
                problems.push(`needs the federation runtime for ${module.readableIdentifier(compilation.requestShortener)}`);
            }
          }
          for (const problem of problems) compilation.errors.push(new webpack.WebpackError(`${where} ${problem}: a worker must be one self-contained chunk.`));
        }
      });
    });
  }
}

/**
 * Emits the shell's federation-host.json: the federation runtime and the modules this shell
 * provides remotes, as webpack/federation-check.js reads them. Deployed with the shell, it is what
 * a remote released on its own checks its build against (FEDERATION_HOST).
 */
class FederationHostPlugin {
  /** @param {import('webpack').Compiler} compiler */
  apply(compiler) {
    const name = 'FederationHostPlugin';
    compiler.hooks.thisCompilation.tap(name, (compilation) => {
      compilation.hooks.processAssets.tap({ name, stage: webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
        compilation.emitAsset(HOST_FILE, new webpack.sources.RawSource(`${JSON.stringify(hostDescription(repoRoot), null, 2)}\n`));
      });
    });
  }
}

/**
 * A remote's own page (its standalone index.html) has no shell to provide the federation runtime
 * its entry expects (`externalRuntime`): this tag loads one first, built by the remote's second
 * compiler (standaloneRuntimeConfig). The shell's page never loads it.
 */
class StandaloneRuntimeTagPlugin {
  /** @param {import('webpack').Compiler} compiler */
  apply(compiler) {
    const name = 'StandaloneRuntimeTagPlugin';
    compiler.hooks.compilation.tap(name, (compilation) => {
      HtmlWebpackPlugin.getHooks(compilation).alterAssetTagGroups.tap(name, (groups) => {
        groups.headTags.unshift(HtmlWebpackPlugin.createHtmlTagObject('script', { defer: true, src: STANDALONE_RUNTIME_FILE }));
        return groups;
      });
    });
  }
}

const STANDALONE_RUNTIME_FILE = 'standalone-runtime.js';

/**
 * The packages whose code runs on the way to a usable member route, chunk by chunk: the
 * federation runtime, Amplify's core and auth, the sign-in kit. A chunk mostly of their modules is
 * marked for eager compilation (CompileHintsPlugin).
 */
const EAGER_PACKAGES = [
  '@module-federation/runtime-core',
  '@module-federation/webpack-bundler-runtime',
  'aws-amplify',
  '@aws-amplify/core',
  '@aws-amplify/auth',
  '@aws-amplify/ui',
  '@aws-amplify/ui-react',
  '@aws-amplify/ui-react-core',
  'xstate',
];

/** Whether a chunk is loaded on demand (not an entry's) and is not a worker's. */
const isAsyncPageChunk = (chunk) => !chunk.canBeInitial() && !isWorkerChunk(chunk);

/**
 * Emits a copy of a remote's entry script under a name with its content hash
 * (`remoteEntry.<hash>.js`, immutable like every hashed file) and returns that name, for the
 * manifest to point at. The shell reads a remote through its manifest, so a release switches when
 * its manifest is written, in one PUT: everything the manifest names is already in place, and a
 * deploy stopped before that write leaves the previous release serving whole. `remoteEntry.js`
 * stays, for a runtime config that names the entry script itself.
 * @param {import('webpack').Compilation} compilation
 * @param {string} entryName
 */
function hashedRemoteEntry(compilation, entryName) {
  const asset = compilation.getAsset(entryName);
  if (!asset) throw new Error(`The federation manifest names ${entryName}, which this build did not emit.`);
  const hash = require('node:crypto').createHash('md5').update(asset.source.buffer()).digest('hex').slice(0, 10);
  const hashed = entryName.replace(/\.js$/, `.${hash}.js`);
  if (!compilation.getAsset(hashed)) compilation.emitAsset(hashed, new webpack.sources.RawSource(asset.source.buffer()), { immutable: true });
  return hashed;
}

/**
 * How each kind of source file is built.
 * @param {{ name: string, dev: boolean, kind: 'host' | 'remote' }} app
 */
function moduleRules({ name, dev, kind }) {
  return [
    {
      test: /\.[jt]sx?$/,
      exclude: /node_modules/,
      loader: 'esbuild-loader',
      options: { target: 'es2020', jsx: 'automatic', tsconfig: path.join(repoRoot, 'tsconfig.base.json') },
    },
    // The sign-in kit's default theme, built at build time (webpack/kit-theme-loader.js says why).
    {
      test: /[\\/]@aws-amplify[\\/]ui-react[\\/]dist[\\/]esm[\\/]components[\\/]ThemeProvider[\\/]ThemeContext\.mjs$/,
      loader: require.resolve('./kit-theme-loader'),
    },
    // `*.module.css` is a CSS Module: its class names are scoped to the app (prefixed with
    // its federation name, and hashed with it), so a remote's styles cannot restyle the shell
    // or the other remote. Plain `.css` (the shell's sheets, a UI kit's own) stays global.
    // Both are extracted into .css files (a remote's are listed in its mf-manifest.json and
    // loaded as <link>s with the module), never injected as <style> elements.
    {
      test: /\.css$/,
      use: [
        MiniCssExtractPlugin.loader,
        {
          loader: 'css-loader',
          options: {
            importLoaders: 0,
            modules: {
              auto: true,
              namedExport: false,
              exportLocalsConvention: 'as-is',
              localIdentName: dev ? `${name}_[name]__[local]` : `${name}_[hash:base64:8]`,
              localIdentHashSalt: name,
            },
          },
        },
      ],
    },
    // A remote's images show in the shell's page, whose Content-Security-Policy allows images
    // from the shell's origin and data: URLs only (infra/docs/server.md#security-headers):
    // they are inlined into the remote's code. The shell's are files of its own origin.
    { test: /\.(svg|png|jpe?g|webp)$/, type: kind === 'remote' ? 'asset/inline' : 'asset/resource' },
  ];
}

/**
 * A remote's federation build plugin: what it exposes and shares, and its manifest.
 * @param {{ name: string, appDir: string, dev: boolean, exposes?: Record<string, string> }} remote
 */
function remotePlugin({ name, appDir, dev, exposes }) {
  return new ModuleFederationPlugin({
    name,
    filename: 'remoteEntry.js',
    exposes: exposes ?? {},
    remotes: {},
    shared: sharedSingletons(),
    // The manifest states the runtime this remote needs, for the shell's check at run
    // time and webpack/federation-check.js at build time, and names a content-hashed
    // copy of the entry script (in production), so the manifest is the one file a
    // deploy switches (infra/README.md "Deploy command").
    manifest: {
      additionalData: ({ stats, compilation }) => {
        stats.metaData.federationRuntime = { package: RUNTIME_PACKAGE, requiredVersion: runtimeRange(runtimeVersion(appDir)) };
        if (!dev) stats.metaData.remoteEntry.name = hashedRemoteEntry(compilation, stats.metaData.remoteEntry.name);
        return stats;
      },
    },
    dts: false,
    experiments: {
      // The remote carries no federation runtime of its own: it uses the shell's
      // (docs/federation.md#one-federation-runtime).
      externalRuntime: true,
      // What stays in remoteEntry.js (the bundler runtime) never loads a remote or
      // reads a manifest — the shell's runtime does both — and runs only in browsers.
      optimization: { disableSnapshot: true, disableRemote: true, target: 'web' },
    },
  });
}

/** Precompressed copies (.br, .gz) beside each text asset: the server picks one by the browser's Accept-Encoding and never compresses on the fly. */
function compressionPlugins() {
  return [
    new CompressionPlugin({
      filename: '[path][base].br',
      algorithm: 'brotliCompress',
      test: COMPRESSIBLE,
      compressionOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } },
      threshold: 1024,
      minRatio: 0.9,
    }),
    new CompressionPlugin({
      filename: '[path][base].gz',
      algorithm: 'gzip',
      test: COMPRESSIBLE,
      compressionOptions: { level: 9 },
      threshold: 1024,
      minRatio: 0.9,
    }),
  ];
}

/** @param {AppOptions} options */
function createConfig(options) {
  return (env = {}, argv = {}) => {
    const mode = argv.mode === 'development' ? 'development' : 'production';
    const dev = mode === 'development';
    const { appDir, name, port, kind } = options;
    const pkg = JSON.parse(fs.readFileSync(path.join(appDir, 'package.json'), 'utf8'));
    // A release marker (e.g. a build number) shown beside the version, to tell releases apart.
    const marker = process.env.APP_RELEASE_MARKER;
    const version = marker ? `${pkg.version}+${marker}` : pkg.version;
    const publicDir = path.join(appDir, 'public');
    const outputPath = env.outputPath ? path.resolve(env.outputPath) : path.join(appDir, 'dist');
    // The shell hosts the remotes through the federation runtime API, loaded with the first remote
    // route (shell/src/remotes/federation.ts); only remotes use the build plugin. The plugin's
    // runtime would sit in the shell's entry, on the marketing pages' critical path.
    const federated = kind === 'remote';

    const config = {
      name,
      mode,
      context: appDir,
      entry: { main: './src/index.ts' },
      devtool: dev ? 'eval-cheap-module-source-map' : 'source-map',
      output: {
        path: outputPath,
        // A federation build needs unhashed entry names; the shell's entry is named by its hash
        // (index.html, which names it, is no-cache). Chunks are hashed and cached forever.
        filename: federated || dev ? '[name].js' : '[name].[contenthash:10].js',
        chunkFilename: dev ? '[name].js' : '[name].[contenthash:10].js',
        assetModuleFilename: 'assets/[name].[contenthash:10][ext]',
        // The shell serves deep links (/support/…), so its chunks load from the root; remotes
        // are loaded from wherever their manifest lives.
        publicPath: kind === 'host' ? '/' : 'auto',
        uniqueName: name,
        // A remote's second compiler writes the standalone page's runtime beside its files.
        clean: federated ? { keep: STANDALONE_RUNTIME_FILE } : true,
      },
      resolve: { extensions: ['.tsx', '.ts', '.js', '.mjs', '.json'] },
      module: {
        parser: {
          javascript: {
            // A remote's code runs in the shell's page, of another origin, where `new Worker(url)`
            // of the remote's chunk is refused. `new CrossOriginWorker(new URL('./x.worker.ts',
            // import.meta.url))` (uploader-remote/src/features/upload/services/browser/cross-origin-worker.ts;
            // the import must be spelled `from '../browser/cross-origin-worker'`, as the workers'
            // starters in services/files/ and services/clock/ spell it) is compiled like
            // `new Worker(...)`: the entry becomes a worker chunk, its URL is passed in, and the
            // class starts it through a same-origin blob: URL when needed. '...' keeps webpack's
            // own forms (new Worker, new SharedWorker, …).
            worker: ['CrossOriginWorker from ../browser/cross-origin-worker', '...'],
          },
        },
        rules: moduleRules({ name, dev, kind }),
      },
      plugins: [
        new webpack.DefinePlugin({
          __APP_VERSION__: JSON.stringify(version),
          __APP_NAME__: JSON.stringify(pkg.name),
          __SHARED_VERSIONS__: JSON.stringify(sharedVersions()),
        }),
        new MiniCssExtractPlugin({
          filename: federated || dev ? '[name].css' : '[name].[contenthash:10].css',
          chunkFilename: dev ? '[name].css' : '[name].[contenthash:10].css',
        }),
        ...(federated ? [remotePlugin({ name, appDir, dev, exposes: options.exposes }), new StandaloneRuntimeTagPlugin()] : [new FederationHostPlugin()]),
        // The sign-in kit's QR code library loads when its TOTP screen draws one, not with the
        // form (webpack/kit-qrcode.js says why). Exact request only: the stand-in imports the
        // library by its file path.
        new webpack.NormalModuleReplacementPlugin(/^qrcode$/, (resource) => {
          if (/[\\/]@aws-amplify[\\/]ui-react[\\/]/.test(resource.contextInfo?.issuer ?? '')) resource.request = require.resolve('./kit-qrcode');
        }),
        new SelfContainedWorkersPlugin(),
        ...(dev ? [] : [new CompileHintsPlugin(EAGER_PACKAGES), new UnusedKitTokensPlugin()]),
        new HtmlWebpackPlugin({
          template: path.join(publicDir, 'index.html'),
          templateParameters: { title: options.title ?? name },
          // The html file is no-cache. It names the shell's hashed scripts (immutable), or a
          // remote's main.js (no-cache, as federation entries are), so no hash query is needed.
          scriptLoading: 'defer',
        }),
        ...(fs.existsSync(publicDir)
          ? [new CopyPlugin({ patterns: [{ from: publicDir, globOptions: { ignore: ['**/index.html'] }, noErrorOnMissing: true }] })]
          : []),
        ...(dev ? [] : compressionPlugins()),
      ],
      performance: { hints: false },
      optimization: {
        moduleIds: 'deterministic',
        chunkIds: 'deterministic',
        // The shell's first load in a few scripts (React, the router, the app): each is evaluated
        // in its own task, so no single long task holds a slow phone's main thread.
        // Worker chunks are left whole (SelfContainedWorkersPlugin says why); a remote keeps
        // webpack's default of splitting async chunks only, worker chunks excepted.
        splitChunks: {
          chunks: federated ? isAsyncPageChunk : (chunk) => !isWorkerChunk(chunk),
          // The shell: Amplify's core and auth, which every member route's session needs, in one
          // chunk rather than the dozen small ones webpack's defaults cut them into. Each chunk is
          // a <script> element appended at run time (about 2 ms at 4× CPU): together they were a
          // task of 80-90 ms on the way to the sign-in form (docs/federation.md#loading-remotes).
          cacheGroups: federated
            ? {}
            : {
                amplifySession: {
                  test: /[\\/]node_modules[\\/](?:@aws-amplify[\\/](?:core|auth)|aws-amplify)[\\/]/,
                  chunks: isAsyncPageChunk,
                  name: 'amplify-session',
                  priority: 10,
                  enforce: true,
                },
              },
        },
      },
      devServer: {
        port,
        host: 'localhost',
        hot: false,
        liveReload: true,
        historyApiFallback: kind === 'host',
        headers: { 'Access-Control-Allow-Origin': '*' },
        static: false,
        client: { overlay: { warnings: false, errors: true } },
        setupMiddlewares: (middlewares, server) => {
          // The same /config.json the local production server serves (config/local.json).
          server.app.get('/config.json', (_req, res) => {
            res.set('Cache-Control', 'no-cache');
            res.type('application/json').send(fs.readFileSync(localConfigPath(), 'utf8'));
          });
          return middlewares;
        },
      },
    };
    return federated ? [config, standaloneRuntimeConfig({ name, mode, appDir, outputPath })] : config;
  };
}

/**
 * A remote's second compiler: the federation runtime for the remote's own page, which has no
 * shell (StandaloneRuntimeTagPlugin). A plain bundle, no federation; built after the remote (its
 * clean step keeps this file).
 */
function standaloneRuntimeConfig({ name, mode, appDir, outputPath }) {
  return {
    name: `${name}-standalone-runtime`,
    dependencies: [name],
    mode,
    context: appDir,
    entry: { [path.basename(STANDALONE_RUNTIME_FILE, '.js')]: path.join(__dirname, 'standalone-runtime.js') },
    devtool: mode === 'development' ? false : 'source-map',
    output: { path: outputPath, filename: '[name].js', uniqueName: `${name}_standalone_runtime`, clean: false },
    performance: { hints: false },
  };
}

/** The local config file: config/local.json unless TRAILSENSE_CONFIG names another. */
function localConfigPath() {
  return path.resolve(repoRoot, process.env.TRAILSENSE_CONFIG ?? 'config/local.json');
}

module.exports = { createConfig, localConfigPath };
