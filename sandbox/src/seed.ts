/**
 * The demo data, printed with the passwords when the sandbox starts. Dates are relative to the day
 * of seeding (`--reset` reseeds relative to today).
 */
import { countingMonth } from '@trailsense/infra/ledger';
import type { SandboxDb } from './db';

export interface SeedUser {
  email: string;
  password: string;
  /** Fixed so identity ids and logs stay the same across resets. */
  sub: string;
  name: string;
  ranchId?: string;
  /** What the account is for, printed in the start-up banner. */
  role: string;
}

export interface SeedRanch {
  id: string;
  name: string;
  maxMonthlyUploads: number;
  cameras: string[];
  /** Images already counted this month before any upload. */
  countedThisMonth: number;
}

export const SEED_RANCHES: readonly SeedRanch[] = [
  {
    id: 'cedar-creek',
    name: 'Cedar Creek Ranch',
    maxMonthlyUploads: 10000,
    cameras: ['North Feeder', 'Creek Crossing', 'Oak Ridge Stand', 'South Food Plot'],
    countedThisMonth: 0,
  },
  { id: 'mesquite-flats', name: 'Mesquite Flats Ranch', maxMonthlyUploads: 0, cameras: ['Windmill Tank', 'Sendero East'], countedThisMonth: 985 },
  // Camera names beyond ASCII, as people type them: S3 metadata must be US-ASCII, so the site
  // encodes them (uploader-remote/src/features/upload/model/metadata-encoding.ts).
  { id: 'pine-hollow', name: 'Pine Hollow Ranch', maxMonthlyUploads: 0, cameras: ['Hollow Trail', 'Réservoir', 'Hog pen 🐗'], countedThisMonth: 0 },
];

export const SEED_USERS: readonly SeedUser[] = [
  {
    email: 'subscriber@trailsense.example',
    password: 'CedarCreek2025',
    sub: '5b0e1c2a-0001-4c3d-8e9f-000000000001',
    name: 'Sam Subscriber',
    ranchId: 'cedar-creek',
    role: 'active premium subscriber, Cedar Creek Ranch (4 cameras, 10,000/month)',
  },
  {
    email: 'free@trailsense.example',
    password: 'MesquiteFlats1',
    sub: '5b0e1c2a-0002-4c3d-8e9f-000000000002',
    name: 'Frankie Free',
    ranchId: 'mesquite-flats',
    role: 'no subscription, 985 of 1,000 used this month (15 remaining)',
  },
  {
    email: 'partner@trailsense.example',
    password: 'MesquiteFlats2',
    sub: '5b0e1c2a-0005-4c3d-8e9f-000000000005',
    name: 'Pat Partner',
    ranchId: 'mesquite-flats',
    role: 'second member of Mesquite Flats Ranch (shares its 15 remaining)',
  },
  {
    email: 'lapsed@trailsense.example',
    password: 'PineHollow2024',
    sub: '5b0e1c2a-0003-4c3d-8e9f-000000000003',
    name: 'Lee Lapsed',
    ranchId: 'pine-hollow',
    role: 'premium entitlement expired last month',
  },
  {
    email: 'noranch@trailsense.example',
    password: 'NoRanchYet1',
    sub: '5b0e1c2a-0004-4c3d-8e9f-000000000004',
    name: 'Nora Noranch',
    role: 'no custom:ranchid (sent to /profile, cannot upload)',
  },
];

/** YYYY_MM of a date in UTC: the month uploads count in (the wire's, shared/src/uploads/wire.ts). */
export { countingMonth };

/** Subscription rows relative to `now`: active until mid-next-year, lapsed mid-last-month. */
export function seedSubscriptions(now: Date): { email: string; level: string; expiresDate: string }[] {
  const nextYear = new Date(Date.UTC(now.getFullYear() + 1, 5, 30, 23, 59, 59));
  const lastMonth = new Date(Date.UTC(now.getFullYear(), now.getMonth() - 1, 15, 12, 0, 0));
  return [
    { email: 'subscriber@trailsense.example', level: 'premium', expiresDate: nextYear.toISOString().replace('.000Z', 'Z') },
    { email: 'lapsed@trailsense.example', level: 'premium', expiresDate: lastMonth.toISOString().replace('.000Z', 'Z') },
  ];
}

/**
 * Writes ranches (with their cameras and this month's baselines) and subscriptions; inside a
 * transaction of the caller's. The seed's own, and each tenant's copy of them (tenants.ts).
 */
export function insertProductData(
  db: SandboxDb,
  now: Date,
  ranches: readonly SeedRanch[],
  subscriptions: readonly { email: string; level: string; expiresDate: string }[],
): void {
  const raw = db.raw;
  const month = countingMonth(now);
  for (const ranch of ranches) {
    raw.prepare('INSERT INTO ranches (id, name, max_monthly_uploads) VALUES (?, ?, ?)').run(ranch.id, ranch.name, ranch.maxMonthlyUploads);
    ranch.cameras.forEach((name, i) =>
      raw.prepare('INSERT INTO cameras (id, ranch_id, name, position) VALUES (?, ?, ?, ?)').run(`${ranch.id}-cam-${i + 1}`, ranch.id, name, i),
    );
    if (ranch.countedThisMonth > 0) db.setMonthTotal(ranch.id, month, ranch.countedThisMonth);
  }
  for (const s of subscriptions) {
    raw.prepare('INSERT INTO subscriptions (email, level, expires_date) VALUES (?, ?, ?)').run(s.email, s.level, s.expiresDate);
  }
}

/** Writes the product data (ranches, cameras, subscriptions, this month's baselines) once. */
export function seedDatabase(db: SandboxDb, now: Date): void {
  if (db.getMeta('seeded_at')) return;
  db.raw.transaction(() => {
    insertProductData(db, now, SEED_RANCHES, seedSubscriptions(now));
    db.setMeta('seeded_at', now.toISOString());
  })();
}

/** The start-up banner's account table. */
export function seedBanner(): string {
  const width = Math.max(...SEED_USERS.map((u) => u.email.length));
  const rows = SEED_USERS.map((u) => `  ${u.email.padEnd(width)}  ${u.password.padEnd(15)} ${u.role}`);
  return ['Seed accounts (email / password):', ...rows].join('\n');
}
