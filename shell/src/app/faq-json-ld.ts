import type { FaqEntry } from '../content/faq';

/** schema.org FAQPage structured data built from the same entries the /support page shows. */
export function faqJsonLd(entries: readonly FaqEntry[]): Record<string, unknown> {
  return {
    '@context': 'https://schema.org',
    '@type': 'FAQPage',
    mainEntity: entries.map((entry) => ({
      '@type': 'Question',
      name: entry.question,
      acceptedAnswer: { '@type': 'Answer', text: entry.answer },
    })),
  };
}

/**
 * The JSON-LD as script text. `<` is escaped so that no answer text can close the script
 * element early.
 */
export function jsonLdScriptText(data: unknown): string {
  return JSON.stringify(data).replace(/</g, '\\u003c');
}
