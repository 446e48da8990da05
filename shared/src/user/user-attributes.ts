/** The user attributes the site reads, from the id token (docs/product.md#user). */
export interface UserAttributes {
  sub: string;
  email: string;
  /** The ranch the user belongs to (`custom:ranchid`); absent for a user without one. */
  ranchId?: string;
  name?: string;
  phoneNumber?: string;
  emailVerified?: boolean;
}

/** Reads the attributes the site needs from an id token's claims; null when the claims lack an identity. */
export function userFromIdTokenClaims(claims: Record<string, unknown>): UserAttributes | null {
  const sub = claims.sub;
  const email = claims.email;
  if (typeof sub !== 'string' || typeof email !== 'string') return null;
  const text = (key: string) => {
    const value = claims[key];
    return typeof value === 'string' && value.trim() !== '' ? value : undefined;
  };
  const user: UserAttributes = { sub, email };
  const ranchId = text('custom:ranchid');
  const name = text('name');
  const phoneNumber = text('phone_number');
  if (ranchId) user.ranchId = ranchId;
  if (name) user.name = name;
  if (phoneNumber) user.phoneNumber = phoneNumber;
  const verified = claims.email_verified;
  if (typeof verified === 'boolean') user.emailVerified = verified;
  else if (verified === 'true' || verified === 'false') user.emailVerified = verified === 'true';
  return user;
}
