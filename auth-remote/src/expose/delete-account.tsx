import { SkeletonScreen, type DeleteAccountProps } from '@trailsense/shared';

/** `./DeleteAccount`, exposed to the shell. TODO(issue 4): the real screen. */
export default function DeleteAccount(_props: DeleteAccountProps) {
  return <SkeletonScreen remote={__APP_NAME__} version={__APP_VERSION__} screen="DeleteAccount" />;
}
