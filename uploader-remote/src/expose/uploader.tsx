import { useMemo } from 'react';
import { RemoteFrame, useConfig, type UploaderProps } from '@trailsense/shared';
import { UploaderScreen } from '../features/upload/components/uploader-screen';
import { parseConcurrency } from '../features/upload/model/concurrency';
import { realUploaderServices } from '../features/upload/services/real-services';

/** `./Uploader`, exposed to the shell (route /uploader). `?concurrency=N` overrides the pool size. */
export default function Uploader(_props: UploaderProps) {
  const config = useConfig();
  const services = useMemo(() => realUploaderServices(config), [config]);
  const concurrency = parseConcurrency(new URLSearchParams(window.location.search).get('concurrency'));
  return (
    <RemoteFrame name={__APP_NAME__} version={__APP_VERSION__}>
      <UploaderScreen services={services} concurrency={concurrency} />
    </RemoteFrame>
  );
}
