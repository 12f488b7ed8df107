import type { KeyValueCache, Reporter, RunContext } from '../../src/types.js';
import type { CliIo } from '../../src/cli/command.js';
import { runMain } from '../../src/cli/main.js';
import { defaultConfig, type Config } from '../../src/config/schema.js';
import { createChars4Tokenizer, type Tokenizer } from '../../src/tokenize/tokenizer.js';

/** A clock that moves only when told. */
export function fakeClock(startMs = Date.UTC(2026, 0, 15)) {
  let now = startMs;
  return { now: () => now, advance: (ms: number) => (now += ms), set: (ms: number) => (now = ms) };
}

/** In-memory KeyValueCache. */
export function memoryCache(): KeyValueCache & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get: async (ns, key) => entries.get(`${ns}/${key}`),
    set: async (ns, key, value) => void entries.set(`${ns}/${key}`, value),
  };
}

/** A reporter that records what it was told. */
export function captureReporter(): Reporter & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => void lines.push(`info: ${m}`),
    warn: (m) => void lines.push(`warn: ${m}`),
    debug: (m) => void lines.push(`debug: ${m}`),
    progress: () => {},
  };
}

/** A RunContext for pure-stage tests; chars4 unless a tokenizer is given. */
export function testContext(overrides: { config?: Config; tokenizer?: Tokenizer; nowMs?: number } = {}): RunContext {
  return {
    config: overrides.config ?? defaultConfig(),
    tokenizer: overrides.tokenizer ?? createChars4Tokenizer(),
    reporter: captureReporter(),
    nowMs: overrides.nowMs ?? Date.UTC(2026, 0, 15),
    warnings: [],
  };
}

/** A CliIo that records what a command prints. */
export function fakeIo(cwd: string, env: Record<string, string | undefined> = {}): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env, cwd, isTTY: false };
}

/** Run the CLI in-process with fake io: the exit code and everything printed. */
export async function runCli(argv: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = fakeIo(cwd, env);
  const code = await runMain(argv, io);
  return { code, stdout: io.out.join(''), stderr: io.err.join('') };
}
