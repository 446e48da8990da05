import { useMemo } from 'react';
import { RemoteFrame, useConfig, type UploaderProps } from '@trailsense/shared';
import { UploaderScreen } from '../features/upload/components/uploader-screen';
import { parseConcurrency, parseReservation, parseStallMs } from '../features/upload/model/concurrency';
import { realUploaderServices } from '../features/upload/services/real-services';
import { DEFAULT_STALL_MS } from '../features/upload/services/upload/upload-engine';

/**
 * `./Uploader`, exposed to the shell (route /uploader). `?concurrency=N` overrides the pool size,
 * `?stall=N` the seconds without progress before an upload is retried, `?reservation=<id>` sends
 * every photo under one reservation the caller asked for itself (benchmarks: bench/reservations.ts).
 */
export default function Uploader(_props: UploaderProps) {
  const config = useConfig();
  const services = useMemo(() => realUploaderServices(config), [config]);
  const options = useMemo(() => {
    const search = new URLSearchParams(window.location.search);
    const reservation = parseReservation(search.get('reservation'));
    return {
      concurrency: parseConcurrency(search.get('concurrency')),
      stallMs: parseStallMs(search.get('stall'), DEFAULT_STALL_MS),
      ...(reservation ? { reservation } : {}),
    };
  }, []);
  return (
    <RemoteFrame name={__APP_NAME__} version={__APP_VERSION__}>
      <UploaderScreen services={services} options={options} />
    </RemoteFrame>
  );
}
