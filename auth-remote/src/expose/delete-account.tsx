import { RemoteFrame, type DeleteAccountProps } from '@trailsense/shared';
import { DeleteAccountScreen } from '../features/delete-account/delete-account-screen';

/** `./DeleteAccount`, exposed to the shell for /delete. */
export default function DeleteAccount(_props: DeleteAccountProps) {
  return (
    <RemoteFrame name={__APP_NAME__} version={__APP_VERSION__}>
      <DeleteAccountScreen />
    </RemoteFrame>
  );
}
