import type { CoChangeTable } from '../types.js';
import type { PathPositions, PathValues } from './alignment.js';

/**
 * Co-change evidence: a file that historically changes together with one of the task's
 * strongest files (GitFacts.coChange, read at collect time from the repository's own history)
 * rises to a share of that file's score, like test pairing, never above it. Outside git, or
 * without history, the table is empty and nothing moves.
 */

/** A pair must have changed together at least this often to count. */
export const MIN_TOGETHER = 2;
/** The strongest files whose partners rise: the best few with at least this score. */
export const STRONG_MAX = 5;
export const STRONG_MIN = 0.6;

/**
 * h(f) = max(h(f), share x conf(s, f) x h(s)) over the strong files s (the STRONG_MAX best with
 * h >= STRONG_MIN), where conf(s, f) = together(s, f) / touched(s) for pairs that changed
 * together at least MIN_TOGETHER times. Never above the partner's own score.
 */
export function addCoChangeEvidence(
  scores: PathValues,
  paths: readonly string[],
  positions: PathPositions,
  table: CoChangeTable | undefined,
  share: number,
): { scores: PathValues; lifted: Map<string, string> } {
  const out = scores.slice();
  const lifted = new Map<string, string>();
  if (share <= 0 || table === undefined || table.commits === 0) return { scores: out, lifted };
  const strong: number[] = [];
  for (let i = 0; i < scores.length; i++) if (scores[i]! >= STRONG_MIN) strong.push(i);
  strong.sort((a, b) => scores[b]! - scores[a]! || (paths[a]! < paths[b]! ? -1 : 1));
  for (const i of strong.slice(0, STRONG_MAX)) {
    const s = paths[i]!;
    const h = scores[i]!;
    const row = table.pairs.get(s);
    const n = table.touched.get(s) ?? 0;
    if (!row || n === 0) continue;
    for (const [f, together] of row) {
      const j = positions.get(f);
      if (together < MIN_TOGETHER || j === undefined) continue;
      const lift = share * (together / n) * h;
      if (lift > out[j]!) {
        out[j] = lift;
        lifted.set(f, s);
      }
    }
  }
  return { scores: out, lifted };
}
