import { LinkActivity, stallPolicy, stalledFlights, type FlightView, type LinkView } from '../src/features/upload/model/stall-watch';

const policy = stallPolicy(60_000);
const MB = 1_000_000;
const flight = (over: Partial<FlightView> = {}): FlightView => ({ id: 'a', quietSince: 0, written: 4 * MB, deliveredBefore: 0, peers: 2, ...over });
const link = (over: Partial<LinkView>): LinkView => ({ now: 0, movedAt: 0, activeSince: 0, delivered: 0, deliveredAtActive: 0, ...over });

describe('stallPolicy', () => {
  it('gives up on a silent link after three times the quiet bound', () => {
    expect(stallPolicy(60_000)).toEqual({ quietMs: 60_000, silenceMs: 180_000, drainFactor: 4 });
    expect(stallPolicy(5_000).silenceMs).toBe(15_000);
  });
});

describe('stalledFlights', () => {
  it('never gives up an upload quiet for less than the quiet bound', () => {
    expect(stalledFlights([flight({ quietSince: 1_000 })], link({ now: 60_999, movedAt: 60_000, delivered: 1000 * MB }), policy)).toEqual([]);
  });

  it('gives up an upload quiet while the others moved and delivered four times its fair share: its connection is dead, the link is not', () => {
    // 4 MB written, one other upload: the other must deliver 16 MB while it stays quiet.
    const view = (delivered: number) => link({ now: 90_000, movedAt: 89_500, delivered });
    expect(stalledFlights([flight()], view(15.9 * MB), policy)).toEqual([]);
    expect(stalledFlights([flight()], view(16 * MB), policy)).toEqual([{ id: 'a', quietMs: 90_000 }]);
  });

  it('does not give up an upload whose bytes sit in its socket buffer while five others share a slow link', () => {
    // Six photos handed whole to their sockets at 3 Mbit/s; a minute and a half later four have
    // been answered (16 MB): the last two still drain, each at a share of the link.
    const flights = [flight({ id: 'e', peers: 6 }), flight({ id: 'f', peers: 6 })];
    expect(stalledFlights(flights, link({ now: 90_000, movedAt: 88_000, delivered: 16 * MB }), policy)).toEqual([]);
  });

  it('rides out an outage: uploads quiet together are kept until the silence bound', () => {
    const flights = [flight({ id: 'a', quietSince: 10_000 }), flight({ id: 'b', quietSince: 12_000 })];
    const view = (now: number) => link({ now, movedAt: 12_000, delivered: 100 * MB });
    expect(stalledFlights(flights, view(12_000 + 179_000), policy)).toEqual([]);
    expect(stalledFlights(flights, view(12_000 + 180_000), policy)).toEqual([
      { id: 'a', quietMs: 182_000 },
      { id: 'b', quietMs: 180_000 },
    ]);
  });

  it('after an outage, counts only what moved since the link came back: a connection that resumes later is given its time', () => {
    // Quiet since 10 s; the link silent from 12 s to 100 s and moving since; 50 MB delivered before it.
    const view = (now: number, delivered: number) => link({ now, movedAt: now - 500, activeSince: 100_000, delivered, deliveredAtActive: 50 * MB });
    const quiet = flight({ quietSince: 10_000, deliveredBefore: 40 * MB });
    // A minute of the link moving has not passed yet, though the others delivered plenty.
    expect(stalledFlights([quiet], view(159_000, 90 * MB), policy)).toEqual([]);
    // A minute passed, but what came since the link came back is not yet four shares.
    expect(stalledFlights([quiet], view(160_000, 65 * MB), policy)).toEqual([]);
    expect(stalledFlights([quiet], view(160_000, 66 * MB), policy)).toEqual([{ id: 'a', quietMs: 150_000 }]);
  });

  it('an upload that never got a byte into its socket while others delivered is given up at the quiet bound', () => {
    expect(stalledFlights([flight({ written: 0 })], link({ now: 60_000, movedAt: 59_000, delivered: MB }), policy)).toEqual([{ id: 'a', quietMs: 60_000 }]);
  });

  it('is not fooled by the link’s own old movement: moving means within the last five seconds', () => {
    expect(stalledFlights([flight()], link({ now: 120_000, movedAt: 114_000, delivered: 100 * MB }), policy)).toEqual([]);
  });
});

describe('LinkActivity', () => {
  it('counts the link as moving since its last gap of more than five seconds, and what was delivered by then', () => {
    const activity = new LinkActivity(0);
    activity.moved(4_000, MB);
    activity.moved(9_000);
    expect(activity).toMatchObject({ activeSince: 0, delivered: MB, deliveredAtActive: 0 });
    activity.moved(14_001, 2 * MB);
    expect(activity).toMatchObject({ movedAt: 14_001, activeSince: 14_001, delivered: 3 * MB, deliveredAtActive: MB });
    activity.restart(20_000);
    expect(activity).toMatchObject({ movedAt: 20_000, activeSince: 20_000, deliveredAtActive: 3 * MB });
  });
});
