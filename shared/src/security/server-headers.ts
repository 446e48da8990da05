/**
 * What the local production server (scripts/static-server.mjs) adds to its responses, decided
 * here so that the server stays a thin adapter (infra/docs/server.md#security-headers):
 * - the shell's responses carry every security header, with the Content-Security-Policy generated
 *   from the `/config.json` it serves (the CloudFront policy is generated from the same config);
 * - a remote's responses carry the same headers but the CSP (its code runs in the shell's page,
 *   under the shell's policy), and CORS for the shell's origin alone.
 * Pure and framework-free: the server reads the files and hands their text in.
 */
import { parseRuntimeConfig } from '../config/validate';
import { baseSecurityHeaders, configErrorSecurityHeaders, securityHeaders } from './headers';

/**
 * The shell's security headers for the config file's current text (`null`: no file). A config
 * the app would refuse (not JSON, or invalid) makes it show its config-error page, which gets a
 * policy naming the site alone.
 */
export function shellServerHeaders({
  configText,
  inlineScriptHashes,
}: {
  configText: string | null;
  inlineScriptHashes: readonly string[];
}): Record<string, string> {
  let raw: unknown;
  try {
    raw = configText === null ? undefined : JSON.parse(configText);
  } catch {
    raw = undefined;
  }
  const parsed = raw === undefined ? undefined : parseRuntimeConfig(raw);
  return parsed?.ok ? securityHeaders({ config: parsed.config, inlineScriptHashes }) : configErrorSecurityHeaders({ inlineScriptHashes });
}

/**
 * A remote's headers for a request from `requestOrigin` (its `Origin` header, if any): the
 * security headers without a CSP, and `Access-Control-Allow-Origin` only when the request comes
 * from the shell's origin. The answer depends on `Origin`, so caches must key on it (`Vary`).
 */
export function remoteServerHeaders({ requestOrigin, shellOrigin }: { requestOrigin: string | undefined; shellOrigin: string }): Record<string, string> {
  return {
    ...baseSecurityHeaders(),
    ...(requestOrigin === shellOrigin ? { 'Access-Control-Allow-Origin': shellOrigin } : {}),
    Vary: 'Origin',
  };
}
