/**
 * jsdom lays nothing out: every box is 0 px tall, so a virtual list would find no room for a single
 * row. Gives every element the file list's box height (six 56 px rows, uploader.module.css) for the
 * test's duration, as the browser does for the scroll box.
 */
export function giveListBoxItsHeight(): void {
  let spy: jest.SpyInstance | undefined;
  beforeEach(() => {
    spy = jest.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(336);
  });
  afterEach(() => spy?.mockRestore());
}
