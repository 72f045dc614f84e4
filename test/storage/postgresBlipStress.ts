// `tsx test/storage/postgresBlipStress.ts [rounds] [seconds] [seed]` (part of `npm run stress`;
// PG_TEST_URL): the database-blip trial (postgresBlip.ts) at length — by default three rounds of
// 30 s of backend kills every 2–20 ms against a Host process under a steady stream of creates.
// Prints each round's figures and their sum; exits 1 when a Host crashed, did not serve again
// after the kills, or lost an acknowledged create.
import { addUp, type BlipFigures, blipRound } from './postgresBlip.ts';

const [roundsArg, secondsArg, seedArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 3);
const seconds = Number(secondsArg ?? 30);
const seed = Number(seedArg ?? 35);

const figures: BlipFigures[] = [];
for (let round = 0; round < rounds; round++) {
  const f = await blipRound(seconds * 1000, seed + round);
  figures.push(f);
  console.log(
    `[blip] round ${round + 1}/${rounds}: ${f.killed} backends killed in ${seconds} s; ${f.acknowledged} creates acknowledged, ${f.uncertain} answered persistence_uncertain, ${f.lost} lost; ${
      f.crash === undefined ? 'no crash' : `CRASHED: ${f.crash}`
    }; served again ${f.recoveryMs === undefined ? 'never' : `${f.recoveryMs} ms`} after the last kill`,
  );
}
const total = addUp(figures);
console.log(`[blip] total: ${JSON.stringify(total)}`);
const failed = total.crashes > 0 || total.lost > 0 || figures.some((f) => f.recoveryMs === undefined);
process.exit(failed ? 1 : 0);
