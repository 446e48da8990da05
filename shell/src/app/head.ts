/** What a route puts in the document head. */
export interface HeadData {
  title: string;
  description: string;
  /** Structured data for a `<script type="application/ld+json">`, or none. */
  jsonLd?: unknown;
}

const JSON_LD_ID = 'route-json-ld';

/**
 * Applies a route's title, meta description and structured data to the document, replacing
 * what the previous route set. Idempotent, so it is safe on every navigation.
 */
export function applyHead(doc: Document, head: HeadData, scriptText: (data: unknown) => string): void {
  doc.title = head.title;
  let meta = doc.head.querySelector<HTMLMetaElement>('meta[name="description"]');
  if (!meta) {
    meta = doc.createElement('meta');
    meta.name = 'description';
    doc.head.appendChild(meta);
  }
  meta.content = head.description;

  const existing = doc.getElementById(JSON_LD_ID);
  if (head.jsonLd === undefined) {
    existing?.remove();
    return;
  }
  const script = existing ?? doc.createElement('script');
  script.id = JSON_LD_ID;
  script.setAttribute('type', 'application/ld+json');
  script.textContent = scriptText(head.jsonLd);
  if (!existing) doc.head.appendChild(script);
}
