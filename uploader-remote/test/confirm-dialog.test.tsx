import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ConfirmDialog } from '../src/features/upload/components/confirm-dialog';

const question = 'Do you want to upload only the remaining 15 images?';

describe('ConfirmDialog', () => {
  it('opens as a modal alert dialog, named by its title and described by its question', () => {
    const showModal = jest.spyOn(HTMLDialogElement.prototype, 'showModal');
    render(<ConfirmDialog title="Upload limit" question={question} onAnswer={jest.fn()} />);
    const dialog = screen.getByRole('alertdialog', { name: 'Upload limit' });
    expect(dialog).toHaveAccessibleDescription(question);
    expect(showModal).toHaveBeenCalledTimes(1);
    showModal.mockRestore();
  });

  it('answers OK and Cancel', async () => {
    const onAnswer = jest.fn();
    render(<ConfirmDialog title="Upload limit" question={question} onAnswer={onAnswer} />);
    await userEvent.click(screen.getByRole('button', { name: 'OK' }));
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onAnswer.mock.calls).toEqual([[true], [false]]);
  });

  it("answers Cancel to Escape (the browser's cancel event), keeping the closing to its owner", () => {
    const onAnswer = jest.fn();
    render(<ConfirmDialog title="Upload limit" question={question} onAnswer={onAnswer} />);
    const dialog = screen.getByRole('alertdialog');
    const cancel = new Event('cancel', { cancelable: true });
    fireEvent(dialog, cancel);
    expect(onAnswer).toHaveBeenCalledWith(false);
    expect(cancel.defaultPrevented).toBe(true);
  });

  it('closes when it goes, and gives focus back to where it was', () => {
    const opener = document.createElement('button');
    document.body.append(opener);
    opener.focus();
    const { unmount } = render(<ConfirmDialog title="Upload limit" question={question} onAnswer={jest.fn()} />);
    const dialog = screen.getByRole<HTMLDialogElement>('alertdialog');
    screen.getByRole('button', { name: 'OK' }).focus();
    unmount();
    expect(dialog.open).toBe(false);
    expect(opener).toHaveFocus();
    opener.remove();
  });
});
