/**
 * The operations that send or take a confirmation code (user-pool.ts), with the limits of codes.ts:
 * a code sent is recorded, a confirmation checks the code's age and attempts first, a resend makes
 * a code of the gateway's own, and a confirmed sign-up marks the email verified as Cognito does.
 */
import { attributeValue } from 'cognito-local/lib/services/userPoolService';
import { ctx } from './cognito-local';
import type { CognitoLocal, DeliveredCode, User } from './cognito-local';
import { createCodeLedger, newCode } from './codes';
import type { CodePurpose } from './codes';
import { CognitoFault } from './errors';
import { maskEmail } from './pool-answers';
import { required } from './request-body';
import type { Body } from './request-body';

export interface CodeFlowDeps {
  cognito: CognitoLocal;
  findUser(username: string): Promise<User | null>;
  /** cognito-local's answer to a target, in Cognito's words (pool-answers.ts forwardTo). */
  forward(target: string, body: Body): Promise<unknown>;
  onCode: (code: DeliveredCode) => void;
  /** The codes' clock (milliseconds). */
  now: () => number;
}

export function createCodeFlows(deps: CodeFlowDeps) {
  const codes = createCodeLedger({ now: deps.now });

  /** Records a code just sent to the user named in the request (cognito-local stores the code on the user). */
  async function codeSent(body: Body, purpose: CodePurpose): Promise<void> {
    const user = await deps.findUser(required(body, 'Username'));
    if (user) codes.sent(user.Username, purpose);
  }

  /** Forwards an operation that sends a code (SignUp, ForgotPassword), and records the code. */
  async function sending(target: string, body: Body, purpose: CodePurpose): Promise<unknown> {
    const result = await deps.forward(target, body);
    await codeSent(body, purpose);
    return result;
  }

  /**
   * A confirmation with a code, as Cognito limits it: an expired code or one mistyped too often is
   * refused before it is compared; a mistyped one counts; a used one is gone (codes.ts).
   */
  async function withCode(body: Body, purpose: CodePurpose, confirm: () => Promise<unknown>): Promise<unknown> {
    const user = await deps.findUser(required(body, 'Username'));
    if (!user) return confirm();
    codes.assertUsable(user.Username, purpose);
    try {
      const result = await confirm();
      codes.used(user.Username);
      return result;
    } catch (err) {
      if (err instanceof CognitoFault && err.type === 'CodeMismatchException') codes.mistyped(user.Username, purpose);
      throw err;
    }
  }

  async function resendConfirmationCode(body: Body): Promise<unknown> {
    const username = required(body, 'Username');
    const user = await deps.findUser(username);
    if (!user) throw new CognitoFault('UserNotFoundException', 'Username/client id combination not found.');
    if (user.UserStatus !== 'UNCONFIRMED') throw new CognitoFault('InvalidParameterException', 'User is already confirmed.');
    const email = attributeValue('email', user.Attributes) ?? username;
    const code = newCode();
    await deps.cognito.pool.saveUser(ctx, { ...user, ConfirmationCode: code });
    codes.sent(user.Username, 'sign-up');
    deps.onCode({ destination: email, source: 'ResendCode', code, at: new Date() });
    return { CodeDeliveryDetails: { AttributeName: 'email', DeliveryMedium: 'EMAIL', Destination: maskEmail(email) } };
  }

  /**
   * Cognito marks the email verified when a sign-up is confirmed with the code sent to it;
   * cognito-local only confirms the user. Without this, every new account would look unverified.
   */
  async function confirmSignUp(body: Body): Promise<unknown> {
    const result = await deps.forward('ConfirmSignUp', body);
    const user = await deps.findUser(required(body, 'Username'));
    if (user) {
      const others = (user.Attributes ?? []).filter((a) => a.Name !== 'email_verified');
      await deps.cognito.pool.saveUser(ctx, { ...user, Attributes: [...others, { Name: 'email_verified', Value: 'true' }] });
    }
    return result;
  }

  return {
    signUp: (body: Body) => sending('SignUp', body, 'sign-up'),
    forgotPassword: (body: Body) => sending('ForgotPassword', body, 'password-reset'),
    resendConfirmationCode,
    confirmSignUp: (body: Body) => withCode(body, 'sign-up', () => confirmSignUp(body)),
    confirmForgotPassword: (body: Body) => withCode(body, 'password-reset', () => deps.forward('ConfirmForgotPassword', body)),
  };
}
