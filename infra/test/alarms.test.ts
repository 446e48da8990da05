/**
 * The environment's alarms and where they go (src/stacks/alarms.ts, src/stacks/monitoring-stack.ts;
 * docs/operations.md#alarms): each alarm of the Uploads and Analytics stacks — name, metric,
 * threshold, period, evaluation, missing data, the alarm topic on ALARM and on OK — as synthesized;
 * the Monitoring stack's topic with one e-mail subscription per address of the settings, and its
 * dashboard (every alarm, the upload counts per hour). The distributions' alarms (us-east-1):
 * hosting-stack.test.ts. Bundling is skipped (uploads-stack.test.ts bundles for real).
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ALARM_SPECS, REGIONAL_ALARM_IDS } from '../src/stacks/alarms';
import { AnalyticsStack } from '../src/stacks/analytics-stack';
import { MonitoringStack } from '../src/stacks/monitoring-stack';
import { UploadsStack, uploadsStackProps } from '../src/stacks/uploads-stack';
import { exampleEnv, exampleEnvironment } from './support/example';

const environment = exampleEnvironment();
const { settings } = environment;
const EMAILS = ['ops@trailsense.example', 'on-call@ranch-ops.example'];

let uploads: Template;
let analytics: Template;
let monitoring: Template;
let topicOnly: Template;

beforeAll(() => {
  const app = new App({ builtinCloudFormationValidation: false, context: { 'aws:cdk:bundling-stacks': [] } });
  const env = exampleEnv(environment);
  const stacks = {
    uploads: new UploadsStack(app, 'Uploads', { env, ...uploadsStackProps(settings, environment.runtimeConfig) }),
    analytics: new AnalyticsStack(app, 'Analytics', { env, environmentName: settings.name, streamName: settings.analyticsStreamName }),
    monitoring: new MonitoringStack(app, 'Monitoring', { env, environmentName: settings.name, emails: EMAILS, dashboard: true }),
    topicOnly: new MonitoringStack(app, 'MonitoringUsEast1', {
      env: { ...env, region: 'us-east-1' },
      environmentName: settings.name,
      emails: EMAILS,
      dashboard: false,
    }),
  };
  uploads = Template.fromStack(stacks.uploads);
  analytics = Template.fromStack(stacks.analytics);
  monitoring = Template.fromStack(stacks.monitoring);
  topicOnly = Template.fromStack(stacks.topicOnly);
});

const topicArn = (region: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:sns:${region}:123456789012:trailsense-example-alarms`]] });
const notifies = (region = 'us-east-2') => ({ AlarmActions: [topicArn(region)], OKActions: [topicArn(region)] });

function alarm(template: Template, id: string): Record<string, unknown> {
  const found = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter((a) => a.Properties.AlarmName === `TrailSense-example-${id}`);
  expect(found).toHaveLength(1);
  return found[0]!.Properties as Record<string, unknown>;
}

const logicalId = (template: Template, type: string) => {
  const ids = Object.keys(template.findResources(type));
  expect(ids).toHaveLength(1);
  return ids[0]!;
};

/** What every alarm has: its spec's threshold, comparison, evaluation and missing-data rule, the docs, the topic both ways. */
function common(id: keyof typeof ALARM_SPECS) {
  const spec = ALARM_SPECS[id];
  return {
    AlarmName: `TrailSense-example-${id}`,
    AlarmDescription: expect.stringContaining('docs/operations.md#alarms'),
    Threshold: spec.threshold,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    EvaluationPeriods: spec.evaluationPeriods,
    DatapointsToAlarm: spec.datapointsToAlarm,
    TreatMissingData: 'notBreaching',
    ...notifies(),
  };
}

