/**
 * cognito-local, run in this process on our data directory. We use its targets (SignUp, ConfirmSignUp,
 * ForgotPassword, token minting, ...) through its router rather than its HTTP server, so the gateway
 * owns the wire (errors, CORS, the operations it lacks) and can read users (SRP needs the stored
 * password). Its Lambda triggers are switched off, which also keeps aws-sdk v2 from loading.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Router } from 'cognito-local/lib/server/Router';
import type { Config } from 'cognito-local/lib/server/config';
import { DateClock } from 'cognito-local/lib/services/clock';
import { CognitoServiceFactoryImpl, USER_POOL_AWS_DEFAULTS } from 'cognito-local/lib/services/cognitoService';
import type { CognitoService } from 'cognito-local/lib/services/cognitoService';
import type { Context } from 'cognito-local/lib/services/context';
import type { LogService } from 'cognito-local/lib/services/LogService';
import type { Messages } from 'cognito-local/lib/services/messages';
import { JwtTokenGenerator } from 'cognito-local/lib/services/tokenGenerator';
import type { Triggers } from 'cognito-local/lib/services/triggers';
import { UserPoolServiceFactoryImpl, attributeValue } from 'cognito-local/lib/services/userPoolService';
import type { User, UserPoolService } from 'cognito-local/lib/services/userPoolService';
import type { SeedUser } from '../seed';
import { newCode } from './codes';
import { AtomicJsonDataStoreFactory, writeJsonFileAtomically } from './json-store';

export type { User, UserPoolService };

/** A code the pool "sent" (printed in the log, readable by tests). */
export interface DeliveredCode {
  /** Where it went: the user's email. */
  destination: string;
  /** Why: SignUp, ResendCode, ForgotPassword, UpdateUserAttribute, ... */
  source: string;
  code: string;
  at: Date;
}

/**
 * Access and id tokens last 15 minutes, refresh tokens 30 days, as the production app client's
 * (TOKEN_VALIDITY in infra/src/stacks/identity-stack.ts): a revoked session ends as soon there as here.
 */
export const TOKEN_VALIDITY = { idAndAccessMinutes: 15, refreshDays: 30 } as const;

/**
 * The web app client's ExplicitAuthFlows: SRP, refresh and choice-based sign-in (USER_AUTH), as
 * production's client (infra/src/stacks/identity-stack.ts) gets them for issue 48.
 */
export const WEB_CLIENT_AUTH_FLOWS: readonly string[] = ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH', 'ALLOW_USER_AUTH'];

export interface PoolIds {
  userPoolId: string;
  clientId: string;
}

/** Cognito's password policy for this pool: minimum 8, no character classes (docs/product.md#account-forms). */
export const PASSWORD_POLICY = {
  MinimumLength: 8,
  RequireUppercase: false,
  RequireLowercase: false,
  RequireNumbers: false,
  RequireSymbols: false,
  TemporaryPasswordValidityDays: 7,
} as const;

