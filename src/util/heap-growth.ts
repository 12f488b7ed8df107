import { setFlagsFromString } from 'node:v8';

/**
 * A run that reads thousands of new blobs (a cold run on a large repository) allocates hundreds
 * of MB of short-lived text and facts, and V8 by default lets the heap grow to several times what
 * is live before a full collection: babel's cold run (27,674 files) peaked at 785-971 MB of
 * resident memory against a target of 1 GB. Once a run has read MANY_NEW_BLOBS new blobs, the heap
 * may grow only to twice what is live (V8's `--heap-growing-percent=100`). In session 14 (a cold
 * run no longer loads gpt-tokenizer's table, among the changes since the setting came), babel's
 * cold run peaked at 574-582 MB with it and 580-591 MB without it, and a cold vite run (2,537 new
 * blobs) paid ~3% of its time for it (4.91 against 5.05 s, medians of 4; peak 346 against 355
 * MB). So only a run past 10,000 new blobs keeps it: the safety net of repositories much larger
 * than babel. Warm runs and checkouts never get there. V8 flags belong to the process: a
 * long-lived one keeps the setting after its first big collect.
 */
export const MANY_NEW_BLOBS = 10_000;

let kept = false;

/** Keep the heap near its live size from now on (once per process). */
export function keepHeapNearLive(): void {
  if (kept) return;
  kept = true;
  setFlagsFromString('--heap-growing-percent=100');
}
