import type { CoChangeTable } from '../types.js';

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
export function addCoChangeEvidence(scores: Map<string, number>, table: CoChangeTable | undefined, share: number): { scores: Map<string, number>; lifted: Map<string, string> } {
  const out = new Map(scores);
  const lifted = new Map<string, string>();
  if (share <= 0 || table === undefined || table.commits === 0) return { scores: out, lifted };
  const strong = [...scores]
    .filter(([, h]) => h >= STRONG_MIN)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, STRONG_MAX);
  for (const [s, h] of strong) {
    const row = table.pairs.get(s);
    const n = table.touched.get(s) ?? 0;
    if (!row || n === 0) continue;
    for (const [f, together] of row) {
      if (together < MIN_TOGETHER || !scores.has(f)) continue;
      const lift = share * (together / n) * h;
      if (lift > (out.get(f) ?? 0)) {
        out.set(f, lift);
        lifted.set(f, s);
      }
    }
  }
  return { scores: out, lifted };
}
