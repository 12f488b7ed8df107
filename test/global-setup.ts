import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every temp file a test makes goes under one directory per test run (TMPDIR is inherited by
 * the worker processes, and os.tmpdir() reads it), removed when the run ends, so a test that
 * forgets to clean up cannot litter the machine.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'aiwg-test-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
