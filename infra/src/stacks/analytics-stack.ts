/**
 * Analytics: the Firehose stream the site's two events go to (docs/product.md#analytics-events;
 * the `firehose` adapter of docs/architecture.md#analytics-port), delivered to a private,
 * encrypted bucket. The stream's name comes from the settings, so the Identity stack can allow
 * PutRecord(Batch) on it (to the authenticated role only) without a reference to this stack.
 * Alarm (src/stacks/alarms.ts): events left undelivered to the bucket.
 */
import { CfnOutput, Duration, RemovalPolicy, Size, Stack } from 'aws-cdk-lib';
import type { CfnElement, StackProps } from 'aws-cdk-lib';
import { Compression, DeliveryStream, S3Bucket, StreamEncryption } from 'aws-cdk-lib/aws-kinesisfirehose';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { EnvironmentAlarms } from './alarms';
import { acknowledge } from './nag';

export interface AnalyticsStackProps extends StackProps {
  /** The settings' `name`: the alarm's name and topic. */
  environmentName: string;
  /** The settings' `analyticsStreamName` (the runtime config's `analytics.streamName`). */
  streamName: string;
}

export class AnalyticsStack extends Stack {
  readonly stream: DeliveryStream;
  readonly eventsBucket: Bucket;

  constructor(scope: Construct, id: string, props: AnalyticsStackProps) {
    super(scope, id, props);
    this.eventsBucket = new Bucket(this, 'EventsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stream = new DeliveryStream(this, 'Events', {
      deliveryStreamName: props.streamName,
      // Direct PUT from the browser (Amplify's Firehose provider), encrypted at rest.
      encryption: StreamEncryption.awsOwnedKey(),
      destination: new S3Bucket(this.eventsBucket, {
        dataOutputPrefix: 'events/!{timestamp:yyyy/MM/dd}/',
        errorOutputPrefix: 'errors/!{firehose:error-output-type}/!{timestamp:yyyy/MM/dd}/',
        bufferingInterval: Duration.minutes(5),
        bufferingSize: Size.mebibytes(5),
        compression: Compression.GZIP,
      }),
    });
    acknowledge(this.eventsBucket, {
      'AwsSolutions-S1':
        "No server access logs: only the stream's role writes here and the team reads the events; a log bucket would record little but the stream's own puts.",
    });
    // CDK's grant to the stream's role on its destination bucket (BucketBase.grantReadWrite).
    const destination =
      "Deliberate: CDK's grant to Firehose's role for its destination bucket, this bucket alone (object writes, multipart aborts, the reads Firehose's delivery checks make).";
    acknowledge(this.stream, {
      'AwsSolutions-IAM5[Action::s3:GetObject*]': destination,
      'AwsSolutions-IAM5[Action::s3:GetBucket*]': destination,
      'AwsSolutions-IAM5[Action::s3:List*]': destination,
      'AwsSolutions-IAM5[Action::s3:DeleteObject*]': destination,
      'AwsSolutions-IAM5[Action::s3:Abort*]': destination,
      [`AwsSolutions-IAM5[Resource::<${this.getLogicalId(this.eventsBucket.node.defaultChild as CfnElement)}.Arn>/*]`]: destination,
    });
    new EnvironmentAlarms(this, props.environmentName).add('AnalyticsDeliveryStalled', (options) => this.stream.metric('DeliveryToS3.DataFreshness', options));
    new CfnOutput(this, 'DeliveryStreamName', { value: this.stream.deliveryStreamName, description: 'analytics.streamName' });
    new CfnOutput(this, 'EventsBucketName', { value: this.eventsBucket.bucketName });
  }
}
