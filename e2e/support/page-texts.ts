// Texts a page showed, however briefly: a status that lasts less than Playwright's polling
// interval (a retry's "Retrying after: …" lives for its backoff, half a second) is still seen.
import type { Page } from '@playwright/test';

const STORE = '__e2eTextsSeen';

/**
 * From now on, records every match of `pattern` in text the page adds or changes (a
 * MutationObserver in the page). Returns a reader of the distinct matches, in the order seen.
 */
export async function watchTexts(page: Page, pattern: RegExp): Promise<() => Promise<string[]>> {
  await page.evaluate(
    ({ source, flags, store }) => {
      const re = new RegExp(source, flags.includes('g') ? flags : `${flags}g`);
      const seen: string[] = [];
      (window as unknown as Record<string, string[]>)[store] = seen;
      const record = (node: Node) => {
        for (const m of (node.textContent ?? '').matchAll(re)) if (!seen.includes(m[0])) seen.push(m[0]);
      };
      record(document.body);
      new MutationObserver((mutations) => {
        for (const m of mutations) {
          if (m.type === 'characterData') record(m.target);
          m.addedNodes.forEach(record);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    },
    { source: pattern.source, flags: pattern.flags, store: STORE },
  );
  return () => page.evaluate((store) => [...((window as unknown as Record<string, string[]>)[store] ?? [])], STORE);
}
