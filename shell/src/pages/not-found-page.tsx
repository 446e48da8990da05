import { Link } from 'react-router-dom';
import './pages.css';

/** Any unknown path: a friendly 404 with a way home. */
export function NotFoundPage() {
  return (
    <div className="page not-found-page">
      <div className="page-hero">
        <p className="eyebrow">404</p>
        <h1>Page not found</h1>
        <p>This trail went cold. The link may be mistyped, or the page may have moved.</p>
        <div className="action-row">
          <Link className="button" to="/">
            Go to the home page
          </Link>
          <Link className="button button--secondary" to="/support">
            Visit support
          </Link>
        </div>
      </div>
    </div>
  );
}
