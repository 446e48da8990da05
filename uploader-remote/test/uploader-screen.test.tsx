import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { UserProvider, type AnalyticsEvent, type SessionSource } from '@trailsense/shared';
import type { ProductApi } from '@trailsense/shared/aws';
import { UploaderScreen } from '../src/features/upload/components/uploader-screen';
import type { UploaderServices } from '../src/features/upload/services/uploader-services';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff]);

function session(ranchId?: string): SessionSource {
  return {
    currentUser: async () => ({ sub: 's1', email: 'member@example.com', ...(ranchId ? { ranchId } : {}) }),
    signOut: jest.fn(async () => undefined),
    deleteAccount: async () => undefined,
    onAuthEvent: () => () => undefined,
  } as SessionSource;
}

/** Reads a file's first bytes: fake*.jpg are not JPEGs. */
const fakeHead = async (file: Blob) => ((file as File).name.includes('fake') ? new Uint8Array([0, 0, 0]) : JPEG);

function fakeServices(overrides: Partial<ProductApi> = {}, upload?: UploaderServices['upload'], readHead: UploaderServices['readHead'] = fakeHead) {
  const tracked: AnalyticsEvent[] = [];
  const uploads: { key: string; level: string; camera: string }[] = [];
  let total = 985;
  let n = 0;
  const services: UploaderServices = {
    api: {
      getSubscription: async () => ({ subscriber: { entitlements: {} } }),
      getUploadMetrics: async () => ({ total: String(total) }),
      getRanch: async () => ({ max_monthly_uploads: 0 }),
      getCameras: async () => ({ Cameras: [{ id: 'c1', name: 'Windmill Tank' }] }),
      ...overrides,
    },
    analytics: { track: async (e) => void tracked.push(e) },
    upload:
      upload ??
      (async (target, job) => {
        uploads.push({ key: job.key, level: target.level, camera: target.cameraName });
        total++;
      }),
    refreshCredentials: async () => undefined,
    readHead,
    newId: () => `id-${++n}`,
    now: () => new Date('2026-11-22T12:00:00Z'),
    sleep: async () => undefined,
    random: () => 0.5,
    logError: jest.fn(),
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
  };
  return { services, tracked, uploads };
}

function renderScreen(services: UploaderServices, ranchId: string | null = 'mesquite-flats') {
  return render(
    <UserProvider source={session(ranchId ?? undefined)}>
      <UploaderScreen services={services} concurrency={3} />
    </UserProvider>,
  );
}

const jpeg = (name: string) => new File([JPEG, new Uint8Array(10)], name, { type: 'image/jpeg', lastModified: 1 });
const fileInput = (container: HTMLElement) => container.querySelector('input[type=file]') as HTMLInputElement;

