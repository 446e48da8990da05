/**
 * Acknowledging a cdk-nag finding (infra/test/app.test.ts runs the AwsSolutions pack over every
 * stack) where the resource is built, with the reason it is deliberate. cdk-nag 3 reads CDK's own
 * acknowledgements (`Validations.of(construct).acknowledge`), so the stacks need nothing from
 * cdk-nag itself (a devDependency). An acknowledgement covers the construct and everything under
 * it, for exactly the finding id given: `AwsSolutions-IAM5[Resource::…]` names one wildcard.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** Acknowledges each finding id on `construct` with its reason. */
export function acknowledge(construct: IConstruct, reasons: Readonly<Record<string, string>>): void {
  for (const [id, reason] of Object.entries(reasons)) Validations.of(construct).acknowledge({ id, reason });
}

/** The managed policy every Lambda function's role gets from CDK (CloudWatch Logs writes only). */
export const BASIC_EXECUTION_ROLE_FINDING = 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]';

/** Acknowledges BASIC_EXECUTION_ROLE_FINDING on a function (its role) that `owner` describes. */
export function acknowledgeBasicExecutionRole(fn: IConstruct, owner: string): void {
  acknowledge(fn, {
    [BASIC_EXECUTION_ROLE_FINDING]: `${owner}: AWSLambdaBasicExecutionRole grants only logs:CreateLogGroup, logs:CreateLogStream and logs:PutLogEvents, which every function needs to log; an own policy would say the same.`,
  });
}
