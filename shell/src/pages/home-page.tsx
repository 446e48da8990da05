import { Link } from 'react-router-dom';
import { useBrand } from '@trailsense/shared';
import { howItWorks, photoDetails, startSteps, tools } from '../content/home';
import './pages.css';

/** `/`: what the service does, Analyze and Predict, how it works and the six-step start list. */
export function HomePage() {
  const { productName, appStoreUrl, googlePlayUrl } = useBrand();

  return (
    <div className="page home-page">
      <div className="page-hero home-hero">
        <p className="eyebrow">For deer and hog hunters</p>
        <h1>AI trail camera analysis</h1>
        <p>
          {productName} identifies bucks, does and hogs in your trail-camera photos and reads the date, time, location, weather and moon phase from every one.
          Then Analyze and Predict show you where to sit and when.
        </p>
        <div className="action-row">
          <a className="button" href={appStoreUrl}>
            Download on the App Store
          </a>
          <a className="button" href={googlePlayUrl}>
            Get it on Google Play
          </a>
          <a className="button button--secondary" href="#how-it-works">
            See how it works
          </a>
        </div>
      </div>

      <section className="section" aria-labelledby="home-photo-details">
        <h2 id="home-photo-details">What {productName} reads from every photo</h2>
        <p className="section-lead">
          A season of trail-camera pictures is a record of what walks your ground. {productName} turns that record into data you can use.
        </p>
        <div className="card-grid">
          {photoDetails.map((detail) => (
            <article className="card" key={detail.title}>
              <h3>{detail.title}</h3>
              <p>{detail.body}</p>
            </article>
          ))}
        </div>
      </section>

      <section className="section" aria-labelledby="home-tools">
        <h2 id="home-tools">Analyze and Predict</h2>
        <p className="section-lead">Two tools in the app that put your sightings to work.</p>
        <div className="card-grid tool-grid">
          {tools.map((tool) => (
            <article className="card tool-card" key={tool.name}>
              <h3>{tool.name}</h3>
              <p className="tool-card__summary">{tool.summary}</p>
              <ul className="point-list">
                {tool.points.map((point) => (
                  <li key={point.title}>
                    <strong>{point.title}.</strong> {point.body}
                  </li>
                ))}
              </ul>
            </article>
          ))}
        </div>
      </section>

      <section className="section" id="how-it-works" aria-labelledby="home-how-it-works">
        <h2 id="home-how-it-works">How it works</h2>
        <ol className="step-list step-list--row" role="list">
          {howItWorks.map((step) => (
            <li className="step" key={step.title}>
              <h3>{step.title}</h3>
              <p>{step.body}</p>
            </li>
          ))}
        </ol>
      </section>

      <section className="section" aria-labelledby="home-start-steps">
        <h2 id="home-start-steps">Get started in six steps</h2>
        <ol className="step-list" role="list">
          {startSteps.map((step) => (
            <li className="step" key={step.title}>
              <h3>{step.title}</h3>
              <p>{step.body}</p>
            </li>
          ))}
        </ol>
      </section>

      <section className="section" aria-labelledby="home-uploader">
        <div className="callout">
          <h2 id="home-uploader">Pulled a card with thousands of photos?</h2>
          <p>
            Ranch members can sign in on this website and upload a whole SD card at once with the bulk uploader, then see the results in the app like any other
            upload. Accounts are created in the app; sign in here with the same email and password.
          </p>
          <div className="action-row">
            <Link className="button" to="/uploader">
              Open the bulk uploader
            </Link>
            <Link className="button button--secondary" to="/support">
              Read the FAQ
            </Link>
          </div>
        </div>
      </section>
    </div>
  );
}
