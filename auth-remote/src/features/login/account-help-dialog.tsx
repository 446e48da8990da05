import { useRef } from 'react';
import page from '../../styles/auth.module.css';
import styles from './login.module.css';

/**
 * "How do I create an account?": the native modal <dialog>, opened with showModal(). The browser
 * keeps focus inside it, closes it on Escape, makes the page behind it inert and shows it in the
 * top layer; focus goes back to the button when it closes.
 */
export function AccountHelpDialog({ productName }: { productName: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);

  return (
    <>
      <button ref={opener} type="button" className={styles.linkButton} onClick={() => dialog.current?.showModal()}>
        How do I create an account?
      </button>
      <dialog ref={dialog} className={styles.help} aria-labelledby="account-help-title" onClose={() => opener.current?.focus()}>
        <h2 id="account-help-title">How do I create an account?</h2>
        <ol>
          <li>Download the {productName} app from the App Store or Google Play.</li>
          <li>Open the app and follow the account creation steps.</li>
          <li>Come back to this site and sign in with the same email and password to use it for high-performance uploads.</li>
        </ol>
        <button type="button" className={page.button} onClick={() => dialog.current?.close()}>
          Close
        </button>
      </dialog>
    </>
  );
}
