import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkFederation, hostModules, HOST_SOURCE, unprovided } from '@trailsense/webpack-config/federation-check';
import { providedModules } from '../src/remotes/federation';

const repoRoot = path.resolve(__dirname, '..', '..');
const hostSource = fs.readFileSync(path.join(repoRoot, HOST_SOURCE), 'utf8');
const made: string[] = [];
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** A repository-shaped folder with the real host source and the given remote manifests. */
function fakeRepo(manifests: Record<string, { shared: Array<{ name: string; version?: string }> } | null>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'federation-check-'));
  made.push(root);
  fs.mkdirSync(path.join(root, path.dirname(HOST_SOURCE)), { recursive: true });
  fs.writeFileSync(path.join(root, HOST_SOURCE), hostSource);
  for (const [remote, manifest] of Object.entries(manifests)) {
    if (!manifest) continue;
    fs.mkdirSync(path.join(root, remote, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(root, remote, 'dist', 'mf-manifest.json'), JSON.stringify(manifest));
  }
  return root;
}

describe('the build-time federation check', () => {
  it('reads from the host source exactly the modules the shell provides at run time', () => {
    expect(hostModules(hostSource)).toEqual([...providedModules]);
    expect(providedModules).toEqual(expect.arrayContaining(['react', '@aws-amplify/core', 'aws-amplify/storage']));
  });

  it('names what a remote shares and the host does not provide', () => {
    const manifest = { shared: [{ name: 'react' }, { name: '@aws-amplify/core/internals/new-path', version: '6.20.0' }] };
    expect(unprovided(['react', '@aws-amplify/core'], manifest)).toEqual([{ name: '@aws-amplify/core/internals/new-path', version: '6.20.0' }]);
  });

  it('fails a remote build that shares an Amplify path the shell lacks, and passes one that does not', () => {
    const root = fakeRepo({
      'auth-remote': { shared: [{ name: 'react' }, { name: '@aws-amplify/core/internals/new-path', version: '6.20.0' }] },
      'uploader-remote': { shared: providedModules.map((name) => ({ name })) },
    });
    const { problems, checked } = checkFederation({ root });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^auth-remote shares @aws-amplify\/core\/internals\/new-path@6\.20\.0, which the shell does not provide/);
    expect(checked).toEqual(['auth-remote (2 shared modules)', `uploader-remote (${providedModules.length} shared modules)`]);
    expect(checkFederation({ root, remotes: ['uploader-remote'] }).problems).toEqual([]);
  });

  it('says so when a remote has no build to check', () => {
    const root = fakeRepo({ 'auth-remote': null });
    expect(checkFederation({ root, remotes: ['auth-remote'] }).problems).toEqual([
      'auth-remote: no build to check (auth-remote/dist/mf-manifest.json is missing; run `npm run build -w auth-remote`).',
    ]);
  });
});
