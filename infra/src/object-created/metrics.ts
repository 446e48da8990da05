/**
 * Upload counts as CloudWatch metrics, from the decision lines the object-created function already
 * writes (handler.ts's `Decision`): a counted or refused object's line carries CloudWatch's
 * embedded metric format, so CloudWatch Logs turns it into one data point of `ObjectsCounted` or
 * `ObjectsRefused` (namespace `TrailSense`, dimension `Environment`) — no API call, no extra line.
 * The Monitoring stack's dashboard shows them per hour (docs/operations.md#upload-counts).
 *
 * Lambda's own Invocations would count S3 events, not photos: redeliveries, retries, refused and
 * already-counted objects included. Only the ledger's decision says a photo was counted.
 */
import type { Decision } from './handler';

export const UPLOAD_METRICS = {
  namespace: 'TrailSense',
  /** The one dimension: the environment's name (settings `name`), so the dashboard can name the metric before the function exists. */
  dimension: 'Environment',
  /** A new photo counted in the ledger (not a duplicate). */
  counted: 'ObjectsCounted',
  /** An object refused and removed, whatever the reason (the reason is in the line). */
  refused: 'ObjectsRefused',
} as const;

/** The environment variable the Uploads stack sets to the environment's name (src/stacks/uploads-stack.ts). */
export const METRICS_ENVIRONMENT_VARIABLE = 'METRICS_ENVIRONMENT';

const METRIC_OF: Partial<Record<Decision['decision'], string>> = { counted: UPLOAD_METRICS.counted, refused: UPLOAD_METRICS.refused };

/**
 * One decision's log line: `{ source: 'object-created', ...decision }`, and for a counted or
 * refused object the embedded-metric fields (`_aws`, the dimension, the metric = 1). Without an
 * environment name there is no metric (the line alone; counting never depends on metrics).
 */
export function decisionLogLine(decision: Decision, environment: string | undefined, at: Date): Record<string, unknown> {
  const line: Record<string, unknown> = { source: 'object-created', ...decision };
  const metric = METRIC_OF[decision.decision];
  if (!metric || !environment) return line;
  return {
    ...line,
    _aws: {
      Timestamp: at.getTime(),
      CloudWatchMetrics: [{ Namespace: UPLOAD_METRICS.namespace, Dimensions: [[UPLOAD_METRICS.dimension]], Metrics: [{ Name: metric, Unit: 'Count' }] }],
    },
    [UPLOAD_METRICS.dimension]: environment,
    [metric]: 1,
  };
}