const silentLogger: LogService = {
  child: () => silentLogger,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export const ctx: Context = { logger: silentLogger };

const noTriggers: Triggers = { enabled: () => false } as unknown as Triggers;

/**
 * The standard attributes Cognito puts in an id token (name, phone_number, …) that cognito-local
 * leaves out: it writes only email, email_verified and custom:*. Added through cognito-local's
 * own pre-token-generation hook, so that a profile edit shows up in the next token, as on AWS.
 */
export function standardIdTokenClaims(attributes: readonly { Name: string; Value?: string }[]): Record<string, string | boolean> {
  const claims: Record<string, string | boolean> = {};
  for (const { Name, Value } of attributes) {
    if (Value === undefined || Name === 'sub' || Name.startsWith('custom:') || Name.startsWith('email')) continue;
    claims[Name] = Name.endsWith('_verified') ? Value === 'true' : Value;
  }
  return claims;
}

const idTokenClaims: Triggers = {
  enabled: (name: string) => name === 'PreTokenGeneration',
  preTokenGeneration: (_ctx: Context, params: { userAttributes: { Name: string; Value?: string }[] }) =>
    Promise.resolve({ claimsOverrideDetails: { claimsToAddOrOverride: standardIdTokenClaims(params.userAttributes) } }),
} as unknown as Triggers;

/** The pool's options: email as username, MFA off, our policy, and custom:ranchid in the schema. */
function poolOptions(userPoolId: string) {
  return {
    ...USER_POOL_AWS_DEFAULTS,
    Id: userPoolId,
    Name: 'trailsense-local',
    UsernameAttributes: ['email'],
    AutoVerifiedAttributes: ['email'],
    MfaConfiguration: 'OFF',
    Policies: { PasswordPolicy: PASSWORD_POLICY },
    SchemaAttributes: [
      ...USER_POOL_AWS_DEFAULTS.SchemaAttributes!,
      {
        Name: 'custom:ranchid',
        AttributeDataType: 'String',
        DeveloperOnlyAttribute: false,
        Mutable: true,
        Required: false,
        StringAttributeConstraints: { MinLength: '0', MaxLength: '64' },
      },
    ],
  };
}

/** A confirmed user as cognito-local stores it (the seed's, a tenant's: tenants.ts), its email verified. */
export function poolUser(u: SeedUser, now: Date): User {
  return {
    Username: u.sub,
    Password: u.password,
    UserStatus: 'CONFIRMED',
    Enabled: true,
    RefreshTokens: [],
    UserCreateDate: now,
    UserLastModifiedDate: now,
    Attributes: [
      { Name: 'sub', Value: u.sub },
      { Name: 'email', Value: u.email },
      { Name: 'email_verified', Value: 'true' },
      { Name: 'name', Value: u.name },
      ...(u.ranchId ? [{ Name: 'custom:ranchid', Value: u.ranchId }] : []),
    ],
  };
}

/**
 * Writes cognito-local's pool and client JSON (the fixed ids) with the seed users, unless the pool
 * file already exists (a restart keeps signed-up users and changed passwords).
 */
export function writePoolFiles(dir: string, ids: PoolIds, users: readonly SeedUser[], now: Date): void {
  mkdirSync(dir, { recursive: true });
  const poolFile = path.join(dir, `${ids.userPoolId}.json`);
  if (!existsSync(poolFile)) {
    const Users = Object.fromEntries(users.map((u) => [u.sub, poolUser(u, now)]));
    writeJsonFileAtomically(poolFile, { Users, Options: poolOptions(ids.userPoolId) });
  }
  // Rewritten on every start (it holds only this client), so a data directory from before a
  // change of the token lifetimes gets the current ones.
  const clientsFile = path.join(dir, 'clients.json');
  {
    const client = {
      UserPoolId: ids.userPoolId,
      ClientName: 'trailsense-web',
      ClientId: ids.clientId,
      CreationDate: now.toISOString(),
      LastModifiedDate: now.toISOString(),
      AccessTokenValidity: TOKEN_VALIDITY.idAndAccessMinutes,
      IdTokenValidity: TOKEN_VALIDITY.idAndAccessMinutes,
      RefreshTokenValidity: TOKEN_VALIDITY.refreshDays,
      TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'days' },
      ExplicitAuthFlows: [...WEB_CLIENT_AUTH_FLOWS],
    };
    writeJsonFileAtomically(clientsFile, { Clients: { [ids.clientId]: client } });
  }
}

export interface CognitoLocal {
  /** Runs one cognito-local target (e.g. "SignUp") with a request body; throws its CognitoError. */
  call(target: string, body: Record<string, unknown>): Promise<unknown>;
  /** The pool service for direct reads/writes of users. */
  pool: UserPoolService;
  cognito: CognitoService;
  codes: DeliveredCode[];
}

/** Starts cognito-local's services on `dir`, minting tokens whose issuer is `issuerDomain/poolId`. */
export async function startCognitoLocal(opts: {
  dir: string;
  ids: PoolIds;
  issuerDomain: string;
  onCode: (code: DeliveredCode) => void;
}): Promise<CognitoLocal> {
  const clock = new DateClock();
  // Not cognito-local's StormDB store: its unordered writes can leave the users file unparseable (json-store.ts).
  const dataStoreFactory = new AtomicJsonDataStoreFactory(opts.dir);
  const cognito = await new CognitoServiceFactoryImpl(opts.dir, dataStoreFactory, new UserPoolServiceFactoryImpl(clock, dataStoreFactory)).create(ctx, {
    UsernameAttributes: ['email'],
  });
  const codes: DeliveredCode[] = [];
  const messages: Messages = {
    deliver(_ctx, source, _clientId, _poolId, user, code, _meta, details) {
      const delivered: DeliveredCode = {
        destination: details.Destination ?? attributeValue('email', user.Attributes) ?? user.Username,
        source,
        code,
        at: clock.get(),
      };
      codes.push(delivered);
      opts.onCode(delivered);
      return Promise.resolve();
    },
  };
  const config = {
    UserPoolDefaults: { UsernameAttributes: ['email'] },
    TokenConfig: { IssuerDomain: opts.issuerDomain },
    TriggerFunctions: {},
  } as unknown as Config;
  const router = Router({
    clock,
    cognito,
    config,
    messages,
    // Not cognito-local's otp (Math.random): codes from crypto.randomInt.
    otp: newCode,
    tokenGenerator: new JwtTokenGenerator(clock, idTokenClaims, config.TokenConfig),
    triggers: noTriggers,
  });
  const pool = await cognito.getUserPool(ctx, opts.ids.userPoolId);
  return {
    call: (target, body) => router(target)(ctx, body),
    pool,
    cognito,
    codes,
  };
}
