// The check the long commands make first (scripts/node-version.mjs): an older Node is told at once
// how to run the command, not left to fail a minute later with a stack trace.
import { nodeVersionProblem } from '../node-version.mjs';

it('accepts the lines in package.json "engines" (22.15+, 24, 26) and newer', () => {
  for (const version of ['v22.15.0', 'v22.20.1', 'v24.0.0', 'v24.11.2', 'v26.0.0', 'v26.10.0', 'v27.1.0'])
    expect([version, nodeVersionProblem(version, 'start')]).toEqual([version, null]);
});

it('refuses an older Node with the command to run instead', () => {
  // One line: what is wrong and the command to run instead.
  expect(nodeVersionProblem('v20.20.2', 'start')).toBe(
    'TrailSense needs Node 22.15+, 24 or 26 and this is Node 20.20.2: run `scripts/node26.sh npm start` (it brings Node 26 into tools/node26/ once).',
  );
  for (const version of ['v18.19.0', 'v22.14.0', 'v23.11.0', 'v25.2.1'])
    expect(nodeVersionProblem(version, 'run dev')).toMatch(/^[^\n]*`scripts\/node26\.sh npm run dev`[^\n]*$/);
});
