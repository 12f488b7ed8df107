/**
 * How a pooled vector becomes the unit vector an embedder returns. transformers.js normalises
 * (`normalize: true`), then `sanitize` guards the result; the static embedder does both steps
 * itself with the same float operations, so its vectors equal the transformers.js path's.
 */

/**
 * transformers.js' `Tensor.normalize(2, -1)` on one row, in place: the sum of squares is kept in
 * a float32 (a Float32Array slot in transformers.js), its square root stored as float32, and
 * each element divided by it. A zero vector becomes NaNs, which `sanitize` turns into zeros.
 */
export function normalizeLikeTransformers(vector: Float32Array): Float32Array {
  let squares = 0;
  for (let i = 0; i < vector.length; i++) squares = Math.fround(squares + vector[i]! ** 2);
  const norm = Math.fround(squares ** 0.5);
  for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/**
 * A text with no known token pools to 0/0: its vector becomes all zeros (cosine 0 with
 * everything) instead of NaN. Vectors are re-normalised to guard against drift.
 */
export function sanitize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += Number.isFinite(x) ? x * x : 0;
  if (!(norm > 0) || vector.some((x) => !Number.isFinite(x))) return vector.fill(0);
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) vector[i]! *= inv;
  return vector;
}