describe('the Uploads stack’s alarms', () => {
  it('has exactly its five alarms, and the Analytics stack its one', () => {
    const names = (template: Template) => Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties.AlarmName as string);
    expect(names(uploads).sort()).toEqual(
      ['ObjectCreatedErrors', 'ObjectCreatedFailures', 'ObjectCreatedThrottles', 'UploadsApi5xxRate', 'UploadsApiLatencyP99'].map(
        (id) => `TrailSense-example-${id}`,
      ),
    );
    expect(names(analytics)).toEqual(['TrailSense-example-AnalyticsDeliveryStalled']);
    expect([...REGIONAL_ALARM_IDS].sort()).toEqual([...names(uploads), ...names(analytics)].map((n) => n.replace('TrailSense-example-', '')).sort());
  });

  it('ObjectCreatedFailures: any message in the failure queue, at once', () => {
    expect(alarm(uploads, 'ObjectCreatedFailures')).toEqual({
      ...common('ObjectCreatedFailures'),
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(uploads, 'AWS::SQS::Queue'), 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 1,
    });
  });

  it('ObjectCreatedErrors and ObjectCreatedThrottles: the object-created function’s own metrics', () => {
    const fn = { Name: 'FunctionName', Value: { Ref: expect.stringMatching(/^ObjectCreated[0-9A-F]{8}$/) } };
    expect(alarm(uploads, 'ObjectCreatedErrors')).toEqual({
      ...common('ObjectCreatedErrors'),
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [fn],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 5,
      EvaluationPeriods: 1,
    });
    expect(alarm(uploads, 'ObjectCreatedThrottles')).toEqual({
      ...common('ObjectCreatedThrottles'),
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
      Dimensions: [fn],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
  });

  /** A REST API's metrics, by the API's name and the stage (an HTTP API's were by ApiId). */
  const stageDimensions = () => [
    { Name: 'ApiName', Value: 'Uploads-uploads-api' },
    { Name: 'Stage', Value: { Ref: logicalId(uploads, 'AWS::ApiGateway::Stage') } },
  ];

  it('UploadsApi5xxRate: 5XXError as a % of the requests of the stage, two periods running', () => {
    const api = stageDimensions();
    expect(alarm(uploads, 'UploadsApi5xxRate')).toEqual({
      ...common('UploadsApi5xxRate'),
      Threshold: 5,
      EvaluationPeriods: 2,
      Metrics: [
        { Id: 'expr_1', Expression: '100 * part / whole', Label: '5xx, % of requests', ReturnData: true },
        {
          Id: 'part',
          MetricStat: { Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5XXError', Dimensions: api }, Period: 300, Stat: 'Sum' },
          ReturnData: false,
        },
        {
          Id: 'whole',
          MetricStat: { Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Count', Dimensions: api }, Period: 300, Stat: 'Sum' },
          ReturnData: false,
        },
      ],
    });
  });

  it('UploadsApiLatencyP99: p99 of the stage’s latency, 15 minutes running', () => {
    expect(alarm(uploads, 'UploadsApiLatencyP99')).toEqual({
      ...common('UploadsApiLatencyP99'),
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      Dimensions: stageDimensions(),
      ExtendedStatistic: 'p99',
      Period: 300,
      Threshold: 3000,
      EvaluationPeriods: 3,
    });
  });

  it('AnalyticsDeliveryStalled: the oldest event still undelivered to the bucket', () => {
    expect(alarm(analytics, 'AnalyticsDeliveryStalled')).toEqual({
      ...common('AnalyticsDeliveryStalled'),
      Namespace: 'AWS/Firehose',
      MetricName: 'DeliveryToS3.DataFreshness',
      Dimensions: [{ Name: 'DeliveryStreamName', Value: { Ref: logicalId(analytics, 'AWS::KinesisFirehose::DeliveryStream') } }],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 900,
    });
  });
});

describe('the Monitoring stacks', () => {
  it.each([
    ['us-east-2', () => monitoring],
    ['us-east-1', () => topicOnly],
  ])('one alarm topic in %s, named for the environment, an e-mail subscription per address', (_region, template) => {
    template().resourceCountIs('AWS::SNS::Topic', 1);
    const topicId = logicalId(template(), 'AWS::SNS::Topic');
    template().hasResourceProperties('AWS::SNS::Topic', { TopicName: 'trailsense-example-alarms', DisplayName: 'TrailSense example alarms' });
    const subscriptions = Object.values(template().findResources('AWS::SNS::Subscription')).map((s) => s.Properties);
    expect(subscriptions).toEqual(EMAILS.map((Endpoint) => ({ Protocol: 'email', Endpoint, TopicArn: { Ref: topicId } })));
    expect(template().findOutputs('AlarmTopicArn').AlarmTopicArn?.Value).toEqual({ Ref: topicId });
  });

  it.each([
    ['us-east-2', () => monitoring],
    ['us-east-1', () => topicOnly],
  ])('the topic in %s takes TLS publishes only, and still lets the environment’s alarms publish', (region, template) => {
    const topicId = logicalId(template(), 'AWS::SNS::Topic');
    const policies = Object.values(template().findResources('AWS::SNS::TopicPolicy')).map((p) => p.Properties);
    expect(policies).toEqual([
      {
        Topics: [{ Ref: topicId }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Sid: 'AllowPublishThroughSSLOnly',
              Effect: 'Deny',
              Principal: '*',
              Action: 'sns:Publish',
              Resource: { Ref: topicId },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            },
            // A topic policy replaces SNS's default one, which is what let the account's alarms publish.
            {
              Sid: 'EnvironmentAlarmsPublish',
              Effect: 'Allow',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: 'sns:Publish',
              Resource: { Ref: topicId },
              Condition: {
                StringEquals: { 'aws:SourceAccount': '123456789012' },
                ArnLike: {
                  'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:cloudwatch:${region}:123456789012:alarm:TrailSense-example-*`]] },
                },
              },
            },
          ],
        },
      },
    ]);
  });

  it('the us-east-1 stack has the topic alone, no dashboard', () => {
    topicOnly.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
  });

  it('one dashboard: every alarm (the distributions’ from us-east-1) and the photos counted and refused per hour', () => {
    monitoring.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const dashboard = Object.values(monitoring.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties as { DashboardName: string; DashboardBody: unknown };
    expect(dashboard.DashboardName).toBe('TrailSense-example');
    const body = JSON.parse(
      (function joined(value: unknown): string {
        if (typeof value === 'string') return value;
        const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
        if (join) return join[1].map(joined).join(join[0]);
        return `\${${Object.values(value as Record<string, string>)[0]}}`;
      })(dashboard.DashboardBody),
    ) as { widgets: { type: string; properties: Record<string, unknown> }[] };
    const alarmArn = (region: string, id: string) => `arn:\${AWS::Partition}:cloudwatch:${region}:123456789012:alarm:TrailSense-example-${id}`;
    const everyAlarm = [
      ...REGIONAL_ALARM_IDS.map((id) => alarmArn('us-east-2', id)),
      ...['Shell', 'AuthRemote', 'UploaderRemote'].map((part) => alarmArn('us-east-1', `${part}5xxRate`)),
    ];
    const status = body.widgets.find((w) => w.type === 'alarm');
    expect(status?.properties.alarms).toEqual(everyAlarm);
    const graphs = body.widgets.filter((w) => w.type === 'metric' && (w.properties.annotations as { alarms?: string[] } | undefined)?.alarms);
    expect(graphs.map((w) => [(w.properties.annotations as { alarms: string[] }).alarms[0], w.properties.region])).toEqual(
      everyAlarm.map((arn) => [arn, /:cloudwatch:([^:]+):/.exec(arn)?.[1]]),
    );
    const counts = body.widgets.find((w) => w.type === 'metric' && String(w.properties.title).startsWith('Photos per hour'));
    expect(counts?.properties.metrics).toEqual([
      ['TrailSense', 'ObjectsCounted', 'Environment', 'example', { label: 'counted', period: 3600, stat: 'Sum' }],
      ['TrailSense', 'ObjectsRefused', 'Environment', 'example', { label: 'refused', period: 3600, stat: 'Sum' }],
    ]);
  });
});
