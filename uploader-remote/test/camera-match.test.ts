import {
  cameraKey,
  cameraLabel,
  groupCameras,
  mixedCameraNotice,
  suggestCamera,
  type CameraGroup,
  type CameraIdentity,
} from '../src/features/upload/model/camera-match';

const browning: CameraIdentity = { make: 'Browning', model: 'BTC-8E' };
const stealth: CameraIdentity = { make: 'Stealth Cam', model: 'G42NG', serial: 'SC-99231' };
const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);
const cameras = (...names: string[]) => names.map((name, i) => ({ id: `c${i}`, name }));
const none = new Map<string, string>();

describe('cameraKey', () => {
  it('is make|model|serial, trimmed and case-folded', () => {
    expect(cameraKey({ make: '  BROWNING ', model: 'btc-8e\u0000\u0000', serial: ' K123 ' })).toBe('browning|btc-8e|k123');
    expect(cameraKey(browning)).toBe('browning|btc-8e|');
    expect(cameraKey({ make: 'Browning', model: 'BTC-8E' })).toBe(cameraKey({ make: 'browning', model: ' BTC-8E' }));
  });
  it('is null when make and model are both missing', () => {
    expect(cameraKey({})).toBeNull();
    expect(cameraKey({ serial: 'K123' })).toBeNull();
    expect(cameraKey({ make: '  ', model: '' })).toBeNull();
    expect(cameraKey({ model: 'G42NG' })).toBe('|g42ng|');
  });
});

describe('cameraLabel', () => {
  it('is make and model, with the serial when known', () => {
    expect(cameraLabel(browning)).toBe('Browning BTC-8E');
    expect(cameraLabel(stealth)).toBe('Stealth Cam G42NG #SC-99231');
  });
  it('does not repeat a make the model already names', () => {
    expect(cameraLabel({ make: 'Canon', model: 'Canon EOS R6' })).toBe('Canon EOS R6');
  });
  it('says when nothing is known', () => {
    expect(cameraLabel({})).toBe('Unknown camera');
  });
});

describe('groupCameras', () => {
  it('groups identified photos, the most first, leaving out photos without an identity', () => {
    const groups = groupCameras([stealth, browning, null, { make: 'browning ', model: 'BTC-8E' }, {}, browning, { serial: 'X1' }]);
    expect(groups).toEqual([
      { key: 'browning|btc-8e|', identity: { make: 'Browning', model: 'BTC-8E' }, count: 3 },
      { key: 'stealth cam|g42ng|sc-99231', identity: stealth, count: 1 },
    ]);
  });
  it('tells apart two cameras of one model by their serials', () => {
    expect(
      groupCameras([
        { ...browning, serial: 'A1' },
        { ...browning, serial: 'B2' },
      ]),
    ).toHaveLength(2);
  });
  it('is empty when no photo is identified', () => {
    expect(groupCameras([null, {}, null])).toEqual([]);
  });
});

describe('suggestCamera', () => {
  const one = groupCameras([browning, browning]);
  const withSerial = groupCameras([stealth]);

  it('takes the remembered choice while that camera still exists', () => {
    const remembered = new Map([['browning|btc-8e|', 'North feeder']]);
    expect(suggestCamera({ groups: one, cameras: cameras('BTC-8E', 'North feeder'), remembered })).toBe('North feeder');
    expect(suggestCamera({ groups: one, cameras: cameras('north FEEDER'), remembered })).toBe('north FEEDER');
  });
  it('falls back to a name match when the remembered camera no longer exists', () => {
    const remembered = new Map([['browning|btc-8e|', 'Old stand']]);
    expect(suggestCamera({ groups: one, cameras: cameras('Creek', 'Browning BTC-8E'), remembered })).toBe('Browning BTC-8E');
  });
  it('matches a name that equals or contains the model, case-insensitively', () => {
    expect(suggestCamera({ groups: one, cameras: cameras('Creek', 'btc-8e'), remembered: none })).toBe('btc-8e');
    expect(suggestCamera({ groups: one, cameras: cameras('Creek', 'Ridge BTC-8E'), remembered: none })).toBe('Ridge BTC-8E');
  });
  it('matches a name that contains the serial, before the model', () => {
    expect(suggestCamera({ groups: withSerial, cameras: cameras('G42NG east', 'G42NG west sc-99231'), remembered: none })).toBe('G42NG west sc-99231');
  });
  it('prefers a name equal to the model over names containing it', () => {
    expect(suggestCamera({ groups: one, cameras: cameras('BTC-8E', 'BTC-8E ridge'), remembered: none })).toBe('BTC-8E');
  });
  it('suggests nothing when several names match equally', () => {
    expect(suggestCamera({ groups: one, cameras: cameras('BTC-8E North', 'BTC-8E South'), remembered: none })).toBeNull();
  });
  it('suggests nothing when nothing matches', () => {
    expect(suggestCamera({ groups: one, cameras: cameras('Creek', 'Ridge'), remembered: none })).toBeNull();
  });
  it('suggests nothing for a mixed selection, even with a remembered choice', () => {
    const mixed = groupCameras([browning, stealth]);
    const remembered = new Map([['browning|btc-8e|', 'Creek']]);
    expect(suggestCamera({ groups: mixed, cameras: cameras('Creek', 'BTC-8E', 'G42NG'), remembered })).toBeNull();
  });
  it('does not count photos without EXIF against one camera', () => {
    const groups = groupCameras([browning, null, {}, null, browning]);
    expect(suggestCamera({ groups, cameras: cameras('BTC-8E'), remembered: none })).toBe('BTC-8E');
  });
  it('suggests nothing when no photo is identified', () => {
    expect(suggestCamera({ groups: groupCameras([null, {}]), cameras: cameras('BTC-8E'), remembered: none })).toBeNull();
  });
});

describe('mixedCameraNotice', () => {
  it('is null for one camera or none', () => {
    expect(mixedCameraNotice([])).toBeNull();
    expect(mixedCameraNotice(groupCameras([browning]))).toBeNull();
  });
  it('names the cameras and their photo counts', () => {
    const groups = groupCameras([...times(231, { make: 'Stealth Cam', model: 'G42NG' }), ...times(1200, browning)]);
    expect(mixedCameraNotice(groups)).toBe(
      'This selection holds photos from 2 cameras: Browning BTC-8E (1,200 photos), Stealth Cam G42NG (231 photos). ' +
        "A batch carries one camera: upload each camera's photos as its own batch to keep them apart.",
    );
  });
  it('names at most 5 cameras, then how many more', () => {
    const groups: CameraGroup[] = Array.from({ length: 7 }, (_, i) => ({ key: `m|c${i}|`, identity: { make: 'M', model: `C${i}` }, count: 10 - i }));
    groups[6] = { ...groups[6]!, count: 1 };
    expect(mixedCameraNotice(groups)).toBe(
      'This selection holds photos from 7 cameras: M C0 (10 photos), M C1 (9 photos), M C2 (8 photos), M C3 (7 photos), M C4 (6 photos) and 2 more. ' +
        "A batch carries one camera: upload each camera's photos as its own batch to keep them apart.",
    );
  });
});
