/**
 * The object-created function's decision lines as upload counts (src/object-created/metrics.ts):
 * a counted or refused photo's line carries CloudWatch's embedded metric format, one data point of
 * `TrailSense/ObjectsCounted` or `ObjectsRefused` for the environment; every other decision, and
 * any line without an environment name, stays a plain line.
 */
import { decisionLogLine, UPLOAD_METRICS } from '../src/object-created/metrics';
import type { Decision } from '../src/object-created/handler';

const AT = new Date('2026-03-14T15:09:26.535Z');
const counted: Decision = { decision: 'counted', bucket: 'b', key: 'public/cedar-creek/a.jpg', ranchId: 'cedar-creek', yearmo: '2026_03', slot: 'reserved' };
const refused: Decision = {
  decision: 'refused',
  bucket: 'b',
  key: 'public/cedar-creek/b.jpg',
  ranchId: 'cedar-creek',
  yearmo: '2026_03',
  reason: 'monthly-limit',
};

const emf = (metric: string) => ({
  _aws: {
    Timestamp: AT.getTime(),
    CloudWatchMetrics: [{ Namespace: 'TrailSense', Dimensions: [['Environment']], Metrics: [{ Name: metric, Unit: 'Count' }] }],
  },
  Environment: 'production',
  [metric]: 1,
});

test('a counted photo: the decision line with one ObjectsCounted data point for the environment', () => {
  expect(decisionLogLine(counted, 'production', AT)).toEqual({ source: 'object-created', ...counted, ...emf('ObjectsCounted') });
});

test('a refused object: one ObjectsRefused data point, the reason still in the line', () => {
  const line = decisionLogLine(refused, 'production', AT);
  expect(line).toEqual({ source: 'object-created', ...refused, ...emf('ObjectsRefused') });
  expect(UPLOAD_METRICS).toMatchObject({ namespace: 'TrailSense', dimension: 'Environment', counted: 'ObjectsCounted', refused: 'ObjectsRefused' });
});

test.each<Decision>([
  { decision: 'duplicate', bucket: 'b', key: 'public/cedar-creek/a.jpg', ranchId: 'cedar-creek', yearmo: '2026_03' },
  { decision: 'ignored', eventName: 'ObjectCreated:Copy', bucket: 'b', key: 'other/x' },
  { decision: 'gone', bucket: 'b', key: 'public/cedar-creek/c.jpg' },
  { decision: 'failed', bucket: 'b', key: 'public/cedar-creek/d.jpg', error: 'throttled' },
])('a $decision decision counts nothing: the plain line', (decision) => {
  expect(decisionLogLine(decision, 'production', AT)).toEqual({ source: 'object-created', ...decision });
});

test('without the environment name (METRICS_ENVIRONMENT unset) no metric, the line alone', () => {
  expect(decisionLogLine(counted, undefined, AT)).toEqual({ source: 'object-created', ...counted });
  expect(decisionLogLine(counted, '', AT)).toEqual({ source: 'object-created', ...counted });
});

test('the line is one JSON document CloudWatch can read (no metric value under another name)', () => {
  const text = JSON.stringify(decisionLogLine(counted, 'production', AT));
  expect(JSON.parse(text)).toMatchObject({ ObjectsCounted: 1, Environment: 'production' });
  expect(text).not.toContain('\n');
});
