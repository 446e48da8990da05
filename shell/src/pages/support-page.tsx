import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { useBrand } from '@trailsense/shared';
import { faq } from '../content/faq';
import { setupTips } from '../content/setup-tips';
import './pages.css';

/** Site paths that FAQ answers mention in plain text (the same text feeds the JSON-LD). */
const linkedPaths = /(\/delete|\/support|\/contact|\/login|\/uploader)\b/;

/**
 * Renders a plain-text answer with any site path in it as a link. The words stay exactly those of
 * the FAQ data, so the visible FAQ and the FAQPage JSON-LD say the same thing.
 */
function withPathLinks(text: string): ReactNode[] {
  // split() with a capturing group puts the matched paths at the odd indices.
  return text.split(linkedPaths).map((part, index) =>
    index % 2 === 1 ? (
      <Link key={index} to={part}>
        {part}
      </Link>
    ) : (
      part
    ),
  );
}

/** `/support`: the FAQ (same data as the page's JSON-LD), seven camera-setup tips, and a way to contact us. */
export function SupportPage() {
  const { productName } = useBrand();

  return (
    <div className="page support-page">
      <div className="page-hero">
        <h1>Support</h1>
        <p>Answers to the questions hunters ask us most, and seven tips for getting better photos out of your trail cameras.</p>
        <nav className="jump-links" aria-label="On this page">
          <a href="#faq">Frequently asked questions</a>
          <a href="#setup-tips">Camera-setup tips</a>
          <Link to="/contact">Contact support</Link>
        </nav>
      </div>

      <section className="section" id="faq" aria-labelledby="support-faq">
        <h2 id="support-faq">Frequently asked questions</h2>
        <div className="faq-list">
          {faq.map((entry) => (
            <article className="faq-item" key={entry.question}>
              <h3>{entry.question}</h3>
              <p>{withPathLinks(entry.answer)}</p>
            </article>
          ))}
        </div>
      </section>

      <section className="section" id="setup-tips" aria-labelledby="support-tips">
        <h2 id="support-tips">Seven camera-setup tips</h2>
        <p className="section-lead">
          {productName} can only tag what your camera captures. A few minutes spent on setup pays off in clearer photos, fewer empty frames and better answers
          from Analyze and Predict.
        </p>
        <ol className="step-list step-list--tips" role="list">
          {setupTips.map((tip) => (
            <li className="step" key={tip.title}>
              <h3>{tip.title}</h3>
              <p>{tip.body}</p>
            </li>
          ))}
        </ol>
      </section>

      <section className="section" aria-labelledby="support-contact">
        <div className="callout">
          <h2 id="support-contact">Still need help?</h2>
          <p>Send us a message and we will get back to you.</p>
          <div className="action-row">
            <Link className="button" to="/contact">
              Contact support
            </Link>
          </div>
        </div>
      </section>
    </div>
  );
}
