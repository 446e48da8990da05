import { RemoteFrame, type LoginProps } from '@trailsense/shared';
import { LoginScreen } from '../features/login/login-screen';

/** `./Login`, exposed to the shell for /login. */
export default function Login(props: LoginProps) {
  return (
    <RemoteFrame name={__APP_NAME__} version={__APP_VERSION__}>
      <LoginScreen {...props} />
    </RemoteFrame>
  );
}
