const { createConfig } = require('@trailsense/webpack-config');

module.exports = createConfig({
  appDir: __dirname,
  name: 'auth',
  port: 3001,
  kind: 'remote',
  title: 'auth-remote (standalone)',
  exposes: {
    './Login': './src/expose/login.tsx',
    './Profile': './src/expose/profile.tsx',
    './DeleteAccount': './src/expose/delete-account.tsx',
  },
});
