import { RemoteFrame, type ProfileProps } from '@trailsense/shared';
import { ProfileScreen } from '../features/profile/profile-screen';

/** `./Profile`, exposed to the shell for /profile. */
export default function Profile(_props: ProfileProps) {
  return (
    <RemoteFrame name={__APP_NAME__} version={__APP_VERSION__}>
      <ProfileScreen />
    </RemoteFrame>
  );
}
