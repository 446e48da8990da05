/**
 * The run's transform stages, in the order a photo goes through them (docs/architecture.md#the-run-pipeline).
 * A new one is a folder under stages/ with its TransformStage (stage.ts), added here.
 */
import { clockStage } from './clock/clock-stage';
import { copiesStage } from './copies/copies-stage';
import type { TransformStage } from './stage';

// The clock first: a copy is made from the EXIF it corrected (upright, with the corrected time).
export const TRANSFORM_STAGES: readonly TransformStage[] = [clockStage, copiesStage];
