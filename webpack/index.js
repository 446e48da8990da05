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
 * @property {boolean} [uiReact]    share @aws-amplify/ui-react
 * @property {string} [title]       the standalone page's title
 */

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

    return {
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
        clean: true,
      },
      resolve: { extensions: ['.tsx', '.ts', '.js', '.mjs', '.json'] },
      module: {
        rules: [
          {
            test: /\.[jt]sx?$/,
            exclude: /node_modules/,
            loader: 'esbuild-loader',
            options: { target: 'es2020', jsx: 'automatic', tsconfig: path.join(repoRoot, 'tsconfig.base.json') },
          },
          { test: /\.css$/, use: [MiniCssExtractPlugin.loader, { loader: 'css-loader', options: { importLoaders: 0 } }] },
          { test: /\.(svg|png|jpe?g|webp)$/, type: 'asset/resource' },
        ],
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
        ...(federated
          ? [
              new ModuleFederationPlugin({
                name,
                filename: 'remoteEntry.js',
                exposes: options.exposes ?? {},
                remotes: {},
                shared: sharedSingletons({ uiReact: options.uiReact }),
                manifest: true,
                dts: false,
              }),
            ]
          : []),
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
        // Precompressed copies (.br, .gz) beside each text asset: the server picks one by the
        // browser's Accept-Encoding and never compresses on the fly.
        ...(dev
          ? []
          : [
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
            ]),
      ],
      performance: { hints: false },
      optimization: {
        moduleIds: 'deterministic',
        chunkIds: 'deterministic',
        // The shell's first load in a few scripts (React, the router, the app): each is evaluated
        // in its own task, so no single long task holds a slow phone's main thread.
        ...(federated ? {} : { splitChunks: { chunks: 'all' } }),
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
  };
}

/** The local config file: config/local.json unless TRAILSENSE_CONFIG names another. */
function localConfigPath() {
  return path.resolve(repoRoot, process.env.TRAILSENSE_CONFIG ?? 'config/local.json');
}

module.exports = { createConfig, localConfigPath };
