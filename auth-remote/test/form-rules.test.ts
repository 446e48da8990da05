import {
  changedAttributes,
  confirmPasswordError,
  normalizePhoneNumber,
  passwordError,
  phoneError,
  requiredError,
  splitPhoneNumber,
  termsError,
  trimFormValues,
  updatableAttributes,
} from '../src/model/form-rules';

describe('termsError', () => {
  it('requires the acknowledgement', () => {
    expect(termsError(false)).toBe('You must agree to the Terms & Conditions');
    expect(termsError(true)).toBeNull();
  });
});

describe('passwordError', () => {
  it('accepts 8 characters of any kind and refuses 7', () => {
    expect(passwordError('abcdefgh')).toBeNull();
    expect(passwordError('        ')).toBeNull();
    expect(passwordError('abcdefg')).toBe('Password must have at least 8 characters');
  });

  it('asks for a missing password', () => {
    expect(passwordError('')).toBe('This field is required');
  });
});

describe('confirmPasswordError', () => {
  it('is silent while the user is still typing short values', () => {
    expect(confirmPasswordError('abcde', 'abc', { password: true, confirm: false })).toBeNull();
  });

  it('reports a mismatch once both fields are touched', () => {
    expect(confirmPasswordError('abc', 'abd', { password: true, confirm: true })).toBe('Your passwords must match');
  });

  it('reports a mismatch once both are at least 6 characters, touched or not', () => {
    expect(confirmPasswordError('abcdef', 'abcdeg', {})).toBe('Your passwords must match');
    expect(confirmPasswordError('abcdef', 'abcde', {})).toBeNull();
  });

  it('accepts equal values', () => {
    expect(confirmPasswordError('same-password', 'same-password', { password: true, confirm: true })).toBeNull();
  });
});

describe('requiredError', () => {
  it('asks for a blank value', () => {
    expect(requiredError('   ')).toBe('This field is required');
    expect(requiredError('x')).toBeNull();
  });
});

describe('trimFormValues', () => {
  it('trims everything but passwords', () => {
    expect(trimFormValues({ email: ' a@b.example ', name: ' Sam ', password: ' secret pw ', confirm_password: ' secret pw ' })).toEqual({
      email: 'a@b.example',
      name: 'Sam',
      password: ' secret pw ',
      confirm_password: ' secret pw ',
    });
  });
});

describe('normalizePhoneNumber', () => {
  it('joins the dial code and the number, keeping only letters, digits and +', () => {
    expect(normalizePhoneNumber('+1', '(234) 567-8900')).toBe('+12345678900');
    expect(normalizePhoneNumber('+44', ' 7700 900.123 ')).toBe('+447700900123');
  });
});

describe('phoneError', () => {
  it('accepts the +12345678900 shape and refuses others', () => {
    expect(phoneError('+12345678900')).toBeNull();
    expect(phoneError('12345678900')).toMatch(/country code/);
    expect(phoneError('+1234')).toMatch(/country code/);
    expect(phoneError('')).toBe('This field is required');
  });
});

describe('splitPhoneNumber', () => {
  it('finds the longest matching dial code', () => {
    expect(splitPhoneNumber('+447700900123', ['+1', '+44', '+4'])).toEqual({ dialCode: '+44', number: '7700900123' });
    expect(splitPhoneNumber('+12345678900', ['+1', '+44'])).toEqual({ dialCode: '+1', number: '2345678900' });
  });

  it('starts empty at +1', () => {
    expect(splitPhoneNumber(undefined, ['+1'])).toEqual({ dialCode: '+1', number: '' });
  });
});

describe('updatableAttributes and changedAttributes', () => {
  it('never sends sub or *_verified', () => {
    expect(updatableAttributes({ sub: 'x', email_verified: 'true', phone_number_verified: 'false', name: 'Sam' })).toEqual({
      name: 'Sam',
    });
  });

  it('sends only what changed', () => {
    expect(changedAttributes({ name: 'Sam', phone_number: '+12345678900' }, { name: 'Sam', phone_number: '+12345678901' })).toEqual({
      phone_number: '+12345678901',
    });
    expect(changedAttributes({ name: 'Sam' }, { name: 'Sam' })).toEqual({});
  });
});
