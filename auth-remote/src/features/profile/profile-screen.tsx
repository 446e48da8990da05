import { AppLink, useUser } from '@trailsense/shared';
import { amplifyAccountService, type AccountService } from '../../services/account-service';
import { amplifyPasskeyService, type PasskeyService } from '../../services/passkey-service';
import { passkeysEnabled } from '../../services/sign-in-choices';
import { PasskeysSection } from './passkeys-section';
import { ChangePasswordForm } from './change-password-form';
import { ProfileDetailsForm } from './profile-details-form';
import { SignOutEverywhere } from './sign-out-everywhere';
import styles from '../../styles/auth.module.css';

export interface ProfileScreenProps {
  service?: AccountService;
  passkeys?: PasskeyService;
  /** Whether the pool offers passkeys (the config's auth.passwordless.passkeys, through Amplify's config). */
  showPasskeys?: boolean;
}

/** /profile: who the user is, their ranch, editing name and phone, password, and account actions. */
export function ProfileScreen({ service = amplifyAccountService, passkeys = amplifyPasskeyService, showPasskeys = passkeysEnabled() }: ProfileScreenProps) {
  const current = useUser();
  if (current.status !== 'authenticated') {
    return <p role="status">Loading your profile…</p>;
  }
  const { user } = current;
  return (
    <div className={styles.page}>
      <h1>Your profile</h1>

      <section aria-labelledby="profile-account">
        <h2 id="profile-account">Account</h2>
        <dl className={styles.facts}>
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Name</dt>
          <dd>{user.name ?? 'Not set'}</dd>
          <dt>Phone number</dt>
          <dd>{user.phoneNumber ?? 'Not set'}</dd>
          <dt>Ranch ID</dt>
          <dd>{user.ranchId ?? 'None'}</dd>
        </dl>
        {user.ranchId ? (
          <p>
            You upload photos for ranch <strong>{user.ranchId}</strong>. <AppLink to="/uploader">Go to the uploader</AppLink>
          </p>
        ) : (
          <div className={styles.notice} role="note">
            <h3>Uploading needs a ranch</h3>
            <p>
              Your account is not a member of a ranch yet, so you cannot upload photos here. Ranch membership is set up in the mobile app: create or join your
              ranch there, then sign in here again.
            </p>
          </div>
        )}
      </section>

      <section aria-labelledby="profile-edit">
        <h2 id="profile-edit">Name and phone number</h2>
        <ProfileDetailsForm user={user} service={service} onSaved={() => current.refresh({ forceRefresh: true })} />
      </section>

      <section aria-labelledby="profile-password">
        <h2 id="profile-password">Change password</h2>
        <ChangePasswordForm service={service} />
      </section>

      {showPasskeys && (
        <section aria-labelledby="profile-passkeys">
          <h2 id="profile-passkeys">Passkeys</h2>
          <PasskeysSection service={passkeys} />
        </section>
      )}

      <section aria-labelledby="profile-sessions">
        <h2 id="profile-sessions">Signed-in devices</h2>
        <SignOutEverywhere />
      </section>

      <section aria-labelledby="profile-delete">
        <h2 id="profile-delete">Delete account</h2>
        <p>
          Deleting your account removes your sign-in, your profile and your photos, and cannot be undone. <AppLink to="/delete">Delete my account…</AppLink>
        </p>
      </section>
    </div>
  );
}
