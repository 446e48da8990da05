/**
 * The whole app of an environment (src/app.ts): eight stacks named `TrailSense-<env>-<Part>` in the
 * settings' account and region (the us-east-1 alarm topic in us-east-1), that reference no other
 * stack (each deploys alone), pass CloudFormation's resource-schema validation (strict: a schema
 * error fails synth) and cdk-nag's AwsSolutions pack with no unacknowledged finding (each
 * deliberate one is acknowledged, with its reason, where its resource is built: src/stacks/nag.ts),
 * and need nothing from an AWS account. Bundling is skipped here (uploads-stack.test.ts bundles for real).
 */
import fs from 'node:fs';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildApp, STACK_PARTS, stackName, stackPartsIn, trailSenseApp } from '../src/app';
import { SettingsError } from '../src/settings';
import { allStatements, FIXTURE_ROUTES_FILE, isWildcardPrincipal } from './support/example';
import { nagFindings } from './support/nag';

const noBundling = () => trailSenseApp({ context: { 'aws:cdk:bundling-stacks': [] } });

let built: ReturnType<typeof buildApp>;
let directory: string;
const allStacks = (): Stack[] => Object.values(built.stacks);

beforeAll(() => {
  const app = noBundling();
  built = buildApp({ app, shellRoutesFile: FIXTURE_ROUTES_FILE });
  // cdk-nag 3 is a validation plugin: synth runs its AwsSolutions pack over every stack of the app
  // and fails (ValidationFailed, listing each finding and where) on any it was not told of.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  directory = built.app.synth().directory;
});

const US_EAST_1_PARTS = new Set(['MonitoringUsEast1']);

it('builds the example environment by default, eight stacks named TrailSense-example-<Part>, in its account and region but the topic in us-east-1', () => {
  const stacks = allStacks();
  expect(built.parts).toEqual([...STACK_PARTS]);
  expect(stacks.map((stack) => stack.stackName).sort()).toEqual(STACK_PARTS.map((part) => `TrailSense-example-${part}`).sort());
  expect(STACK_PARTS.map((part) => stackName('production', part))).toContain('TrailSense-production-UploaderRemote');
  for (const stack of stacks) {
    // CloudFront's alarms notify a topic in us-east-1, where its metrics are.
    const region = US_EAST_1_PARTS.has(stack.stackName.replace('TrailSense-example-', '')) ? 'us-east-1' : 'us-east-2';
    expect([stack.stackName, stack.account, stack.region]).toEqual([stack.stackName, '123456789012', region]);
  }
  expect(Object.keys(built.buildTimes).sort()).toEqual([...STACK_PARTS].sort());
});

it('needs no second alarm topic when the environment is in us-east-1 already; no uploads edge stack at all (the firewall is on the API’s stage)', () => {
  expect(stackPartsIn('us-east-1')).toEqual(STACK_PARTS.filter((part) => part !== 'MonitoringUsEast1'));
  expect(stackPartsIn('eu-west-1')).toEqual([...STACK_PARTS]);
  expect(STACK_PARTS).toEqual(['Identity', 'Uploads', 'Analytics', 'Shell', 'AuthRemote', 'UploaderRemote', 'Monitoring', 'MonitoringUsEast1']);
  // No CloudFront distribution in front of the uploads API: the app's three and no other.
  const distributions = allStacks().flatMap((stack) =>
    Object.keys(Template.fromStack(stack).findResources('AWS::CloudFront::Distribution')).map(() => stack.stackName),
  );
  expect(distributions.sort()).toEqual(['TrailSense-example-AuthRemote', 'TrailSense-example-Shell', 'TrailSense-example-UploaderRemote']);
  // The one web ACL is the uploads API's, regional, in the Uploads stack.
  const webAcls = allStacks().flatMap((stack) =>
    Object.values(Template.fromStack(stack).findResources('AWS::WAFv2::WebACL')).map((acl) => [stack.stackName, acl.Properties.Scope]),
  );
  expect(webAcls).toEqual([['TrailSense-example-Uploads', 'REGIONAL']]);
});

it('passes CloudFormation’s schema validation and cdk-nag’s AwsSolutions pack with no finding', () => {
  // A plugin that finds nothing leaves no report; synth would have thrown on one that did.
  const report = JSON.parse(fs.readFileSync(`${directory}/validation-report.json`, 'utf8')) as { pluginReports?: { violations?: unknown[] }[] };
  expect((report.pluginReports ?? []).flatMap((r) => r.violations ?? [])).toEqual([]);
});

it('has no unacknowledged cdk-nag AwsSolutions finding, error or warning, in any stack', () => {
  expect(nagFindings(built.app)).toEqual([]);
  // And the pack does look: a topic without enforceSSL, as the alarm topic was, is a finding.
  const bare = new Stack(new App(), 'Bare');
  new Topic(bare, 'Topic');
  expect(new AwsSolutionsChecks().validateScope(bare).violations.map((v) => v.ruleName)).toContain('AwsSolutions-SNS3');
});

it('has stacks that reference no other stack, so each team deploys its own alone', () => {
  for (const stack of allStacks()) {
    const template = Template.fromStack(stack);
    expect(JSON.stringify(template.toJSON())).not.toContain('Fn::ImportValue');
    expect([stack.stackName, stack.dependencies]).toEqual([stack.stackName, []]);
    // No cross-region reference either (CDK's SSM-parameter export writer and reader).
    expect(Object.keys(template.findResources('Custom::CrossRegionExportWriter'))).toEqual([]);
    expect(Object.keys(template.findResources('Custom::CrossRegionExportReader'))).toEqual([]);
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
