import { useEffect, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { entriesFromDataTransfer, type EntryLike } from '../services/folder-walk';
import styles from './uploader.module.css';

/** What a drop gave: plain files, and entries (files and folders) to walk. */
export interface Dropped {
  entries: EntryLike[];
  files: File[];
}

const carriesFiles = (event: { dataTransfer: DataTransfer | null }) => !!event.dataTransfer && Array.from(event.dataTransfer.types).includes('Files');

/**
 * While the uploader is on screen, files dropped anywhere else on the page are refused instead of
 * opened: a browser's default for a dropped photo is to navigate to it, which would leave the
 * uploader (and stop a batch) over a near miss.
 */
export function useNoDropNavigation(): void {
  useEffect(() => {
    const refuse = (event: globalThis.DragEvent) => {
      if (!carriesFiles(event) || event.defaultPrevented) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'none';
    };
    window.addEventListener('dragover', refuse);
    window.addEventListener('drop', refuse);
    return () => {
      window.removeEventListener('dragover', refuse);
      window.removeEventListener('drop', refuse);
    };
  }, []);
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
