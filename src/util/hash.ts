import * as crypto from 'node:crypto';

/**
 * Hex digests of a text or bytes: the one home for "sha256 of this, in hex". Node's one-shot
 * `crypto.hash` (20.12+) skips the Hash object that createHash makes per call: on ~27k short
 * keys (a warm babel run's file keys) 7-19 ms against 26-111 ms. Older Node takes createHash.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Buffer, outputEncoding: 'hex') => string }).hash;

export function sha256Hex(data: string | Buffer): string {
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}
