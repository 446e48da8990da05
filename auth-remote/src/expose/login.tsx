import { SkeletonScreen, type LoginProps } from '@trailsense/shared';

/** `./Login`, exposed to the shell. TODO(issue 4): the real screen. */
export default function Login(_props: LoginProps) {
  return <SkeletonScreen remote={__APP_NAME__} version={__APP_VERSION__} screen="Login" />;
}
