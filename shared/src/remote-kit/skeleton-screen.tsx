import { useUser } from '../user/user-context';
import { sharedInstanceId } from '../instance';

export interface SkeletonScreenProps {
  /** The remote's package name and version (build-time constants). */
  remote: string;
  version: string;
  /** The screen's name ("Login", "Uploader"). */
  screen: string;
}

/**
 * The placeholder a remote shows until its screen is built: it proves the wiring (the remote's
 * own name and version, the signed-in user from the one shared user context).
 * TODO(issues 4 and 5): delete once auth-remote and uploader-remote have their real screens.
 */
export function SkeletonScreen({ remote, version, screen }: SkeletonScreenProps) {
  const user = useUser();
  return (
    <section className="page" aria-labelledby="skeleton-title">
      <h1 id="skeleton-title">{screen}</h1>
      <p>This screen is still a skeleton; its real content is on the way.</p>
      <dl>
        <dt>Remote</dt>
        <dd data-testid="remote-name">{remote}</dd>
        <dt>Version</dt>
        <dd data-testid="remote-version">{version}</dd>
        <dt>Signed in as</dt>
        <dd data-testid="remote-user">
          {user.status === 'authenticated'
            ? user.user.email
            : user.status === 'no-provider'
              ? 'No user context: this remote has its own copy of the shared package'
              : user.status === 'configuring'
                ? 'Checking…'
                : 'Not signed in'}
        </dd>
        <dt>Shared package instance</dt>
        <dd data-testid="remote-shared-instance">{sharedInstanceId}</dd>
      </dl>
    </section>
  );
}
