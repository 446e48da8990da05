import { defaultBrand } from '@trailsense/shared';

/**
 * Shown instead of the site when `/config.json` is missing or invalid: one readable list of every
 * problem (also logged), never a blank page.
 */
export function ConfigErrorPage({ problems }: { problems: readonly string[] }) {
  return (
    <main className="config-error">
      <h1>{defaultBrand.productName} can’t start right now</h1>
      <p>
        The site’s configuration has {problems.length === 1 ? 'a problem' : `${problems.length} problems`}. Please try again later, or email{' '}
        <a href={`mailto:${defaultBrand.supportEmail}`}>{defaultBrand.supportEmail}</a>.
      </p>
      <h2>For the site’s operators: fix /config.json</h2>
      <ul>
        {problems.map((problem) => (
          <li key={problem}>{problem}</li>
        ))}
      </ul>
    </main>
  );
}
