// The local production server's security headers: the shell's CSP from the config file it serves
// (a strict one while that config is broken), a remote's CORS for the shell's origin alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStaticServer } from '../static-server.mjs';
import { configErrorSecurityHeaders, securityHeaders } from '../../shared/src/security/headers';
import { parseRuntimeConfig } from '../../shared/src/config/validate';

const HASH = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='";
const config = JSON.parse(fs.readFileSync(path.join(__dirname, '../../config/local.json'), 'utf8'));
let dir;
let servers;

/** A shell build (routes.json, one page, one chunk) and a remote build in a temp folder. */
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'static-server-test-'));
  const shell = path.join(dir, 'shell');
  fs.mkdirSync(shell);
  fs.writeFileSync(
    path.join(shell, 'routes.json'),
    JSON.stringify({ pages: { '/': 'index.html' }, appPaths: ['/login'], app: 'app.html', notFound: '404.html', inlineScriptHashes: [HASH] }),
  );
  for (const file of ['index.html', 'app.html', '404.html']) fs.writeFileSync(path.join(shell, file), `<!doctype html><title>${file}</title>`);
  fs.writeFileSync(path.join(shell, 'main.0123456789.js'), '1');
  fs.mkdirSync(path.join(dir, 'remote'));
  fs.writeFileSync(path.join(dir, 'remote', 'remoteEntry.js'), '1');
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  servers = [];
});

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(options) {
  const server = await startStaticServer({ port: 0, configFile: path.join(dir, 'config.json'), ...options });
  servers.push(server);
  return server.url;
}

describe('the shell', () => {
  test('every response carries the security headers generated from the served config and routes.json', async () => {
    const url = await serve({ root: path.join(dir, 'shell'), spa: true });
    const parsed = parseRuntimeConfig(config);
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    const expected = securityHeaders({ config: parsed.config, inlineScriptHashes: [HASH] });
    for (const target of ['/', '/login', '/nowhere', '/main.0123456789.js', '/config.json']) {
      const res = await fetch(url + target);
      for (const [name, value] of Object.entries(expected)) expect([target, name, res.headers.get(name)]).toEqual([target, name, value]);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  test('a broken config gets the config-error page’s policy, and a repaired one the full policy again', async () => {
    const url = await serve({ root: path.join(dir, 'shell'), spa: true });
    fs.writeFileSync(path.join(dir, 'config.json'), '{ "auth": ');
    const broken = (await fetch(`${url}/`)).headers.get('content-security-policy');
    expect(broken).toBe(configErrorSecurityHeaders({ inlineScriptHashes: [HASH] })['Content-Security-Policy']);
    expect(broken).not.toContain('localhost:');
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
    expect((await fetch(`${url}/`)).headers.get('content-security-policy')).toContain('http://localhost:3001');
  });

  test('a build without inline script hashes is refused at start', async () => {
    fs.writeFileSync(path.join(dir, 'shell', 'routes.json'), JSON.stringify({ pages: {}, appPaths: [], app: 'app.html', notFound: '404.html' }));
    await expect(serve({ root: path.join(dir, 'shell'), spa: true })).rejects.toThrow(/inlineScriptHashes.*rebuild the shell/);
  });
});

describe('a remote', () => {
  const shellOrigin = 'http://localhost:3000';

  test('allows the shell’s origin alone, varies by Origin, and sends no CSP', async () => {
    const url = await serve({ root: path.join(dir, 'remote'), corsOrigin: shellOrigin });
    const fromShell = await fetch(`${url}/remoteEntry.js`, { headers: { Origin: shellOrigin } });
    expect(fromShell.headers.get('access-control-allow-origin')).toBe(shellOrigin);
    expect(fromShell.headers.get('vary')).toBe('Accept-Encoding, Origin');
    expect(fromShell.headers.get('x-content-type-options')).toBe('nosniff');
    expect(fromShell.headers.get('content-security-policy')).toBeNull();
    for (const origin of ['https://evil.example', 'http://localhost:3001', undefined]) {
      const res = await fetch(`${url}/remoteEntry.js`, { headers: origin ? { Origin: origin } : {} });
      expect([origin, res.headers.get('access-control-allow-origin')]).toEqual([origin, null]);
      expect(res.headers.get('vary')).toBe('Accept-Encoding, Origin');
    }
  });
});
