/**
 * cdk-nag's AwsSolutions pack over a construct tree (a stack variant a test builds besides the
 * example app, which app.test.ts checks whole at synth): every unacknowledged finding, a line each.
 */
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

export function nagFindings(scope: IConstruct): string[] {
  const { violations } = new AwsSolutionsChecks().validateScope(scope);
  const lines = violations.flatMap((v) => v.violatingResources.map((where) => `${v.severity} ${v.ruleName} at ${where.constructPath}: ${v.description}`));
  if (lines.length > 0)
    console.error(`cdk-nag AwsSolutions findings (fix each, or acknowledge a deliberate one where it is built, with its reason):\n${lines.join('\n')}`);
  return lines;
}
