import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AccountHelpDialog } from '../src/features/login/account-help-dialog';

describe('AccountHelpDialog', () => {
  it('opens as a modal dialog named by its title, with the steps in the product name', async () => {
    const showModal = jest.spyOn(HTMLDialogElement.prototype, 'showModal');
    render(<AccountHelpDialog productName="TrailSense" />);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'How do I create an account?' }));
    const dialog = screen.getByRole('dialog', { name: 'How do I create an account?' });
    expect(showModal).toHaveBeenCalledTimes(1);
    expect(dialog).toHaveTextContent('Download the TrailSense app from the App Store or Google Play.');
    showModal.mockRestore();
  });

  it('closes with Close and gives focus back to the button that opened it', async () => {
    render(<AccountHelpDialog productName="TrailSense" />);
    const opener = screen.getByRole('button', { name: 'How do I create an account?' });
    await userEvent.click(opener);
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(opener).toHaveFocus();
  });
});
