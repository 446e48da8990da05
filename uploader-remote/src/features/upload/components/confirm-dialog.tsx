import { useLayoutEffect, useRef, type SyntheticEvent } from 'react';
import styles from './uploader.module.css';

export interface ConfirmDialogProps {
  title: string;
  question: string;
  onAnswer: (ok: boolean) => void;
}

/**
 * A modal confirm (OK / Cancel): the native <dialog>, opened with showModal() while it is on
 * screen. The browser moves focus in (to OK, its first button), keeps Tab inside, makes the page
 * behind it inert and shows it in the top layer; Escape is Cancel. When it goes, focus goes back
 * to where it was (the Upload button).
 */
export function ConfirmDialog({ title, question, onAnswer }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const element = dialog.current;
    if (!element) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    element.showModal();
    return () => {
      element.close();
      opener?.focus();
    };
  }, []);
  // Escape: the browser's `cancel`. It would close the dialog; the answer removes it instead.
  const onCancel = (event: SyntheticEvent<HTMLDialogElement>) => {
    event.preventDefault();
    onAnswer(false);
  };
  return (
    <dialog ref={dialog} role="alertdialog" aria-labelledby="confirm-title" aria-describedby="confirm-question" className={styles.dialog} onCancel={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <p id="confirm-question">{question}</p>
      <div className={styles.dialogButtons}>
        <button type="button" className={`${styles.button} ${styles.primary}`} onClick={() => onAnswer(true)}>
          OK
        </button>
        <button type="button" className={styles.button} onClick={() => onAnswer(false)}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
