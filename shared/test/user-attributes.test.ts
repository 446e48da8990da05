import { userFromIdTokenClaims } from '../src/user/user-attributes';

describe('userFromIdTokenClaims', () => {
  it('reads email, ranch id, name and phone number from the id token', () => {
    expect(
      userFromIdTokenClaims({
        sub: 'abc',
        email: 'subscriber@trailsense.example',
        'custom:ranchid': 'cedar-creek',
        name: 'Sam',
        phone_number: '+12345678900',
        email_verified: true,
        token_use: 'id',
      }),
    ).toEqual({
      sub: 'abc',
      email: 'subscriber@trailsense.example',
      ranchId: 'cedar-creek',
      name: 'Sam',
      phoneNumber: '+12345678900',
      emailVerified: true,
    });
  });

  it('leaves out a blank ranch id: such a user cannot upload', () => {
    expect(userFromIdTokenClaims({ sub: 'abc', email: 'a@b.example', 'custom:ranchid': ' ' })).toEqual({
      sub: 'abc',
      email: 'a@b.example',
    });
  });

  it('understands email_verified sent as a string', () => {
    expect(userFromIdTokenClaims({ sub: 'a', email: 'a@b.example', email_verified: 'false' })?.emailVerified).toBe(false);
  });

  it('returns null for claims without sub or email', () => {
    expect(userFromIdTokenClaims({ email: 'a@b.example' })).toBeNull();
    expect(userFromIdTokenClaims({ sub: 'a' })).toBeNull();
  });
});
