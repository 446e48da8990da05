/** The seven camera-setup tips shown on /support (docs/product.md#marketing-pages). Plain text, in the order a hunter sets a camera. */

/** One setup tip: a short imperative title and a paragraph of advice. */
export interface SetupTip {
  title: string;
  body: string;
}

export const setupTips: readonly SetupTip[] = [
  {
    title: 'Pick a travel route, not just a pretty spot',
    body:
      'Hang cameras where animals move: trails between bedding and feeding areas, field edges, pinch ' +
      'points, creek crossings and fresh scrapes. For hogs, look for wallows, rooting and well-used ' +
      'trails into thick cover. Set the camera at an angle to the trail rather than square to it, so ' +
      'an animal walks into the frame and the camera has time to fire before it walks out.',
  },
  {
    title: 'Mount it at the right height and angle',
    body:
      'About waist high, three to four feet, suits deer; for hogs, come down a little so they are not ' +
      'slipping under the frame. Use a sturdy tree that will not sway in the wind, and tilt the ' +
      'camera slightly down (a small stick behind it works) so the whole animal fills the picture ' +
      'about 10 to 20 feet out. Full-body photos are the ones the AI tags most reliably.',
  },
  {
    title: 'Face north and keep the sun out of the lens',
    body:
      'A camera facing east or west looks straight into the rising or setting sun, right when deer ' +
      'are moving. The glare washes out photos, and the moving light sets off false triggers. Facing ' +
      'north, or at least away from the sun at dawn and dusk, gives clearer pictures at the hours ' +
      'that matter.',
  },
  {
    title: 'Clear the brush in front of the camera',
    body:
      'Trim weeds, tall grass and low branches from the detection zone while you are there. Anything ' +
      'that moves in the wind fills your card with empty frames and runs down the batteries, and ' +
      'anything between the lens and the trail can hide an animal from the AI. Do it on the setup ' +
      'trip so you do not have to come back with clippers.',
  },
  {
    title: 'Set the date and time exactly',
    body:
      'Peak sighting times, moon phase and weather are all matched to the time stamp on each photo, ' +
      'and Predict learns from them, so a clock that is off by an hour teaches the wrong pattern. Set ' +
      'the date, time and AM/PM on every camera, check them after each battery change and at daylight ' +
      'saving changes, and give each camera its own name if it can stamp one on its photos.',
  },
  {
    title: 'Start with fresh batteries and a formatted SD card',
    body:
      'Dead batteries and full cards cost more sightings than anything else. Use fresh batteries (lithium ' +
      'holds up better in the cold), a card of the size and speed class your camera manual recommends, ' +
      'and format the card in the camera itself, not on a computer, each time it goes back in.',
  },
  {
    title: 'Check cards without spooking deer',
    body:
      'Every trip leaves scent and noise. Check cameras at midday when deer are bedded, or just before ' +
      'rain, walk in with the wind in your face, wear rubber boots, and keep visits to every week or ' +
      'two. Carry a spare card and swap it instead of looking through photos on the spot; go through ' +
      'them at home, where you can upload the whole card at once.',
  },
];
