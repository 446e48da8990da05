import { Link } from 'react-router-dom';
import { useBrand } from '@trailsense/shared';
import './pages.css';

/** `/videos`: coming-soon notice for setup and strategy videos. */
export function VideosPage() {
  const { productName } = useBrand();

  return (
    <div className="page videos-page">
      <div className="page-hero">
        <h1>Videos</h1>
        <div className="notice">
          <p className="notice__title">Coming soon: setup and strategy videos</p>
          <p>We are putting together short videos on getting started with {productName} and on using what your photos tell you. Check back soon.</p>
        </div>
      </div>

      <section className="section" aria-labelledby="videos-planned">
        <h2 id="videos-planned">What the videos will cover</h2>
        <div className="card-grid">
          <article className="card">
            <h3>Setup videos</h3>
            <ul className="point-list">
              <li>Creating your account in the app</li>
              <li>Adding your locations and cameras</li>
              <li>Placing and aiming a trail camera for clear photos</li>
              <li>Uploading a full SD card with the bulk uploader</li>
            </ul>
          </article>
          <article className="card">
            <h3>Strategy videos</h3>
            <ul className="point-list">
              <li>Reading top stand locations and peak sighting times in Analyze</li>
              <li>Using weather and moon phase to understand movement</li>
              <li>Planning a hunt around Predict&rsquo;s best day and time</li>
            </ul>
          </article>
        </div>
      </section>

      <section className="section" aria-labelledby="videos-meantime">
        <div className="callout">
          <h2 id="videos-meantime">In the meantime</h2>
          <p>Our support page has answers to common questions and seven camera-setup tips you can use on your next trip to the woods.</p>
          <div className="action-row">
            <Link className="button" to="/support">
              Read the FAQ and setup tips
            </Link>
            <Link className="button button--secondary" to="/contact">
              Contact us
            </Link>
          </div>
        </div>
      </section>
    </div>
  );
}
