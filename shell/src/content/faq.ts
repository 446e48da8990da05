/**
 * The FAQ shown on /support. The same entries feed the page's FAQPage JSON-LD, so answers are plain
 * text (no markup, no links) and never name the product or the support address: the brand is
 * configurable at run time, and static text here would go stale when it changes.
 */

/** One question and its plain-text answer. */
export interface FaqEntry {
  question: string;
  answer: string;
}

export const faq: readonly FaqEntry[] = [
  {
    question: 'How do I create an account?',
    answer:
      'Accounts are created in our mobile app. Download the app from the App Store or Google Play, ' +
      'open it and follow the account creation steps. Once your account exists, you can sign in on ' +
      'this website with the same email address and password to use the bulk uploader.',
  },
  {
    question: 'How many cameras can I have on one account?',
    answer:
      'The number of cameras per account depends on the number of locations you set up and on your ' +
      'subscription. Add your locations and cameras in the app; if you reach the limit for your ' +
      'subscription, the app will tell you.',
  },
  {
    question: 'Is there a limit on how many photos I can upload?',
    answer:
      'Yes. The photo upload limit depends on your subscription and is counted per calendar month. ' +
      'Without an active subscription the standard limit is 1,000 images a month; a subscription ' +
      'raises it. Each time you open the bulk uploader it shows your monthly limit, how many images ' +
      'you have uploaded this month and how many you have left.',
  },
  {
    question: 'How long will my upload take?',
    answer:
      'Upload speed depends on your internet connection, in particular its upload speed, which on ' +
      'rural, satellite and cellular connections is often much slower than the download speed. A few ' +
      'hundred photos usually go quickly; a full SD card can take a while. Keep the uploader page open ' +
      'until the progress bar reaches 100 percent. If your connection at camp is slow, it can be ' +
      'quicker to upload the card once you are back on a faster connection.',
  },
  {
    question: 'Who can use the bulk uploader on the website?',
    answer:
      'The bulk uploader is for ranch members: signed-in users whose account is linked to a ranch. ' +
      'It is built for the day you pull a card with thousands of photos on it and would rather not ' +
      'send them one by one from your phone. If you can sign in but the Add Images button is ' +
      'disabled, your account is not linked to a ranch yet; contact support and we will help.',
  },
  {
    question: 'What kinds of photos does the uploader accept?',
    answer:
      'JPEG photos (files ending in .jpg or .jpeg), the format nearly every trail camera saves to its ' +
      'SD card. Upload the original files straight from the card: editing, resizing or re-saving ' +
      'them can strip the date, time and camera details the analysis relies on. Video clips are not ' +
      'supported by the uploader.',
  },
  {
    question: 'Do I need to choose a camera when I upload?',
    answer:
      'Only when the camera cannot name itself. Many trail cameras stamp their name on each photo, so ' +
      'the service can tell which camera took it. If yours does not, upload one card at a time and ' +
      'pick that camera from the Indicate camera list, so the whole batch is filed under the right ' +
      'camera and location.',
  },
  {
    question: 'What does "Use these files for training the model" do?',
    answer:
      'It marks the photos in that batch as examples for improving our animal identification. Use it ' +
      'sparingly: choose only a few (under 10) clear, well-lit photos in which the animal is easy to ' +
      'see. Leave the box unchecked for your everyday uploads. Only photos you mark this way are used ' +
      'for training.',
  },
  {
    question: 'Which animals does the app identify?',
    answer:
      'It identifies bucks, does and hogs in your trail-camera photos, and reads the date, time, ' +
      'location, weather and moon phase for each one. Those details feed Analyze, which shows your top ' +
      'stand locations, peak sighting times and custom stats, and Predict, which suggests the best day ' +
      'and time to hunt from your history and the weather forecast.',
  },
  {
    question: 'How do I delete my account?',
    answer:
      'Open the Delete Account page on this website (at /delete) and follow the steps there. ' +
      'Deleting your account is permanent: your profile and the photos you uploaded are removed, as ' +
      'described in our Privacy Policy. An active app-store subscription is billed by Apple or Google, ' +
      'so cancel it in your store account as well.',
  },
];
