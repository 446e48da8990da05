import { startStandalone } from '@trailsense/shared/aws';
import Uploader from './expose/uploader';

void startStandalone({ name: __APP_NAME__, version: __APP_VERSION__, screens: { Uploader } });
