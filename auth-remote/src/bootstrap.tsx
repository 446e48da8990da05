import { startStandalone } from '@trailsense/shared/aws';
import Login from './expose/login';
import Profile from './expose/profile';
import DeleteAccount from './expose/delete-account';

void startStandalone({ name: __APP_NAME__, version: __APP_VERSION__, screens: { Login, Profile, DeleteAccount } });
