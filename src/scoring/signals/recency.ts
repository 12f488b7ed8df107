import type { FactorScore, Signal } from '../../types.js';
import { round6 } from '../numbers.js';

/**
 * recency: half-life decay of the time since a file last changed.
 *   score = FLOOR + (1 - FLOOR) * 0.5^(age_days / decay_days)
 * Last change = the last commit touching the file (one `git log` pass at collect time); a
 * dirty file (modified, staged, untracked) changed just now; a file git does not know falls
 * back to its mtime. FLOOR is the "no evidence" value: an old file is not evidence against
 * relevance, so it is not pushed below the neutral prior (docs/scoring.md, calibration).
 */
export const RECENCY_FLOOR = 0.3;
/** Below this spread of decay values across the candidates, recency says nothing (shallow clone, one-commit import). */
export const RECENCY_MIN_SPREAD = 0.05;
const DAY_MS = 86_400_000;

export const recencySignal: Signal = {
  name: 'recency',
  score(input, ctx) {
    const out = new Map<string, FactorScore>();
    const { git, files, nowMs } = input;
    if (!git.isRepo) {
      ctx.warnings.push('recency: not a git repository, so every file gets the neutral recency score');
      for (const f of files) out.set(f.path, { raw: 0, score: RECENCY_FLOOR, detail: 'not a git repository (neutral)' });
      return out;
    }
    const halfLife = ctx.config.relevance_scoring.factors.recency.decay_days;
    // each file's age in days and where it comes from (AGE_SOURCES), in file order: typed arrays,
    // as babel's 27k files are scored on every query of a warm index
    const days = new Float64Array(files.length);
    const sources = new Uint8Array(files.length);
    const decays = new Float64Array(files.length);
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < files.length; i++) {
      const file = files[i]!;
      const dirty = git.dirty.has(file.path);
      const commit = dirty ? undefined : git.lastCommitMs.get(file.path);
      sources[i] = dirty ? MODIFIED : commit !== undefined ? COMMITTED : MTIME;
      // the mtime only of a file without a commit time: a file git vouches for has it looked up on first use
      days[i] = sources[i] === MODIFIED ? 0 : Math.max(0, nowMs - (commit ?? file.mtimeMs)) / DAY_MS;
      const decay = 0.5 ** (days[i]! / halfLife);
      decays[i] = decay;
      lo = Math.min(lo, decay);
      hi = Math.max(hi, decay);
    }
    const informative = files.length < 2 || hi - lo >= RECENCY_MIN_SPREAD;
    if (!informative) {
      ctx.warnings.push(
        `recency: every candidate file last changed within the same short window${git.isShallow ? ' (shallow clone)' : ''}, so recency does not tell them apart; neutral score used`,
      );
    }
    // an informative shallow clone is already reported by the collect stage
    const run = { halfLife, informative };
    for (let i = 0; i < files.length; i++) {
      const score = informative ? RECENCY_FLOOR + (1 - RECENCY_FLOOR) * decays[i]! : RECENCY_FLOOR;
      out.set(files[i]!.path, new RecencyScore(round6(days[i]!), round6(score), days[i]!, sources[i]!, run));
    }
    return out;
  },
};

/** Where a file's age comes from, with its explanation. */
const MODIFIED = 0;
const COMMITTED = 1;
const MTIME = 2;
const AGE_SOURCES = ['modified in the working tree', 'last commit', 'file mtime (no commit found)'] as const;

/** A file's recency score; its explanation is written when read (the score stage makes one per file per run). */
class RecencyScore implements FactorScore {
  readonly #days: number;
  readonly #source: number;
  readonly #run: { halfLife: number; informative: boolean };

  constructor(
    readonly raw: number,
    readonly score: number,
    days: number,
    source: number,
    run: { halfLife: number; informative: boolean },
  ) {
    this.#days = days;
    this.#source = source;
    this.#run = run;
  }

  get detail(): string {
    return `${AGE_SOURCES[this.#source]}, ${this.#days.toFixed(1)} days ago, half-life ${this.#run.halfLife} d${this.#run.informative ? '' : ' (not discriminating: neutral)'}`;
  }
}
