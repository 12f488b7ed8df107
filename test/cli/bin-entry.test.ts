import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/run-bin.js';

const run = promisify(execFile);

/**
 * bin/aiwg.js runs the command line's bundle (dist/cli/main.cjs, made by `npm run build` after
 * tsc) unless tsc's output (dist/src/cli/main.js) is newer or the bundle is missing: a `tsc` run
 * alone never leaves the command running stale code. Here the launcher itself runs in a copy of
 * the package layout whose two entries say which one ran.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function layout(): { root: string; bundle: string; compiled: string } {
  const root = mkdtempSync(join(tmpdir(), 'aiwg-bin-entry-'));
  dirs.push(root);
  mkdirSync(join(root, 'bin'));
  copyFileSync(BIN, join(root, 'bin', 'aiwg.js'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}\n');
  // tsc's output is an ES module, the bundle CommonJS
  const entry = (name: string, dir: string, file: string, exported: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, file), `${exported} async function runMain(args) { console.log(${JSON.stringify(name)}, args.join(' ')); return 0; }\n`);
    return join(dir, file);
  };
  return {
    root,
    compiled: entry('compiled', join(root, 'dist', 'src', 'cli'), 'main.js', 'export'),
    bundle: entry('bundle', join(root, 'dist', 'cli'), 'main.cjs', 'exports.runMain = '),
  };
}

async function ran(root: string): Promise<string> {
  return (await run(process.execPath, [join(root, 'bin', 'aiwg.js'), 'context-budget', '--help'], { cwd: root })).stdout.trim();
}

describe('bin/aiwg.js', () => {
  it('runs the bundle when it is at least as new as tsc\'s output, with the arguments', async () => {
    const { root, bundle, compiled } = layout();
    utimesSync(compiled, new Date(1_000_000), new Date(1_000_000));
    utimesSync(bundle, new Date(2_000_000), new Date(2_000_000));
    expect(await ran(root)).toBe('bundle context-budget --help');
  });

  it('runs tsc\'s output when the bundle is older (tsc run alone) or missing', async () => {
    const { root, bundle, compiled } = layout();
    utimesSync(bundle, new Date(1_000_000), new Date(1_000_000));
    utimesSync(compiled, new Date(2_000_000), new Date(2_000_000));
    expect(await ran(root)).toBe('compiled context-budget --help');
    rmSync(bundle);
    expect(await ran(root)).toBe('compiled context-budget --help');
  });
});
