// Before/after of the simulation speed on two checkouts, each built (`pnpm build` there): their
// packages/testing (with the @voxwire/agents it resolves) loaded side by side in this process.
//   node src/ab.mjs NEW_CHECKOUT OLD_CHECKOUT [pairs=150] [warmupPairs=100]
// Prints one JSON line (side-by-side.mjs): medians of CPU ms per run and of new/old, over all pairs and
// over the undisturbed ones.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compareBuilds } from './side-by-side.mjs';

const [newDir, oldDir] = process.argv.slice(2, 4);
if (!newDir || !oldDir) {
  console.error('usage: node src/ab.mjs NEW_CHECKOUT OLD_CHECKOUT [pairs] [warmupPairs]');
  process.exit(2);
}
const load = (dir) => import(pathToFileURL(resolve(dir, 'packages/testing/dist/index.js')).href);
const result = await compareBuilds(await load(newDir), await load(oldDir), {
  pairs: Number(process.argv[4] ?? 150),
  warmupPairs: Number(process.argv[5] ?? 100),
});
console.log(JSON.stringify({ new: newDir, old: oldDir, ...result }));
