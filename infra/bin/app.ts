/**
 * The CDK app for the CLI (`npm run cdk -w infra -- <command> --context env=<name>`): every stack of
 * the environment infra/config/<name>.json (default: example). Settings problems and a missing
 * shell build stop it with a message saying what to fix.
 */
import { buildApp, trailSenseApp } from '../src/app';

try {
  buildApp({ app: trailSenseApp() }).app.synth();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
