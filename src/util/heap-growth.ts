import { setFlagsFromString } from 'node:v8';

/**
 * A run that reads thousands of new blobs (a cold run on a large repository) allocates hundreds
 * of MB of short-lived text and facts, and V8 by default lets the heap grow to several times what
 * is live before a full collection: babel's cold run (27,674 files) peaked at 785-971 MB of
 * resident memory against a target of 1 GB. Once a run has read MANY_NEW_BLOBS new blobs, the heap
 * may grow only to twice what is live (V8's `--heap-growing-percent=100`): 670-737 MB, for ~5%
 * more CPU in that run. Warm runs and checkouts never get there. V8 flags belong to the process:
 * a long-lived one keeps the setting after its first cold collect.
 */
export const MANY_NEW_BLOBS = 2000;

let kept = false;

/** Keep the heap near its live size from now on (once per process). */
export function keepHeapNearLive(): void {
  if (kept) return;
  kept = true;
  setFlagsFromString('--heap-growing-percent=100');
}
