import { act, fireEvent, render, screen } from '@testing-library/react';
import { FileList } from '../src/features/upload/components/file-list';
import { thumbnailCache } from '../src/features/upload/services/thumbnail-cache';
import type { ListedFile } from '../src/features/upload/model/upload-queue';

const files = (n: number, prefix = 'IMG_'): ListedFile[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, key: `${i}.jpg`, name: `${prefix}${i}.JPG`, path: '', size: 40_000, lastModified: 1, file: new Blob(), status: { kind: 'waiting' } }));
const noop = () => undefined;

describe('FileList', () => {
  afterEach(() => jest.useRealTimers());
  it('renders only the rows in view of a long list', () => {
    render(<FileList files={files(10_000)} busy={false} onRemove={noop} onRetry={noop} />);
    expect(screen.getAllByRole('listitem').length).toBeLessThan(30);
    expect(screen.getByRole('region', { name: 'File list, 10,000 files' })).toBeVisible();
  });

  it('shows rows again when a list scrolled down is emptied and filled again', () => {
    const { rerender } = render(<FileList files={files(500)} busy={false} onRemove={noop} onRetry={noop} />);
    const region = screen.getByRole('region');
    region.scrollTop = 56 * 400;
    fireEvent.scroll(region);
    expect(screen.getByText('IMG_400.JPG')).toBeInTheDocument();
    rerender(<FileList files={[]} busy={false} onRemove={noop} onRetry={noop} />);
    expect(screen.getByText('No files in the list.')).toBeVisible();
    rerender(<FileList files={files(3, 'NEW_')} busy={false} onRemove={noop} onRetry={noop} />);
    expect(screen.getAllByRole('listitem')).toHaveLength(3);
    expect(screen.getByText('NEW_0.JPG')).toBeInTheDocument();
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
    expect(container.querySelectorAll('.file-row__thumb img')).toHaveLength(screen.getAllByRole('listitem').length);
    expect(asked.length).toBe(screen.getAllByRole('listitem').length);
    expect(asked.length).toBeLessThan(30);
  });
});
