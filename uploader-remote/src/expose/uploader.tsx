import { SkeletonScreen, type UploaderProps } from '@trailsense/shared';

/** `./Uploader`, exposed to the shell. TODO(issue 5): the real screen. */
export default function Uploader(_props: UploaderProps) {
  return <SkeletonScreen remote={__APP_NAME__} version={__APP_VERSION__} screen="Uploader" />;
}
