import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { FileList } from '../src/features/upload/components/file-list';
import { thumbnailCache } from '../src/features/upload/services/files/thumbnail-cache';
import type { ListedFile } from '../src/features/upload/model/upload-queue';
import { giveListBoxItsHeight } from './support/layout';

const files = (n: number, prefix = 'IMG_'): ListedFile[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    key: `${i}.jpg`,
    name: `${prefix}${i}.JPG`,
    path: '',
    size: 40_000,
    lastModified: 1,
    file: new Blob(),
    status: { kind: 'waiting' },
  }));
const noop = () => undefined;

const names = () => screen.getAllByRole('listitem').map((row) => within(row).getByTitle(/JPG$/).textContent);

describe('FileList', () => {
  giveListBoxItsHeight();
  afterEach(() => jest.useRealTimers());
  it('renders only the rows in view of a long list', () => {
    render(<FileList files={files(10_000)} busy={false} onRemove={noop} onRetry={noop} />);
    expect(screen.getAllByRole('listitem').length).toBeLessThan(30);
    expect(screen.getByRole('region', { name: 'File list, 10,000 files' })).toBeVisible();
    expect(screen.getByRole('list', { name: 'Files to upload' })).toBeVisible();
  });

  it('follows the scroll: the rows in view and a few beyond, each at its place, numbered in the whole list', () => {
    render(<FileList files={files(10_000)} busy={false} onRemove={noop} onRetry={noop} />);
    // The box is six rows high (56 px each); its content is the whole list's height.
    expect(names()).toEqual(expect.arrayContaining(['IMG_0.JPG', 'IMG_5.JPG']));
    expect(screen.queryByText('IMG_40.JPG')).not.toBeInTheDocument();
    expect(screen.getByRole('list')).toHaveStyle({ height: `${56 * 10_000}px` });

    const region = screen.getByRole('region');
    region.scrollTop = 56 * 5000;
    fireEvent.scroll(region);
    expect(names()).toEqual(expect.arrayContaining(['IMG_5000.JPG', 'IMG_5005.JPG']));
    expect(screen.queryByText('IMG_0.JPG')).not.toBeInTheDocument();
    expect(screen.getAllByRole('listitem').length).toBeLessThan(30);
    const row = screen.getByText('IMG_5000.JPG').closest('li')!;
    expect(row).toHaveStyle({ transform: `translateY(${56 * 5000}px)`, height: '56px' });
    expect(row).toHaveAttribute('aria-posinset', '5001');
    expect(row).toHaveAttribute('aria-setsize', '10000');

    // The last rows are reachable.
    region.scrollTop = 56 * 10_000 - 336;
    fireEvent.scroll(region);
    expect(names()).toContain('IMG_9999.JPG');
  });

  it("lets the keyboard reach the list box, and names each row's buttons by its file", () => {
    const list = files(3);
    list[1] = { ...list[1]!, status: { kind: 'failed', reason: 'Access Denied' } };
    const onRetry = jest.fn();
    const onRemove = jest.fn();
    render(<FileList files={list} busy={false} onRemove={onRemove} onRetry={onRetry} />);
    expect(screen.getByRole('region', { name: 'File list, 3 files' })).toHaveAttribute('tabindex', '0');
    fireEvent.click(screen.getByRole('button', { name: 'Retry IMG_1.JPG' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove IMG_2.JPG' }));
    expect(onRetry).toHaveBeenCalledWith('IMG_1');
    expect(onRemove).toHaveBeenCalledWith('IMG_2');
    expect(screen.getByText(/Failed: Access Denied/)).toBeVisible();
  });

  it('shows rows again when a list scrolled down is emptied and filled again', () => {
    const { rerender } = render(<FileList files={files(500)} busy={false} onRemove={noop} onRetry={noop} />);
    const region = screen.getByRole('region');
    region.scrollTop = 56 * 400;
    fireEvent.scroll(region);
    expect(screen.getByText('IMG_400.JPG')).toBeInTheDocument();
    rerender(<FileList files={[]} busy={false} onRemove={noop} onRetry={noop} />);
    expect(screen.getByText('No files in the list.')).toBeVisible();
    rerender(<FileList files={files(500, 'NEW_')} busy={false} onRemove={noop} onRetry={noop} />);
    expect(screen.getByText('NEW_0.JPG')).toBeInTheDocument();
    expect(screen.getAllByRole('listitem').length).toBeLessThan(30);
  });

  it('shows size, capture time and camera from EXIF, and asks thumbnails for the rows on screen only', async () => {
    jest.useFakeTimers();
    const asked: Blob[] = [];
    const thumbnails = thumbnailCache(async (file) => (asked.push(file), 'data:image/jpeg;base64,AAAA'));
    const list = files(10_000);
    list[0] = { ...list[0]!, size: 4.2 * 1024 * 1024, exif: { captureTime: '2026-10-03T05:12:44', make: 'Browning', model: 'BTC-8E' } };
    const { container } = render(<FileList files={list} busy={false} onRemove={noop} onRetry={noop} thumbnails={thumbnails} />);
    expect(screen.getByText('4.2 MB · Oct 3, 05:12 · Browning BTC-8E · Waiting')).toBeVisible();
    expect(screen.getAllByText('39 KB · Waiting')[0]).toBeVisible();
    // The thumbnails' promises settle on the (fake) clock's next turn.
    await act(() => jest.advanceTimersByTimeAsync(10));
    expect(container.querySelectorAll('li img')).toHaveLength(screen.getAllByRole('listitem').length);
    expect(asked.length).toBe(screen.getAllByRole('listitem').length);
    expect(asked.length).toBeLessThan(30);
  });
});
