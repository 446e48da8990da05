/**
 * A release's files as the deploy records and uploads them, and the steps they go up in: what the
 * planners (plan.ts, rollback-plan.ts) make, order.ts puts in order and execute.ts runs. Its own
 * module so that plan.ts and order.ts both import it without importing each other.
 */
import type { FileKind } from './files';

/** A file of a release: in its record (`_releases/<time>-<id>.json`) and as uploaded, with the headers it is served with. */
export interface ReleaseFile {
  path: string;
  size: number;
  md5: string;
  kind: FileKind;
  contentType: string;
  cacheControl: string;
}

/** Uploads that go up together, after the step before and before the next (order.ts). */
export interface UploadStep {
  name: string;
  /** Whether the step's uploads may run at once (bounded) or one after another, in order. */
  parallel: boolean;
  uploads: ReleaseFile[];
  /** The uploads are the entry files' copies (at `entryCopyKey(md5)`), not the served files. */
  copies?: boolean;
}

/** The part of the shell's routes.json that names viewer paths (infra/src/hosting/shell-routes.ts). */
export interface RoutedPaths {
  pages: Record<string, string>;
  appPaths: string[];
  app: string;
}
