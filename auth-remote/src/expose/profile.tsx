import { SkeletonScreen, type ProfileProps } from '@trailsense/shared';

/** `./Profile`, exposed to the shell. TODO(issue 4): the real screen. */
export default function Profile(_props: ProfileProps) {
  return <SkeletonScreen remote={__APP_NAME__} version={__APP_VERSION__} screen="Profile" />;
}
