import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/fakes.js';
import { COMMANDS } from '../../src/cli/commands/index.js';

const README = readFileSync(resolve('README.md'), 'utf8');

describe('help', () => {
  it.each(COMMANDS.map((c) => c.name))('"aiwg help %s" prints that command\'s help, same as --help', async (name) => {
    const viaHelp = await runCli(['help', name], tmpdir());
    const viaFlag = await runCli([name, '--help'], tmpdir());
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toContain(`Usage: aiwg ${name}`);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });

  it('an unknown help topic is a usage error', async () => {
    const result = await runCli(['help', 'contxt-budget'], tmpdir());
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('aiwg: unknown command "contxt-budget". Run "aiwg help" for the list.\n');
  });

  it('documents every short flag in the command help and in the README', async () => {
    const commands = await Promise.all(COMMANDS.map((c) => c.load()));
    const shorts = commands.flatMap((c) => Object.entries(c.options).filter(([, o]) => o.short !== undefined).map(([long, o]) => [c.name, long, o.short as string] as const));
    expect(shorts.length).toBeGreaterThan(0);
    for (const [name, long, short] of shorts) {
      const { stdout } = await runCli(['help', name], tmpdir());
      expect(stdout).toMatch(new RegExp(`-${short}, --${long}\\b`));
      expect(README).toContain(`\`-${short}\``);
    }
    expect(README).toContain("`--help` (`-h`)");
    expect(README).toContain("`aiwg --version`\n(`-v`)");
  });

  it('documents exit codes 0, 1, 2 and 70 in the help and the README', async () => {
    const { stdout } = await runCli(['--help'], tmpdir());
    for (const code of ['0', '1', '2', '70']) {
      expect(stdout).toMatch(new RegExp(`^  ${code}\\s+\\S`, 'm'));
      expect(README).toMatch(new RegExp(`\\b${code}\\b[^\\n]*`));
    }
    expect(README).toContain('70 internal error');
  });
});
