import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { GetAppToolbar } from '../src/app/get-app-toolbar';
import { qrCodeDataUrl } from '../src/app/qr-code';
import { defaultBrand } from '@trailsense/shared';

describe('GetAppToolbar', () => {
  it('links the App Store and Google Play badges and shows a QR code, separated by OR', async () => {
    render(<GetAppToolbar />);
    const toolbar = screen.getByRole('complementary', { name: 'Get the TrailSense app' });
    const appStore = within(toolbar).getByRole('link', { name: 'Download on the App Store' });
    const play = within(toolbar).getByRole('link', { name: 'Get it on Google Play' });
    expect(appStore).toHaveAttribute('href', defaultBrand.appStoreUrl);
    expect(play).toHaveAttribute('href', defaultBrand.googlePlayUrl);
    expect(within(toolbar).getAllByText('OR')).toHaveLength(2);
    const qr = await within(toolbar).findByRole('img', { name: /QR code/ });
    expect(qr).toHaveAttribute('width', '100');
    expect(qr).toHaveAttribute('height', '100');
    expect(qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    for (const badge of within(toolbar).getAllByRole('img', { name: /App Store|Google Play/ })) {
      expect(badge).toHaveAttribute('width', '150');
      expect(badge).toHaveAttribute('height', '50');
    }
  });

  it('has a Get App toggle that opens and closes the panel it controls', async () => {
    render(<GetAppToolbar />);
    const toggle = screen.getByRole('button', { name: 'Get App' });
    const panel = document.getElementById(toggle.getAttribute('aria-controls')!);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(panel).toHaveAttribute('data-open', 'false');
    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(panel).toHaveAttribute('data-open', 'true');
    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
  });
});

describe('GetAppToolbar when the QR code cannot be made', () => {
  it('logs the failure and still shows both badges', async () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => {});
    const failingEncoder = async () => {
      throw new Error('data too long');
    };
    render(<GetAppToolbar qrEncoder={failingEncoder} />);
    await waitFor(() => expect(error).toHaveBeenCalledWith('The Get App QR code could not be generated.', expect.any(Error)));
    expect(screen.getByRole('link', { name: 'Download on the App Store' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Get it on Google Play' })).toBeInTheDocument();
    expect(screen.queryByRole('img', { name: /QR code/ })).not.toBeInTheDocument();
    error.mockRestore();
  });
});

describe('qrCodeDataUrl', () => {
  it('encodes the target URL as an SVG QR code', () => {
    const url = qrCodeDataUrl('https://trailsense.example/app');
    expect(decodeURIComponent(url)).toMatch(/^data:image\/svg\+xml;charset=utf-8,<svg[\s\S]*<\/svg>$/);
  });
});

describe('GetAppToolbar QR code on a phone', () => {
  /** An IntersectionObserver the test drives: the collapsed panel is off screen until opened. */
  class FakeObserver {
    static last: FakeObserver | null = null;
    constructor(private readonly callback: IntersectionObserverCallback) {
      FakeObserver.last = this;
    }
    observe() {}
    disconnect() {}
    show() {
      act(() => this.callback([{ isIntersecting: true } as IntersectionObserverEntry], this as unknown as IntersectionObserver));
    }
  }

  beforeEach(() => {
    (globalThis as { IntersectionObserver?: unknown }).IntersectionObserver = FakeObserver;
  });
  afterEach(() => {
    delete (globalThis as { IntersectionObserver?: unknown }).IntersectionObserver;
  });

  it('makes the code only once its box is on screen', async () => {
    const encoder = jest.fn(async (text: string) => qrCodeDataUrl(text));
    render(<GetAppToolbar qrEncoder={encoder} />);
    expect(encoder).not.toHaveBeenCalled();
    FakeObserver.last!.show();
    expect(await screen.findByRole('img', { name: /QR code/ })).toBeInTheDocument();
    expect(encoder).toHaveBeenCalledWith(defaultBrand.qrTargetUrl);
  });
});
