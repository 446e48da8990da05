import { formatCount } from './messages';

/**
 * Which camera took a selection's photos, from their EXIF make, model and serial, and which of
 * the ranch's cameras that probably is.
 *
 * A batch carries exactly one camera name, so the uploader can (a) suggest that name when every
 * identified photo comes from one camera, and (b) warn when a selection mixes cameras, since one
 * name would then be recorded for photos of several.
 *
 * Photos without an identity (no EXIF, or neither make nor model) are left out of both: they
 * neither count as another camera nor stop a suggestion. Cards are rarely mixed, and an edited or
 * stripped copy of a photo should not hide the camera the rest of the card names.
 *
 * A suggestion is only ever a preselection of the dropdown: the hunter sees and may change it.
 */

/** A photo's camera as its EXIF names it; every field may be missing. */
export interface CameraIdentity {
  make?: string;
  model?: string;
  serial?: string;
}

/** The photos of a selection taken by one camera. */
export interface CameraGroup {
  /** `cameraKey` of the identity. */
  key: string;
  /** The identity as the first of its photos spells it (trimmed). */
  identity: CameraIdentity;
  count: number;
}

/** How many cameras the mixed-camera notice names before "and N more". */
export const MIXED_CAMERA_LIST_LIMIT = 5;

/** Serials shorter than this never match a camera name (too many names contain "12"). */
const MIN_SERIAL_MATCH = 4;
/** Models shorter than this only match a camera name that equals them. */
const MIN_MODEL_CONTAINS = 3;

// eslint-disable-next-line no-control-regex -- EXIF strings are NUL-padded: removing NULs is the point
const NUL = /\u0000/g;
/** An EXIF text as shown: NUL padding dropped, spaces collapsed, trimmed. */
const tidy = (value: string | undefined): string => (value === undefined || value === null ? '' : String(value).replace(NUL, '').replace(/\s+/g, ' ').trim());
/** An EXIF text as compared: tidied and case-folded. */
const fold = (value: string | undefined): string => tidy(value).toLowerCase();

/**
 * The identity as one stable string, `make|model|serial`, each part tidied and case-folded
 * ("browning|btc-8e|"); null when both make and model are missing (a bare serial names no camera
 * the hunter could recognise). It is stored (the ranch's remembered choices), so it must not change.
 */
export function cameraKey(id: CameraIdentity): string | null {
  const make = fold(id.make);
  const model = fold(id.model);
  if (make === '' && model === '') return null;
  return `${make}|${model}|${fold(id.serial)}`;
}

/**
 * The identity in a few words: "Browning BTC-8E", "Browning BTC-8E #K12345"; the make is left out
 * when the model already starts with it ("Canon EOS R6", not "Canon Canon EOS R6"). "Unknown
 * camera" when nothing is known.
 */
export function cameraLabel(id: CameraIdentity): string {
  const make = tidy(id.make);
  const model = tidy(id.model);
  const serial = tidy(id.serial);
  const name = make !== '' && model.toLowerCase().startsWith(make.toLowerCase()) ? model : [make, model].filter((s) => s !== '').join(' ');
  if (name === '') return serial === '' ? 'Unknown camera' : `Unknown camera #${serial}`;
  return serial === '' ? name : `${name} #${serial}`;
}

/** The identified photos grouped by camera, the most photos first (then by label, for a stable order). */
export function groupCameras(photos: readonly (CameraIdentity | null)[]): CameraGroup[] {
  const groups = new Map<string, CameraGroup>();
  for (const photo of photos) {
    if (!photo) continue;
    const key = cameraKey(photo);
    if (key === null) continue;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { key, identity: trimmed(photo), count: 1 });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || cameraLabel(a.identity).localeCompare(cameraLabel(b.identity)));
}

function trimmed(id: CameraIdentity): CameraIdentity {
  const out: CameraIdentity = {};
  for (const field of ['make', 'model', 'serial'] as const) {
    const value = tidy(id[field]);
    if (value !== '') out[field] = value;
  }
  return out;
}

export interface CameraSuggestionInput {
  groups: readonly CameraGroup[];
  /** The ranch's cameras (the dropdown's options after "Indicate camera"). */
  cameras: readonly { name: string }[];
  /** `cameraKey` → the camera name chosen for it before, for this ranch. */
  remembered: ReadonlyMap<string, string>;
}

/** What `onlyMatch` answers when several cameras match (a symbol: no camera name can equal it). */
const SEVERAL = Symbol('several cameras match');

/** The one camera among `cameras` that `matches`, null when none does, SEVERAL when several do. */
function onlyMatch(cameras: readonly { name: string }[], matches: (name: string) => boolean): string | null | typeof SEVERAL {
  const found = cameras.filter((c) => matches(fold(c.name)));
  if (found.length === 0) return null;
  return found.length === 1 ? found[0]!.name : SEVERAL;
}

/**
 * The camera name to preselect, or null. Only when the identified photos come from exactly one
 * camera (see the module's note on photos without an identity):
 * 1. the name chosen for that camera before, if the ranch still has a camera of that name
 *    (compared case-insensitively; the list's spelling is returned);
 * 2. else the one camera whose name contains the serial; else the one whose name equals the model
 *    or the label without serial ("Browning BTC-8E"); else the one whose name contains the model.
 *    The strongest rule that matches anything decides: when it matches several cameras ("BTC-8E
 *    North", "BTC-8E South") nothing is suggested rather than a guess.
 */
export function suggestCamera(input: CameraSuggestionInput): string | null {
  const { groups, cameras, remembered } = input;
  if (groups.length !== 1) return null;
  const group = groups[0]!;
  const chosen = remembered.get(group.key);
  if (chosen !== undefined && fold(chosen) !== '') {
    const still = cameras.find((c) => c.name === chosen) ?? cameras.find((c) => fold(c.name) === fold(chosen));
    if (still) return still.name;
  }
  const serial = fold(group.identity.serial);
  const model = fold(group.identity.model);
  const label = fold(cameraLabel({ make: group.identity.make, model: group.identity.model }));
  const rules: ((name: string) => boolean)[] = [
    (name) => serial.length >= MIN_SERIAL_MATCH && name.includes(serial),
    (name) => (model !== '' && name === model) || name === label,
    (name) => model.length >= MIN_MODEL_CONTAINS && name.includes(model),
  ];
  for (const rule of rules) {
    const match = onlyMatch(cameras, rule);
    if (match === SEVERAL) return null;
    if (match !== null) return match;
  }
  return null;
}

/**
 * The notice for a selection from several cameras, null for one or none: "This selection holds
 * photos from 2 cameras: Browning BTC-8E (1,200 photos), Stealth Cam G42NG (231 photos). A batch
 * carries one camera: upload each camera's photos as its own batch to keep them apart." At most
 * `MIXED_CAMERA_LIST_LIMIT` cameras are named, then "and N more".
 */
export function mixedCameraNotice(groups: readonly CameraGroup[]): string | null {
  if (groups.length < 2) return null;
  const listed = groups
    .slice(0, MIXED_CAMERA_LIST_LIMIT)
    .map((g) => `${cameraLabel(g.identity)} (${formatCount(g.count)} ${g.count === 1 ? 'photo' : 'photos'})`);
  const more = groups.length - listed.length;
  return (
    `This selection holds photos from ${formatCount(groups.length)} cameras: ${listed.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}. ` +
    "A batch carries one camera: upload each camera's photos as its own batch to keep them apart."
  );
}
