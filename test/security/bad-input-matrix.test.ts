import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/fakes.js';
import { CREDENTIAL_FILES, diffTrees, leakedSecrets, plantSecretRepo, SECRETS, snapshotTree, writeFixtureFile } from '../helpers/secret-fixture.js';

/**
 * The bad-input and fault matrix of issue 15, as a table: every case runs one command on a
 * fresh copy of a repository full of (fake) credentials and asserts
 *   - the exit code (2 for anything the user can fix, never 70),
 *   - the message shape: one line `aiwg <command>: ...` naming the path, flag or key,
 *   - that no secret value appears in stdout, stderr, or any file the run wrote (context,
 *     records, logs, caches, output files outside the root),
 *   - that no user file changed or vanished (but the ones the command is meant to edit).
 */

interface Case {
  name: string;
  argv: (root: string, outside: string) => string[];
  env?: (root: string, outside: string) => Record<string, string>;
  setup?: (root: string, outside: string) => void;
  code: 0 | 1 | 2;
  /** What the one-line error must name (or what stdout must hold for code 0). */
  expect?: RegExp;
  /** User files the command is meant to change. */
  edits?: string[];
  /** Extra checks on the result. */
  check?: (run: Run) => void;
}

interface Run {
  root: string;
  outside: string;
  code: number;
  stdout: string;
  stderr: string;
  /** Root-relative paths written by the run. */
  written: string[];
}

const BASE_ENV = { AIWG_TOKENIZER: 'chars4', AIWG_SCORING_METHOD: 'keyword' };
const TASK = 'fix the token refresh';
const PASSWD = 'root:x:0:0';

