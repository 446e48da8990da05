/**
 * The whole app of an environment (src/app.ts): eight stacks named `TrailSense-<env>-<Part>` in the
 * settings' account and region (the us-east-1 alarm topic's in us-east-1), that reference no other stack (each deploys alone), pass
 * CloudFormation's resource-schema validation (strict: a schema error fails synth), and need
 * nothing from an AWS account. Bundling is skipped here (uploads-stack.test.ts bundles for real).
 */
import fs from 'node:fs';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp, STACK_PARTS, stackName, stackPartsIn, trailSenseApp } from '../src/app';
import { SettingsError } from '../src/settings';
import { allStatements, FIXTURE_ROUTES_FILE, isWildcardPrincipal } from './support/example';

const noBundling = () => trailSenseApp({ context: { 'aws:cdk:bundling-stacks': [] } });

let built: ReturnType<typeof buildApp>;
let directory: string;
const allStacks = (): Stack[] => Object.values(built.stacks);

beforeAll(() => {
  built = buildApp({ app: noBundling(), shellRoutesFile: FIXTURE_ROUTES_FILE });
  directory = built.app.synth().directory;
});

it('builds the example environment by default, eight stacks named TrailSense-example-<Part>, in its account and region but the us-east-1 topic', () => {
  const stacks = allStacks();
  expect(built.parts).toEqual([...STACK_PARTS]);
  expect(stacks.map((stack) => stack.stackName)).toEqual(STACK_PARTS.map((part) => `TrailSense-example-${part}`));
  expect(STACK_PARTS.map((part) => stackName('production', part))).toContain('TrailSense-production-UploaderRemote');
  for (const stack of stacks) {
    // CloudFront's alarms notify a topic in us-east-1, where its metrics are.
    const region = stack.stackName.endsWith('-MonitoringUsEast1') ? 'us-east-1' : 'us-east-2';
    expect([stack.stackName, stack.account, stack.region]).toEqual([stack.stackName, '123456789012', region]);
  }
  expect(Object.keys(built.buildTimes)).toEqual([...STACK_PARTS]);
});

it('needs no second alarm topic when the environment is in us-east-1 already', () => {
  expect(stackPartsIn('us-east-1')).toEqual(STACK_PARTS.filter((part) => part !== 'MonitoringUsEast1'));
  expect(stackPartsIn('eu-west-1')).toEqual([...STACK_PARTS]);
});

it('passes CloudFormation’s schema validation with no finding', () => {
  const report = JSON.parse(fs.readFileSync(`${directory}/validation-report.json`, 'utf8')) as { pluginReports?: { violations?: unknown[] }[] };
  expect((report.pluginReports ?? []).flatMap((r) => r.violations ?? [])).toEqual([]);
});

it('has stacks that reference no other stack, so each team deploys its own alone', () => {
  for (const stack of allStacks()) {
    const json = JSON.stringify(Template.fromStack(stack).toJSON());
    expect(json).not.toContain('Fn::ImportValue');
    expect(stack.dependencies).toEqual([]);
  }
});

it('runs every Node Lambda function of every stack on Node 24, ours and those CDK adds', () => {
  const functions = allStacks().flatMap((stack) =>
    Object.entries(Template.fromStack(stack).findResources('AWS::Lambda::Function')).map(([id, fn]) => ({
      id: `${stack.stackName}/${id}`,
      runtime: String(fn.Properties.Runtime),
    })),
  );
  const node = functions.filter((fn) => fn.runtime.startsWith('nodejs'));
  expect(node.map((fn) => fn.id)).toContainEqual(expect.stringMatching(/^TrailSense-example-Uploads\/ObjectCreated/));
  expect(node.map((fn) => fn.id)).toContainEqual(expect.stringMatching(/^TrailSense-example-Uploads\/UploadsApiFunction/));
  expect(node.filter((fn) => fn.runtime !== 'nodejs24.x')).toEqual([]);
  // The one other: CDK's bucket-notifications handler, a Python function CDK owns.
  expect(functions.filter((fn) => !fn.runtime.startsWith('nodejs')).map((fn) => fn.id)).toEqual([expect.stringMatching(/\/BucketNotificationsHandler/)]);
});

it('grants nothing to a wildcard principal, in any stack', () => {
  for (const stack of allStacks()) {
    expect(allStatements(Template.fromStack(stack)).filter((s) => s.Effect === 'Allow' && isWildcardPrincipal(s.Principal))).toEqual([]);
  }
});

it('looks nothing up in an AWS account (no context lookups, synth works offline)', () => {
  const manifest = JSON.parse(fs.readFileSync(`${directory}/manifest.json`, 'utf8')) as { missing?: unknown[] };
  expect(manifest.missing ?? []).toEqual([]);
});

it('stops with what to do when the shell has not been built', () => {
  expect(() => buildApp({ app: noBundling(), shellRoutesFile: '/nonexistent/shell/dist/routes.json' })).toThrow(/Run `npm run build -w shell` first/);
});

it('stops with every problem of an unknown or wrong environment', () => {
  expect(() => buildApp({ app: trailSenseApp({ context: { env: 'nowhere' } }), shellRoutesFile: FIXTURE_ROUTES_FILE })).toThrow(SettingsError);
  expect(() => buildApp({ app: trailSenseApp({ context: { env: '../example' } }), shellRoutesFile: FIXTURE_ROUTES_FILE })).toThrow(/Not an environment name/);
});
