import { useState } from 'react';
import type { BatchController } from '../controller/batch-controller';
import { CAP_CHOICE_TEXT, CAP_MBIT_INVALID, capNote, UPLOAD_SPEED_LABEL } from '../model/messages';
import { mbitOfBytesPerSecond, NO_CAP, parseMbit, type UploadCap } from '../model/upload-cap';
import styles from './uploader.module.css';

type Choice = keyof typeof CAP_CHOICE_TEXT;

const choiceOf = (cap: UploadCap): Choice => (cap.kind === 'share' ? (cap.share === 0.25 ? 'quarter' : 'half') : cap.kind);

/** The speed first offered for "At most a set speed": half the measured link, else 1 Mbit/s. */
function firstSpeed(linkMbit: number | null): number {
  return linkMbit === null ? 1 : Math.max(0.1, Math.round(linkMbit * 5) / 10);
}

interface UploadSpeedProps {
  controller: Pick<BatchController, 'setCap'>;
  cap: UploadCap;
  /** The link's speed as last measured here (bytes/s), null when never. */
  linkSpeed: number | null;
}

/**
 * "Upload speed" (docs/uploader.md#sending-over-a-rural-link): room left on the connection for the household, as
 * a share of its measured speed or a speed in Mbit/s. Remembered on this browser, and changeable
 * while a batch sends (it follows from its next upload).
 */
export function UploadSpeed({ controller, cap, linkSpeed }: UploadSpeedProps) {
  const linkMbit = linkSpeed === null ? null : mbitOfBytesPerSecond(linkSpeed);
  const [typed, setTyped] = useState(() => String(cap.kind === 'mbit' ? cap.mbit : firstSpeed(linkMbit)));
  const invalid = cap.kind === 'mbit' && parseMbit(typed) === null;
  const choose = (choice: Choice) => {
    if (choice === 'none') controller.setCap(NO_CAP);
    else if (choice === 'half' || choice === 'quarter') controller.setCap({ kind: 'share', share: choice === 'half' ? 0.5 : 0.25 });
    else {
      const mbit = parseMbit(typed) ?? firstSpeed(linkMbit);
      setTyped(String(mbit));
      controller.setCap({ kind: 'mbit', mbit });
    }
  };
  return (
    <div className={styles.copies}>
      <p className={styles.field}>
        <label htmlFor="uploader-cap">{UPLOAD_SPEED_LABEL}</label>
        <select id="uploader-cap" value={choiceOf(cap)} aria-describedby="uploader-cap-note" onChange={(e) => choose(e.currentTarget.value as Choice)}>
          {(Object.keys(CAP_CHOICE_TEXT) as Choice[]).map((choice) => (
            <option key={choice} value={choice}>
              {CAP_CHOICE_TEXT[choice]}
            </option>
          ))}
        </select>
        {cap.kind === 'mbit' && (
          <>
            <input
              id="uploader-cap-mbit"
              className={styles.capInput}
              type="text"
              inputMode="decimal"
              value={typed}
              aria-invalid={invalid}
              aria-describedby="uploader-cap-note"
              onChange={(e) => {
                const text = e.currentTarget.value;
                setTyped(text);
                const mbit = parseMbit(text);
                if (mbit !== null) controller.setCap({ kind: 'mbit', mbit });
              }}
            />{' '}
            <label htmlFor="uploader-cap-mbit">Mbit/s</label>
          </>
        )}
      </p>
      <p id="uploader-cap-note" className={styles.capNote} role={invalid ? 'alert' : undefined}>
        {invalid ? CAP_MBIT_INVALID : capNote(cap, linkMbit)}
      </p>
    </div>
  );
}
