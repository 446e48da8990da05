/**
 * `npm run deploy -w <app> -- --target s3://bucket[/prefix] …`: checks the app's build against
 * what is live, uploads it to its hosting bucket, hashed files first and entry files last, keeps
 * the previous release's files, and invalidates the changed entry files; with `--rollback`, makes
 * the previous release live again after the same checks. One at a time per app (the deploy lock,
 * held for the whole deploy). infra/README.md "Deploy command". Exits non-zero on any failure.
 */
import path from 'node:path';
import { DeployInputError } from '../src/deploy/checks';
import { parseDeployArgs, UsageError, USAGE } from '../src/deploy/cli';
import { deploy } from '../src/deploy/deploy';
import { DeployError } from '../src/deploy/execute';
import { LockError } from '../src/deploy/lock';
import { PlanError } from '../src/deploy/plan';
import { PreflightError } from '../src/deploy/preflight';
import { formatResult, formatRollback } from '../src/deploy/report';
import { rollback } from '../src/deploy/rollback';
import { RollbackError } from '../src/deploy/rollback-plan';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

async function main(): Promise<number> {
  let options;
  try {
    options = parseDeployArgs(process.argv.slice(2), process.env, REPO_ROOT);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`deploy: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  const output = { log: (line: string) => console.log(`  ${line}`), warn: (line: string) => console.error(`deploy: warning: ${line}`) };
  try {
    if (options.rollback) {
      const { plan, result, choice } = await rollback({ ...options, ...output });
      console.log(formatRollback(options.target, plan, result, choice));
      if (options.shell)
        console.log(`  checked against the live shell (${options.shell}): it provides the federation runtime and every module the restored release shares.`);
    } else {
      const { plan, result } = await deploy({ ...options, ...output });
      console.log(formatResult(options.target, plan, result));
      if (options.shell)
        console.log(`  checked against the live shell (${options.shell}): it provides the federation runtime and every module ${options.app} shares.`);
      if (options.settingsFile) console.log(`  checked against production (${options.settingsFile}): the runtime config, the CSP and the live remotes.`);
    }
    return 0;
  } catch (error) {
    if (error instanceof DeployError) {
      console.error(`deploy: ${error.message}`);
      console.error(`  files uploaded before it stopped: ${error.result.uploaded.files}; deleted: ${error.result.deleted}.`);
      return 1;
    }
    if (
      error instanceof DeployInputError ||
      error instanceof PreflightError ||
      error instanceof PlanError ||
      error instanceof LockError ||
      error instanceof RollbackError
    ) {
      console.error(`deploy: ${error.message}`);
      return 1;
    }
    console.error(`deploy: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
