import { act, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { UserProvider, type SessionSource } from '@trailsense/shared';
import { UploaderScreen } from '../src/features/upload/components/uploader-screen';
import type { UploaderServices } from '../src/features/upload/services/uploader-services';
import { storedPreferences } from '../src/features/upload/services/browser/uploader-preferences';
import { fakeServices, mapStorage, photo } from './support/fake-services';
import { giveListBoxItsHeight } from './support/layout';

// The screen on jest's fake clock (the controller flushes progress every 200 ms).
beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-22T12:00:00') }));
afterEach(() => jest.useRealTimers());
giveListBoxItsHeight();

function session(ranchId?: string): SessionSource {
  return {
    currentUser: async () => ({ sub: `sub-${ranchId ?? 'none'}`, email: 'member@example.com', ...(ranchId ? { ranchId } : {}) }),
    signOut: jest.fn(async () => undefined),
    deleteAccount: async () => undefined,
    onAuthEvent: () => () => undefined,
  };
}

function renderScreen(services: UploaderServices, ranchId: string | null = 'mesquite-flats') {
  const user = userEvent.setup({ advanceTimers: jest.advanceTimersByTime });
  const view = render(
    <UserProvider source={session(ranchId ?? undefined)}>
      <UploaderScreen services={services} options={{ concurrency: 3 }} />
    </UserProvider>,
  );
  const input = () => view.container.querySelector('input[type=file]') as HTMLInputElement;
  return { user, input, ...view };
}

describe('UploaderScreen', () => {
  it('counts slots the server holds for another member’s upload as not available, and says so', async () => {
    const { services } = fakeServices({
      uploads: { getUploadMetrics: async (_r, yearmo) => ({ total: '985', yearmo, month: yearmo, reserved: 5, ceiling: 1000 }) },
    });
    renderScreen(services);
    expect(
      await screen.findByText(
        'You have uploaded 985 images of your monthly limit of 1,000 images. You have 10 remaining. 5 of your ranch’s remaining images are held for an upload in progress.',
      ),
    ).toBeVisible();
  });

  it('shows the greeting, the no-subscription and quota messages, and the camera choice', async () => {
    const { services } = fakeServices();
    renderScreen(services);
    expect(await screen.findByText('member@example.com')).toBeVisible();
    expect(await screen.findByText('You have uploaded 985 images of your monthly limit of 1,000 images. You have 15 remaining.')).toBeVisible();
    expect(screen.getByText(/You do not have an active subscription/)).toBeVisible();
    const camera = screen.getByRole('combobox', { name: 'Camera' });
    expect(
      within(camera)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Indicate camera', 'Windmill Tank']);
    expect(camera).toHaveAccessibleDescription(/cannot name itself/);
    expect(screen.getByRole('checkbox', { name: 'Use these files for training the model' })).toHaveAccessibleDescription(
      'Use this for only a few (under 10) perfect example images.',
    );
    expect(screen.getByText('Overall Progress: 0 of 0 = 0%')).toBeVisible();
  });

  it('shows a subscription failure in the error area; a failed camera fetch is only logged', async () => {
    const { services } = fakeServices({
      api: { getSubscription: async () => Promise.reject(new Error('Network Error')), getCameras: async () => Promise.reject(new Error('boom')) },
      ranchMax: 10_000,
    });
    renderScreen(services);
    expect(await screen.findByText('Problem with subscription retrieval: Network Error')).toBeVisible();
    expect(screen.queryByText(/boom/)).toBeNull();
    expect(services.logError).toHaveBeenCalledWith('Could not fetch the cameras', expect.any(Error));
    // The ranch's own limit does not depend on the subscription: uploading stays possible.
    expect(await screen.findByText(/monthly limit of 10,000 images/)).toBeVisible();
  });

  it('lists chosen files with one grouped notice, uploads them, records events and counts them at once', async () => {
    const { services, world } = fakeServices();
    const { user, input } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Camera' }), 'Windmill Tank');
    await user.upload(input(), [
      photo('a.jpg'),
      photo('<img src=x onerror=alert(1)>.jpg'),
      photo('fake.jpg', 'fake', { notJpeg: true }),
      new File([], 'empty.jpg'),
    ]);
    expect(await screen.findByText('2 files skipped: empty.jpg (empty file), fake.jpg (not a JPEG image).')).toBeVisible();
    expect(screen.getByText('<img src=x onerror=alert(1)>.jpg')).toBeVisible();
    expect(screen.getByText('Overall Progress: 0 of 2 = 0%')).toBeVisible();

    await user.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByText('Overall Progress: 2 of 2 = 100%')).toBeVisible();
    expect([...world.stored.values()].map((t) => t.cameraName)).toEqual(['Windmill Tank', 'Windmill Tank']);
    expect(world.tracked.map((e) => [e.name, 'uploadCount' in e ? e.uploadCount : null])).toEqual([
      ['imageUpload', 1],
      ['imageUpload', 2],
      ['batchOutcome', null],
    ]);
    expect(await screen.findByText(/You have 13 remaining/)).toBeVisible();
    expect(screen.getByText('No files in the list.')).toBeVisible();
  });

  it('offers Send smaller copies, off by default and remembered; when the originals would take hours, shows both estimates and suggests it', async () => {
    const prefs = storedPreferences(mapStorage());
    // 1 byte a second measured before: 12 KB of photos is over 3 hours.
    prefs.setRecentSpeed(1);
    const { services } = fakeServices({ prefs });
    const { user, input } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    const choice = screen.getByRole('checkbox', { name: 'Send smaller copies' });
    expect(choice).not.toBeChecked();
    expect(choice).toHaveAccessibleDescription('About 10× faster. Photos are resized to 2,048 px; the originals stay on your card.');
    await user.upload(input(), [photo('a.jpg', 'a'.repeat(6000)), photo('b.jpg', 'b'.repeat(6000))]);
    expect(await screen.findByTestId('copies-estimates')).toHaveTextContent(
      'Originals: about 3 h 20 min · Smaller copies: about 3 h 20 minSending the originals would take hours at your recent speed. Tick “Send smaller copies” to send this card sooner.',
    );
    await user.click(choice);
    expect(choice).toBeChecked();
    expect(prefs.sendCopies()).toBe(true);
    // The uploader never switches by itself; with the choice on, the suggestion goes.
    expect(screen.getByTestId('copies-estimates')).toHaveTextContent(/^Originals: about 3 h 20 min · Smaller copies: about 3 h 20 min$/);
  });

  it('offers Upload speed, no limit by default and remembered; a share says what it is of the measured link; the estimates follow it', async () => {
    const prefs = storedPreferences(mapStorage());
    // 4 bytes a second measured before: 12 KB of photos is 50 min, under a quarter of it over 3 hours.
    prefs.setRecentSpeed(4);
    const { services } = fakeServices({ prefs });
    const { user, input } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    const speed = screen.getByRole('combobox', { name: 'Upload speed' });
    expect(speed).toHaveDisplayValue('As fast as the connection allows');
    expect(speed).toHaveAccessibleDescription('Uploading uses all of the connection. Choose a limit to leave room for everyone else on it.');
    await user.upload(input(), [photo('a.jpg', 'a'.repeat(6000)), photo('b.jpg', 'b'.repeat(6000))]);
    expect(screen.queryByTestId('copies-estimates')).toBeNull();

    await user.selectOptions(speed, 'At most a quarter of the connection');
    expect(prefs.uploadCap()).toEqual({ kind: 'share', share: 0.25 });
    expect(speed).toHaveAccessibleDescription(/^At most about 0 Mbit\/s: a quarter of the 0 Mbit\/s measured here\. The rest stays free/);
    expect(await screen.findByTestId('copies-estimates')).toHaveTextContent(/^Originals: about 3 h 20 min · Smaller copies: about 3 h 20 min/);
    expect(screen.getByTestId('selection-summary')).toHaveTextContent(/· about 3 h 20 min at the upload speed chosen$/);
  });

  it('Upload speed at a set speed: offers half the measured link, refuses a speed it cannot be with words, keeps the last good one', async () => {
    const prefs = storedPreferences(mapStorage());
    prefs.setRecentSpeed(375_000); // 3 Mbit/s
    const { services } = fakeServices({ prefs });
    const { user } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Upload speed' }), 'At most a set speed');
    const mbit = screen.getByRole('textbox', { name: 'Mbit/s' });
    expect(mbit).toHaveValue('1.5');
    expect(prefs.uploadCap()).toEqual({ kind: 'mbit', mbit: 1.5 });
    expect(mbit).toHaveAccessibleDescription('At most 1.5 Mbit/s of the 3 Mbit/s measured here. The rest stays free for everyone else on the connection.');
    await user.clear(mbit);
    await user.type(mbit, 'fast');
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toContain('Type a speed from 0.1 to 1,000 Mbit/s.');
    expect(mbit).toHaveAccessibleDescription('Type a speed from 0.1 to 1,000 Mbit/s.');
    expect(mbit).toBeInvalid();
    expect(prefs.uploadCap()).toEqual({ kind: 'mbit', mbit: 1.5 });
    await user.clear(mbit);
    await user.type(mbit, '0,8');
    expect(prefs.uploadCap()).toEqual({ kind: 'mbit', mbit: 0.8 });
    expect(mbit).toBeValid();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Upload speed' }), 'As fast as the connection allows');
    expect(prefs.uploadCap()).toEqual({ kind: 'none' });
    expect(screen.queryByRole('textbox', { name: 'Mbit/s' })).toBeNull();
  });

  it('brings no <style> element and sets inline styles only on the virtual list (a Content-Security-Policy allows those)', async () => {
    const { services } = fakeServices();
    const { user, input, container } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    await user.upload(input(), [photo('a.jpg'), photo('b.jpg')]);
    await screen.findByText('Overall Progress: 0 of 2 = 0%');
    await user.click(screen.getByRole('button', { name: 'About the camera choice' }));
    expect(document.querySelectorAll('style')).toHaveLength(0);
    const list = screen.getByRole('list', { name: 'Files to upload' });
    const styled = [...container.querySelectorAll('[style]')];
    expect(styled.length).toBeGreaterThan(0);
    expect(styled.filter((element) => element !== list && element.parentElement !== list)).toEqual([]);
  });

  it('a drop of a photo and a folder lists both, with the summary and the mixed-camera notice; drops elsewhere are refused', async () => {
    const { services } = fakeServices({ ranchMax: 10_000 });
    renderScreen(services);
    await screen.findByText(/You have 9,015 remaining/);
    const exif = (make: string, day: string) => ({ exif: { captureTime: `2026-10-${day}T05:00:00`, make, model: 'X1' } });
    const loose = photo('LOOSE.JPG', 'loose-photo', exif('Browning', '03'));
    const inFolder = [photo('IMG_0001.JPG', 'card-photo-1', exif('Browning', '04')), photo('IMG_0002.JPG', 'card-photo-2', exif('Moultrie', '19'))];
    // Entries as Chromium gives them: a directory reader that answers in batches until empty.
    const fileEntry = (file: File) => ({ isFile: true, isDirectory: false, name: file.name, file: (ok: (f: File) => void) => ok(file) });
    const batches = [[fileEntry(inFolder[0]!)], [fileEntry(inFolder[1]!)], []];
    const folder = {
      isFile: false,
      isDirectory: true,
      name: 'DCIM',
      createReader: () => ({ readEntries: (ok: (e: unknown[]) => void) => ok(batches.shift() ?? []) }),
    };
    const item = (entry: unknown, file: File | null) => ({ kind: 'file', getAsFile: () => file, webkitGetAsEntry: () => entry });
    const dataTransfer = { types: ['Files'], items: [item(fileEntry(loose), loose), item(folder, null)], files: [], dropEffect: 'none' };

    const zone = screen.getByTestId('drop-zone');
    expect(zone).toHaveTextContent('With a keyboard, use Add Images or Add Folder.');
    fireEvent.dragEnter(zone, { dataTransfer });
    expect(zone).toHaveClass('dropOver');
    fireEvent.drop(zone, { dataTransfer });
    expect(await screen.findByText('Overall Progress: 0 of 3 = 0%')).toBeVisible();
    expect(await screen.findByText(/^This selection holds photos from 2 cameras: Browning X1 \(2 photos\), Moultrie X1 \(1 photo\)\./)).toBeVisible();
    expect(screen.getByTestId('selection-summary')).toHaveTextContent('3 photos · 35 B · Oct 3 – Oct 19 · 2 cameras');

    // Beside the zone: the browser's default (opening the file) is prevented.
    const stray = new Event('drop', { bubbles: true, cancelable: true });
    Object.defineProperty(stray, 'dataTransfer', { value: { types: ['Files'], dropEffect: 'copy' } });
    document.body.dispatchEvent(stray);
    expect(stray.defaultPrevented).toBe(true);
  });

  it('over the allowance asks first; Cancel uploads nothing and gives advice; OK uploads only the remaining', async () => {
    const { services, world } = fakeServices();
    const { user, input } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    await user.upload(
      input(),
      Array.from({ length: 20 }, (_, i) => photo(`IMG_${i}.jpg`)),
    );
    await screen.findByText('Overall Progress: 0 of 20 = 0%');
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Upload limit' });
    expect(dialog).toHaveTextContent('You cannot upload more images than your remaining limit of 15.');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.getByText(/Nothing was uploaded\. Remove some files/)).toBeVisible();
    expect(world.puts).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Upload' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'OK' }));
    expect(await screen.findByText('Overall Progress: 15 of 20 = 75%')).toBeVisible();
    expect(world.stored.size).toBe(15);
    expect(screen.getByRole('button', { name: 'Upload' })).toBeDisabled();
  });

  it('a failed upload shows the storage error and counts; Retry at an allowance of 0 says why', async () => {
    const denied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    const { services, world } = fakeServices();
    // While it was sent, the ranch used up its month elsewhere: the count after the batch says so.
    services.upload = async () => {
      world.usageTotal = 1000;
      return Promise.reject(denied);
    };
    const { user, input } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    await user.upload(input(), [photo('a.jpg')]);
    await user.click(await screen.findByRole('button', { name: 'Upload' }));
    expect(await screen.findByText('Problem with Storage.put operation: Access Denied')).toBeVisible();
    expect(screen.getByText('Failed uploads: 1')).toBeVisible();
    expect(world.tracked).toEqual([
      { name: 'uploadFailure', ranchid: 'mesquite-flats', failureCount: 1 },
      expect.objectContaining({ name: 'batchOutcome', photos: 0, failures: expect.objectContaining({ upload: 1 }) as unknown }),
    ]);
    expect(screen.getByText(/Failed: Access Denied/)).toBeVisible();

    expect(await screen.findByText(/You have 0 remaining/)).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Retry a.jpg' }));
    expect(screen.getByText('Nothing can be uploaded: your monthly limit is used up. Upgrade your subscription to upload more images.')).toBeVisible();
  });

  it('while the allowance cannot be checked, Upload is off with the reason and a way to try again', async () => {
    const { services, world } = fakeServices({ world: { failUsage: true } });
    const { user, input } = renderScreen(services);
    expect(await screen.findByText(/^Your monthly upload allowance could not be checked \(Request failed with status 500\)/)).toBeVisible();
    await user.upload(input(), [photo('a.jpg')]);
    await screen.findByText('Overall Progress: 0 of 1 = 0%');
    expect(screen.getByRole('button', { name: 'Upload' })).toBeDisabled();
    expect(screen.queryByText(/You have uploaded/)).toBeNull();

    world.failUsage = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText(/You have 15 remaining/)).toBeVisible();
    expect(screen.getByRole('button', { name: 'Upload' })).toBeEnabled();
  });

  it('offers to resume an unfinished batch from the journal, with Resume and Discard', async () => {
    const first = fakeServices();
    await first.journal.putBatch({
      id: 'b1',
      owner: 'sub-mesquite-flats',
      ranchId: 'mesquite-flats',
      createdAt: 0,
      updatedAt: new Date(2026, 10, 21, 23).getTime(),
      camera: 'Windmill Tank',
      training: false,
    });
    await first.journal.putEntries(
      Array.from({ length: 3 }, (_, i) => ({
        owner: 'sub-mesquite-flats',
        ranchId: 'mesquite-flats',
        fingerprint: `fp${i}`,
        batchId: 'b1',
        name: `IMG_${i}.JPG`,
        path: '',
        size: 10,
        lastModified: 1,
        key: `k${i}.jpg`,
        status: i === 0 ? ('uploaded' as const) : ('waiting' as const),
        updatedAt: Date.now(),
      })),
    );
    const { user } = renderScreen(first.services);
    expect(await screen.findByText('1 of 3 uploaded on Nov 21 — pick the same card to finish.')).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Resume' }));
    expect(screen.queryByText(/pick the same card/)).toBeNull();
    expect(screen.getByRole('combobox', { name: 'Camera' })).toHaveValue('Windmill Tank');
  });

  it('says when uploading is paused because the browser is offline', async () => {
    const { services, world } = fakeServices();
    world.autoAnswer = false;
    const { user, input } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    await user.upload(input(), [photo('a.jpg')]);
    await user.click(await screen.findByRole('button', { name: 'Upload' }));
    act(() => world.setOnline(false));
    expect(await screen.findByText('You are offline. Uploading is paused and continues by itself when the connection is back.')).toBeVisible();
  });

  it('without a ranch id, Add Images is disabled and the upload buttons are hidden', async () => {
    const { services } = fakeServices();
    renderScreen(services, null);
    expect(await screen.findByText(/not linked to a ranch yet/)).toBeVisible();
    expect(screen.getByRole('button', { name: 'Add Images' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Upload' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Clear List' })).toBeNull();
  });
});
