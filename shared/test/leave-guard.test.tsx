import { render } from '@testing-library/react';
import { activeLeaveMessage, addLeaveGuard, confirmLeave, useLeaveGuard } from '../src/index';

describe('confirmLeave', () => {
  it('lets the user leave without asking when no guard is active', () => {
    const ask = jest.fn(() => false);
    expect(confirmLeave(ask)).toBe(true);
    expect(ask).not.toHaveBeenCalled();
  });

  it('asks the active guard’s question and follows the answer', () => {
    const remove = addLeaveGuard('Uploads will stop.');
    expect(confirmLeave(() => false)).toBe(false);
    const ask = jest.fn(() => true);
    expect(confirmLeave(ask)).toBe(true);
    expect(ask).toHaveBeenCalledWith('Uploads will stop.');
    remove();
    expect(activeLeaveMessage()).toBeUndefined();
  });
});

function Guarded({ active }: { active: boolean }) {
  useLeaveGuard(active, 'Busy');
  return null;
}

describe('useLeaveGuard', () => {
  it('registers while active, prompts on beforeunload, and unregisters when done', () => {
    const { rerender, unmount } = render(<Guarded active />);
    expect(activeLeaveMessage()).toBe('Busy');
    const event = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(true);
    rerender(<Guarded active={false} />);
    expect(activeLeaveMessage()).toBeUndefined();
    const after = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(after);
    expect(after.defaultPrevented).toBe(false);
    unmount();
  });
});
