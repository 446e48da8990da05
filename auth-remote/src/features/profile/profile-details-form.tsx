import { useState, type FormEvent } from 'react';
import type { UserAttributes } from '@trailsense/shared';
import { runFormAction, StatusMessage, type FormStatus } from '../../components/status-message';
import { TextField } from '../../components/text-field';
import { changedAttributes, normalizePhoneNumber, phoneError, requiredError, splitPhoneNumber, trimFormValues } from '../../model/form-rules';
import type { AccountService } from '../../services/account-service';
import styles from '../../styles/auth.module.css';

/** Dial codes offered; +1 first (docs/product.md#profile-page). */
export const DIAL_CODES = ['+1', '+44', '+52', '+61', '+64', '+27', '+49', '+33', '+34', '+39', '+91'] as const;

interface Props {
  user: UserAttributes;
  service: AccountService;
  /** Called after a save, to read the new attributes into the session. */
  onSaved: () => Promise<void>;
}

/** Edits name and phone number; sends only what changed, never sub or *_verified. */
export function ProfileDetailsForm({ user, service, onSaved }: Props) {
  const initialPhone = splitPhoneNumber(user.phoneNumber, DIAL_CODES);
  const [name, setName] = useState(user.name ?? '');
  const [dialCode, setDialCode] = useState(initialPhone.dialCode || '+1');
  const [number, setNumber] = useState(initialPhone.number);
  const [errors, setErrors] = useState<{ name?: string | null; phone?: string | null }>({});
  const [status, setStatus] = useState<FormStatus>({ kind: 'idle' });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const values = trimFormValues({ name, number });
    const phone = normalizePhoneNumber(dialCode, values.number);
    const found = { name: requiredError(values.name), phone: phoneError(phone) };
    setErrors(found);
    if (found.name || found.phone) {
      setStatus({ kind: 'error', message: 'Please correct the highlighted fields.' });
      return;
    }
    const update = changedAttributes({ name: user.name, phone_number: user.phoneNumber }, { name: values.name, phone_number: phone });
    if (Object.keys(update).length === 0) {
      setStatus({ kind: 'success', message: 'Nothing to save: your name and phone number are unchanged.' });
      return;
    }
    await runFormAction(
      setStatus,
      async () => {
        await service.updateAttributes(update);
        await onSaved();
      },
      { success: 'Your name and phone number are saved.', failure: 'Your changes were not saved', context: 'profile' },
    );
  }

  return (
    <form className={styles.form} onSubmit={(event) => void submit(event)} noValidate>
      <TextField label="Name" name="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} error={errors.name} required />
      <fieldset className={styles.phone}>
        <legend>Phone number</legend>
        <label htmlFor="profile-dial-code" className={styles.visuallyHidden}>
          Country code
        </label>
        <select id="profile-dial-code" value={dialCode} onChange={(e) => setDialCode(e.target.value)}>
          {DIAL_CODES.map((code) => (
            <option key={code} value={code}>
              {code}
            </option>
          ))}
        </select>
        <TextField
          label="Number"
          name="phone"
          type="tel"
          autoComplete="tel-national"
          value={number}
          onChange={(e) => setNumber(e.target.value)}
          error={errors.phone}
          required
        />
      </fieldset>
      <button type="submit" className={styles.button} disabled={status.kind === 'busy'}>
        {status.kind === 'busy' ? 'Saving…' : 'Save changes'}
      </button>
      <StatusMessage status={status} />
    </form>
  );
}
