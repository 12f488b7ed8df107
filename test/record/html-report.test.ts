import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { runCli } from '../helpers/fakes.js';
import { readRecords } from '../../src/record/read-records.js';
import { pct } from '../../src/record/report.js';
import { levelReason } from '../../src/record/level-reason.js';
import { formatCount } from '../../src/util/format.js';
import type { BudgetRecord } from '../../src/record/record-schema.js';

/**
 * `aiwg context-report --html`: rendered in a real headless Chromium (Debian's `chromium`, which
 * .ci/run installs when missing). The page must load with no console error and no request but its
 * own file, and show the numbers of the records.
 */
const CHROMIUM = process.env.AIWG_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let fixture: Fixture;
let work: string;
let records: BudgetRecord[];
let htmlPath: string;

beforeAll(async () => {
  const body = (name: string, n: number) => Array.from({ length: n }, (_, i) => `  // ${name} step ${i}: check the delay before retrying\n  total += ${i};`).join('\n');
  fixture = makeFixtureRepo([
    {
      date: '2026-01-01T10:00:00Z',
      files: {
        'src/http/retry.ts': `/** Retry loop with backoff delay. */\nexport function retryDelay(attempt: number): number {\n  let total = 0;\n${body('retry', 40)}\n  return total * attempt;\n}\n`,
        'src/http/client.ts': `import { retryDelay } from './retry.js';\n/** The http client: retries with backoff. */\nexport function request(attempt: number): number {\n  let total = 0;\n${body('client', 30)}\n  return retryDelay(attempt) + total;\n}\n`,
        'src/http/timeout.ts': `/** Request timeout handling for the http client retry. */\nexport const TIMEOUT_MS = 5000;\n${body('timeout', 10)}\n`,
        'docs/design/retry.md': '# Retry design\n\nThe http client retry loop waits for the backoff delay after a timeout.\n',
        'README.md': '# demo\n\nAn http client with retry and backoff.\n',
      },
    },
  ]);
  for (const max of ['2000', '1200', '20000']) {
    const run = await runCli(['context-budget', 'fix the http client retry backoff delay after a timeout', '--scoring', 'keyword', '--max-tokens', max], fixture.root);
    expect(run.code).toBe(0);
  }
  records = (await readRecords(fixture.root)).records;
  work = mkdtempSync(join(tmpdir(), 'aiwg-html-'));
  htmlPath = join(work, 'report.html');
  const html = await runCli(['context-report', '--html', htmlPath], fixture.root);
  expect(html.code).toBe(0);
  expect(html.stdout).toBe(`wrote ${htmlPath} (3 runs)\n`);
}, 120_000);

afterAll(() => {
  fixture?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('context-report --html', () => {
  it('is one self-contained page: no script, no external reference', () => {
    const html = readFileSync(htmlPath, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src="http|href="http|@import|url\(/i);
  });

  it('renders in headless Chromium with no console error, showing the records\' numbers', async () => {
    const userDataDir = mkdtempSync(join(tmpdir(), 'aiwg-chromium-'));
    const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1180, height: 900 } });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      page.on('request', (request) => requests.push(request.url()));
      const url = pathToFileURL(htmlPath).href;
      await page.goto(url, { waitUntil: 'load' });

      expect(problems).toEqual([]);
      expect(requests).toEqual([url]);
      expect(await page.title()).toBe('aiwg context report');
      expect(await page.locator('[data-k="runs"]').textContent()).toBe('3');
      const mean = records.reduce((s, r) => s + r.metrics.utilization, 0) / records.length;
      expect(await page.locator('[data-k="mean-util"]').textContent()).toBe(pct(Math.round(mean * 10000) / 10000));

      // Every run: its utilization, a budget bar, and each file with tokens and the five factor scores.
      expect(await page.locator('details[data-run]').count()).toBe(3);
      expect(await page.locator('svg[aria-label="budget bar"]').count()).toBe(3);
      expect(await page.locator('svg[aria-label="utilization over time"] circle').count()).toBe(3);
      for (const record of records) {
        const run = page.locator(`details[data-run="${record.run_id}"]`);
        expect(await run.locator('[data-k="util"]').textContent()).toBe(pct(record.metrics.utilization));
        for (const tier of ['primary', 'supporting', 'reference'] as const) {
          for (const file of record.allocation[tier].files) {
            const row = run.locator(`tr[data-path="${file.path}"]`);
            const cells = await row.locator('td').allTextContents();
            expect(cells.slice(0, 5)).toEqual([file.path, tier, file.level, formatCount(file.tokens), file.relevance_score.toFixed(2)]);
            expect(cells.slice(5, 10)).toEqual(Object.values(file.factors).map((v) => v.toFixed(2)));
            const overflow = record.overflow.files_affected.includes(file.path) ? record.overflow.strategy_applied : null;
            expect(cells[10]).toBe(levelReason({ tier, level: file.level, truncated: file.truncated, overflow }));
          }
        }
      }
      // The tighter runs kept reference files below full; the page says how each got its level.
      expect(await page.locator('td.why', { hasText: 'lifted from summary to detailed' }).count()).toBeGreaterThan(0);

      const shot = join(work, 'context-report.png');
      const png = await page.screenshot({ path: shot, fullPage: true });
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(1180);
      if (process.env.AIWG_SCREENSHOT_OUT) await page.screenshot({ path: process.env.AIWG_SCREENSHOT_OUT, fullPage: true });
    } finally {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
