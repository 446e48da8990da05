/**
 * Monitoring: the environment's alarm topic `trailsense-<env>-alarms`, whose e-mail subscriptions
 * are the settings' `alarms.emails`, and — in the settings' region — the dashboard `TrailSense-<env>`
 * (docs/operations.md#alarms).
 *
 * The topic is a stack of its own, not part of the stacks whose alarms notify it: those know it by
 * its name (src/stacks/alarms.ts), so none of them references this stack, and removing one of them
 * leaves the recipients' confirmed subscriptions alone. A second one in us-east-1, with the same
 * name and recipients, takes the CloudFront distributions' alarms (CloudWatch alarms notify topics
 * of their own region only), unless the settings' region is us-east-1 already.
 *
 * The dashboard shows each alarm by its ARN (its metric against its threshold; CloudWatch draws it
 * from the alarm, so the dashboard needs no function, queue, API or distribution id) and the photos
 * the object-created function counted and refused per hour (src/object-created/metrics.ts).
 */
import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import { Alarm, AlarmStatusWidget, AlarmWidget, Dashboard, GraphWidget, Metric, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { UPLOAD_METRICS } from '../object-created/metrics';
import { ALARM_SPECS, alarmArn, alarmTopicName, CLOUDFRONT_METRICS_REGION, distributionAlarmId, HOSTED_APPS, REGIONAL_ALARM_IDS } from './alarms';
import type { HostedAppPart } from './alarms';

export const MONITORING_OUTPUTS = { alarmTopicArn: 'AlarmTopicArn', dashboardName: 'DashboardName' } as const;

/** The dashboard's name. */
export function dashboardName(environmentName: string): string {
  return `TrailSense-${environmentName}`;
}

export interface MonitoringStackProps extends StackProps {
  /** The settings' `name`. */
  environmentName: string;
  /** The settings' `alarms.emails`. */
  emails: readonly string[];
  /** With the dashboard (the settings' region's stack); without, the topic alone (us-east-1's, for CloudFront's alarms). */
  dashboard: boolean;
}

export class MonitoringStack extends Stack {
  readonly topic: Topic;
  readonly dashboard?: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringStackProps) {
    super(scope, id, props);
    const { environmentName } = props;

    // Not encrypted at rest: CloudWatch cannot publish to a topic under SNS's AWS-managed key, and
    // an alarm's message holds names and figures, nothing of a member. TLS-only publishes
    // (enforceSSL: a topic policy denying aws:SecureTransport false; CloudWatch publishes over TLS).
    this.topic = new Topic(this, 'AlarmTopic', {
      topicName: alarmTopicName(environmentName),
      displayName: `TrailSense ${environmentName} alarms`,
      enforceSSL: true,
    });
    // A topic policy replaces SNS's default one, which let the account's CloudWatch alarms publish:
    // without this statement enforceSSL would silence every alarm ("no resource-based policy allows").
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'EnvironmentAlarmsPublish',
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': this.account },
          ArnLike: { 'aws:SourceArn': alarmArn(this, environmentName, '*') },
        },
      }),
    );
    for (const email of props.emails) this.topic.addSubscription(new EmailSubscription(email));
    new CfnOutput(this, MONITORING_OUTPUTS.alarmTopicArn, {
      value: this.topic.topicArn,
      description: 'Each address confirms its subscription once (an e-mail from AWS)',
    });

    if (!props.dashboard) return;

    const regional = REGIONAL_ALARM_IDS.map((alarmId) => ({
      alarm: Alarm.fromAlarmArn(this, `${alarmId}Alarm`, alarmArn(this, environmentName, alarmId)),
      title: ALARM_SPECS[alarmId].summary,
      region: this.region,
    }));
    const distributions = (Object.keys(HOSTED_APPS) as HostedAppPart[]).map((part) => {
      const alarmId = distributionAlarmId(part);
      return {
        alarm: Alarm.fromAlarmArn(this, `${alarmId}Alarm`, alarmArn(this, environmentName, alarmId, CLOUDFRONT_METRICS_REGION)),
        title: `${HOSTED_APPS[part]}: ${ALARM_SPECS.Distribution5xxRate.summary}`,
        region: CLOUDFRONT_METRICS_REGION,
      };
    });
    const alarms = [...regional, ...distributions];

    const perHour = (metricName: string, label: string) =>
      new Metric({
        namespace: UPLOAD_METRICS.namespace,
        metricName,
        dimensionsMap: { [UPLOAD_METRICS.dimension]: environmentName },
        statistic: 'Sum',
        period: Duration.hours(1),
        label,
      });

    const widgets: IWidget[][] = [
      [
        new TextWidget({
          markdown: `# TrailSense ${environmentName}\nEvery alarm of the environment (e-mailed to the alarm topic's subscribers), the photos counted and refused per hour, and each alarm's metric against its threshold. What each alarm means and what to do: docs/operations.md, "Alarms", in the repository.`,
          width: 24,
          height: 2,
        }),
      ],
      [new AlarmStatusWidget({ title: 'Alarms', alarms: alarms.map((a) => a.alarm), width: 24, height: 3 })],
      [
        new GraphWidget({
          title: 'Photos per hour: counted in the ledger, refused and removed',
          left: [perHour(UPLOAD_METRICS.counted, 'counted'), perHour(UPLOAD_METRICS.refused, 'refused')],
          leftYAxis: { min: 0, label: 'photos', showUnits: false },
          width: 24,
          height: 6,
        }),
      ],
      // Three graphs a row.
      ...alarms.reduce<IWidget[][]>((rows, { alarm, title, region }, index) => {
        if (index % 3 === 0) rows.push([]);
        rows[rows.length - 1]!.push(new AlarmWidget({ alarm, title, region, width: 8, height: 6, leftYAxis: { min: 0 } }));
        return rows;
      }, []),
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: dashboardName(environmentName),
      defaultInterval: Duration.days(7),
      widgets,
    });
    new CfnOutput(this, MONITORING_OUTPUTS.dashboardName, { value: dashboardName(environmentName) });
  }
}
