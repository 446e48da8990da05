/**
 * Copy for the home page (/). Plain text; the page adds the product name from the brand, so nothing
 * here names it (the brand is configurable at run time).
 */

/** A titled paragraph: a card, a step or a list item with a lead-in. */
export interface ContentBlock {
  title: string;
  body: string;
}

/** One of the two planning tools in the app. */
export interface Tool {
  name: 'Analyze' | 'Predict';
  /** One sentence saying what the tool answers. */
  summary: string;
  points: readonly ContentBlock[];
}

/** What the AI reads from each trail-camera photo (docs/product.md#who-it-is-for). */
export const photoDetails: readonly ContentBlock[] = [
  {
    title: 'Bucks, does and hogs',
    body:
      'Every photo is checked for deer and hogs, and deer are sorted into bucks and does, so you can ' +
      'go straight to the pictures you care about instead of scrolling past raccoons and blowing grass.',
  },
  {
    title: 'Date and time',
    body: 'The time each photo was taken is read and recorded, building a timeline of when animals move ' + 'past each camera.',
  },
  {
    title: 'Location',
    body: 'Each sighting is tied to the camera and location it came from, so you can compare one stand ' + 'with another across the whole property.',
  },
  {
    title: 'Weather and moon phase',
    body: 'The weather and the moon phase at the moment of each photo are added to it, so you can see ' + 'how conditions line up with movement.',
  },
];

/** Analyze and Predict (docs/product.md#who-it-is-for). */
export const tools: readonly Tool[] = [
  {
    name: 'Analyze',
    summary: 'Turns a season of photos into answers about your own ground.',
    points: [
      {
        title: 'Top stand locations',
        body: 'See which cameras and locations draw the most activity, and the most bucks.',
      },
      {
        title: 'Peak sighting times',
        body: 'Find the hours when deer and hogs actually move past each camera.',
      },
      {
        title: 'Custom stats',
        body: 'Build the numbers you care about from your own sightings.',
      },
    ],
  },
  {
    name: 'Predict',
    summary: 'Tells you the best day and time to hunt.',
    points: [
      {
        title: 'Learns from your history',
        body: 'Uses the sightings your cameras have already recorded, in the conditions they were recorded in.',
      },
      {
        title: 'Looks at the forecast',
        body: 'Weighs the weather forecast for the days ahead against that history.',
      },
      {
        title: 'Gives you a plan',
        body: 'Points you to the day and time worth taking off work for.',
      },
    ],
  },
];

/** How the service works, in three steps. */
export const howItWorks: readonly ContentBlock[] = [
  {
    title: 'Upload your trail-camera photos',
    body:
      'Send photos from your phone with the app, or, if you are a ranch member with a full SD card, ' +
      'upload thousands at once with the bulk uploader on this website.',
  },
  {
    title: 'The AI sorts and tags every photo',
    body: 'Bucks, does and hogs are identified, and each photo gets its date, time, location, weather ' + 'and moon phase.',
  },
  {
    title: 'Analyze and Predict show you where and when',
    body: 'Your tagged sightings become stand rankings, peak times and a forecast of the best day and ' + 'time to hunt.',
  },
];

/** The six-step start list (docs/product.md#marketing-pages). */
export const startSteps: readonly ContentBlock[] = [
  {
    title: 'Download the app',
    body: 'Get it for iPhone from the App Store or for Android from Google Play.',
  },
  {
    title: 'Create your account',
    body: 'Follow the account creation steps in the app. The same email and password sign you in on ' + 'this website.',
  },
  {
    title: 'Add your locations and cameras',
    body: 'Set up each location you hunt and the cameras on it, so every photo lands in the right place.',
  },
  {
    title: 'Upload your photos',
    body: 'Use the app for a handful of photos, or the bulk uploader on this website when a ranch SD ' + 'card holds thousands.',
  },
  {
    title: 'Let the AI tag bucks, does and hogs',
    body: 'Each photo is identified and stamped with its date, time, location, weather and moon phase.',
  },
  {
    title: 'Plan your hunt with Analyze and Predict',
    body: 'Check your top stand locations and peak sighting times, then let Predict pick the best day ' + 'and time to be in the stand.',
  },
];
