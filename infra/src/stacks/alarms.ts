/**
 * The environment's alarms (docs/operations.md#alarms): each one's statistic, period, threshold,
 * comparison, evaluation and missing-data rule, here in one table; the stack that owns the
 * resource makes the alarm. Every alarm is named `TrailSense-<env>-<id>` and notifies (on ALARM and
 * on OK) the environment's alarm topic `trailsense-<env>-alarms`, which the Monitoring stack
 * creates (src/stacks/monitoring-stack.ts). The stacks know the topic by its ARN, built from that
 * name, and the dashboard knows the alarms by theirs: no stack references another, each deploys
 * alone and in any order.
 *
 * CloudFront publishes its metrics in us-east-1 only, a CloudWatch alarm watches metrics of its own
 * region only, and it notifies SNS topics of its own region only. So a distribution's alarm lives in
 * us-east-1, made by its hosting stack through a custom resource (`distributionAlarm`: the stack
 * knows the distribution's id, no other stack could without a reference), and notifies the
 * us-east-1 topic of the same name (the MonitoringUsEast1 stack's, unless the settings' region is
 * us-east-1 itself).
 */
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IDistribution } from 'aws-cdk-lib/aws-cloudfront';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IMetric, MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { acknowledgeBasicExecutionRole } from './nag';
import { FUNCTION_LOG_RETENTION } from './node-function';

/** Where CloudFront's metrics are, hence its alarms and the topic they notify. */
export const CLOUDFRONT_METRICS_REGION = 'us-east-1';

/** One alarm's rule; why each number is what it is: docs/operations.md#alarms. */
export interface AlarmSpec {
  /** What the alarm says is wrong: its description (in the e-mail) and its dashboard title. */
  summary: string;
  /** The statistic of the metric (of each metric, for a rate). */
  statistic: string;
  period: Duration;
  threshold: number;
  comparison: ComparisonOperator;
  evaluationPeriods: number;
  datapointsToAlarm: number;
  treatMissingData: TreatMissingData;
}

const AT_LEAST = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
const FIVE_MINUTES = Duration.minutes(5);
/** No data is no traffic (or an idle queue, or nothing buffered): nothing is failing. */
const QUIET_IS_OK = TreatMissingData.NOT_BREACHING;

export const ALARM_SPECS = {
  ObjectCreatedFailures: {
    summary: "Object-created events that failed after Lambda's retries wait in its failure queue (SQS ApproximateNumberOfMessagesVisible)",
    statistic: 'Maximum',
    period: FIVE_MINUTES,
    threshold: 1,
    comparison: AT_LEAST,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    treatMissingData: QUIET_IS_OK,
  },
  ObjectCreatedErrors: {
    summary: 'The object-created function fails (Lambda Errors)',
    statistic: 'Sum',
    period: FIVE_MINUTES,
    threshold: 5,
    comparison: AT_LEAST,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    treatMissingData: QUIET_IS_OK,
  },
  ObjectCreatedThrottles: {
    summary: 'The object-created function is throttled (Lambda Throttles)',
    statistic: 'Sum',
    period: FIVE_MINUTES,
    threshold: 1,
    comparison: AT_LEAST,
    evaluationPeriods: 3,
    datapointsToAlarm: 3,
    treatMissingData: QUIET_IS_OK,
  },
  UploadsApi5xxRate: {
    summary: 'The uploads API answers 5xx to a share of its requests (API Gateway 5XXError / Count of its stage, in %)',
    statistic: 'Sum',
    period: FIVE_MINUTES,
    threshold: 5,
    comparison: AT_LEAST,
    evaluationPeriods: 2,
    datapointsToAlarm: 2,
    treatMissingData: QUIET_IS_OK,
  },
  UploadsApiLatencyP99: {
    summary: 'The uploads API is slow (API Gateway Latency p99 of its stage, ms)',
    statistic: 'p99',
    period: FIVE_MINUTES,
    threshold: 3000,
    comparison: AT_LEAST,
    evaluationPeriods: 3,
    datapointsToAlarm: 3,
    treatMissingData: QUIET_IS_OK,
  },
  AnalyticsDeliveryStalled: {
    summary: 'Analytics events wait in Firehose undelivered to their bucket (Firehose DeliveryToS3.DataFreshness, s)',
    statistic: 'Maximum',
    period: FIVE_MINUTES,
    threshold: 900,
    comparison: AT_LEAST,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    treatMissingData: QUIET_IS_OK,
  },
  Distribution5xxRate: {
    summary: "The app's CloudFront distribution answers 5xx to a share of its requests (CloudFront 5xxErrorRate, %)",
    statistic: 'Average',
    period: FIVE_MINUTES,
    threshold: 5,
    comparison: AT_LEAST,
    evaluationPeriods: 2,
    datapointsToAlarm: 2,
    treatMissingData: QUIET_IS_OK,
  },
} as const satisfies Record<string, AlarmSpec>;

/** The alarms made in the settings' region (the Uploads and Analytics stacks'), by id. */
export type RegionalAlarmId = Exclude<keyof typeof ALARM_SPECS, 'Distribution5xxRate'>;
export const REGIONAL_ALARM_IDS = Object.keys(ALARM_SPECS).filter((id) => id !== 'Distribution5xxRate') as RegionalAlarmId[];

/** The apps CloudFront serves, by stack part; each distribution's alarm is `<part>5xxRate`. */
export const HOSTED_APPS = { Shell: 'shell', AuthRemote: 'auth-remote', UploaderRemote: 'uploader-remote' } as const;
export type HostedAppPart = keyof typeof HOSTED_APPS;
export const distributionAlarmId = (part: HostedAppPart): string => `${part}5xxRate`;

