import type { ScoredFile } from '../../src/types.js';

/**
 * Scored files with every factor as plain data, its explanation read: a factor score writes its
 * explanation when it is read (a getter), so a deep comparison of two runs compares this.
 */
export function plainScores(files: readonly ScoredFile[]): unknown[] {
  return files.map((file) => ({
    ...file,
    factors: Object.fromEntries(Object.entries(file.factors).map(([name, f]) => [name, { raw: f.raw, score: f.score, detail: f.detail }])),
  }));
}
