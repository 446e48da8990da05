import { useCallback, useEffect, useRef, useState } from 'react';
import type { Camera } from '@trailsense/shared/aws';
import { activeSubscription, quotaFrom, yearMonth, type ActiveSubscription, type Quota } from '../model/quota';
import { subscriptionErrorMessage } from '../model/messages';
import type { UploaderServices } from '../services/uploader-services';

/** The subscription as the screen knows it. */
export type SubscriptionState =
  | { kind: 'loading' }
  | { kind: 'known'; active: ActiveSubscription | null }
  /** SPEC.md §8: shown in the error area. */
  | { kind: 'failed'; message: string };

export interface AccountState {
  subscription: SubscriptionState;
  quota: Quota;
  cameras: Camera[];
  /** Fetches this month's total again (after a batch). */
  refreshQuota: () => Promise<void>;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The account facts the uploader needs: subscription, ranch limit, this month's total, cameras.
 * Only the subscription's failure is shown; the others are logged and fall back to the SPEC's
 * empty values (max 0, total "", no cameras), so the screen still works.
 */
export function useAccount(services: UploaderServices, email: string, ranchId: string | undefined): AccountState {
  const [subscription, setSubscription] = useState<SubscriptionState>({ kind: 'loading' });
  const [maxMonthly, setMaxMonthly] = useState<number | null>(null);
  const [total, setTotal] = useState<string | null>(null);
  const [cameras, setCameras] = useState<Camera[]>([]);
  const live = useRef(true);

  const fetchTotal = useCallback(async () => {
    if (!ranchId) return setTotal('');
    try {
      const metrics = await services.api.getUploadMetrics(ranchId, yearMonth(services.now()));
      if (live.current) setTotal(metrics.total ?? '');
    } catch (error) {
      services.logError('Could not fetch the upload metrics', error);
      if (live.current) setTotal((t) => t ?? '');
    }
  }, [services, ranchId]);

  useEffect(() => {
    live.current = true;
    services.api
      .getSubscription(email)
      .then((res) => live.current && setSubscription({ kind: 'known', active: activeSubscription(res.subscriber?.entitlements, services.now()) }))
      .catch((error: unknown) => {
        services.logError('Could not fetch the subscription', error);
        if (live.current) setSubscription({ kind: 'failed', message: subscriptionErrorMessage(errorText(error)) });
      });
    if (ranchId) {
      services.api
        .getRanch(ranchId)
        .then((res) => live.current && setMaxMonthly(Number(res.max_monthly_uploads) || 0))
        .catch((error: unknown) => {
          services.logError('Could not fetch the ranch', error);
          if (live.current) setMaxMonthly(0);
        });
      services.api
        .getCameras(ranchId)
        .then((res) => live.current && setCameras(Array.isArray(res.Cameras) ? res.Cameras : []))
        .catch((error: unknown) => services.logError('Could not fetch the cameras', error));
    } else {
      setMaxMonthly(0);
    }
    void fetchTotal();
    return () => {
      live.current = false;
    };
  }, [services, email, ranchId, fetchTotal]);

  const quota: Quota =
    subscription.kind === 'loading' || maxMonthly === null || total === null
      ? { kind: 'loading' }
      : quotaFrom({ maxMonthlyUploads: maxMonthly, subscribed: subscription.kind === 'known' && subscription.active !== null, total });

  return { subscription, quota, cameras, refreshQuota: fetchTotal };
}