/** The environment's alarm topic (the same name in each region that has one). */
export function alarmTopicName(environmentName: string): string {
  return `trailsense-${environmentName}-alarms`;
}

export function alarmName(environmentName: string, id: string): string {
  return `TrailSense-${environmentName}-${id}`;
}

/** The alarm topic's ARN in the scope's account, in its region or another. */
export function alarmTopicArn(scope: Construct, environmentName: string, region?: string): string {
  return Stack.of(scope).formatArn({ service: 'sns', region, resource: alarmTopicName(environmentName) });
}

/** An alarm's ARN in the scope's account, in its region or another. */
export function alarmArn(scope: Construct, environmentName: string, id: string, region?: string): string {
  return Stack.of(scope).formatArn({
    service: 'cloudwatch',
    region,
    resource: 'alarm',
    resourceName: alarmName(environmentName, id),
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/** The alarms of one stack in the settings' region, all notifying the environment's topic. */
export class EnvironmentAlarms {
  private topic?: ITopic;

  constructor(
    private readonly scope: Construct,
    readonly environmentName: string,
  ) {}

  /** Makes the alarm `id` on the metric `metric(spec's statistic and period)`. */
  add(id: RegionalAlarmId, metric: (options: MetricOptions) => IMetric): Alarm {
    const spec: AlarmSpec = ALARM_SPECS[id];
    this.topic ??= Topic.fromTopicArn(this.scope, 'AlarmTopic', alarmTopicArn(this.scope, this.environmentName));
    const alarm = new Alarm(this.scope, `${id}Alarm`, {
      alarmName: alarmName(this.environmentName, id),
      alarmDescription: `${spec.summary}. Thresholds and what to do: docs/operations.md#alarms.`,
      metric: metric({ statistic: spec.statistic, period: spec.period }),
      threshold: spec.threshold,
      comparisonOperator: spec.comparison,
      evaluationPeriods: spec.evaluationPeriods,
      datapointsToAlarm: spec.datapointsToAlarm,
      treatMissingData: spec.treatMissingData,
    });
    const action = new SnsAction(this.topic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    return alarm;
  }
}

/** `100 × part / whole` over the same period: a share of requests, in %. No requests, no data point. */
export function percentOf(part: IMetric, whole: IMetric, period: Duration, label: string): MathExpression {
  return new MathExpression({ expression: '100 * part / whole', usingMetrics: { part, whole }, period, label });
}

/**
 * A distribution's 5xx-rate alarm, in us-east-1 (see the file's comment), made and removed by a
 * custom resource of the hosting stack: PutMetricAlarm on create and update (so a replaced
 * distribution's new id reaches the alarm), DeleteAlarms on delete. Its function may do exactly
 * that to this one alarm.
 */
export function distributionAlarm(scope: Construct, environmentName: string, part: HostedAppPart, distribution: IDistribution): AwsCustomResource {
  const id = distributionAlarmId(part);
  const spec: AlarmSpec = ALARM_SPECS.Distribution5xxRate;
  const name = alarmName(environmentName, id);
  const topicArn = alarmTopicArn(scope, environmentName, CLOUDFRONT_METRICS_REGION);
  const resource = new AwsCustomResource(scope, `${id}Alarm`, {
    resourceType: 'Custom::CloudFrontAlarm',
    onUpdate: {
      service: 'CloudWatch',
      action: 'PutMetricAlarm',
      region: CLOUDFRONT_METRICS_REGION,
      parameters: {
        AlarmName: name,
        AlarmDescription: `${spec.summary}: ${HOSTED_APPS[part]}. Thresholds and what to do: docs/operations.md#alarms.`,
        ActionsEnabled: true,
        AlarmActions: [topicArn],
        OKActions: [topicArn],
        Namespace: 'AWS/CloudFront',
        MetricName: '5xxErrorRate',
        // CloudFront's metrics carry Region=Global besides the distribution.
        Dimensions: [
          { Name: 'DistributionId', Value: distribution.distributionId },
          { Name: 'Region', Value: 'Global' },
        ],
        Statistic: spec.statistic,
        Period: spec.period.toSeconds(),
        Threshold: spec.threshold,
        ComparisonOperator: spec.comparison,
        EvaluationPeriods: spec.evaluationPeriods,
        DatapointsToAlarm: spec.datapointsToAlarm,
        TreatMissingData: spec.treatMissingData,
      },
      physicalResourceId: PhysicalResourceId.of(name),
    },
    onDelete: { service: 'CloudWatch', action: 'DeleteAlarms', region: CLOUDFRONT_METRICS_REGION, parameters: { AlarmNames: [name] } },
    policy: AwsCustomResourcePolicy.fromStatements([
      new PolicyStatement({
        actions: ['cloudwatch:PutMetricAlarm', 'cloudwatch:DeleteAlarms'],
        resources: [alarmArn(scope, environmentName, id, CLOUDFRONT_METRICS_REGION)],
      }),
    ]),
    // The runtime's SDK (no npm install at deploy time); its logs kept like the functions'.
    installLatestAwsSdk: false,
    logGroup: new LogGroup(scope, `${id}AlarmLogs`, { retention: FUNCTION_LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY }),
  });
  // The custom resources' one function, a singleton of the stack.
  const provider = Stack.of(scope).node.tryFindChild(`AWS${AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`);
  if (provider) acknowledgeBasicExecutionRole(provider, "CDK's AwsCustomResource function");
  return resource;
}
