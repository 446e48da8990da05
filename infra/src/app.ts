/**
 * The CDK app of one environment: every stack TrailSense runs on AWS, named
 * `TrailSense-<env>-<Part>` (infra/README.md). Nothing here looks anything up in an AWS account,
 * so synth works offline, without credentials.
 */
import path from 'node:path';
import { App, Tags } from 'aws-cdk-lib';
import type { AppProps, Stack } from 'aws-cdk-lib';
import { loadShellRoutes } from './hosting/shell-routes';
import type { ShellRoutes } from './hosting/shell-routes';
import { loadEnvironment } from './environment';
import type { Environment } from './environment';
import { httpsOrigin } from './settings';
import { AnalyticsStack } from './stacks/analytics-stack';
import { RemoteHostingStack, ShellHostingStack } from './stacks/hosting-stack';
import { IdentityStack } from './stacks/identity-stack';
import { CLOUDFRONT_METRICS_REGION } from './stacks/alarms';
import { MonitoringStack } from './stacks/monitoring-stack';
import { UploadsStack, uploadsStackProps } from './stacks/uploads-stack';

/**
 * The stacks of an environment, by part. `MonitoringUsEast1` (the alarm topic of the CloudFront
 * distributions' alarms, src/stacks/alarms.ts) only when the settings' region is not us-east-1.
 */
export const STACK_PARTS = ['Identity', 'Uploads', 'Analytics', 'Shell', 'AuthRemote', 'UploaderRemote', 'Monitoring', 'MonitoringUsEast1'] as const;
export type StackPart = (typeof STACK_PARTS)[number];

/** The parts an environment in `region` has. */
export function stackPartsIn(region: string): StackPart[] {
  return STACK_PARTS.filter((part) => part !== 'MonitoringUsEast1' || region !== CLOUDFRONT_METRICS_REGION);
}

/** A stack's CloudFormation name. */
export function stackName(envName: string, part: StackPart): string {
  return `TrailSense-${envName}-${part}`;
}

/** The repository's root (this file is infra/src/app.ts). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** Where an environment's settings live: infra/config/<name>.json. */
export const CONFIG_DIR = path.join(REPO_ROOT, 'infra', 'config');
/** The environment synth and the tests use when none is named. */
export const DEFAULT_ENV = 'example';
/** The shell build's route list (scripts/prerender.mjs writes it). */
export const SHELL_ROUTES_FILE = path.join(REPO_ROOT, 'shell', 'dist', 'routes.json');

/**
 * A CDK app whose synth fails when a template breaks CloudFormation's resource schemas (CDK's
 * built-in, offline validation; by default it only warns).
 */
export function trailSenseApp(props: AppProps = {}): App {
  return new App({ ...props, context: { '@aws-cdk/core:validateAgainstDefaultRules': true, ...props.context } });
}

export function settingsFileFor(envName: string): string {
  if (!/^[A-Za-z0-9-]+$/.test(envName)) throw new Error(`Not an environment name: ${JSON.stringify(envName)} (infra/config/<name>.json).`);
  return path.join(CONFIG_DIR, `${envName}.json`);
}

export interface TrailSenseStacks {
  identity: IdentityStack;
  uploads: UploadsStack;
  analytics: AnalyticsStack;
  shell: ShellHostingStack;
  authRemote: RemoteHostingStack;
  uploaderRemote: RemoteHostingStack;
  monitoring: MonitoringStack;
  /** Absent when the settings' region is us-east-1 (the Monitoring stack's topic serves). */
  monitoringUsEast1?: MonitoringStack;
}

export interface BuildOptions {
  /** The app to add the stacks to (bin/app.ts's, which reads the CLI's context; or a test's). */
  app?: App;
  /** The environment's settings file (default: infra/config/<context env, or example>.json). */
  settingsFile?: string;
  /** The shell build's routes.json (default: shell/dist/routes.json). */
  shellRoutesFile?: string;
  /** Already loaded settings and routes (tests), instead of the files. */
  environment?: Environment;
  routes?: ShellRoutes;
}

