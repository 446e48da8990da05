import { Suspense } from 'react';
import { act, render, screen } from '@testing-library/react';
import { lazyPage } from '../src/app/lazy-page';

const Page = () => <h1>The page</h1>;

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('lazyPage', () => {
  it('shows the fallback while the code downloads, then the page', async () => {
    const download = deferred<typeof Page>();
    const page = lazyPage(() => download.promise);
    await act(async () => {
      render(
        <Suspense fallback={<p>Loading…</p>}>
          <page.Component />
        </Suspense>,
      );
    });
    expect(screen.getByText('Loading…')).toBeInTheDocument();
    await act(async () => download.resolve(Page));
    expect(screen.getByRole('heading', { name: 'The page' })).toBeInTheDocument();
  });

  it('renders at once, without the fallback, once preloaded (as hydration needs)', async () => {
    const load = jest.fn(async () => Page);
    const page = lazyPage(load);
    await page.preload();
    render(
      <Suspense fallback={<p>Loading…</p>}>
        <page.Component />
      </Suspense>,
    );
    expect(screen.getByRole('heading', { name: 'The page' })).toBeInTheDocument();
    expect(screen.queryByText('Loading…')).not.toBeInTheDocument();
    await page.preload();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('tries a failed download again', async () => {
    const load = jest.fn<Promise<typeof Page>, []>().mockRejectedValueOnce(new Error('offline')).mockResolvedValue(Page);
    const page = lazyPage(load);
    await expect(page.preload()).rejects.toThrow('offline');
    await page.preload();
    expect(load).toHaveBeenCalledTimes(2);
  });
});
