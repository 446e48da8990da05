import { useEffect, useRef, type KeyboardEvent } from 'react';

export interface ConfirmDialogProps {
  title: string;
  question: string;
  onAnswer: (ok: boolean) => void;
}

/** A modal confirm (OK / Cancel) in the page: focus moves in, Escape cancels, Tab stays inside. */
export function ConfirmDialog({ title, question, onAnswer }: ConfirmDialogProps) {
  const ok = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    ok.current?.focus();
    return () => previous?.focus?.();
  }, []);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onAnswer(false);
    } else if (event.key === 'Tab') {
      event.preventDefault();
      (document.activeElement === ok.current ? cancel.current : ok.current)?.focus();
    }
  };
  return (
    <div className="dialog-backdrop">
      <div role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" aria-describedby="confirm-question" className="dialog" onKeyDown={onKeyDown}>
        <h2 id="confirm-title">{title}</h2>
        <p id="confirm-question">{question}</p>
        <div className="dialog__buttons">
          <button ref={ok} type="button" className="button button--primary" onClick={() => onAnswer(true)}>
            OK
          </button>
          <button ref={cancel} type="button" className="button" onClick={() => onAnswer(false)}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
