const { createConfig } = require('@trailsense/webpack-config');

module.exports = createConfig({
  appDir: __dirname,
  name: 'shell',
  port: 3000,
  kind: 'host',
  title: 'TrailSense',
});
