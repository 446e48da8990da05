import { fireEvent, render, screen } from '@testing-library/react';
import { FileList } from '../src/features/upload/components/file-list';
import type { ListedFile } from '../src/features/upload/model/upload-queue';

const files = (n: number, prefix = 'IMG_'): ListedFile[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, key: `${i}.jpg`, name: `${prefix}${i}.JPG`, path: '', size: 40_000, lastModified: 1, file: new Blob(), status: { kind: 'waiting' } }));
const noop = () => undefined;

describe('FileList', () => {
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
});
