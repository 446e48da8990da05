import { useRef, type KeyboardEvent } from 'react';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]:not([tabindex="-1"])';

/**
 * "How do I create an account?": a modal dialog (the native <dialog>, so the page behind it is
 * inert and Escape closes it), with Tab kept inside and focus returned to the button on close.
 */
export function AccountHelpDialog({ productName }: { productName: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);

  const close = () => dialog.current?.close();

  const keepFocusInside = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== 'Tab' || !dialog.current) return;
    const items = [...dialog.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <>
      <button ref={opener} type="button" className="link-button" onClick={() => dialog.current?.showModal()}>
        How do I create an account?
      </button>
      <dialog
        ref={dialog}
        className="account-help"
        aria-labelledby="account-help-title"
        onKeyDown={keepFocusInside}
        onClose={() => opener.current?.focus()}
      >
        <h2 id="account-help-title">How do I create an account?</h2>
        <ol>
          <li>Download the {productName} app from the App Store or Google Play.</li>
          <li>Open the app and follow the account creation steps.</li>
          <li>Come back to this site and sign in with the same email and password to use it for high-performance uploads.</li>
        </ol>
        <button type="button" className="button" onClick={close} autoFocus>
          Close
        </button>
      </dialog>
    </>
  );
}
