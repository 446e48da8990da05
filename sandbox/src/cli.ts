/**
 * `npm run sandbox [-- --reset] [--data-dir DIR] [--quiet] [--s3-put-fault 0.3:503 | 1:400:ExpiredToken] [--link 20:80 | starlink | geo | lte]`
 * Starts the sandbox, prints the seed accounts and where everything listens, and stops cleanly on
 * Ctrl-C, SIGTERM, or when any piece dies (exit code 1 then). `--check` only checks the options
 * and says what the link would be (`npm start` runs it before building, so a bad `--link` stops
 * it at once).
 */
import { parsePutFault } from './fault';
import { parseFirewall } from './firewall';
import { formatLink, parseLink } from './link';
import { seedBanner } from './seed';
import { startSandbox, PortInUseError } from './index';
import type { Sandbox } from './index';

interface CliArgs {
  reset: boolean;
  quiet: boolean;
  dataDir?: string;
  s3PutFault?: string;
  link?: string;
  /** The uploads API's firewall (src/firewall.ts); default production's rate per address. */
  firewall?: string;
  /** Only check the options (and say what the link would be). */
  check?: true;
}

export function parseArgs(argv: readonly string[]): CliArgs | string {
  const args: CliArgs = { reset: false, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--reset':
        args.reset = true;
        break;
      case '--quiet':
        args.quiet = true;
        break;
      case '--check':
        args.check = true;
        break;
      case '--data-dir':
        args.dataDir = value();
        if (!args.dataDir) return '--data-dir needs a directory';
        break;
      case '--s3-put-fault': {
        args.s3PutFault = value();
        if (!args.s3PutFault) return '--s3-put-fault needs <fraction>[:<status>[:<Code>]], e.g. 0.3:503 or 1:400:ExpiredToken';
        const parsed = parsePutFault(args.s3PutFault);
        if (typeof parsed === 'string') return parsed;
        break;
      }
      case '--link': {
        args.link = value();
        if (!args.link) return '--link needs <mbit>[:<rttMs>] (e.g. 20:80), a profile (starlink, geo, lte), or off';
        const parsed = parseLink(args.link);
        if ('error' in parsed) return parsed.error;
        break;
      }
      case '--firewall': {
        args.firewall = value();
        const parsed = parseFirewall(args.firewall ?? '');
        if (typeof parsed === 'string') return `--firewall: ${parsed}`;
        break;
      }
      case '--help':
      case '-h':
        return 'usage: npm run sandbox [-- --reset] [--data-dir DIR] [--quiet] [--s3-put-fault FRACTION[:STATUS[:CODE]]] [--link MBIT[:RTT_MS] | starlink | geo | lte[:SEED] | off] [--firewall LIMIT/SECONDS | 429[:S] | 403 | off] [--check]';
      default:
        return `unknown option ${arg} (try --help)`;
    }
  }
  return args;
}

/** What the sandbox's S3 link will be, in a line (the spec is valid: parseArgs checked it). */
export function linkLine(spec: string | undefined): string {
  const parsed = parseLink(spec ?? '');
  if ('error' in parsed) return parsed.error;
  return parsed.link ? `S3 behind an emulated link: ${formatLink(parsed.link)}` : 'S3 on plain loopback (no link emulator)';
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    console.error(args);
    process.exit(2);
  }
  if (args.check) {
    console.log(linkLine(args.link ?? process.env['SANDBOX_LINK']));
    process.exit(0);
  }
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({
      reset: args.reset,
      quiet: args.quiet,
      dataDir: args.dataDir ?? process.env['SANDBOX_DATA_DIR'],
      s3PutFault: args.s3PutFault,
      ...(args.link !== undefined ? { link: args.link } : {}),
      ...(args.firewall !== undefined ? { firewall: args.firewall } : {}),
      log: (line) => console.log(line),
    });
  } catch (err) {
    console.error(`sandbox: start-up failed: ${err instanceof PortInUseError || err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  const { config, ports } = sandbox;
  console.log(
    [
      `TrailSense sandbox running (state in ${sandbox.dataDir}${args.reset ? ', freshly reset' : ''})`,
      `  Cognito user pool + identity pool  ${config.auth.userPoolEndpoint}  (pool ${config.auth.userPoolId}, client ${config.auth.userPoolClientId})`,
      `  Product API                        ${config.api.baseUrl}`,
      `  Analytics sink                     ${config.analytics.provider === 'sandbox' ? config.analytics.endpoint : ''}`,
      `  S3 (s3rver)                        http://localhost:${ports.s3}/${config.storage.bucket}${sandbox.link ? `  (through an emulated link: ${formatLink(sandbox.link)})` : ''}`,
      `  config.json for the site           ${sandbox.dataDir}/config.json`,
      '',
      seedBanner(),
      '',
      'Confirmation and reset codes are printed here as "[cognito] code for ...". Ctrl-C stops.',
    ].join('\n'),
  );

  const stopOn = (signal: NodeJS.Signals) =>
    process.once(signal, () => {
      console.log(`sandbox: ${signal}, stopping`);
      void sandbox.stop();
    });
  stopOn('SIGINT');
  stopOn('SIGTERM');
  // A bug in one piece must not leave the others half-running: report, stop all, exit non-zero.
  const fatal = (err: unknown) => {
    console.error(`sandbox: unexpected error, stopping: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    void sandbox.stop().finally(() => process.exit(1));
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);

  const reason = await sandbox.stopped;
  if (reason.kind === 'piece-died') {
    console.error(`sandbox: the ${reason.piece} piece died${reason.error ? ` (${reason.error.message})` : ''}; everything stopped`);
    process.exit(1);
  }
  process.exit(0);
}

if (require.main === module) void main();
