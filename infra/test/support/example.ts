/**
 * What the stack tests build from: the committed example environment (infra/config/example.json
 * and config/production.example.json) and a fixture of the shell build's routes.json, so the tests
 * need no shell build.
 */
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { settingsFileFor } from '../../src/app';
import { loadShellRoutes } from '../../src/hosting/shell-routes';
import type { ShellRoutes } from '../../src/hosting/shell-routes';
import { loadEnvironment } from '../../src/environment';
import type { Environment } from '../../src/environment';

export const FIXTURE_ROUTES_FILE = path.join(__dirname, '..', 'fixtures', 'routes.json');

export function exampleEnvironment(): Environment {
  return loadEnvironment(settingsFileFor('example'));
}

export function fixtureRoutes(): ShellRoutes {
  return loadShellRoutes(FIXTURE_ROUTES_FILE);
}

/**
 * An app for one stack's assertions. CloudFormation's schema validation (seconds per synth) runs
 * once, over every stack, in app.test.ts.
 */
export function testApp(): App {
  return new App({ builtinCloudFormationValidation: false });
}

export const exampleEnv = (environment: Environment) => ({ account: environment.settings.account, region: environment.settings.region });

export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  Resource?: unknown;
  Principal?: unknown;
  Condition?: unknown;
  Sid?: string;
}

const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** Every statement of every IAM policy, role trust policy, bucket policy and queue policy in a template. */
export function allStatements(template: Template): Statement[] {
  const statements: Statement[] = [];
  for (const resource of Object.values(template.toJSON().Resources as Record<string, { Type: string; Properties?: Record<string, unknown> }>)) {
    const props = resource.Properties ?? {};
    for (const key of ['PolicyDocument', 'AssumeRolePolicyDocument']) {
      const doc = props[key] as { Statement?: Statement[] } | undefined;
      if (doc?.Statement) statements.push(...doc.Statement);
    }
    if (resource.Type === 'AWS::IAM::Role') {
      for (const policy of list(props.Policies as { PolicyDocument: { Statement: Statement[] } }[] | undefined))
        statements.push(...policy.PolicyDocument.Statement);
    }
  }
  return statements;
}

export const actionsOf = (statement: Statement): string[] => list(statement.Action);

/** A principal that is anyone: `*` or `{ AWS: '*' }`. */
export function isWildcardPrincipal(principal: unknown): boolean {
  if (principal === '*') return true;
  if (typeof principal === 'object' && principal !== null) {
    return Object.values(principal as Record<string, unknown>).some((value) => list(value).includes('*'));
  }
  return false;
}
