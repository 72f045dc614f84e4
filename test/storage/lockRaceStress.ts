// `npm run stress` part 2: the stale-lock race between two processes at length (default 500
// rounds; `tsx test/storage/lockRaceStress.ts [rounds] [seed]`). Prints a line per 50 rounds and
// the figures; exits non-zero when any round had two owners, none, or lost an acknowledged write.
import { runLockRace } from './lockRace.ts';

const rounds = Number(process.argv[2] ?? 500);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
console.log(`stale-lock race: ${rounds} rounds, seed ${seed}`);
const started = Date.now();
const figures = await runLockRace({
  rounds,
  seed,
  onRound: (line) => {
    if (/^round \d*(00|50):/.test(line)) console.log(line);
  },
});
console.log(JSON.stringify({ check: 'stale-lock race', ...figures, seconds: Math.round((Date.now() - started) / 100) / 10 }));
if (figures.doubleOpens > 0 || figures.noOpens > 0 || figures.lostWrites > 0) {
  console.error(
    `stale-lock race FAILED: ${figures.doubleOpens} double opens, ${figures.noOpens} rounds without an owner, ${figures.lostWrites} acknowledged writes lost`,
  );
  process.exit(1);
}