/** Builds every stack of one environment. Throws (before building anything) on bad settings or a missing shell build. */
export function buildApp(options: BuildOptions = {}): {
  app: App;
  environment: Environment;
  stacks: TrailSenseStacks;
  /** The parts built (stackPartsIn the settings' region), in STACK_PARTS order. */
  parts: StackPart[];
  /** Milliseconds each stack took to build (bundling the function included), for bin/synth.ts's table. */
  buildTimes: Partial<Record<StackPart, number>>;
} {
  const app = options.app ?? trailSenseApp();
  const envName = (app.node.tryGetContext('env') as string | undefined) ?? DEFAULT_ENV;
  const environment = options.environment ?? loadEnvironment(options.settingsFile ?? settingsFileFor(envName));
  const routes = options.routes ?? loadShellRoutes(options.shellRoutesFile ?? SHELL_ROUTES_FILE);
  const { settings, runtimeConfig } = environment;
  const env = { account: settings.account ?? process.env.CDK_DEFAULT_ACCOUNT, region: settings.region };
  const name = (part: StackPart) => ({ stackName: stackName(settings.name, part), env });
  const shellOrigin = httpsOrigin(settings.domains.shell);

  const buildTimes: Partial<Record<StackPart, number>> = {};
  const timed = <T>(part: StackPart, make: () => T): T => {
    const started = performance.now();
    const stack = make();
    buildTimes[part] = performance.now() - started;
    return stack;
  };

  const stacks: TrailSenseStacks = {
    identity: timed(
      'Identity',
      () =>
        new IdentityStack(app, stackName(settings.name, 'Identity'), {
          ...name('Identity'),
          description: 'TrailSense: user pool, web client, identity pool and its authenticated role',
          settings,
          uploadBucketName: runtimeConfig.storage.bucket,
          analyticsStreamName: settings.analyticsStreamName,
        }),
    ),
    uploads: timed(
      'Uploads',
      () =>
        new UploadsStack(app, stackName(settings.name, 'Uploads'), {
          ...name('Uploads'),
          description: 'TrailSense: upload bucket, object-created function, upload ledger, uploads API and its firewall',
          ...uploadsStackProps(settings, runtimeConfig),
        }),
    ),
    analytics: timed(
      'Analytics',
      () =>
        new AnalyticsStack(app, stackName(settings.name, 'Analytics'), {
          ...name('Analytics'),
          description: 'TrailSense: the analytics events Firehose stream',
          environmentName: settings.name,
          streamName: settings.analyticsStreamName,
        }),
    ),
    shell: timed(
      'Shell',
      () =>
        new ShellHostingStack(app, stackName(settings.name, 'Shell'), {
          ...name('Shell'),
          description: 'TrailSense: hosting of the shell (marketing pages, app page, /config.json)',
          environmentName: settings.name,
          domainName: settings.domains.shell,
          certificateArn: settings.certificateArn,
          runtimeConfig,
          routes,
        }),
    ),
    authRemote: timed(
      'AuthRemote',
      () =>
        new RemoteHostingStack(app, stackName(settings.name, 'AuthRemote'), {
          ...name('AuthRemote'),
          description: 'TrailSense: hosting of auth-remote',
          environmentName: settings.name,
          app: 'auth-remote',
          domainName: settings.domains.authRemote,
          certificateArn: settings.certificateArn,
          shellOrigin,
        }),
    ),
    uploaderRemote: timed(
      'UploaderRemote',
      () =>
        new RemoteHostingStack(app, stackName(settings.name, 'UploaderRemote'), {
          ...name('UploaderRemote'),
          description: 'TrailSense: hosting of uploader-remote',
          environmentName: settings.name,
          app: 'uploader-remote',
          domainName: settings.domains.uploaderRemote,
          certificateArn: settings.certificateArn,
          shellOrigin,
        }),
    ),
    monitoring: timed(
      'Monitoring',
      () =>
        new MonitoringStack(app, stackName(settings.name, 'Monitoring'), {
          ...name('Monitoring'),
          description: 'TrailSense: the alarm topic and its e-mail subscriptions, the dashboard',
          environmentName: settings.name,
          emails: settings.alarms.emails,
          dashboard: true,
        }),
    ),
  };
  const parts = stackPartsIn(settings.region);
  if (parts.includes('MonitoringUsEast1')) {
    stacks.monitoringUsEast1 = timed(
      'MonitoringUsEast1',
      () =>
        new MonitoringStack(app, stackName(settings.name, 'MonitoringUsEast1'), {
          stackName: stackName(settings.name, 'MonitoringUsEast1'),
          env: { ...env, region: CLOUDFRONT_METRICS_REGION },
          description: "TrailSense: the alarm topic in us-east-1, for the CloudFront distributions' alarms",
          environmentName: settings.name,
          emails: settings.alarms.emails,
          dashboard: false,
        }),
    );
  }
  for (const stack of Object.values(stacks) as Stack[]) {
    Tags.of(stack).add('project', 'trailsense');
    Tags.of(stack).add('environment', settings.name);
  }
  return { app, environment, stacks, parts, buildTimes };
}
