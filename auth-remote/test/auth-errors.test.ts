import { describeAuthError } from '../src/model/auth-errors';
import { confirmsDeletion } from '../src/model/deletion-rules';

const named = (name: string, message = 'raw') => Object.assign(new Error(message), { name });

describe('describeAuthError', () => {
  it('says "Network Error" for a network failure (docs/product.md#account-messages)', () => {
    expect(describeAuthError(named('NetworkError', 'A network error has occurred.'))).toBe('Network Error');
  });

  it('tells a wrong current password apart from an expired session', () => {
    expect(describeAuthError(named('NotAuthorizedException'), 'password')).toBe('Your current password is incorrect.');
    expect(describeAuthError(named('NotAuthorizedException'), 'profile')).toMatch(/session has expired/);
  });

  it('explains the password rules and throttling', () => {
    expect(describeAuthError(named('InvalidPasswordException'))).toMatch(/at least 8 characters/);
    expect(describeAuthError(named('LimitExceededException'))).toMatch(/Too many attempts/);
  });

  it('falls back to the error message, then a generic sentence', () => {
    expect(describeAuthError(named('SomethingElse', 'The service said no.'))).toBe('The service said no.');
    expect(describeAuthError(named('SomethingElse', ''))).toBe('Something went wrong. Please try again.');
  });
});

describe('confirmsDeletion', () => {
  it('needs the account email, ignoring case and surrounding spaces', () => {
    expect(confirmsDeletion(' Subscriber@TrailSense.example ', 'subscriber@trailsense.example')).toBe(true);
    expect(confirmsDeletion('subscriber@trailsense', 'subscriber@trailsense.example')).toBe(false);
    expect(confirmsDeletion('', '')).toBe(false);
  });
});
