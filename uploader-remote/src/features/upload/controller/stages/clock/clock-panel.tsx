import { useId, useMemo, useState } from 'react';
import type { ClockRun } from './clock-runs';
import { runNotice } from './clock-runs';
import type { QuarterTurn } from '../../../model/photo-exif';
import type { ThumbnailSource } from '../../../services/files/thumbnail-cache';
import type { StagePanelProps } from '../stage';
import * as text from './clock-messages';
import { parseClockSettings, runKey, withCorrection, withKept, withoutCorrection, withTurn, type ClockSettings } from './clock-settings';
import { clockView, correctBy, correctRunTo, offsetFromAmount, parseLocalTime, type ClockView, type OffsetUnit } from './clock-view';
import { panelStyles as ui, useThumbnail } from '../panel-kit';
import styles from './clock.module.css';

const HOUR_MS = 3_600_000;

/**
 * The camera-clock stage's panel (clock-stage.ts): each run of photos taken with a lost clock,
 * named with a form to set it right in one step or leave it; the corrections made, each with
 * Undo; and, for a clock merely off or a camera strapped sideways, a camera's whole card moved or
 * turned. Thin: the facts and rules are clock-view.ts's and clock-runs.ts's.
 */
export function ClockPanel({ files, settings: raw, save, camera, now, running, thumbnails }: StagePanelProps) {
  const settings = useMemo(() => parseClockSettings(raw), [raw]);
  // "The future" moves with the hour, not with every render.
  const hour = Math.floor(now / HOUR_MS);
  const view = useMemo(() => clockView(files, settings, hour * HOUR_MS, camera), [files, settings, hour, camera]);
  const [announcement, setAnnouncement] = useState('');
  if (files.length === 0) return null;
  const apply = (next: ClockSettings, said: string) => {
    save(next);
    setAnnouncement(said);
  };
  return (
    <section className={styles.clock} aria-labelledby="clock-heading" data-testid="camera-clocks">
      <h3 id="clock-heading">{text.CLOCK_HEADING}</h3>
      {view.runs.map((run) => (
        <RunForm key={runKey(run)} run={run} view={view} now={now} running={running} settings={settings} apply={apply} />
      ))}
      {view.corrections.length > 0 && (
        <ul className={styles.corrections} aria-label="Corrections">
          {view.corrections.map(({ correction, moved }, i) => {
            const said = text.correctionText(view.label(correction.camera), moved, correction.offsetSeconds);
            return (
              <li key={`${i}-${correction.camera}-${correction.offsetSeconds}`}>
                <span>{said}</span>{' '}
                <button type="button" className={ui.button} disabled={running} onClick={() => apply(withoutCorrection(settings, i), text.UNDONE_ANNOUNCEMENT)}>
                  {text.UNDO}
                  <span className={ui.visuallyHidden}> {said}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <details className={styles.adjust}>
        <summary>{text.ADJUST_SUMMARY}</summary>
        <CameraForm view={view} now={now} running={running} settings={settings} apply={apply} thumbnails={thumbnails} />
      </details>
      <p className={ui.visuallyHidden} role="status">
        {announcement}
      </p>
    </section>
  );
}

interface FormProps {
  view: ClockView;
  now: number;
  running: boolean;
  settings: ClockSettings;
  apply: (next: ClockSettings, said: string) => void;
}

/** The amount, unit and direction of a move, as the two forms ask for it. */
function MoveBy({
  id,
  label,
  onMove,
  running,
  button,
}: {
  id: string;
  label: string;
  onMove: (seconds: number | null) => void;
  running: boolean;
  button: string;
}) {
  const [amount, setAmount] = useState('');
  const [unit, setUnit] = useState<OffsetUnit>('hours');
  const [direction, setDirection] = useState<'later' | 'earlier'>('later');
  return (
    <p className={styles.row}>
      <label htmlFor={`${id}-amount`}>{label}</label>
      <input
        id={`${id}-amount`}
        className={styles.amount}
        type="number"
        min="0"
        step="any"
        inputMode="decimal"
        value={amount}
        onChange={(e) => setAmount(e.currentTarget.value)}
        disabled={running}
      />
      <select aria-label="Unit" value={unit} onChange={(e) => setUnit(e.currentTarget.value as OffsetUnit)} disabled={running}>
        <option value="minutes">minutes</option>
        <option value="hours">hours</option>
        <option value="days">days</option>
      </select>
      <select aria-label="Direction" value={direction} onChange={(e) => setDirection(e.currentTarget.value as 'later' | 'earlier')} disabled={running}>
        <option value="later">later</option>
        <option value="earlier">earlier</option>
      </select>
      <button type="button" className={ui.button} disabled={running} onClick={() => onMove(offsetFromAmount(amount, unit, direction))}>
        {button}
      </button>
    </p>
  );
}

/** One run: its notice, "When was … really taken?", or move by an amount, or leave it. */
function RunForm({ run, view, now, running, settings, apply }: FormProps & { run: ClockRun }) {
  const id = useId();
  const [time, setTime] = useState('');
  const [refusal, setRefusal] = useState('');
  const notice = runNotice(run, view.label(run.camera));
  const tryCorrection = (made: ReturnType<typeof correctBy> | null, missing: string) => {
    if (!made) return setRefusal(missing);
    if (!made.verdict.ok) return setRefusal(made.verdict.message);
    setRefusal('');
    apply(withCorrection(settings, made.correction), text.correctedAnnouncement(made.verdict.moved));
  };
  const real = parseLocalTime(time);
  return (
    <div className={styles.run} role="group" aria-labelledby={`${id}-notice`}>
      <p id={`${id}-notice`} className={styles.notice}>
        {notice}
      </p>
      <p className={styles.row}>
        <label htmlFor={`${id}-time`}>{text.realTimeLabel(run.first.name)}</label>
        <input id={`${id}-time`} type="datetime-local" step="1" value={time} onChange={(e) => setTime(e.currentTarget.value)} disabled={running} />
        <button
          type="button"
          className={ui.button}
          disabled={running}
          onClick={() => tryCorrection(real && correctRunTo(view, run, real, now), text.TIME_NEEDED)}
        >
          {text.SET_TIME}
        </button>
      </p>
      <MoveBy
        id={`${id}-by`}
        label={text.MOVE_BY_LABEL}
        running={running}
        button={text.MOVE}
        onMove={(seconds) => tryCorrection(seconds === null ? null : correctBy(view, run.camera, seconds, now, run), text.AMOUNT_NEEDED)}
      />
      <p>
        <button type="button" className={ui.button} disabled={running} onClick={() => apply(withKept(settings, runKey(run)), '')}>
          {text.LEAVE}
        </button>
      </p>
      <p className={styles.refusal} role="alert">
        {refusal}
      </p>
    </div>
  );
}

/** A camera's whole card: moved by an amount (a clock merely off), or turned upright with a preview. */
function CameraForm({ view, now, running, settings, apply, thumbnails }: FormProps & { thumbnails?: ThumbnailSource }) {
  const id = useId();
  const [chosen, setChosen] = useState('');
  const [refusal, setRefusal] = useState('');
  const camera = view.cameras.find((c) => c.key === chosen) ?? view.cameras[0];
  if (!camera) return null;
  const turn = settings.turns[camera.key] ?? 0;
  return (
    <div className={styles.cameraForm}>
      <p className={styles.row}>
        <label htmlFor={`${id}-camera`}>{text.CAMERA_LABEL}</label>
        <select id={`${id}-camera`} value={camera.key} onChange={(e) => setChosen(e.currentTarget.value)} disabled={running}>
          {view.cameras.map((c) => (
            <option key={c.key} value={c.key}>
              {c.label} ({c.count} {c.count === 1 ? 'photo' : 'photos'})
            </option>
          ))}
        </select>
      </p>
      <MoveBy
        id={`${id}-by`}
        label="Move its clock by"
        running={running}
        button={text.MOVE_CAMERA}
        onMove={(seconds) => {
          if (seconds === null) return setRefusal(text.AMOUNT_NEEDED);
          const made = correctBy(view, camera.key, seconds, now);
          if (!made.verdict.ok) return setRefusal(made.verdict.message);
          setRefusal('');
          apply(withCorrection(settings, made.correction), text.correctedAnnouncement(made.verdict.moved));
        }}
      />
      <p className={styles.refusal} role="alert">
        {refusal}
      </p>
      <fieldset className={styles.turns} disabled={running}>
        <legend>{text.TURN_LEGEND}</legend>
        <div className={styles.turnChoices}>
          {text.TURN_OPTIONS.map((option) => (
            <label key={option.turn} className={styles.turnChoice}>
              <input
                type="radio"
                name={`${id}-turn`}
                value={option.turn}
                checked={turn === option.turn}
                onChange={() => apply(withTurn(settings, camera.key, option.turn), option.label)}
              />{' '}
              {option.label}
            </label>
          ))}
        </div>
        <TurnPreview file={camera.sample.file} turn={turn} thumbnails={thumbnails} name={camera.sample.name} />
        <p className={styles.note}>{text.TURN_NOTE}</p>
      </fieldset>
    </div>
  );
}

const TURN_CLASS: Record<QuarterTurn | 0, string | undefined> = { 0: undefined, 90: styles.turn90, 180: styles.turn180, 270: styles.turn270 };

/** One of the camera's photos as it will stand (its thumbnail, turned). */
function TurnPreview({ file, turn, thumbnails, name }: { file: Blob; turn: QuarterTurn | 0; thumbnails?: ThumbnailSource; name: string }) {
  const url = useThumbnail(file, thumbnails);
  if (!url) return null;
  return (
    <span className={styles.preview} data-testid="turn-preview" data-turn={turn}>
      <img src={url} alt={`${name}, as it will be shown`} className={TURN_CLASS[turn]} width={96} height={72} />
    </span>
  );
}