const work = mkdtempSync(join(tmpdir(), 'aiwg-matrix-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let counter = 0;

function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

const manifest = (paths: string[]) =>
  `protocol: CONTEXT-ASSEMBLY/0.1\nbudget:\n  max_tokens: 20000\n  reserved_for_response: 1000\nfiles:\n${paths.map((p) => `  - path: ${p}\n    priority: 0.8\n`).join('')}`;

const handoffDir = (root: string) => join(root, '.aiwg', 'rag', 'handoffs');

const CASES: Case[] = [
  // context-budget: secrets in ordinary files never reach any output format
  { name: 'context-budget, xml context to a file', argv: () => ['context-budget', TASK, '--output', 'ctx.xml'], code: 0, check: (r) => expectRedactedOutput(r, 'ctx.xml') },
  { name: 'context-budget, markdown context', argv: () => ['context-budget', TASK, '--format', 'markdown', '--output', 'ctx.md'], code: 0, check: (r) => expectRedactedOutput(r, 'ctx.md') },
  { name: 'context-budget, json context', argv: () => ['context-budget', TASK, '--format', 'json', '--output', 'ctx.json'], code: 0, check: (r) => expectRedactedOutput(r, 'ctx.json') },
  { name: 'context-budget --output - and --json record', argv: () => ['context-budget', TASK, '--output', '-'], code: 0, expect: /\[REDACTED / },
  { name: 'context-budget --json record', argv: () => ['context-budget', TASK, '--json'], code: 0, expect: /"run_id"/ },
  {
    name: 'context-budget, a secret pasted into the task is redacted in record, log and header',
    argv: () => ['context-budget', `${TASK} using password = "${SECRETS.password}" and ${SECRETS.jwt}`, '--output', 'ctx.xml', '--json'],
    code: 0,
    check: (r) => expect(readFileSync(join(r.root, '.aiwg/rag/context-budget-log.jsonl'), 'utf8')).toContain('[REDACTED'),
  },
  {
    name: 'context-budget, a very long task is capped in the record and log',
    argv: () => ['context-budget', `${TASK} ${'and more detail '.repeat(800)}`, '--json'],
    code: 0,
    check: (r) => {
      const line = JSON.parse(readFileSync(join(r.root, '.aiwg/rag/context-budget-log.jsonl'), 'utf8').trim()) as { task: string };
      expect(line.task.length).toBeLessThanOrEqual(2000);
      expect(line.task).toMatch(/more characters not stored\]$/);
    },
  },
  {
    name: 'context-budget with a secret-bearing history',
    argv: () => ['context-budget', TASK, '--history', 'history.json', '--output', 'ctx.xml'],
    setup: (root) => writeFileSync(join(root, 'history.json'), JSON.stringify([{ role: 'user', content: `the key is ${SECRETS.stripeTest}` }])),
    code: 0,
  },
  { name: 'context-budget --max-tokens -5', argv: () => ['context-budget', TASK, '--max-tokens', '-5'], code: 2, expect: /--max-tokens -5: must not be negative/ },
  { name: 'context-budget --max-tokens abc', argv: () => ['context-budget', TASK, '--max-tokens', 'abc'], code: 2, expect: /--max-tokens "abc"/ },
  { name: 'context-budget --max-tokens below the reserves', argv: () => ['context-budget', TASK, '--max-tokens', '5', '--reserve-output', '8000'], code: 2, expect: /max_tokens/ },
  { name: 'context-budget --reserve-output -1', argv: () => ['context-budget', TASK, '--reserve-output', '-1'], code: 2, expect: /--reserve-output -1/ },
  { name: 'context-budget --format yaml', argv: () => ['context-budget', TASK, '--format', 'yaml'], code: 2, expect: /--format "yaml"/ },
  { name: 'context-budget without a task', argv: () => ['context-budget'], code: 2, expect: /task/ },
  { name: 'context-budget --bogus', argv: () => ['context-budget', TASK, '--bogus'], code: 2, expect: /--bogus/ },
  { name: 'context-budget --root missing', argv: (_r, o) => ['context-budget', TASK, '--root', join(o, 'nope')], code: 2, expect: /--root .*nope/ },
  { name: 'context-budget --root is a file', argv: () => ['context-budget', TASK, '--root', 'README.md'], code: 2, expect: /--root README\.md/ },
  { name: 'AIWG_MAX_TOKENS=lots', argv: () => ['context-budget', TASK], env: () => ({ AIWG_MAX_TOKENS: 'lots' }), code: 2, expect: /AIWG_MAX_TOKENS/ },
  // --output errors: one line, exit 2, and nothing written (no record, no output)
  { name: '--output is a directory', argv: () => ['context-budget', TASK, '--output', 'src'], code: 2, expect: /src.*directory/, check: expectNothingRecorded },
  { name: '--output under a file', argv: () => ['context-budget', TASK, '--output', 'README.md/ctx.xml'], code: 2, expect: /README\.md\/ctx\.xml.*not a directory/, check: expectNothingRecorded },
  {
    name: '--output is a dangling symlink',
    argv: () => ['context-budget', TASK, '--output', 'dangling.xml'],
    setup: (root) => symlinkSync(join(root, 'missing', 'target.xml'), join(root, 'dangling.xml')),
    code: 2,
    expect: /dangling\.xml.*symlink to a missing file/,
    check: expectNothingRecorded,
  },
  { name: '--output on a read-only file system', argv: () => ['context-budget', TASK, '--output', '/sys/aiwg-ctx.xml'], code: 2, expect: /\/sys\/aiwg-ctx\.xml/, check: expectNothingRecorded },
  { name: '--output under /proc (no mkdir loop)', argv: () => ['context-budget', TASK, '--output', '/proc/aiwg-matrix/deep/ctx.xml'], code: 2, expect: /\/proc\/aiwg-matrix/, check: expectNothingRecorded },
  { name: '--output to a character device', argv: () => ['context-budget', TASK, '--output', '/dev/null'], code: 0 },
  {
    name: '--output written only after the record: a failing record leaves no output',
    argv: () => ['context-budget', TASK, '--output', 'ctx.xml'],
    setup: (root) => {
      mkdirSync(join(root, '.aiwg', 'rag'), { recursive: true });
      writeFileSync(join(root, '.aiwg', 'rag', 'budget-records'), 'a file where the records directory should be');
    },
    code: 2,
    expect: /budget-records/,
    check: (r) => expect(existsSync(join(r.root, 'ctx.xml'))).toBe(false),
  },
  {
    name: 'disk full on the log append: no torn line, no record, no output',
    argv: () => ['context-budget', TASK, '--output', 'ctx.xml'],
    setup: (root) => {
      mkdirSync(join(root, '.aiwg', 'rag'), { recursive: true });
      symlinkSync('/dev/full', join(root, '.aiwg', 'rag', 'context-budget-log.jsonl'));
    },
    code: 2,
    expect: /context-budget-log\.jsonl \(ENOSPC\): the disk is full/,
    check: (r) => {
      expect(existsSync(join(r.root, 'ctx.xml'))).toBe(false);
      expect(readdirSync(join(r.root, '.aiwg', 'rag', 'budget-records'))).toEqual([]);
    },
  },
  {
    name: 'a torn last log line cannot swallow the next run',
    argv: () => ['context-budget', TASK],
    setup: (root) => writeFixtureFile(root, '.aiwg/rag/context-budget-log.jsonl', '{"run_id":"crashed","ta'),
    code: 0,
    check: (r) => {
      const lines = readFileSync(join(r.root, '.aiwg/rag/context-budget-log.jsonl'), 'utf8').split('\n');
      expect(lines[0]).toBe('{"run_id":"crashed","ta');
      expect(() => JSON.parse(lines[1]!)).not.toThrow();
      expect(lines[2]).toBe('');
    },
  },
  // configs
  { name: '--config .env is refused without echo', argv: () => ['context-budget', TASK, '--config', '.env'], code: 2, expect: /\.env: is a credentials file/ },
  { name: 'AIWG_CONFIG=.npmrc is refused without echo', argv: () => ['context-budget', TASK], env: () => ({ AIWG_CONFIG: '.npmrc' }), code: 2, expect: /\.npmrc: the file must be a mapping/ },
  { name: '--config a source file with a secret', argv: () => ['context-budget', TASK, '--config', 'src/billing.ts'], code: 2, expect: /src\/billing\.ts/ },
  { name: '--config missing', argv: () => ['context-budget', TASK, '--config', 'nope.yaml'], code: 2, expect: /nope\.yaml: config file does not exist/ },
  { name: '--config a directory', argv: () => ['context-budget', TASK, '--config', 'src'], code: 2, expect: /src: config file is a directory/ },
  { name: '--config /dev/zero', argv: () => ['context-budget', TASK, '--config', '/dev/zero'], code: 2, expect: /\/dev\/zero: config file is a character device/ },
  {
    name: '--config a FIFO (no hang)',
    argv: () => ['context-budget', TASK, '--config', 'pipe.yaml'],
    setup: (root) => mkfifo(join(root, 'pipe.yaml')),
    code: 2,
    expect: /pipe\.yaml: config file is a FIFO/,
  },
  {
    name: 'config YAML alias bomb',
    argv: () => ['context-budget', TASK],
    setup: (root) => writeFixtureFile(root, '.aiwg/rag/config.yaml', aliasBomb('budget_config')),
    code: 2,
    expect: /config\.yaml: too many YAML alias/,
  },
  {
    name: 'config symlinked to /dev/zero outside the root',
    argv: () => ['context-budget', TASK],
    setup: (root) => {
      mkdirSync(join(root, '.aiwg', 'rag'), { recursive: true });
      symlinkSync('/dev/zero', join(root, '.aiwg', 'rag', 'config.yaml'));
    },
    code: 2,
    expect: /config\.yaml: is a symlink leading outside the root/,
  },
  {
    name: 'config symlinked to a file outside the root',
    argv: () => ['context-budget', TASK],
    setup: (root, outside) => {
      writeFileSync(join(outside, 'shared.yaml'), `tokenizer: chars4\n# ${SECRETS.password}\n`);
      mkdirSync(join(root, '.aiwg', 'rag'), { recursive: true });
      symlinkSync(join(outside, 'shared.yaml'), join(root, '.aiwg', 'rag', 'config.yaml'));
    },
    code: 2,
    expect: /outside the root/,
  },
  { name: 'config broken YAML', argv: () => ['context-budget', TASK], setup: (root) => writeFixtureFile(root, '.aiwg/rag/config.yaml', 'budget_config: [\n'), code: 2, expect: /config\.yaml: YAML syntax error at line \d+/ },
  {
    name: 'config value that is a secret is not echoed',
    argv: () => ['context-budget', TASK],
    setup: (root) => writeFixtureFile(root, '.aiwg/rag/config.yaml', `tokenizer: ${SECRETS.stripeTest}\n`),
    code: 2,
    expect: /tokenizer/,
  },
  { name: 'config unknown key', argv: () => ['context-budget', TASK], setup: (root) => writeFixtureFile(root, '.aiwg/rag/config.yaml', 'budget_confg: {}\n'), code: 2, expect: /budget_confg/ },
  // --history
  { name: '--history missing', argv: () => ['context-budget', TASK, '--history', 'nope.json'], code: 2, expect: /--history nope\.json/ },
  { name: '--history a FIFO (no hang)', argv: () => ['context-budget', TASK, '--history', 'h.fifo'], setup: (root) => mkfifo(join(root, 'h.fifo')), code: 2, expect: /--history h\.fifo: the file is a FIFO/ },
  {
    name: '--history invalid JSON holding a secret is not echoed',
    argv: () => ['context-budget', TASK, '--history', 'h.json'],
    setup: (root) => writeFileSync(join(root, 'h.json'), `[{"role": "user", "content": "${SECRETS.github}" oops`),
    code: 2,
    expect: /h\.json: invalid JSON at line 1/,
  },
  // summarize
  { name: 'summarize .env', argv: () => ['summarize', '.env'], code: 2, expect: /\.env: not summarized: secret: environment file/ },
  { name: 'summarize .ssh/id_rsa', argv: () => ['summarize', '.ssh/id_rsa'], code: 2, expect: /id_rsa: not summarized: secret: SSH key/ },
  { name: 'summarize kubeconfig', argv: () => ['summarize', 'kubeconfig', '--level', 'full'], code: 2, expect: /kubeconfig: not summarized/ },
  { name: 'summarize .aws/credentials', argv: () => ['summarize', '.aws/credentials', '--level', 'full'], code: 2, expect: /\.aws\/credentials/ },
  { name: 'summarize a file with a password assignment', argv: () => ['summarize', 'src/settings.py', '--level', 'full'], code: 0, expect: /\[REDACTED password-assignment\]/ },
  { name: 'summarize a service-account JSON', argv: () => ['summarize', 'config/service-account.json', '--level', 'full'], code: 0, expect: /\[REDACTED private-key\]/ },
  { name: 'summarize a kubeconfig-shaped YAML', argv: () => ['summarize', 'deploy/cluster.yaml', '--level', 'full', '--json'], code: 0, expect: /REDACTED kubeconfig-credential/ },
  { name: 'summarize connection strings', argv: () => ['summarize', 'src/db.ts', '--level', 'full'], code: 0, expect: /postgres:\/\/app:\[REDACTED/ },
  {
    name: 'summarize a symlink out of the root',
    argv: () => ['summarize', 'passwd.txt'],
    setup: (root) => symlinkSync('/etc/passwd', join(root, 'passwd.txt')),
    code: 2,
    expect: /passwd\.txt: outside the root/,
  },
  { name: 'summarize a FIFO', argv: () => ['summarize', 'p.txt'], setup: (root) => mkfifo(join(root, 'p.txt')), code: 2, expect: /p\.txt: is a FIFO/ },
  { name: 'summarize a directory', argv: () => ['summarize', 'src'], code: 2, expect: /src: is a directory/ },
  { name: 'summarize a missing file', argv: () => ['summarize', 'nope.ts'], code: 2, expect: /nope\.ts: no such file/ },
  { name: 'summarize --level bogus', argv: () => ['summarize', 'README.md', '--level', 'bogus'], code: 2, expect: /--level bogus/ },
  // assemble: the same credential rules as collect
  {
    name: 'assemble a working set that lists credential files and files with secrets',
    argv: () => ['assemble', '--json'],
    setup: (root) => writeFileSync(join(root, 'working-set.yml'), manifest([...Object.keys(CREDENTIAL_FILES), 'src/db.ts', 'src/keys.ts', 'deploy/tls.yaml', 'config/service-account.json'])),
    code: 0,
    check: (r) => {
      const { report } = JSON.parse(r.stdout) as { report: { excluded: Array<{ path: string; reason: string }> } };
      for (const path of Object.keys(CREDENTIAL_FILES)) expect(report.excluded.find((e) => e.path === path)?.reason, path).toMatch(/^secret: /);
      expect(r.stdout).toContain('[REDACTED');
    },
  },
  { name: 'assemble a path leading out with ..', argv: () => ['assemble'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), manifest(['../outside.txt'])), code: 2, expect: /\.\.\/outside\.txt/ },
  {
    name: 'assemble a symlink to /etc/passwd',
    argv: () => ['assemble'],
    setup: (root) => {
      symlinkSync('/etc/passwd', join(root, 'users.txt'));
      writeFileSync(join(root, 'working-set.yml'), manifest(['users.txt']));
    },
    code: 2,
    expect: /users\.txt.*symlink leading outside the root/,
  },
  {
    name: 'assemble a manifest listing a FIFO and /dev/zero links inside',
    argv: () => ['assemble', '--json'],
    setup: (root) => {
      mkfifo(join(root, 'pipe.txt'));
      writeFileSync(join(root, 'working-set.yml'), manifest(['pipe.txt', 'src/refresh.ts']));
    },
    code: 0,
    expect: /not a regular file/,
  },
  { name: 'assemble broken YAML', argv: () => ['assemble'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), 'files: [\n'), code: 2, expect: /working-set\.yml: not valid YAML: syntax error at line/ },
  { name: 'assemble YAML alias bomb', argv: () => ['assemble'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), aliasBomb('metadata')), code: 2, expect: /working-set\.yml: too many YAML alias/ },
  { name: 'assemble a manifest that is a directory', argv: () => ['assemble', '--working-set', 'src'], code: 2, expect: /src: it is a directory/ },
  { name: 'assemble --working-set missing', argv: () => ['assemble', '--working-set', 'nope.yml'], code: 2, expect: /nope\.yml/ },
  { name: 'assemble --format bogus', argv: () => ['assemble', '--format', 'bogus'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), manifest(['README.md'])), code: 2, expect: /--format "bogus"/ },
  // working-set
  ...['.env', '.ssh/id_rsa', 'kubeconfig', '.aws/credentials', '.docker/config.json', 'terraform.tfvars', '.pgpass', '.envrc'].map(
    (path): Case => ({
      name: `working-set add ${path}`,
      argv: () => ['working-set', 'add', path, '--why', 'needed'],
      setup: (root) => writeFileSync(join(root, 'working-set.yml'), manifest(['README.md'])),
      code: 2,
      expect: new RegExp(`cannot add ${path.replace(/\./g, '\\.')}: it is a credentials file`),
    }),
  ),
  { name: 'working-set add without --why', argv: () => ['working-set', 'add', 'src/refresh.ts'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), manifest(['README.md'])), code: 2, expect: /--why/ },
  { name: 'working-set add --priority 5', argv: () => ['working-set', 'add', 'src/refresh.ts', '--why', 'x', '--priority', '5'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), manifest(['README.md'])), code: 2, expect: /--priority "5"/ },
  { name: 'working-set add outside the root', argv: () => ['working-set', 'add', '../x.ts', '--why', 'x'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), manifest(['README.md'])), code: 2, expect: /\.\.\/x\.ts.*outside the root/ },
  {
    name: 'working-set add a symlink out of the root',
    argv: () => ['working-set', 'add', 'users.txt', '--why', 'x'],
    setup: (root) => {
      symlinkSync('/etc/passwd', join(root, 'users.txt'));
      writeFileSync(join(root, 'working-set.yml'), manifest(['README.md']));
    },
    code: 2,
    expect: /users\.txt.*outside the root/,
  },
  { name: 'working-set add to a broken manifest', argv: () => ['working-set', 'add', 'src/refresh.ts', '--why', 'x'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), 'files: [\n'), code: 2, expect: /working-set\.yml: not valid YAML/ },
  { name: 'working-set add to an alias-bomb manifest', argv: () => ['working-set', 'add', 'src/refresh.ts', '--why', 'x'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), aliasBomb('metadata')), code: 2, expect: /working-set\.yml: too many YAML alias/ },
  { name: 'working-set remove a path not in the set', argv: () => ['working-set', 'remove', 'src/db.ts', '--why', 'x'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), manifest(['README.md'])), code: 2, expect: /src\/db\.ts is not in the working set/ },
  {
    name: 'working-set priority (the one user file it edits)',
    argv: () => ['working-set', 'priority', 'README.md', '--priority', '0.9', '--why', 'core'],
    setup: (root) => writeFileSync(join(root, 'working-set.yml'), manifest(['README.md'])),
    code: 0,
    edits: ['working-set.yml'],
  },
  { name: 'working-set refresh without flags', argv: () => ['working-set', 'refresh'], setup: (root) => writeFileSync(join(root, 'working-set.yml'), manifest(['README.md'])), code: 2, expect: /--bump-recent/ },
  { name: 'working-set without a subcommand', argv: () => ['working-set'], code: 2, expect: /subcommand/ },
  // handoff-context
  { name: 'handoff-context --phase -1', argv: () => ['handoff-context', '--phase', '-1'], code: 2, expect: /--phase -1: must not be negative/ },
  { name: 'handoff-context --phase abc', argv: () => ['handoff-context', '--phase', 'abc'], code: 2, expect: /--phase "abc"/ },
  { name: 'handoff-context --phase 0', argv: () => ['handoff-context', '--phase', '0'], code: 2, expect: /--phase 0: phases start at 1/ },
  {
    name: 'handoff phase-1.json linked to /etc/passwd',
    argv: () => ['handoff-context', '--phase', '2'],
    setup: (root) => {
      mkdirSync(handoffDir(root), { recursive: true });
      symlinkSync('/etc/passwd', join(handoffDir(root), 'phase-1.json'));
    },
    code: 2,
    expect: /phase-1\.json resolves outside the root/,
  },
  {
    name: 'handoff phase-1.json linked to /dev/zero',
    argv: () => ['handoff-context', '--phase', '2'],
    setup: (root) => {
      mkdirSync(handoffDir(root), { recursive: true });
      symlinkSync('/dev/zero', join(handoffDir(root), 'phase-1.json'));
    },
    code: 2,
    expect: /phase-1\.json resolves outside the root/,
  },
  {
    name: 'handoff phase-1.json is a FIFO (no hang)',
    argv: () => ['handoff-context', '--phase', '2'],
    setup: (root) => {
      mkdirSync(handoffDir(root), { recursive: true });
      mkfifo(join(handoffDir(root), 'phase-1.json'));
    },
    code: 2,
    expect: /phase-1\.json is a FIFO/,
  },
  { name: 'handoff phase-1.json is a directory', argv: () => ['handoff-context', '--phase', '2'], setup: (root) => mkdirSync(join(handoffDir(root), 'phase-1.json'), { recursive: true }), code: 2, expect: /phase-1\.json is a directory/ },
  {
    name: 'handoff phase-1.json invalid JSON holding a secret',
    argv: () => ['handoff-context', '--phase', '2'],
    setup: (root) => writeFixtureFile(root, '.aiwg/rag/handoffs/phase-1.json', `{"goal": "${SECRETS.awsSecret}" "x"}`),
    code: 2,
    expect: /phase-1\.json: not valid JSON \(at line 1, column \d+\)/,
  },
  {
    name: 'handoff narrative with secrets is redacted',
    argv: () => ['handoff-context', '--phase', '4'],
    setup: (root) => writeFixtureFile(root, '.aiwg/rag/handoffs/phase-1.json', JSON.stringify({ goal: `deploy with ${SECRETS.stripeTest}`, narrative: `db at postgres://u:${SECRETS.pgPassword}@db/x` })),
    code: 0,
    expect: /\[REDACTED /,
  },
  { name: 'phase-manifests.yaml alias bomb', argv: () => ['handoff-context', '--phase', '2'], setup: (root) => writeFixtureFile(root, '.aiwg/rag/phase-manifests.yaml', aliasBomb('phases')), code: 2, expect: /phase-manifests\.yaml: too many YAML alias/ },
  // context-score, context-report, cache, unknown command
  { name: 'context-score without --task', argv: () => ['context-score', 'src/db.ts'], code: 2, expect: /--task/ },
  { name: 'context-report --last -1', argv: () => ['context-report', '--last', '-1'], code: 2, expect: /--last/ },
  {
    name: 'context-report over a corrupt record holding a secret',
    argv: () => ['context-report'],
    setup: (root) => writeFixtureFile(root, '.aiwg/rag/budget-records/2026-01-01T00-00-00.000Z-x.json', `{"task": "${SECRETS.github}" broken`),
    code: 0,
  },
  {
    name: 'AIWG_CACHE_DIR=. cache clear keeps the user\u2019s embeddings/ and summaries/',
    argv: () => ['cache', 'clear'],
    env: () => ({ AIWG_CACHE_DIR: '.' }),
    setup: (root) => {
      writeFixtureFile(root, 'embeddings/model/vectors.pack', 'my research vectors');
      writeFixtureFile(root, 'embeddings/notes.md', '# my notes\n');
      writeFixtureFile(root, 'summaries/ab/abcdef.json', '{"mine": true}');
    },
    code: 0,
  },
  { name: 'cache with an unknown action', argv: () => ['cache', 'wipe'], code: 2, expect: /give one action/ },
  { name: 'cache stats with AIWG_CACHE_DIR under /proc', argv: () => ['cache', 'stats'], env: () => ({ AIWG_CACHE_DIR: '/proc/aiwg-matrix-cache' }), code: 0 },
  { name: 'unknown command', argv: () => ['frobnicate'], code: 2, expect: /unknown command "frobnicate"/ },
];

