/**
 * `npm run check-pool -w infra -- --user-pool <id> --role <arn|name> --bucket <name>`: the
 * post-deploy check of the ranch binding (src/pool-check/check.ts; infra/README.md "Post-deploy
 * check"). Reads the pool's app clients and the authenticated role's policies with the caller's
 * AWS credentials; exits 1 with every problem when any app client can write `custom:ranchid` or
 * the role grants anything on the upload bucket beyond the web's; 2 for bad arguments.
 */
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { IAMClient } from '@aws-sdk/client-iam';
import { awsPoolCheckPort } from '../src/pool-check/aws';
import { checkPool, formatPoolCheck, parsePoolCheckArgs, POOL_CHECK_USAGE } from '../src/pool-check/check';

async function main(): Promise<number> {
  const args = parsePoolCheckArgs(process.argv.slice(2));
  if ('error' in args) {
    console.error(`check-pool: ${args.error}\n\n${POOL_CHECK_USAGE}`);
    return 2;
  }
  const region = args.region ?? args.userPoolId.split('_')[0];
  const port = awsPoolCheckPort(new CognitoIdentityProviderClient(region ? { region } : {}), new IAMClient({}));
  const result = await checkPool(args, port);
  const report = formatPoolCheck(args, result);
  if (result.problems.length > 0) {
    console.error(report);
    return 1;
  }
  console.log(report);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`check-pool: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
