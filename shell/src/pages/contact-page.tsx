import { Link } from 'react-router-dom';
import { useBrand } from '@trailsense/shared';
import './pages.css';

/** `/contact`: the support email, a pointer to the FAQ, and the app-store links. */
export function ContactPage() {
  const { productName, supportEmail, appStoreUrl, googlePlayUrl, privacyPolicyUrl } = useBrand();

  return (
    <div className="page contact-page">
      <div className="page-hero">
        <h1>Contact us</h1>
        <p>Questions about your account, the app or the bulk uploader? Something not working the way it should? We are glad to help.</p>
      </div>

      <div className="card-grid contact-grid">
        <section className="card" aria-labelledby="contact-email">
          <h2 id="contact-email">Email support</h2>
          <p>
            Write to us at{' '}
            <a className="contact-email" href={`mailto:${supportEmail}`}>
              {supportEmail}
            </a>
            .
          </p>
          <p>To help us answer in one reply, please include:</p>
          <ul className="point-list">
            <li>the email address you use to sign in;</li>
            <li>your ranch, if you are a ranch member;</li>
            <li>your phone (iPhone or Android) or, for this website, your browser;</li>
            <li>what you were doing, and any error message you saw (a screenshot helps).</li>
          </ul>
        </section>

        <section className="card" aria-labelledby="contact-faq">
          <h2 id="contact-faq">Check the FAQ</h2>
          <p>
            Questions about creating an account, how many cameras you can add, upload limits and upload speed are answered in our FAQ, along with seven
            camera-setup tips.
          </p>
          <p>
            <Link to="/support">Read the FAQ</Link>
          </p>
        </section>

        <section className="card" aria-labelledby="contact-apps">
          <h2 id="contact-apps">Get the app</h2>
          <p>Your account, cameras, tagged photos, Analyze and Predict all live in the {productName} app.</p>
          <div className="action-row action-row--stacked">
            <a className="button" href={appStoreUrl}>
              Download on the App Store
            </a>
            <a className="button" href={googlePlayUrl}>
              Get it on Google Play
            </a>
          </div>
        </section>
      </div>

      <section className="section" aria-labelledby="contact-delete">
        <h2 id="contact-delete">Deleting your account</h2>
        <p>
          You can delete your account yourself on the <Link to="/delete">Delete Account page</Link>. Our <a href={privacyPolicyUrl}>Privacy Policy</a> explains
          what is removed.
        </p>
      </section>
    </div>
  );
}
