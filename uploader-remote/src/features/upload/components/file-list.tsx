import { memo, useEffect, useState, type UIEvent } from 'react';
import { cameraLabel } from '../model/camera-match';
import { formatBytes } from '../model/format-size';
import { captureDate, type PhotoExif } from '../model/photo-exif';
import type { FileStatus, ListedFile } from '../model/upload-queue';
import { formatCount } from '../model/messages';
import type { ThumbnailSource } from '../services/thumbnail-cache';
import { visibleRange } from './virtual-range';

const ROW_HEIGHT = 56;
const VIEWPORT_HEIGHT = 336;
const OVERSCAN = 6;

/** A file's status as words (waiting, uploading with %, failed with reason). */
export function statusText(status: FileStatus): string {
  switch (status.kind) {
    case 'checking':
      return 'Checking';
    case 'waiting':
      return 'Waiting';
    case 'uploading':
      return `Uploading ${status.percent}%`;
    case 'retrying':
      return `Retrying after: ${status.reason}`;
    case 'failed':
      return `Failed: ${status.reason}`;
  }
}

const takenAt = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });

/** When and with what the photo was taken, from its EXIF: "Oct 3, 05:12 · Browning BTC-8E" ("" when unknown). */
export function photoText(exif: PhotoExif | null | undefined): string {
  if (!exif) return '';
  const taken = captureDate(exif);
  const camera = exif.make || exif.model ? cameraLabel(exif) : '';
  // The camera's own clock (its UTC fields: model/photo-exif.ts), whatever the browser's zone.
  return [taken ? takenAt.format(taken) : '', camera].filter(Boolean).join(' · ');
}

/**
 * The row's thumbnail, asked for when the row is shown and dropped from the queue if the row
 * goes before its turn (fast scrolling asks for nothing it does not show).
 */
function useThumbnail(file: Blob, thumbnails: ThumbnailSource | undefined): string | null {
  const [url, setUrl] = useState<{ file: Blob; url: string | null } | null>(null);
  const cached = thumbnails?.cached(file);
  useEffect(() => {
    if (!thumbnails || cached !== undefined) return;
    const abort = new AbortController();
    void thumbnails.load(file, abort.signal).then((made) => {
      if (!abort.signal.aborted) setUrl({ file, url: made });
    });
    return () => abort.abort();
  }, [file, thumbnails, cached]);
  if (cached !== undefined) return cached;
  return url?.file === file ? url.url : null;
}

interface RowProps {
  file: ListedFile;
  thumbnails: ThumbnailSource | undefined;
  index: number;
  count: number;
  busy: boolean;
  onRemove: (id: string) => void;
  onRetry: (id: string) => void;
}

const Row = memo(function Row({ file, thumbnails, index, count, busy, onRemove, onRetry }: RowProps) {
  const thumbnail = useThumbnail(file.file, thumbnails);
  const photo = photoText(file.exif);
  return (
    <li
      className={`file-row file-row--${file.status.kind}`}
      style={{ top: index * ROW_HEIGHT, height: ROW_HEIGHT }}
      aria-setsize={count}
      aria-posinset={index + 1}
    >
      {/* Decorative: the name beside it says which photo it is. */}
      <span className="file-row__thumb" aria-hidden="true">
        {thumbnail && <img src={thumbnail} alt="" width={48} height={36} decoding="async" />}
      </span>
      <span className="file-row__text">
        {/* Names are text, never markup. */}
        <span className="file-row__name" title={file.name}>
          {file.name}
        </span>
        <span className="file-row__status">
          {formatBytes(file.size)}
          {photo && ` · ${photo}`} · {statusText(file.status)}
        </span>
      </span>
      {file.status.kind === 'failed' && (
        <button type="button" className="file-row__retry" disabled={busy} onClick={() => onRetry(file.id)}>
          Retry<span className="visually-hidden"> {file.name}</span>
        </button>
      )}
      <button type="button" className="icon-button" aria-label={`Remove ${file.name}`} disabled={busy} onClick={() => onRemove(file.id)}>
        <svg aria-hidden="true" focusable="false" width="16" height="16" viewBox="0 0 16 16">
          <path d="M3 3l10 10M13 3L3 13" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        </svg>
      </button>
    </li>
  );
});

export interface FileListProps {
  files: readonly ListedFile[];
  busy: boolean;
  onRemove: (id: string) => void;
  onRetry: (id: string) => void;
  /** Where row thumbnails come from; none are shown without it. */
  thumbnails?: ThumbnailSource;
}

/**
 * The file list, virtualised: only the rows in view (plus a few) are in the DOM, so 10,000
 * files cost about 20 rows. Written here rather than added as a dependency: fixed-height rows
 * need thirty lines, and the shared-singleton list stays as it is.
 */
export function FileList({ files, busy, onRemove, onRetry, thumbnails }: FileListProps) {
  const [scrollTop, setScrollTop] = useState(0);
  const count = files.length;
  // The scroll box goes while the list is empty; a list filled again starts at its top, or the
  // old offset would render rows past its end (a blank list).
  if (count === 0 && scrollTop !== 0) setScrollTop(0);
  const height = Math.min(VIEWPORT_HEIGHT, Math.max(ROW_HEIGHT, count * ROW_HEIGHT));
  const { start, end } = visibleRange({ scrollTop, viewportHeight: height, rowHeight: ROW_HEIGHT, count, overscan: OVERSCAN });
  const onScroll = (event: UIEvent<HTMLDivElement>) => setScrollTop(event.currentTarget.scrollTop);
  if (count === 0) return <p className="file-list__empty">No files in the list.</p>;
  return (
    <div className="file-list" style={{ height }} onScroll={onScroll} tabIndex={0} role="region" aria-label={`File list, ${formatCount(count)} files`}>
      <ul className="file-list__rows" style={{ height: count * ROW_HEIGHT }} aria-label="Files to upload">
        {files.slice(start, end).map((file, i) => (
          <Row key={file.id} file={file} thumbnails={thumbnails} index={start + i} count={count} busy={busy} onRemove={onRemove} onRetry={onRetry} />
        ))}
      </ul>
    </div>
  );
}