describe('UploaderScreen', () => {
  it('shows the greeting, the no-subscription and quota messages, and the camera choice', async () => {
    const { services } = fakeServices();
    renderScreen(services);
    expect(await screen.findByText('member@example.com')).toBeVisible();
    expect(await screen.findByText('You have uploaded 985 images of your monthly limit of 1,000 images. You have 15 remaining.')).toBeVisible();
    expect(screen.getByText(/You do not have an active subscription/)).toBeVisible();
    const camera = screen.getByRole('combobox', { name: 'Camera' });
    expect(within(camera).getAllByRole('option').map((o) => o.textContent)).toEqual(['Indicate camera', 'Windmill Tank']);
    expect(camera).toHaveAccessibleDescription(/cannot name itself/);
    expect(screen.getByRole('checkbox', { name: 'Use these files for training the model' })).toHaveAccessibleDescription(
      'Use this for only a few (under 10) perfect example images.',
    );
    expect(screen.getByText('Overall Progress: 0 of 0 = 0%')).toBeVisible();
  });

  it('shows a subscription failure in the error area; other failures are only logged', async () => {
    const { services } = fakeServices({
      getSubscription: async () => Promise.reject(new Error('Network Error')),
      getCameras: async () => Promise.reject(new Error('boom')),
    });
    renderScreen(services);
    expect(await screen.findByText('Problem with subscription retrieval: Network Error')).toBeVisible();
    expect(screen.getByRole('alert')).toHaveTextContent('Problem with subscription retrieval: Network Error');
    expect(screen.queryByText(/boom/)).toBeNull();
    await waitFor(() => expect(services.logError).toHaveBeenCalledWith('Could not fetch the cameras', expect.any(Error)));
  });

  it('lists chosen files with one grouped notice, uploads them, records events and refetches the quota', async () => {
    const user = userEvent.setup();
    const { services, tracked, uploads } = fakeServices();
    const { container } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Camera' }), 'Windmill Tank');
    await user.upload(fileInput(container), [jpeg('a.jpg'), jpeg('<img src=x onerror=alert(1)>.jpg'), jpeg('fake.jpg'), new File([], 'empty.jpg')]);
    // The empty file is skipped at once, fake.jpg once its first bytes are read: one notice for both.
    expect(await screen.findByText('2 files skipped: empty.jpg (empty file), fake.jpg (not a JPEG image).')).toBeVisible();
    expect(screen.getByText('<img src=x onerror=alert(1)>.jpg')).toBeVisible();
    expect(screen.getByText('Overall Progress: 0 of 2 = 0%')).toBeVisible();

    await user.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByText('Overall Progress: 2 of 2 = 100%')).toBeVisible();
    expect(uploads).toEqual([
      { key: 'id-1.jpg', level: 'public', camera: 'Windmill Tank' },
      { key: 'id-2.jpg', level: 'public', camera: 'Windmill Tank' },
    ]);
    expect(tracked).toEqual([
      { name: 'imageUpload', ranchid: 'mesquite-flats', key: 'id-1.jpg', uploadCount: 1 },
      { name: 'imageUpload', ranchid: 'mesquite-flats', key: 'id-2.jpg', uploadCount: 2 },
    ]);
    expect(await screen.findByText(/You have 13 remaining/)).toBeVisible();
    expect(screen.getByText('No files in the list.')).toBeVisible();
  });

  it('lists files at once while their first bytes are checked; Upload before the check ends never uploads a non-JPEG', async () => {
    const user = userEvent.setup();
    const reads: { name: string; answer: () => void }[] = [];
    const readHead = (file: Blob) =>
      new Promise<Uint8Array>((resolve) => reads.push({ name: (file as File).name, answer: () => void fakeHead(file).then(resolve) }));
    const { services, uploads } = fakeServices({}, undefined, readHead);
    const { container } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    await user.upload(fileInput(container), [jpeg('a.jpg'), jpeg('fake.jpg'), jpeg('b.jpg'), jpeg('clip.mp4')]);

    expect(screen.getByText('Checking 3 files…')).toBeVisible();
    expect(screen.getByText('Checking 3 files…')).toHaveAttribute('role', 'status');
    expect(screen.getByText('1 file skipped: clip.mp4 (not a JPEG image).')).toBeVisible();
    expect(screen.getByRole('region', { name: 'File list, 3 files' })).toBeVisible();
    expect(screen.getAllByText(/· Checking$/)).toHaveLength(3);
    expect(screen.getByRole('button', { name: 'Add Images' })).toBeEnabled();

    await user.click(screen.getByRole('button', { name: 'Upload' }));
    expect(uploads).toEqual([]);
    // The background read and the upload's own check share one read per file.
    expect(reads.map((r) => r.name)).toEqual(['a.jpg', 'fake.jpg', 'b.jpg']);
    for (const r of reads) r.answer();

    expect(await screen.findByText('Overall Progress: 2 of 2 = 100%')).toBeVisible();
    expect(uploads.map((u) => u.key)).toEqual(['id-1.jpg', 'id-3.jpg']);
    expect(screen.getByText('1 file skipped: fake.jpg (not a JPEG image).')).toBeVisible();
    expect(screen.queryByText(/Failed uploads/)).toBeNull();
    expect(screen.queryByText(/^Checking/)).toBeNull();
  });

  it('over the allowance asks first; Cancel uploads nothing and gives advice; OK uploads only the remaining', async () => {
    const user = userEvent.setup();
    const { services, uploads } = fakeServices();
    const { container } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    await user.upload(fileInput(container), Array.from({ length: 20 }, (_, i) => jpeg(`IMG_${i}.jpg`)));
    await user.click(await screen.findByRole('button', { name: 'Upload' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Upload limit' });
    expect(dialog).toHaveTextContent('You cannot upload more images than your remaining limit of 15.');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.getByText(/Nothing was uploaded\. Remove some files/)).toBeVisible();
    expect(uploads).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Upload' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'OK' }));
    expect(await screen.findByText('Overall Progress: 15 of 20 = 75%')).toBeVisible();
    expect(uploads).toHaveLength(15);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Upload' })).toBeDisabled());
  });

  it('a failed upload shows the storage error, counts, records uploadFailure, and stays listed with Retry', async () => {
    const user = userEvent.setup();
    const denied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    const { services, tracked } = fakeServices({}, async () => Promise.reject(denied));
    const { container } = renderScreen(services);
    await screen.findByText(/You have 15 remaining/);
    await user.upload(fileInput(container), [jpeg('a.jpg')]);
    await user.click(await screen.findByRole('button', { name: 'Upload' }));
    expect(await screen.findByText('Problem with Storage.put operation: Access Denied')).toBeVisible();
    expect(screen.getByText('Failed uploads: 1')).toBeVisible();
    expect(tracked).toEqual([{ name: 'uploadFailure', ranchid: 'mesquite-flats', failureCount: 1 }]);
    expect(screen.getByText(/Failed: Access Denied/)).toBeVisible();
    expect(screen.getByRole('button', { name: 'Retry a.jpg' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Remove a.jpg' })).toBeEnabled();
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
