const { createConfig } = require('@trailsense/webpack-config');

module.exports = createConfig({
  appDir: __dirname,
  name: 'uploader',
  port: 3002,
  kind: 'remote',
  title: 'uploader-remote (standalone)',
  exposes: {
    './Uploader': './src/expose/uploader.tsx',
  },
});
