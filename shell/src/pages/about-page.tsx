import { Link } from 'react-router-dom';
import { useBrand } from '@trailsense/shared';
import './pages.css';

/** `/about`: the founders' story (two brothers, late 2020) and what the service stands for. */
export function AboutPage() {
  const { productName } = useBrand();

  return (
    <div className="page about-page">
      <div className="page-hero">
        <p className="eyebrow">About us</p>
        <h1>Built by two brothers who hunt</h1>
        <p>{productName} started in late 2020 with a simple idea: hunters should spend their time in the woods, not scrolling through trail-camera photos.</p>
      </div>

      <section className="section prose" aria-labelledby="about-story">
        <h2 id="about-story">Our story</h2>
        <p>
          Anyone who runs more than a couple of trail cameras knows the problem. The cards come back from the woods holding thousands of pictures: a few good
          bucks, plenty of does, the odd sounder of hogs, and page after page of raccoons, wind-blown grass and nothing at all. Sorting them takes evenings.
          Learning something from them (which stand is really the best, what time the deer are moving, whether the moon or a cold front makes a difference)
          takes a notebook or a spreadsheet that most of us never manage to keep up.
        </p>
        <p>
          Two brothers who hunt decided to fix that, and founded {productName} in late 2020. They set out to build the tool they wanted for themselves: one that
          looks through every photo, picks out the bucks, does and hogs, and keeps the record for you (when, where, the weather and the moon phase) so the
          patterns on your ground show up on their own.
        </p>
      </section>

      <section className="section" aria-labelledby="about-what">
        <h2 id="about-what">What we make</h2>
        <div className="card-grid">
          <article className="card">
            <h3>The mobile apps</h3>
            <p>
              {productName} for iPhone and Android is where it all happens: creating your account, adding locations and cameras, seeing tagged photos, and
              planning with Analyze and Predict.
            </p>
          </article>
          <article className="card">
            <h3>The bulk uploader</h3>
            <p>For ranches where several hunters share cameras, this website adds a signed-in uploader that handles a full SD card of photos in one go.</p>
          </article>
        </div>
      </section>

      <section className="section" aria-labelledby="about-beliefs">
        <h2 id="about-beliefs">What we believe</h2>
        <div className="card-grid">
          <article className="card">
            <h3>Your photos are yours</h3>
            <p>
              We process your photos to give you answers, and we never sell them. Only the photos you choose to mark for training are used to improve our model.
            </p>
          </article>
          <article className="card">
            <h3>Built for real ground</h3>
            <p>From a single lease to a working ranch with many members, {productName} is made for the way deer and hog hunters actually run cameras.</p>
          </article>
          <article className="card">
            <h3>Better decisions, not shortcuts</h3>
            <p>The data helps you choose a stand and a time. Reading sign, playing the wind and hunting fair and legal are still up to you.</p>
          </article>
        </div>
      </section>

      <section className="section" aria-labelledby="about-contact">
        <div className="callout">
          <h2 id="about-contact">Talk to us</h2>
          <p>We would like to hear from you. Questions, ideas and bug reports all help make {productName} better.</p>
          <div className="action-row">
            <Link className="button" to="/contact">
              Contact us
            </Link>
          </div>
        </div>
      </section>
    </div>
  );
}