describe(`bad-input matrix (${CASES.length} cases): exit code, one-line message, no secret anywhere, no user file changed`, () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const root = join(work, `case-${++counter}`);
    const outside = join(work, `outside-${counter}`);
    mkdirSync(root, { recursive: true });
    mkdirSync(outside, { recursive: true });
    plantSecretRepo(root);
    c.setup?.(root, outside);
    const before = snapshotTree(root);
    const outsideBefore = snapshotTree(outside);

    const result = await runCli(c.argv(root, outside), root, { ...BASE_ENV, ...c.env?.(root, outside) });

    const after = snapshotTree(root);
    const { written, changed, removed } = diffTrees(before, after);
    const run: Run = { root, outside, ...result, written };
    expect(result.code, result.stderr).toBe(c.code);
    if (c.code !== 0) {
      expect(result.stderr).toMatch(/^aiwg( [a-z-]+)?: [^\n]+\n$/);
      if (c.expect) expect(result.stderr).toMatch(c.expect);
    } else if (c.expect) {
      expect(`${result.stdout}${result.stderr}`).toMatch(c.expect);
    }
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    // No secret in anything printed or written, inside the root or outside it.
    expect(leakedSecrets(result.stdout), 'stdout').toEqual([]);
    expect(leakedSecrets(result.stderr), 'stderr').toEqual([]);
    expect(`${result.stdout}${result.stderr}`).not.toContain(PASSWD);
    for (const path of written.filter((p) => !(c.edits ?? []).includes(p) && after.get(p) !== 'special' && after.get(p) !== 'symlink')) {
      expect(leakedSecrets(readFileSync(join(root, path), 'utf8')), path).toEqual([]);
    }
    const outsideDiff = diffTrees(outsideBefore, snapshotTree(outside));
    for (const path of outsideDiff.written) expect(leakedSecrets(readFileSync(join(outside, path), 'utf8')), path).toEqual([]);
    // No user file changed or lost, but those the command is meant to edit.
    expect(changed.filter((p) => !(c.edits ?? []).includes(p) && !p.startsWith('.aiwg/rag/')), 'user files changed').toEqual([]);
    expect(removed.filter((p) => !p.startsWith('.aiwg/rag/')), 'user files removed').toEqual([]);
    expect(outsideDiff.changed.concat(outsideDiff.removed), 'files outside the root changed').toEqual([]);
    c.check?.(run);
  });

  it('has at least 60 cases across every command', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
    const commands = new Set(CASES.map((c) => c.argv('/r', '/o')[0]));
    for (const name of ['context-budget', 'summarize', 'assemble', 'working-set', 'handoff-context', 'context-score', 'context-report', 'cache']) expect(commands).toContain(name);
  });
});

/** The context file exists, holds redaction markers and none of the secrets; records and log were written. */
function expectRedactedOutput(run: Run, file: string): void {
  const text = readFileSync(join(run.root, file), 'utf8');
  expect(text).toContain('[REDACTED ');
  expect(leakedSecrets(text)).toEqual([]);
  expect(readdirSync(join(run.root, '.aiwg/rag/budget-records'))).toHaveLength(1);
}

function expectNothingRecorded(run: Run): void {
  expect(run.written.filter((p) => p.startsWith('.aiwg/rag/budget-records/') || p.endsWith('context-budget-log.jsonl'))).toEqual([]);
}

/** A "billion laughs" document under `key`: each level aliases the previous one ten times. */
function aliasBomb(key: string): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    lines.push(`${name}: &${name} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`);
  }
  lines.push(`${key}: *i`);
  return `${lines.join('\n')}\n`;
}
