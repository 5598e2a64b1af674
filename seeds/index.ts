import type { Knex } from 'knex';
import { seed as sample } from './sample';

// Listed statically: the same under tsx, jest and a compiled build. `npx knex seed:run` runs
// these through knexfile.js.
const seeds: Record<string, Knex.Seed> = {
  sample: { seed: async (knex) => void (await sample(knex)) },
};

export const seedSource: Knex.SeedSource<string> = {
  getSeeds: async () => Object.keys(seeds).sort(),
  getSeed: async (name) => seeds[name],
};
