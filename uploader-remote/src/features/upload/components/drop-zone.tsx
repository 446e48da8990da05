import { useEffect, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { entriesFromDataTransfer, type EntryLike } from '../services/files/folder-walk';
import styles from './uploader.module.css';

/** What a drop gave: plain files, and entries (files and folders) to walk. */
export interface Dropped {
  entries: EntryLike[];
  files: File[];
}

const carriesFiles = (event: { dataTransfer: DataTransfer | null }) => !!event.dataTransfer && Array.from(event.dataTransfer.types).includes('Files');

/** A text field takes drops of text as it always did; the page-wide target leaves it be. */
const isEditable = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || target.tagName === 'INPUT' || target.tagName === 'TEXTAREA');

/**
 * While the uploader is on screen the whole page is a drop target, as in Drive or Dropbox: files
 * or a card's folder dropped anywhere are added (unless `disabled`), and while they are dragged
 * over the page it says so (the returned flag shows the overlay). A drop of anything else (text,
 * a link) is ignored, and nothing dropped makes the browser leave the page (its default for a
 * dropped photo or link is to open it, which would stop a batch over a near miss). The zone
 * (DropZone) stays for keyboard and screen-reader users; a drop on it is its own.
 */
export function usePageDrop(onDrop: (dropped: Dropped) => void, disabled: boolean): boolean {
  const [dragging, setDragging] = useState(false);
  const latest = useRef({ onDrop, disabled });
  useEffect(() => {
    latest.current = { onDrop, disabled };
  });
  useEffect(() => {
    // dragenter/dragleave fire for every element crossed: count them to know when the pointer left the page.
    let depth = 0;
    const enter = (event: globalThis.DragEvent) => {
      if (!carriesFiles(event)) return;
      depth++;
      setDragging(true);
    };
    const leave = (event: globalThis.DragEvent) => {
      if (!carriesFiles(event)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const over = (event: globalThis.DragEvent) => {
      if (isEditable(event.target) || event.defaultPrevented) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = carriesFiles(event) && !latest.current.disabled ? 'copy' : 'none';
    };
    const drop = (event: globalThis.DragEvent) => {
      depth = 0;
      setDragging(false);
      if (isEditable(event.target) || event.defaultPrevented) return;
      event.preventDefault();
      if (!carriesFiles(event) || latest.current.disabled || !event.dataTransfer) return;
      // Now, inside the event: the browser empties the drop's items once the handler returns.
      latest.current.onDrop(entriesFromDataTransfer(event.dataTransfer));
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, []);
  return dragging;
}

export interface DropZoneProps {
  disabled: boolean;
  onDrop: (dropped: Dropped) => void;
  children: ReactNode;
}

/**
 * The visible place to drop photos and folders (a card's DCIM folder). It also says how to do
 * the same without a mouse: the buttons it holds (Add Images, Add Folder) are the keyboard way.
 */
export function DropZone({ disabled, onDrop, children }: DropZoneProps) {
  const [over, setOver] = useState(false);
  // dragenter/dragleave fire for every child crossed: count them to know when the pointer left.
  const depth = useRef(0);
  const onDragEnter = (event: DragEvent<HTMLDivElement>) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth.current++;
    setOver(true);
  };
  const onDragLeave = () => {
    depth.current = Math.max(0, depth.current - 1);
    if (depth.current === 0) setOver(false);
  };
  const onDragOver = (event: DragEvent<HTMLDivElement>) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = disabled ? 'none' : 'copy';
  };
  const onDropEvent = (event: DragEvent<HTMLDivElement>) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    depth.current = 0;
    setOver(false);
    if (disabled) return;
    // Now, inside the event: the browser empties the drop's items once the handler returns.
    onDrop(entriesFromDataTransfer(event.dataTransfer));
  };
  return (
    <div
      className={over ? `${styles.drop} ${styles.dropOver}` : styles.drop}
      onDragEnter={onDragEnter}
      onDragLeave={onDragLeave}
      onDragOver={onDragOver}
      onDrop={onDropEvent}
      data-testid="drop-zone"
    >
      <p className={styles.dropText}>
        {disabled ? 'Files can be added when this batch ends.' : 'Drop photos or a card’s DCIM folder here. With a keyboard, use Add Images or Add Folder.'}
      </p>
      {children}
    </div>
  );
}
