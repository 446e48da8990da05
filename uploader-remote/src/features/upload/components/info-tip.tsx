import { useState, type KeyboardEvent } from 'react';
import styles from './uploader.module.css';

export interface InfoTipProps {
  /** The tooltip's id; the control it explains should name it in `aria-describedby` too. */
  id: string;
  /** The button's accessible name, e.g. "About the camera choice". */
  label: string;
  text: string;
}

/**
 * A tooltip that is not hover-only: a real button (reachable by Tab) that shows the text on
 * focus, hover or click, hides it on Escape, and is described by it, so screen readers read it.
 */
export function InfoTip({ id, label, text }: InfoTipProps) {
  const [open, setOpen] = useState(false);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') setOpen(false);
  };
  return (
    <span className={styles.tip} onMouseEnter={() => setOpen(true)} onMouseLeave={() => setOpen(false)}>
      <button
        type="button"
        className={styles.tipButton}
        aria-label={label}
        aria-describedby={id}
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      >
        <span aria-hidden="true">?</span>
      </button>
      <span role="tooltip" id={id} className={styles.tipText} hidden={!open}>
        {text}
      </span>
    </span>
  );
}
