/**
 * The Analytics stack (src/stacks/analytics-stack.ts): the Firehose stream the runtime config
 * names, taking direct PUTs, encrypted, delivering to a private encrypted bucket. PutRecord(Batch)
 * is granted to the authenticated role alone (identity-stack.test.ts); nothing here grants it.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AnalyticsStack } from '../src/stacks/analytics-stack';
import { actionsOf, allStatements, exampleEnv, exampleEnvironment, isWildcardPrincipal, testApp } from './support/example';

const environment = exampleEnvironment();
let template: Template;

beforeAll(() => {
  template = Template.fromStack(
    new AnalyticsStack(testApp(), 'Analytics', {
      env: exampleEnv(environment),
      environmentName: environment.settings.name,
      streamName: environment.settings.analyticsStreamName,
    }),
  );
});

it("is one direct-PUT stream named as the runtime config's analytics.streamName, encrypted", () => {
  const { analytics } = environment.runtimeConfig;
  expect(analytics.provider === 'firehose' && analytics.streamName).toBe(environment.settings.analyticsStreamName);
  template.resourceCountIs('AWS::KinesisFirehose::DeliveryStream', 1);
  template.hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', {
    DeliveryStreamName: 'trailsense-example-events',
    DeliveryStreamType: 'DirectPut',
    DeliveryStreamEncryptionConfigurationInput: { KeyType: 'AWS_OWNED_CMK' },
    ExtendedS3DestinationConfiguration: Match.objectLike({ CompressionFormat: 'GZIP', BufferingHints: { IntervalInSeconds: 300, SizeInMBs: 5 } }),
  });
});

it('delivers to a private, encrypted, TLS-only bucket', () => {
  template.hasResource('AWS::S3::Bucket', {
    DeletionPolicy: 'Retain',
    Properties: Match.objectLike({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    }),
  });
  template.hasResourceProperties('AWS::S3::BucketPolicy', {
    PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
  });
});

it('lets nobody put records here (that is the Identity stack’s grant to the authenticated role), and no wildcard principal', () => {
  const statements = allStatements(template);
  expect(statements.flatMap(actionsOf).filter((action) => action.startsWith('firehose:Put'))).toEqual([]);
  expect(statements.filter((s) => s.Effect === 'Allow' && isWildcardPrincipal(s.Principal))).toEqual([]);
});
