import { applyHead } from '../src/app/head';
import { faqJsonLd, jsonLdScriptText } from '../src/app/faq-json-ld';
import { faq } from '../src/content/faq';

const jsonLdScripts = () => document.head.querySelectorAll('script[type="application/ld+json"]');

describe('applyHead', () => {
  beforeEach(() => {
    document.head.innerHTML = '<meta name="description" content="initial">';
  });

  it('sets the title and replaces the meta description', () => {
    applyHead(document, { title: 'About Us | TrailSense', description: 'The founders.' }, jsonLdScriptText);
    expect(document.title).toBe('About Us | TrailSense');
    const metas = document.head.querySelectorAll('meta[name="description"]');
    expect(metas).toHaveLength(1);
    expect(metas[0]).toHaveAttribute('content', 'The founders.');
  });

  it('adds structured data once and removes it on the next route', () => {
    const head = { title: 'FAQ', description: 'd', jsonLd: { '@type': 'FAQPage' } };
    applyHead(document, head, jsonLdScriptText);
    applyHead(document, head, jsonLdScriptText);
    expect(jsonLdScripts()).toHaveLength(1);
    applyHead(document, { title: 'Contact', description: 'd' }, jsonLdScriptText);
    expect(jsonLdScripts()).toHaveLength(0);
  });

  it('creates the meta description when the page has none', () => {
    document.head.innerHTML = '';
    applyHead(document, { title: 't', description: 'Created.' }, jsonLdScriptText);
    expect(document.head.querySelector('meta[name="description"]')).toHaveAttribute('content', 'Created.');
  });
});

describe('faqJsonLd', () => {
  it('is a FAQPage with one Question per visible FAQ entry, in order', () => {
    const data = faqJsonLd(faq) as { '@type': string; mainEntity: { name: string; acceptedAnswer: { text: string } }[] };
    expect(data['@type']).toBe('FAQPage');
    expect(data.mainEntity.map((q) => q.name)).toEqual(faq.map((e) => e.question));
    expect(data.mainEntity.map((q) => q.acceptedAnswer.text)).toEqual(faq.map((e) => e.answer));
  });
});

describe('jsonLdScriptText', () => {
  it('cannot close its script element early', () => {
    const text = jsonLdScriptText({ text: '</script><script>alert(1)</script>' });
    expect(text).not.toContain('</script>');
    expect(JSON.parse(text)).toEqual({ text: '</script><script>alert(1)</script>' });
  });
});
