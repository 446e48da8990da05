/**
 * The repository's Lambda functions, all made the same way: Node 24 on arm64, bundled by the
 * repository's own esbuild (a root devDependency, never Docker) into one minified CommonJS file
 * with a source map, the runtime's AWS SDK v3 left outside, and a log group of their own with a
 * retention. The object-created function and the uploads API's function (src/stacks/) use it.
 */
import path from 'node:path';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BundlingOptions, NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { acknowledgeBasicExecutionRole } from './nag';

/**
 * The Node runtime of this repository's Lambda functions: the newest Lambda offers that this CDK
 * knows (nodejs24.x; Node 22 leaves Lambda's supported runtimes when its line ends, 2027-04-30).
 */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

/** The repository's root, whose package-lock.json and node_modules (with esbuild) the bundling uses. */
const REPO_ROOT = path.join(__dirname, '..', '..', '..');

/** How every function is bundled. */
export const BUNDLING: BundlingOptions = {
  // The repository's esbuild (a root devDependency), never a Docker image.
  forceDockerBundling: false,
  format: OutputFormat.CJS,
  // esbuild's target follows the runtime (nodejs24.x → node24).
  target: LAMBDA_RUNTIME.name.replace(/^nodejs(\d+)\.x$/, 'node$1'),
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  // The runtime's AWS SDK v3 (@aws-sdk/* stays external).
  bundleAwsSDK: false,
  logLevel: LogLevel.WARNING,
};

/** How long a function's logs are kept. */
export const FUNCTION_LOG_RETENTION = RetentionDays.THREE_MONTHS;

export interface BundledFunctionProps extends Omit<
  NodejsFunctionProps,
  'entry' | 'handler' | 'projectRoot' | 'depsLockFilePath' | 'runtime' | 'architecture' | 'bundling' | 'logGroup'
> {
  /** The TypeScript entry, which exports `handler`. */
  entry: string;
}

/** A function bundled from `entry` (its `handler` export), with its log group `<id>Logs`. */
export function bundledFunction(scope: Construct, id: string, props: BundledFunctionProps): NodejsFunction {
  const fn = new NodejsFunction(scope, id, {
    ...props,
    handler: 'handler',
    projectRoot: REPO_ROOT,
    depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
    runtime: LAMBDA_RUNTIME,
    architecture: Architecture.ARM_64,
    bundling: BUNDLING,
    logGroup: new LogGroup(scope, `${id}Logs`, { retention: FUNCTION_LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY }),
  });
  acknowledgeBasicExecutionRole(fn, 'A bundled function of this repository');
  return fn;
}
