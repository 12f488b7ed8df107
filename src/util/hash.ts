import * as crypto from 'node:crypto';
import { weakMemo } from './weak-memo.js';

/**
 * Hex digests of a text or bytes: the one home for "sha256 of this, in hex". Node's one-shot
 * `crypto.hash` (20.12+) skips the Hash object that createHash makes per call: on ~27k short
 * keys (a warm babel run's file keys) 7-19 ms against 26-111 ms. Older Node takes createHash.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Buffer, outputEncoding: 'hex') => string }).hash;

export function sha256Hex(data: string | Buffer): string {
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}

/**
 * The sha256 (hex) of a file list: every path and content hash, in order; worked out once per
 * list object (a run's stages that key a cache by its candidates share one digest).
 */
export const fileListDigest = weakMemo((files: ReadonlyArray<{ readonly path: string; readonly hash: string }>): string => {
  const digest = crypto.createHash('sha256');
  for (const file of files) digest.update(`${file.path}\0${file.hash}\n`);
  return digest.digest('hex');
});
