/** Clamp to [0,1]. */
export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Six decimals: factor values are recorded, and records must be byte-stable across runs. */
export function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
