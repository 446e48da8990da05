import { memo, useEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { cameraLabel } from '../model/camera-match';
import { formatMonthDayTimeUTC } from '../model/en-us-format';
import { formatBytes } from '../model/format-size';
import { captureDate, type PhotoExif } from '../model/photo-exif';
import type { FileStatus, ListedFile } from '../model/upload-queue';
import { formatCount, NOT_SENT_STATUS } from '../model/messages';
import type { ThumbnailSource } from '../services/files/thumbnail-cache';
import styles from './uploader.module.css';

/** Every row's height, in px: fixed, so nothing is measured. The list box shows six (uploader.module.css). */
const ROW_HEIGHT = 56;
/** Rows rendered beyond each end of the view, so a fast scroll shows no blank rows. */
const OVERSCAN = 6;
const rowHeight = () => ROW_HEIGHT;

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
    case 'not-sent':
      return NOT_SENT_STATUS[status.reason];
  }
}

/** When and with what the photo was taken, from its EXIF: "Oct 3, 05:12 · Browning BTC-8E" ("" when unknown). */
export function photoText(exif: PhotoExif | null | undefined): string {
  if (!exif) return '';
  const taken = captureDate(exif);
  const camera = exif.make || exif.model ? cameraLabel(exif) : '';
  // The camera's own clock (its UTC fields: model/photo-exif.ts), whatever the browser's zone.
  // A time a stage corrected (a camera's lost clock) says so.
  const time = taken ? `${formatMonthDayTimeUTC(taken)}${exif.cameraCaptureTime ? ' (corrected)' : ''}` : '';
  return [time, camera].filter(Boolean).join(' · ');
}

/**
 * The row's thumbnail, asked for when the row is shown and dropped from the queue if the row
 * goes before its turn (fast scrolling asks for nothing it does not show).
 */
export function useThumbnail(file: Blob, thumbnails: ThumbnailSource | undefined): string | null {
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
  /** The row's offset from the top of the list, in px. */
  start: number;
  count: number;
  busy: boolean;
  onRemove: (id: string) => void;
  onRetry: (id: string) => void;
  /** When and with what it was taken, as shown (photoText of its EXIF as the stages leave it). */
  photo: string;
}

const Row = memo(function Row({ file, thumbnails, index, start, count, busy, onRemove, onRetry, photo }: RowProps) {
  const thumbnail = useThumbnail(file.file, thumbnails);
  return (
    <li
      className={file.status.kind === 'failed' ? `${styles.row} ${styles.failed}` : styles.row}
      // Where the virtual list puts the row. Set by React through the CSSOM (element.style), which a
      // Content-Security-Policy's style-src does not block (only style="" in markup and <style> are).
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT }}
      aria-setsize={count}
      aria-posinset={index + 1}
    >
      {/* Decorative: the name beside it says which photo it is. */}
      <span className={styles.thumb} aria-hidden="true">
        {thumbnail && <img src={thumbnail} alt="" width={48} height={36} decoding="async" />}
      </span>
      <span className={styles.rowText}>
        {/* Names are text, never markup. */}
        <span className={styles.rowName} title={file.name}>
          {file.name}
        </span>
        <span className={styles.rowStatus}>
          {formatBytes(file.size)}
          {photo && ` · ${photo}`} · {statusText(file.status)}
        </span>
      </span>
      {file.status.kind === 'failed' && (
        <button type="button" className={styles.retry} disabled={busy} onClick={() => onRetry(file.id)}>
          Retry<span className={styles.visuallyHidden}> {file.name}</span>
        </button>
      )}
      <button type="button" className={styles.iconButton} aria-label={`Remove ${file.name}`} disabled={busy} onClick={() => onRemove(file.id)}>
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
  /** A photo's EXIF as shown: as the stages leave it (a corrected clock). Default: as read. */
  exifOf?: (file: ListedFile) => PhotoExif | null;
}

/**
 * The file list, virtualised (@tanstack/react-virtual): only the rows in view, and a few either
 * side, are in the DOM, so 10,000 files cost about 20 rows. The list box is a focusable region,
 * so the keyboard scrolls it too.
 */
export function FileList({ files, busy, onRemove, onRetry, thumbnails, exifOf }: FileListProps) {
  if (files.length === 0) return <p>No files in the list.</p>;
  // Mounted anew whenever the list fills again: it starts at the top, as its new scroll box does.
  return <VirtualFileList files={files} busy={busy} onRemove={onRemove} onRetry={onRetry} thumbnails={thumbnails} exifOf={exifOf} />;
}

function VirtualFileList({ files, busy, onRemove, onRetry, thumbnails, exifOf = (file) => file.exif ?? null }: FileListProps) {
  const scrollBox = useRef<HTMLDivElement>(null);
  const count = files.length;
  // eslint-disable-next-line react-hooks/incompatible-library -- no React Compiler here; the virtualizer's functions are used as returned
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollBox.current,
    estimateSize: rowHeight,
    overscan: OVERSCAN,
  });
  return (
    // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scroll box must take focus for the keyboard to scroll it
    <div ref={scrollBox} className={styles.fileList} tabIndex={0} role="region" aria-label={`File list, ${formatCount(count)} files`}>
      {/* Its height is the whole list's, set through the CSSOM like the rows' positions. */}
      <ul className={styles.rows} style={{ height: virtualizer.getTotalSize() }} aria-label="Files to upload">
        {virtualizer.getVirtualItems().map(({ index, start }) => {
          const file = files[index];
          return (
            file && (
              <Row
                key={file.id}
                file={file}
                thumbnails={thumbnails}
                index={index}
                start={start}
                count={count}
                busy={busy}
                onRemove={onRemove}
                onRetry={onRetry}
                photo={photoText(exifOf(file))}
              />
            )
          );
        })}
      </ul>
    </div>
  );
}
